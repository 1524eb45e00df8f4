"""ラストフラグメント's ``SystemInfo`` (rules/last_fragment.md): what the rest of the program knows of the system."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...core.registry import SystemInfo, register_system
from .config import LastFragmentConfig
from .decisions import DECISIONS
from .flow import MACHINES
from .scenario import LastFragmentScenario

__all__ = ["INFO", "VERSION"]

VERSION = "0.1.0"
_HERE = Path(__file__).resolve().parent
_ROOT = _HERE.parents[2]


def _scenarios() -> Path:
    from ...resources import resource_dir

    try:
        return resource_dir("scenarios") / "last_fragment"
    except FileNotFoundError:
        return _ROOT / "scenarios" / "last_fragment"


def _new_game(ctx: Any) -> Any:
    from .game import LastFragmentGame

    return LastFragmentGame(ctx)


INFO = register_system(
    SystemInfo(
        id="last_fragment",
        name="ラストフラグメント",
        version=VERSION,
        capabilities=frozenset({"checks", "secret_fragments", "whispers", "scenes", "bonds", "combat",
                                "simultaneous_choices", "campaigns", "creation"}),
        scenario_model=LastFragmentScenario,
        new_game=_new_game,
        machines=MACHINES,
        config_model=LastFragmentConfig,
        spec="last_fragment.md",
        sample_scenarios=tuple(_scenarios() / f"{p}.yaml" for p in ("shuuden_no_mukou", "kaerimichi_no_eki")),
        examples=(),
        decision_table=DECISIONS,
        prompt_roles=("gm", "pc", "npc"),
        description="d4 を能力値の数だけ振り最大の目で判定する探索ホラーTRPG: フラグメントを集め、ラストフラグメントを手にクライマックスへ。",
    )
)
