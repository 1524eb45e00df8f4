"""Scenario files of 「A」: the samples load; a broken file names the file, the field and the problem; the schema."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from engine.core import ScenarioError, get_system, load_scenario, scenario_json_schema

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "scenarios" / "a_game" / "yomichi_no_hikari.yaml"


def _raw() -> dict:
    return yaml.safe_load(SAMPLE.read_text(encoding="utf-8"))


def _problem(tmp_path: Path, edit) -> str:
    raw = _raw()
    edit(raw)
    p = tmp_path / "broken.yaml"
    p.write_text(yaml.safe_dump(raw, allow_unicode=True, sort_keys=False), encoding="utf-8")
    with pytest.raises(ScenarioError) as e:
        load_scenario(p)
    assert str(p) in str(e.value)
    return str(e.value)


def test_the_samples_load():
    for p in get_system("a_game").sample_scenarios:
        sc = load_scenario(p)
        assert sc.system.id == "a_game" and sc.model.scenes


@pytest.mark.parametrize("edit, needle", [
    (lambda r: r["scenes"][0]["sdc_actions"][0].update(sdc="nobody"), "scenes.s1_village.sdc_actions[0].sdc: unknown SDC 'nobody'"),
    (lambda r: r["scenes"][1]["sdc_actions"][1].update(target="other"), "an opposed SDC action targets a PC"),
    (lambda r: r["scenes"][0]["events"][0]["passive"][0].update(pcs=["ghost"]), "passive[0].pcs: unknown PC 'ghost'"),
    (lambda r: r["pcs"][0]["elements"].append({"name": "とても長い名前の必殺技である流星脚", "categories": ["combat"]}),
     "pcs[0] (yagami).elements[5].name"),
    (lambda r: r["pcs"][0]["elements"].append({"name": "【空手】", "categories": ["combat"]}), "duplicate"),
    (lambda r: r["pcs"][1]["elements"].append({"name": "跳ぶ", "categories": ["flying"]}), "categories"),
    (lambda r: r["cast_assignment"].update(suzumaru="protagonist"), "protagonist"),
    (lambda r: r["cast_assignment"].update(nobody="guest"), "cast_assignment.nobody: unknown PC"),
    (lambda r: r.update(pcs=r["pcs"][:2], cast_assignment={}), "2 PCs; a table has 3–6"),
    (lambda r: r.update(immutable_facts=["nope"]), "immutable_facts[0]: unknown setting fact 'nope'"),
    (lambda r: r.update(scenes=r["scenes"][:2]), "scenes: 2 scenes, the game plays scenes_per_game = 3"),
    (lambda r: r.update(config={"turn_chart": "custom"}), "turn_chart: config turn_chart=custom needs"),
    (lambda r: r.update(config={"no_such_flag": True}), "no_such_flag"),
    (lambda r: r["scenes"][0]["goal"].update(difficulty=101), "difficulty"),
    (lambda r: r["scenes"][0]["hazards"][0].update(turns=[11]), "turn 11 is not 1..10"),
])
def test_a_broken_file_names_the_field(tmp_path, edit, needle):
    assert needle in _problem(tmp_path, edit)


def test_the_json_schema_and_validate_command(tmp_path):
    schema = scenario_json_schema("a_game")
    assert schema["properties"]["system"]["const"] == "a_game" or "a_game" in json.dumps(schema["properties"]["system"])
    assert "scenes" in schema["required"]
    ok = subprocess.run([sys.executable, "-m", "agent.cli", "validate", str(SAMPLE)], cwd=ROOT, capture_output=True,
                        text=True, timeout=300)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    raw = _raw()
    raw["scenes"][0]["sdc_actions"][0]["sdc"] = "nobody"
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(raw, allow_unicode=True, sort_keys=False), encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "agent.cli", "validate", str(bad)], cwd=ROOT, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode != 0
    assert "bad.yaml" in r.stdout + r.stderr and "unknown SDC 'nobody'" in r.stdout + r.stderr
