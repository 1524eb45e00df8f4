"""夜狩り人 -宵闇伝奇譚TRPG- (rules/yogaribito.md): creation, checks, tactical combat, growth."""

from __future__ import annotations

from pathlib import Path

from ...core.registry import SystemInfo, register_system
from .config import YogaribitoConfig
from .decisions import DECISIONS
from .flow import MACHINES
from .prompt_view import compact_observation
from .panels import panels as _panels
from .story import STORY
from .report import REPORT
from .scenario import YogaribitoScenario

__all__ = ["INFO", "YogaribitoConfig", "YogaribitoScenario", "VERSION"]

VERSION = "0.3.6"
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
        sample_scenarios=(_scenarios() / "night_of_the_count.yaml", _scenarios() / "belfry_of_black_wings.yaml"),
        # the worked examples ship inside the package (examples/), so that `trpg examples` works in any install
        examples=tuple(Path(__file__).resolve().parent / "examples" / f"yogaribito_{p}.yaml" for p in ("checks", "combat", "creation")),
        description="異能伝奇アクション: 判定は【心】【技】【体】の個数のダイスで5・6を数える。燎・運・財、覚醒、エンゲージ戦闘。",
        decision_table=DECISIONS,
        prompt_roles=("gm", "pc", "npc", "curse"),  # prompts/<id>/<role>.md.j2
        compact_observation=compact_observation,
        panels=_panels,
        story=STORY,
        report=REPORT,
        invariants=__import__(f"{__name__}.invariants", fromlist=["invariants"]).invariants,  # trpg fuzz
    )
)
