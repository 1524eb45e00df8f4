"""A PC built at the table may not take a name another character already has: the table, the log and every list of
options tell characters apart by name. The fuzzer found a ブラッドベリー `--create` session whose random players
named two PCs 'c', which made the GM's scene-participant options ambiguous (fuzz seed 0, case 1987)."""

from __future__ import annotations

import pytest

from agent.scripted import ScriptedAgent
from engine.core import Session, load_scenario
from engine.core.decision import IllegalAnswer

#: per system: a scenario built at the table with two PCs or more, and the decision that names a PC
NAMING = {
    "bloodberry": ("scenarios/bloodberry/salt_festival.yaml", "cc.profile"),
    "yogaribito": ("scenarios/yogaribito/night_of_the_count.yaml", "cc.personal"),
    "a_game": ("scenarios/a_game/hikari_no_ato.yaml", "pc.background"),
    "last_fragment": ("scenarios/last_fragment/shuuden_no_mukou.yaml", "cc.profile"),
}


@pytest.mark.parametrize("system", sorted(NAMING))
def test_a_second_pc_cannot_take_the_first_pcs_name(system: str) -> None:
    path, kind = NAMING[system]
    s = Session(load_scenario(path), 3, options={"create_pcs": True})
    agent = ScriptedAgent()
    first: dict | None = None
    for _ in range(2000):
        v = s.view()
        raw = agent.act(v)
        if v.decision.kind == kind:
            raw = dict(raw.get("payload", raw))  # a bare payload or {"payload": ...}: the same to the session
            if first is not None and v.actor != first["actor"]:
                break
            first = {"actor": v.actor, "answer": {**raw, "name": "同じ名前"}}
            raw = first["answer"]
        s.answer(raw)
    else:
        pytest.fail(f"{system}: no second {kind}")
    before = len(s.events)
    with pytest.raises(IllegalAnswer) as e:
        s.answer({**raw, "name": "同じ名前"})
    assert "'同じ名前' is taken" in str(e.value) or "同じ名前" in e.value.problem, str(e.value)
    assert e.value.decision.kind == kind and len(s.events) == before
    s.answer({**raw, "name": "別の名前"})  # another name is taken as it is


@pytest.mark.parametrize(("path", "pc_name"), [("scenarios/bloodberry/salt_festival.yaml", None),
                                              ("scenarios/yogaribito/night_of_the_count.yaml", "御堂迅")])
def test_a_scenario_with_two_characters_of_one_name_is_refused(path: str, pc_name: str | None, tmp_path) -> None:
    """An NPC named as a PC (written on the sheet, or the quickplay sample's name) is refused, naming both."""
    import yaml

    data = yaml.safe_load(open(path, encoding="utf-8"))
    pc_name = pc_name or data["pcs"][0]["name"]
    data["npcs"][0]["name"] = pc_name
    bad = tmp_path / "same_name.yaml"
    bad.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    with pytest.raises(Exception) as e:
        load_scenario(str(bad))
    msg = str(e.value)
    assert "same_name.yaml" in msg and "names used twice" in msg and repr(pc_name) in msg, msg
    assert data["pcs"][0]["id"] in msg and data["npcs"][0]["id"] in msg, msg
