"""Smoke test of scripts/bench_batch.py: tiny sizes, one process, no Dask, no timing assertions."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
INOIRI = ROOT / "scenarios" / "bloodberry" / "inoiri_dolls.yaml"
YOGARIBITO = ROOT / "scenarios" / "yogaribito" / "night_of_the_count.yaml"


def _script(name: str):
    """A script of scripts/ as a module (they are run by path, not installed)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def bb():
    return _script("bench_batch")


def test_sample_scenarios_cover_every_system(bb):
    paths = bb.sample_scenarios()
    assert INOIRI.resolve() in [p.resolve() for p in paths]
    assert YOGARIBITO.resolve() in [p.resolve() for p in paths]
    assert [p.stem for p in bb.sample_scenarios(["inoiri_dolls"])] == ["inoiri_dolls"]


@pytest.mark.parametrize("path", [INOIRI, YOGARIBITO], ids=lambda p: p.stem)
def test_trace_and_bare_loop(bb, path):
    from engine.core import load_scenario

    w = bb.trace_workload(load_scenario(path), 0)
    assert w.decisions > 0 and w.dice > 0 and w.pools > 0 and w.checks > 0
    assert sum(op[1] for op in w.ops if op[0] == "pool") == w.dice
    assert {op[0] for op in w.ops} <= {"pool", "check", "add", "set"}
    a, b = bb.bare_session(w, 3), bb.bare_session(w, 3)
    assert a == b  # seeded
    assert 0 <= a["_successes"] <= w.checks
    assert bb.run_bare([w], 3) >= 0


def test_measure_and_table(bb):
    r = bb.measure(INOIRI, 5, jobs=1, dask=False, local=False, batch_j1=True, trace_sessions=2, bare_runs=5)
    assert r.scenario == "inoiri_dolls" and r.system == "bloodberry" and r.runs == 5
    assert r.engine_per_s > 0 and r.bare_per_s > 0 and r.ratio > 0
    assert r.batch_j1_per_s is not None and r.batch_j2_per_s is None and r.dask_per_s is None
    table = bb.markdown_table([r])
    lines = table.splitlines()
    assert lines[0].startswith("| scenario |") and "engine/bare ratio" in lines[0]
    assert lines[2].startswith("| inoiri_dolls (bloodberry) |")
    assert lines[0].count("|") == lines[1].count("|") == lines[2].count("|")
    section = bb.generated_section([r], "python scripts/bench_batch.py -n 5", "test machine", "now", 1.0, 2)
    assert section.startswith(bb.BEGIN) and section.endswith(bb.END)


def test_write_docs_refreshes_the_generated_section(bb, tmp_path):
    doc = tmp_path / "benchmarks.md"
    bb.write_docs(f"{bb.BEGIN}\nfirst\n{bb.END}", doc)
    doc.write_text(doc.read_text(encoding="utf-8") + "\n## Reading\n\nkept\n", encoding="utf-8")
    bb.write_docs(f"{bb.BEGIN}\nsecond\n{bb.END}", doc)
    text = doc.read_text(encoding="utf-8")
    assert "second" in text and "first" not in text and "kept" in text


def test_memory_worker_structure(bb):
    m = bb.memory_worker(str(INOIRI), 2, 1)
    assert set(m) == {"runs", "max_rss_after_1_mb", "tenth", "max_rss_after_tenth_mb", "max_rss_mb", "rss_source",
                      "seconds", "tracemalloc_runs", "tracemalloc_peak_mb"}
    assert m["runs"] == 2 and m["tenth"] == 1
    assert m["max_rss_mb"] >= m["max_rss_after_tenth_mb"] >= m["max_rss_after_1_mb"] > 0


def test_instruction_count_parsing():
    """scripts/bench_instructions.py reads cachegrind's total (valgrind itself is not needed here)."""
    spec = importlib.util.spec_from_file_location("bench_instructions", ROOT / "scripts" / "bench_instructions.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    out = "==1== Cachegrind, a high-precision tracing profiler\n==1== \n==1== I   refs:      3,800,325,761\n"
    assert mod.parse_refs(out) == 3_800_325_761
    with pytest.raises(ValueError):
        mod.parse_refs("no summary")


@pytest.fixture(scope="module")
def pt():
    return _script("prompt_tokens")


def test_prompt_tokens_renders_the_prompts_an_llm_seat_would_send(pt):
    from agent.local_llm import smollm2_estimate

    per_role = pt.rendered(INOIRI, [0], False, smollm2_estimate)
    assert {"gm", "pc"} <= set(per_role)
    for rows in per_role.values():
        for whole, user, o_whole, o_user, chars in rows:
            assert 0 < user < whole and 0 < o_user < o_whole and chars > 0
    local = pt.rendered(INOIRI, [0], True, smollm2_estimate)
    assert len(local["gm"]) == len(per_role["gm"])  # the same decisions, other settings
    assert pt.stats([3, 1, 2])["median"] == 2


def test_prompt_tokens_reads_the_cassettes_by_role(pt):
    recorded = pt.from_cassettes(ROOT / "cassettes")
    gm = recorded["test_whole_sample_with_an_llm_gm[bloodberry]"]
    assert set(gm) == {"gm"} and all(n > 0 for n in gm["gm"])
    assert "curse" in recorded["test_whole_session_with_llm_gm_npcs_and_curse"]
    for system in ("a_game", "bloodberry", "last_fragment", "yogaribito"):  # every role has recorded usage
        assert set(recorded[f"test_every_seat_decision_kind_against_the_recorded_model[{system}-pc]"]) == {"pc"}


def test_bare_loop_reads_each_systems_own_dice(bb):
    """The bare loop reads a check with the system's ``raw_success`` (no system named in the script)."""
    from engine.core import load_scenario, systems

    for info in systems():
        w = bb.trace_workload(load_scenario(info.sample_scenarios[0]), 0)
        assert w.read is info.report.raw_success, info.id
    read = {info.id: info.report.raw_success for info in systems()}
    assert read["bloodberry"]([5, 6, 1], 2) and not read["bloodberry"]([5, 4, 1], 2)
    assert read["yogaribito"]([6, 6, 1], 5) and not read["yogaribito"]([5, 4, 1], 2)
    assert read["a_game"]([6, 6], 6) and not read["a_game"]([6, 6, 1], 2) and not read["a_game"]([3, 4], 4)
    assert read["last_fragment"]([1, 3]) and not read["last_fragment"]([2, 2]) and not read["last_fragment"]([])


def test_server_bench_interleaves_cassettes_and_edits_the_command():
    sb = _script("bench_server")
    a, b = [{"r": f"a{i}"} for i in range(3)], [{"r": f"b{i}"} for i in range(1)]
    assert [x["r"] for x in sb.interleaved([a, b], 10)] == ["a0", "b0", "a1", "a2"]
    assert [x["r"] for x in sb.interleaved([a, b], 3)] == ["a0", "b0", "a1"]
    cmd = ["py", "-m", "llama_cpp.server", "--cache_size", "1", "--logits_all", "False"]
    assert sb.edited(cmd, ["--cache_size=2", "--logits_all=DEL", "--n_threads=2"]) == \
        ["py", "-m", "llama_cpp.server", "--cache_size", "2", "--n_threads", "2"]
    with pytest.raises(SystemExit, match="--flag=value"):
        sb.edited(cmd, ["--n_threads"])
