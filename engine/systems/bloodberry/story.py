"""ブラッドベリー's story hooks (``engine.core.story.StoryHooks``): its checks as dice lines (the two abilities rolled,
faces, 達成値 against 目標値, rerolls with the new faces), its relations, abilities, 気力, sublimations and clues in
words, scene headings, the ending per PC, and the compact sheet."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from ...core.events import AnswerEvent, CheckEvent, InfoEvent, PhaseEvent, RollEvent, StateEvent
from ...core.panels import Panel
from ...core.story import Namer, StoryHooks, StoryItem, generic_info, generic_roll_text, names_in
from .data import ABILITY_NAMES, BASIC_SKILLS, CLASS_NAMES, CLASS_SKILL_NAMES, CURSE_TYPE_NAMES, RACE_SKILL_NAMES
from .panels import panels as _panels
from .report import success_probability

__all__ = ["STORY"]

_SESSION_HEADINGS = {"between_scenes": "シーンの間", "ending": "エンディングフェイズ"}
_SCENE_HEADINGS = {"confrontation": "対峙"}
_SKIPPED_INFO = {"discard", "initiative"}
_HEADING_INFO = {"scene", "flag_map", "ending"}
_REROLL = {"wish": "明日への願い", "willpower": "気力"}
_RULINGS = {
    "gm.actor_ruling": "シーンアクターの申告",
    "gm.proposal_ruling": "シーンの提案",
    "gm.entry_ruling": "登場の申請",
    "gm.permit": "行動の許可",
    "gm.victory_ruling": "勝利条件",
    "gm.approve_sheet": "キャラクターシート",
    "gm.approve_useful": "役立つ特技として認める",
}
_STATUS = {"active": "健在", "dropped": "脱落", "dead": "死亡", "vanished": "消失", "absent": "欠席", "hosted": "宿主"}
_ENDINGS = {
    "victory": "呪いに勝利した",
    "rival_victory": "対立する陣営が先に呪いを鎮めた（PCの勝利ではない）",
    "defeat": "呪いに敗北した",
    "withdrawn": "対峙は決着しなかった",
    "no_confrontation": "対峙なしで終わった",
}


def _skill_name(sid: str) -> str:
    s = BASIC_SKILLS.get(sid)
    if s is not None:
        return s.name
    return CLASS_SKILL_NAMES.get(sid) or RACE_SKILL_NAMES.get(sid) or sid


def _heading(e: PhaseEvent) -> str | None:
    if e.machine == "session":
        return _SESSION_HEADINGS.get(e.dst)
    if e.machine == "scene":
        return _SCENE_HEADINGS.get(e.dst)
    return None


def _info(e: InfoEvent, name: Namer) -> StoryItem | None:
    if e.topic in _SKIPPED_INFO:
        return None
    if e.topic in _HEADING_INFO:
        return StoryItem("heading", e.text)
    return generic_info(e, name)


def _pair(key: str, name: Namer) -> str:
    a, _, b = key.partition("|")
    return f"{name(a)}と{name(b)}"


def _state(e: StateEvent, name: Namer) -> str | StoryItem | None:
    path = e.path
    parts = path.split(".")
    head = parts[0]
    if head == "relation" and len(parts) == 2:
        return f"{_pair(parts[1], name)}の関係が {e.old} → {e.new}"
    if head == "camp" and len(parts) == 2:
        return f"{_pair(parts[1], name)}の関係が {e.old} → {e.new}"
    if head == "clues" and isinstance(e.new, str) and e.new:
        return StoryItem("clue", "手がかり: " + e.new, private=e.to is not None)
    if head in ("flag", "clock", "cards", "flag_map", "checks"):
        return None
    if len(parts) == 2:
        who, key = name(head), parts[1]
        if key in ABILITY_NAMES and isinstance(e.new, int) and e.old != e.new:
            return f"{who}の{ABILITY_NAMES[key]} {e.old} → {e.new}"
        if key == "willpower" and e.old != e.new:
            return f"{who}の気力 {e.old} → {e.new}"
        if key == "status" and e.old != e.new:
            return f"{who}は{_STATUS.get(str(e.new), str(e.new))}"
        if key == "victory" and isinstance(e.new, str) and e.new:
            return StoryItem("clue", f"{who}の勝利条件: {e.new}", private=e.to is not None)
        return None
    if len(parts) == 3 and parts[1] == "skill":
        if e.new == "sublimated":
            return f"{name(head)}の特技《{_skill_name(parts[2])}》が昇華した"
        return None
    if len(parts) == 4 and parts[1] == "skill" and parts[3] == "effect" and e.new == "spent":
        return f"{name(head)}が《{_skill_name(parts[2])}》の効果を使った"
    m = re.fullmatch(r"victory\[(\d+)\]", parts[1]) if len(parts) == 3 else None
    if m and parts[2] == "achieved":
        return f"{name(head)}の勝利条件{int(m.group(1)) + 1}: " + ("達成" if e.new else "未達成")
    return None


def _faces(fs: Sequence[int]) -> str:
    return "[" + " ".join(map(str, fs)) + "]"


def _dice(e: CheckEvent, rolls: Sequence[RollEvent], name: Namer) -> list[str] | None:
    rollers = e.data.get("rollers")
    if not e.rolls or not isinstance(rollers, list):
        return None
    out = []
    for r, d in zip(e.rolls, rollers, strict=False):
        if not isinstance(d, Mapping):
            continue
        bases = d.get("bases") or ()
        basis = "+".join(ABILITY_NAMES.get(str(b), CURSE_TYPE_NAMES.get(str(b), str(b))) for b in bases)
        who = name(r.who)
        if who == r.who and r.who.startswith("place:"):  # a flag-map place rolling its gate check (A31)
            pid = r.who.split(":", 1)[1]
            who = str(d.get("name") or "") or (name(pid) if name(pid) != pid else "場所")
        line = f"{who}（{basis}）" if basis else who
        # the faces of each roll of this roller, oldest first: the first roll, then each reroll's new faces
        mine = [x for x in rolls if x.purpose.rsplit(":", 1)[-1] == r.who and x.sides == 6]
        sets: list[list[int]] = []
        cur: list[int] = []
        purpose = None
        for x in mine:
            if purpose is not None and (x.purpose != purpose or len(cur) == r.pool):
                sets.append(cur)
                cur = []
            purpose = x.purpose
            cur.append(x.value)
        if cur:
            sets.append(cur)
        rerolls = [str(s) for s in d.get("rerolls") or ()]
        if d.get("abandoned"):
            out.append(f"{line}: 判定を放棄")
            continue
        text = generic_roll_text(r)
        if rerolls and len(sets) >= 2:
            first = _faces(sets[-len(rerolls) - 1]) if len(sets) > len(rerolls) else _faces(sets[0])
            how = "・".join(_REROLL.get(s.split("<")[0], "妖精の呪い" if s.startswith("fairy") else s) for s in rerolls)
            text = f"{first} → 振り直し（{how}） → " + text
        elif rerolls:
            how = "・".join(_REROLL.get(s.split("<")[0], "妖精の呪い" if s.startswith("fairy") else s) for s in rerolls)
            text += f"（振り直し: {how}）"
        useful = [_skill_name(str(s)) for s in d.get("useful") or ()]
        if useful:
            text += "　役立つ特技: " + "・".join(f"《{u}》" for u in useful)
        if d.get("conceded"):
            text += "　（譲った）"
        out.append(f"{line}: {text}")
    if e.data.get("kind") == "opposed" and len(e.rolls) == 2:
        a, p = e.rolls
        if a.ach is not None and a.ach == p.ach and p.success and not a.success:
            out.append("達成値が同じ: 受動側の勝ち")
    return out


def _answer(e: AnswerEvent, name: Namer) -> StoryItem | None:
    what = _RULINGS.get(e.kind)
    if what is None or not e.label:
        return None
    note = e.answer.get("note")
    text = f"{what}: {e.label}" + (f"（{note}）" if isinstance(note, str) and note else "")
    return StoryItem("ruling", text, speaker=name(e.actor), private=e.to is not None)


def _ending(outcome: Mapping[str, Any], name: Namer) -> list[str]:
    ending = str(outcome.get("ending", ""))
    out = [_ENDINGS.get(ending, ending)]
    for pid, pc in (outcome.get("pcs") or {}).items():
        if not isinstance(pc, Mapping):
            continue
        status = _STATUS.get(str(pc.get("status")), str(pc.get("status")))
        vic = pc.get("victory") or []
        got = sum(1 for v in vic if isinstance(v, Mapping) and v.get("achieved"))
        bits = [status]
        if vic:
            bits.append(f"勝利条件 {got}/{len(vic)} 達成")
        ab = pc.get("abilities") or {}
        if ab:
            bits.append(" ".join(f"{ABILITY_NAMES.get(k, k)}{v}" for k, v in ab.items()))
        subl = [_skill_name(str(s)) for s in pc.get("sublimated") or ()]
        if subl:
            bits.append("昇華 " + "・".join(subl))
        out.append(f"{name(str(pid))}: " + "、".join(bits))
    return out


def _short(text: str, n: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[: n - 1] + "…"


def _sheet(obs: Mapping[str, Any]) -> list[Panel]:
    me = obs.get("me") if isinstance(obs.get("me"), Mapping) else None
    chars = obs.get("characters") or {}
    rows: list[tuple[str, str]] = []
    lines: list[str] = []
    names = {k: str(v.get("name", k)) for k, v in chars.items() if isinstance(v, Mapping)}

    def short_name(cid: str) -> str:
        return re.sub(r"（.*?）", "", names.get(cid, cid)).strip()

    def abil(c: Mapping[str, Any]) -> str:
        return " ".join(f"{ABILITY_NAMES.get(k, k)}{v}" for k, v in (c.get("abilities") or {}).items())

    if me:
        cls = CLASS_NAMES.get(str(me.get("cls")), "")
        rows.append((short_name(str(me.get("id"))), f"{cls}  {abil(me)}  気力{me.get('willpower', 0)}"))
        skills = []
        for s in me.get("skills") or ():
            if isinstance(s, Mapping):
                mark = "◎" if s.get("sublimated") else ""
                use = "（効果あり）" if s.get("effect_available") else ""
                skills.append(f"{mark}{_skill_name(str(s.get('id')))}{use}")
        if skills:
            rows.append(("特技", "・".join(skills)))
        mine = [r for r in obs.get("relations") or () if isinstance(r, Mapping) and me.get("id") in (r.get("between") or ())]
        if mine:
            rows.append(("関係", "  ".join(
                f"{short_name(next((x for x in r['between'] if x != me.get('id')), ''))}{r.get('name', '')}{r.get('strength', 0)}"
                for r in mine)))
        for i, v in enumerate(me.get("victory") or (), 1):
            text = v.get("text") if isinstance(v, Mapping) else v
            if text:
                rows.append((f"勝利条件{i}", _short(str(text), 60)))
    others = [c for cid, c in chars.items() if isinstance(c, Mapping) and (not me or cid != me.get("id"))]
    for c in others:
        if c.get("kind") != "pc":
            continue
        status = "" if c.get("status") == "active" else f"（{_STATUS.get(str(c.get('status')), '')}）"
        rows.append((f"{short_name(str(c.get('id')))}{status}", f"{abil(c)}  気力{c.get('willpower', 0)}"))
    clues = obs.get("clues") or []
    if clues:
        lines.append(f"手がかり {len(clues)} 件（state で全文）")
    if obs.get("clock_minutes"):
        lines.append(f"経過時間 {obs['clock_minutes']} 分")
    out = [Panel("", rows=rows, lines=lines)]
    out += list(_panels(obs, True))
    return out


def _decision(d: Any, name: Namer) -> list[str]:
    ctx = d.context
    get = ctx.get if hasattr(ctx, "get") else (lambda k, default=None: default)
    bits = []
    ach, thr = get("ach"), get("threshold")
    if isinstance(ach, int) and isinstance(thr, int):
        state = "成功している" if ach >= thr else "まだ失敗"
        bits.append(f"達成値 {ach} / 目標値 {thr}（{state}）")
    opp = get("opponent_ach")
    if isinstance(opp, int):
        bits.append(f"相手の達成値 {opp}")
    pool = get("pool")
    if isinstance(pool, int):
        bits.append(f"ダイス {pool} 個")
    wp = get("willpower")
    if isinstance(wp, int):
        bits.append(f"気力 {wp}")
    out = ["・".join(bits)] if bits else []
    if d.kind == "j.reroll" and isinstance(pool, int) and isinstance(thr, int):
        # §5.3: the odds of the new faces, exact (P(Binomial(pool, 1/3) >= n)); the passive side wins a tie
        odds = [f"目標値に届く {success_probability(pool, thr):.0%}"]
        if isinstance(opp, int):
            need = max(thr, opp + (1 if get("side") == "active" else 0))
            odds.append(f"相手に勝つ {success_probability(pool, need):.0%}")
        out.append("振り直すと: " + "・".join(odds))
    return out


def _names(obs: Mapping[str, Any]) -> dict[str, str]:
    """Names without their readings (七瀬 葵（ななせ あおい） → 七瀬 葵): the story repeats them often."""
    out = {k: re.sub(r"（.*?）", "", v).strip() or v for k, v in names_in(obs).items()}
    # the two sides of a relation with a curse when no single character holds it (§5.5: the PCs' relation)
    return {"pcs": "PCたち", "rivals": "ライバル陣営", **out}


STORY = StoryHooks(heading=_heading, info=_info, state=_state, dice=_dice, answer=_answer, ending=_ending,
                   sheet=_sheet, decision=_decision, names=_names)
