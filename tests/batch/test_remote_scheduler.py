"""``--scheduler ADDRESS``: a Dask scheduler and a worker started as their own processes (as on a cluster, with the
``dask scheduler`` / ``dask worker`` programs) run a playtest with the same numbers as the local executor."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agent.cli import main

from .conftest import INOIRI, comparable

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def scheduler(tmp_path):
    pytest.importorskip("dask.distributed")
    info = tmp_path / "scheduler.json"
    procs = [subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
                               "--port", "0", "--no-dashboard", "--scheduler-file", str(info)],
                              cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    try:
        deadline = time.monotonic() + 60
        while not info.exists() or not info.read_text().strip():
            assert time.monotonic() < deadline, "the scheduler did not start"
            time.sleep(0.2)
        procs.append(subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", "--scheduler-file",
                                       str(info), "--nworkers", "1", "--nthreads", "1", "--no-dashboard"],
                                      cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        yield json.loads(info.read_text())["address"]
    finally:
        for p in reversed(procs):
            p.terminate()
        for p in procs:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()


def test_playtest_on_a_remote_scheduler_gives_the_local_numbers(scheduler, tmp_path, capsys):
    args = ["playtest", str(INOIRI), "--runs", "6", "--seat", "pcs=random", "--seed", "2", "--quiet"]
    assert main(args + ["--out", str(tmp_path / "local")]) == 0
    assert main(args + ["--executor", "dask", "--scheduler", scheduler, "--out", str(tmp_path / "remote")]) == 0
    local = json.loads((tmp_path / "local" / "report.json").read_text(encoding="utf-8"))
    remote = json.loads((tmp_path / "remote" / "report.json").read_text(encoding="utf-8"))
    assert remote["run"]["scheduler"] == scheduler and remote["run"]["executor"] == "dask"
    assert comparable(remote) == comparable(local)


def test_a_scheduler_address_that_is_not_one_is_a_one_line_error(tmp_path, capsys):
    pytest.importorskip("dask.distributed")
    code = main(["playtest", str(INOIRI), "--runs", "2", "--executor", "dask", "--scheduler", "nonsense://x:1",
                 "--quiet", "--out", str(tmp_path / "r")])
    err = capsys.readouterr().err
    assert code == 2 and "cannot reach the Dask scheduler" in err and "Traceback" not in err
