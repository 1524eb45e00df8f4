"""夜狩り人's story hooks (``engine.core.story.StoryHooks``): phase and scene headings, information as clues, the
resources a player watches (【命】【魂】【燎】【運】…) in words, deaths and incapacitation, GM rulings given as
decisions, and the ending per PC. Its dice lines are the generic ones (the check labels name the ability), its
sheet is its compact panels."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...core.events import AnswerEvent, CheckEvent, InfoEvent, PhaseEvent, RollEvent, StateEvent
from ...core.story import Namer, StoryHooks, StoryItem, generic_info
from .data import ABILITY_NAMES

__all__ = ["STORY"]

_HEADING_INFO = {"phase", "scene", "combat_start", "afterplay"}
_CLUE_INFO = {"info", "objective"}
_RESOURCES = ("life", "soul", "luck", "wealth", "kagaribi", "bullets")
_FLAGS = {"dead": "死亡した", "incapacitated": "戦闘不能になった", "doomed": "破滅が決まった"}
_RULINGS = {"gm.proposal": "シーンの提案", "gm.scene": "シーン", "gm.call_check": "判定に使う能力値",
            "gm.scene_player": "シーンプレイヤー", "gm.approve_common": "コモンクラス",
            "gm.approve_equivalent": "相当品"}
_ENDINGS = {"objective_achieved": "シナリオの目的を達成した", "objective_failed": "シナリオの目的を果たせなかった",
            "pcs_dead": "PCは全滅した"}
_PC = {"alive": "生還", "dead": "死亡", "incapacitated": "戦闘不能", "doomed": "破滅"}


def _heading(e: PhaseEvent) -> str | None:
    return None  # the info events name the phases and scenes (「オープニングフェイズ「夜の港」」)


def _info(e: InfoEvent, name: Namer) -> StoryItem | None:
    if e.topic in _HEADING_INFO:
        return StoryItem("heading", e.text)
    if e.topic in _CLUE_INFO:
        return StoryItem("clue", e.text, private=e.to is not None)
    return generic_info(e, name)


def _state(e: StateEvent, name: Namer) -> str | None:
    parts = e.path.split(".")
    if len(parts) != 2:
        return None
    who, key = parts
    if key in _RESOURCES and isinstance(e.new, int) and isinstance(e.old, int) and e.new != e.old:
        return f"{name(who)}の{ABILITY_NAMES.get(key, key)} {e.old} → {e.new}"
    if key in _FLAGS and e.new is True and e.old is not True:
        return f"{name(who)}は{_FLAGS[key]}"
    if key == "in_scene" and e.new is True and e.old is not True:
        return f"{name(who)}がシーンに登場した"
    return None


def _answer(e: AnswerEvent, name: Namer) -> StoryItem | None:
    what = _RULINGS.get(e.kind)
    if what is None or not e.label:
        return None
    return StoryItem("ruling", f"{what}: {e.label}", speaker=name(e.actor), private=e.to is not None)


def _ending(outcome: Mapping[str, Any], name: Namer) -> list[str]:
    ending = str(outcome.get("ending", ""))
    out = [_ENDINGS.get(ending, ending)]
    xp = outcome.get("xp") or {}
    for pid, status in (outcome.get("pcs") or {}).items():
        out.append(f"{name(str(pid))}: {_PC.get(str(status), str(status))}")
    if xp:
        # experience is the player's (§7.11): named by the PCs each player played
        players = outcome.get("players") or {}
        out.append("経験点: " + "、".join(
            f"{'・'.join(name(str(p)) for p in players.get(k) or []) or k} のプレイヤー {v}点" for k, v in xp.items()))
    return out


def _dice(e: CheckEvent, rolls: Sequence[RollEvent], name: Namer) -> list[str] | None:
    """A check without dice of its own (an attack's verdict, damage, a critical table row) says all in its label."""
    return None if e.rolls else []


STORY = StoryHooks(heading=_heading, info=_info, state=_state, dice=_dice, answer=_answer, ending=_ending)
