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


def test_llm_seats_see_check_results_and_no_context_that_repeats_the_observation():
    """A 夜狩り人 check in a prompt's transcript shows its dice and result (it rendered as `[判定] 登場判定（【心】）:` with
    nothing after the colon: the prompt read only ブラッドベリー's check shape); a combat decision's context in the
    prompt leaves out what the observation already says (the battlefield and every character were there twice)."""
    from agent.llm import reply_schema
    from agent.prompting import build_prompt, decision_fields, recent_transcript
    from agent.scripted import ScriptedAgent
    from engine.core import Session, load_scenario

    s = Session(load_scenario(SAMPLE), 7)
    agent = ScriptedAgent()
    major = None
    while not s.is_over:
        d = s.pending
        if d.kind == "cb.major" and major is None:
            lines = recent_transcript(s.transcript(d.actor), d.actor, d.observation, 10**6)
            entry = [x for x in lines if x.startswith("[判定] 登場判定")]
            assert entry and all("達成値" in x and ("成功" in x or "失敗" in x) for x in entry), entry[:2]
            p = build_prompt(d, s.transcript(d.actor), system="yogaribito", role="pc",
                             schema=reply_schema(d, say=True), speaks=True)
            shown = decision_fields(d)["context_json"]
            major = p.messages[1]["content"]
            assert shown and shown in major
            for key in ('"chars"', '"engagements"'):
                assert key not in shown, f"the prompt's decision context repeats the observation ({key})"
            assert '"attacks"' in shown  # what the decision adds is still there
            assert "chars" in d.context and "engagements" in d.context  # the policies still read them
        s.answer(agent.act(s.view(d)))
    assert major is not None
