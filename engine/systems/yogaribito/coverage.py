"""夜狩り人's coverage runs (``engine.core.coverage``): the sessions that, with the golden playthroughs, take every
drawn edge of ``flow.MACHINES``; one scenario variant adds a fight with a foe already slain."""

from __future__ import annotations

import copy
from typing import Any

from ...core.coverage import Run, sample, scene
from . import INFO

__all__ = ["RUNS"]


def _slain_foe(raw: dict[str, Any]) -> None:
    """An ending scene with a fight against the count, who usually died in the climax."""
    fight = copy.deepcopy(scene(raw, "m_ghouls"))
    fight.update(id="e_remnant", phase="ending", title="伯爵の亡骸")
    fight["combat"] = {"enemies": ["count"], "layout": {"E1": ["pcs"], "E2": ["count"]}}
    raw["scenes"].append(fight)


COUNT = sample(INFO, "night_of_the_count")

RUNS: tuple[Run, ...] = (
    Run("samples", COUNT, range(4), ("scripted", "random_gm"), why="the bulk; the GM ends a combat"),
    Run("samples", COUNT, range(6), ("random_pcs",), why="combats lost, escaped, ended in end_phase"),
    Run("samples", COUNT, range(24), ("random_npcs",),
        why="the count's 霧化 (a setup feat) costs his last 【魂】: setup_phase → finish"),
    Run("slain_foe", COUNT, range(3), edit=_slain_foe, why="a fight whose only foe is dead: combat_start → finish"),
)
