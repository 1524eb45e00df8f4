"""``trpg compare``: paired comparison of seat policies on the same seeds (no network: LLMs are FunctionModels)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agent.batch.compare import CompareError, compare, parse_policies, parse_policy, paired_diff, render_html, table_rows
from agent.batch.export import validate_line
from agent.batch.runner import session_seeds
from agent.llm import LLMAgent
from agent.models.testing import FunctionModel

from .conftest import INOIRI, fake_llm_agent, first_choice, run

BASE = "base:all=scripted"
RND = "rnd:all=scripted,pcs=random"


@pytest.fixture(scope="module")
def scripted_vs_random() -> dict[str, Any]:
    return compare(INOIRI, parse_policies([BASE, RND]), 40, seed=3, jobs=1)


def test_parse_policy():
    p = parse_policy("rnd:all=scripted, pcs=random")
    assert p.name == "rnd" and p.seats == ("all=scripted", "pcs=random") and not p.uses_llm
    q = parse_policy("m:all=scripted,pcs=llm:qwen")
    assert q.seats == ("all=scripted", "pcs=llm:qwen") and q.uses_llm
    for bad in ("base", "base:", ":all=scripted", "x:all", "x:all=nope", "x:pcs=human"):
        with pytest.raises(CompareError):
            parse_policy(bad)
    with pytest.raises(CompareError, match="given twice"):
        parse_policies([BASE, BASE])
    with pytest.raises(CompareError, match="at least two"):
        parse_policies([BASE])


def test_scripted_vs_random_table_with_intervals(scripted_vs_random):
    r = scripted_vs_random
    base, rnd = r["policies"]
    assert base["sessions"]["runs"] == rnd["sessions"]["runs"] == 40
    for pol in (base, rnd):
        total = sum(v["count"] for k, v in pol["binary"].items() if k.startswith("ending "))
        assert total == 40
        for row in pol["binary"].values():
            assert 0.0 <= row["ci"][0] <= row["rate"] <= row["ci"][1] <= 1.0
        dec = pol["numeric"]["decisions"]
        assert dec["n"] == 40 and dec["ci"][0] <= dec["mean"] <= dec["ci"][1]
    (pair,) = r["paired"]
    assert pair["policy"] == "rnd" and pair["vs"] == "base"
    v = pair["binary"]["ending victory"]
    b, c = v["discordant"]
    assert v["diff"] == pytest.approx((c - b) / 40) and -1.0 <= v["ci"][0] <= v["diff"] <= v["ci"][1] <= 1.0
    assert v["diff"] == pytest.approx(rnd["binary"]["ending victory"]["rate"] - base["binary"]["ending victory"]["rate"])
    d = pair["numeric"]["decisions"]
    assert d["n"] == 40 and d["diff"] == pytest.approx(rnd["numeric"]["decisions"]["mean"] - base["numeric"]["decisions"]["mean"])
    assert any("at end (sum over PCs)" in k for k in pair["numeric"])
    header, rows = table_rows(r)
    assert header == ["metric", "base", "rnd", "Δ rnd − base"]
    assert any(row[0] == "ending victory" and "[" in row[1] and "pp" in row[3] for row in rows)
    html = render_html(r)
    assert "<style>" in html and "http" not in html.replace("http-equiv", "")


def test_same_numbers_for_one_and_two_jobs(scripted_vs_random):
    two = compare(INOIRI, parse_policies([BASE, RND]), 40, seed=3, jobs=2)
    assert json.dumps(two, sort_keys=True) == json.dumps(scripted_vs_random, sort_keys=True)


def test_a_policy_against_itself_is_exactly_zero():
    r = compare(INOIRI, parse_policies(["a:all=scripted,pcs=random", "b:all=scripted,pcs=random"]), 6, seed=1)
    (pair,) = r["paired"]
    for row in [*pair["binary"].values(), *pair["numeric"].values()]:
        assert row["diff"] == 0.0 and row["ci"] == [0.0, 0.0]
    assert paired_diff([1.0, 0.0, 2.0], [1.0, 0.0, 2.0]) == {"n": 3, "diff": 0.0, "ci": [0.0, 0.0]}


def test_paired_diff_skips_missing_pairs():
    nan = float("nan")
    d = paired_diff([1.0, nan, 3.0, 5.0], [2.0, 4.0, nan, 7.0])
    assert d["n"] == 2 and d["diff"] == 1.5 and d["ci"][0] < 1.5 < d["ci"][1]


def test_export_decisions(tmp_path):
    out = tmp_path / "decisions.jsonl"
    r = compare(INOIRI, parse_policies([BASE, RND]), 3, seed=2, jobs=2, chunk=1, export_decisions=out)
    lines = out.read_text(encoding="utf-8").splitlines()
    total = sum(p["numeric"]["decisions"]["mean"] * p["numeric"]["decisions"]["n"] for p in r["policies"])
    assert len(lines) == r["exported_decisions"] == round(total)  # the means are rounded
    recs = [validate_line(x) for x in lines]
    seeds = session_seeds(2, 3)
    # seed by seed, the policies in order, decisions in order: the same file for any number of workers
    order = [(seeds.index(x.seed), ["base", "rnd"].index(x.policy)) for x in recs]
    assert order == sorted(order)
    assert {x.answered_by for x in recs if x.policy == "rnd" and x.role == "pc"} == {"random"}
    assert all(x.observation for x in recs)
    assert not (tmp_path / "decisions.jsonl.parts").exists()
    one = tmp_path / "one.jsonl"
    compare(INOIRI, parse_policies([BASE, RND]), 3, seed=2, jobs=1, export_decisions=one)
    assert one.read_bytes() == out.read_bytes()


def test_llm_policy_accounting():
    made: list[str] = []

    def factory(policy: str) -> LLMAgent:
        made.append(policy)
        return fake_llm_agent(policy)

    r = compare(INOIRI, parse_policies([BASE, "m:all=scripted,gm=llm:fake"]), 2, seed=4, jobs=2, llm={"m": factory})
    assert made == ["llm:fake"]  # one agent (one model client) for every session of the policy
    base, m = r["policies"]
    assert "llm" not in base
    acc = m["llm"]
    assert acc["calls"] > 0 and acc["prompt_tokens"] > 0 and acc["tokens"] == acc["prompt_tokens"] + acc["completion_tokens"]
    assert acc["median_latency_s"] is not None and acc["illegal_per_100_decisions"] >= 0
    assert acc["decisions"] == m["numeric"]["decisions"]["mean"] * 2
    assert acc["llm_seat_decisions"] > 0 and acc["illegal_per_100_decisions"] == pytest.approx(
        100 * (acc["illegal"] + acc["invalid"]) / acc["llm_seat_decisions"], abs=1e-6)


def test_llm_sessions_run_concurrently_with_the_same_results(tmp_path):
    factory = fake_llm_agent
    pols = parse_policies([BASE, "m:all=scripted,gm=llm:fake"])
    one = compare(INOIRI, pols, 3, seed=4, jobs=1, llm={"m": factory}, export_decisions=tmp_path / "one.jsonl")
    three = compare(INOIRI, pols, 3, seed=4, jobs=3, llm={"m": factory}, export_decisions=tmp_path / "three.jsonl")
    for r in (one, three):
        r["policies"][1]["llm"].pop("median_latency_s")
    assert json.dumps(one, sort_keys=True) == json.dumps(three, sort_keys=True)
    assert (tmp_path / "one.jsonl").read_bytes() == (tmp_path / "three.jsonl").read_bytes()
    recs = [validate_line(x) for x in (tmp_path / "three.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(recs) == one["exported_decisions"] and {"llm:fake", "scripted"} <= {x.answered_by for x in recs if x.policy == "m"}
    with pytest.raises(CompareError, match="LLM"):
        compare(INOIRI, parse_policies([BASE, "m:all=scripted,gm=llm:fake"]), 1)


def test_cli_compare_end_to_end(capsys, tmp_path):
    out = tmp_path / "c"
    code, stdout, err = run(capsys, "compare", INOIRI, "--policy", BASE, "--policy", RND, "--runs", 3, "--seed", 1,
                            "--out", out, "--export-decisions", tmp_path / "d.jsonl")
    assert code == 0, err
    rep = json.loads((out / "compare.json").read_text(encoding="utf-8"))
    assert [p["name"] for p in rep["policies"]] == ["base", "rnd"] and rep["run"]["runs"] == 3
    assert (out / "compare.html").read_text(encoding="utf-8").startswith("<!doctype html>")
    assert "Δ rnd − base" in stdout and "compare.json" in stdout
    assert len((tmp_path / "d.jsonl").read_text(encoding="utf-8").splitlines()) == rep["exported_decisions"]


def test_cli_compare_llm_policy(capsys, tmp_path, monkeypatch):
    import agent.models.config as config

    monkeypatch.setattr(config, "make_model", lambda settings: FunctionModel(first_choice, name="fake"))
    code, stdout, err = run(capsys, "compare", INOIRI, "--policy", BASE, "--policy", "m:all=scripted,gm=llm",
                            "--runs", 1, "--out", tmp_path, "--llm-model", "fake", "--llm-base-url", "http://127.0.0.1:9/v1",
                            "--jobs", 2, "--quiet")
    assert code == 0, err
    rep = json.loads((tmp_path / "compare.json").read_text(encoding="utf-8"))
    assert rep["policies"][1]["llm"]["calls"] > 0 and "in this process" in rep["run"]["note"]


@pytest.mark.parametrize("policies, msg", [
    (["base"], "NAME:ROLE=POLICY"),
    ([BASE, "x:all=nope"], "unknown policy"),
    ([BASE, "x:pcs=human"], "no humans"),
    ([BASE], "at least two"),
    ([BASE, "base:pcs=random"], "given twice"),
    ([BASE, "x:nobody=random"], "not at this table"),
])
def test_cli_compare_bad_policy(capsys, tmp_path, policies, msg):
    argv = ["compare", INOIRI, "--runs", 1, "--out", tmp_path]
    for p in policies:
        argv += ["--policy", p]
    code, _, err = run(capsys, *argv)
    assert code == 2 and msg in err and "Traceback" not in err
