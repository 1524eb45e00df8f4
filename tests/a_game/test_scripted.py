"""The scripted policy of 「A」 (agent/scripted/a_game): the §8 scripted defaults and the §9.9 heuristics, decision
by decision, and the EX-12 approvals made by the scripted SD itself."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent.scripted import ScriptedAgent
from agent.scripted.a_game import POLICY
from engine.core import Session, ask, load_scenario
from engine.core.decision import Decision
from engine.systems.a_game.decisions import DECISIONS

ROOT = Path(__file__).resolve().parents[2]
TABLE = ROOT / "engine" / "systems" / "a_game" / "examples" / "a_game_table.yaml"


def D(decision_kind: str, ids: list[str], **context: Any) -> Decision:
    return Decision("x", decision_kind, "?", "§", options=ask.options([(i, i) for i in ids]), context=context)


def answer(d: Decision) -> Any:
    return POLICY[d.kind](d, None)  # type: ignore[arg-type]


def test_every_kind_has_a_policy():
    assert set(POLICY) == set(DECISIONS)


def test_ex12_the_scripted_sd_rejects_as_the_spec_says():
    steps = [{"register": {"pc": "yagami", "name": n, "categories": c, "window": "creation"}} for n, c in (
        ("支配", ["social", "combat", "willpower", "supernatural"]), ("何でも屋", ["technical"]),
        ("とても長い名前の必殺技である流星脚", ["combat"]), ("【！？】", ["willpower"]), ("【空手】", ["combat"]),
        ("下命", ["social"]), ("暗示", ["social", "supernatural"]), ("宇宙船", ["technical"]))]
    s = Session(load_scenario(TABLE), seed=0, options={"procedure": {"steps": steps}, "setup": {"scene": "s1"}})
    agent = ScriptedAgent()
    while not s.is_over:
        s.answer(agent.act(s.view()))
    assert s.outcome["result"] == ["omnipotent", "omnipotent", "too_long", "meaningless", "duplicate", "approved",
                                   "approved", "setting_conflict"]
    assert s.game.t.blacklist == []  # a rejection at registration does not blacklist (A15)


def test_d20_offers_only_when_it_gains_dice():
    els = {"e1": ["knowledge"], "e2": ["combat"]}
    base = dict(category="knowledge", goal_targeted=True, n_so_far=2, difficulty=5, d_est=None, coop_so_far=False,
                elements=els)
    assert answer(D("pc.offer_cooperation", ["e1", "e2"], **base, actor_cast="companion")) == ["e1"]
    # one element for an expert who has not been helped yet: +1 − 1 (【専門家修正】 lost) = no gain
    assert answer(D("pc.offer_cooperation", ["e1", "e2"], **base, actor_cast="expert")) == []
    assert answer(D("pc.offer_cooperation", ["e1", "e2"], **{**base, "coop_so_far": True}, actor_cast="expert")) == ["e1"]
    assert answer(D("pc.offer_cooperation", ["e1"], **{**base, "n_so_far": 5}, actor_cast="companion")) == []
    assert answer(D("pc.offer_cooperation", ["e1"], **{**base, "goal_targeted": False}, actor_cast="mascot")) == []
    assert answer(D("pc.offer_cooperation", ["e1"], **{**base, "difficulty": None, "d_est": 4},
                    actor_cast="companion")) == ["e1"]


def test_d22_d23_fixed_dice_and_greed():
    ids = ["roll", "fix:1", "fix:2", "fix:3"]
    assert answer(D("ck.fixed", ids, n=3, difficulty=4, d_est=None, role="actor")) == "fix:1"
    assert answer(D("ck.fixed", ids, n=3, difficulty=None, d_est=14, role="actor")) == "roll"
    assert answer(D("ck.fixed", ids, n=3, difficulty=None, d_est=None, role="opponent")) == "fix:3"
    g = ["stop", "greed:1", "greed:2"]
    assert answer(D("ck.greed", g, avail=2, result_now="intermediate", role="actor")) == "greed:2"
    assert answer(D("ck.greed", g, avail=2, result_now="success", role="actor")) == "stop"
    assert answer(D("ck.greed", g, avail=2, result_now=None, role="opponent")) == "stop"


def test_d09_effect_a_on_the_last_chance():
    ids = ["none", "A", "B:c1"]
    ctx = dict(goal_targeted=True, candidate_n=2, goal_difficulty=6, last_circle_turn=True, last_scene=False)
    assert answer(D("pc.hero_point", ids, **ctx)) == "A"
    assert answer(D("pc.hero_point", ids, **{**ctx, "last_circle_turn": False})) == "none"
    assert answer(D("pc.hero_point", ids, **{**ctx, "last_circle_turn": False, "last_scene": True})) == "A"
    assert answer(D("pc.hero_point", ids, **{**ctx, "candidate_n": 6})) == "none"
    assert answer(D("pc.hero_point", ids, **{**ctx, "goal_targeted": False})) == "none"


def test_d10_effect_b_approval():
    ids = ["approve", "reject:immutable", "reject:no_statement", "reject:other"]
    assert answer(D("sd.approve_hp_b", ids, statement="実は…", kind="check", resolved=True, current_game=True,
                    b_targeted=0)) == "approve"
    assert answer(D("sd.approve_hp_b", ids, statement="", kind="check", resolved=True, current_game=True,
                    b_targeted=0)) == "reject:no_statement"
    assert answer(D("sd.approve_hp_b", ids, statement="実は", kind="fact", immutable=True)) == "reject:immutable"


def test_d14_difficulty_order_of_the_rules():
    def diff(**c: Any) -> int:
        return answer(Decision("gm", "sd.difficulty", "?", "§", payload_model=object, context=c))["payload"]["difficulty"]

    assert diff(precedent_difficulty=4, goal_targeted=True, goal_difficulty=6, category="combat") == 4
    assert diff(precedent_difficulty=None, goal_targeted=True, goal_difficulty=6, category="combat") == 6
    assert diff(goal_targeted=False, category="social", category_difficulty={"social": 4}) == 4
    assert diff(goal_targeted=False, category="social", category_difficulty={}) == 3


def test_d29_d30_cast_review_heuristics():
    def v(cast: str, lead: int = 1, **tally: int) -> Any:
        return answer(D("sd.cast_violation", ["none", "violation"], cast=cast, lead_successes=lead, tally=tally))

    assert v("companion", 1, successes=2)["choice"] == "violation"
    assert v("companion", 2, successes=2) == "none"
    assert v("mascot", opposed_vs_pc=1)["choice"] == "violation"
    assert v("protagonist", declared=0, circle_turns=3)["choice"] == "violation"
    assert v("protagonist", declared=1, circle_turns=3) == "none"
    assert answer(D("sd.award_hp", ["award", "none"], tally={"declared": 0, "cooperations": 1})) == "award"
    assert answer(D("sd.award_hp", ["award", "none"], tally={"declared": 0, "cooperations": 0})) == "none"


def test_d31_d34_d35_d16_d18_d21():
    c = {"elements": {"a:e1": {"used_in": ["combat", "social", "stealth"]}, "a:e2": {"used_in": ["combat"]}},
         "expected_checks": ["combat", "social", "stealth", "knowledge", "perception", "willpower", "athletics",
                             "technical", "investigation", "supernatural"], "threshold": 0.3}
    assert answer(D("sd.omnipotent_review", ["a:e1", "a:e2"], **c)) == ["a:e1"]
    assert answer(D("pc.propose_unrealize", ["e1", "e2"], held=20, max=20, least_used="e2", least_used_name="槍")) == \
        {"choices": ["e2"], "note": "設定変更：槍を失った経緯がある"}
    assert answer(D("pc.propose_unrealize", ["e1"], held=5, max=20, least_used="e1", least_used_name="x")) == []
    assert answer(D("sd.approve_unrealize", ["approve", "reject:insufficient_change"], length=9)) == \
        "reject:insufficient_change"
    assert answer(D("sd.confirm_element", ["approve", "reject:not_applicable"], category="combat",
                    categories=["social"], element="話術", precedent_elements=["話術"])) == "approve"
    assert answer(D("sd.approve_temporary", ["approve", "reject:not_fitting"], text="古老の昔語り",
                    situation_keywords=["古老"])) == "approve"
    assert answer(D("sd.approve_temporary", ["approve", "reject:not_fitting"], text="気合い",
                    situation_keywords=["古老"])) == "reject:not_fitting"
    assert answer(D("sd.approve_cooperation", ["approve", "reject:not_applicable", "reject:bad_method"],
                    method_length=4, category="combat", categories=["combat"])) == "reject:bad_method"


def test_d03_creation_registers_until_six_preferring_uncovered_categories():
    sug = {"suggest:0": {"name": "霊感", "categories": ["supernatural", "perception"]},
           "suggest:1": {"name": "不屈", "categories": ["willpower"]},
           "suggest:2": {"name": "万能三種", "categories": ["combat", "social", "stealth"]}}
    ids = ["none", "suggest:0", "suggest:1", "suggest:2", "new"]
    assert answer(D("pc.propose_element", ids, window="creation", held=2, held_categories=["supernatural", "perception"],
                    suggestions=sug)) == "suggest:1"
    assert answer(D("pc.propose_element", ids, window="creation", held=6, suggestions=sug)) == "none"
    assert answer(D("pc.propose_element", ids, window="scene", check_category="willpower",
                    has_usable_of_category=False, suggestions=sug)) == "suggest:1"
    assert answer(D("pc.propose_element", ids, window="between", next_goal_category="willpower",
                    has_usable_of_next=True, suggestions=sug)) == "none"
