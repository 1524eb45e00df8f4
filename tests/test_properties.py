"""Hypothesis properties on the invariants of ブラッドベリー (rules/bloodberry.md §4): abilities never below 0
(and self-spends never below 1), 気力 0..3, relation strength 0..3 and camp strength 0..cap, and no sublimation
without a rise of the relation (or camp relation) in the same check."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent.random_agent import RandomAgent
from agent.scripted import ScriptedAgent
from engine.core import Session, load_scenario
from engine.core.events import CheckEvent, StateEvent

SCENARIO = load_scenario("scenarios/bloodberry/inoiri_dolls.yaml")
SMALL = load_scenario("tests/data/small_valid.yaml")

FLAGS = st.fixed_dictionaries(
    {},
    optional={
        "relation_both_success": st.sampled_from(["active_only", "both"]),
        "passive_raise_count_mode": st.sampled_from(["sum", "each"]),
        "relation_check_at_max_allowed": st.booleans(),
        "sublimations_per_success": st.sampled_from(["one", "catch_up"]),
        "guard_floor": st.sampled_from([0, "forbid_below_1"]),
        "heal_cap": st.sampled_from(["full", "none"]),
        "npc_initiated_relation_checks": st.booleans(),
        "camp_cap_basis": st.sampled_from(["pcs_at_start", "pcs_current"]),
        "judge_grant_enabled": st.booleans(),
        "relation_passive_needs_threshold": st.booleans(),
        "cost_floor_reading": st.sampled_from(["floor_1", "floor_2"]),
        "useful_bonus_window": st.sampled_from(["scene_and_between", "scene_only"]),
        "emotion_roll_mode": st.sampled_from(["half_d6", "2d6_sum", "d12"]),
    },
)


def _check_invariants(s: Session) -> None:
    t = s.game.t
    for c in t.chars.values():
        for a, v in c.ab.items():
            assert v >= 0, (c.id, a, v)
        assert 0 <= c.willpower <= 3, (c.id, c.willpower)
        if c.is_pc:
            assert c.sublimated_count <= 3
            for a in c.full:
                if s.config.heal_cap == "full":
                    assert c.ab[a] <= c.full[a], (c.id, a, c.ab[a], c.full[a])
    for r in t.relations.values():
        assert 0 <= r.strength <= 3
    for (camp, _k), v in t.camp_strength.items():
        assert 0 <= v <= max(t.camp_cap.get(camp, 0), 0) or v <= 3


def _check_events(s: Session) -> None:
    last_rise = False
    clock = 0
    for e in s.events:
        if isinstance(e, StateEvent) and e.path == "clock":
            assert e.old == clock and e.new > e.old, f"the clock must only move forward: {e}"
            clock = e.new
        if isinstance(e, CheckEvent):
            last_rise = False
        elif isinstance(e, StateEvent):
            if (e.path.startswith("relation.") or e.path.startswith("camp.")) and isinstance(e.new, int) and isinstance(e.old, int):
                last_rise = e.new == e.old + 1
            if e.new == "sublimated":
                assert last_rise, f"sublimation without a rise: {e}"
            if e.cause == "spend":
                assert e.new >= 1, f"a self-spend went below 1: {e}"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), flags=FLAGS, policy=st.sampled_from(["random", "scripted", "mixed"]),
       small=st.booleans())
def test_invariants_hold_in_any_session(seed, flags, policy, small):
    s = Session(SMALL if small else SCENARIO, seed=seed, config=flags)
    rnd, scr = RandomAgent(seed), ScriptedAgent()
    n = 0
    while not s.is_over:
        d = s.pending
        if policy == "random" or (policy == "mixed" and s.actor_role(d.actor) != "pc"):
            s.answer(rnd.act(d, s), policy="random")
        else:
            s.answer(scr.act(d, s), policy="scripted")
        n += 1
        if n % 7 == 0:
            _check_invariants(s)
    _check_invariants(s)
    _check_events(s)
