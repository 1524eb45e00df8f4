"""ラストフラグメント's story hooks (``engine.core.story.StoryHooks``): the numbers a player watches (HP, トークン,
異常性Lv) in words, the table's bookkeeping (cycles, what is revealed: the narration says it) left out, and the
ending per PC (生還 / 死亡 / 失踪) with the climax's winner. Dice lines, clues and rulings are the generic ones: the
check labels name the ability and the result, fragments arrive as their own whispers."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...core.events import StateEvent
from ...core.story import Namer, StoryHooks, generic_state
from .data import ENDINGS
from .info import LABELS

__all__ = ["STORY"]

#: the sheet's numbers a player watches (the rest of a sheet is narrated by the rules or shown on the sheet)
_WATCHED = {k: LABELS[k] for k in ("hp", "tokens", "abnormality_level", "ap_unspent", "skill_slots")}


def _state(e: StateEvent, name: Namer) -> str | None:
    if e.path.startswith("table."):
        return None  # cycles, revealed things, flags: bookkeeping (the narration tells what was found)
    return generic_state(e, name, _WATCHED)


def _ending(outcome: Mapping[str, Any], name: Namer) -> list[str]:
    out: list[str] = []
    winner = outcome.get("winner")
    if isinstance(winner, str):
        out.append(f"クライマックスの勝者: {name(winner)}")
    endings = outcome.get("endings")
    if isinstance(endings, Mapping):
        for pid, e in endings.items():
            out.append(f"{name(str(pid))}: {ENDINGS.get(str(e), str(e))}")
    return out


STORY = StoryHooks(state=_state, ending=_ending)
