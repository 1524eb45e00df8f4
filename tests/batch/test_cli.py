from __future__ import annotations

import json

import pytest


from .conftest import INOIRI, run


def test_playtest_end_to_end(capsys, tmp_path):
    out = tmp_path / "r"
    code, stdout, err = run(capsys, "playtest", INOIRI, "--runs", 3, "--seat", "all=scripted", "--seat", "pcs=random",
                            "--seed", 5, "--out", out)
    assert code == 0, err
    assert (out / "report.json").exists() and (out / "report.html").exists()
    rep = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert rep["sessions"]["runs"] == 3
    assert rep["run"]["seats"] == ["all=scripted", "pcs=random"] and rep["run"]["seed"] == 5
    assert "report.html" in stdout and "sessions/s" in stdout


def test_playtest_keep_logs_quiet(capsys, tmp_path):
    code, stdout, err = run(capsys, "playtest", INOIRI, "--runs", 2, "--out", tmp_path, "--keep-logs", "--quiet")
    assert code == 0 and stdout == ""
    assert len(list((tmp_path / "logs").glob("*.jsonl"))) == 2


@pytest.mark.parametrize("extra, msg", [
    (["--runs", "0"], "--runs"),
    (["--runs", "2", "--jobs", "0"], "--jobs"),
    (["--runs", "2", "--seat", "pcs=human"], "no humans"),
    (["--runs", "2", "--seat", "gm=llm", "--executor", "dask"], "cannot seat LLMs"),
    (["--runs", "2", "--config", "heal_cap"], "KEY=VALUE"),
    (["--runs", "2", "--config", "heal_cap=bogus"], "--config heal_cap=bogus: invalid configuration"),
    (["--runs", "2", "--config", "no_such_flag=1"], "no_such_flag"),
    (["--runs", "2", "--seat", "bad"], "ROLE=POLICY"),
    (["--runs", "2", "--seat", "nobody=random"], "not at this table"),
    (["--runs", "2", "--scheduler", "tcp://127.0.0.1:1"], "--executor dask"),
    (["--runs", "2", "--executor", "spark"], "invalid choice"),
    (["--runs", "two"], "invalid int"),
])
def test_playtest_bad_arguments(capsys, tmp_path, extra, msg):
    code, stdout, err = run(capsys, "playtest", INOIRI, "--out", tmp_path / "r", *extra)
    assert code == 2
    assert msg in err and "Traceback" not in err and "\n" not in err.strip()
    assert not (tmp_path / "r" / "report.json").exists()


def test_playtest_missing_out_and_bad_scenario(capsys, tmp_path):
    code, _, err = run(capsys, "playtest", INOIRI, "--runs", "2")
    assert code == 2 and "--out" in err
    code, _, err = run(capsys, "playtest", tmp_path / "nope.yaml", "--runs", "2", "--out", tmp_path / "r")
    assert code == 2 and "nope.yaml" in err


def test_playtest_all_failed_is_an_error(capsys, tmp_path, monkeypatch):
    from agent.batch import runner

    def broken(*a, **k):
        raise RuntimeError("rules bug")

    monkeypatch.setattr(runner, "play_one", broken)
    code, _, err = run(capsys, "playtest", INOIRI, "--runs", "2", "--out", tmp_path, "--quiet")
    assert code == 2 and "every session failed" in err and "rules bug" in err and "\n" not in err.strip()
    assert (tmp_path / "report.html").exists()
