"""「A」's coverage runs (``engine.core.coverage``): the sessions that, with the golden playthroughs, take every drawn
edge of ``flow.MACHINES``. Hero point effect B (the ``redo`` and ``reroll`` edges of CHECK) is never used by the
scripted policy: random PCs and a random SD reach it (``hp_b_timing=at_step4`` for ``reroll``)."""

from __future__ import annotations

from ...core.coverage import Run, sample
from .info import INFO

__all__ = ["RUNS"]

YOMICHI = sample(INFO, "yomichi_no_hikari")
HIKARI = sample(INFO, "hikari_no_ato")

RUNS: tuple[Run, ...] = (
    Run("samples", YOMICHI, range(2), ("scripted", "random_pcs", "random_gm"), why="the bulk: scenes, turns, checks"),
    Run("samples", HIKARI, range(2), ("scripted", "random"), why="the short scenario; a random table"),
    Run("retcon", YOMICHI, range(6), ("random",), why="effect B at the declaration: idle → roll (redo)"),
    Run("retcon_step4", YOMICHI, range(1), config={"hp_b_timing": "at_step4"},
        options={"setup": {"hp": {"yagami": 1}, "turn": 4},
                 "procedure": {"check": {"actor": "yagami", "category": "combat", "elements": ["空手", "槍"],
                                         "hp_b": [["self", "実は、最初の一撃はかわされていなかった"]]}}},
        why="effect B at step 4 on the check itself: hero → roll (reroll)"),
    Run("retcon_procedure", YOMICHI, range(1),
        options={"setup": {"hp": {"yagami": 1}, "turn": 4},
                 "procedure": {"steps": [{"check": {"actor": "yagami", "category": "combat", "elements": ["空手"]}},
                                         {"hero_b": {"pc": "yagami", "target": "c1",
                                                     "statement": "実は、足場はしっかりしていた"}}]}},
        why="effect B on an earlier check: idle → roll (redo)"),
)
