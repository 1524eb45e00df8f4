"""Scenario files that would make `trpg validate` or play run away are refused at once with one paragraph: a 7 KB YAML
alias bomb (it took 123 s and 6.2 GB: the error message serialised the expanded input), a file nested hundreds of
levels deep (a RecursionError), and error messages never echo a huge value whole."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.core.scenario import MAX_DEPTH, ScenarioError, brief, load_scenario

BOMB = """system: bloodberry
id: bomb
title: 爆弾
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
scenes: [*i]
"""


def test_a_yaml_alias_bomb_is_refused_at_once(tmp_path):
    p = tmp_path / "bomb.yaml"
    p.write_text(BOMB, encoding="utf-8")
    with pytest.raises(ScenarioError) as e:  # measured without expanding: it used to run for minutes
        load_scenario(p)
    assert "expands to more than" in str(e.value) and len(str(e.value)) < 300


def test_deep_nesting_is_refused_without_a_recursion_error(tmp_path):
    p = tmp_path / "deep.yaml"
    p.write_text("system: bloodberry\nid: deep\ntitle: 深い\nscenes: " + "[" * 600 + "]" * 600 + "\n", encoding="utf-8")
    with pytest.raises(ScenarioError) as e:
        load_scenario(p)
    assert f"at most {MAX_DEPTH}" in str(e.value)


def test_errors_quote_a_huge_value_briefly(tmp_path):
    p = tmp_path / "long.yaml"
    p.write_text("system: bloodberry\nid: long\ntitle: 長い\nscenes: " + repr(["x" * 50] * 5000) + "\n", encoding="utf-8")
    with pytest.raises(ScenarioError) as e:
        load_scenario(p)
    assert len(str(e.value)) < 5000
    assert brief(list(range(10**6)), 40).endswith("...") and len(brief(list(range(10**6)), 40)) <= 40


def test_a_key_given_twice_is_an_error_not_the_last_one(tmp_path):
    p = tmp_path / "dup.yaml"
    p.write_text("system: bloodberry\nid: dup\ntitle: 一\ntitle: 二\n", encoding="utf-8")
    with pytest.raises(ScenarioError) as e:
        load_scenario(p)
    assert "line 4" in str(e.value) and "given twice" in str(e.value) and "line 3" in str(e.value)


def test_two_records_with_one_id_are_refused(tmp_path):
    """Two scene actions (or places, flags, info entries) with one id passed validation, and the engine offered two
    options with one id: the second could never be chosen."""
    import yaml as _yaml

    sample = Path(__file__).resolve().parents[2] / "scenarios" / "bloodberry" / "inoiri_dolls.yaml"
    raw = _yaml.safe_load(sample.read_text(encoding="utf-8"))
    scene = next(i for i, s in enumerate(raw["scenes"]) if s.get("actions"))
    raw["scenes"][scene]["actions"].append(dict(raw["scenes"][scene]["actions"][0]))
    p = tmp_path / "dup_action.yaml"
    p.write_text(_yaml.safe_dump(raw, allow_unicode=True), encoding="utf-8")
    with pytest.raises(ScenarioError) as e:
        load_scenario(p)
    assert f"scenes[{scene}].actions[" in str(e.value) and "used twice" in str(e.value)
