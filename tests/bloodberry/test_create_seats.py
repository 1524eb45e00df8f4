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
    first, second = s.game.creating_ids[:2]
    assert creation and {a for a, _ in creation} == {first}, sorted({a for a, _ in asked})
    assert table.policy_for(second) == "scripted" and table.policy_for(first) == "human"


def test_create_builds_the_scenarios_pcs_under_their_ids():
    """`--create` on a scenario whose camps and scenes name its PCs: the PCs are built anew under those ids (the
    created pc1..pcN ended salt_festival in `KeyError: 'nagisa'` at the flag map)."""
    from agent.scripted import ScriptedAgent

    sc = load_scenario("scenarios/bloodberry/salt_festival.yaml")
    for seed in (1, 2):
        s = Session(sc, seed, options={"create_pcs": True})
        agent = ScriptedAgent()
        while not s.is_over:
            s.answer(agent.act(s.view()))
        assert s.game.creating_ids == [p.id for p in sc.model.pcs]
        assert set(s.outcome["pcs"]) == {p.id for p in sc.model.pcs}
