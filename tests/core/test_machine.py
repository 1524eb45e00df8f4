"""The shared flow machines do not keep finished or abandoned sessions alive (memory stays flat in batches)."""

from __future__ import annotations

import gc
from pathlib import Path

from agent.scripted import ScriptedAgent
from engine.core import Session, load_scenario, systems
from engine.core.machine import FlowState, MachineSpec

ROOT = Path(__file__).resolve().parents[2]
SPEC = MachineSpec(name="toy", doc="", states=("a", "b"), initial="a", transitions=(("go", "a", "b"),))


def _live(spec: MachineSpec) -> int:
    return len(spec.machine().models)


def test_finished_sessions_leave_the_shared_machines():
    sc = load_scenario(ROOT / "scenarios" / "yogaribito" / "night_of_the_count.yaml")
    machines = sc.system.machines
    before = [_live(m) for m in machines]
    agent = ScriptedAgent()
    for seed in range(3):
        s = Session(sc, seed=seed)
        while not s.is_over:
            s.answer(agent.act(s.pending, s), policy="scripted")
        assert s.game.phase.state == "finished"  # positions stay readable after the session let go
    assert [_live(m) for m in machines] == before


def test_abandoned_sessions_are_collected_and_let_go():
    for system in [x for x in systems() if x.sample_scenarios]:
        sc = load_scenario(system.sample_scenarios[0])
        before = [_live(m) for m in system.machines]
        s = Session(sc, seed=1)
        s.answer(ScriptedAgent().act(s.pending, s), policy="scripted")
        assert [_live(m) for m in system.machines] != before  # the session is in the machines while it lives
        del s
        gc.collect()
        assert [_live(m) for m in system.machines] == before, system.id


def test_a_flow_state_reports_moves_to_a_bound_method_without_keeping_its_owner_alive():
    class Owner:
        def __init__(self) -> None:
            self.moves: list[tuple[str, ...]] = []

        def on_move(self, *args: str) -> None:
            self.moves.append(args)

    owner = Owner()
    fs = FlowState(SPEC, owner.on_move)
    fs.fire("go")
    assert owner.moves == [("toy", "go", "a", "b")]
    fs.detach()
    assert fs.state == "b" and not any(x is fs for x in SPEC.machine().models)
