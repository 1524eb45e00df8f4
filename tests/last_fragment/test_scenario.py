"""The scenario model of ラストフラグメント (Appendix B): the samples validate; broken cross-references are refused
with the field named; the Condition DSL reads text and mappings alike."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from engine.core import ScenarioError, load_scenario
from engine.systems.last_fragment.conditions import condition_text, evaluate, parse_condition

ROOT = Path(__file__).resolve().parents[2]
TABLE = ROOT / "engine" / "systems" / "last_fragment" / "examples" / "last_fragment_table.yaml"


def _broken(tmp_path: Path, edit) -> str:
    raw = yaml.safe_load(TABLE.read_text(encoding="utf-8"))
    edit(raw)
    p = tmp_path / "broken.yaml"
    p.write_text(yaml.safe_dump(raw, allow_unicode=True), encoding="utf-8")
    with pytest.raises(ScenarioError) as e:
        load_scenario(p)
    return str(e.value)


def test_the_samples_and_the_examples_table_validate():
    for p in [TABLE, *sorted((ROOT / "scenarios" / "last_fragment").glob("*.yaml"))]:
        assert load_scenario(p).model.system == "last_fragment"


@pytest.mark.parametrize("edit,needle", [
    (lambda r: r["fragments"].append({"id": "lf2", "name": "x", "text": "y", "kind": "last"}), "exactly one fragment"),
    (lambda r: r.__setitem__("start_scene", "nowhere"), "start_scene"),
    (lambda r: r["scenes"][0]["placed"].append({"kind": "object", "ref": "o99"}), "scenes.s1.placed[6].ref"),
    (lambda r: r["scenes"][1].__setitem__("unlock", "visited(s9)"), "visited: unknown scene 's9'"),
    (lambda r: r["scenes"][1].__setitem__("unlock", "flag(nobody_sets_it)"), "no trigger sets the flag"),
    (lambda r: r["objects"][0].__setitem__("designated_ability", "telepathy"), "objects.o1.designated_ability"),
    (lambda r: r["scenes"][0]["placed"].append({"kind": "object", "ref": "o2"}), "already placed"),
    (lambda r: r["pcs"][0]["abilities"].__setitem__("keter", 3), "derived"),
    (lambda r: r["pcs"][0]["abilities"].__setitem__("okaruto", 9), "max_ability_level"),
    (lambda r: r["npcs"][0].__setitem__("secret_fragments", ["f1"]), "kind secret or last"),
    (lambda r: r["climax"].__setitem__("enemies", ["nobody"]), "climax.enemies"),
    (lambda r: r.__setitem__("config_overrides", {"climax_gate": "everyone"}), "config_overrides"),
    (lambda r: r["fragments"][0].__setitem__("text", "{pc:nobody}の手紙"), "fragments[0].text: {pc:nobody} names no PC"),
    (lambda r: r["objects"][0].__setitem__("name", "{pc:" + r["pcs"][0]["id"] + "}の机"),
     "objects[0].name: {pc:…} is read only in"),
])
def test_a_broken_reference_names_its_field(tmp_path, edit, needle):
    assert needle in _broken(tmp_path, edit)


def test_a_daily_scene_may_not_designate_an_inou(tmp_path):
    def edit(r):
        r["objects"][0]["designated_ability"] = "keter"
    assert "AMB-37" in _broken(tmp_path, edit)


def test_yaml_on_key_read_as_true_is_taken_as_on(tmp_path):
    text = TABLE.read_text(encoding="utf-8")
    assert "- on: enter" in text  # unquoted: YAML 1.1 reads the key as true
    sc = load_scenario(TABLE)
    assert sc.model.scenes[2].triggers[0].on == "enter"


def test_conditions_text_and_mapping_are_the_same_tree():
    a = parse_condition("visited(s2) and fragment_held(f3, any_pc)")
    b = parse_condition({"and": [{"visited": "s2"}, {"fragment_held": {"id": "f3", "by": "any_pc"}}]})
    assert a == b
    assert condition_text(a) == "(visited(s2) and fragment_held(f3, any_pc))"
    c = parse_condition("not (flag(x) or investigated(o1, success=false))")
    assert evaluate(c, lambda atom: atom["op"] == "flag") is False
    assert parse_condition(None) == {"op": "true"}
    with pytest.raises(ValueError, match="unknown test"):
        parse_condition("teleported(s1)")
    with pytest.raises(ValueError, match="expected"):
        parse_condition("visited(s1")


def test_the_scenario_files_config_overrides_reach_its_sessions(tmp_path):
    """Appendix B.1: a scenario's rule flags are its ``config_overrides``; every session of it starts from them, and a
    session's own ``--config`` goes over them."""
    from engine.core import Session

    raw = yaml.safe_load((ROOT / "scenarios" / "last_fragment" / "shuuden_no_mukou.yaml").read_text(encoding="utf-8"))
    raw["config_overrides"] = {"max_combat_rounds": 3, "inventory_max": 4}
    p = tmp_path / "flags.yaml"
    p.write_text(yaml.safe_dump(raw, allow_unicode=True), encoding="utf-8")
    sc = load_scenario(p)
    assert sc.system.scenario_options(sc.model) == {"max_combat_rounds": 3, "inventory_max": 4}
    cfg = Session(sc, 0).config
    assert (cfg.max_combat_rounds, cfg.inventory_max) == (3, 4)
    cfg = Session(sc, 0, config={"max_combat_rounds": 5}).config
    assert (cfg.max_combat_rounds, cfg.inventory_max) == (5, 4)


def test_a_session_whose_flags_the_scenario_cannot_be_played_with_is_refused():
    """The scenario is checked with its own flags when it is loaded; a session with other flags is checked again."""
    from engine.core import Session

    sc = load_scenario(ROOT / "scenarios" / "last_fragment" / "shuuden_no_mukou.yaml")
    with pytest.raises(ValueError, match=r"shuuden_no_mukou.yaml: not playable with this configuration: "
                                         r"scenes\.s1_platform\.time: investigation_limit_mode=scene_time"):
        Session(sc, 0, config={"investigation_limit_mode": "scene_time"})
    Session(sc, 0, config={"investigation_limit_mode": sc.system.config_model().investigation_limit_mode})
