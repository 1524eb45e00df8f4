"""Rules tests as data: every examples file of every registered system, one pytest case per example case; plus tests
of the examples runner itself (engine/core/examples.py, docs/examples-format.md)."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import pytest
import yaml

from engine.core.examples import (
    ABSENT,
    CaseResult,
    ExamplesError,
    ExamplesFile,
    load_examples,
    main,
    match,
    parse_path,
    resolve_path,
    run_case,
    run_example_files,
    run_examples,
)
from engine.core.registry import systems

HERE = Path(__file__).resolve().parent
#: the worked examples ship inside each system package (engine/systems/<id>/examples/), so installs carry them
BLOODBERRY_EXAMPLES = HERE.parent / "engine" / "systems" / "bloodberry" / "examples"
CAST = BLOODBERRY_EXAMPLES / "bloodberry_cast.yaml"


# ======================================================================================================================
# every registered system's examples, one test per case
# ======================================================================================================================
def _collect() -> list[Any]:
    params = []
    for info in systems():
        for path in info.examples:
            p = Path(path)
            try:
                ef = load_examples(p)
            except ExamplesError as e:  # reported by the test, not at collection
                params.append(pytest.param(str(p), None, str(e), id=f"{p.name}:(file)"))
                continue
            for case in ef.cases:
                params.append(pytest.param(str(p), case.id, None, id=f"{p.name}:{case.id}"))
    return params


@functools.cache
def _load(path: str) -> ExamplesFile:
    return load_examples(path)


@pytest.mark.parametrize(("path", "case_id", "load_error"), _collect())
def test_example(path: str, case_id: str | None, load_error: str | None) -> None:
    if load_error is not None:
        pytest.fail(load_error, pytrace=False)
    ef = _load(path)
    case = next(c for c in ef.cases if c.id == case_id)
    res = run_case(ef, case)
    if res.status == "XFAIL":
        pytest.xfail(res.xfail or "")
    if res.status != "PASS":
        pytest.fail(res.format(), pytrace=False)


def test_every_system_has_an_examples_file() -> None:
    for info in systems():
        assert info.examples, f"system {info.id} lists no examples file (SystemInfo.examples)"
        for p in info.examples:
            assert Path(p).is_file(), f"system {info.id}: examples file {p} does not exist"
            ef = load_examples(p)
            assert ef.system == info.id, f"{p}: says system {ef.system}, registered under {info.id}"
            assert ef.scenario_path.is_file(), f"{p}: base scenario {ef.scenario_path} does not exist"
            assert ef.cases


def test_examples_ship_inside_their_system_package() -> None:
    """tests/ is not installed: every examples file, and the base scenario it names, is package data of its system
    (engine/systems/<id>/examples/), so that `trpg examples` works in a normal install (tests/test_wheel.py)."""
    import importlib

    for info in systems():
        pkg = Path(importlib.import_module(".".join(info.new_game.__module__.split(".")[:3])).__file__).resolve().parent
        for p in info.examples:
            ef = load_examples(p)
            for f in (Path(p).resolve(), ef.scenario_path):
                assert f.parent == pkg / "examples", f"{info.id}: {f} is not in {pkg / 'examples'}"


def test_bloodberry_examples_cover_section_12() -> None:
    """Every worked example of rules/bloodberry.md §12 has a case."""
    ef = load_examples(BLOODBERRY_EXAMPLES / "bloodberry.yaml")
    have = {c.id.split("-")[0].rstrip("abcd") for c in ef.cases}
    want = {f"EX{i}" for i in range(1, 23)}
    assert want <= have, f"missing: {sorted(want - have)}"


def test_cast_scenario_is_the_standard_cast() -> None:
    from engine.core import load_scenario

    sc = load_scenario(CAST).model
    pcs = {p.id: p for p in sc.pcs}
    assert [p.id for p in sc.pcs] == ["aoi", "beni", "chika", "dora"]
    assert pcs["aoi"].abilities.model_dump() == {"passion": 3, "grace": 2, "maturity": 2}
    assert pcs["beni"].abilities.model_dump() == {"passion": 2, "grace": 3, "maturity": 2}
    assert pcs["chika"].abilities.model_dump() == {"passion": 2, "grace": 2, "maturity": 3}
    assert pcs["dora"].abilities.model_dump() == {"passion": 2, "grace": 3, "maturity": 2}
    assert pcs["chika"].race == "fairy" and pcs["chika"].fairy_drop == "total_domination"
    assert pcs["dora"].class_ == "moon_witch"
    names = {tuple(sorted(r.between)): r.name for r in sc.relations}
    assert names == {("aoi", "beni"): "《腐縁》", ("beni", "chika"): "《旧縁》", ("chika", "dora"): "《主従》",
                     ("aoi", "dora"): "《双子》"}
    (curse,) = sc.curses
    assert (curse.id, curse.doubt, curse.malice, curse.anxiety) == ("ningyo", 2, 3, 1)
    dog = next(n for n in sc.npcs if n.id == "dog")
    assert (dog.id, dog.abilities.passion) == ("dog", 2)


# ======================================================================================================================
# the runner itself
# ======================================================================================================================
def _write(tmp_path: Path, cases: list[dict[str, Any]], name: str = "ex.yaml", **top: Any) -> Path:
    data = {"system": "bloodberry", "scenario": str(CAST), "dice_sides": 6, **top, "cases": cases}
    p = tmp_path / name
    p.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return p


RELATION_ROLL: dict[str, Any] = {"id": "rel", "procedure": {"table_roll": {"table": "relation"}}, "dice": [4], "expect": {"result": "《火傷》"}}
#: EX5 of the spec, small enough to mutate in tests
EX5: dict[str, Any] = {
    "id": "ex5",
    "setup": {"in_between": True},
    "procedure": {"relation_check": {"active": "aoi", "passive": "beni", "type": "inquiry"}},
    "dice": [6, 1, 5, 2, 3, 5, 4, 1, 5, 2, 3, 1],
    "answers": [
        {"kind": "j.second_basis", "actor": "aoi", "answer": "grace"},
        {"kind": "rc.sublimate", "actor": "aoi", "answer": "ganbariya"},
        {"kind": "rc.sublimate", "actor": "beni", "answer": "kyoshi"},
    ],
    "expect": {"result": "active", "state": {"table.relations.aoi|beni.strength": 1}},
}


def _one(tmp_path: Path, case: dict[str, Any]) -> CaseResult:
    rep = run_examples([_write(tmp_path, [case])])
    assert not rep.errors, rep.errors
    (res,) = rep.results
    return res


def test_passing_case(tmp_path: Path) -> None:
    res = _one(tmp_path, EX5)
    assert res.status == "PASS" and res.ok, res.format()
    assert res.name == "ex.yaml:ex5"


def test_wrong_expectation_fails_with_a_readable_diff(tmp_path: Path) -> None:
    case = {**EX5, "expect": {"result": "passive", "state": {
        "table.relations.aoi|beni.strength": 2,
        "table.chars.aoi.abilities": {"passion": 4, "grace": 9},
        "table.chars.aoi.skills.ganbariya.sublimated": False,
        "table.chars.nobody.status": "active",
    }}}
    res = _one(tmp_path, case)
    assert res.status == "FAIL" and not res.ok
    msg = res.message
    assert "result: expected passive, got active" in msg
    assert "state table.relations.aoi|beni.strength: expected 2, got 1" in msg
    assert "state table.chars.aoi.abilities.grace: expected 9, got 2" in msg
    assert "abilities.passion" not in msg  # a mapping is a subset: only the mismatching key is reported
    assert "state table.chars.aoi.skills.ganbariya.sublimated: expected false, got true" in msg
    assert "no 'nobody' under table.chars" in msg
    assert "decision log:" in msg
    assert "aoi j.second_basis [grace, maturity] -> 'grace' (script)" in msg
    assert "beni rc.sublimate" in msg


def test_leftover_die_fails(tmp_path: Path) -> None:
    res = _one(tmp_path, {**RELATION_ROLL, "dice": [4, 5]})
    assert res.status == "FAIL"
    assert "scripted dice never used: [5] (1 of 2 rolled)" in res.message


def test_running_out_of_dice_fails(tmp_path: Path) -> None:
    res = _one(tmp_path, {**RELATION_ROLL, "dice": []})
    assert res.status == "FAIL"
    assert "scripted dice ran out" in res.message


def test_wrong_die_size_fails(tmp_path: Path) -> None:
    res = _one(tmp_path, {**RELATION_ROLL, "dice": ["d12:4"]})
    assert res.status == "FAIL" and "next face is for a d12, but a d6 was rolled" in res.message
    # with the file's dice_sides, plain integers are checked too
    res = run_examples([_write(tmp_path, [{**RELATION_ROLL, "dice": [4]}], dice_sides=12)]).results[0]
    assert res.status == "FAIL" and "d12" in res.message


def test_unexpected_decision_fails(tmp_path: Path) -> None:
    res = _one(tmp_path, {"id": "cc", "procedure": {"creation": {"pc_count": 2}}})
    assert res.status == "FAIL"
    assert "unexpected decision cc.profile for pc1 (options payload Profile): add an answer" in res.message
    # the "no" policy cannot pick a relation-check type for the passive winner either
    case = {**EX5, "answers": EX5["answers"][:1], "dice": [1, 1, 1, 1, 1, 1, 1, 1, 5, 2, 3, 1]}
    res = _one(tmp_path, case)
    assert "unexpected decision rc.passive_choice for beni (options [lower, willpower]): add an answer" in res.message


def test_unused_answer_fails(tmp_path: Path) -> None:
    case = {**EX5, "answers": EX5["answers"] + [{"kind": "rc.passive_choice", "actor": "beni", "answer": "raise"}]}
    res = _one(tmp_path, case)
    assert res.status == "FAIL"
    assert "scripted answers never used: rc.passive_choice by beni -> 'raise'" in res.message


def test_answers_are_consumed_in_order(tmp_path: Path) -> None:
    case = {**EX5, "answers": [EX5["answers"][0], EX5["answers"][2], EX5["answers"][1]]}
    res = _one(tmp_path, case)
    assert res.status == "FAIL"
    assert "unexpected decision rc.sublimate for aoi" in res.message


def test_illegal_answers(tmp_path: Path) -> None:
    ok = {**EX5, "illegal": [{"kind": "j.second_basis", "answer": "passion", "message_contains": "not a legal option"}]}
    assert _one(tmp_path, ok).status == "PASS"
    accepted = {**EX5, "illegal": [{"kind": "j.abandon", "actor": "aoi", "answer": "roll"}]}
    res = _one(tmp_path, accepted)
    assert res.status == "FAIL" and "illegal answer 'roll' to j.abandon for aoi (decision #1) was accepted" in res.message
    wrong_msg = {**EX5, "illegal": [{"kind": "j.second_basis", "answer": "passion", "message_contains": "zzz"}]}
    assert "does not contain 'zzz'" in _one(tmp_path, wrong_msg).message
    never = {**EX5, "illegal": [{"kind": "j.abandon", "actor": "aoi", "nth": 2, "answer": "x"}]}
    assert "illegal answer 'x' was never tried: there was no decision #2 of kind j.abandon for aoi" in _one(tmp_path, never).message


def test_events_and_asked(tmp_path: Path) -> None:
    good = {**EX5, "expect": {
        "events": [{"type": "decision", "kind": "j.abandon", "actor": "aoi"}, {"type": "state", "path": "relation.aoi|beni", "new": 1}],
        "asked": [{"kind": "rc.sublimate", "times": 2}, {"kind": "j.grant", "actor": "beni", "times": 0}],
    }}
    assert _one(tmp_path, good).status == "PASS"
    bad = {**EX5, "expect": {
        "events": [{"type": "state", "path": "relation.aoi|beni"}, {"type": "decision", "kind": "j.abandon"}],
        "asked": [{"kind": "rc.sublimate", "actor": "aoi", "times": 2}],
    }}
    msg = _one(tmp_path, bad).message
    assert "events[1]: no event matching {type: decision, kind: j.abandon} after event #" in msg
    assert "asked rc.sublimate for aoi: expected 2 time(s), asked 1 time(s)" in msg


def test_xfail_and_xpass(tmp_path: Path) -> None:
    failing = {**RELATION_ROLL, "id": "xf", "xfail": "engine bug #1", "expect": {"result": "《双子》"}}
    passing = {**RELATION_ROLL, "id": "xp", "xfail": "engine bug #2"}
    rep = run_examples([_write(tmp_path, [failing, passing, RELATION_ROLL])])
    by = {r.id: r for r in rep.results}
    assert by["xf"].status == "XFAIL" and by["xf"].ok
    assert "expected failure: engine bug #1" in by["xf"].message
    assert by["xp"].status == "XPASS" and not by["xp"].ok
    assert "marked xfail (engine bug #2) but it passes" in by["xp"].message
    assert by["rel"].status == "PASS"
    assert not rep.ok
    assert rep.summary() == "1 passed, 0 failed, 1 xfailed, 1 xpassed"


def test_main_prints_and_returns_exit_code(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = _write(tmp_path, [RELATION_ROLL, {**RELATION_ROLL, "id": "xf", "xfail": "known", "dice": [1]}], "good.yaml")
    assert main([str(good)]) == 0
    out = capsys.readouterr().out
    assert "PASS: good.yaml:rel" in out and "XFAIL: good.yaml:xf" in out
    assert out.strip().splitlines()[-1] == "1 passed, 0 failed, 1 xfailed"
    bad = _write(tmp_path, [{**RELATION_ROLL, "dice": [1]}], "bad.yaml")
    assert main([str(bad)]) == 1
    out = capsys.readouterr().out
    assert "FAIL: bad.yaml:rel" in out and "result: expected 《火傷》, got 《双子》" in out
    assert out.strip().splitlines()[-1] == "0 passed, 1 failed"
    assert main([str(good), "--case", "rel"]) == 0
    assert capsys.readouterr().out.strip().splitlines()[-1] == "1 passed, 0 failed"


def test_run_example_files_for_the_cli(tmp_path: Path) -> None:
    good = _write(tmp_path, [RELATION_ROLL], "good.yaml")
    broken = tmp_path / "broken.yaml"
    broken.write_text("system: bloodberry\ncases: [", encoding="utf-8")
    results = run_example_files([good, broken])
    assert [(r.name, r.ok) for r in results] == [("broken.yaml:(file)", False), ("good.yaml:rel", True)]
    assert "broken YAML" in results[0].message


def test_bad_examples_files(tmp_path: Path) -> None:
    p = _write(tmp_path, [{**RELATION_ROLL, "expect": {"resultt": 1}}])
    with pytest.raises(ExamplesError, match=r"cases\[0\] \(id rel\)\.expect\.resultt"):
        load_examples(p)
    p = _write(tmp_path, [RELATION_ROLL, RELATION_ROLL])
    with pytest.raises(ExamplesError, match="duplicate case id 'rel'"):
        load_examples(p)
    p = _write(tmp_path, [RELATION_ROLL], scenario="missing.yaml")
    res = run_examples([p]).results[0]
    assert res.status == "FAIL" and "missing.yaml" in res.message and "cannot read" in res.message


def test_paths() -> None:
    assert parse_path("table.relations.aoi|beni.strength") == ["table", "relations", "aoi|beni", "strength"]
    assert parse_path('a["x.y"][0].b[-1]') == ["a", "x.y", 0, "b", -1]
    assert parse_path("a['x.y'].c") == ["a", "x.y", "c"]
    assert parse_path('a["say \\"hi\\""]') == ["a", 'say "hi"']
    with pytest.raises(ValueError):
        parse_path("a..b")
    with pytest.raises(ValueError):
        parse_path("a.")
    snap = {"table": {"relations": {"aoi|beni": {"strength": 2}}, "a.b": 1,
                      "chars": {"aoi": {"skills": [{"id": "ganbariya", "sublimated": True}, {"id": "maguro"}]}}}}
    assert resolve_path(snap, "table.relations.aoi|beni.strength") == 2
    assert resolve_path(snap, 'table["a.b"]') == 1
    assert resolve_path(snap, "table.chars.aoi.skills.ganbariya.sublimated") is True
    assert resolve_path(snap, "table.chars.aoi.skills[1].id") == "maguro"
    with pytest.raises(KeyError, match="no 'kataomoi' under table.chars.aoi.skills .*ids ganbariya, maguro"):
        resolve_path(snap, "table.chars.aoi.skills.kataomoi")


def test_match() -> None:
    assert match({"a": 1}, {"a": 1, "b": 2}) == []
    assert match([1, 2], [1, 2]) == []
    assert match([1], [1, 2]) == ["(value): expected [1], got [1, 2]"]
    assert match(True, 1) != [] and match(1, True) != []
    assert match(1, 1.0) == []
    assert match("1", 1) != []
    assert match({"a": ABSENT}, {"b": 1}) == []
    assert match({"a": ABSENT}, {"a": 1}) == ["a: expected no such key, got 1"]
    assert match({"a": {"b": [1, {"c": 2}]}}, {"a": {"b": [1, {"c": 3}]}}) == ["a.b[1].c: expected 2, got 3"]
