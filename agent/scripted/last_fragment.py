"""Scripted policy for ラストフラグメント (rules/last_fragment.md §8 scripted defaults): ``POLICY``.

Each function reads only the decision (its options and context) and the seat's observation — never the session.
The engine offers only legal options; these functions choose among them, falling back to a safe option when their
preference is not offered."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from engine.core.decision import Decision
from engine.core.seat import SeatView
from agent.scripted import standing_defaults
from engine.systems.last_fragment.standing import STANDING as _STANDING
from engine.core.standing import first_of as _first

__all__ = ["POLICY"]

Policy = Callable[[Decision, SeatView], Any]
SKILL_ORDER = ("teate", "kyougeki", "sosei", "enmusubi", "chinsei", "reiha")
ATTACKS = ("reiha", "kyougeki", "tsuujou_kougeki")


def _ctx(d: Decision) -> Mapping[str, Any]:
    return d.context or {}


def _obs(v: SeatView) -> Mapping[str, Any]:
    return v.observation or {}


def _me(v: SeatView) -> Mapping[str, Any]:
    return _obs(v).get("me") or {}


def _chars(v: SeatView) -> Mapping[str, Any]:
    return _obs(v).get("characters") or {}


# -- creation ------------------------------------------------------------------------------------------------
def profile(d: Decision, v: SeatView) -> Any:
    """cc_profile: "PC{seat}"."""
    return {"payload": dict(_ctx(d).get("suggested") or {"name": "PC"})}


def ap_allocation(d: Decision, v: SeatView) -> Any:
    """cc_ap_allocation: the §8 default (推理, 観察, 運動, 話術 4; 精神 3; 数学, 医学, 心理 2; 直感, 隠密, 科学, 歴史, オカルト 1)."""
    return {"payload": {"abilities": dict(_ctx(d).get("default") or {})}}


def skill_choice(d: Decision, v: SeatView) -> Any:
    """cc_skill_choice / growth: first available of [手当, 強撃, 蘇生, 縁結び, 鎮静, 霊波]."""
    slots = int(_ctx(d).get("slots", d.pick[1] if d.pick else 0))
    hi = d.pick[1] if d.pick else slots
    picks = [s for s in SKILL_ORDER if s in d.option_ids][:min(slots, hi)]
    return {"choices": picks}


def item_names(d: Decision, v: SeatView) -> Any:
    return {"payload": {"names": list(_ctx(d).get("default") or [])}}


# -- GM --------------------------------------------------------------------------------------------------------
def gm_first(d: Decision, v: SeatView) -> Any:
    """gm_next_scene (first candidate in scenario order), gm_stuck_resolution (first locked scene, else end)."""
    return d.option_ids[0]


def gm_fire(d: Decision, v: SeatView) -> Any:
    return _first(d, "fire")


def gm_none(d: Decision, v: SeatView) -> Any:
    return _first(d, "none", "keep", "approve")


def gm_keep(d: Decision, v: SeatView) -> Any:
    """gm_handout_assignment: the scenario's PC (keep)."""
    return _first(d, "keep")


def shock_targets(d: Decision, v: SeatView) -> Any:
    """gm_shock_targets: the scenario's targets; if none of them appears, every appearing PC (§8 default)."""
    c = _ctx(d)
    want = [o for o in d.option_ids if o in set(c.get("scenario_targets") or [])]
    if not want:
        want = [o for o in d.option_ids if (_chars(v).get(o) or {}).get("kind") == "pc"]
    return {"choices": want or d.option_ids[:1]}


def scene_appearance(d: Decision, v: SeatView) -> Any:
    """all_pcs_in_every_scene = false: every PC appears (the HOUSE default)."""
    return {"choices": list(d.option_ids)}


def combat_participants(d: Decision, v: SeatView) -> Any:
    """combat_participants: the scenario's npc_combatants."""
    want = set(_ctx(d).get("npc_combatants") or [])
    return {"choices": [o for o in d.option_ids if o in want]}


# -- main phase ----------------------------------------------------------------------------------------------
def discovery(d: Decision, v: SeatView) -> Any:
    return _first(d, "attempt")


def take_loose(d: Decision, v: SeatView) -> Any:
    """pc_take_loose_item: the discoverer takes it; if full, the next PC."""
    c = _ctx(d)
    if int(c.get("held", 0)) < int(c.get("max", 5)):
        return _first(d, "take")
    return _first(d, "skip")


def main_action(d: Decision, v: SeatView) -> Any:
    """pc_main_action: investigate the legal target with the highest effective dice (ties: scenario order); else a
    personal scene if unused and another PC is present; else 手当 on an ally with HP ≤ 5; else pass."""
    c = _ctx(d)
    dice: Mapping[str, int] = c.get("dice") or {}
    order = list(c.get("order") or [])
    best = None
    for t in order:
        if best is None or dice.get(t, 0) > dice.get(best, 0):
            best = t
    if best is not None and f"investigate:{best}" in d.option_ids:
        return f"investigate:{best}"
    pcs = set(c.get("pcs") or [])
    if "personal_scene" in d.option_ids and len(pcs) > 1:
        return "personal_scene"
    hp: Mapping[str, int] = c.get("hp") or {}
    for o in d.option_ids:
        if o.startswith("skill:teate:") and o.split(":")[2] in pcs and hp.get(o.split(":")[2], 99) <= 5:
            return o
    return _first(d, "pass")


def free_action(d: Decision, v: SeatView) -> Any:
    """pc_free_action: ① as soon as legal; share every non-secret fragment with all PCs lacking it; a cooperative
    secret comes out; ③ when Lv ≥ 4 (or Lv ≥ 1 in the climax aftermath); darts per dart_use; else none."""
    c = _ctx(d)
    ids = d.option_ids
    if "bp:bp_revive" in ids:
        return "bp:bp_revive"
    secret = set(c.get("secret_fragments") or [])
    for o in ids:  # share:<fragment>:pcs (most ids end otherwise: that test first)
        if o.endswith(":pcs") and o.startswith("share:") and o[6:-4] not in secret:
            return o
    for f in c.get("cooperative") or []:
        if f"come_out:{f}" in ids:
            return f"come_out:{f}"
    lv = int(c.get("abnormality_level", 0))
    window = str(c.get("window", ""))
    if "bp:bp_cleanse" in ids and (lv >= 4 or (window == "aftermath" and lv >= 1)):
        return "bp:bp_cleanse"
    if "dart" in ids and _dart(d, window, dict(c.get("darts") or {})):
        return "dart"
    timed = _timing_skill(d)
    if timed is not None:
        return timed
    return "none"


def _timing_skill(d: Decision) -> str | None:
    """A round_start / round_end skill in the combat's free-action window (a scenario's HOUSE timing): the
    combat_action preferences — a revive on an incapacitated ally, a heal on an ally with HP ≤ 5, an attack on the
    lowest-HP foe (ties: seat order); bond and cleanse skills are left unused."""
    c = _ctx(d)
    picks = [o.split(":") for o in d.option_ids if o.startswith("skill:")]
    if not picks:
        return None
    kinds: Mapping[str, str] = c.get("skill_kinds") or {}
    side: Mapping[str, str] = c.get("side") or {}
    hp: Mapping[str, int] = c.get("hp") or {}
    max_hp: Mapping[str, int] = c.get("max_hp") or {}
    inc = set(c.get("incapacitated") or [])
    wd = set(c.get("withdrawn") or [])
    mine = side.get(d.actor, "pc")

    def ally(t: str) -> bool:
        return (side.get(t) == "pc") == (mine == "pc")

    for _, sid, t in picks:
        if kinds.get(sid) == "revive" and ally(t) and t in inc:
            return f"skill:{sid}:{t}"
    for _, sid, t in picks:
        if kinds.get(sid) == "heal" and ally(t) and t not in inc and hp.get(t, 99) <= 5 and hp.get(t, 99) < max_hp.get(t, 0):
            return f"skill:{sid}:{t}"
    foes = sorted({t for _, _, t in picks if not ally(t) and t not in inc and t not in wd},
                  key=lambda t: (hp.get(t, 99), list(side).index(t) if t in side else 0))
    for _, sid, t in picks:
        if foes and t == foes[0] and kinds.get(sid) == "attack":
            return f"skill:{sid}:{t}"
    return None


def dart_use(d: Decision, v: SeatView) -> Any:
    """dart_use: the dart the free action chose (see _dart; the context gives each dart's effect)."""
    window = str(_ctx(d).get("window", ""))
    kinds = dict(_ctx(d).get("darts") or {})
    return _dart(d, window, {o: kinds.get(o, d.label_of(o)) for o in d.option_ids if o != "none"}) or "none"


def _dart(d: Decision, window: str, options: Mapping[str, str]) -> str | None:
    """dart_use: at FAW start damage darts on the lowest-HP non-incapacitated enemy, SP and dice darts on self; at
    FAW end heal darts on an ally with HP ≤ 5."""
    c = _ctx(d)
    side: Mapping[str, str] = c.get("side") or {}
    hp: Mapping[str, int] = c.get("hp") or {}
    inc = set(c.get("incapacitated") or [])
    me = d.actor
    mine = side.get(me, "pc")
    darts = list(options)
    if not darts:
        return None
    enemy_of = (lambda x: side.get(x) in ("enemy",)) if mine == "pc" else (lambda x: side.get(x) == "pc")
    if window == "combat_start":
        foes = sorted((t for t in {o.split(":")[2] for o in darts} if enemy_of(t) and t not in inc),
                      key=lambda t: (hp.get(t, 99), list(side).index(t) if t in side else 0))
        for o in darts:
            if "dmg(" in options[o] and foes and o.endswith(f":{foes[0]}"):
                return o
        for o in darts:
            lab = options[o]
            if ("sp(" in lab or "dice(" in lab) and o.endswith(f":{me}"):
                return o
    if window == "combat_end":
        for o in darts:
            t = o.split(":")[2]
            if "heal(" in options[o] and side.get(t) == mine and hp.get(t, 99) <= 5:
                return o
    return None


def climax_declaration(d: Decision, v: SeatView) -> Any:
    return _first(d, "yes")


# -- checks ----------------------------------------------------------------------------------------------------


def item_lend(d: Decision, v: SeatView) -> Any:
    """check_item_request for another's check (item_use_on_others): lend unless the owner is hostile."""
    return "refuse" if _ctx(d).get("hostile") else _first(d, "accept")


def approve(d: Decision, v: SeatView) -> Any:
    return _first(d, "approve")






def fumble_item(d: Decision, v: SeatView) -> Any:
    """fumble_item_choice: the last item in inventory order."""
    return d.option_ids[-1]


def designate(d: Decision, v: SeatView) -> Any:
    """sf_designate_ability: the ability minimising the investigator's effective dice (ties: list order)."""
    levels: Mapping[str, int] = _ctx(d).get("levels") or {}
    best = d.option_ids[0]
    for o in d.option_ids[1:]:
        if levels.get(o, 0) < levels.get(best, 0):
            best = o
    return best


def come_out(d: Decision, v: SeatView) -> Any:
    """sf_come_out: a cooperative secret to all PCs."""
    pcs = set(_ctx(d).get("pcs") or [])
    picks = [o for o in d.option_ids if o in pcs] or d.option_ids[:1]
    return {"choices": picks}


# -- personal scenes, bonds ------------------------------------------------------------------------------------
def appearance_request(d: Decision, v: SeatView) -> Any:
    """ps_appearance_request: the first PC (seat order) with no bond from the owner; else the first other PC."""
    c = _ctx(d)
    pcs = [p for p in c.get("pcs") or [] if p in d.option_ids]
    bonded = set(c.get("bonded_to") or [])
    fresh = [p for p in pcs if p not in bonded]
    pick = (fresh or pcs or d.option_ids)[:1]
    return {"choices": pick}


def scene_type(d: Decision, v: SeatView) -> Any:
    """owner_choice (AMB-11): the type of the scene it is opened in, as the HOUSE default ``inherit`` would."""
    return _first(d, str(_ctx(d).get("outer", "")))


def accept(d: Decision, v: SeatView) -> Any:
    return _first(d, "accept")


def bond_target(d: Decision, v: SeatView) -> Any:
    acc = list(_ctx(d).get("accepted") or [])
    return _first(d, *acc, "none")


def bond_designate(d: Decision, v: SeatView) -> Any:
    """bond_check_designate_ability: cooperative — the owner's highest legal ability (ties: list order); hostile NPC —
    the lowest."""
    c = _ctx(d)
    levels: Mapping[str, int] = c.get("levels") or {}
    if c.get("hostile"):
        return designate(d, v)
    best = d.option_ids[0]
    for o in d.option_ids[1:]:
        if levels.get(o, 0) > levels.get(best, 0):
            best = o
    return best


def bond_type(d: Decision, v: SeatView) -> Any:
    """bond_type_choice: roll; sign +."""
    if "roll" in d.option_ids:
        return "roll"
    return d.option_ids[0]


def keep(d: Decision, v: SeatView) -> Any:
    return _first(d, "keep", "none", "done", "pass")


# -- combat ----------------------------------------------------------------------------------------------------
def sp_choice(d: Decision, v: SeatView) -> Any:
    return _first(d, "10")


def _skill_picks(d: Decision) -> list[tuple[str, str, str]]:
    return [tuple(o.split(":")) for o in d.option_ids if o.startswith("skill")]  # type: ignore[misc]


def combat_action(d: Decision, v: SeatView) -> Any:
    """combat_action, one skill at a time: PC — 蘇生 on an incapacitated ally, 手当 on an ally with HP ≤ 5, then the
    attacks 霊波, 強撃, 通常攻撃 on the lowest-HP enemy (② with the first attack if legal); enemy — the attacks on the
    lowest-HP PC (ties: seat order)."""
    c = _ctx(d)
    side: Mapping[str, str] = c.get("side") or {}
    hp: Mapping[str, int] = c.get("hp") or {}
    inc = set(c.get("incapacitated") or [])
    wd = set(c.get("withdrawn") or [])
    seat = list(c.get("seat") or [])
    me = d.actor
    mine = side.get(me, "pc")
    picks = _skill_picks(d)
    declared = list(c.get("declared") or [])
    if mine == "pc":
        for k, sid, t in picks:
            if k == "skill" and sid == "sosei" and side.get(t) == "pc" and t in inc:
                return f"{k}:{sid}:{t}"
        if not any(x.split(":")[1] in ATTACKS for x in declared):
            for k, sid, t in picks:
                if k == "skill" and sid == "teate" and side.get(t) == "pc" and hp.get(t, 99) <= 5:
                    return f"{k}:{sid}:{t}"
        foes = [t for t in seat if side.get(t) in ("enemy",) and t not in inc and t not in wd]
    else:
        foes = [t for t in seat if side.get(t) == "pc" and t not in inc and t not in wd]
    if not foes:
        return "done"
    target = min(foes, key=lambda t: (hp.get(t, 99), seat.index(t)))
    for sid in ATTACKS:
        if mine == "pc" and f"skill2:{sid}:{target}" in d.option_ids:
            return f"skill2:{sid}:{target}"
        if f"skill:{sid}:{target}" in d.option_ids:
            return f"skill:{sid}:{target}"
    return "done"


def withdrawal(d: Decision, v: SeatView) -> Any:
    """withdrawal_declaration: a PC says yes iff every enemy is incapacitated or withdrawn and it is not the
    finisher (the non-incapacitated PC with the highest HP; ties: seat order). Enemies and NPCs: no."""
    c = _ctx(d)
    side: Mapping[str, str] = c.get("side") or {}
    hp: Mapping[str, int] = c.get("hp") or {}
    inc = set(c.get("incapacitated") or [])
    wd = set(c.get("withdrawn") or [])
    seat = list(c.get("seat") or [])
    if side.get(d.actor) != "pc":
        return "pass"
    if any(side.get(t) == "enemy" and t not in inc and t not in wd for t in seat):
        return "pass"
    pcs = [t for t in seat if side.get(t) == "pc" and t not in inc and t not in wd]
    if not pcs:
        return "pass"
    finisher = max(pcs, key=lambda t: (hp.get(t, 0), -seat.index(t)))
    return "pass" if finisher == d.actor else "withdraw"


def aftermath(d: Decision, v: SeatView) -> Any:
    """aftermath_action: 蘇生 on an incapacitated ally (PC), else 手当 on an ally with HP ≤ 5, else pass."""
    c = _ctx(d)
    side: Mapping[str, str] = c.get("side") or {}
    hp: Mapping[str, int] = c.get("hp") or {}
    inc = set(c.get("incapacitated") or [])
    if side.get(d.actor) != "pc":
        return "pass"
    for k, sid, t in _skill_picks(d):
        if k == "skill" and sid == "sosei" and side.get(t) == "pc" and t in inc:
            return f"{k}:{sid}:{t}"
    for k, sid, t in _skill_picks(d):
        if k == "skill" and sid == "teate" and side.get(t) == "pc" and hp.get(t, 99) <= 5:
            return f"{k}:{sid}:{t}"
    return "pass"


def winner_loot(d: Decision, v: SeatView) -> Any:
    """winner_loot: a PC winner takes the first enemy loser's first item, else its first fragment, never from PCs;
    an enemy winner the first item of the first PC loser."""
    c = _ctx(d)
    side: Mapping[str, str] = c.get("side") or {}
    losers = list(c.get("losers") or [])
    if side.get(d.actor) == "pc":
        for lo in losers:
            if side.get(lo) == "pc":
                continue
            for o in d.option_ids:
                if o.startswith(f"item:{lo}:"):
                    return o
            for o in d.option_ids:
                if o.startswith(f"frag:{lo}:"):
                    return o
        return "none"
    for lo in losers:
        if side.get(lo) == "pc":
            for o in d.option_ids:
                if o.startswith(f"item:{lo}:"):
                    return o
    return "none"


# -- inventory, continuation -----------------------------------------------------------------------------------
def overflow(d: Decision, v: SeatView) -> Any:
    """inventory_overflow: discard the newest item."""
    discards = [o for o in d.option_ids if o.startswith("discard:")]
    return discards[-1] if discards else d.option_ids[0]


def continue_pc(d: Decision, v: SeatView) -> Any:
    return _first(d, "continue", "none")


def growth_ap(d: Decision, v: SeatView) -> Any:
    """growth_ap_spend: +1 to the lowest of 推理, 観察, 運動 below the cap; else keep."""
    levels: Mapping[str, int] = _ctx(d).get("levels") or {}
    cands = [a for a in ("suiri", "kansatsu", "undou") if a in d.option_ids]
    if not cands:
        return "keep"
    return min(cands, key=lambda a: (levels.get(a, 0), ("suiri", "kansatsu", "undou").index(a)))


def growth_skill(d: Decision, v: SeatView) -> Any:
    return _first(d, *SKILL_ORDER, "none")


def bonus_item_name(d: Decision, v: SeatView) -> Any:
    """gm_bonus_items, a new item (asked only after the GM chose to name one): the decision's sample name."""
    return {"payload": dict((d.samples or [{"name": "記念品"}])[0])}


def none_many(d: Decision, v: SeatView) -> Any:
    return {"choices": []}


def next_items(d: Decision, v: SeatView) -> Any:
    """next_session_items: 2 new items (持ち物N); the overflow rule discards the newest down to 5."""
    news = [o for o in d.option_ids if o.startswith("new:")]
    hi = d.pick[1] if d.pick else len(news)
    return {"choices": news[:hi]}


POLICY: dict[str, Policy] = {
    "cc.profile": profile,
    "cc.ap_allocation": ap_allocation,
    "cc.skill_choice": skill_choice,
    "cc.initial_item_names": item_names,
    "gm.item_name_veto": gm_none,
    "gm.next_scene": gm_first,
    "gm.stuck_resolution": gm_first,
    "gm.scene_events": gm_fire,
    "gm.npc_investigation": gm_none,
    "pc.discovery": discovery,
    "pc.take_loose_item": take_loose,
    "pc.main_action": main_action,
    "pc.free_action": free_action,
    "pc.climax_declaration": climax_declaration,
    "gm.item_approval": approve,
    "ck.item_lend": item_lend,
    "ck.fumble_item_choice": fumble_item,
    "sf.designate_ability": designate,
    "sf.come_out": come_out,
    "ps.scene_type": scene_type,
    "ps.appearance_request": appearance_request,
    "ps.appearance_response": accept,
    "bond.check_target": bond_target,
    "bond.check_designate_ability": bond_designate,
    "bond.type_choice": bond_type,
    "bond.type_change": keep,
    "ps.personal_scene_end": keep,
    "gm.combat_participants": combat_participants,
    "cb.sp_choice": sp_choice,
    "cb.combat_action": combat_action,
    "cb.withdrawal_declaration": withdrawal,
    "cb.aftermath_action": aftermath,
    "cb.dart_use": dart_use,
    "gm.handout_assignment": gm_keep,
    "gm.shock_targets": shock_targets,
    "gm.scene_appearance": scene_appearance,
    "cb.winner_loot": winner_loot,
    "inv.inventory_overflow": overflow,
    "gm.bonus_items": gm_none,
    "gm.bonus_item_name": bonus_item_name,
    "cont.continue_pc": continue_pc,
    "cont.respec": keep,
    "cont.growth_ap_spend": growth_ap,
    "cont.growth_skill_learn": growth_skill,
    "cont.memorialize": none_many,
    "cont.next_session_items": next_items,
}

# the reaction windows: the system's default standing answers (engine.systems.last_fragment.standing), which the agent
# also declares (ScriptedAgent.standing_answers), so that the engine resolves them without asking
POLICY.update(standing_defaults(_STANDING))
