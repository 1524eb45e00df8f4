"""Hypothesis properties on the invariants of ブラッドベリー (rules/bloodberry.md §4): abilities never below 0
(and self-spends never below 1, or 2 with ``cost_floor_reading = "floor_2"``, A14), 気力 0..3, relation strength 0..3
and camp strength 0..cap (§4.4, §7.5, A29: cap = the number of PCs in the camp at the confrontation's start, or the
number still active with ``camp_cap_basis = "pcs_current"``; NPC-only camps: their members), and no sublimation
without a rise of a relation (or camp relation) of the sublimating character in the same check, never beyond the
new strength (§5.4)."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent.random_agent import RandomAgent
from agent.scripted import ScriptedAgent
from engine.core import Session, load_scenario
from engine.core.events import CheckEvent, InfoEvent, StateEvent
from engine.core.kept import checking_kept


@pytest.fixture(autouse=True, scope="module")
def _kept_values_checked():
    """Every value a rule keeps between questions is recomputed at each reuse and compared (``engine.core.kept``):
    a change behind ``ctx.state``'s back fails here, where it is read."""
    with checking_kept():
        yield


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
    for (camp, k), v in t.camp_strength.items():
        # the cap counted at the confrontation's start (A29); with camp_cap_basis = "pcs_current" the cap may shrink
        # below a strength reached earlier (the curse then stays settled), so the start cap is the bound either way;
        # _check_events checks each rise against the cap of its moment
        assert camp in t.camp_cap, (camp, k, v, t.camp_cap)
        assert 0 <= v <= t.camp_cap[camp], (camp, k, v, t.camp_cap[camp])


def _check_events(s: Session) -> None:
    t = s.game.t
    spend_floor = 2 if s.config.cost_floor_reading == "floor_2" else 1  # A14
    pcs_current = s.config.camp_cap_basis == "pcs_current"
    # each character's sublimated count at the start: its count now less the sublimations the log shows
    later = Counter(e.path.split(".", 1)[0] for e in s.events if isinstance(e, StateEvent) and e.new == "sublimated")
    count = {c.id: c.sublimated_count - later[c.id] for c in t.chars.values()}
    camps: dict[str, list[str]] = {}  # camp -> members at the confrontation's start
    caps: dict[str, int] = {}
    active: set[str] = set()
    rise: tuple[str, int] | None = None  # (path, new strength) of the last change of a relation in this check
    clock = 0

    def cap_now(camp: str) -> int:
        if pcs_current and camp not in s.game.cf_npc_camps:
            return sum(1 for m in camps[camp] if t.chars[m].is_pc and m in active)
        return caps[camp]

    for e in s.events:
        if isinstance(e, InfoEvent) and e.topic == "confrontation":
            camps, caps = e.data["camps"], e.data["caps"]
            active = {m for ms in camps.values() for m in ms}  # only active characters join a camp
            for c, ms in camps.items():
                expected = len(ms) if c in s.game.cf_npc_camps else sum(1 for m in ms if t.chars[m].is_pc)
                assert caps[c] == expected, f"camp {c} ({ms}): cap {caps[c]}, the PCs in it make {expected} (A29)"
        if isinstance(e, StateEvent) and e.path == "clock":
            assert e.old == clock and e.new > e.old, f"the clock must only move forward: {e}"
            clock = e.new
        if isinstance(e, CheckEvent):
            rise = None
        elif isinstance(e, StateEvent):
            if e.path.endswith(".status"):
                who = e.path.rsplit(".", 1)[0]
                if e.new == "active":
                    active.add(who)
                else:
                    active.discard(who)
            if e.path.startswith("camp."):
                camp = e.path[len("camp."):].split("|")[0]
                assert 0 <= e.new <= caps[camp], f"camp strength outside 0..{caps[camp]}: {e}"
                if e.new > e.old:
                    assert e.new <= cap_now(camp), f"camp strength rose above the cap {cap_now(camp)} of the moment: {e}"
            if (e.path.startswith("relation.") or e.path.startswith("camp.")) and isinstance(e.new, int) and isinstance(e.old, int):
                rise = (e.path, e.new) if e.new > e.old else None
            if e.new == "sublimated":
                who = e.path.split(".", 1)[0]
                assert rise is not None, f"sublimation without a rise: {e}"
                path, strength = rise
                kind, _, key = path.partition(".")
                parties = key.split("|") if kind == "relation" else camps[key.split("|")[0]]
                assert who in parties, f"{who} sublimated after a rise of {path}, not one of theirs: {e}"
                count[who] += 1
                assert count[who] <= strength, f"{who} sublimated to {count[who]} skills after a rise to {strength}: {e}"
            if e.cause == "spend":
                assert e.new >= spend_floor, f"a self-spend went below {spend_floor}: {e}"


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
            s.answer(rnd.act(s.view(d)), policy="random")
        else:
            s.answer(scr.act(s.view(d)), policy="scripted")
        n += 1
        if n % 7 == 0:
            _check_invariants(s)
    _check_invariants(s)
    _check_events(s)
