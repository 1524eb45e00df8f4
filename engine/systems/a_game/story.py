"""「A」's story hooks (``engine.core.story.StoryHooks``): scene headings, its checks as dice lines (the dice of the
success elements, fixed dice, greed batches, the total against twice the difficulty), the SD's rulings on success
elements with whose they are, hero points and new elements in words, and the ending per PC."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...core.events import CheckEvent, InfoEvent, PhaseEvent, RollEvent, RulingEvent, StateEvent
from ...core.story import Namer, StoryHooks, StoryItem, generic_info, ruling_reason
from .data import CATEGORIES, RESULT_NAMES

__all__ = ["STORY"]

_HEADING_INFO = {"scene"}
_CLUE_INFO = {"goal"}
_RULINGS = {
    "sd.approve_element": "成功要素",
    "sd.confirm_element": "成功要素",
    "sd.approve_temporary": "一時成功要素",
    "sd.follow_precedent": "前例",
    "sd.cast_violation": "キャストの逸脱",
}
_ENDINGS = {"all_goals": "すべてのシーンの目標を達成した", "some_goals": "一部のシーンの目標を達成した",
            "no_goals": "シーンの目標をひとつも達成できなかった", "ended_early": "ゲームは途中で終わった"}


def _heading(e: PhaseEvent) -> str | None:
    return None  # the scene info events are the headings (「シーン1「地下の石碑」」)


def _info(e: InfoEvent, name: Namer) -> StoryItem | None:
    if e.topic in _HEADING_INFO:
        return StoryItem("heading", e.text)
    if e.topic in _CLUE_INFO:
        return StoryItem("clue", e.text, private=e.to is not None)
    return generic_info(e, name)


def _ruling(e: RulingEvent, name: Namer) -> StoryItem | None:
    what = _RULINGS.get(e.kind, "")
    pc = e.data.get("pc")
    who = name(str(pc)) if isinstance(pc, str) and pc else ""
    whose = f"{who}の" if who and who not in e.subject else ""
    verdict = "承認" if e.verdict == "approve" else "却下"
    why = ruling_reason(e)
    # a precedent's subject is its record id: the words say which it is
    subject = "" if e.kind in ("sd.follow_precedent", "sd.cast_violation") else e.subject
    text = f"{whose}{what}{subject}: {verdict}" + (f"（{why}）" if why else "")
    return StoryItem("ruling", text, speaker=name(e.by), private=e.to is not None)


def _state(e: StateEvent, name: Namer) -> str | None:
    parts = e.path.split(".")
    if len(parts) == 2 and parts[1] == "hp" and isinstance(e.new, int) and isinstance(e.old, int) and e.old != e.new:
        return f"{name(parts[0])}のヒーローポイント {e.old} → {e.new}"
    if len(parts) == 3 and parts[1] == "elements" and e.old is None and isinstance(e.new, Mapping):
        return f"{name(parts[0])}の成功要素【{e.new.get('name', '')}】が加わった"
    if e.path == "scene.successes" and isinstance(e.new, int) and e.old != e.new:
        return f"シーンの目標への成功 {e.old} → {e.new}"
    return None


def _dice(e: CheckEvent, rolls: Sequence[RollEvent], name: Namer) -> list[str] | None:
    d = e.data
    if "n" not in d or not e.rolls:
        return None
    r = e.rolls[0]
    bits = [f"{name(r.who)}: ダイス {d.get('n', 0)} 個"]
    fixed = int(d.get("fixed") or 0)
    if fixed:
        bits.append(f"（固定 {fixed} 個 = {2 * fixed}）")
    rolled = d.get("rolled") or []
    if rolled:
        bits.append(" [" + " ".join(map(str, rolled)) + "]")
    for b in d.get("batches") or ():
        bits.append(" 欲張り [" + " ".join(map(str, b)) + "]")
    total, diff = d.get("total"), d.get("difficulty")
    if total is not None:
        bits.append(f" → 合計 {total}")
    if isinstance(diff, int):
        bits.append(f" / 目標値 {2 * diff}（難易度 {diff}）")
    result = RESULT_NAMES.get(str(d.get("result") or r.result), str(r.result))
    bits.append(f" {result}")
    if d.get("auto_fail"):
        bits.append("（1 が出た）")
    return ["".join(bits)]


def _ending(outcome: Mapping[str, Any], name: Namer) -> list[str]:
    ending = str(outcome.get("ending", ""))
    out = [_ENDINGS.get(ending, ending)]
    goals = outcome.get("goals") or {}
    if goals:
        out.append(f"シーンの目標 {outcome.get('goals_achieved', 0)}/{len(goals)} 達成")
    for pid, used in (outcome.get("usage") or {}).items():
        if isinstance(used, Mapping) and used:
            out.append(f"{name(str(pid))}: 使った成功要素 " + "・".join(f"【{k}】{v}回" for k, v in used.items()))
    bans = outcome.get("bans_next_game") or []
    if bans:
        out.append("次のゲームで使えない成功要素: " + "・".join(f"【{b}】" for b in bans))
    return out


STORY = StoryHooks(heading=_heading, info=_info, state=_state, dice=_dice, ruling=_ruling, ending=_ending,
                   terms=CATEGORIES)
