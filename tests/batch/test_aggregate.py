from __future__ import annotations

import pickle
import random

import pytest

from agent.batch.aggregate import Aggregator, mean_ci, wilson
from agent.batch.runner import play_one, scenario_meta
from engine.core.scenario import load_scenario

from .conftest import YOGARIBITO


def test_wilson_values():
    assert wilson(0, 0) == (0.0, 1.0)
    lo, hi = wilson(5, 10)
    assert lo == pytest.approx(0.236593, abs=1e-6) and hi == pytest.approx(0.763407, abs=1e-6)
    lo, hi = wilson(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.277533, abs=1e-6)
    lo, hi = wilson(10, 10)
    assert lo == pytest.approx(0.722467, abs=1e-6) and hi == 1.0
    lo, hi = wilson(81, 263)  # textbook example (Newcombe 1998 style): 0.2553–0.3662
    assert lo == pytest.approx(0.2553, abs=1e-4) and hi == pytest.approx(0.3662, abs=1e-4)


def test_mean_ci():
    m, lo, hi = mean_ci(4, 10.0, 30.0)  # values 1,2,3,4
    assert m == 2.5
    assert hi - m == pytest.approx(1.959964 * (5 / 3 / 4) ** 0.5, abs=1e-6) and m - lo == pytest.approx(hi - m)
    assert mean_ci(0, 0.0, 0.0) == (0.0, 0.0, 0.0)


@pytest.fixture(scope="module")
def summaries():
    out = [play_one(str(YOGARIBITO), ["all=scripted", "pcs=random"], seed) for seed in range(10)]
    # round caps: a 2-round HOUSE cap stops these climaxes
    out += [play_one(str(YOGARIBITO), ["all=scripted"], seed, config={"max_combat_rounds": 2}) for seed in (5, 15)]
    return out


def _agg(summaries, failures=()):
    a = Aggregator(scenario_meta(load_scenario(YOGARIBITO)))
    for s in summaries:
        a.add(s)
    for seed, err in failures:
        a.add_failure(seed, err)
    return a


def test_merge_equals_sequential_add_in_any_order(summaries):
    failures = [(99, "ValueError: boom"), (7, "KeyError: 'x'")]
    ref = _agg(summaries, failures).report()
    assert ref["sessions"]["runs"] == 14 and ref["failures"]["count"] == 2
    assert [f["seed"] for f in ref["failures"]["items"]] == [7, 99]
    assert ref["stalled"]["count"] >= 2
    rng = random.Random(3)
    for _ in range(4):
        items = list(summaries)
        rng.shuffle(items)
        cut1, cut2 = sorted(rng.sample(range(1, len(items)), 2))
        parts = [_agg(items[:cut1], failures[:1]), _agg(items[cut1:cut2]), _agg(items[cut2:], failures[1:])]
        rng.shuffle(parts)
        total = Aggregator()
        for p in parts:
            total.merge(pickle.loads(pickle.dumps(p)))
        assert total.report() == ref


def test_report_contents(summaries):
    rep = _agg(summaries).report()
    assert sum(r["count"] for r in rep["endings"]) == 12
    assert all(0 <= r["ci"][0] <= r["rate"] <= r["ci"][1] <= 1 for r in rep["endings"])
    assert {r["scene"] for r in rep["scenes"]} >= {"op_jin", "climax"}
    assert sum(v for k, v in rep["caps"].items() if k.endswith("round_cap")) >= 2
    assert any("safety cap" in w for w in rep["warnings"])
    assert "jin.life" in rep["resources_end"] and rep["resources_over_time"]["jin.life"][0]["scene"] == "op_jin"
    hit = next(c for c in rep["checks"] if c["check"] == "hit")
    assert hit["theory_rate"] is not None and hit["theory_n"] > 0


def test_warnings_for_unreached_scene_and_losses():
    a = Aggregator({"system": "yogaribito", "scene_ids": ["a", "b"]})
    for seed in range(20):
        a.add({"seed": seed, "finished": True, "ending": "objective_failed", "pcs": {"x": "dead"}, "scenes": ["a"],
               "outcomes": {"fight f": "pcs_lose"}, "decisions": 3, "caps": []})
    w = "\n".join(a.report()["warnings"])
    assert "scene 'b' was never reached" in w
    assert "the ending is 'objective_failed' in 100%" in w and "fight f is 'pcs_lose'" in w and "PC x is 'dead'" in w


def test_theory_mismatch_warning():
    a = Aggregator({"system": "yogaribito"})
    a.add({"seed": 1, "finished": True, "ending": "e", "decisions": 1,
           "checks": {"hit": {"n": 100, "judged": 100, "succ": 100, "p_n": 100, "p_succ": 100, "p_sum": 50.0,
                              "p_var": 25.0}}})
    assert any("check hit" in w for w in a.report()["warnings"])
