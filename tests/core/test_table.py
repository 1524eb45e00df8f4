from __future__ import annotations

import asyncio

import pytest

from agent.scripted import ScriptedAgent
from agent.table import SeatError, SeatSpec, Table, TableError, run_many
from engine.core import Session, load_scenario
from engine.core.events import InfoEvent


def test_parse_and_later_entries_override():
    spec = SeatSpec.parse(["gm=scripted", "pcs=random", "aoi=human", "all=scripted"])
    assert spec.policy_for("aoi", "pc") == "scripted"  # all= came last
    spec = SeatSpec.parse(["all=scripted", "pcs=random", "aoi=human"])
    assert spec.policy_for("aoi", "pc") == "human"
    assert spec.policy_for("beni", "pc") == "random"
    assert spec.policy_for("gm", "gm") == "scripted"
    assert spec.policy_for("npc1", "npc") == "scripted"


def test_a_repeated_role_moves_to_the_end():
    spec = SeatSpec.parse(["pcs=random", "aoi=human", "pcs=scripted"])
    assert spec.entries == (("aoi", "human"), ("pcs", "scripted"))
    assert spec.policy_for("aoi", "pc") == "scripted"


def test_aliases_and_npcs():
    spec = SeatSpec.parse(["npc=random", "pc=human"])
    assert spec.policy_for("ningyo", "npc") == "random" and spec.policy_for("aoi", "pc") == "human"


def test_default_is_first_pc_human():
    spec = SeatSpec.default()
    assert spec.policy_for("aoi", "pc", first_pc="aoi") == "human"
    assert spec.policy_for("beni", "pc", first_pc="aoi") == "scripted"
    assert spec.policy_for("gm", "gm", first_pc="aoi") == "scripted"


@pytest.mark.parametrize("bad", ["gm", "=random", "gm=", "gm=genius"])
def test_bad_seats(bad):
    with pytest.raises(SeatError, match="bad seat"):
        SeatSpec.parse([bad])


def test_header_round_trip():
    spec = SeatSpec.parse(["all=scripted", "pcs=random"])
    assert SeatSpec.from_header(spec.to_header()) == spec
    assert SeatSpec.from_header({}) == SeatSpec.default()


def test_table_seats_agents_by_role(toy_path):
    s = Session(load_scenario(toy_path), 2)
    seen = []

    class Spy:
        def __init__(self, name):
            self.name = name

        def act(self, view):
            seen.append((view.actor, self.name))
            return ScriptedAgent().act(view)

    Table(s, SeatSpec.parse(["all=scripted", "first_pc=random"]), lambda policy, actor: Spy(policy)).run()
    assert ("aoi", "random") in seen and ("gm", "scripted") in seen and ("npc1", "scripted") in seen
    assert s.is_over


def test_illegal_answers_are_reasked_then_fall_back(toy_path):
    s = Session(load_scenario(toy_path), 2)
    asked = []
    told = []

    class Stubborn:
        name = "stubborn"

        def act(self, view):
            asked.append(view.decision.seq)
            return "nowhere"

        def notify_illegal(self, err):
            told.append(err.problem)

    t = Table(s, SeatSpec.parse(["all=scripted", "gm=x"], policies=None),
              lambda policy, actor: Stubborn() if policy == "x" else ScriptedAgent())
    t.run()
    assert asked.count(0) == 3 and len(told) == 9 and t.fallbacks == 3
    infos = [e for e in s.events if isinstance(e, InfoEvent) and e.topic == "fallback"]
    assert len(infos) == 3 and infos[0].data["policy"] == "stubborn" and "not a legal option" in infos[0].data["error"]


def test_safety_cap(toy_path):
    s = Session(load_scenario(toy_path), 2)
    with pytest.raises(TableError, match="after 4 decisions"):
        Table(s, SeatSpec.parse(["all=scripted"]), max_decisions=4).run()


def test_observer_sees_every_event_once(toy_path):
    s = Session(load_scenario(toy_path), 2)
    got = []
    Table(s, SeatSpec.parse(["all=scripted"]), observer=got.extend).run()
    assert got == s.events


def test_run_many_matches_sequential_runs(toy_path):
    seats = SeatSpec.parse(["all=random"])
    sc = load_scenario(toy_path)
    outcomes = asyncio.run(run_many([Session(sc, seed) for seed in range(12)], seats, limit=4))
    expected = []
    for seed in range(12):
        s = Session(sc, seed)
        expected.append(Table(s, seats).run())
    assert outcomes == expected


def test_async_agents_are_awaited(toy_path):
    class AsyncScripted:
        name = "async"

        async def act_async(self, view):
            await asyncio.sleep(0)
            return ScriptedAgent().act(view)

        def act(self, view):  # pragma: no cover - must not be used
            raise AssertionError("act_async should be used")

    s = Session(load_scenario(toy_path), 2)
    out = asyncio.run(Table(s, SeatSpec.parse(["all=a"], policies=None), lambda p, a: AsyncScripted()).run_async())
    assert out == s.outcome and s.is_over
