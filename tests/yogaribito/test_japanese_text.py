"""夜狩り人 game text is Japanese (the project rule: Japanese game text, ASCII code ids): no decision prompt, option
label, info or narration text that players and the GM read contains an English word. Data texts shown to players
(feat effects, enemy profiles) have Japanese versions (engine/systems/yogaribito/DESIGN.md, "Japanese text").
The machinery is tests/japanese_text.py."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agent.random_agent import RandomAgent
from agent.scripted import ScriptedAgent
from engine.core import Session, load_scenario
from engine.systems.yogaribito.arms import ENEMIES, FEATS
from engine.systems.yogaribito.creation import new_character_session
from tests import japanese_text
from tests.japanese_text import WORD, play_and_collect

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "scenarios" / "yogaribito" / "night_of_the_count.yaml"

#: allowed: ``id=《名前》`` lists in payload prompts (they name the ids the payload must use) and a code id in
#: parentheses that tells apart two characters of the same name (``CombatMixin.who``: 「屍鬼（ghoul_1）」)
ALLOWED = (re.compile(r"\b[a-z][a-z0-9_]*=(?=《)"), re.compile(r"（[a-z][a-z0-9_#]*）"))


def english(text: str, free: set[str]) -> list[str]:
    return japanese_text.english(text, free, ALLOWED)


def assert_japanese(texts: list[tuple[str, str]], free: set[str]) -> None:
    japanese_text.assert_japanese(texts, free, ALLOWED)


@pytest.mark.parametrize("seed", range(6))
def test_session_texts_are_japanese_scripted(seed: int) -> None:
    assert_japanese(*play_and_collect(Session(load_scenario(SAMPLE), seed=seed), ScriptedAgent()))


@pytest.mark.parametrize("seed", range(6))
def test_session_texts_are_japanese_random(seed: int) -> None:
    assert_japanese(*play_and_collect(Session(load_scenario(SAMPLE), seed=seed), RandomAgent(seed)))


@pytest.mark.parametrize("seed", range(4))
def test_creation_texts_are_japanese(seed: int) -> None:
    """`trpg new-character yogaribito`: D01–D16 (cc.*), scripted and random."""
    assert_japanese(*play_and_collect(new_character_session(seed), ScriptedAgent()))
    assert_japanese(*play_and_collect(new_character_session(seed), RandomAgent(seed)))


def test_the_check_finds_english() -> None:
    """The check itself: English is found, the allowed forms and the agents' free texts are not."""
    assert english("《銀の弾丸》（your next attack）", set()) == ["your", "next", "attack"]
    assert english("拳銃（handgun#2）で攻撃", set()) == []  # an id in parentheses
    assert english("silver_bullet=《銀の弾丸》、occult_lore=《対魔知識》", set()) == []
    assert english("xhzmib（【技】）: 【燎】を使う?", {"xhzmib"}) == []
    assert english("information check: 【財】でダイスを買う?", set()) == ["information", "check"]


def test_every_feat_has_a_japanese_effect() -> None:
    assert len(FEATS) == 39
    for fid, f in FEATS.items():
        assert f.effect_jp.strip(), fid
        assert not WORD.search(f.effect_jp), (fid, f.effect_jp)
        assert f.effect.strip(), fid  # the spec's English text is kept for reference


def test_every_enemy_has_a_japanese_profile() -> None:
    for eid, e in ENEMIES.items():
        assert e.attacks_jp.strip(), eid
        assert not WORD.search(e.attacks_jp), (eid, e.attacks_jp)
