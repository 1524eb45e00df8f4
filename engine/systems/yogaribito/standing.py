"""夜狩り人's standing answers (``engine.core.standing``): the vocabulary of each reaction window of §8, and its
``default``, the spec's scripted default for that window (D24–D28, D30, D38, D40, D41, D46, D60; the scripted
policy answers these windows with it). The psychic focus check (D54: "no resources") reuses the ck.* windows with
``context.kind == "psychic_focus"``.

Each resolver reads only the decision's options and context, which its actor may see.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.core.decision import Decision
from engine.core.standing import DEFAULT, StandingAnswer, always, never
from ...core.standing import first_of as _first

__all__ = ["STANDING", "TITLES", "luck_choice"]

_DEFENSIVE_TRIGGERS = ("before_own_defense", "before_defense_in_engagement")
_DEFENSE_PREFERENCE = ("body", "tech", "mind")
_BULLET_PREFERENCE = ("life", "soul", "wealth")


def _ctx(d: Decision) -> Mapping[str, Any]:
    return d.context or {}


def ck_auto_feats(d: Decision) -> Any:
    """D25: defensive auto feats only when the defense pool (before them) ≤ 2; information boosts on information
    checks; otherwise none. Another character's feat (《精霊の守り》) helps allies only."""
    c = _ctx(d)
    kind = c.get("kind")
    feats = c.get("feats") or {}
    out: list[str] = []
    if not c.get("own", True) and not c.get("ally", False):
        return out  # never help the other side
    for fid in d.option_ids:
        info = feats.get(fid) or {}
        if kind == "defense" and info.get("trigger") in _DEFENSIVE_TRIGGERS and c.get("pool_before", 99) <= 2:
            out.append(fid)
        elif kind == "information" and info.get("bonus_dice", 0) > 0:
            out.append(fid)
    return out


def ck_bought(d: Decision) -> Any:
    """D26: 0; except wealth: spend 1 if wealth ≥ 1 and target ≥ 2. D54: no resources on the psychic focus check."""
    c = _ctx(d)
    if c.get("kind") != "psychic_focus" and c.get("source") == "wealth" and c.get("target", 1) >= 2 \
            and "1" in d.option_ids:
        return "1"
    return "none"


def ck_kagaribi(d: Decision) -> Any:
    """D27: yes for hit and defense checks in the climax phase while 燎 ≥ 1; otherwise no."""
    c = _ctx(d)
    if c.get("kind") in ("hit", "defense") and c.get("phase") == "climax" and "use" in d.option_ids:
        return "use"
    return "none"


def luck_choice(faces: list[int], goal: int, eff: int, options: list[str]) -> str:
    """Set one die that is not 5/6 to 5 if that brings the effective achievement to ``goal``: a 1 first, else
    the lowest face. Otherwise none. (Never reroll.)"""
    if eff >= goal or eff + 1 < goal:
        return "none"
    cands = [(f, i) for i, f in enumerate(faces) if f < 5 and f"set5:{i}" in options]
    if not cands:
        return "none"
    ones = [i for f, i in cands if f == 1]
    i = ones[0] if ones else min(cands)[1]
    return f"set5:{i}"


def _press_the_attack(c: Mapping[str, Any], faces: list[int], eff: int, options: list[str]) -> str:
    """[HOUSE play, beyond D28] In the climax an attacker whose hit check succeeded spends 【運】 to raise it by one
    (a die that is not 5/6 set to 5: a 1 first, else the lowest face): the final fight must end, and 【運】 left over
    at the end of the scenario is wasted. With ``luck_window = after_both`` the defenses are known (``defenses``):
    only when the +1 turns a tie with one of them into a hit."""
    defenses = c.get("defenses")
    if defenses is not None:
        ties = [int(v) for v in defenses.values() if int(v) == eff]
        return luck_choice(faces, eff + 1, eff, options) if ties else "none"
    return luck_choice(faces, eff + 1, eff, options)


def ck_luck(d: Decision) -> Any:
    """D28: non-opposed or active side: if the check failed and one die set to 5 makes it succeed, do it.
    Passive side: against m = the active side's ach (+1 if critical), if own effective achievement < m and one die
    set to 5 reaches m, do it. A 1 first, else the lowest face. Never reroll. [HOUSE play] a successful hit check
    in the climax: ``_press_the_attack``."""
    c = _ctx(d)
    if c.get("kind") == "psychic_focus":
        return "none"
    faces = list(c.get("faces") or [])
    ach = int(c.get("ach", 0))
    crit = bool(c.get("crit"))
    if c.get("side") == "passive" and c.get("m") is not None:
        return luck_choice(faces, int(c["m"]), ach + (1 if crit else 0), d.option_ids)
    if c.get("success") and c.get("kind") == "hit" and c.get("phase") == "climax":
        return _press_the_attack(c, faces, ach + (1 if crit else 0), d.option_ids)
    if c.get("success"):
        return "none"
    return luck_choice(faces, int(c.get("target", 1)), ach, d.option_ids)


def ck_defense_ability(d: Decision) -> Any:
    """D24: the ability giving the larger pool after the §5.3 modifiers; then body > tech > mind."""
    pools = _ctx(d).get("pools") or {}
    return max(d.option_ids, key=lambda a: (pools.get(a, 0), -_DEFENSE_PREFERENCE.index(a)
                                            if a in _DEFENSE_PREFERENCE else -9))


def ck_bullets(d: Decision) -> Any:
    """D46: pay with bullets first (as many points as possible; life, then soul, then wealth)."""
    allocs: Mapping[str, Mapping[str, int]] = _ctx(d).get("allocations") or {}

    def key(oid: str) -> tuple[int, ...]:
        a = allocs.get(oid) or {}
        return (sum(a.values()),) + tuple(a.get(st, 0) for st in _BULLET_PREFERENCE)

    return max(d.option_ids, key=key)


def delay(d: Decision) -> Any:
    """D30: never delay."""
    return _first(d, "none")


def blockade_consent(d: Decision) -> Any:
    """D38: consent to one's own side's move, contest the other side's."""
    c = d.context
    return "consent" if c.get("mover_side") == c.get("side") else "contest"


def crit_bonus(d: Decision) -> Any:
    """D40: +1 achievement when the attack does no damage or when +1 breaks a tie with the defense; else +1D6."""
    c = d.context
    if c.get("no_damage") or (c.get("d_eff") is not None and c.get("d_eff") == c.get("hit_ach")):
        return "ach"
    return "dmg"


def crit_table(d: Decision) -> Any:
    """D41: roll the 痛打表."""
    return _first(d, "roll")


def other_auto(d: Decision) -> Any:
    """D60: 《守護霊》 when the damage to oneself is 2 or more; 《捨て身の勇気》 whenever it is offered."""
    c = d.context
    if c.get("trigger") == "after_damage_to_self_determined":
        if "feat:guardian_spirit" in d.option_ids and int(c.get("damage", 0)) >= 2:
            return "feat:guardian_spirit"
        return "none"
    if "feat:desperate_courage" in d.option_ids:
        return "feat:desperate_courage"
    return "none"


def _default(fn: Any, label: str) -> StandingAnswer:
    return StandingAnswer(DEFAULT, label, fn, fn.__doc__ or "")


STANDING: dict[str, tuple[StandingAnswer, ...]] = {
    "ck.defense_ability": (_default(ck_defense_ability, "定石どおり: 修正後のダイスが多い能力値で（同じなら 体・技・心 の順）"),),
    "ck.auto_feats": (_default(ck_auto_feats, "定石どおり: 防御のダイスが2個以下なら防御の特技、情報判定ならダイスが増える特技を使う"),
                      never("判定前の自動特技を使わない")),
    "ck.bought": (_default(ck_bought, "定石どおり: 目標値2以上で【財】があるときだけダイスを1個買う"),
                  always("none", "ダイスを買わない")),
    "ck.kagaribi": (_default(ck_kagaribi, "定石どおり: クライマックスの命中判定と防御判定で【燎】を使う"),
                    always("none", "【燎】を使わない")),
    "ck.luck": (_default(ck_luck, "定石どおり: ダイス1個を5にすれば届くときだけ【運】を使う"),
                always("none", "【運】を使わない")),
    "ck.bullets": (_default(ck_bullets, "定石どおり: 【弾】を使えるだけ使って払う（命・魂・財の順）"),),
    "cb.delay": (_default(delay, "定石どおり: 待機しない"),),
    "cb.other_auto": (_default(other_auto, "定石どおり: 《守護霊》はダメージ2以上のとき、《捨て身の勇気》は使えるときに使う"),
                      always("none", "判定外の自動特技を使わない")),
    "cb.blockade_consent": (_default(blockade_consent, "定石どおり: 味方の移動は認め、敵の移動は争う"),),
    "cb.crit_bonus": (_default(crit_bonus, "定石どおり: ダメージが出ないか同値を破れるなら達成値+1、ほかは+1D6"),
                      always("ach", "いつも達成値+1"), always("dmg", "いつもダメージ+1D6")),
    "cb.crit_table": (_default(crit_table, "定石どおり: 痛打表を振る"),),
}

#: each window's name, as a player reads it (the standing answers menu of the terminal and the browser)
TITLES: dict[str, str] = {
    "ck.defense_ability": "同値のときの防御の能力値",
    "ck.auto_feats": "判定前の自動特技",
    "ck.bought": "ダイスの購入",
    "ck.kagaribi": "【燎】の使用",
    "ck.luck": "【運】の使用",
    "ck.bullets": "【弾】での支払い",
    "cb.delay": "待機",
    "cb.other_auto": "判定外の自動特技",
    "cb.blockade_consent": "封鎖の承諾",
    "cb.crit_bonus": "クリティカルの上乗せ",
    "cb.crit_table": "痛打表",
}
