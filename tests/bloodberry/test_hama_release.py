"""A20 / §9.2 破魔: "the user may release the block at any time (before the next decrement)". The engine offered the
release only at the start of the target's turn actions; now also at the user's own turns, between scenes (see the
HAMA-* cases of examples/bloodberry_skills.yaml) and at each 20-minute unit of its camp on a flag map (here). Only a
user holding a block is asked."""

from __future__ import annotations

from agent.scripted import ScriptedAgent
from engine.core import Session, load_scenario

CAST = load_scenario("engine/systems/bloodberry/examples/bloodberry_cast.yaml")
MAP = {
    "id": "m", "title": "地図",
    "camps": [{"id": "a", "members": ["aoi", "chika"]}, {"id": "b", "members": ["beni"]}],
    "places": [{"id": "p1", "name": "一", "condition": [{"colour": "red"}, {"colour": "black"}], "flag": "f1"},
               {"id": "p2", "name": "二", "condition": [{"min": 5}], "flag": "f2"}],
    "flags": [{"id": "f1", "name": "F1"}, {"id": "f2", "name": "F2", "kind": "end", "requires": ["f1"]}],
}


def _play(release_at: int | None) -> tuple[Session, list[tuple[str, str]]]:
    s = Session(CAST, seed=3, options={"procedure": {"flag_map": MAP}, "setup": {"hama": {"chika|ningyo": "doubt"}}})
    agent = ScriptedAgent()
    asked: list[tuple[str, str]] = []
    while not s.is_over:
        d = s.pending
        if d.kind == "sk.hama":
            asked.append((d.actor, f"{d.context['when']}@{s.game.fm.unit if s.game.fm is not None else '-'}"))
            if release_at is not None and len(asked) == release_at:
                s.answer(d.check("release"))
                continue
        s.answer(agent.act(s.view()))
    return s, asked


def test_a_block_holder_may_release_at_each_unit_of_her_camp_on_a_flag_map():
    s, asked = _play(None)
    assert asked and {a for a, _ in asked} == {"chika"}, asked  # only the holder, never her camp mate or the rival
    units = [w for _, w in asked if w.startswith("flag_map@")]
    assert len(units) >= 2 and units == [f"flag_map@{i}" for i in range(1, len(units) + 1)], asked  # each unit, once
    assert any(w.startswith("between_scenes@") for _, w in asked), asked  # the flag events' between-scenes too
    assert s.game.t.hama == {("chika", "ningyo"): "doubt"}  # kept: the scripted default (§8 sk.hama: not)

    s, asked = _play(2)
    assert ("chika", "ningyo") not in s.game.t.hama
    assert len(asked) == 2  # released: nothing left to ask
    release = [e for e in s.events if e.type == "state" and e.path == "hama.chika|ningyo"]
    assert [(e.old, e.new) for e in release] == [("doubt", None)]
