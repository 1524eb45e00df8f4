"""The scripted defaults of rules/a_game.md §8 (D01–D39) and the §9.9 approval heuristics, one function per decision
kind. Each reads only the decision (its options and context, which carry the scenario data the rule needs: hints,
hazards, suggestions, expected checks for the SD) — never the session. The engine offers only legal options; these
functions choose among them, falling back to the first legal option if their preference is not offered."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from engine.core.decision import Decision
from engine.core.seat import SeatView
from engine.systems.a_game.names import normalize
from agent.scripted import standing_defaults
from engine.systems.a_game.standing import STANDING as _STANDING
from engine.core.standing import first_of as _first

__all__ = ["POLICY"]

Policy = Callable[[Decision, SeatView], Any]


def _ctx(d: Decision) -> Mapping[str, Any]:
    return d.context or {}


def _payload(d: Decision, value: dict[str, Any]) -> dict[str, Any]:
    return {"payload": value}


# -- setup and elements (D01–D04, D31–D35) ----------------------------------------------------------------------
def assign_cast(d: Decision, v: SeatView) -> Any:
    """D01: the scenario's cast_assignment; else by seat: protagonist, partner, expert, companion, mascot, guest."""
    c = _ctx(d)
    return _first(d, *(x for x in (c.get("suggested"), c.get("seat_default")) if x))


def background(d: Decision, v: SeatView) -> Any:
    """D02: the scenario's pregenerated name and 設定, else 「<name>、<scenario>の住人」."""
    return _payload(d, dict(_ctx(d).get("suggested") or {"name": "名無し", "background": ""}))


def _suggestion(d: Decision, category: str | None) -> str | None:
    sug: Mapping[str, Any] = _ctx(d).get("suggestions") or {}
    for oid in d.option_ids:
        if oid in sug and (category is None or category in sug[oid]["categories"]):
            return oid
    return None


def propose_element(d: Decision, v: SeatView) -> Any:
    """D03/D32: at creation the first six suggestions (≤ 2 categories, uncovered categories first) until 6 are held;
    during play one of the check's category only if none is held; between scenes one of the next goal's category if
    none is held; otherwise nothing."""
    if d.payload_model is not None:
        return _payload(d, {"name": "", "categories": []})
    c = _ctx(d)
    window = c.get("window")
    sug: Mapping[str, Any] = c.get("suggestions") or {}
    if window == "creation":
        if int(c.get("held", 0)) >= 6:
            return "none"
        held = set(c.get("held_categories") or [])
        small = [o for o in d.option_ids if o in sug and len(sug[o]["categories"]) <= 2]
        fresh = [o for o in small if not set(sug[o]["categories"]) <= held]
        return (fresh or small or ["none"])[0]
    if window == "scene":
        cat = c.get("check_category")
        if cat and not c.get("has_usable_of_category"):
            return _suggestion(d, cat) or "none"
        return "none"
    if window == "between":
        cat = c.get("next_goal_category")
        if cat and not c.get("has_usable_of_next"):
            return _suggestion(d, cat) or "none"
    return "none"


def approve_element(d: Decision, v: SeatView) -> Any:
    """D04 (§9.9): too_long, meaningless, setting_conflict (a forbidden keyword), omnipotent (a universal word, or
    ≥ 30 % of the anticipated checks); otherwise approve."""
    c = _ctx(d)
    name = str(c.get("normalized") or c.get("name") or "")
    if int(c.get("length", 0)) > int(c.get("max_len", 15)):
        return "reject:too_long"
    if c.get("meaningless"):
        return "reject:meaningless"
    if any(normalize(k) and normalize(k) in name for k in c.get("forbidden_keywords") or []):
        return "reject:setting_conflict"
    if c.get("universal") or float(c.get("share", 0.0)) >= float(c.get("threshold", 0.3)):
        return "reject:omnipotent"
    return _first(d, "approve", "reject:other")


def omnipotent_review(d: Decision, v: SeatView) -> Any:
    """D31: delete iff the anticipated checks whose category the element was used in make ≥ 30 %."""
    c = _ctx(d)
    exp = list(c.get("expected_checks") or [])
    threshold = float(c.get("threshold", 0.3))
    out = []
    for oid in d.option_ids:
        used = set((c.get("elements") or {}).get(oid, {}).get("used_in") or [])
        if exp and used and sum(1 for x in exp if x in used) / len(exp) >= threshold:
            out.append(oid)
    return out


def propose_unrealize(d: Decision, v: SeatView) -> Any:
    """D34: at 20 elements the least used one (ties: earliest registered), with 「設定変更：<要素>を失った経緯がある」."""
    c = _ctx(d)
    if int(c.get("held", 0)) >= int(c.get("max", 20)) and c.get("least_used") in d.option_ids:
        return {"choices": [c["least_used"]], "note": f"設定変更：{c.get('least_used_name')}を失った経緯がある"}
    return []


def approve_unrealize(d: Decision, v: SeatView) -> Any:
    """D35: approve iff the statement of the setting change has ≥ 10 characters."""
    return "approve" if int(_ctx(d).get("length", 0)) >= 10 else _first(d, "reject:insufficient_change")


# -- scenes and declarations (D05–D12, D25, D26, D28a, D29, D30, D36, D37) ----------------------------------------
def scene_frame(d: Decision, v: SeatView) -> Any:
    """D05: the scenario's frame."""
    return _payload(d, {}) if d.payload_model is not None else "keep"


def declare(d: Decision, v: SeatView) -> Any:
    """D06: a goal-targeted action when the goal is open and the PC holds a usable element of its category."""
    c = _ctx(d)
    cat = c.get("goal_category")
    if "goal" in d.option_ids and any(cat in cats for cats in (c.get("elements") or {}).values()):
        return "goal"
    return "pass"


def declare_category(d: Decision, v: SeatView) -> Any:
    c = _ctx(d)
    return _first(d, str(c.get("goal_category") or ""))


def declare_elements(d: Decision, v: SeatView) -> Any:
    """D06: every usable element of the action's category."""
    c = _ctx(d)
    cat = c.get("category")
    els: Mapping[str, Any] = c.get("elements") or {}
    return [o for o in d.option_ids if cat in (els.get(o) or [])]


def duration(d: Decision, v: SeatView) -> Any:
    """D07: the first duration hint whose keyword is in the action's words, else 1 turn."""
    c = _ctx(d)
    text = str(c.get("text") or "")
    for h in c.get("duration_hints") or []:
        if h.get("keyword") and h["keyword"] in text:
            n = int(h.get("turns", 1))
            return "none" if n <= 1 else _first(d, str(n), "none")
    return "none"


def continue_or_split(d: Decision, v: SeatView) -> Any:
    """D08: continued if it completes by turn 10, else split."""
    return _first(d, "continued", "split")


def hero_point(d: Decision, v: SeatView) -> Any:
    """D09: A iff goal-targeted, the candidate pool is below the goal's difficulty, and this is the PC's last ○ turn
    of the scene or the last scene; never B."""
    c = _ctx(d)
    gd = c.get("goal_difficulty")
    if (c.get("goal_targeted") and isinstance(gd, int) and int(c.get("candidate_n", 0)) < gd
            and (c.get("last_circle_turn") or c.get("last_scene")) and "A" in d.option_ids):
        return "A"
    return "none"


def approve_hp_b(d: Decision, v: SeatView) -> Any:
    """D10: approve iff the statement is not empty and the target is a resolved check of this game never targeted
    before, or a setting fact that is not immutable."""
    c = _ctx(d)
    if not str(c.get("statement") or "").strip():
        return _first(d, "reject:no_statement")
    if c.get("kind") == "fact":
        return _first(d, "reject:immutable") if c.get("immutable") else "approve"
    if c.get("resolved") and c.get("current_game") and int(c.get("b_targeted", 0)) == 0:
        return "approve"
    return _first(d, "reject:other")


def sdc_declare(d: Decision, v: SeatView) -> Any:
    """D12: the scenario's sdc_actions for this turn, else pass."""
    if d.payload_model is not None:
        return _payload(d, {"text": "様子をうかがう", "category": "perception", "target": "other", "opposed": False})
    return next((o for o in d.option_ids if o.startswith("plan:")), "pass")


def judge_goal(d: Decision, v: SeatView) -> Any:
    """D25 (gm_judgement): the scripted SD treats it as single_check."""
    return "achieved" if int(_ctx(d).get("successes", 0)) >= 1 else "not_achieved"


def passive(d: Decision, v: SeatView) -> Any:
    """D26: the scenario's events for this turn, in order."""
    if d.payload_model is not None:
        pcs = list(_ctx(d).get("pcs") or [])
        return _payload(d, {"pc": pcs[0], "category": "perception", "difficulty": 3, "reason": "不意の出来事"})
    return next((o for o in d.option_ids if o.startswith("event:")), "none")


def invoke_precedent(d: Decision, v: SeatView) -> Any:
    """D28a: the most recent own precedent with the same category and target."""
    c = _ctx(d)
    precs: Mapping[str, Any] = c.get("precedents") or {}
    hits = [p for p in d.option_ids if p in precs and precs[p].get("category") == c.get("category")
            and precs[p].get("target") == c.get("target")]
    return hits[-1] if hits else "none"


def cast_violation(d: Decision, v: SeatView) -> Any:
    """D29 (§9.9): a companion outshining the leads, a companion or mascot opposing a PC, a protagonist who never
    declared although it had ○ turns."""
    c = _ctx(d)
    cast, t = c.get("cast"), c.get("tally") or {}
    why = None
    if cast == "companion" and int(t.get("successes", 0)) > int(c.get("lead_successes", 0)):
        why = "仲間が主人公や相棒より目立った"
    elif cast in ("companion", "mascot") and int(t.get("opposed_vs_pc", 0)) > 0:
        why = "他のPCに好意的でなかった（PCとの対抗判定）"
    elif cast == "protagonist" and int(t.get("declared", 0)) == 0 and int(t.get("circle_turns", 0)) >= 1:
        why = "主人公が一度も行動宣言しなかった"
    return {"choice": "violation", "note": why} if why else "none"


def award_hp(d: Decision, v: SeatView) -> Any:
    """D30: 1 iff the PC acted in the scene (a declared/continued check or an approved cooperation) and no violation."""
    c = _ctx(d)
    t = c.get("tally") or {}
    acted = int(t.get("declared", 0)) + int(t.get("cooperations", 0)) >= 1
    return _first(d, "award") if acted and not c.get("violation") else "none"


def choose_tie(d: Decision, v: SeatView) -> Any:
    """D33: the earliest registered (the engine lists ties in registration order)."""
    return d.option_ids[0]


def decisive(d: Decision, v: SeatView) -> Any:
    """D37: use it on a goal-targeted check while any is left."""
    return "use" if _ctx(d).get("goal_targeted") and "use" in d.option_ids else "none"


# -- the check (D13–D24, D27, D28, D38, D39) ----------------------------------------------------------------------
def check_category(d: Decision, v: SeatView) -> Any:
    """D13: goal-targeted → the goal's category; else the declared category."""
    c = _ctx(d)
    if c.get("goal_targeted") and c.get("goal_category") and c.get("goal_category") != c.get("declared"):
        return _first(d, str(c["goal_category"]), "keep")
    return "keep"


def difficulty(d: Decision, v: SeatView) -> Any:
    """D14: a precedent's difficulty; a goal-targeted check the goal's; the scene's category difficulty; else 3."""
    c = _ctx(d)
    if isinstance(c.get("precedent_difficulty"), int):
        value = c["precedent_difficulty"]
    elif c.get("goal_targeted") and isinstance(c.get("goal_difficulty"), int):
        value = c["goal_difficulty"]
    elif c.get("category") in (c.get("category_difficulty") or {}):
        value = c["category_difficulty"][c["category"]]
    else:
        value = 3
    return _payload(d, {"difficulty": max(1, min(100, int(value)))})


def opposed(d: Decision, v: SeatView) -> Any:
    """D15: opposed iff the target is an SDC or a PC flagged ``opposes``."""
    c = _ctx(d)
    target = str(c.get("target") or "")
    if c.get("target_opposes") and target in d.option_ids:
        return target
    return "none"


def confirm_element(d: Decision, v: SeatView) -> Any:
    """D16: confirm iff the check's category is among the element's, or the invoked precedent lists it."""
    c = _ctx(d)
    if c.get("category") in (c.get("categories") or []) or c.get("element") in (c.get("precedent_elements") or []):
        return "approve"
    return _first(d, "reject:not_applicable")


def temporary(d: Decision, v: SeatView) -> Any:
    """D17: the scene's advantage hints whose categories include the check's, in scenario order (up to 2)."""
    if d.payload_model is not None:
        return _payload(d, {"text": ""})
    c = _ctx(d)
    hints: Mapping[str, Any] = c.get("hints") or {}
    cat = c.get("category")
    for oid in d.option_ids:
        if oid in hints and cat in hints[oid]["categories"]:
            return oid
    return "none"


def approve_temporary(d: Decision, v: SeatView) -> Any:
    """D18: approve iff the invoked precedent approved it, or the scene has no situation keywords, or the text
    mentions one of them."""
    c = _ctx(d)
    text = str(c.get("text") or "")
    keys = list(c.get("situation_keywords") or [])
    if normalize(text) in [normalize(x) for x in c.get("precedent_temporaries") or []] or not keys \
            or any(k in text for k in keys):
        return "approve"
    return _first(d, "reject:not_fitting")


def reverse_elements(d: Decision, v: SeatView) -> Any:
    """D19: every hazard active this turn whose categories include the check's (and the guest's suggestions)."""
    if d.payload_model is not None:
        return _payload(d, {"texts": []})
    c = _ctx(d)
    hz: Mapping[str, Any] = c.get("hazards") or {}
    cat = c.get("category")
    guest = set(c.get("guest_suggested") or [])
    return [o for o in d.option_ids if o in hz and ((hz[o]["active"] and cat in hz[o]["categories"]) or o in guest)]


def offer_cooperation(d: Decision, v: SeatView) -> Any:
    """D20: offer every own usable element of the check's category iff the check is goal-targeted, the pool is
    below the difficulty, and the offer gains dice (the expert's modifier is lost, the mascot's penalty lifted)."""
    c = _ctx(d)
    cat = c.get("category")
    els: Mapping[str, Any] = c.get("elements") or {}
    mine = [o for o in d.option_ids if cat in (els.get(o) or [])]
    target = c.get("difficulty") if c.get("difficulty") is not None else c.get("d_est")
    if not mine or not c.get("goal_targeted") or target is None or int(c.get("n_so_far", 0)) >= int(target):
        return []
    first = not c.get("coop_so_far")
    gain = len(mine) + (1 if c.get("actor_cast") == "mascot" and first else 0) \
        - (1 if c.get("actor_cast") == "expert" and first else 0)
    return mine if gain > 0 else []


def approve_cooperation(d: Decision, v: SeatView) -> Any:
    """D21: reject if the method has fewer than 5 characters; approve iff the check's category is the element's."""
    c = _ctx(d)
    if int(c.get("method_length", 0)) < 5:
        return _first(d, "reject:bad_method")
    return "approve" if c.get("category") in (c.get("categories") or []) else _first(d, "reject:not_applicable")








def record_precedent(d: Decision, v: SeatView) -> Any:
    """D27: record own checks whose final result is a success."""
    c = _ctx(d)
    return "record" if c.get("own") and c.get("result") == "success" and "record" in d.option_ids else "none"


def check_elements(d: Decision, v: SeatView) -> Any:
    """D39: a declared check — the declared list plus the element just registered; otherwise every own usable
    element of the check's category."""
    c = _ctx(d)
    if c.get("new") is not None:
        return [o for o in d.option_ids if o == c["new"]]
    cat = c.get("category")
    els: Mapping[str, Any] = c.get("elements") or {}
    return [o for o in d.option_ids if cat in (els.get(o) or [])]


POLICY: dict[str, Policy] = {
    "sd.assign_cast": assign_cast,
    "pc.background": background,
    "pc.propose_element": propose_element,
    "pc.register_between_scenes": propose_element,
    "sd.approve_element": approve_element,
    "sd.omnipotent_review": omnipotent_review,
    "pc.propose_unrealize": propose_unrealize,
    "sd.approve_unrealize": approve_unrealize,
    "sd.scene_frame": scene_frame,
    "pc.declare": declare,
    "pc.declare_category": declare_category,
    "pc.declare_elements": declare_elements,
    "sd.duration": duration,
    "pc.continue_or_split": continue_or_split,
    "pc.hero_point": hero_point,
    "sd.approve_hp_b": approve_hp_b,
    "sd.new_fact": lambda d, v: "adopt",
    "sd.sdc_declare": sdc_declare,
    "sd.judge_goal": judge_goal,
    "sd.passive": passive,
    "pc.invoke_precedent": invoke_precedent,
    "sd.cast_violation": cast_violation,
    "sd.award_hp": award_hp,
    "ban.choose_tie": choose_tie,
    "pc.guest_suggestion": lambda d, v: "none",
    "pc.decisive_success": decisive,
    "sd.check_category": check_category,
    "sd.difficulty": difficulty,
    "sd.opposed": opposed,
    "sd.confirm_element": confirm_element,
    "ck.temporary": temporary,
    "sd.approve_temporary": approve_temporary,
    "sd.reverse_elements": reverse_elements,
    "pc.offer_cooperation": offer_cooperation,
    "sd.approve_cooperation": approve_cooperation,
    "sd.intermediate": lambda d, v: "none",
    "pc.record_precedent": record_precedent,
    "sd.follow_precedent": lambda d, v: "follow",
    "sd.narrate": lambda d, v: "none",
    "ck.elements": check_elements,
}

# the reaction windows: the system's default standing answers (engine.systems.a_game.standing), which the agent
# also declares (ScriptedAgent.standing_answers), so that the engine resolves them without asking
POLICY.update(standing_defaults(_STANDING))
