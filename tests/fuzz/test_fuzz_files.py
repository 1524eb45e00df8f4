"""``trpg fuzz files``: a fixed-seed run of mutated scenarios and logs passes; the mutators are seeded; the sandbox
catches a command over its time or memory; what a verified mutant may have changed."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from agent.fuzz.common import samples
from agent.fuzz.files import _judge, make_sources, verified_change
from agent.fuzz.mutate import mutate_log, mutate_scenario
from agent.fuzz.sandbox import run_cli


def test_a_fixed_seed_run_passes(fuzz):
    rc, text, summary = fuzz("files", "--runs", "8", "--seed", "1", "--logs-per-sample", "1")
    assert rc == 0, text
    c = summary["counts"]
    assert c["files_scenario"] == 4 and c["files_log"] == 4
    assert c["validate_runs"] == 4 and c["verify_runs"] == 4 and c["resume_runs"] == 4
    assert summary["maxima"]["cpu_s"]["value"] < 5


def test_mutants_are_made_again_from_their_seed():
    data = Path(samples()[0].path).read_bytes()
    for i in range(6):
        a = mutate_scenario(data, random.Random(i))
        assert a == mutate_scenario(data, random.Random(i))
    log = b'{"type":"header"}\n{"type":"roll","value":3}\n{"type":"end","outcome":{}}\n'
    for i in range(20):
        assert mutate_log(log, random.Random(i)) == mutate_log(log, random.Random(i))


@pytest.fixture(scope="module")
def real_log(tmp_path_factory) -> bytes:
    folder = tmp_path_factory.mktemp("logs")
    return Path(make_sources(folder, per_sample=1)[0]).read_bytes()


def _edit(log: bytes, kind: str, change) -> bytes:
    lines = log.decode().split("\n")
    for i, line in enumerate(lines):
        if line and json.loads(line)["type"] == kind:
            e = json.loads(line)
            change(e)
            lines[i] = json.dumps(e, ensure_ascii=False, separators=(",", ":"))
            break
    return "\n".join(lines).encode()


def test_what_a_log_that_still_verifies_may_have_changed(real_log):
    assert verified_change(real_log, real_log) == (True, "unchanged")
    speech = _edit(real_log, "answer", lambda e: e["answer"].update(text="hello"))
    assert verified_change(real_log, speech)[0]  # an answer is an input: --verify replays what it says
    roll = _edit(real_log, "roll", lambda e: e.update(value=e["value"] % 6 + 1))
    ok, why = verified_change(real_log, roll)
    assert not ok and "engine event" in why  # a changed roll that verified would be the verifier's miss
    lines = real_log.split(b"\n")
    fallback = b'{"type":"info","topic":"fallback","text":"x","data":{},"to":["gm"]}'
    assert verified_change(real_log, b"\n".join([*lines[:3], fallback, *lines[3:]]))[0]


def test_the_sandbox_bounds_time_and_memory(tmp_path: Path, monkeypatch):
    import agent.cli

    ok = run_cli(["validate", str(Path(samples()[0].path).resolve())], cwd=tmp_path)
    assert ok.rc == 0 and _judge(ok, 5000) is None and "ok:" in ok.stdout

    def spin(argv):
        while True:
            pass

    monkeypatch.setattr(agent.cli, "main", spin)  # the forked child runs this copy of the module
    slow = run_cli(["validate", "x"], cwd=tmp_path, timeout=1)
    assert slow.timed_out and "time limit" in (_judge(slow, 5000) or "")

    def hog(argv):
        block = bytearray(800 * 1024 * 1024)
        return len(block)

    monkeypatch.setattr(agent.cli, "main", hog)
    big = run_cli(["validate", "x"], cwd=tmp_path, mem_mb=300)
    assert big.rc == 70 and "MemoryError" in big.stderr and _judge(big, 5000)
