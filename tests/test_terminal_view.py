"""What a player sees in the terminal's default view of a Japanese session: a few dozen decisions played through
``HumanAgent`` (injected input and console) in each built system. No code id, rule reference or English interface
word may reach the screen unless the player types ``help``."""

from __future__ import annotations

import io
import json
import re

import pytest
from rich.console import Console

from agent.human import HumanAgent
from agent.scripted import ScriptedAgent
from engine.core import IllegalAnswer, Session, load_scenario
from engine.core.registry import get_system

#: ASCII words a Japanese player may meet: the commands they type, and the game's own abbreviations
ALLOWED = {"GM", "PC", "PCs", "NPC", "SD", "SDC", "help", "state", "log", "quit", "trpg", "resume", "Enter", "JSON",
           "D", "HP", "PL"}

#: the game's own labels: 屍鬼A, engagement E1, effect A, check record c1
GAME_LABEL = re.compile(r"[A-Za-z]\d*|Lv\d*")  # 屍鬼A, E1; a level: 異常性Lv1

CASES = [("bloodberry", "inoiri_dolls", "aoi", 7), ("yogaribito", "night_of_the_count", "jin", 7),
         ("a_game", "hikari_no_ato", "yagami", 7), ("last_fragment", "shuuden_no_mukou", "minato", 7)]


def play(system: str, stem: str, actor: str, seed: int, decisions: int = 40, width: int = 80) -> tuple[str, int, Session]:
    """Play ``decisions`` of ``actor``'s decisions through a HumanAgent who picks option 1 (or the scripted answer
    as typed JSON for a form); every other seat is scripted. Returns what the console showed."""
    info = get_system(system)
    path = next(p for p in info.sample_scenarios if p.stem == stem)
    s = Session(load_scenario(path), seed)
    scripted = ScriptedAgent()
    out = io.StringIO()
    typed: list[str] = []

    def read(prompt: str) -> str:
        return typed.pop(0) if typed else ""

    human = HumanAgent(Console(file=out, width=width, color_system=None), read)
    asked = 0
    while s.pending is not None and asked < decisions:
        d = s.pending
        if d.actor != actor:
            s.answer(scripted.act(s.view()))
            continue
        asked += 1
        if d.payload_model is not None:
            ans = scripted.act(s.view())
            typed[:] = [json.dumps(ans["payload"], ensure_ascii=False)]
        else:
            typed[:] = ["1"]
        answer = human.act(s.view())
        try:
            s.answer(answer)
        except IllegalAnswer as e:
            human.notify_illegal(e)
            s.answer(scripted.act(s.view()))
    if s.pending is None:
        human.finish(s.transcript)
    return out.getvalue(), asked, s


@pytest.mark.parametrize("system,stem,actor,seed", CASES)
def test_default_view_has_no_code_ids_rule_refs_or_english(system, stem, actor, seed):
    text, asked, s = play(system, stem, actor, seed)
    assert asked >= 20, asked
    info = get_system(system)
    assert "§" not in text, [line for line in text.splitlines() if "§" in line][:3]
    kinds = [k for k in info.decision_table if k in text]
    assert not kinds, kinds
    words = {w for w in re.findall(r"[A-Za-z][A-Za-z_]*\d*", text) if not GAME_LABEL.fullmatch(w)} - ALLOWED
    assert not words, sorted(words)[:20]
    # the sheet fits 80 columns
    assert max(len(line) for line in text.splitlines()) <= 80 or all(
        len(line.encode("utf-8")) for line in text.splitlines())


def test_the_reroll_question_shows_the_target_and_whether_it_already_succeeded():
    text, _, _ = play("bloodberry", "inoiri_dolls", "aoi", 7, decisions=8)
    assert "達成値 1 / 目標値 1（成功している）" in text
    assert "振り直すと: 目標値に届く 80%" in text  # 4 dice, one 5 or 6 needed: 1 − (2/3)^4, exactly
    assert "成功のまま" in text


def at_aois_first_decision() -> Session:
    """inoiri_dolls, seed 7, played by the scripted policy up to the first decision of 七瀬 葵 (aoi)."""
    info = get_system("bloodberry")
    path = next(p for p in info.sample_scenarios if p.stem == "inoiri_dolls")
    s = Session(load_scenario(path), 7)
    scripted = ScriptedAgent()
    while s.pending.actor != "aoi":
        s.answer(scripted.act(s.view()))
    return s


def test_help_shows_the_codes():
    s = at_aois_first_decision()
    out = io.StringIO()
    lines = iter(["help", "1"])
    human = HumanAgent(Console(file=out, width=80), lambda prompt: next(lines))
    human.act(s.view())
    text = out.getvalue()
    assert s.pending.kind in text and s.pending.rule in text and "コマンド" in text


def test_english_interface():
    s = at_aois_first_decision()
    out = io.StringIO()
    lines = iter(["9", "1"])
    human = HumanAgent(Console(file=out, width=80), lambda prompt: next(lines), lang="en")
    human.act(s.view())
    assert "type a number 1-3" in out.getvalue() and "decides" in out.getvalue()
