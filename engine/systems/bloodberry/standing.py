"""ブラッドベリー's standing answers (``engine.core.standing``): the vocabulary of each reaction window of §8, and its
``default``, the spec's scripted default for that window (the scripted policy answers these windows with it).

Each resolver reads only the decision's options and context, which its actor may see.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.core.decision import Decision
from engine.core.standing import DEFAULT, StandingAnswer, always, never

__all__ = ["STANDING", "TITLES"]

ABILITY_ORDER = ("passion", "grace", "maturity")


def j_abandon(d: Decision) -> Any:
    return "roll"


def j_second_basis(d: Decision) -> Any:
    vals = d.context["values"]
    return max(d.option_ids, key=lambda a: (vals[a], -ABILITY_ORDER.index(a)))


def j_claim_useful(d: Decision) -> Any:
    rt = d.context.get("rel_type")
    return [sid for sid in d.option_ids if rt is not None and d.context["affirm"].get(sid) == rt]


def j_pre_effects(d: Decision) -> Any:
    c = d.context
    if c.get("third_party"):
        # 自堕落: help an ally PC facing a curse check it is likely to fail
        if c.get("check") == "curse":
            for r in c.get("rollers", []):
                if (r.get("threshold") or 0) >= 2 and f"jidaraku:{r['id']}" in d.option_ids:
                    return f"jidaraku:{r['id']}"
        return "none"
    needy = c.get("check") == "curse" or (c.get("check") == "relation" and c.get("in_cf"))
    if needy and c.get("pool_estimate", 0) / 3 < (c.get("threshold") or 0):
        effects = [o for o in d.option_ids if o != "none"]
        if effects:
            return effects[0]
    return "none"


def _failing(c: Mapping[str, Any]) -> bool:
    thr = c.get("threshold")
    ach = c.get("ach", 0)
    if thr is not None and ach < thr:
        return True
    opp = c.get("opponent_ach")
    if opp is not None:
        return ach < opp or (ach == opp and c.get("side") == "active")
    return False


def j_reroll(d: Decision) -> Any:
    c = d.context
    if not _failing(c):
        return "stop"
    ids = d.option_ids
    if "wish" in ids:
        return "wish"
    if "willpower" in ids and c.get("check") == "curse" and c.get("loss_would_drop"):
        return "willpower"
    return "stop"


def j_fairy_offer(d: Decision) -> Any:
    c = d.context
    if c.get("target_is_curse_check") and (c.get("threshold") or 0) > c.get("ach", 0):
        return "offer"
    return "pass"


def j_fairy_consent(d: Decision) -> Any:
    ab = d.context["abilities"]
    best = max(ABILITY_ORDER, key=lambda a: (ab[a], -ABILITY_ORDER.index(a)))
    if ab[best] >= 3 and f"pay:{best}" in d.option_ids:
        return f"pay:{best}"
    return "refuse"


def j_post_mods(d: Decision) -> Any:
    c = d.context
    ids = d.option_ids
    if "spare_key" in ids:
        return "spare_key"
    if "kyoshi" in ids:
        thr = c.get("threshold") or 0
        act = c.get("active_ach", 0)
        mine = c.get("my_ach", 0)
        active_wins = act >= thr and act > mine
        after = act - 1
        if active_wins and not (after >= thr and after > mine):
            return "kyoshi"
    return "none"


def j_forget(d: Decision) -> Any:
    return "cancel" if d.context.get("in_confrontation") and d.context.get("user_is_opponent") else "pass"


def kiryoku_guard(d: Decision) -> Any:
    c = d.context
    if c["target_value"] - c["amount"] <= 0 and c["my_value"] >= 2:
        return "guard"
    return "pass"


def rp_change(d: Decision) -> Any:
    """Take the card only if it completes a role (§8 rp.change) whose actions can do something: in a confrontation
    the actions may only target the placer (or oneself), so that is worth it only when a curse placed the card."""
    c = d.context
    if c.get("in_confrontation") and c.get("placer_kind") != "curse":
        return "pass"
    for oid, roles in (c.get("completes") or {}).items():
        if roles:
            return oid
    return "pass"


def _const(option: str):  # type: ignore[no-untyped-def]
    return lambda d: option


def _default(fn: Any, label: str) -> StandingAnswer:
    return StandingAnswer(DEFAULT, label, fn)


STANDING: dict[str, tuple[StandingAnswer, ...]] = {
    "race.guardian": (_default(_const("none"), "定石どおり: 守護は使わない"),),
    "j.abandon": (_default(j_abandon, "定石どおり: いつも振る（判定を放棄しない）"),),
    "j.second_basis": (_default(j_second_basis, "定石どおり: 高いほうの能力値を使う"),),
    "j.claim_useful": (_default(j_claim_useful, "定石どおり: 関係の種類に合う昇華技能をすべて申告する"),
                       never("昇華技能を申告しない")),
    "j.pre_effects": (_default(j_pre_effects, "定石どおり: 呪いの判定（と対決中の関係判定）で足りないときだけ使う"),
                      always("none", "判定前の効果を使わない")),
    "j.forget": (_default(j_forget, "定石どおり: 対決で相手が使った効果だけ【忘却】で打ち消す"),
                 always("pass", "【忘却】を使わない")),
    "j.reroll": (_default(j_reroll, "定石どおり: 失敗しているときだけ振り直す（願い、呪いの判定で能力値が減るなら気力）"),
                 always("stop", "振り直さない")),
    "j.fairy_offer": (_default(j_fairy_offer, "定石どおり: 呪いの判定で達成値が足りないときに申し出る"),
                      always("pass", "【妖精の呪い】を申し出ない")),
    "j.fairy_consent": (_default(j_fairy_consent, "定石どおり: いちばん高い能力値が3以上ならそれで払って受ける"),
                        always("refuse", "【妖精の呪い】を受けない")),
    "j.post_mods": (_default(j_post_mods, "定石どおり: 合い鍵があれば使い、教師は勝敗が変わるときだけ使う"),
                    always("none", "判定後の修正を使わない")),
    "j.concede": (_default(_const("keep"), "定石どおり: 成功を譲らない"),),
    "j.grant": (_default(_const("none"), "定石どおり: 成功を与えない"),),
    "j.chukoku": (_default(_const("pass"), "定石どおり: 【忠告バスター】を使わない"),),
    "kiryoku.guard": (_default(kiryoku_guard, "定石どおり: 相手の能力値が0になり自分に2以上あるときだけ庇う"),
                      always("pass", "庇わない")),
    "rp.change": (_default(rp_change, "定石どおり: 役がそろうときだけ取る（対決中は呪いが捨てた札だけ）"),
                  always("pass", "チェンジしない")),
}

#: each window's name, as a player reads it (the standing answers menu of the terminal and the browser)
TITLES: dict[str, str] = {
    "race.guardian": "妖精の守護（エンディング）",
    "j.abandon": "判定の放棄",
    "j.second_basis": "関係判定の2つめの能力値",
    "j.claim_useful": "役立つ昇華技能の申告",
    "j.pre_effects": "判定前の効果",
    "j.forget": "【忘却】による打ち消し",
    "j.reroll": "振り直し",
    "j.fairy_offer": "【妖精の呪い】の申し出",
    "j.fairy_consent": "【妖精の呪い】を受けるか",
    "j.post_mods": "判定後の修正（教師・合い鍵）",
    "j.concede": "成功を譲るか",
    "j.grant": "低い相手に成功を与えるか",
    "j.chukoku": "【忠告バスター】",
    "kiryoku.guard": "気力で庇う",
    "rp.change": "チェンジ（捨て札を取る）",
}
