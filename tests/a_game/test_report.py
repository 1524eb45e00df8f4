"""「A」's playtest report hooks: the exact probability of a check's first roll next to its raw result; opposed checks
get none; the batch summary reads them from real sessions."""

from __future__ import annotations

from pathlib import Path

from agent.batch.summary import summarize
from agent.scripted import ScriptedAgent
from engine.core import Session, load_scenario
from engine.systems.a_game.odds import p_first_roll
from engine.systems.a_game.report import REPORT, check_entries

ROOT = Path(__file__).resolve().parents[2]


def test_check_entries():
    data = {"n": 3, "fixed": 1, "difficulty": 4, "raw": "success", "result": "success", "opponent": None}
    assert check_entries("declared", [], data, {}) == [("declared", True, p_first_roll(3, 4, 1), True)]
    assert check_entries("declared", [], {**data, "result": "intermediate", "raw": "intermediate"}, {})[0][1:] == \
        (False, p_first_roll(3, 4, 1), False)
    assert check_entries("declared", [], {**data, "opponent": {"who": "x"}}, {}) == [("declared", True, None, None)]
    assert REPORT.outcomes({"goals": {"s1": "achieved"}}) == {"goal s1": "achieved"}


def test_the_summary_of_a_scripted_game_compares_theory_and_rolls():
    s = Session(load_scenario(ROOT / "scenarios" / "a_game" / "yomichi_no_hikari.yaml"), seed=3)
    agent = ScriptedAgent()
    while not s.is_over:
        s.answer(agent.act(s.view()), policy="scripted")
    summary = summarize(s)
    checks = summary["checks"]
    assert set(checks) >= {"declared", "passive"}
    assert summary["ending"] in ("all_goals", "some_goals", "no_goals")
