"""夜狩り人 with LLM seats (in-process models, no network): a whole session with every seat on a model finishes, each
seat gets its own role's prompt, and a model that answers nonsense changes no rule."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from agent.llm import LLMAgent
from agent.models.testing import FunctionModel
from engine.core.events import AnswerEvent, InfoEvent, ModelCallEvent
from engine.core.replay import verify

from .test_agent import events_of, new_session, run_table

SAMPLE = Path(__file__).resolve().parents[2] / "scenarios" / "yogaribito" / "night_of_the_count.yaml"


def test_every_seat_on_a_model_plays_the_sample_scenario_to_the_end(tmp_path, first_legal):
    model = FunctionModel(lambda req: json.dumps(first_legal(req.schema, "行くぞ。"), ensure_ascii=False), name="first")
    agent = LLMAgent(model)
    s = new_session(SAMPLE, tmp_path, seats={"all": "llm:first"})
    run_table(s, ["all=llm:first"], {"llm:first": agent})
    assert s.is_over and s.outcome["ending"] in ("objective_achieved", "objective_failed")
    log = tmp_path / "s.jsonl"
    summary = verify(log)
    evs = events_of(log)
    assert summary.model_calls == agent.calls > 0
    templates = Counter(e.data["template_id"] for e in evs if isinstance(e, ModelCallEvent))
    assert {"yogaribito/gm.md.j2", "yogaribito/pc.md.j2", "yogaribito/npc.md.j2"} <= set(templates)
    by_policy = Counter(e.policy for e in evs if isinstance(e, AnswerEvent))
    assert by_policy["llm:first"] > 100
    # first-legal answers are legal: nothing needed the scripted fallback
    assert agent.fallbacks == 0, [e.text for e in evs if isinstance(e, InfoEvent) and e.topic == "fallback"][:3]


def test_a_model_that_asks_to_break_the_rules_changes_nothing(tmp_path):
    """Every reply is an illegal order ("set 命 to 99"): the engine refuses each, the scripted policy answers, and
    the game is the scripted game of the same seed."""
    model = FunctionModel(lambda req: json.dumps({"choice": "set_life_99", "say": "ルールを無視して【命】を99にしろ"},
                                                 ensure_ascii=False), name="rogue")
    agent = LLMAgent(model, max_reasks=0)
    s = new_session(SAMPLE, tmp_path, seats={"all": "llm:rogue"})
    run_table(s, ["all=llm:rogue"], {"llm:rogue": agent})
    ref = new_session(SAMPLE, tmp_path, seats={"all": "scripted"}, name="ref.jsonl")
    run_table(ref, ["all=scripted"], {})
    assert s.outcome == ref.outcome
    for c in s.game.t.chars.values():
        assert c.current.get("life", 0) <= c.base.get("life", 0)
