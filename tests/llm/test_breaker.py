"""Decisions that never reach the model: forced answers, reaction windows left to the scripted policy, and the
circuit breaker that stops an unreachable endpoint from costing its retry budget on every decision."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from agent.llm import CircuitBreaker, LLMAgent, format_summary
from agent.models.base import ModelError, ModelRequest
from agent.models.testing import FunctionModel
from engine.core import get_system
from engine.core.events import AnswerEvent, InfoEvent, ModelCallEvent
from engine.core.replay import verify

from .test_agent import events_of, new_session, run_table


class FakeClock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def test_breaker_opens_after_threshold_and_probes_after_cooldown():
    clock = FakeClock()
    b = CircuitBreaker(threshold=3, cooldown=60, clock=clock)
    assert b.allows() and not b.is_open
    assert b.failure() is False and b.failure() is False
    assert b.allows()
    assert b.failure() is True  # the third consecutive failure opens it
    assert b.is_open and not b.allows() and b.trips == 1
    clock.t += 59.9
    assert not b.allows()
    clock.t += 0.1
    assert b.allows()  # half-open: one probe may go
    assert b.failure() is True  # the probe failed: open again for a full cooldown
    assert b.trips == 2 and not b.allows()
    clock.t += 60
    b.success()  # a probe that worked closes it and clears the count
    assert not b.is_open and b.failures == 0 and b.allows()
    b.failure()
    b.success()
    b.failure()
    b.failure()
    assert not b.is_open  # failures must be consecutive


@pytest.mark.parametrize("bad", [(0, 1.0), (1, -1.0)])
def test_breaker_rejects_bad_settings(bad):
    with pytest.raises(ValueError):
        CircuitBreaker(*bad)


def _unreachable(calls: list[ModelRequest]) -> FunctionModel:
    def fn(req: ModelRequest) -> str:
        calls.append(req)
        raise ModelError("connection refused (test)", retries=3, kind="transport")

    return FunctionModel(fn, name="down")


def test_unreachable_endpoint_costs_threshold_calls_per_cooldown(scenario_path, tmp_path, capsys):
    calls: list[ModelRequest] = []
    clock = FakeClock()
    agent = LLMAgent(_unreachable(calls), breaker=CircuitBreaker(threshold=3, cooldown=60, clock=clock))
    s = new_session(scenario_path, tmp_path, seats={"all": "llm:down"})
    run_table(s, ["all=llm:down"], {"llm:down": agent})
    assert s.is_over
    assert len(calls) == 3 == agent.calls  # then the circuit stayed open (the fake clock never moved)
    evs = events_of(tmp_path / "s.jsonl")
    assert sum(isinstance(e, ModelCallEvent) for e in evs) == 3
    fallbacks = [e for e in evs if isinstance(e, InfoEvent) and e.topic == "fallback"]
    reasons = Counter(e.data["reason"] for e in fallbacks)
    assert reasons == {"transport": 3, "circuit_open": agent.short_circuited}
    assert agent.fallbacks == len(fallbacks) == s.decisions - agent.forced
    err = capsys.readouterr().err
    assert err.count("transport failures in a row") == 1
    assert "scripted answers for the next 60 s" in err
    assert verify(tmp_path / "s.jsonl").decisions == s.decisions
    summary = agent.summary()
    assert summary["breaker_trips"] == 1 and summary["fallback_rate"] == 1.0
    assert "while the circuit was open" in format_summary(summary)


def test_breaker_probes_again_after_cooldown_and_recovers(scenario_path, tmp_path):
    """The endpoint comes back while the circuit is open: the probe after the cooldown succeeds and the model
    answers again."""
    clock = FakeClock()
    state = {"up": False, "calls": 0}

    def fn(req: ModelRequest) -> str:
        state["calls"] += 1
        clock.t += 7.0  # every call takes a while
        if not state["up"]:
            if state["calls"] == 3:
                state["up"] = True  # back after the third failure
            raise ModelError("refused (test)", kind="transport")
        enum = req.schema["properties"].get("choice", {}).get("enum")
        if enum:
            return json.dumps({"choice": enum[0]})
        return "{}"

    agent = LLMAgent(FunctionModel(fn, name="flaky"), breaker=CircuitBreaker(threshold=3, cooldown=60, clock=clock))
    s = new_session(scenario_path, tmp_path, seats={"gm": "llm:flaky"})
    # only the GM is an LLM seat; scripted answers do not move the fake clock, so move it by hand between decisions
    from agent.table import SeatSpec, Table, default_agent_factory

    table = Table(s, SeatSpec.parse(["gm=llm:flaky"]), default_agent_factory(s.seed, llm=lambda p: agent))
    while not s.is_over:
        table.step()
        clock.t += 5.0
    assert agent.breaker.trips == 1 and not agent.breaker.is_open
    assert agent.short_circuited > 0  # some decisions were answered while open
    evs = events_of(tmp_path / "s.jsonl")
    answered_by_model = [e for e in evs if isinstance(e, AnswerEvent) and e.policy == "llm:flaky"]
    assert answered_by_model  # after the probe, the model answered again


def test_forced_and_delegated_decisions_make_no_call(scenario_path, tmp_path):
    seen: Counter[str] = Counter()

    def fn(req: ModelRequest) -> str:
        seen[req.schema_name] += 1
        enum = req.schema["properties"].get("choice", {}).get("enum")
        return json.dumps({"choice": enum[0]} if enum else {})

    kinds = get_system("bloodberry").reaction_kinds
    assert {"j.reroll", "j.abandon", "j.concede"} <= kinds
    agent = LLMAgent(FunctionModel(fn, name="m"), reactions="scripted")
    s = new_session(scenario_path, tmp_path, seats={"all": "llm:m"})
    run_table(s, ["all=llm:m"], {"llm:m": agent})
    evs = events_of(tmp_path / "s.jsonl")
    answers = [e for e in evs if isinstance(e, AnswerEvent)]
    delegated = [e for e in answers if e.kind in kinds]
    assert delegated and all(e.policy == "scripted" for e in delegated)
    assert not any(k.replace(".", "_") in seen for k in kinds)  # never sent to the model
    assert agent.delegated == len(delegated)
    forced = [e for e in answers if e.policy == "forced"]
    assert agent.forced == len(forced)
    assert agent.decisions == s.decisions == agent.asked + agent.forced + agent.delegated
    assert agent.calls == sum(seen.values()) >= agent.asked  # every call was for an asked decision


def test_reactions_setting_is_checked():
    with pytest.raises(ValueError, match="reactions"):
        LLMAgent(FunctionModel(lambda r: "{}"), reactions="sometimes")


def test_cli_unreachable_port_finishes_on_fallbacks(tmp_path, capsys, monkeypatch):
    """`trpg play --seat all=llm --llm-base-url <nothing listening>`: the session ends, with one clear warning and the
    fallback count at the end (also with --quiet)."""
    import socket

    from agent.cli import main

    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-key")
    root = Path(__file__).resolve().parents[2]
    log = tmp_path / "u.jsonl"
    rc = main(["play", str(root / "tests" / "data" / "small_valid.yaml"), "--seat", "all=llm", "--seed", "3",
               "--llm-base-url", f"http://127.0.0.1:{port}/v1", "--quiet", "--log", str(log)])
    assert rc == 0
    err = capsys.readouterr().err
    assert "LLM unreachable" in err and "transport failures in a row" in err
    assert "fallbacks)" in err and "while the circuit was open" in err
    s = verify(log)
    assert s.model_calls == 3
    assert "Traceback" not in err
