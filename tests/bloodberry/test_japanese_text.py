"""ブラッドベリー game text is Japanese (the project rule: Japanese game text, ASCII code ids): no decision prompt, option
label, info or narration text that players and the GM read contains an English word, in play (both sample
scenarios, scripted and random) and in character creation (`trpg new-character bloodberry`). The machinery is
tests/japanese_text.py."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agent.random_agent import RandomAgent
from agent.scripted import ScriptedAgent
from engine.core import Session, load_scenario
from engine.systems.bloodberry.creation import new_character_session
from engine.systems.bloodberry.data import (
    BASIC_SKILLS, CLASS_NAMES, CLASS_SKILL_NAMES, CURSE_TABLE, EMOTION_TABLE, RACE_SKILL_NAMES, RELATION_TABLE,
)
from tests import japanese_text
from tests.japanese_text import WORD, play_and_collect, strings

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = [ROOT / "scenarios" / "bloodberry" / f"{name}.yaml" for name in ("inoiri_dolls", "salt_festival")]

#: allowed: nothing beyond the agents' own free texts (card names such as 「Q♣」 and short tags such as 「GM」「PC」「1D6」
#: are shorter than a word). A form allowed later is added here with its reason.
ALLOWED: tuple[re.Pattern[str], ...] = ()


def english(text: str, free: set[str]) -> list[str]:
    return japanese_text.english(text, free, ALLOWED)


def assert_japanese(texts: list[tuple[str, str]], free: set[str]) -> None:
    japanese_text.assert_japanese(texts, free, ALLOWED)


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.stem)
@pytest.mark.parametrize("seed", range(10))
def test_session_texts_are_japanese_scripted(sample: Path, seed: int) -> None:
    assert_japanese(*play_and_collect(Session(load_scenario(sample), seed=seed), ScriptedAgent()))


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.stem)
@pytest.mark.parametrize("seed", range(10))
def test_session_texts_are_japanese_random(sample: Path, seed: int) -> None:
    assert_japanese(*play_and_collect(Session(load_scenario(sample), seed=seed), RandomAgent(seed)))


@pytest.mark.parametrize("seed", range(4))
def test_creation_texts_are_japanese(seed: int) -> None:
    """`trpg new-character bloodberry`: the seven steps (cc.*) and the GM's approval, scripted and random."""
    assert_japanese(*play_and_collect(new_character_session(seed), ScriptedAgent()))
    assert_japanese(*play_and_collect(new_character_session(seed), RandomAgent(seed)))


def test_the_check_finds_english() -> None:
    """The check itself: English is found; short tags, cards and the agents' free texts are not."""
    assert english("探究: [2, 5, 5, 2, 1, 1] → 達成値 2. Reroll?", set()) == ["Reroll"]
    assert english("このまま (keep the result)", set()) == ["keep", "result"]
    assert english("陣営 rivals: 場所の欠片を置く", set()) == ["rivals"]
    assert english("Q♣ を出す（GMが承認、+1D、PC1）", set()) == []
    assert english("xhzmib の行動を許可する?", {"xhzmib"}) == []


def test_data_texts_are_japanese() -> None:
    """The data tables shown in option labels: basic skills (name, description, effect), classes, class and race
    skills, the relation, emotion and curse tables."""
    texts = [t for s in BASIC_SKILLS.values() for t in (s.name, s.description, s.effect_text)]
    texts += list(CLASS_NAMES.values()) + list(CLASS_SKILL_NAMES.values()) + list(RACE_SKILL_NAMES.values())
    texts += list(strings(RELATION_TABLE)) + list(strings(EMOTION_TABLE)) + list(strings(CURSE_TABLE))
    assert texts
    bad = [t for t in texts if WORD.search(t) and not re.fullmatch(r"[a-z][a-z0-9_]*", t)]
    assert not bad, bad
