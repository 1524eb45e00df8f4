"""Scripted policy for ブラッドベリー: the defaults of rules/bloodberry.md §8, one function per decision kind.

Each function reads only the decision (its options and context) and the deciding actor's own observation, so the
policy can never use information its seat may not see.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from math import comb
from typing import Any

from engine.core.decision import Decision
from engine.core.session import Session
from agent.scripted import standing_defaults
from engine.systems.bloodberry.standing import STANDING as _STANDING

__all__ = ["POLICY"]

ABILITY_ORDER = ("passion", "grace", "maturity")
REL_ORDER = ("inquiry", "banter", "seduction")


def _has(d: Decision, oid: str) -> bool:
    return oid in d.option_ids


def _pick(d: Decision, *prefer: str) -> str:
    for p in prefer:
        if _has(d, p):
            return p
    return d.option_ids[0]


def _me(d: Decision) -> dict[str, Any]:
    return d.observation.get("me") or {}


# -- judge ---------------------------------------------------------------------------------------------------------






def gm_approve_useful(d: Decision, s: Session) -> Any:
    rt = d.context.get("rel_type")
    return [sid for sid in d.option_ids if rt is not None and d.context["affirm"].get(sid) == rt]
























def rescue_byojaku(d: Decision, s: Session) -> Any:
    return "use"


# -- relation checks -----------------------------------------------------------------------------------------------
def rc_passive_choice(d: Decision, s: Session) -> Any:
    """§8: raise if allowed, else 気力 +1; a formed curse has no 気力 (§11 G4), so it lowers the relation."""
    return _pick(d, "raise", "willpower", "lower")


def rc_sublimate(d: Decision, s: Session) -> Any:
    return d.option_ids[0]  # first unsublimated skill in sheet order


def bs_relation(d: Decision, s: Session) -> Any:
    c = d.context
    ring = [p for p in c.get("ring", []) if p in c["strengths"]]
    if not ring:
        return "skip"
    target = min(ring, key=lambda p: (c["strengths"][p], ring.index(p)))
    counts = c["affirm_counts"]
    for rt in sorted(REL_ORDER, key=lambda r: (-counts[r], REL_ORDER.index(r))):
        oid = f"rc:{target}:{rt}"
        if _has(d, oid):
            return oid
    return "skip"


# -- scenes ----------------------------------------------------------------------------------------------------------
def gm_scene_setup(d: Decision, s: Session) -> Any:
    c = d.context
    if "scenario_participants" in c:
        return [p for p in c["scenario_participants"] if p in d.option_ids]
    return [a for a in c.get("suggested", []) if a in d.option_ids][:2]


def gm_end_scene(d: Decision, s: Session) -> Any:
    c = d.context
    if c["cycle"] < c["planned_cycles"] and c["open_actions"] and _has(d, "continue"):
        return "continue"
    return "ending" if c.get("is_last_scene") else "end_scene"


def pc_declare(d: Decision, s: Session) -> Any:
    if d.payload_model is not None:  # a free action (never chosen by this policy, but answer sensibly)
        return {"text": "辺りを調べる"}
    ids = d.option_ids
    for oid in ids:
        if oid.startswith("act:"):
            return oid
    for oid in ("skill:into_distant_dream", "skill:afterimage_of_past"):
        if oid in ids:
            return oid
    if "effect:byojaku" in ids:  # the observation is built only when the option is there to weigh
        me = _me(d)
        if me and me["abilities"]["passion"] <= me["full"]["passion"] - 2:
            return "effect:byojaku"
    return "pass"


@functools.lru_cache(maxsize=64)
def _pmf(n: int) -> tuple[float, ...]:
    """The achievement of an n-die pool (§5.1: each die succeeds on 5 or 6, p = 1/3): P(ach = i) for i = 0..n."""
    n = max(0, n)
    return tuple(comb(n, i) * (1 / 3) ** i * (2 / 3) ** (n - i) for i in range(n + 1))


def _basic_chance(pool: int, difficulty: int) -> float:
    """P(a basic check of ``pool`` dice reaches ``difficulty``) (§5.3.1)."""
    return sum(p for i, p in enumerate(_pmf(pool)) if i >= difficulty)


def _relation_chance(my_pool: int, curse_pool: int, tau: int) -> float:
    """P(an active relation check succeeds): ach ≥ τ and above the passive's (ties go to the passive, §5.3.1)."""
    theirs = _pmf(curse_pool)
    below = [sum(theirs[:a]) for a in range(my_pool + 1)]  # P(passive ach < a)
    return sum(p * below[a] for a, p in enumerate(_pmf(my_pool)) if a >= tau)


def pc_cf_action(d: Decision, s: Session) -> Any:
    """§8 pc.cf_action: a relation check on the first unsettled curse, of the type maximising own pool minus the
    curse's passive pool (tie: 探究, 遊話, 誘惑).

    Rule of play (not in §8, which knows no special actions): a scenario's special action (§11 G14) that raises the
    camp relation is kept for the step that settles the curse: it is taken instead of the relation check when it
    would bring the camp relation to the cap and its chance (its basic check) beats the relation check's chance; or
    whenever no relation check is open (e.g. 破魔 seals them all) and it adds anything. The camp relation's
    threshold τ = strength + 1 (§7.5) grows with every success, so with a camp of 4 the last step needs 4 successes
    above the curse's pool: the spec default alone kept such camps rolling relation checks at τ = 4 until the
    confrontation's safety cap (inoiri_dolls seeds 113, 153, 271 ended ``withdrawn``) while a difficulty-2 special
    action stood unused; a special action spent on the first, easy step (seed 68) left the same last step."""
    pools = d.context.get("pools", {})
    rcs = [o for o in d.option_ids if o.startswith("rc:")]
    best: str | None = None
    best_gain = 0.0
    strength = d.context.get("camp_strength") or {}
    cap = d.context.get("cap", 0)
    if rcs:
        curse = rcs[0].split(":")[1]
        mine = [o for o in rcs if o.split(":")[1] == curse]
        best = max(mine, key=lambda o: (pools[o]["my_pool"] - pools[o]["curse_pool"], -REL_ORDER.index(o.split(":")[2])))
        best_gain = _relation_chance(pools[best]["my_pool"], pools[best]["curse_pool"], strength.get(curse, 0) + 1)
    specials = d.context.get("specials") or {}
    for oid in (o for o in d.option_ids if o in specials):
        sp = specials[oid]
        now = strength.get(oid.split(":")[2], 0)
        adds = min(sp["camp_strength"], max(0, cap - now))
        if adds <= 0 or (rcs and now + adds < cap):
            continue
        gain = _basic_chance(sp["pool"], sp["difficulty"]) * adds
        if gain > best_gain:
            best, best_gain = oid, gain
    return best or "pass"


def curse_action(d: Decision, s: Session) -> Any:
    stats = d.context["stats"]
    targets = d.context["targets"]
    from engine.systems.bloodberry.data import CURSE_ABILITY

    def key(oid: str) -> tuple[int, int, int]:
        pid, stat = oid.split(":")
        order = list(targets).index(pid)
        return (-stats[stat], targets[pid][CURSE_ABILITY[stat]], order)

    return min(d.option_ids, key=key)


def gm_victory_eval(d: Decision, s: Session) -> Any:
    c = d.context
    if c.get("confrontation") == "victory" and c.get("status") == "active":
        return list(d.option_ids)
    return []


def bs_victory(d: Decision, s: Session) -> Any:
    if d.payload_model is not None:
        return {"text": "みんなで無事に帰る"}
    return "none"


def skill_anytime(d: Decision, s: Session) -> Any:
    if "effect:byojaku" in d.option_ids:
        me = _me(d)
        if me["abilities"]["passion"] <= me["full"]["passion"] - 2:
            return "effect:byojaku"
    for oid in d.option_ids:
        if oid.startswith("effect:ganbariya:"):
            return oid
    return "none"


def bs_refresh(d: Decision, s: Session) -> Any:
    if d.context.get("willpower", 0) >= 2 and len(d.option_ids) > 1:
        return d.option_ids[1]
    return "none"


def gm_call_judge(d: Decision, s: Session) -> Any:
    return {"mode": "basic", "bases": ["passion", "maturity"], "difficulty": 2}


def sk_time(d: Decision, s: Session) -> Any:
    return {"hours": 1}


def gm_proposal_ruling(d: Decision, s: Session) -> Any:
    return "approve" if not d.context.get("approved") else "deny"


def _const(value: str) -> Callable[[Decision, Session], Any]:
    def f(d: Decision, s: Session) -> Any:
        return _pick(d, value)

    return f


POLICY: dict[str, Callable[[Decision, Session], Any]] = {
    "gm.approve_useful": gm_approve_useful,
    "rescue.byojaku": rescue_byojaku,
    "rc.passive_choice": rc_passive_choice,
    "rc.sublimate": rc_sublimate,
    "bs.relation": bs_relation,
    "gm.approve_sheet": _const("approve"),
    "gm.assign_victory": _const("scenario"),
    "gm.scene_setup": gm_scene_setup,
    "pc.entry_request": _const("request"),
    "gm.entry_ruling": _const("check"),
    "gm.npc_entry": lambda d, s: _pick(d, "enter", "none"),
    "gm.curse_event": lambda d, s: _pick(d, "run", "none"),
    "gm.end_scene": gm_end_scene,
    "pc.declare": pc_declare,
    "gm.permit": _const("permit"),
    "gm.call_judge": gm_call_judge,
    "pc.cf_action": pc_cf_action,
    "curse.action": curse_action,
    "bs.emotions": _const("done"),
    "bs.actor_claim": _const("claim"),
    "gm.actor_ruling": _const("confirm"),
    "skill.anytime": skill_anytime,
    "bs.refresh": bs_refresh,
    "bs.proposal": _const("none"),
    "gm.proposal_ruling": gm_proposal_ruling,
    "bs.victory": bs_victory,
    "gm.victory_ruling": _const("approve"),
    "end.victory_eval": gm_victory_eval,
    "sk.time": sk_time,
    "sk.foam": lambda d, s: d.option_ids[0],
    # §8 sk.hama default "not": the scripted player never seals a check with 破魔, and a block it holds (another
    # seat's) it leaves as it is: "maintain" in every release window (A20: target's turn, own turn, between scenes)
    "sk.hama": lambda d, s: _pick(d, "maintain"),
    "sk.domination_consent": _const("refuse"),
}


# -- creation (§3, §8 cc.*) ----------------------------------------------------------------------------------------
def cc_profile(d: Decision, s: Session) -> Any:
    if d.payload_model is None:
        return d.option_ids[0]
    n = d.context.get("number", 1)
    return {"name": f"PC{n}", "profile": "居入町に暮らす少女。大切な人を守りたい。呪いは怖いが、目を逸らさない。"}


def _planned_skills(cls: str) -> list[str]:
    from engine.systems.bloodberry.data import BASIC_SKILLS

    return [sid for sid, sk in BASIC_SKILLS.items() if sk.cls == cls][:3]


def cc_abilities(d: Decision, s: Session) -> Any:
    from collections import Counter

    from engine.systems.bloodberry.data import BASIC_SKILLS

    skills = _planned_skills(d.context.get("planned_class", "seeker"))
    subs = Counter(BASIC_SKILLS[x].sub_ability for x in skills)
    top = max(ABILITY_ORDER, key=lambda a: (subs.get(a, 0), -ABILITY_ORDER.index(a))) if subs else "passion"
    return {a: (2 if a == top else 1) for a in ABILITY_ORDER}


def cc_basic_skills(d: Decision, s: Session) -> Any:
    return _planned_skills(d.context.get("planned_class", "seeker"))


def cc_class_tiebreak(d: Decision, s: Session) -> Any:
    from engine.systems.bloodberry.data import BASIC_SKILLS

    first = d.context.get("skills", [None])[0]
    cls = BASIC_SKILLS[first].cls if first in BASIC_SKILLS else None
    return cls if cls in d.option_ids else d.option_ids[0]


def cc_free_or(value: str) -> Callable[[Decision, Session], Any]:
    def f(d: Decision, s: Session) -> Any:
        if d.payload_model is not None:
            return {"text": "（自由記述）"}
        return _pick(d, value)

    return f


def cc_emotions(d: Decision, s: Session) -> Any:
    if d.payload_model is not None:
        return {"text": "憧れ"}
    return "roll" if d.context.get("slot", 1) == 1 else "none"


POLICY.update({
    "cc.profile": cc_profile,
    "cc.relation_name": cc_free_or("roll"),
    "cc.abilities": cc_abilities,
    "cc.basic_skills": cc_basic_skills,
    "cc.class_tiebreak": cc_class_tiebreak,
    "cc.race": _const("human"),
    "cc.fairy_drop": lambda d, s: d.option_ids[-1],
    "cc.curse": cc_free_or("roll"),
    "cc.emotions": cc_emotions,
})


# -- round progression and confrontation setup (§7.4, §7.5, §8 rp.*) ------------------------------------------------
def _connections(card: dict[str, Any], others: list[dict[str, Any]]) -> int:
    n = 0
    for o in others:
        if card["face"] and o["face"]:
            n += 2 if card["rank"] == o["rank"] else 0
            n += 1 if card["red"] == o["red"] and card["rank"] == o["rank"] else 0
            continue
        if card["value"] is None or o["value"] is None:
            continue
        if card["red"] == o["red"]:
            n += 1
        if abs(card["value"] - o["value"]) <= 2:
            n += 1
        if card["value"] == o["value"]:
            n += 1
    return n


def rp_initiative(d: Decision, s: Session) -> Any:
    hand = d.context["hand"]
    return max(hand, key=lambda c: (c["value"] or 0, -hand.index(c)))["id"]


def rp_discard(d: Decision, s: Session) -> Any:
    """Keep the best partial role: discard the card least connected to the other two (§8 rp.discard)."""
    hand = d.context["hand"]

    def score(c: dict[str, Any]) -> tuple[int, int]:
        others = [o for o in hand if o is not c]
        q = 3 if c["rank"] == "Q" else 0  # queens build the strongest role
        return (_connections(c, others) + q, c["value"] or 0)

    return min(hand, key=score)["id"]


def gm_adopt(d: Decision, s: Session) -> Any:
    return _pick(d, d.context.get("scenario_default", "normal_order"), "normal_order")


def npc_cf_action(d: Decision, s: Session) -> Any:
    return pc_cf_action(d, s)


POLICY.update({
    "rp.initiative": rp_initiative,
    "rp.discard": rp_discard,
    "gm.adopt_rounds": gm_adopt,
    "gm.confrontation_setup": gm_adopt,
    "npc.cf_action": npc_cf_action,
})


# -- flag map (§7.6, §8 fm.*) ---------------------------------------------------------------------------------------
def fm_bid(d: Decision, s: Session) -> Any:
    hand = d.context["hand"]
    return max(hand, key=lambda c: (c["value"] or 0, -hand.index(c)))["id"]


def fm_place(d: Decision, s: Session) -> Any:
    """Greedy: finish the place needing the fewest remaining slots, flag places first (§8 fm.place)."""
    remaining = d.context.get("remaining", {})
    flag_places = set(d.context.get("flag_places", []))
    # only places whose flag is still to be raised are worth establishing
    moves = [o for o in d.option_ids if o.startswith("place:") and o.split(":")[2] in flag_places]
    if not moves:
        return "done"
    return min(moves, key=lambda o: (o.split(":")[2] not in flag_places, remaining.get(o.split(":")[2], 99), d.option_ids.index(o)))


def fm_step3(d: Decision, s: Session) -> Any:
    available = d.context.get("available", {})
    for oid in d.option_ids:
        if oid.startswith("move:") and available.get(oid.split(":", 1)[1]):
            return oid
    # draw (the default); with no card left to draw, move to the first established place
    return _pick(d, "draw")


def fm_gate_roller(d: Decision, s: Session) -> Any:
    pools = d.context["pools"]
    keys = d.context.get("keys", {})
    return max(d.option_ids, key=lambda m: (pools[m] + (2 if keys.get(m) else 0), -d.option_ids.index(m)))


POLICY.update({
    "fm.bid": fm_bid,
    "fm.place": fm_place,
    "fm.subevent": _const("done"),
    "fm.step3": fm_step3,
    "fm.gate_roller": fm_gate_roller,
})

# the reaction windows: the system's default standing answers (engine.systems.bloodberry.standing), which the agent
# also declares (ScriptedAgent.standing_answers), so that the engine resolves them without asking
POLICY.update(standing_defaults(_STANDING))
