"""``--config`` in batch runs (playtest and compare) and LLM seats in ``trpg playtest`` (no network: FunctionModels)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agent.batch.compare import compare, parse_policies
from agent.batch.report import add_replay_commands, write_report
from agent.batch.runner import BatchError, config_args, replay_command, run_batch
from agent.cli import _config_value
from agent.llm import LLMAgent
from agent.models.testing import FunctionModel

from .conftest import INOIRI, comparable, fake_llm_agent, first_choice, run

#: a bloodberry rule option (A9) that changes how these sessions play out
EACH = {"passive_raise_count_mode": "each"}


def test_config_reaches_every_session(tmp_path):
    default = run_batch(INOIRI, 4, ["all=scripted"], 0).report()
    each = run_batch(INOIRI, 4, ["all=scripted"], 0, config=EACH, keep_logs_dir=tmp_path).report()
    assert each["decisions"] != default["decisions"] and each["rules"] != default["rules"]
    header = json.loads((tmp_path / "inoiri_dolls-0.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert header["type"] == "header" and header["config"] == EACH


def test_bad_config_is_refused_before_any_session(monkeypatch):
    from agent.batch import runner

    def never(*a: Any, **k: Any) -> None:
        raise AssertionError("a session ran")

    monkeypatch.setattr(runner, "play_one", never)
    with pytest.raises(BatchError, match=r"--config heal_cap=bogus: invalid configuration .*`heal_cap`"):
        run_batch(INOIRI, 2, config={"heal_cap": "bogus"})
    with pytest.raises(BatchError, match="no_such_flag"):
        compare(INOIRI, parse_policies(["a:all=scripted", "b:all=scripted,pcs=random"]), 1, config={"no_such_flag": 1})


def test_replay_command_round_trips_the_config():
    cfg = {"passive_raise_count_mode": "each", "judge_grant_enabled": False, "hours_per_scene": 2, "face_card_numeric": None}
    cmd = replay_command("s.yaml", ["all=scripted", "pcs=random"], 7, cfg)
    assert cmd == ("trpg play s.yaml --seat all=scripted --seat pcs=random --config passive_raise_count_mode=each "
                   "--config judge_grant_enabled=false --config hours_per_scene=2 --config face_card_numeric=null "
                   "--seed 7 --log replay-7.jsonl")
    assert {k: _config_value(v) for k, v in (a.split("=", 1) for a in config_args(cfg))} == cfg


def test_cli_playtest_config_in_report_and_replay(capsys, tmp_path):
    out = tmp_path / "r"
    code, _, err = run(capsys, "playtest", INOIRI, "--runs", 3, "--config", "passive_raise_count_mode=each", "--out", out,
                       "--quiet")
    assert code == 0, err
    rep = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert rep["run"]["config"] == EACH
    replay = rep["decisions"]["longest"][0]["replay"]
    assert "--config passive_raise_count_mode=each" in replay and f"--seed {rep['decisions']['longest'][0]['seed']}" in replay
    html = (out / "report.html").read_text(encoding="utf-8")
    assert html.count("--config passive_raise_count_mode=each") >= 2  # the run table and the replay commands
    code, _, err = run(capsys, "playtest", INOIRI, "--runs", 1, "--out", tmp_path / "d", "--quiet")
    assert code == 0 and json.loads((tmp_path / "d" / "report.json").read_text(encoding="utf-8"))["run"]["config"] == {}
    assert "scenario defaults" in (tmp_path / "d" / "report.html").read_text(encoding="utf-8")


def test_cli_compare_config(capsys, tmp_path):
    code, _, err = run(capsys, "compare", INOIRI, "--policy", "a:all=scripted", "--policy", "b:all=scripted,pcs=random",
                       "--runs", 2, "--config", "passive_raise_count_mode=each", "--out", tmp_path, "--quiet")
    assert code == 0, err
    res = json.loads((tmp_path / "compare.json").read_text(encoding="utf-8"))
    assert res["run"]["config"] == EACH
    assert "passive_raise_count_mode=each" in (tmp_path / "compare.html").read_text(encoding="utf-8")
    base = compare(INOIRI, parse_policies(["a:all=scripted", "b:all=scripted,pcs=random"]), 2, config=EACH)
    assert res["policies"] == base["policies"]
    code, _, err = run(capsys, "compare", INOIRI, "--policy", "a:all=scripted", "--policy", "b:all=scripted,pcs=random",
                       "--runs", 2, "--config", "heal_cap=bogus", "--out", tmp_path / "x")
    assert code == 2 and "--config heal_cap=bogus" in err and "Traceback" not in err and "\n" not in err.strip()


def test_dask_with_config_gives_the_same_report():
    pytest.importorskip("dask.distributed")
    local = run_batch(INOIRI, 6, ["all=scripted"], 1, config=EACH).report()
    dask = run_batch(INOIRI, 6, ["all=scripted"], 1, jobs=2, executor="dask", chunk=2, config=EACH).report()
    assert comparable(dask) == comparable(local)
    assert comparable(local) != comparable(run_batch(INOIRI, 6, ["all=scripted"], 1).report())


def test_llm_seat_playtest_accounting(tmp_path):
    made: list[str] = []

    def factory(policy: str) -> LLMAgent:
        made.append(policy)
        return fake_llm_agent(policy)

    agg = run_batch(INOIRI, 3, ["all=scripted", "gm=llm:fake"], 4, jobs=2, llm=factory, config=EACH,
                    problem_logs_dir=tmp_path)
    assert made == ["llm:fake"]  # one agent (one model client) for every session
    rep = agg.report()
    assert rep["sessions"]["runs"] == 3 and rep["sessions"]["failed"] == 0
    acc = rep["llm"]
    assert acc["calls"] > 0 and acc["tokens"] == acc["prompt_tokens"] + acc["completion_tokens"] > 0
    assert acc["median_latency_s"] is not None and acc["llm_seat_decisions"] > 0
    assert acc["illegal_per_100_decisions"] == pytest.approx(
        100 * (acc["illegal"] + acc["invalid"]) / acc["llm_seat_decisions"], abs=1e-6)
    assert {"reasks", "fallbacks", "decisions"} <= set(acc)
    # logs of sessions that ended normally are not kept
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        f"inoiri_dolls-{x['seed']}.jsonl" for x in rep["stalled"]["items"])
    rep["run"] = {"seats": ["all=scripted", "gm=llm:fake"], "config": EACH}
    add_replay_commands(rep)
    html = write_report(rep, tmp_path / "out")["html"].read_text(encoding="utf-8")
    assert 'id="llm"' in html and "median latency" in html and "per 100 LLM decisions" in html
    with pytest.raises(BatchError, match="cannot seat LLMs"):
        run_batch(INOIRI, 2, ["all=scripted", "gm=llm:fake"], llm=factory, executor="dask")


def test_cli_playtest_llm_seat(capsys, tmp_path, monkeypatch):
    import agent.models.config as config

    monkeypatch.setattr(config, "make_model", lambda settings: FunctionModel(first_choice, name="fake"))
    out = tmp_path / "r"
    code, stdout, err = run(capsys, "playtest", INOIRI, "--seat", "all=scripted", "--seat", "gm=llm", "--runs", 2,
                            "--jobs", 2, "--out", out, "--llm-model", "fake", "--llm-base-url", "http://127.0.0.1:9/v1")
    assert code == 0, err
    rep = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert rep["run"]["seats"] == ["all=scripted", "gm=llm:fake"] and "in this process" in rep["run"]["note"]
    assert rep["llm"]["calls"] > 0 and rep["llm"]["llm_seat_decisions"] > 0
    assert "LLM accounting" in (out / "report.html").read_text(encoding="utf-8")
    assert "LLM:" in stdout and "calls" in stdout
    code, _, err = run(capsys, "playtest", INOIRI, "--seat", "gm=llm", "--runs", 2, "--executor", "dask",
                       "--out", tmp_path / "d", "--llm-model", "fake", "--llm-base-url", "http://127.0.0.1:9/v1")
    assert code == 2 and "cannot seat LLMs" in err and "\n" not in err.strip()
