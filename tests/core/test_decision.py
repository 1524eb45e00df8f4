from __future__ import annotations

import pytest
from pydantic import BaseModel, Field

from engine.core import Decision, IllegalAnswer, Option, load_scenario, Session


class Bid(BaseModel):
    amount: int = Field(ge=1, le=6)


def choice() -> Decision:
    return Decision(
        actor="aoi", kind="pc.declare", prompt="何をする?", rule="§7.8",
        options=[Option("a", "甲"), Option("b", "乙")], refused={"c": "気力が足りない"},
    )


def test_legal_choice_and_speech():
    ans = choice().check({"choice": "a", "text": "行くよ"})
    assert ans.choice == "a" and ans.text == "行くよ"
    assert ans.to_json() == {"choice": "a", "text": "行くよ"}


def test_illegal_choice_names_kind_rule_and_legal_options():
    with pytest.raises(IllegalAnswer) as ei:
        choice().check("z")
    msg = str(ei.value)
    assert "pc.declare" in msg and "§7.8" in msg and "one of [a, b]" in msg and "'z'" in msg


def test_refused_option_gives_the_reason():
    with pytest.raises(IllegalAnswer, match="気力が足りない"):
        choice().check("c")


def test_pick_bounds_duplicates_and_order():
    d = Decision(actor="gm", kind="gm.scene_setup", prompt="", rule="§6", options=[Option(x, x) for x in "xyz"], pick=(1, 2))
    assert d.check(["z", "x"]).choices == ("x", "z")  # normalised to option order
    for bad, problem in ((["x", "y", "z"], "must pick 1..2"), ([], "must pick 1..2"), (["x", "x"], "twice"), (["w"], "not a legal option")):
        with pytest.raises(IllegalAnswer, match=problem) as ei:
            d.check(bad)
        assert "1..2 distinct of [x, y, z]" in str(ei.value)


def test_payload_bounds_and_cross_check():
    d = Decision(actor="gm", kind="gm.call_judge", prompt="", rule="§5.3", payload_model=Bid,
                 payload_check=lambda b: "odd amounts only" if b.amount % 2 == 0 else None)
    assert d.check({"payload": {"amount": 3}}).payload == Bid(amount=3)
    with pytest.raises(IllegalAnswer, match="amount"):
        d.check({"payload": {"amount": 9}})
    with pytest.raises(IllegalAnswer, match="odd amounts only"):
        d.check({"amount": 2})


def test_illegal_answer_leaves_the_session_untouched(toy_path):
    s = Session(load_scenario(toy_path), 1)
    before_events = [e.model_dump_json() for e in s.events]
    pending = s.pending
    rolls = list(s.dice.rolls)
    with pytest.raises(IllegalAnswer):
        s.answer("nowhere")
    assert s.pending is pending
    assert [e.model_dump_json() for e in s.events] == before_events
    assert s.dice.rolls == rolls and s.illegal_answers == 1
    s.answer("left")
    assert s.pending is not pending


def test_a_lazy_context_builds_each_key_once_on_first_read():
    from engine.core.decision import LazyContext, LazyMap, plain

    built: list[str] = []

    def thunk(key: str, value: object):
        def f() -> object:
            built.append(key)
            return value
        return f

    chars = LazyMap(["a", "b"], lambda k: built.append(f"char {k}") or {"id": k})
    ctx = LazyContext({"round": thunk("round", 2), "chars": thunk("chars", chars), "costly": thunk("costly", 9)},
                      {"action": "major"})
    assert built == [] and list(ctx) == ["round", "chars", "costly", "action"] and len(ctx) == 4
    assert ctx["action"] == "major" and ctx["round"] == 2 and ctx["round"] == 2 and built == ["round"]
    assert ctx.get("missing", "-") == "-" and "missing" not in ctx
    with pytest.raises(KeyError):
        ctx["missing"]
    assert ctx["chars"]["b"] == {"id": "b"} and built == ["round", "chars", "char b"]  # one character, not both
    assert ctx["chars"].get("z") is None and "z" not in ctx["chars"]
    more = ctx.plus(stage="target")
    assert more["stage"] == "target" and "stage" not in ctx
    # plain: every key and every lazy mapping inside built, as dicts; lists and tuples keep their type
    assert plain(ctx) == {"round": 2, "chars": {"a": {"id": "a"}, "b": {"id": "b"}}, "costly": 9, "action": "major"}
    assert built.count("costly") == 1 and built.count("char a") == 1
    assert plain({"x": (1, LazyMap(["k"], lambda k: [k]))}) == {"x": (1, {"k": ["k"]})}


def test_deep_or_huge_answers_are_refused_in_a_short_message():
    """An answer nested 3,000 deep gave a RecursionError (an internal error for a human pasting JSON), and a refusal
    repeated the whole answer (a 5 MB answer gave a 10 MB message)."""
    from pydantic import BaseModel

    from engine.core.decision import IllegalAnswer

    class P(BaseModel):
        text: str

    deep: list = []
    cur = deep
    for _ in range(3000):
        nxt: list = []
        cur.append(nxt)
        cur = nxt
    for d in (Decision("a", "k", "p", "r", options=[Option("a", "A")]),
              Decision("a", "k", "p", "r", options=[Option("a", "A")], pick=(0, 1)),
              Decision("a", "k", "p", "r", payload_model=P)):
        for raw in (deep, {"payload": deep}, {"choice": deep}, "z" * 5_000_000, ["z" * 5_000_000]):
            with pytest.raises(IllegalAnswer) as e:
                d.check(raw)
            assert len(str(e.value)) < 1000


def test_the_checked_door_lets_nothing_through_it_should_not():
    """#13 item 7: a payload built with model_construct skipped validation; extra fields were dropped silently and
    "1", 1.0 or True became 1; a str subclass that equals everything passed as an option id."""
    from pydantic import BaseModel, Field

    from engine.core.decision import IllegalAnswer

    class Bid(BaseModel):
        amount: int = Field(ge=1, le=6)

    d = Decision("a", "k", "p", "r", payload_model=Bid)
    assert d.check({"payload": {"amount": 3}}).payload.amount == 3
    for bad in ({"amount": "3"}, {"amount": 3.0}, {"amount": True}, {"amount": 3, "bonus": 9},
                Bid.model_construct(amount=99)):
        with pytest.raises(IllegalAnswer):
            d.check({"payload": bad} if isinstance(bad, dict) else bad)

    class Everything(str):
        def __eq__(self, other):
            return True

        __hash__ = str.__hash__

    opts = Decision("a", "k", "p", "r", options=[Option("x", "X")])
    many = Decision("a", "k", "p", "r", options=[Option("x", "X")], pick=(0, 1))
    with pytest.raises(IllegalAnswer):
        opts.check(Everything("nope"))
    with pytest.raises(IllegalAnswer):
        many.check([Everything("nope")])


def test_answers_are_bounded_in_size_so_one_answer_cannot_bloat_the_log():
    """An answer's speech, a payload's values and characters are bounded (#13: bounds on log growth): a 5 MB speech
    or a payload of 50,000 values is refused, in a short message; answers of ordinary size pass."""
    from pydantic import BaseModel

    from engine.core.decision import ANSWER_MAX_VALUES, SPEECH_MAX

    class P(BaseModel):
        items: list[str]

    d = choice()
    assert d.check({"choice": "a", "text": "あ" * SPEECH_MAX}).text == "あ" * SPEECH_MAX
    for raw in ({"choice": "a", "text": "あ" * (SPEECH_MAX + 1)}, {"choice": "a", "text": "z" * 5_000_000}):
        with pytest.raises(IllegalAnswer, match="speech|characters") as e:
            d.check(raw)
        assert len(str(e.value)) < 1000
    p = Decision("a", "k", "p", "r", payload_model=P)
    assert p.check({"items": ["x"] * 100}).payload.items == ["x"] * 100
    with pytest.raises(IllegalAnswer, match=f"more than {ANSWER_MAX_VALUES} values"):
        p.check({"items": ["x"] * 50_000})
    with pytest.raises(IllegalAnswer, match="characters"):
        p.check({"items": ["x" * 150_000, "y" * 150_000]})


def test_a_bare_option_id_still_needs_its_required_note():
    """The fast path for a bare option id skipped the note check: an option whose note is required was accepted
    without it."""
    d = Decision("gm", "gm.rule", "認める?", "§1", options=[Option("refuse", "却下"), Option("approve", "承認")],
                 notes={"refuse": "required"})
    with pytest.raises(IllegalAnswer, match="needs a text"):
        d.check("refuse")
    assert d.check({"choice": "refuse", "note": "万能すぎる"}).note == "万能すぎる"
    assert d.check("approve").choice == "approve"


def test_fuzzer_findings_speech_controls_model_construct_and_json_text_extras():
    """docs/reliability.md findings 3-5: speech with terminal escapes or NUL was accepted (and printed on other
    players' terminals); a model_construct payload holding a non-JSON value crashed the door with a serialization
    error; a payload given as JSON text could carry fields the model does not have."""
    import json

    d = choice()
    for bad in ("\x1b]0;pwned\x07\x1b[2J", "a\x00b", "\x9b31m"):
        with pytest.raises(IllegalAnswer, match="control character"):
            d.check({"choice": "a", "text": bad})
    assert d.check({"choice": "a", "text": "一行目\n\t二行目"}).text == "一行目\n\t二行目"

    class Pay(BaseModel):
        n: int
        label: str = ""

    p = Decision("a", "k", "p", "r", payload_model=Pay)
    with pytest.raises(IllegalAnswer, match="not JSON data"):
        p.check(Pay.model_construct(n=object()))
    with pytest.raises(IllegalAnswer, match="no field 'zzz'"):
        p.check({"payload": json.dumps({"n": 1, "zzz": 1})})
    with pytest.raises(IllegalAnswer, match="not JSON"):
        p.check('{"n": NaN}')
    with pytest.raises(IllegalAnswer, match="nests"):
        p.check("[" * 3000 + "]" * 3000)
    assert p.check(json.dumps({"n": 2})).payload.n == 2
    assert p.check(b'{"n": 3}').payload.n == 3


def test_an_answer_of_one_id_is_one_shared_immutable_object():
    """``chosen(id)`` equals ``Answer(choice=id)`` and is the same object each time (an answer is frozen, so one
    serves every decision answered with that id); the table of them is bounded."""
    import dataclasses

    from engine.core import decision as dm

    a = dm.chosen("pass")
    assert a == dm.Answer(choice="pass") and a is dm.chosen("pass")
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.choice = "take"  # type: ignore[misc]
    for i in range(dm._BY_CHOICE_MAX + 10):
        dm.chosen(f"x{i}")
    assert len(dm._BY_CHOICE) <= dm._BY_CHOICE_MAX
    assert dm.chosen("pass") == dm.Answer(choice="pass")
