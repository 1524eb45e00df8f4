"""`--create` with the default seats: the first PC is one seat for the whole creation (it used to move from PC to PC
as sheets were filled in, so a solo player was asked to make every PC)."""

from __future__ import annotations

from agent.scripted import ScriptedAgent
from agent.table import SeatSpec, Table
from engine.core import Session, load_scenario


def test_the_first_pc_keeps_its_seat_while_the_pcs_are_created():
    s = Session(load_scenario("scenarios/bloodberry/inoiri_dolls.yaml"), 2, options={"create_pcs": True})
    asked: list[tuple[str, str]] = []

    class Person:
        name = "human"

        def act(self, view):
            asked.append((view.actor, view.decision.kind))
            return ScriptedAgent().act(view)

    person = Person()
    table = Table(s, SeatSpec.default(), lambda policy, actor: person if policy == "human" else ScriptedAgent())
    while not s.is_over and not any(k == "gm.approve_sheet" for _, k in asked) and table.steps < 400:
        table.step()
    creation = [(a, k) for a, k in asked if k.startswith("cc.")]
    assert creation and {a for a, _ in creation} == {"pc1"}, sorted({a for a, _ in asked})
    assert table.policy_for("pc2") == "scripted" and table.policy_for("pc1") == "human"
