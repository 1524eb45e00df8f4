"""夜狩り人 -宵闇伝奇譚TRPG- (rules/yogaribito.md): creation, checks, tactical combat, growth."""

from __future__ import annotations

from pathlib import Path

from ...core.registry import SystemInfo, register_system
from .config import YogaribitoConfig
from .flow import MACHINES
from .scenario import YogaribitoScenario

__all__ = ["INFO", "YogaribitoConfig", "YogaribitoScenario", "VERSION"]

VERSION = "0.1.0"
_ROOT = Path(__file__).resolve().parents[3]


def _scenarios() -> Path:
    from ...resources import resource_dir

    try:
        return resource_dir("scenarios") / "yogaribito"
    except FileNotFoundError:
        return _ROOT / "scenarios" / "yogaribito"


def _new_game(ctx):  # type: ignore[no-untyped-def]
    from .game import YogaribitoGame

    return YogaribitoGame(ctx)


INFO = register_system(
    SystemInfo(
        id="yogaribito",
        name="夜狩り人",
        version=VERSION,
        capabilities=frozenset({"creation", "checks", "opposed_checks", "hero_points", "combat", "engagements",
                                "awakening", "social_checks", "afterplay", "growth"}),
        scenario_model=YogaribitoScenario,
        new_game=_new_game,
        machines=MACHINES,
        config_model=YogaribitoConfig,
        spec="yogaribito.md",
        sample_scenarios=(_scenarios() / "night_of_the_count.yaml",),
        examples=tuple(_ROOT / "tests" / "examples" / f"yogaribito_{p}.yaml" for p in ("checks", "combat", "creation")),
        description="異能伝奇アクション: 判定は【心】【技】【体】の個数のダイスで5・6を数える。燎・運・財、覚醒、エンゲージ戦闘。",
        # the hero-point windows of every check: mechanical, asked many times a session (§5.2 steps A–F)
        reaction_kinds=frozenset({"ck.auto_feats", "ck.bought", "ck.kagaribi", "ck.luck", "ck.defense_ability",
                                  "ck.bullets", "cb.crit_bonus", "cb.crit_table", "cb.blockade_consent", "cb.delay",
                                  "cb.other_auto"}),
    )
)
