"""Flow states move exactly as the ``transitions`` machines they are read from, and refuse what those refuse."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.scripted import ScriptedAgent
from engine.core import Session, load_scenario, systems
from engine.core.machine import FlowState, MachineError, MachineSpec

ROOT = Path(__file__).resolve().parents[2]
SPEC = MachineSpec(name="toy", doc="", states=("a", "b", "c"), initial="a",
                   transitions=(("go", "a", "b"), ("back", ("b", "c"), "a"), ("reset", "*", "c")))


class _Model:
    """A plain ``transitions`` model, to compare with."""


def _all_specs() -> list[MachineSpec]:
    return [SPEC] + [m for s in systems() for m in s.machines]


@pytest.mark.parametrize("spec", _all_specs(), ids=lambda m: m.name)
def test_every_state_and_trigger_moves_as_transitions_does(spec: MachineSpec):
    machine = spec.machine()
    triggers = sorted({t for t, _s, _d in spec.transitions})
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
        s.answer(agent.act(s.pending, s), policy="scripted")
    assert s.game.phase.state == "finished"  # positions stay readable after the end
    phase = s.game.phase
    assert not any(phase.may(t) for t in {t for t, _s, _d in phase.spec.transitions})
    with pytest.raises(MachineError, match="session is over"):
        phase.fire(phase.spec.transitions[0][0])
