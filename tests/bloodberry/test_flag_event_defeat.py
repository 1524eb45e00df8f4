"""§6: a confrontation defeat goes to ENDING (``all PCs dropped (or confrontation defeat) ─▶ ENDING``), wherever the
confrontation is played, a flag-map flag event included (§7.6: a raised flag's event is played as a scene).

Two PC camps race on the salt festival's flag map and every flag event is a confrontation with the salt curse; the
PCs are frail (1/1/1). The engine used to carry on after a camp's defeat in a flag event: the other camp went on
placing cards, raised the next flag and started another confrontation (the machine even drew cf_defeat → setup)."""

from __future__ import annotations

from pathlib import Path

import yaml

from agent.scripted import ScriptedAgent
from engine.core import Session, load_scenario
from engine.systems.bloodberry.coverage import FRAIL, _flag_event_confrontations

ROOT = Path(__file__).resolve().parents[2]
SALT = ROOT / "scenarios" / "bloodberry" / "salt_festival.yaml"


def _play(path: Path, seed: int) -> Session:
    sc = load_scenario(path)
    s = Session(sc, seed, options=dict(FRAIL(sc)))
    agent = ScriptedAgent()
    while not s.is_over:
        s.answer(agent.act(s.view()))
    return s


def test_a_confrontation_defeat_in_a_flag_event_ends_the_session(tmp_path):
    raw = yaml.safe_load(SALT.read_text(encoding="utf-8"))
    _flag_event_confrontations(raw)
    path = tmp_path / "flag_event_confrontations.yaml"
    path.write_text(yaml.safe_dump(raw, allow_unicode=True), encoding="utf-8")
    defeats = 0
    for seed in range(8):
        s = _play(path, seed)
        events = s.events
        ends = [i for i, e in enumerate(events) if e.type == "info" and e.topic == "confrontation_end"]
        lost = [i for i in ends if events[i].data.get("result") == "defeat"]
        if not lost:
            continue
        defeats += 1
        after = events[lost[0] + 1:]
        assert not [e for e in after if e.type == "info" and e.topic in ("confrontation", "flag_event")], (
            f"seed {seed}: play went on after the defeat")
        assert not [e for e in after if e.type == "state" and e.path.startswith("flag.")], seed
        phases = [(e.machine, e.trigger) for e in after if e.type == "phase" and e.machine == "session"]
        assert phases[:2] == [("session", "to_ending"), ("session", "finish")], (seed, phases)
        assert s.outcome["ending"] == "defeat", (seed, s.outcome["ending"])
        event = [e for e in events[:lost[0]] if e.type == "info" and e.topic == "flag_event"][-1]
        expected = "end_flag" if event.data["end"] else "defeat"  # the end flag's own event: the map had ended
        assert s.game.result["flag_maps"]["relics"]["result"] == expected, seed
    assert defeats >= 1, "no seed lost a flag event's confrontation: the test no longer tests anything"
