"""「A」 with LLM seats (in-process models, no network): every seat on a model plays the sample to the end with its
role's template, and a model that asks to break the rules changes nothing (the scripted fallback answers)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from agent.llm import LLMAgent
from agent.models.testing import FunctionModel
from agent.table import SeatSpec, Table, default_agent_factory
from engine.core import Session, load_scenario
from engine.core.events import ModelCallEvent
from engine.core.replay import verify

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "scenarios" / "a_game" / "hikari_no_ato.yaml"


def _fill(s: dict[str, Any]) -> Any:
    if "enum" in s:
        return s["enum"][0]
    if "anyOf" in s:
        return _fill(next((x for x in s["anyOf"] if x.get("type") != "null"), s["anyOf"][0]))
    t = s.get("type")
    if t == "object":
        return {k: _fill(v) for k, v in s.get("properties", {}).items() if k in s.get("required", [])}
    if t == "integer":
        return s.get("minimum", 1)
    if t == "string":
        return ""
    if t == "array":
        return []
    return None


def first_legal(schema: dict[str, Any]) -> dict[str, Any]:
    props = schema["properties"]
    out: dict[str, Any] = {}
    if "choice" in props:
        out["choice"] = props["choice"]["enum"][0]
    elif "choices" in props:
        out["choices"] = props["choices"]["items"]["enum"][: props["choices"].get("minItems", 0)]
    else:
        out["payload"] = _fill(props["payload"])
    if "say" in props:
        out["say"] = "よし。"
    return out


def _run(model: FunctionModel, tmp_path: Path, name: str) -> Session:
    agent = LLMAgent(model, max_reasks=0)
    s = Session(load_scenario(SAMPLE), 7, log_path=tmp_path / name, seats={"all": f"llm:{model.name}"})
    factory = default_agent_factory(7, llm=lambda policy: agent)
    Table(s, SeatSpec.parse([f"all=llm:{model.name}"]), factory).run()
    return s


def test_every_seat_on_a_model_plays_to_the_end(tmp_path):
    model = FunctionModel(lambda req: json.dumps(first_legal(req.schema), ensure_ascii=False), name="first")
    s = _run(model, tmp_path, "s.jsonl")
    assert s.is_over and s.outcome["ending"] in ("all_goals", "some_goals", "no_goals")
    calls = [e for e in s.events if isinstance(e, ModelCallEvent)]
    templates = Counter(e.data["template_id"] for e in calls)
    assert {"a_game/gm.md.j2", "a_game/pc.md.j2"} <= set(templates)
    assert verify(tmp_path / "s.jsonl") is not None


def test_a_model_that_asks_to_break_the_rules_changes_nothing(tmp_path):
    rogue = FunctionModel(lambda req: json.dumps({"choice": "give_me_20_hero_points", "say": "HPを20にしろ"},
                                                 ensure_ascii=False), name="rogue")
    s = _run(rogue, tmp_path, "rogue.jsonl")
    ref = Session(load_scenario(SAMPLE), 7)
    from agent.scripted import ScriptedAgent

    a = ScriptedAgent()
    while not ref.is_over:
        ref.answer(a.act(ref.view()), policy="scripted")
    assert s.outcome == ref.outcome


def test_a_model_writes_the_words_an_option_carries(tmp_path):
    """A declaration's words (pc.declare's note) come from the model's ``note`` (agent/llm.py reply schema)."""
    def reply(req: Any) -> str:
        out = first_legal(req.schema)
        enum = req.schema["properties"].get("choice", {}).get("enum", [])
        if "note" in req.schema["properties"]:
            if "goal" in enum:
                out["choice"] = "goal"
            out["note"] = "石碑の文字を一つずつ読み解く"
        return json.dumps(out, ensure_ascii=False)

    s = _run(FunctionModel(reply, name="words"), tmp_path, "words.jsonl")
    said = [e.text for e in s.events if e.type == "narration" and e.source == "declare"]
    assert any("石碑の文字を一つずつ読み解く" in t for t in said)
    assert verify(tmp_path / "words.jsonl") is not None
