from __future__ import annotations

import json

import pytest

from agent.batch import runner
from agent.batch.runner import BatchError, run_batch, session_seeds

from .conftest import INOIRI, YOGARIBITO, comparable

CAPPED = {"max_combat_rounds": 1}


def test_seed_scheme():
    assert session_seeds(0, 3) == [0, 1, 2]
    assert session_seeds(2, 2) == [2_000_006, 2_000_007]


@pytest.fixture(scope="module")
def local_one():
    calls = []
    # one combat round at most: fights end at the cap, so the batch has stalled sessions to report
    agg = run_batch(YOGARIBITO, 30, ["all=scripted"], 0, jobs=1, chunk=7, progress=lambda d, t: calls.append((d, t)),
                    config=CAPPED)
    return agg.report(), calls


def test_local_batch_report(local_one, tmp_path):
    rep, calls = local_one
    assert rep["sessions"]["runs"] == 30 and rep["sessions"]["failed"] == 0
    assert calls[0] == (0, 30) and calls[-1] == (30, 30) and len(calls) == 1 + 5  # chunks of 7
    assert rep["stalled"]["count"] >= len(rep["stalled"]["items"]) >= 1  # the report lists the first seeds only
    assert all(a["seed"] < b["seed"] for a, b in zip(rep["stalled"]["items"], rep["stalled"]["items"][1:]))


def test_jobs_2_gives_the_same_numbers(local_one, tmp_path):
    rep, _ = local_one
    two = run_batch(YOGARIBITO, 30, ["all=scripted"], 0, jobs=2, chunk=4, problem_logs_dir=tmp_path / "logs",
                    config=CAPPED).report()
    assert comparable(two) == comparable(rep)
    assert json.dumps(comparable(two), sort_keys=True) == json.dumps(comparable(rep), sort_keys=True)
    # stalled sessions were re-run with a log
    logs = [x["log"] for x in two["stalled"]["items"] if "log" in x]
    assert logs and all((tmp_path / "logs").joinpath(p.rsplit("/", 1)[-1]).exists() for p in logs)


def test_dask_local_cluster_gives_the_same_numbers():
    pytest.importorskip("dask.distributed")
    local = run_batch(INOIRI, 20, ["all=scripted", "pcs=random"], 3, jobs=1).report()
    dask = run_batch(INOIRI, 20, ["all=scripted", "pcs=random"], 3, jobs=2, executor="dask", chunk=3).report()
    assert comparable(dask) == comparable(local)


def test_failures_are_recorded_and_the_batch_goes_on(monkeypatch, tmp_path):
    real = runner.play_one

    def flaky(path, seats, seed, **kw):
        if seed % 4 == 1:
            raise RuntimeError(f"boom {seed}")
        return real(path, seats, seed, **kw)

    monkeypatch.setattr(runner, "play_one", flaky)
    rep = run_batch(INOIRI, 8, ["all=scripted"], 0, problem_logs_dir=tmp_path).report()
    assert rep["sessions"]["runs"] == 8 and rep["failures"]["count"] == 2
    assert [(f["seed"], f["error"]) for f in rep["failures"]["items"]] == [(1, "RuntimeError: boom 1"), (5, "RuntimeError: boom 5")]
    assert any("raised an error" in w for w in rep["warnings"])


def test_decision_cap_stalls(tmp_path):
    rep = run_batch(INOIRI, 3, ["all=scripted"], 0, max_decisions=30, problem_logs_dir=tmp_path).report()
    assert rep["stalled"]["count"] == 3 and rep["caps"] == {"decision_cap": 3}
    assert [x["seed"] for x in rep["stalled"]["items"]] == [0, 1, 2]
    assert all((tmp_path / f"inoiri_dolls-{s}.jsonl").exists() for s in range(3))


def test_keep_logs(tmp_path):
    run_batch(INOIRI, 2, ["all=scripted"], 0, keep_logs_dir=tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["inoiri_dolls-0.jsonl", "inoiri_dolls-1.jsonl"]


@pytest.mark.parametrize("kw, msg", [
    ({"runs": 0}, "--runs"),
    ({"jobs": 0}, "--jobs"),
    ({"seats": ["pcs=human"]}, "no humans"),
    ({"seats": ["gm=llm"]}, "seats an LLM"),
    ({"seats": ["nobody=random"]}, "not at this table"),
    ({"executor": "spark"}, "unknown executor"),
])
def test_bad_arguments(kw, msg):
    args = {"runs": 2, "seats": ["all=scripted"], "jobs": 2} | kw
    with pytest.raises(BatchError, match=msg):
        run_batch(INOIRI, args.pop("runs"), args.pop("seats"), 0, **args)
