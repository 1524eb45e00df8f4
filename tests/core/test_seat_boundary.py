"""The seat boundary (ARCHITECTURE 8–10) on a toy system: whispers reach their audience only, a simultaneous
node holds its members' answers (the GM seat cannot see them before the reveal, and the order of answering changes
nobody's view), a voided check is gone from every view but stays in the log, rulings are recorded, stale lazy data
refuses to build, answers are bound to their decision, and a payload named like the envelope is a payload."""

from __future__ import annotations

import io
import itertools
import json

import pytest
from rich.console import Console

from agent.scripted import ScriptedAgent
from agent.table import SeatSpec, Table
from engine.core import IllegalAnswer, Session, StaleDecision, load_scenario
from engine.core.decision import Decision, LazyContext, LazyMap, OptionList
from engine.core.events import AnswerEvent, CheckEvent, RevealEvent, RulingEvent, VoidEvent
from engine.core.replay import verify
from engine.core.visibility import GM

from .seat_system import HANDS, WHISPER, register_seat_toy, unregister_seat_toy, write_seat_scenario

ACTORS = ("gm", "aoi", "beni")


@pytest.fixture()
def seat_path(tmp_path):
    register_seat_toy()
    try:
        yield write_seat_scenario(tmp_path)
    finally:
        unregister_seat_toy()


def start(path, **kw):
    return Session(load_scenario(path), 1, **kw)


def to_bid(s: Session) -> None:
    """Answer up to the simultaneous bid."""
    s.answer("approve")
    s.answer({"payload": {"choice": "月", "text": "小声で"}})
    assert s.pending.kind == "seat.bid"


def seen_text(s: Session, actor: str) -> str:
    return json.dumps([e.model_dump(mode="json") for e in s.transcript(actor)], ensure_ascii=False) + \
        json.dumps(s.observation(actor), ensure_ascii=False)


def test_a_whisper_reaches_its_audience_and_the_gm_only(seat_path):
    s = start(seat_path)
    assert WHISPER in seen_text(s, "aoi") and WHISPER in seen_text(s, GM)
    assert WHISPER not in seen_text(s, "beni")
    # the log keeps it, with its audience
    w = next(e for e in s.events if getattr(e, "text", None) == WHISPER)
    assert w.to == ["aoi", "gm"]


def test_members_answers_are_held_and_sealed_until_the_reveal(seat_path):
    s = start(seat_path)
    to_bid(s)
    members = s.pending_all()
    assert [d.actor for d in members] == ["aoi", "beni", "gm"]
    s.answer("a1", seq=members[0].seq)
    # aoi's answer is in the log, sealed: the GM seat (not the member) sees none of it, nor does beni
    sealed = [e for e in s.events if isinstance(e, AnswerEvent) and e.kind == "seat.bid"]
    assert len(sealed) == 1 and sealed[0].sealed and sealed[0].to == ["aoi"]
    for other in ("beni", GM):
        text = seen_text(s, other)
        # the card id appears only where the GM sees aoi's whole hand (its observation), never as a bid
        assert "a1" not in text.replace('"a1": "赤い糸"', ""), f"{other} sees aoi's bid"
    assert HANDS["aoi"]["a1"] in seen_text(s, GM)  # the GM still sees the hand, whole
    # the game state has not moved: aoi's hand is whole until the reveal
    assert s.snapshot()["hands"]["aoi"] == HANDS["aoi"]
    assert [d.actor for d in s.pending_all()] == ["beni", "gm"]
    s.answer("g2", seq=s.pending_all()[1].seq)  # members may answer in any order
    s.answer("b1")
    reveal = [e for e in s.events if isinstance(e, RevealEvent)]
    assert len(reveal) == 1 and reveal[0].to is None
    assert reveal[0].answers == {"aoi": {"choice": "a1"}, "beni": {"choice": "b1"}, "gm": {"choice": "g2"}}
    assert s.is_over and s.outcome == {"table": {"aoi": "赤い糸", "beni": "青い鍵", "gm": "白い骨"}}
    for a in ACTORS:  # after the reveal everyone sees every bid
        assert all(x in seen_text(s, a) for x in ("a1", "b1", "g2"))


def _member_views(path, order):
    """Each member's view (transcript, observation, decision) at the moment it answers, answering in ``order``."""
    s = start(path)
    to_bid(s)
    pick = {"aoi": "a2", "beni": "b1", "gm": "g1"}
    views = {}
    for actor in order:
        d = next(m for m in s.pending_all() if m.actor == actor)
        v = s.view(d)
        views[actor] = (json.dumps([e.model_dump(mode="json") for e in v.transcript()], ensure_ascii=False),
                        json.dumps(v.observation, ensure_ascii=False, sort_keys=True),
                        json.dumps(d.to_dict(), ensure_ascii=False))
        s.answer(pick[actor], seq=d.seq)
    assert s.is_over
    return views, s.outcome


def test_permuting_the_answer_order_gives_every_member_the_same_view(seat_path):
    results = [_member_views(seat_path, order) for order in itertools.permutations(("aoi", "beni", "gm"))]
    first_views, first_outcome = results[0]
    for views, outcome in results[1:]:
        assert outcome == first_outcome
        for actor in ("aoi", "beni", "gm"):
            assert views[actor][:2] == first_views[actor][:2], f"{actor}'s view depends on the answer order"


def test_a_table_asks_members_concurrently_and_replays_exactly(seat_path, tmp_path):
    import asyncio

    log = tmp_path / "s.jsonl"
    s = start(seat_path, log_path=log, seats={"all": "scripted"})
    asyncio.run(Table(s, SeatSpec.parse(["all=scripted"])).run_async())
    assert s.is_over
    assert verify(log).outcome == s.outcome


def test_a_voided_check_is_gone_from_every_view_but_kept_in_the_log(seat_path):
    from agent.cli import _printer
    from agent.prompting import recent_transcript
    from engine.core.visibility import seat_transcript

    s = start(seat_path)
    s.answer("approve")
    checks = [e for e in s.events if isinstance(e, CheckEvent)]
    voids = [e for e in s.events if isinstance(e, VoidEvent)]
    assert [c.id for c in checks] == ["k1", "k2"] and [v.check for v in voids] == ["k1"]
    for a in ACTORS:
        seen = [e for e in s.transcript(a) if isinstance(e, CheckEvent)]
        assert [c.id for c in seen] == ["k2"], a
        # from any index on, the session's own void list gives what reading the voids from the events gives
        assert all(s.transcript(a, i) == seat_transcript(s.events, a, i) for i in range(len(s.events) + 1)), a
        lines = recent_transcript(s.transcript(a), a, s.observation(a), 10_000)
        assert not any("葵の判定:" in x for x in lines) and any("やり直し" in x for x in lines)
    # the terminal (a new screen, e.g. after resume) shows the story without the voided check
    out = io.StringIO()
    _printer(Console(file=out, width=120), s, lambda: ["aoi"])(s.transcript("aoi"))
    assert "葵の判定（やり直し）" in out.getvalue() and "葵の判定: " not in out.getvalue()
    # the readable transcripts (the audit view and a seat's) leave it out too; the log keeps it
    from engine.core.transcript import render_transcript

    for seat in (None, "beni"):
        md = render_transcript(s.events, "md", seat=seat)
        assert "Check k2" in md and "Check k1" not in md and "check k1 is void" in md
    assert any(isinstance(e, CheckEvent) and e.id == "k1" for e in s.events)


def test_rulings_are_recorded_with_their_reason_codes(seat_path):
    s = start(seat_path)
    d = s.pending
    assert d.option_ids == ["approve", "reject:omnipotent", "reject:off_cast"]
    s.answer("reject:omnipotent")
    r = [e for e in s.events if isinstance(e, RulingEvent)]
    assert len(r) == 1 and r[0].verdict == "reject" and r[0].reason == "omnipotent" and r[0].text == "万能すぎる"
    assert not [e for e in s.events if isinstance(e, VoidEvent)]


def test_a_payload_with_fields_named_like_the_envelope_is_a_payload(seat_path):
    s = start(seat_path)
    s.answer("approve")
    d = s.pending
    ans = d.check({"choice": "月", "text": "小声で"})  # the payload itself, not {"choice": ...} speech
    assert ans.payload is not None and ans.payload.choice == "月" and ans.payload.text == "小声で" and ans.text is None
    ans = d.check({"payload": {"choice": "月"}, "text": "（ささやく）"})  # the envelope, with speech
    assert ans.payload.choice == "月" and ans.text == "（ささやく）"


def test_answers_are_bound_to_their_decision(seat_path):
    s = start(seat_path)
    first = s.pending
    s.answer("approve", seq=first.seq)
    with pytest.raises(IllegalAnswer, match="not pending"):
        s.answer({"payload": {"choice": "x"}}, seq=first.seq)  # a late duplicate of the first answer
    assert s.pending.kind == "seat.say"


def test_lazy_decision_data_read_after_the_answer_fails():
    live = {"n": 1}
    ctx = LazyContext({"n": lambda: live["n"], "m": lambda: LazyMap(["x"], lambda k: live["n"])})
    opts = OptionList([("a", lambda: f"A{live['n']}"), ("b", "B")])
    d = Decision("aoi", "k", "p", "r", options=opts, context=ctx)
    d._observe = lambda: {"n": live["n"]}
    inner = ctx["m"]
    d.check("a")
    d.seal()
    live["n"] = 2
    for read in (lambda: ctx["n"], lambda: inner["x"], lambda: d.options[0].label, lambda: d.observation):
        with pytest.raises(StaleDecision):
            read()
    assert d.option_ids == ["a", "b"]  # ids are plain data: always readable


def test_the_scripted_table_plays_it_and_every_secret_stays_with_its_holders(seat_path):
    s = start(seat_path)
    table = Table(s, SeatSpec.parse(["all=scripted"]), lambda p, a: ScriptedAgent())
    leaks = []

    def check(_events):
        for secret in s.game.secrets():
            for a in ACTORS:
                if a not in secret.holders and secret.text in seen_text(s, a):
                    leaks.append((a, secret.text))

    table.observer = check
    table.run()
    assert s.is_over and not leaks
