"""Flow states move exactly as the ``transitions`` machines they are read from, and refuse what those refuse."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.scripted import ScriptedAgent
from engine.core import Session, load_scenario, systems
from engine.core.machine import FlowState, MachineError, MachineSpec, diagram

ROOT = Path(__file__).resolve().parents[2]
SPEC = MachineSpec(name="toy", doc="", states=("a", "b", "c"), initial="a",
                   transitions=(("go", "a", "b"), ("back", ("b", "c"), "a"), ("reset", "*", "c")))


class _Model:
    """A plain ``transitions`` model, to compare with."""


def _act(agent, s: Session):
    """The agent's answer to the pending decision, from its seat view."""
    return agent.act(s.view())


def _all_specs() -> list[MachineSpec]:
    return [SPEC] + [m for s in systems() for m in s.machines]


@pytest.mark.parametrize("spec", _all_specs(), ids=lambda m: m.name)
def test_every_state_and_trigger_moves_as_transitions_does(spec: MachineSpec):
    machine = spec.machine()
    triggers = sorted({t[0] for t in spec.transitions})
    for state in spec.states:
        for trigger in triggers:
            model = _Model()
            machine.add_model(model, initial=state)
            try:
                try:
                    getattr(model, trigger)()
                    expected: str | None = model.state  # type: ignore[attr-defined]
                except MachineError:
                    expected = None
            finally:
                machine.remove_model(model)
            fs = FlowState(spec)
            fs.state = state
            assert fs.may(trigger) == (expected is not None), (spec.name, state, trigger)
            if expected is None:
                with pytest.raises(MachineError):
                    fs.fire(trigger)
                assert fs.state == state  # a refused trigger moves nothing
            else:
                fs.fire(trigger)
                assert fs.state == expected, (spec.name, state, trigger)


def test_a_refused_trigger_names_the_machine_the_state_and_what_is_legal():
    fs = FlowState(SPEC)
    with pytest.raises(MachineError) as e:
        fs.fire("back")
    msg = str(e.value)
    assert "toy" in msg and "'back'" in msg and "'a'" in msg and "go" in msg and "reset" in msg
    assert fs.state == "a"


def test_moves_are_reported_and_a_closed_position_stays_readable_but_refuses_triggers():
    moves: list[tuple[str, ...]] = []
    fs = FlowState(SPEC, lambda *a: moves.append(a))
    fs.fire("go")
    fs.fire("reset")
    assert moves == [("toy", "go", "a", "b"), ("toy", "reset", "b", "c")]
    fs.close()
    assert fs.state == "c" and not fs.may("back")
    with pytest.raises(MachineError, match="session is over"):
        fs.fire("back")
    assert fs.state == "c" and len(moves) == 2


def test_a_finished_session_closes_its_flow_states():
    sc = load_scenario(ROOT / "scenarios" / "yogaribito" / "night_of_the_count.yaml")
    s = Session(sc, seed=0)
    agent = ScriptedAgent()
    while not s.is_over:
        s.answer(_act(agent, s), policy="scripted")
    assert s.game.phase.state == "finished"  # positions stay readable after the end
    phase = s.game.phase
    assert not any(phase.may(t[0]) for t in phase.spec.transitions)
    with pytest.raises(MachineError, match="session is over"):
        phase.fire(phase.spec.transitions[0][0])


GUARDED = MachineSpec(
    name="guarded", doc="toy with guards", states=("a", "b", "c"), initial="a",
    transitions=(("go", "a", "b", "the dice say so"), ("back", ("b", "c"), "a"), ("reset", "*", "c")),
    guards={("back", "c"): "only from c", ("reset", "*"): "the GM resets"},
)


def test_guards_are_drawn_on_their_edges_and_plain_edges_stay_plain():
    text = diagram(GUARDED)
    assert "    a --> b: go [the dice say so]\n" in text  # a 4th element
    assert "    c --> a: back [only from c]\n" in text  # guards[(trigger, source)]
    assert "    b --> a: back\n" in text  # the other source of the same trigger has no guard
    for s in GUARDED.states:  # guards[(trigger, "*")]: every source of the trigger
        assert f"    {s} --> c: reset [the GM resets]\n" in text
    assert not any(line.endswith("]") for line in diagram(SPEC).splitlines())  # 3-tuples draw as before
    assert GUARDED.guard("back", "c") == "only from c" and GUARDED.guard("back", "b") is None
    assert ("a", "go", "b", "the dice say so") in GUARDED.moves()


def test_guards_are_never_evaluated_a_guarded_move_fires_like_a_plain_one():
    moves: list[tuple[str, ...]] = []
    fs = FlowState(GUARDED, lambda *a: moves.append(a))
    fs.fire("go")
    fs.fire("reset")
    fs.fire("back")
    assert fs.state == "a" and moves == [("guarded", "go", "a", "b"), ("guarded", "reset", "b", "c"),
                                         ("guarded", "back", "c", "a")]
    assert GUARDED.table() == MachineSpec(name="plain", states=GUARDED.states, initial="a",
                                          transitions=[t[:3] for t in GUARDED.transitions]).table()


@pytest.mark.parametrize("guards, transitions, problem", [
    ({("jump", "a"): "x"}, (("go", "a", "b"),), "names no drawn move"),
    ({("go", "b"): "x"}, (("go", "a", "b"),), "names no drawn move"),
    ({("go", "a"): "x"}, (("go", "a", "b", "y"),), "two guards"),
    ({("go", "a"): "two\nlines"}, (("go", "a", "b"),), "one line"),
    ({("go", "a"): "a: b"}, (("go", "a", "b"),), "without ':' or ';'"),
    ({}, (("go", "a"),), "is not (trigger, source(s), dest[, guard])"),
])
def test_a_malformed_guard_fails_when_the_machine_is_built(guards, transitions, problem):
    spec = MachineSpec(name="bad", states=("a", "b"), initial="a", transitions=transitions, guards=guards)
    with pytest.raises(ValueError, match=problem.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[").replace("]", r"\]")):
        spec.table()


def test_every_registered_machine_draws_its_guards():
    for s in systems():
        for spec in s.machines:
            text = diagram(spec)
            for m in spec.moves():
                label = f"    {m.src} --> {m.dst}: {m.trigger}" + (f" [{m.guard}]" if m.guard else "")
                assert label + "\n" in text, (s.id, spec.name, m)
