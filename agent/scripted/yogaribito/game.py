"""Scripted defaults of rules/yogaribito.md §8 for the session's decisions (D17–D23, D55, D56, D58, D59)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.core.decision import Decision
from engine.core.session import Session
from engine.core.standing import first_of as _first

__all__ = ["POLICY"]


def _highest(d: Decision, s: Session) -> str:
    """The ability with the highest current value among the options (D56; also the GM's D19 default)."""
    cur = d.context.get("current") or {}
    return max(d.option_ids, key=lambda a: (cur.get(a, 0), -d.option_ids.index(a)))


def social(d: Decision, s: Session) -> Any:
    """D20: information if the scenario has undisclosed information here, else none."""
    info = [o for o in d.option_ids if o.startswith("information:")]
    return info[0] if info else "none"


def purchase(d: Decision, s: Session) -> Any:
    """D21: buy a revitalizer (賦活剤) if none held, else none."""
    owned = d.context.get("owned") or []
    if "revitalizer" not in owned and "revitalizer" in d.option_ids:
        return "revitalizer"
    return "none"


POLICY: dict[str, Callable[[Decision, Session], Any]] = {
    "gm.scene": lambda d, s: _first(d, "play"),
    "gm.scene_player": lambda d, s: d.option_ids[0],
    "pc.entry": lambda d, s: _first(d, "attempt"),
    "pc.entry_ability": _highest,
    "gm.scene_flow": lambda d, s: _first(d, "start_combat", "close_scene"),
    "pc.social": social,
    "gm.call_check": _highest,
    # D19 ad hoc: the scripted GM never calls one (it only follows the scenario), but answer if asked
    "gm.call_check_free": lambda d, s: {"pc": next(iter(d.context.get("pcs") or {"": 0})), "ability": "body",
                                       "target": 1, "label": "判定"},
    "gm.npc_ability": lambda d, s: _first(d, "mind"),
    "pc.purchase": purchase,
    "pc.propose": lambda d, s: _first(d, "none"),
    "gm.proposal": lambda d, s: _first(d, "accept"),
}
