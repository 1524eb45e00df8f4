"""A34 ``two_pc_relations = double``: two PCs have the ring's two relations, PC1–PC2 and the closing PC2–PC1, each
with its own name, strength and emotions (the second is named ``"<partner>#2"``). The rules cases are in
examples/bloodberry.yaml (A34-double-*); this file checks the scenario file, the seats' views and the campaign."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from agent.scripted import ScriptedAgent
from engine.core import Session, load_scenario
from engine.core.scenario import ScenarioError
from engine.systems.bloodberry.config import BloodberryConfig

ROOT = Path(__file__).resolve().parents[2]
CAST = ROOT / "engine" / "systems" / "bloodberry" / "examples" / "bloodberry_cast.yaml"


def _pair(tmp_path: Path, mode: str, second_emotions: bool = True) -> Path:
    """The standard cast cut to Aoi and Beni, with both relations of the pair named."""
    raw: dict[str, Any] = yaml.safe_load(CAST.read_text(encoding="utf-8"))
    raw["id"] = f"pair_{mode}"
    raw["pcs"] = [p for p in raw["pcs"] if p["id"] in ("aoi", "beni")]
    raw["pcs"][0]["emotions"] = {"beni": ["aiyoku"], **({"beni#2": ["eien", "shugo"]} if second_emotions else {})}
    raw["pcs"][1]["emotions"] = {"aoi": ["shoso"], **({"aoi#2": ["gimu"]} if second_emotions else {})}
    raw["relations"] = [{"between": ["aoi", "beni"], "name": "《腐縁》"}, {"between": ["beni", "aoi"], "name": "《旧縁》"}]
    raw["config"] = {"two_pc_relations": mode}
    p = tmp_path / f"pair_{mode}.yaml"
    p.write_text(yaml.safe_dump(raw, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return p


def test_double_is_a_legal_configuration():
    assert BloodberryConfig(two_pc_relations="double").two_pc_relations == "double"  # was "not implemented yet"


def test_a_scenario_names_both_relations_and_gives_emotions_for_each(tmp_path):
    s = Session(load_scenario(_pair(tmp_path, "double")), 1)
    t = s.game.t
    assert t.rel("aoi", "beni").name == "《腐縁》" and t.rel("beni", "aoi#2").name == "《旧縁》"
    assert t.rel("aoi", "beni#2") is t.rel("beni", "aoi#2")  # one relation, whoever names it
    for seat in ("aoi", "beni", "gm"):
        rels = [r for r in s.observation(seat)["relations"] if sorted(r["between"]) == ["aoi", "beni"]]
        assert [(r["name"], r.get("second", False)) for r in rels] == [("《腐縁》", False), ("《旧縁》", True)], seat
    agent = ScriptedAgent()
    while not s.is_over:  # a whole session: the sheets pass V6/V7 with two relations each
        s.answer(agent.act(s.view()))
    camp = dict(s.outcome["campaign"], relations={"aoi|beni": 1, "aoi|beni#2": 2})
    again = Session(load_scenario(_pair(tmp_path, "double")), 2, options={"campaign": camp})
    assert again.game.t.strength("beni", "aoi") == 1 and again.game.t.strength("beni", "aoi#2") == 2  # §4.4 persists
    again.game.set_strength("aoi", "beni#2", 3, "test")
    assert again.game._campaign_state()["relations"] == {"aoi|beni": 1, "aoi|beni#2": 3}
    change = [e for e in again.events if e.type == "state" and e.path == "relation.aoi|beni#2"][-1]
    assert change.to is None  # a relation between two PCs is public, the second one too


def test_a_second_relations_emotions_need_double(tmp_path):
    with pytest.raises(ScenarioError) as e:
        load_scenario(_pair(tmp_path, "single"))
    assert "pcs.aoi.emotions" in str(e.value) and "beni#2" in str(e.value) and "double" in str(e.value)


def test_double_needs_emotions_for_the_second_relation(tmp_path):
    with pytest.raises(ScenarioError) as e:
        load_scenario(_pair(tmp_path, "double", second_emotions=False))
    assert "V7" in str(e.value) and "beni#2" in str(e.value)
