"""``trpg fuzz answers``: every hostile answer of the catalogue is refused with a short message and the state
untouched, at a decision of each shape (one option, a subset, a payload) of every sample scenario; a fixed-seed run
of the fuzzer finds nothing but the open problems listed here.

``KNOWN_OPEN`` are the hostile answers the engine takes today (reported in docs/reliability.md, "Findings"): each
must still fail somewhere in this test, so that the entry is removed once the engine refuses it (as
``UNREACHED`` in tests/test_machine_coverage.py).
"""

from __future__ import annotations

import random

import pytest

from agent.fuzz.answers import CATEGORIES, _Drive, _submit, fingerprint, hostile_answers
from agent.fuzz.common import Tally, samples
from agent.scripted import ScriptedAgent
from agent.table import SeatSpec, default_agent_factory
from engine.core.scenario import load_scenario
from engine.core.session import Session

#: (category, variant) → why the engine still takes it. Empty: the four found by the first runs (control characters
#: in speech, a model_construct payload of non-JSON values, unknown fields in a payload given as JSON text, the same
#: through a str subclass) are refused since fd2b7db (docs/reliability.md, Findings 3–5).
KNOWN_OPEN: dict[tuple[str, str], str] = {}
SHAPES = ("one", "many", "payload")


def _shape(d) -> str:
    return "payload" if d.payload_model is not None else ("many" if d.pick is not None else "one")


def _decisions_of_each_shape(path: str, create: bool):
    """Sessions played by the scripted policy, stopped at the first decision of each shape (yielded with the
    session and a legal answer)."""
    for shape in SHAPES:
        s = Session(load_scenario(path), 1, options={"create_pcs": True} if create else {})
        drive = _Drive(s, SeatSpec.parse(["all=scripted"]), default_agent_factory(1), ScriptedAgent())
        steps = 0
        while not s.is_over and steps < 3000:
            d = s.pending
            legal = drive.legal(d)
            if _shape(d) == shape:
                yield s, d, legal
                break
            s.answer(legal, seq=d.seq)
            steps += 1


CASES = [(s.path, create) for s in samples() for create in ((False, True) if s.can_create else (False,))]


@pytest.mark.parametrize("path,create", CASES, ids=[f"{p.rsplit('/', 1)[-1]}{'+create' if c else ''}" for p, c in CASES])
def test_every_hostile_answer_is_refused_and_changes_nothing(path, create):
    shapes = set()
    for s, d, legal in _decisions_of_each_shape(path, create):
        shapes.add(_shape(d))
        menu = hostile_answers(d, legal, {m.seq for m in s.pending_all()}, random.Random(0))
        assert set(menu) <= set(CATEGORIES)
        for h in (h for items in menu.values() for h in items):
            if (h.category, h.variant) in KNOWN_OPEN:
                if not _refused_by_the_door(d, h.raw):  # checked without answering: one the engine takes moves it on
                    _OPEN_SEEN.add((h.category, h.variant))
                continue
            before = fingerprint(s)
            outcome, detail = _submit(s, d, h, Tally())
            assert outcome == "refused", f"{d.kind} (#{d.seq}) {h.category}/{h.variant}: {outcome} {detail}"
            assert fingerprint(s) == before
        s.answer(legal, seq=d.seq)  # and a legal answer still goes on
        assert s.pending is not d
    assert shapes, "no decision reached"
    _RAN.append(path)


_OPEN_SEEN: set[tuple[str, str]] = set()
_RAN: list[str] = []


def _refused_by_the_door(d, raw) -> bool:
    import warnings

    from engine.core.decision import IllegalAnswer

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            d.check(raw)
    except IllegalAnswer:
        return True
    except Exception:
        return False
    return False


def test_a_fixed_seed_run_finds_only_the_known_open_problems(fuzz):
    rc, text, summary = fuzz("answers", "--runs", "100", "--seed", "3", "--per-session", "50")
    c = summary["counts"]
    assert c["hostile"] >= 100
    outcomes = summary["groups"]["outcome"]
    assert sum(outcomes.values()) == c["hostile"]
    for f in summary["failures"]:
        assert (f["category"], f["variant"]) in KNOWN_OPEN, f
        _OPEN_SEEN.add((f["category"], f["variant"]))
        assert f["fuzz_command"] == f"trpg fuzz answers --seed 3 --case {f['case']}"
    assert rc == (1 if summary["failures"] else 0)
    assert summary["maxima"]["message_chars"]["value"] <= 2000


def test_known_open_problems_are_still_open():
    """Remove an entry of KNOWN_OPEN once the engine refuses it (this test then says which)."""
    if not _RAN:
        pytest.skip("runs after test_every_hostile_answer_is_refused_and_changes_nothing")
    fixed = [k for k in KNOWN_OPEN if k not in _OPEN_SEEN]
    assert not fixed, f"the engine now refuses {fixed}: remove them from KNOWN_OPEN"
