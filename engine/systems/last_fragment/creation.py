"""Character creation at the terminal (``trpg new-character last_fragment``, rules/last_fragment.md §3): the
profile (cc_profile), AP on 能力/知識 (cc_ap_allocation; 異能 derived), skills into the slots (cc_skill_choice) and
the initial items (cc_initial_item_names, the GM's veto). The outcome's ``sheet`` goes into a scenario file's
``pcs:``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .base import Gen

if TYPE_CHECKING:
    from ...core.session import Session
    from .game import LastFragmentGame

__all__ = ["new_character_session", "create_character", "PC_ID"]

PC_ID = "pc1"


def create_character(game: LastFragmentGame, pid: str = PC_ID) -> Gen:
    """§3 for one new PC, the only PC at the table; returns its sheet."""
    for cid in [c.id for c in game.t.pcs()]:
        del game.t.chars[cid]
    c = game.new_pc(pid, 1)
    game.t.chars = {pid: c, **game.t.chars}
    yield from game.create(c)
    yield from game.name_items(c, game.cfg.initial_items)
    sheet: dict[str, Any] = {"id": pid, "name": c.name, "title": c.title, "abilities": dict(c.abilities),
                             "skills": [s for s in c.skills if s != "tsuujou_kougeki"], "items": list(c.items)}
    return sheet


def new_character_session(seed: int = 0) -> Session:
    """``trpg new-character last_fragment``: one PC through §3 (the GM's veto scripted unless seated otherwise)."""
    from ...core import Session, load_scenario
    from ...core.registry import get_system

    info = get_system("last_fragment")
    return Session(load_scenario(info.sample_scenarios[0]), seed=seed, options={"procedure": {"new_character": {}}})
