"""``trpg fuzz sessions``: a small fixed-seed run passes; the command it prints replays a session byte for byte; a
broken invariant fails the run with its seed and that command."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from agent.cli import main
from agent.fuzz import checks, sessions
from agent.fuzz.common import (
    Tally, case_rng, config_overrides, draw_config, flag_choices, is_safety_cap, samples, scenario_config,
)
from engine.core.registry import systems
from engine.core.scenario import load_scenario

N = len(samples())


def test_a_small_run_passes_every_check(fuzz):
    rc, text, summary = fuzz("sessions", "--runs", str(N), "--seed", "2", "--rerun-every", "2")
    assert rc == 0, text
    c = summary["counts"]
    assert c["sessions"] == N and c["replays_verified"] == N and c["reruns_identical"] == (N + 1) // 2
    assert c["checked_decisions"] == c["decisions"] > 0
    assert summary["ok"] and "ok: no failure" in text
    assert summary["maxima"]["max_event_bytes"]["value"] <= sessions.MAX_EVENT_BYTES


def test_the_printed_command_replays_the_session(tmp_path: Path, capsys):
    """The ``trpg play`` command of a case (random seats and rule options) writes the very log the fuzzer played."""
    index = 3
    fuzz_log = tmp_path / "fuzz.jsonl"
    planned = sessions.plan(sessions.SessionsParams(), index, Tally(), fuzz_log)
    assert planned is not None
    case, session = planned
    sessions.CheckedTable(session, sessions._seat_spec(case.seats), None, lambda: None, 100_000).run()
    session.close()
    play = tmp_path / "play.jsonl"
    argv = shlex.split(case.command(str(play)))
    assert argv[:2] == ["trpg", "play"]
    assert main([*argv[1:], "--quiet"]) == 0
    capsys.readouterr()
    assert play.read_bytes() == fuzz_log.read_bytes()


def test_a_broken_invariant_fails_with_the_seed_and_the_command(fuzz, monkeypatch):
    class Broken(checks.DecisionChecker):
        def check(self, d):
            if d.seq >= 3:
                raise checks.Violation("system invariant", ["planted"], d.seq, d.kind)
            super().check(d)

    monkeypatch.setattr(sessions, "DecisionChecker", Broken)
    rc, text, summary = fuzz("sessions", "--case", "1", "--seed", "5")
    assert rc == 1
    f = summary["failures"][0]
    assert f["kind"] == "invariant" and f["seq"] == 3 and "planted" in f["message"]
    assert f["seed"] == 5 * 1_000_003 + 1
    assert f["command"].startswith("trpg play ") and f"--seed {f['seed']}" in f["command"]
    assert "trpg fuzz sessions --seed 5 --case 1" in text and f["command"] in text


def test_again_plays_the_recorded_failures_exactly(fuzz, monkeypatch, tmp_path: Path, capsys):
    """``--again FILE`` plays each failing case of a summary as recorded (not as ``--case`` would draw it now), with
    every check; once the planted fault is gone the same cases pass; a bad file is refused naming it."""
    import json

    class Broken(checks.DecisionChecker):
        def check(self, d):
            if d.seq >= 3:
                raise checks.Violation("system invariant", ["planted"], d.seq, d.kind)
            super().check(d)

    with monkeypatch.context() as m:
        m.setattr(sessions, "DecisionChecker", Broken)
        rc, _, first = fuzz("sessions", "--case", "1", "--case", "2", "--seed", "5")
    assert rc == 1 and [f["case"] for f in first["failures"]] == [1, 2]
    old = tmp_path / "old.json"
    old.write_text(json.dumps(first), encoding="utf-8")
    rc, text, again = fuzz("sessions", "--again", str(old))
    assert rc == 0, text
    assert again["counts"]["sessions"] == 2 and again["counts"]["replays_verified"] == 2
    rc, text, one = fuzz("sessions", "--again", str(old), "--case", "2")
    assert rc == 0 and one["counts"]["sessions"] == 1, text
    # the recorded case wins over what the case number draws today
    rec = {**first["failures"][0], "config": {}, "seats": ["all=scripted"], "create": False}
    old.write_text(json.dumps({"failures": [rec]}), encoding="utf-8")
    assert dict(sessions.load_again(old))[1] == (("seed", rec["seed"]), ("scenario", rec["scenario"]),
                                                 ("seats", ("all=scripted",)), ("config", ()), ("create", False))
    old.write_text(json.dumps({"failures": [{**rec, "seed": "x"}]}), encoding="utf-8")
    with pytest.raises(sessions.AgainError, match=r"old.json: failures\[0\].seed"):
        sessions.load_again(old)
    ok = tmp_path / "ok.json"
    ok.write_text(json.dumps({"failures": [rec]}), encoding="utf-8")
    assert main(["fuzz", "sessions", "--again", str(ok), "--case", "9", "--quiet"]) == 2
    assert "ok.json: no failure of case 9 (its failing cases: 1)" in capsys.readouterr().err


@pytest.mark.parametrize("info", systems(), ids=lambda s: s.id)
def test_rule_options_are_drawn_from_what_the_config_model_allows(info):
    choices = flag_choices(info.config_model)
    assert choices, f"{info.id}: no flag with a closed set of values"
    for name, f in info.config_model.model_fields.items():
        if is_safety_cap(f) and name in choices:  # drawn up to its default only: above it a session just gets longer
            assert max(choices[name]) == f.default and min(choices[name]) == f.metadata[0].ge, name
    for path in info.sample_scenarios:
        sc = load_scenario(path)
        base = scenario_config(sc)
        for i in range(20):
            drawn, _ = draw_config(sc, case_rng("test", 0, i))
            assert set(drawn) <= set(choices)
            info.config_model.model_validate({**base, **drawn})  # never a combination the model refuses
            assert config_overrides(base, drawn) == drawn  # only what differs from the scenario's own options


def test_every_system_invariant_holds_after_a_scripted_session():
    from agent.scripted import ScriptedAgent
    from engine.core.session import Session

    for info in systems():
        if info.invariants is None:
            continue
        for path in info.sample_scenarios:
            s = Session(load_scenario(path), 1)
            agent = ScriptedAgent()
            while not s.is_over:
                assert info.invariants(s.game, s.pending) == []
                s.answer(agent.act(s.view()))
            assert info.invariants(s.game, None) == []


def test_a_secret_seen_by_someone_outside_its_holders_is_a_violation():
    """The seat-view check itself: a GM secret put into a PC's observation is caught."""
    from agent.scripted import ScriptedAgent
    from engine.core.session import Session
    from engine.core.visibility import Secret

    path = samples()[0].path
    s = Session(load_scenario(path), 1)
    agent = ScriptedAgent()
    while s.pending.actor == "gm":
        s.answer(agent.act(s.view()))
    d = s.pending
    secret = "the butler did it, 秘密の一文"
    s.game.secrets = lambda: [Secret.of(secret, "gm")]
    real = s.game.observation
    s.game.observation = lambda actor: {**real(actor), "leak": secret}
    checker = checks.DecisionChecker(s, None)
    with pytest.raises(checks.Violation, match="seat view leak"):
        checker.check(d)
