from __future__ import annotations

import itertools
import json
import pickle

import pytest

from agent.batch.runner import play_one
from agent.batch.summary import summarize
from engine.core import systems
from engine.systems.bloodberry.report import success_probability as bloodberry_success_probability
from engine.systems.yogaribito.report import success_probability as yogaribito_success_probability

from .conftest import INOIRI, YOGARIBITO


def test_yogaribito_seed_1_summary():
    s = play_one(str(YOGARIBITO), ["all=scripted"], 1)
    assert s["system"] == "yogaribito" and s["seed"] == 1 and s["finished"]
    assert s["ending"] == "objective_achieved"
    assert s["pcs"] == {"jin": "alive", "mio": "alive"}
    assert s["outcomes"] == {"fight m_ghouls": "pcs_win", "fight climax": "pcs_win"}
    # the scripted seats declare their standing answers: the reaction windows are resolved, not asked
    assert s["decisions"] == 127 and s["standing"] == 79
    assert sum(s["decision_kinds"].values()) == 206
    assert s["decision_kinds"]["ck.luck"] == 21
    assert s["scenes"] == ["op_jin", "op_mio", "m_investigate", "m_school", "m_count", "m_ghouls", "m_preparation",
                           "climax", "ending"]
    assert s["topics"]["scene"] == 9
    assert s["caps"] == []
    hit = s["checks"]["hit"]
    assert (hit["n"], hit["judged"], hit["succ"], hit["p_n"], hit["p_succ"]) == (15, 15, 13, 15, 13)
    assert s["checks"]["damage"]["judged"] == 0  # a result, not a roll
    # "at the end" = when the afterplay began: scenario end restores every survivor to base, which would hide the
    # fight (mio spent all her 運 and most of her 魂)
    assert s["resources_end"]["jin.life"] == 13 and s["resources_end"]["mio.luck"] == 0
    assert s["resources_end"]["mio.soul"] == 3 and s["resources_end"]["jin.kagaribi"] == 0
    assert s["resources_by_scene"]["op_jin"]["jin.life"] == 13 and s["resources_by_scene"]["op_jin"]["mio.soul"] == 9
    assert s["resources_by_scene"]["climax"]["mio.soul"] == 7
    assert "jin:silver_bullet" in s["effects"] and "jin:diamond_body" in s["effects_available"]
    # small, picklable and JSON-able
    assert pickle.loads(pickle.dumps(s)) == s
    assert json.loads(json.dumps(s)) == s
    assert len(json.dumps(s)) < 10_000


def test_bloodberry_seed_1_summary():
    s = play_one(str(INOIRI), ["all=scripted"], 1)
    assert s["ending"] == "victory" and s["decisions"] == 199 and s["decisions"] + s["standing"] == 538
    assert s["pcs"] == {"aoi": "active", "beni": "active", "chika": "active", "dora": "active"}
    assert s["outcomes"] == {"victory goal aoi[0]": "achieved", "victory goal chika[0]": "achieved"}
    assert s["scenes"] == ["opening", "hagurumado", "seikai_shrine", "inoiri_port", "hinako_room", "climax"]
    g = s["checks"]["generic:basic"]
    assert (g["n"], g["succ"], g["p_n"], g["p_succ"]) == (16, 13, 16, 13)
    assert s["checks"]["relation:opposed:active"]["n"] == 20
    assert s["resources_end"]["aoi.passion"] == 5 and s["resources_end"]["beni.willpower"] == 1
    assert s["resources_by_scene"]["climax"]["chika.grace"] == 2
    assert s["effects"] == {"aoi:ganbariya": 1, "beni:kyoshi": 1}
    assert "dora:majo" in s["effects_available"]


def test_stalled_session_is_marked():
    s = play_one(str(YOGARIBITO), ["all=scripted"], 1, max_decisions=20)
    assert not s["finished"] and s["stall"] and "decision_cap" in s["caps"]
    assert s["decisions"] >= 20


def test_summarize_reads_materialized_events_too():
    from agent.table import SeatSpec, Table
    from engine.core.scenario import load_scenario
    from engine.core.session import Session

    session = Session(load_scenario(YOGARIBITO), 1)
    Table(session, SeatSpec.parse(["all=scripted"])).run()
    _ = session.events  # builds the pydantic models
    assert summarize(session) == play_one(str(YOGARIBITO), ["all=scripted"], 1)


@pytest.mark.parametrize("pool", range(0, 7))
@pytest.mark.parametrize("target", range(0, 5))
def test_yogaribito_probability_matches_brute_force(pool, target):
    from engine.systems.yogaribito.checks import evaluate

    faces = list(itertools.product(range(1, 7), repeat=pool))
    wins = sum(1 for f in faces if evaluate(list(f), target)[2])
    assert yogaribito_success_probability(pool, target) == pytest.approx(wins / len(faces), abs=1e-12)


@pytest.mark.parametrize("pool", range(0, 7))
@pytest.mark.parametrize("threshold", range(0, 5))
def test_bloodberry_probability_matches_brute_force(pool, threshold):
    faces = list(itertools.product(range(1, 7), repeat=pool))
    wins = sum(1 for f in faces if sum(1 for x in f if x >= 5) >= threshold)
    assert bloodberry_success_probability(pool, threshold) == pytest.approx(wins / len(faces), abs=1e-12)


def test_known_probabilities():
    assert yogaribito_success_probability(0, 1) == 0.0
    assert yogaribito_success_probability(1, 1) == pytest.approx(1 / 3)
    assert yogaribito_success_probability(2, 1) == pytest.approx(5 / 9)
    assert yogaribito_success_probability(2, 2) == pytest.approx(4 / 36)  # both 5/6 (two 6s included)
    assert bloodberry_success_probability(3, 1) == pytest.approx(1 - (2 / 3) ** 3)


def test_play_one_lets_go_of_its_session():
    """The shared transitions machines would otherwise keep every finished session alive (memory grows with N)."""
    import gc

    from engine.core.session import Session

    def alive() -> int:
        gc.collect()
        return sum(1 for o in gc.get_objects() if isinstance(o, Session))

    # one session first: whatever the first session of a process leaves behind (a lazily built machine, a module
    # cache) is left once, whichever test of the worker came first; what is measured is growth with N
    play_one(str(YOGARIBITO), ["all=scripted"], 99)
    before = alive()
    for seed in range(3):
        play_one(str(YOGARIBITO), ["all=scripted"], seed)
    assert alive() <= before


def test_replacement_pc_has_end_values_but_no_trajectory():
    s = play_one(str(YOGARIBITO), ["all=scripted"], 34)  # mio dies in the climax; mio_2 replaces her afterwards
    assert s["pcs"].get("mio") == "dead" and "mio_2.life" in s["resources_end"]
    assert all(not k.startswith("mio_2.") for vals in s["resources_by_scene"].values() for k in vals)


def test_yogaribito_constant_feats_count_when_they_apply():
    """A constant feat is never "used": it counts as fired when it is in a check's static modifiers or in a damage
    determination's parts (the target's for damage received, the attacker's for damage dealt)."""
    from engine.systems.yogaribito.report import check_effects as _yogaribito_check_effects

    assert _yogaribito_check_effects("damage", {"attacker": "count", "target": "jin",
                                                "parts": [["1D6", 4], ["diamond_body", -1], ["night_predator", 1],
                                                          ["adept", 1]]}) == ["jin:diamond_body", "count:night_predator"]
    assert _yogaribito_check_effects("entry", {"who": "mio", "mods": [["ordinary_intuition", 1], ["blessing", 1]]}) \
        == ["mio:ordinary_intuition"]  # blessing is a pending effect, not a constant feat
    assert _yogaribito_check_effects("hit", {"who": "jin", "mods": []}) == []


def test_a_yogaribito_session_counts_its_constant_feats_from_the_log():
    from engine.core import Session, load_scenario
    from agent.scripted import ScriptedAgent

    sc = load_scenario(YOGARIBITO)
    for seed in range(40):
        s = Session(sc, seed)
        agent = ScriptedAgent()
        while not s.is_over:
            s.answer(agent.act(s.view()), policy="scripted")
        applied = sum(1 for e in s.events if getattr(e, "type", "") == "check" and e.check == "damage"
                      and any(p[0] == "diamond_body" for p in e.data["parts"]))
        if applied:
            assert summarize(s)["effects"].get("jin:diamond_body") == applied
            return
    pytest.fail("no session of 40 applied diamond_body")


class _HandSession:
    """Just what ``summarize`` reads of a session, around events built by hand."""

    def __init__(self, system, events):
        from types import SimpleNamespace

        self.system = system
        self.events = events
        self.outcome = {"ending": "done", "pcs": {"jin": "alive"}}
        self.seed = 0
        self.decisions = 0
        self.scenario = SimpleNamespace(id="hand", model=SimpleNamespace(pcs=[]))
        self.game = SimpleNamespace(actors=lambda: ["jin"])

    def actor_role(self, actor):
        return "pc"

    def snapshot(self):
        return {}


def _hit(cid, faces, success):
    from engine.core.events import CheckEvent, CheckRoll

    roll = CheckRoll(who="jin", pool=len(faces), faces=faces, target=1, ach=sum(f >= 5 for f in faces),
                     success=success, result="success" if success else "failure")
    mods = [] if success else [["ordinary_intuition", 1]]  # a constant feat in the pool
    return CheckEvent(id=cid, check="hit", rule="§5.2", label="命中判定", rolls=[roll],
                      data={"who": "jin", "rolls": [faces], "luck": None, "mods": mods})


@pytest.mark.parametrize("lazy", [False, True], ids=["models", "tuples"])
@pytest.mark.parametrize("system", ["yogaribito", None])
def test_a_voided_check_is_not_counted(lazy, system):
    """A ``void`` event retracts a check (「A」's hero point effect B): the statistics skip it, its effects too;
    a check nobody voided counts. The probability comes from the typed dice line (pool, target)."""
    from engine.core.events import RollEvent, VoidEvent
    from engine.core.registry import get_system

    events = [RollEvent(purpose="hit:jin", sides=6, value=5), RollEvent(purpose="hit:jin", sides=6, value=6),
              _hit("k1", [5, 6], True),
              RollEvent(purpose="hit:jin", sides=6, value=1), RollEvent(purpose="hit:jin", sides=6, value=2),
              _hit("k2", [1, 2], False),
              VoidEvent(check="k2", rule="§8", reason="ヒーローポイント効果B", by="jin")]
    if lazy:  # as a session keeps them before anyone materializes them
        events = [(type(e), dict(e.__dict__)) for e in events]
    info = get_system("yogaribito")
    if system is None:  # a system without report hooks: the generic ones (counts only)
        from dataclasses import replace

        info = replace(info, id="handmade", report=None)
    s = summarize(_HandSession(info, events))
    hit = s["checks"]["hit"]
    assert (hit["n"], hit["judged"], hit["succ"]) == (1, 1, 1)
    if system is None:
        assert (hit["p_n"], hit["p_sum"]) == (0, 0.0)
    else:
        assert (hit["p_n"], hit["p_succ"]) == (1, 1)
        assert hit["p_sum"] == pytest.approx(yogaribito_success_probability(2, 1))
        assert "jin:ordinary_intuition" not in s["effects"]  # only the voided check applied it
    # without the void both count
    s = summarize(_HandSession(info, events[:-1]))
    assert (s["checks"]["hit"]["n"], s["checks"]["hit"]["succ"]) == (2, 1)
    if system is not None:
        assert s["effects"] == {"jin:ordinary_intuition": 1}


_SAMPLES = [(s.id, p) for s in systems() for p in s.sample_scenarios]


@pytest.mark.parametrize("system,path", _SAMPLES, ids=[f"{s}:{p.name}" for s, p in _SAMPLES])
def test_a_batch_session_keeps_no_events_and_summarizes_as_they_happen(system, path):
    """Scripted seats never read the past: the batch's session keeps no events; its summary, built event by event,
    is the summary of the same session's kept events."""
    from agent.batch.sessions import make_table
    from agent.table import SeatSpec, Table
    from engine.core.scenario import load_scenario
    from engine.core.session import Session

    table = make_table(str(path), ["all=scripted"], 3)
    assert not table.session.keep_events
    streamed = play_one(str(path), ["all=scripted"], 3)
    session = Session(load_scenario(path), 3)
    Table(session, SeatSpec.parse(["all=scripted"])).run()
    assert summarize(session) == streamed


def test_a_seat_that_reads_the_past_keeps_the_events():
    from agent.batch.sessions import make_table

    table = make_table(str(INOIRI), ["all=scripted", "gm=llm"], 0, llm=lambda policy: None)
    assert table.session.keep_events
    assert make_table(str(INOIRI), ["all=random"], 0).session.keep_events is False
    assert make_table(str(INOIRI), ["all=scripted"], 0, on_decision=lambda row: None).session.keep_events


def test_a_batch_session_builds_only_the_events_its_summary_reads():
    """No log and no kept events: the batch session hands its summary only the classes it reads
    (``SUMMARY_EVENTS``) and builds no decision, answer, auto, narration or roll event (the dice and the
    decisions by kind are read from the session); the summary is the one of every event kept (above)."""
    from agent.batch.sessions import make_table
    from agent.batch.summary import SUMMARY_EVENTS
    from engine.core.events import AnswerEvent, AutoEvent, DecisionEvent, NarrationEvent, RollEvent

    table = make_table(str(INOIRI), ["all=scripted"], 2)
    seen: list[type] = []
    feed = table.summary.feed
    table.session.on_event = lambda cls, f: (seen.append(cls), feed(cls, f))
    table.run()
    assert seen and set(seen) <= SUMMARY_EVENTS
    assert not {AnswerEvent, AutoEvent, DecisionEvent, NarrationEvent, RollEvent} & set(seen)
    assert table.session.dice.rolls  # the dice were rolled all the same, and the summary read them there
    assert table.summary.check_log
    assert sum(table.session.kinds.values()) == table.session.decisions + table.session.standing_resolved


def test_the_dice_since_a_check_read_one_purpose_as_the_built_map_does():
    """A report hook's dice (``_DiceSince``): one purpose is read by a scan of the rolls in range, the same lists
    the map of every purpose gives once it is built."""
    from agent.batch.summary import _DiceSince
    from engine.core.dice import Dice

    d = Dice(5)
    d.shuffle(list(range(20)), "shuffle:x")
    d.pool(3, "relation:aoi")
    d.pool(2, "relation:beni")
    d.pool(2, "relation:aoi")
    lazy, built = _DiceSince(d.rolls, 4, len(d.rolls)), _DiceSince(d.rolls, 4, len(d.rolls))
    full = dict(built.items())
    for key in ("relation:aoi", "relation:beni", "shuffle:x", "nothing"):
        assert lazy.get(key) == full.get(key) and (key in lazy) == (key in full)
    assert lazy["relation:aoi"] == [r.value for r in d.rolls if r.purpose == "relation:aoi"]
    with pytest.raises(KeyError):
        lazy["nothing"]
    assert dict(lazy.items()) == full
