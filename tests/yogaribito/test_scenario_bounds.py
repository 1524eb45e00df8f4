"""Scenario values that would make play run away are refused by `trpg validate` with the file, field and problem:
a 夜狩り人 enemy with `base: {body: 1000000000}` passed, then play ran for minutes and wrote a 600 MB log; negative
stats and unknown keys passed too."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from engine.core.scenario import ScenarioError, load_scenario

SAMPLE = Path(__file__).resolve().parents[2] / "scenarios" / "yogaribito" / "night_of_the_count.yaml"


@pytest.mark.parametrize("base,problem", [({"body": 1_000_000_000}, "out of range"), ({"life": -3}, "out of range"),
                                          ({"charisma": 2}, "unknown value")])
def test_enemy_base_values_are_bounded(tmp_path, base, problem):
    raw = yaml.safe_load(SAMPLE.read_text(encoding="utf-8"))
    raw["enemies"][0]["base"] = base
    p = tmp_path / "s.yaml"
    p.write_text(yaml.safe_dump(raw, allow_unicode=True), encoding="utf-8")
    with pytest.raises(ScenarioError) as e:
        load_scenario(p)
    msg = str(e.value)
    assert str(p) in msg and "enemies[0].base" in msg and problem in msg
