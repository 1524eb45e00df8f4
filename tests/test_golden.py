"""Golden playthroughs (OpenSpiel style): a seeded scripted session per sample scenario, compared line by line.
Regenerate with ``python scripts/regen_golden.py`` after an intended rules change, and review the diff."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from engine.core import systems

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("regen_golden", ROOT / "scripts" / "regen_golden.py")
assert _spec and _spec.loader
regen = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(regen)

SCENARIOS = [p for s in systems() for p in s.sample_scenarios]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_golden_playthrough(scenario: Path):
    path = regen.golden_path(scenario)
    assert path.exists(), f"no golden playthrough for {scenario}: run python scripts/regen_golden.py"
    expected = path.read_text(encoding="utf-8").splitlines()
    actual = regen.golden_lines(scenario)
    for i, (a, e) in enumerate(zip(actual, expected), 1):
        assert a == e, f"{path.name} line {i} differs:\n  expected {e}\n  actual   {a}"
    assert len(actual) == len(expected), f"{path.name}: {len(actual)} lines, golden has {len(expected)}"


def test_every_sample_scenario_has_a_golden_file():
    missing = [str(p) for p in SCENARIOS if not regen.golden_path(p).exists()]
    assert not missing, f"missing golden playthroughs: {missing}"
