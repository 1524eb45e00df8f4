"""The fuzzers' process pool survives a worker that dies, and finds the case that killed it (issue #13: a mutated
scenario grew one worker of `trpg fuzz files` to 12.9 GB and the run ended in BrokenProcessPool)."""

from __future__ import annotations

import os
import random
from collections.abc import Sequence

import yaml

from agent.fuzz.common import Tally, run_pool
from agent.fuzz.mutate import _slots, mutate_scenario
from engine.core.scenario import ScenarioError

KILLER = 7


def _chunk(params: object, cases: Sequence[int]) -> Tally:
    t = Tally()
    for i in cases:
        if i == KILLER:
            os._exit(9)  # the interpreter dies, as when the kernel kills a worker out of memory
        t.add("ran")
        t.peak("case", i, i)
    return t


def test_a_dead_worker_is_reported_and_the_rest_runs() -> None:
    parts = [list(range(i, min(i + 4, 12))) for i in range(0, 12, 4)]
    t = run_pool(_chunk, None, parts, jobs=2)
    assert t.counts["ran"] == 11
    assert t.counts["worker_deaths"] == 1
    assert t.failed_cases == 1
    assert [f["case"] for f in t.failures] == [KILLER]
    assert f"--case {KILLER}" in t.failures[0]["message"]


def test_the_mutator_walks_each_shared_container_once() -> None:
    bomb = "\n".join(["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
                     + [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 9)])
    tree = yaml.safe_load(bomb)
    assert len(_slots(tree)) < 200  # 9^9 paths, 9 containers of 9 items
    data, ops = mutate_scenario(("system: bloodberry\n" + bomb + "\n").encode(), random.Random(3))
    assert ops


def test_a_scenario_error_cuts_a_quoted_value() -> None:
    e = ScenarioError("s.yaml", [("pcs[0].x" * 100, "unknown skill '" + "y" * 1_000_000 + "'")])
    assert len(str(e)) < 1_000
    assert "1,000,016 characters" in str(e)
