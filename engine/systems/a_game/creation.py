"""Character creation at the terminal (``trpg new-character a_game``, rules/a_game.md §3.1 steps 4–5): a name and
a 設定 (D02), then success elements proposed one by one, each pre-checked by the engine and approved or rejected by
the SD with its reason code (D03, D04; no per-turn limit at creation, at most 20). The outcome's ``sheet`` goes
into a scenario file's ``pcs:``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .base import Gen

if TYPE_CHECKING:
    from ...core.session import Session
    from .game import AGame

__all__ = ["new_character_session", "create_character", "PC_ID"]

PC_ID = "pc1"


def create_character(game: AGame, pid: str = PC_ID) -> Gen:
    """D02 then the creation window (D03/D04) for one new PC, the only PC at the table; returns its sheet."""
    from .state import Character

    for cid in [c.id for c in game.t.pcs()]:
        del game.t.chars[cid]
    c = Character(id=pid, name="新しいPC", kind="pc", player=pid, seat=1, cast="protagonist")
    game.t.chars[pid] = c
    yield from game.create_backgrounds()
    yield from game.free_window(c, "creation", "§3.1 D03 (キャラクター作成時)")
    sheet: dict[str, Any] = {"id": pid, "name": c.name, "background": c.background,
                             "elements": [{"name": e.name, "categories": list(e.categories)} for e in c.elements]}
    return sheet


def new_character_session(seed: int = 0) -> Session:
    """``trpg new-character a_game``: one PC through D02–D04 (the SD's approvals scripted unless seated otherwise).
    The outcome's ``sheet`` is ready for a scenario file's ``pcs:``."""
    from ...core import Session, load_scenario
    from ...core.registry import get_system

    info = get_system("a_game")
    return Session(load_scenario(info.sample_scenarios[0]), seed=seed, options={"procedure": {"new_character": {}}})
