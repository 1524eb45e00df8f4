"""Campaign persistence (rules/bloodberry.md §4.4, §6 SESSION_END, A15, G12): what one session hands the next."""

from __future__ import annotations

import json

from agent.scripted import ScriptedAgent
from engine.core import Session, load_scenario
from engine.core.replay import verify

SCENARIO = "scenarios/bloodberry/inoiri_dolls.yaml"


def _play(session: Session) -> dict:
    agent = ScriptedAgent()
    while not session.is_over:
        session.answer(agent.act(session.view()), policy=agent.name)
    assert session.outcome is not None
    return session.outcome


def test_a_session_hands_its_campaign_state_to_the_next():
    sc = load_scenario(SCENARIO)
    first = _play(Session(sc, seed=1))
    camp = first["campaign"]
    assert camp["sessions_played"] == 1 and camp["system"] == "bloodberry"
    aoi = camp["pcs"]["aoi"]
    assert set(aoi) >= {"full", "sublimated", "emotions", "absent_sessions"}
    assert camp["relations"], "scripted play raises relations"
    second = Session(sc, seed=2, options={"campaign": camp})
    t = second.game.t
    assert all(c.willpower == 1 for c in t.pcs())
    # full values and sublimations carry over; abilities are restored to full at the start (§4.1)
    assert t.chars["aoi"].full == aoi["full"]
    assert [s.id for s in t.chars["aoi"].skills if s.sublimated] == aoi["sublimated"]
    assert all(s.effect_available for s in t.chars["aoi"].skills if s.sublimated)
    for key, strength in camp["relations"].items():
        a, b = key.split("|")
        assert t.strength(a, b) == strength
    out = _play(second)
    assert out["campaign"]["sessions_played"] == 2
    # 気力 starts at 1 again (§4.3) and every sublimation effect is available (§7.3), whatever the last session left
    assert json.loads(json.dumps(out, ensure_ascii=False)) == out


def test_absence_counts_down_across_sessions(tmp_path):
    sc = load_scenario(SCENARIO)
    camp = _play(Session(sc, seed=1))["campaign"]
    camp["pcs"]["beni"]["absent_sessions"] = 2  # e.g. rolled 1D6 = 2 at the end of a session (A15 miss_n)
    s2 = Session(sc, seed=3, options={"campaign": camp}, log_path=tmp_path / "s2.jsonl")
    assert s2.game.t.chars["beni"].status == "absent"
    out2 = _play(s2)
    assert out2["pcs"]["beni"]["status"] == "absent"
    assert out2["campaign"]["pcs"]["beni"]["absent_sessions"] == 1
    # the absent PC never acts
    assert not any(getattr(e, "actor", None) == "beni" and e.type == "decision" for e in s2.events)
    verify(tmp_path / "s2.jsonl")  # the campaign data is in the header: replay is exact
    s3 = Session(sc, seed=4, options={"campaign": out2["campaign"]})
    assert s3.game.t.chars["beni"].status == "absent"
    out3 = _play(s3)
    assert out3["campaign"]["pcs"]["beni"]["absent_sessions"] == 0
    s4 = Session(sc, seed=5, options={"campaign": out3["campaign"]})
    assert s4.game.t.chars["beni"].status == "active"  # returns in the session after the N missed ones


def test_a_pc_at_zero_rolls_its_absence(tmp_path):
    from engine.systems.bloodberry.procedures import PROCEDURES

    assert "session_end" in PROCEDURES
    sc = load_scenario("engine/systems/bloodberry/examples/bloodberry_cast.yaml")
    s = Session(sc, seed=0, forced_dice=[4],
                options={"procedure": {"session_end": {}},
                         "setup": {"chars": {"aoi": {"abilities": {"grace": 0}, "full": {"grace": 2}, "status": "dropped"}}}})
    assert s.is_over
    assert s.outcome["result"]["aoi"] == 4


def test_cli_campaign_file_round_trip(tmp_path, monkeypatch):
    from pathlib import Path

    import yaml

    from agent.cli import main

    root = Path(__file__).resolve().parents[2]
    monkeypatch.chdir(root)
    camp = tmp_path / "camp.yaml"
    for i, scen in enumerate(("scenarios/bloodberry/inoiri_dolls.yaml", "scenarios/bloodberry/salt_festival.yaml",
                              "scenarios/bloodberry/inoiri_dolls.yaml"), 1):
        rc = main(["play", scen, "--seat", "all=scripted", "--seed", str(i), "--log", str(tmp_path / f"{i}.jsonl"),
                   "--campaign", str(camp), "--quiet"])
        assert rc == 0
        data = yaml.safe_load(camp.read_text(encoding="utf-8"))
        assert data["sessions_played"] == i
    # PCs of the first scenario are kept while the second scenario's table plays, and continue in the third
    assert {"aoi", "beni", "chika", "dora"} <= set(data["pcs"])
    assert len(data["pcs"]) > 4
