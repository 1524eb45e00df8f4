"""Tests that pin rules a mutation pass found unpinned (#13 item 11; scripts/mutate_rules.py, docs/mutation.md).

Each test names the mutant it kills (module:line:col:kind:variant, at the commit the pass ran on) and the spec
section it pins. The cases are worked examples as data, run by the examples runner (engine/core/examples.py,
docs/examples-format.md), the same door as ``trpg examples``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engine.core.examples import ExamplesFile, run_case

ROOT = Path(__file__).resolve().parents[2]


def run_example(system: str, scenario: str, case: dict[str, Any]) -> None:
    """Run one examples case against a base scenario of the system's examples folder; fail with its report."""
    folder = ROOT / "engine" / "systems" / system / "examples"
    ef = ExamplesFile.model_validate({"system": system, "scenario": scenario, "dice_sides": 6, "cases": [case]})
    ef._path = folder / "mutation_pins.yaml"  # (no such file: only its folder, where the base scenario is)
    res = run_case(ef, ef.cases[0])
    assert res.status == "PASS", res.format(verbose=True)
