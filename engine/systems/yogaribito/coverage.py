"""夜狩り人's coverage runs (``engine.core.coverage``): the sessions that, with the golden playthroughs, take every
drawn edge of ``flow.MACHINES``; one scenario variant adds a fight with a foe already slain; the sequel (黒翼の鐘楼)
runs standalone and continuing a campaign."""

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
BELFRY = sample(INFO, "belfry_of_black_wings")

#: a campaign after the count's night in which 白鷺澪 died and 白鷺澪の後任 (a fresh white mage, quickplay sheet)
#: replaced her: the sequel seats 御堂迅 from the campaign, not the scenario's dead 澪, and the replacement instead
_CAMPAIGN = {"system": "yogaribito", "sessions_played": 1, "dead": ["mio"], "replacements": {"mio": "mio_2"},
             "pcs": {"jin": {"id": "jin", "sample": "sample_midou_jin", "player": "pl1"},
                     "mio_2": {"id": "mio_2", "sample": "sample_shirasagi_mio", "player": "pl2", "name": "白鷺澄"}}}

RUNS: tuple[Run, ...] = (
    Run("samples", COUNT, range(4), ("scripted", "random_gm"), why="the bulk; the GM ends a combat"),
    Run("samples", COUNT, range(6), ("random_pcs",), why="combats lost, escaped, ended in end_phase"),
    Run("samples", COUNT, (*range(24), 29), ("random_npcs",),
        why="the count's 霧化 (a setup feat) costs his last 【魂】: setup_phase → finish"),
    Run("round_cap", COUNT, range(2), config={"max_combat_rounds": 2},
        why="the HOUSE safety cap (no sample fight reaches the default 30 rounds): end_phase → finish"),
    Run("slain_foe", COUNT, range(3), edit=_slain_foe, why="a fight whose only foe is dead: combat_start → finish"),
    Run("belfry", BELFRY, range(3), ("scripted", "random_pcs"),
        why="the sequel: blockades (《結界》) against a pack, area attacks into it, flying foes over the blockade"),
    Run("belfry_campaign", BELFRY, range(2), options={"campaign": _CAMPAIGN, "campaign_file": "coverage campaign"},
        why="the sequel continuing a campaign whose PC died: the replacement plays instead"),
)
