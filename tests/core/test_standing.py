"""Standing answers (engine.core.standing, issue #17): a seat answers a kind of reaction window once; the engine
then resolves those windows without asking, logs it, and a replay regenerates exactly the same log."""

from __future__ import annotations

import io
import json
import random

import pytest
from rich.console import Console

from agent.human import HumanAgent
from agent.scripted import ScriptedAgent
from agent.table import SeatSpec, Table, default_agent_factory
from engine.core import load_scenario, systems
from engine.core.events import AnswerEvent, AutoEvent, DecisionEvent, RevealEvent, StandingEvent, read_log
from engine.core.replay import resume, verify
from engine.core.session import Session
from engine.core.standing import DEFAULT, StandingError
from engine.core.story import story_of
from engine.core.transcript import render_transcript
from engine.core.visibility import seat_transcript

SAMPLES = [(info.id, p) for info in systems() for p in info.sample_scenarios]
IDS = [f"{sid}:{p.stem}" for sid, p in SAMPLES]


def _scripted(scenario, seed, *, standing: bool, log=None):
    s = Session(scenario, seed, log_path=log, seats={"all": "scripted"})
    table = Table(s, SeatSpec.parse(["all=scripted"]))
    if not standing:
        table._declared = True  # the seats' standing answers are not declared: every window is asked
    table.run()
    return s


def _game_events(s):
    """The events of the game itself: no questions or answers, the simultaneous nodes' seqs left out."""
    out = []
    for e in s.events:
        if isinstance(e, (AnswerEvent, DecisionEvent, AutoEvent, StandingEvent)):
            continue
        out.append(e.model_dump_json(exclude={"seqs"} if isinstance(e, RevealEvent) else None))
    return out[1:]


@pytest.mark.parametrize(("sid", "path"), SAMPLES, ids=IDS)
def test_the_scripted_standing_answers_play_the_same_game(sid, path):
    """The scripted seats declare their default standing answers: the same dice, state, checks and outcome as when
    every window is asked, and each resolved window records the answer the asked one got."""
    sc = load_scenario(path)
    kinds = {k for k, spec in sc.system.decision_table.items() if spec.standing}
    for seed in range(2):
        asked = _scripted(sc, seed, standing=False)
        auto = _scripted(sc, seed, standing=True)
        assert auto.outcome == asked.outcome
        assert _game_events(auto) == _game_events(asked)
        answers = [(e.actor, e.kind, e.answer, e.label) for e in asked.events
                   if isinstance(e, AnswerEvent) and e.kind in kinds]
        resolved = [(e.actor, e.kind, e.answer, e.label) for e in auto.events if isinstance(e, AutoEvent)]
        assert resolved == answers and len(resolved) == auto.standing_resolved
        assert auto.decisions + auto.standing_resolved == asked.decisions
        assert not any(isinstance(e, (AutoEvent, StandingEvent)) for e in asked.events)
        declared = [e for e in auto.events if isinstance(e, StandingEvent)]
        assert len(declared) == 1  # declared once, before the first answer
        assert auto.events.index(declared[0]) < next(i for i, e in enumerate(auto.events) if isinstance(e, AnswerEvent))


def test_sessions_without_standing_answers_log_as_before(tmp_path):
    """Random seats declare nothing: no standing or auto event, the header as it always was."""
    info = next(s for s in systems() if s.id == "bloodberry")
    sc = load_scenario(info.sample_scenarios[0])
    log = tmp_path / "r.jsonl"
    s = Session(sc, 3, log_path=log, seats={"all": "random"})
    Table(s, SeatSpec.parse(["all=random"])).run()
    text = log.read_text(encoding="utf-8")
    assert '"type":"standing"' not in text and '"type":"auto"' not in text and '"standing"' not in text.splitlines()[0]


@pytest.mark.parametrize(("sid", "path"), SAMPLES, ids=IDS)
def test_a_logged_session_with_standing_answers_replays_exactly(sid, path, tmp_path):
    log = tmp_path / "s.jsonl"
    s = _scripted(load_scenario(path), 1, standing=True, log=log)
    summary = verify(log)
    assert summary.outcome == s.outcome
    events, _ = read_log(log)
    assert sum(isinstance(e, AutoEvent) for e in events) == s.standing_resolved > 0


def _first_window(s, kinds):
    """Answer scripted until a decision of one of ``kinds`` is pending."""
    agent = ScriptedAgent()
    while s.pending is not None and s.pending.kind not in kinds:
        s.answer(agent.act(s.view()), policy="scripted")
    return s.pending


def test_declared_and_dropped_mid_session_replays_and_resumes(tmp_path):
    info = next(s for s in systems() if s.id == "bloodberry")
    sc = load_scenario(info.sample_scenarios[0])
    log = tmp_path / "m.jsonl"
    s = Session(sc, 2, log_path=log)
    d = _first_window(s, {"j.abandon"})
    actor = d.actor
    s.set_standing(actor, "j.abandon", DEFAULT)  # from the next window on: this one is still asked
    assert s.pending is d
    agent = ScriptedAgent()
    s.answer(agent.act(s.view()), policy="scripted")
    for _ in range(60):
        if s.pending is None:
            break
        s.answer(agent.act(s.view()), policy="scripted")
    auto = [e for e in s.events if isinstance(e, AutoEvent)]
    assert auto and {e.actor for e in auto} == {actor} and {e.kind for e in auto} == {"j.abandon"}
    s.set_standing(actor, "j.abandon", None)  # dropped: asked again
    cut = len(log.read_bytes())
    while s.pending is not None:
        s.answer(agent.act(s.view()), policy="scripted")
    full = log.read_bytes()
    verify(log)
    marks = [e for e in read_log(log)[0] if isinstance(e, StandingEvent)]
    assert [m.answers for m in marks] == [{actor: {"j.abandon": "default"}}, {actor: {"j.abandon": None}}]
    # a log cut right after the second declaration resumes to the same bytes
    log.write_bytes(full[:cut])
    r = resume(log)
    while r.pending is not None:
        r.answer(agent.act(r.view()), policy="scripted")
    assert log.read_bytes() == full


def test_illegal_declarations_name_what_is_legal_and_change_nothing():
    info = next(s for s in systems() if s.id == "bloodberry")
    s = Session(load_scenario(info.sample_scenarios[0]), 0)
    before = len(s.events)
    cases = [
        ({"aoi": {"no.such": DEFAULT}}, "not a decision of this system"),
        ({"aoi": {"pc.declare": DEFAULT}}, "not a reaction window"),
        ({"aoi": {"j.reroll": "sometimes"}}, "'sometimes' is not one of default, always:stop"),
        ({"nobody": {"j.reroll": DEFAULT}}, "no such character"),
        ({"aoi": {"race.guardian": DEFAULT}, "gm": {"race.guardian": DEFAULT}}, "asked of the pc seat"),
    ]
    for answers, words in cases:
        with pytest.raises(StandingError, match=words.replace("(", r"\(")):
            s.declare_standing(answers)
        assert len(s.events) == before and s.standing == {}


def test_the_transcript_says_which_windows_were_resolved(tmp_path):
    info = next(s for s in systems() if s.id == "bloodberry")
    log = tmp_path / "t.jsonl"
    _scripted(load_scenario(info.sample_scenarios[0]), 0, standing=True, log=log)
    events, _ = read_log(log)
    md = render_transcript(events, "md")
    assert "standing answer default" in md and "j.abandon" in md
    # a PC's seat sees its own standing answers and resolved windows, not another PC's
    aoi = seat_transcript(events, "aoi")
    assert any(isinstance(e, StandingEvent) for e in aoi)
    assert all(e.actor in ("aoi",) for e in aoi if isinstance(e, AutoEvent) and e.to is not None)
    items = story_of(aoi, info, lang="ja")
    said = [it.text for it in items if it.text.startswith("常時応答")]
    assert said and all("j." not in t and "default" not in t for t in said)


def test_a_person_sets_a_standing_answer_at_the_terminal(tmp_path):
    """`standing` at any prompt: the seat's windows, then the answer; the engine logs it and resolves from then on."""
    info = next(s for s in systems() if s.id == "bloodberry")
    sc = load_scenario(info.sample_scenarios[0])
    s = Session(sc, 4, seats={"all": "scripted", "aoi": "human"})
    lines = iter(["standing", "2", "1", ""])  # j.abandon (the 2nd window of a PC) → its default, then back
    out = io.StringIO()
    person = HumanAgent(Console(file=out, width=120), lambda prompt: next(lines, "1"), lang="ja")
    factory = default_agent_factory(4, human=lambda: person)
    Table(s, SeatSpec.parse(["all=scripted", "aoi=human"]), factory).run()
    text = out.getvalue()
    assert "常時応答（" in text and "判定の放棄" in text and "常時応答: 判定の放棄 → 定石どおり" in text
    marks = [e for e in s.events if isinstance(e, StandingEvent)]
    assert {"aoi": {"j.abandon": "default"}} in [m.answers for m in marks]
    assert any(isinstance(e, AutoEvent) and e.actor == "aoi" and e.kind == "j.abandon" for e in s.events)


@pytest.mark.parametrize(("sid", "path"), SAMPLES, ids=IDS)
def test_random_standing_answers_keep_sessions_legal(sid, path, tmp_path):
    """Any word of any vocabulary, declared for random seats: the sessions finish and replay exactly."""
    sc = load_scenario(path)
    table_spec = sc.system.decision_table
    for seed in range(2):
        rng = random.Random(f"{sid}:{seed}")
        log = tmp_path / f"{seed}.jsonl"
        s = Session(sc, seed, log_path=log, seats={"all": "random"})
        declared = {}
        for actor in s.game.actors():
            role = s.actor_role(actor)
            mine = {k: rng.choice(spec.standing).id for k, spec in table_spec.items()
                    if spec.standing and spec.who in ("any", role) and rng.random() < 0.7}
            if mine:
                declared[actor] = mine
        s.declare_standing(declared)
        Table(s, SeatSpec.parse(["all=random"]), default_agent_factory(seed), max_decisions=20_000).run()
        assert s.outcome is not None
        verify(log)


def test_every_reaction_window_has_a_default_standing_answer():
    for info in systems():
        for kind, spec in info.decision_table.items():
            if spec.reaction:
                assert any(sa.id == DEFAULT for sa in spec.standing), f"{info.id} {kind}: no default standing answer"
                assert spec.title and all(sa.label for sa in spec.standing), f"{info.id} {kind}: words for players"


def test_llm_seats_declare_the_defaults_unless_asked_not_to():
    from agent.llm import LLMAgent

    info = next(s for s in systems() if s.id == "yogaribito")
    model = object()
    agent = LLMAgent(model, name="llm:x")  # type: ignore[arg-type]
    got = agent.standing_answers(info, "jin", "pc")
    assert got and set(got.values()) == {DEFAULT} and set(got) <= info.reaction_kinds
    assert LLMAgent(model, name="llm:x", reactions="llm").standing_answers(info, "jin", "pc") == {}  # type: ignore[arg-type]
    assert LLMAgent(model, name="llm:x", reactions="scripted").standing_answers(info, "jin", "pc") == {}  # type: ignore[arg-type]
    assert json.dumps(got)


@pytest.mark.parametrize(("sid", "path"), SAMPLES, ids=IDS)
def test_windows_are_resolved_before_any_decision_is_made(sid, path, monkeypatch, tmp_path):
    """A window with a standing answer is resolved from its options and context before the rules make its
    ``Decision`` (``ask.standing_answer``): no decision of a declared kind is made for its actor, and the log is
    byte for byte the one of resolving each made decision when the rules yield it (the session's fallback path)."""
    import engine.core.ask as ask_mod
    from engine.core.decision import Decision

    sc = load_scenario(path)
    made: list[tuple[str, str]] = []

    class Counting(Decision):
        __slots__ = ()

        def __init__(self, *a, **kw):
            super().__init__(*a, **kw)
            made.append((self.actor, self.kind))

    monkeypatch.setattr(ask_mod, "Decision", Counting)
    fast = _scripted(sc, 0, standing=True, log=tmp_path / "fast.jsonl")
    declared = {(a, k) for a, kinds in fast.standing.items() for k in kinds}
    resolved = [(e.actor, e.kind) for e in fast.events if isinstance(e, AutoEvent)]
    assert not [m for m in made if m in declared and m in resolved]
    monkeypatch.setattr(ask_mod, "Decision", Decision)
    monkeypatch.setattr(ask_mod, "standing_answer", lambda *a, **kw: None)
    slow = _scripted(sc, 0, standing=True, log=tmp_path / "slow.jsonl")
    assert slow.standing_resolved == fast.standing_resolved
    assert (tmp_path / "fast.jsonl").read_bytes() == (tmp_path / "slow.jsonl").read_bytes()


def test_a_window_checks_the_engine_s_answer_as_a_decision_would():
    """``Window.check``: an option id, or a subset within bounds in option order; anything else is None (the rules
    then make the decision, whose check names the problem)."""
    from engine.core.decision import Window

    one = Window("aoi", "j.reroll", "§5.3", [("stop", "このまま"), ("willpower", "気力")], None, {})
    assert one.check("willpower").choice == "willpower"
    assert one.check("wish") is None and one.check(["stop"]) is None
    many = Window("aoi", "j.claim_useful", "§5.6", [("a", "A"), ("b", "B"), ("c", "C")], (0, 2), {})
    assert many.check(["c", "a"]).choices == ("a", "c") and many.check([]).choices == ()
    assert many.check(["a", "a"]) is None and many.check(["a", "b", "c"]) is None and many.check(["x"]) is None
    assert many.label_of("b") == "B"


@pytest.mark.parametrize(("context", "answer"), [
    ({"completes": {"take:4♦#1": [], "take:K♣#1": ["colour_run"]}}, "take:K♣#1"),  # EX14: a role completes
    ({"completes": {"take:4♦#1": [], "take:K♣#1": []}}, "pass"),  # no role: pass
    ({"completes": {"take:K♣#1": ["sum_high"]}, "in_confrontation": True, "placer_kind": "pc"}, "pass"),
    ({"completes": {"take:K♣#1": ["sum_high"]}, "in_confrontation": True, "placer_kind": "curse"}, "take:K♣#1"),
])
def test_the_change_window_s_default_takes_only_a_card_that_completes_a_role(context, answer):
    """ブラッドベリー rp.change (§7.4 CHANGE_WINDOW, §8: "take only if it completes a role"): in a confrontation the
    actions after a change may target only the placer (§8 rp.actions), so only a curse's card is worth taking."""
    from engine.core.decision import Window
    from engine.systems.bloodberry.standing import STANDING

    default = next(sa for sa in STANDING["rp.change"] if sa.id == DEFAULT)
    pairs = [("pass", "見送る"), *((oid, oid) for oid in context["completes"])]
    assert default.resolve(Window("beni", "rp.change", "§7.4", pairs, None, context)) == answer


@pytest.mark.parametrize("system_id", sorted(info.id for info in systems()))
def test_declared_kinds_are_the_menus_windows_with_that_answer(system_id):
    """``declared_kinds`` (read in one pass) gives the windows ``standing_menu`` lists whose vocabulary has the
    answer, for each seat role, and resolves them to the standing answers of those windows (``standing_resolvers``)."""
    from engine.core.standing import DEFAULT, declared_kinds, standing_menu, standing_resolvers

    table = next(info for info in systems() if info.id == system_id).decision_table
    for role in ("pc", "npc", "gm", "curse", "enemy"):
        want = {spec.kind: DEFAULT for spec, vocab in standing_menu(table, role) if any(sa.id == DEFAULT for sa in vocab)}
        assert declared_kinds(table, role) == want
        some = sorted(want)[:2]
        assert declared_kinds(table, role, DEFAULT, some) == {k: DEFAULT for k in some}
        resolved = standing_resolvers(table, {"x": want})
        assert {k: sa.id for k, sa in resolved.get("x", {}).items()} == want
        assert all(sa in table[k].standing for k, sa in resolved.get("x", {}).items())
