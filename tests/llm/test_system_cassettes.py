"""Every registered system's first sample scenario, played to the end with its GM seat on a real model.

One cassette per system (``cassettes/test_whole_sample_with_an_llm_gm[<system id>].yaml``), recorded from the local
SmolLM2 server with the settings `--llm local` uses, replayed here with record mode ``none``. A new system has no
cassette until it is recorded: replaying, its case is skipped with the command that records it (re-record as
tests/llm/test_cassettes.py says, with ``-k <system id>`` to record only the new one); the skip shows in every
run's summary, and the system's other LLM tests (prompts, seats) still run.

What it proves for each system: the GM's prompts of every decision kind the session reached went to the model, the
replies were parsed and checked by the engine (re-asked or replaced by the scripted answer, never trusted), the
session finished, the log replays byte for byte and every answer is the one its seat's agent gave.
"""

from __future__ import annotations

from collections import Counter

import pytest

from agent.provenance import provenance
from agent.scripted import ScriptedAgent
from agent.table import SeatSpec, Table, default_agent_factory
from engine.core import Session, load_scenario
from engine.core.events import AnswerEvent, DecisionEvent, ModelCallEvent
from engine.core.registry import systems
from engine.core.replay import verify

from .test_cassettes import MODEL, ROOT, _agent

SEED = 3


def play_sample(system_id: str, llm_seat: str, tmp_path):
    """The system's first sample, every seat scripted but ``llm_seat`` (on the model), played to its end."""
    info = next(s for s in systems() if s.id == system_id)
    sample = info.sample_scenarios[0]
    log = tmp_path / "llm.jsonl"
    seats = SeatSpec.parse(["all=scripted", llm_seat])
    session = Session(load_scenario(sample), seed=SEED, log_path=log, seats=seats.to_header())
    agent = _agent()
    Table(session, seats, default_agent_factory(SEED, None, lambda policy: agent)).run()
    assert session.is_over, f"{sample.name} did not finish"
    return session, agent, log


@pytest.mark.vcr
@pytest.mark.parametrize("system_id", [s.id for s in systems()])
def test_whole_sample_with_an_llm_gm(system_id, vcr, tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    cassette = ROOT / "cassettes" / f"test_whole_sample_with_an_llm_gm[{system_id}].yaml"
    if vcr.record_mode == "none" and not cassette.exists():
        pytest.skip(f"no cassette recorded for {system_id} yet: TRPG_RECORD_BASE_URL=http://127.0.0.1:8765/v1 pytest "
                    f"tests/llm/test_system_cassettes.py -k {system_id} --record-mode=rewrite (a local server: "
                    "trpg llm serve)")
    session, agent, log = play_sample(system_id, f"gm=llm:{MODEL}", tmp_path)

    calls = [e for e in session.events if isinstance(e, ModelCallEvent)]
    assert calls and all(e.actor == "gm" for e in calls)
    answers = [e for e in session.events if isinstance(e, AnswerEvent) and e.actor == "gm"]
    asked = {e.seq for e in session.events if isinstance(e, DecisionEvent) and e.actor == "gm"}
    assert {e.seq for e in answers} == asked
    # every GM answer that was not forced (a single legal option) went to the model first, whatever it replied
    called = {e.seq for e in calls}
    unasked = Counter(e.kind for e in answers if e.policy != "forced" and e.seq not in called)
    assert not unasked, f"GM decisions answered without a model call: {dict(unasked)}"
    assert agent.summary()["calls"] == len(calls)
    verify(log)  # byte for byte
    verify(log, check=provenance)  # each answer is the model's parsed reply, or the logged fallback's
    if vcr.record_mode == "none":
        assert vcr.all_played, "the cassette has exchanges the session did not make"


#: systems whose NPC and enemy (curse) seats have a recorded whole session (the other systems' NPC prompts are
#: replayed by tests/llm/test_cassettes.py and the prompt tests)
NPC_SYSTEMS = ("last_fragment",)


@pytest.mark.vcr
@pytest.mark.parametrize("system_id", NPC_SYSTEMS)
def test_whole_sample_with_llm_npcs_and_enemies(system_id, vcr, tmp_path, monkeypatch):
    """The first sample with every NPC and enemy seat on the model (the GM and the PCs scripted): each of those
    seats' decisions that had a choice went to the model, whose replies the engine checked; the session finishes and
    replays byte for byte, and every answer is its agent's."""
    monkeypatch.chdir(ROOT)
    session, agent, log = play_sample(system_id, f"npcs=llm:{MODEL}", tmp_path)
    calls = [e for e in session.events if isinstance(e, ModelCallEvent)]
    roles = Counter(session.actor_role(e.actor) for e in calls)
    assert calls and set(roles) == {"npc"}, roles
    prompted = Counter(session.prompt_role(e.actor) for e in calls)
    assert prompted["curse"] and prompted["npc"], f"both the NPC and the enemy template were used: {prompted}"
    answers = [e for e in session.events if isinstance(e, AnswerEvent) and session.actor_role(e.actor) == "npc"]
    called = {e.seq for e in calls}
    unasked = Counter(e.kind for e in answers if e.policy != "forced" and e.seq not in called)
    assert not unasked, f"NPC decisions answered without a model call: {dict(unasked)}"
    verify(log)
    verify(log, check=provenance)
    if vcr.record_mode == "none":
        assert vcr.all_played, "the cassette has exchanges the session did not make"


#: the seat roles whose every decision kind gets one real exchange per system (the GM's have whole sessions above)
SEAT_ROLES = ("pc", "npc")


@pytest.mark.vcr
@pytest.mark.parametrize("role", SEAT_ROLES)
@pytest.mark.parametrize("system_id", [s.id for s in systems()])
def test_every_seat_decision_kind_against_the_recorded_model(system_id, role, vcr, monkeypatch):
    """One real exchange for each kind of decision the model would be asked for a ``role`` seat in the system's
    first sample (not forced, not a reaction window its standing answers leave to the engine): the model's reply is
    parsed and checked by the engine (re-asked or replaced by the scripted answer, never trusted); the session
    itself follows the scripted seats, so that every kind the sample reaches is reached."""
    monkeypatch.chdir(ROOT)
    cassette = ROOT / "cassettes" / f"test_every_seat_decision_kind_against_the_recorded_model[{system_id}-{role}].yaml"
    if vcr.record_mode == "none" and not cassette.exists():
        pytest.skip(f"no cassette recorded for {system_id} {role} seats yet: TRPG_RECORD_BASE_URL=http://127.0.0.1:8765/v1 "
                    f"pytest tests/llm/test_system_cassettes.py -k '{system_id}-{role}' --record-mode=rewrite")
    info = next(s for s in systems() if s.id == system_id)
    session = Session(load_scenario(info.sample_scenarios[0]), seed=SEED)
    agent, scripted = _agent(), ScriptedAgent()
    asked: dict[str, object] = {}
    while not session.is_over:
        d = session.pending
        view = session.view(d)
        if session.actor_role(d.actor) == role and d.kind not in asked and agent._without_call(view) is None:
            answer = agent.act(view)
            d.check(answer)  # whatever the model said, the agent hands the session a legal answer
            asked[d.kind] = answer
            calls = [e for e in view.events if isinstance(e, ModelCallEvent)]
            assert calls and all(e.kind == d.kind and e.actor == d.actor for e in calls)
            assert calls[0].data["template_id"] == f"{system_id}/{session.prompt_role(d.actor)}.md.j2"
        session.answer(scripted.act(session.view(d)), policy="scripted", seq=d.seq)
    if role == "pc":
        assert asked, f"no {role} decision of {system_id} went to the model"
    assert agent.summary()["calls"] >= len(asked)
    if vcr.record_mode == "none":
        assert vcr.all_played, "the cassette has exchanges the session did not make"
