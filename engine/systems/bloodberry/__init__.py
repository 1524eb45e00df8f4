"""ブラッドベリー (Bloodberry): rules/bloodberry.md."""

from __future__ import annotations

from pathlib import Path

from ...core.registry import SystemInfo, register_system
from .config import BloodberryConfig
from .flow import MACHINES
from .scenario import BloodberryScenario

__all__ = ["INFO", "BloodberryConfig", "BloodberryScenario", "VERSION"]

VERSION = "0.1.0"
_ROOT = Path(__file__).resolve().parents[3]


def _scenarios() -> Path:
    from ...resources import resource_dir

    try:
        return resource_dir("scenarios") / "bloodberry"
    except FileNotFoundError:
        return _ROOT / "scenarios" / "bloodberry"


def _new_game(ctx):  # type: ignore[no-untyped-def]
    from .game import BloodberryGame

    return BloodberryGame(ctx)


INFO = register_system(
    SystemInfo(
        id="bloodberry",
        name="ブラッドベリー",
        version=VERSION,
        capabilities=frozenset({"creation", "judge", "relation_check", "curse_check", "sublimation", "confrontation",
                                "between_scenes", "reaction_windows", "private_information"}),
        scenario_model=BloodberryScenario,
        new_game=_new_game,
        machines=MACHINES,
        config_model=BloodberryConfig,
        spec="bloodberry.md",
        # the judge's windows and the 気力 guard: mechanical, asked many times a session (§5.3, §6, §9)
        reaction_kinds=frozenset({
            "j.abandon", "j.pre_effects", "j.post_mods", "j.claim_useful", "j.second_basis", "j.reroll",
            "j.fairy_offer", "j.fairy_consent", "j.concede", "j.grant", "j.forget", "j.chukoku", "kiryoku.guard",
            "race.guardian",
        }),
        sample_scenarios=(_scenarios() / "inoiri_dolls.yaml", _scenarios() / "salt_festival.yaml"),
        examples=(_ROOT / "tests" / "examples" / "bloodberry.yaml", _ROOT / "tests" / "examples" / "bloodberry_skills.yaml"),
        description="現代日本の百合TRPG: 関係判定で絆を深め、呪いと対峙する",
    )
)
