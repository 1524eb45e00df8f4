"""Scripted defaults for the check windows of 夜狩り人 (rules/yogaribito.md §8: D24–D28, D43–D46, D49, D54).

Each function reads only the decision's options, context and observation. The psychic focus check (D54: "no
resources") reuses the ck.* windows with ``context.kind == "psychic_focus"``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.core.decision import Decision
from engine.core.session import Session

__all__ = ["POLICY", "luck_choice"]

_DEFENSIVE_TRIGGERS = ("before_own_defense", "before_defense_in_engagement")
_DEFENSE_PREFERENCE = ("body", "tech", "mind")
_BULLET_PREFERENCE = ("life", "soul", "wealth")


def _ctx(d: Decision) -> dict[str, Any]:
    return dict(d.context or {})


def ck_auto_feats(d: Decision, s: Session) -> Any:
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


def ck_bought(d: Decision, s: Session) -> Any:
    """D26: 0; except wealth: spend 1 if wealth ≥ 1 and target ≥ 2. D54: no resources on the psychic focus check."""
    c = _ctx(d)
    if c.get("kind") != "psychic_focus" and c.get("source") == "wealth" and c.get("target", 1) >= 2 \
            and "1" in d.option_ids:
        return "1"
    return "none"


def ck_kagaribi(d: Decision, s: Session) -> Any:
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


def _press_the_attack(c: dict[str, Any], faces: list[int], eff: int, options: list[str]) -> str:
    """[HOUSE play, beyond D28] In the climax an attacker whose hit check succeeded spends 【運】 to raise it by one
    (a die that is not 5/6 set to 5: a 1 first, else the lowest face): the final fight must end, and 【運】 left over
    at the end of the scenario is wasted. With ``luck_window = after_both`` the defenses are known (``defenses``):
    only when the +1 turns a tie with one of them into a hit."""
    defenses = c.get("defenses")
    if defenses is not None:
        ties = [int(v) for v in defenses.values() if int(v) == eff]
        return luck_choice(faces, eff + 1, eff, options) if ties else "none"
    return luck_choice(faces, eff + 1, eff, options)


def ck_luck(d: Decision, s: Session) -> Any:
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


def ck_defense_ability(d: Decision, s: Session) -> Any:
    """D24: the ability giving the larger pool after the §5.3 modifiers; then body > tech > mind."""
    pools = _ctx(d).get("pools") or {}
    return max(d.option_ids, key=lambda a: (pools.get(a, 0), -_DEFENSE_PREFERENCE.index(a)
                                            if a in _DEFENSE_PREFERENCE else -9))


def ck_zero(d: Decision, s: Session) -> Any:
    """D44: PCs awaken; NPCs awaken iff designated (the option exists only for eligible characters)."""
    return "awaken" if "awaken" in d.option_ids else d.option_ids[0]


def ck_bullets(d: Decision, s: Session) -> Any:
    """D46: pay with bullets first (as many points as possible; life, then soul, then wealth)."""
    allocs: dict[str, dict[str, int]] = _ctx(d).get("allocations") or {}

    def key(oid: str) -> tuple[int, ...]:
        a = allocs.get(oid) or {}
        return (sum(a.values()),) + tuple(a.get(st, 0) for st in _BULLET_PREFERENCE)

    return max(d.option_ids, key=key)


def ck_release_status(d: Decision, s: Session) -> Any:
    """D45: keep."""
    return "keep"


def ck_doom_ack(d: Decision, s: Session) -> Any:
    """D49: cancel."""
    return "cancel"


def ck_crit_fiat(d: Decision, s: Session) -> Any:
    """D43: the scripted GM adds nothing."""
    return "none"


POLICY: dict[str, Callable[[Decision, Session], Any]] = {
    "ck.auto_feats": ck_auto_feats,
    "ck.bought": ck_bought,
    "ck.kagaribi": ck_kagaribi,
    "ck.luck": ck_luck,
    "ck.defense_ability": ck_defense_ability,
    "ck.zero": ck_zero,
    "ck.bullets": ck_bullets,
    "ck.release_status": ck_release_status,
    "ck.doom_ack": ck_doom_ack,
    "ck.crit_fiat": ck_crit_fiat,
}
