"""Scripted defaults for creation and afterplay of 夜狩り人 (rules/yogaribito.md §8: D01–D16, D50–D53).

Each function reads only the decision (options, context): the engine puts in the context what the default needs
(the suggested class, the values, the feat lists in table order, the class kit, the costs of each purchase).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.core.decision import Decision
from engine.core.session import Session
from engine.core.standing import first_of as _first

__all__ = ["POLICY"]

#: D02: after the primary ability, in this order (the primary skipped), luck last
_ASSIGN_ORDER = ("life", "soul", "body", "tech", "mind", "luck")
_PRIMARY = {"black_magic": "mind", "white_magic": "mind", "shamanic": "mind", "psychic": "mind",
            "night_walker": "mind", "celestial": "mind", "arachne": "mind", "adept": "body", "summoner": "body",
            "common": "body", "witch_hunter": "tech"}


def _ctx(d: Decision) -> dict[str, Any]:
    return dict(d.context or {})


def cc_mode(d: Decision, s: Session) -> Any:
    """D01: the scenario-provided sample if any (and still free), else create."""
    sample = _ctx(d).get("suggested_sample")
    return _first(d, f"quickplay:{sample}", "create") if sample else _first(d, "create")


def cc_assign(d: Decision, s: Session) -> Any:
    """D02: values sorted descending onto the intended class's primary ability, then life, soul, body, tech, mind,
    luck last."""
    c = _ctx(d)
    primary = c.get("primary") or _PRIMARY.get(c.get("suggested_class", "adept"), "body")
    order = [primary] + [a for a in _ASSIGN_ORDER if a != primary]
    return dict(zip(order, sorted(c["values"], reverse=True), strict=True))


def cc_fallback(d: Decision, s: Session) -> Any:
    return _first(d, "use_1_to_6")


def cc_hero_bonus(d: Decision, s: Session) -> Any:
    return {"life": 6, "soul": 3, "luck": 1}


def cc_main_class(d: Decision, s: Session) -> Any:
    """D05: the scenario-suggested class, else adept (else the first legal class, else reassign)."""
    return _first(d, _ctx(d).get("suggested") or "adept", "adept")


def gm_approve_common(d: Decision, s: Session) -> Any:
    """D06: no, unless the scenario allows コモン."""
    return "approve" if _ctx(d).get("allowed") else "refuse"


def cc_sub_class(d: Decision, s: Session) -> Any:
    """D07: the same as the main class (D53: the dead PC's sub class, passed as the suggestion)."""
    c = _ctx(d)
    return _first(d, c.get("suggested") or c.get("main") or "adept", c.get("main") or "adept")


def cc_patron(d: Decision, s: Session) -> Any:
    """D08: nature — favored nature/outdoors, disfavored indoors/urban."""
    return _ctx(d).get("default") or {"name": "nature", "favored_tags": ["nature", "outdoors"],
                                      "disfavored_tags": ["indoors", "urban"]}


def cc_feats(d: Decision, s: Session) -> Any:
    """D09: the first legal feats of the main list in table order (then SN common), the sub list's first feat."""
    return _ctx(d)["default"]


def cc_equipment(d: Decision, s: Session) -> Any:
    """D10: the class kit trimmed from the end until Σ stock ≤ stock points."""
    c = _ctx(d)
    kit = [dict(k) for k in c.get("kit") or []]
    sp = int(c.get("stock_points", 0))
    while kit and sum(int(k.get("stock") or 0) for k in kit) > sp:
        kit.pop()
    return {"items": [{"item": k["item"], "slot": k.get("slot")} for k in kit]}


def cc_free_or_roll(d: Decision, s: Session) -> Any:
    """D12–D14: roll (a free-text payload only follows an explicit 任意 choice)."""
    if d.payload_model is not None:
        return {"text": "（自由記述）"}
    return _first(d, "roll")


def cc_encounter_npc(d: Decision, s: Session) -> Any:
    """D15: the first-listed NPC."""
    if d.payload_model is not None:
        return {"text": "（自由記述）"}
    return d.option_ids[0]


def cc_personal(d: Decision, s: Session) -> Any:
    """D16: the sample's or a placeholder name; no 相当品."""
    return {"name": _ctx(d).get("default_name") or "PC"}


def cc_loadout(d: Decision, s: Session) -> Any:
    """D11: every slot item equipped as assigned."""
    return _first(d, "keep")


def ap_xp_award(d: Decision, s: Session) -> Any:
    """D50: 1, 1, 1, 1 and the objective XP (5 or the scenario's) if the objective was achieved."""
    c = _ctx(d)
    return {"active": 1, "helped_pc": 1, "helped_session": 1, "scheduling": 1,
            "objective": int(c.get("objective_xp", 5)) if c.get("objective_achieved") else 0}


def ap_spend(d: Decision, s: Session) -> Any:
    """D51: raise the primary ability while affordable, bank the rest. In a rebuild (exact budget) the primary first,
    then the cheapest purchase until nothing is left."""
    c = _ctx(d)
    raise_primary = f"raise:{c.get('primary', 'body')}"
    if raise_primary in d.option_ids:
        return raise_primary
    if "done" in d.option_ids:
        return "done"
    costs: dict[str, int] = c.get("costs") or {}
    paid = [o for o in d.option_ids if costs.get(o, 0) > 0]
    return min(paid, key=lambda o: (costs[o], paid.index(o))) if paid else d.option_ids[0]


def ap_rebuild(d: Decision, s: Session) -> Any:
    """D52: no."""
    return _first(d, "keep")


def ap_replacement(d: Decision, s: Session) -> Any:
    """D53: a new PC of the same main/sub classes (the classes are passed to D05/D07 as suggestions)."""
    return _first(d, "create")


def gm_approve_equivalent(d: Decision, s: Session) -> Any:
    """相当品 (D16): re-skins change no data; the scripted GM approves them."""
    return _first(d, "approve")


POLICY: dict[str, Callable[[Decision, Session], Any]] = {
    "cc.mode": cc_mode,
    "cc.fallback": cc_fallback,
    "cc.assign": cc_assign,
    "cc.hero_bonus": cc_hero_bonus,
    "cc.main_class": cc_main_class,
    "gm.approve_common": gm_approve_common,
    "cc.sub_class": cc_sub_class,
    "cc.patron": cc_patron,
    "cc.feats": cc_feats,
    "cc.equipment": cc_equipment,
    "cc.loadout": cc_loadout,
    "cc.origin": cc_free_or_roll,
    "cc.purpose": cc_free_or_roll,
    "cc.encounter": cc_free_or_roll,
    "cc.encounter_npc": cc_encounter_npc,
    "cc.personal": cc_personal,
    "gm.approve_equivalent": gm_approve_equivalent,
    "ap.xp_award": ap_xp_award,
    "ap.spend": ap_spend,
    "ap.rebuild": ap_rebuild,
    "ap.replacement": ap_replacement,
}
