"""ラストフラグメント's coverage runs (``engine.core.coverage``): the sessions that, with the golden playthroughs, take
every drawn edge of ``flow.MACHINES``. The scripted table reaches the climax through every scene; random tables
refuse the climax (declined declarations), get stuck (the GM's force-unlock and end of the main phase), request
items the GM refuses or approves, and fumble."""

from __future__ import annotations

from typing import Any

from ...core.coverage import Run, sample
from .info import INFO

__all__ = ["RUNS"]

SHUUDEN = sample(INFO, "shuuden_no_mukou")
KAERIMICHI = sample(INFO, "kaerimichi_no_eki")

def _locked_second(raw: dict[str, Any]) -> None:
    """The second scene never unlocks by itself: the scripted GM is stuck after the first and force-unlocks it."""
    raw["scenes"][1]["unlock"] = "false"


RUNS: tuple[Run, ...] = (
    Run("samples", SHUUDEN, range(2), ("scripted", "random_pcs", "random_gm"), why="the bulk: scenes, checks, climax"),
    Run("samples", KAERIMICHI, range(2), ("scripted", "random"), why="the continuation scenario; a random table"),
    Run("random", SHUUDEN, range(2, 8), ("random",), why="declined declarations, stuck GM, refused items"),
    Run("stuck", SHUUDEN, range(1), edit=_locked_second, why="gm_stuck → scene_enter (force-unlock)"),
    Run("declined", SHUUDEN, (11,), ("random_pcs",),
        why="the gate holds at scene_select, a random PC declines: scene_select → climax_declaration → gm_stuck"),
)
