"""ブラッドベリー (Bloodberry): rules/bloodberry.md."""

from __future__ import annotations

from pathlib import Path

from ...core.registry import SystemInfo, register_system
from .config import BloodberryConfig
from .decisions import DECISIONS
from .flow import MACHINES
from .prompt_view import compact_observation
from .panels import LABELS as _LABELS
from .panels import panels as _panels
from .report import REPORT
from .scenario import BloodberryScenario
from .story import STORY

__all__ = ["INFO", "BloodberryConfig", "BloodberryScenario", "VERSION"]

VERSION = "0.3.2"
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
        decision_table=DECISIONS,
        prompt_roles=("gm", "pc", "npc", "curse"),  # prompts/<id>/<role>.md.j2
        compact_observation=compact_observation,
        sample_scenarios=(_scenarios() / "inoiri_dolls.yaml", _scenarios() / "salt_festival.yaml"),
        # the worked examples ship inside the package (examples/), so that `trpg examples` works in any install
        examples=tuple(Path(__file__).resolve().parent / "examples" / f"{p}.yaml" for p in ("bloodberry", "bloodberry_skills")),
        description="現代日本の百合TRPG: 関係判定で絆を深め、呪いと対峙する",
        panels=_panels,
        story=STORY,
        labels=_LABELS,
        report=REPORT,
        invariants=__import__(f"{__name__}.invariants", fromlist=["invariants"]).invariants,  # trpg fuzz
    )
)
