"""One conformance suite run over every registered system (PettingZoo api_test/seed_test, OpenSpiel
random_sim_test): random legal play to the end, legal options well formed and uniquely labelled, no secret outside
its holders in any actor's observation, decision or transcript, same seed = same log, replay/resume give equal
states, serialization round-trips."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import BaseModel

from agent.random_agent import RandomAgent
from agent.scripted import ScriptedAgent
from engine.core import EVENT_ADAPTER, IllegalAnswer, Session, load_scenario, systems
from engine.core.decision import plain
from engine.core.decision_table import shape_of
from engine.core.kept import checking_kept
from engine.core.replay import resume, verify

SYSTEMS = systems()


@pytest.fixture(autouse=True, scope="module")
def _kept_values_checked():
    """Every value a rule keeps between questions is recomputed at each reuse and compared (``engine.core.kept``):
    a change behind ``ctx.state``'s back fails here, where it is read."""
    with checking_kept():
        yield


SCENARIOS = [(s.id, p) for s in SYSTEMS for p in s.sample_scenarios]


def _play(session: Session, agent, check=None) -> None:
    """Play to the end; an answer the engine refuses (a random payload) is answered by the scripted policy, as the
    table's fallback does."""
    steps = 0
    fallback = ScriptedAgent()
    while not session.is_over:
        d = session.pending
        if check is not None:
            check(session, d)
        try:
            session.answer(agent.act(session.view(d)), policy=agent.name, seq=d.seq)
        except IllegalAnswer:
            session.answer(fallback.act(session.view(d)), policy=fallback.name, seq=d.seq)
        steps += 1
        assert steps < 50_000, "session does not end"


def _log_lines(session: Session) -> list[str]:
    return [e.model_dump_json() for e in session.events]


def test_registry_metadata():
    assert SYSTEMS, "no system registered"
    for s in SYSTEMS:
        assert s.id and s.name and s.version and s.capabilities
        assert s.sample_scenarios, f"{s.id} has no sample scenario"
        assert s.machines, f"{s.id} has no state machine"
        for p in s.sample_scenarios:
            assert p.exists(), p
        assert s.examples and all(p.exists() for p in s.examples), f"{s.id} has no worked-examples file"


#: what a scenario model's field of rule flags is called (``config``, ``config_overrides``, ``rule_flags`` …)
_FLAG_FIELD_WORDS = ("config", "flag", "option", "override")


def _flipped(default):
    """A value of a rule option other than its default, or None where no cheap one is known."""
    if isinstance(default, bool):
        return not default
    if isinstance(default, int):
        return default + 1
    return None


@pytest.mark.parametrize("info", SYSTEMS, ids=[s.id for s in SYSTEMS])
def test_a_scenario_files_own_flags_reach_its_sessions(info):
    """Every field of a system's scenario model that holds rule flags (by its name) is the one the sessions read
    (``SystemInfo.scenario_options``): a flag a file sets is what its sessions start from, and a session's options
    go over it. (ラストフラグメント named its field ``config_overrides`` and before 0.2.1 every session played the
    defaults: the validator checked the flags, the session read a field called ``config``.)"""
    flag, value = next((name, v) for name, f in info.config_model.model_fields.items()
                       if (v := _flipped(f.default)) is not None)
    model = load_scenario(info.sample_scenarios[0]).model
    fields = [name for name in type(model).model_fields
              if any(w in name for w in _FLAG_FIELD_WORDS)]
    assert fields, f"{info.id}: no field of {type(model).__name__} holds rule flags"
    for name in fields:
        current = getattr(model, name)
        if isinstance(current, BaseModel):
            update = current.model_copy(update={flag: value})
        elif isinstance(current, dict) or current is None:
            update = {**(current or {}), flag: value}
        else:
            continue  # not a mapping of flags (a scalar whose name says "option")
        changed = model.model_copy(update={name: update})
        assert info.scenario_options(changed).get(flag) == value, (
            f"{info.id}: the scenario field {name!r} sets {flag}={value!r}, but scenario_options does not read it "
            f"(set SystemInfo.scenario_config)")
    for path in info.sample_scenarios:  # and the samples' own flags are their sessions' flags
        sc = load_scenario(path)
        cfg = Session(sc, seed=0).config.model_dump()
        own = info.config_model.model_validate(info.scenario_options(sc.model)).model_dump()
        assert cfg == own, f"{path.name}: the session's flags are not the file's"


@pytest.mark.parametrize("system,path", SCENARIOS, ids=[f"{s}:{p.name}" for s, p in SCENARIOS])
@pytest.mark.parametrize("seed", range(40))
def test_random_play_to_the_end_with_well_formed_decisions(system, path, seed):
    sc = load_scenario(path)
    agent = RandomAgent(seed)

    table = sc.system.decision_table

    def check(session: Session, d) -> None:
        assert d.kind and d.actor and d.rule and d.prompt
        role = session.actor_role(d.actor)  # every actor has a role
        # every kind the rules ask is declared in the system's decision table, in the declared shape and seat
        spec = table.get(d.kind)
        assert spec is not None, f"{d.kind} is not in {system}'s decision table (engine/systems/{system}/decisions.py)"
        problem = spec.mismatch(shape=shape_of(d), role=role)
        assert problem is None, problem
        if d.payload_model is None:
            ids = d.option_ids
            assert ids, f"{d.kind}: no options"
            assert len(set(ids)) == len(ids), f"{d.kind}: duplicate option ids {ids}"
            labels = [o.label for o in d.options]
            assert all(labels), f"{d.kind}: an option without label"
            assert len(set(labels)) == len(labels), f"{d.kind}: labels are not unique: {labels}"
            if d.pick is not None:
                lo, hi = d.pick
                assert 0 <= lo <= hi <= len(ids)
        json.dumps(d.to_dict(), ensure_ascii=False)

    s = Session(sc, seed=seed)
    _play(s, agent, check)
    assert s.outcome is not None


def _decision_text(d) -> str:
    """What a decision shows its actor: prompt, option labels and ids, context (built), payload schema."""
    return json.dumps([d.prompt, [[o.id, o.label] for o in d.options or ()], plain(d.context), d.payload_schema()],
                      ensure_ascii=False, default=str)


@pytest.mark.parametrize("system,path", SCENARIOS, ids=[f"{s}:{p.name}" for s, p in SCENARIOS])
@pytest.mark.parametrize("policy,seed", [("scripted", 11), ("random", 5), ("random", 6)])
def test_no_secret_reaches_a_seat_outside_its_holders(system, path, policy, seed):
    """For every actor at every decision: no secret it does not hold in its observation, in its transcript, or
    (for the deciding actor) in the decision; whatever the secret's length (ARCHITECTURE 8)."""
    sc = load_scenario(path)
    agent = ScriptedAgent() if policy == "scripted" else RandomAgent(seed)
    seen_own = 0
    held = 0
    cursor: dict[str, int] = {}
    transcripts: dict[str, str] = {}
    #: (actor, secret) → how much of the actor's transcript text is already checked against that secret: only the
    #: rest is searched (with an overlap, so a secret across the boundary is still found); a secret new to the list,
    #: or one whose holders changed, is a new key and is searched in the whole transcript
    checked: dict[tuple[str, Any], int] = {}

    def check(session: Session, d) -> None:
        nonlocal seen_own, held
        secrets = session.game.secrets()
        n = len(session.events)
        for actor in session.game.actors():
            start = cursor.get(actor, 0)
            new = session.transcript(actor, start)
            cursor[actor] = n
            transcripts[actor] = transcripts.get(actor, "") + json.dumps(
                [e.model_dump(mode="json") for e in new], ensure_ascii=False)
            views = {"observation": json.dumps(session.observation(actor), ensure_ascii=False),
                     "transcript": transcripts[actor]}
            if actor == d.actor:
                views["decision"] = _decision_text(d)
            for sec in secrets:  # found as it appears inside JSON text (an id as a whole id: ``Secret.ident``)
                if actor in sec.holders:
                    held += 1
                    seen_own += sec.found_in(views["observation"])
                    continue
                for where, text in views.items():
                    if where == "transcript":
                        done = checked.get((actor, sec), 0)
                        checked[(actor, sec)] = len(text)
                        text = text[max(0, done - 2 * len(sec.text) - 8):]
                    assert not sec.found_in(text), (f"{actor} sees a secret of {sorted(sec.holders)} in its {where} "
                                                    f"during {d.kind} (#{d.seq}): {sec.text[:40]!r}")

    s = Session(sc, seed=seed)
    # every seat declares the scripted policy's standing answers, as a table does: the declaration names every actor
    declared = {a: ScriptedAgent().standing_answers(s.system, a, s.game.actor_role(a)) for a in s.game.actors()}
    s.declare_standing({a: kinds for a, kinds in declared.items() if kinds})
    _play(s, agent, check)
    assert held and seen_own > 0, "the check never saw a holder's own secret (the test would be vacuous)"


def _member_view(session: Session, d) -> str:
    v = session.view(d)
    return json.dumps([v.observation, [e.model_dump(mode="json") for e in v.transcript()], _decision_text(d)],
                      ensure_ascii=False, sort_keys=True)


#: a seed whose random play reaches the scenario's simultaneous nodes (salt_festival's card bid on the flag map)
SIMULTANEOUS_SEED = {"salt_festival.yaml": 6}


@pytest.mark.parametrize("system,path", SCENARIOS, ids=[f"{s}:{p.name}" for s, p in SCENARIOS])
def test_simultaneous_members_see_the_same_whatever_the_others_answered(system, path):
    """At a simultaneous node, each member's view (observation, transcript, decision) when it is asked is the view
    it had when the node opened: no member's answer reaches another, the GM seat included (ARCHITECTURE 9). Every
    config flag that changes how a system asks is tried (a card bid, ...), so nodes exist to check."""
    sc = load_scenario(path)
    flags = {name: f for name, f in sc.system.config_model.model_fields.items()}
    configs: list[dict] = [{}]
    for name, f in flags.items():
        for value in getattr(f.annotation, "__args__", ()) or ():
            if isinstance(value, str) and value != f.default:
                configs.append({name: value})
    nodes = 0
    seed = SIMULTANEOUS_SEED.get(path.name, 1)
    for config in configs:
        try:
            s = Session(sc, seed=seed, config=config)
        except ValueError:  # a flag value this scenario's table cannot be set up with (refused at the start)
            continue
        opened: dict[int, str] = {}
        agent = RandomAgent(seed)
        steps = 0
        while not s.is_over and steps < 20_000:
            members = s.pending_all()
            if len(members) > 1:
                for m in members:
                    if m.seq not in opened:  # (not ``setdefault``: it would build every member's view at every step)
                        opened[m.seq] = _member_view(s, m)
            d = members[-1]  # answer the last member first: the others are asked after someone answered
            if d.seq in opened:
                assert _member_view(s, d) == opened[d.seq], f"{d.actor}'s view at {d.kind} changed before the reveal"
                nodes += 1
            try:
                s.answer(agent.act(s.view(d)), seq=d.seq)
            except IllegalAnswer:
                s.answer(ScriptedAgent().act(s.view(d)), seq=d.seq)
            steps += 1
    if system == "bloodberry" and path.name == "salt_festival.yaml":
        assert nodes, "the card bid (flagmap_camp_order=card_bid) should give simultaneous nodes to check"


@pytest.mark.parametrize("system,path", SCENARIOS, ids=[f"{s}:{p.name}" for s, p in SCENARIOS])
def test_same_seed_same_log_and_different_seed_different_log(system, path):
    sc = load_scenario(path)
    logs = []
    for seed in (7, 7, 8):
        s = Session(sc, seed=seed)
        _play(s, RandomAgent(seed))
        logs.append(_log_lines(s))
    assert logs[0] == logs[1]
    assert logs[0] != logs[2]


@pytest.mark.parametrize("system,path", SCENARIOS, ids=[f"{s}:{p.name}" for s, p in SCENARIOS])
def test_replay_and_resume_give_equal_states(system, path, tmp_path):
    sc = load_scenario(path)
    full = tmp_path / "full.jsonl"
    s = Session(sc, seed=3, log_path=full, seats={"all": "random"})
    _play(s, RandomAgent(3))
    summary = verify(full)
    assert summary is not None
    lines = full.read_bytes().split(b"\n")
    # cut the log half way, in the middle of a line, and resume it
    half = tmp_path / "half.jsonl"
    cut = b"\n".join(lines[: len(lines) // 2]) + b"\n" + lines[len(lines) // 2][:7]
    half.write_bytes(cut)
    r = resume(half)
    _play(r, RandomAgent(3))
    assert half.read_bytes() == full.read_bytes()
    assert r.snapshot() == s.snapshot()


@pytest.mark.parametrize("system,path", SCENARIOS, ids=[f"{s}:{p.name}" for s, p in SCENARIOS])
def test_serialization_round_trips(system, path):
    sc = load_scenario(path)
    s = Session(sc, seed=2)
    _play(s, ScriptedAgent())
    for e in s.events:
        line = e.model_dump_json()
        back = EVENT_ADAPTER.validate_json(line)
        assert back == e
        assert back.model_dump_json() == line
    snap = s.snapshot()
    assert json.loads(json.dumps(snap, ensure_ascii=False)) == snap
    json.dumps(s.outcome, ensure_ascii=False)


@pytest.mark.parametrize("system,path", SCENARIOS, ids=[f"{s}:{p.name}" for s, p in SCENARIOS])
def test_illegal_answers_leave_state_untouched(system, path):
    sc = load_scenario(path)
    s = Session(sc, seed=4)
    from engine.core import IllegalAnswer

    steps = 0
    while not s.is_over and steps < 400:
        d = s.pending
        before = (json.dumps(s.snapshot(), ensure_ascii=False, sort_keys=True), len(s.events))
        bad = {"payload": {"nonsense": True}} if d.payload_model is not None else "no-such-option"
        with pytest.raises(IllegalAnswer) as err:
            s.answer(bad)
        assert d.kind in str(err.value) and d.rule in str(err.value)
        assert (json.dumps(s.snapshot(), ensure_ascii=False, sort_keys=True), len(s.events)) == before
        assert s.pending is d
        s.answer(ScriptedAgent().act(s.view(d)), policy="scripted")
        steps += 1
