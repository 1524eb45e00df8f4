"""ブラッドベリー game text is Japanese (the project rule: Japanese game text, ASCII code ids): no decision prompt, option
label, info or narration text that players and the GM read contains an English word, in play (both sample
scenarios, scripted and random) and in character creation (`trpg new-character bloodberry`). Modelled on
tests/yogaribito/test_japanese_text.py."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent.random_agent import RandomAgent
from agent.scripted import ScriptedAgent
from engine.core import Session, load_scenario
from engine.core.events import CheckEvent, InfoEvent, NarrationEvent
from engine.systems.bloodberry.creation import new_character_session
from engine.systems.bloodberry.data import (
    BASIC_SKILLS, CLASS_NAMES, CLASS_SKILL_NAMES, CURSE_TABLE, EMOTION_TABLE, RACE_SKILL_NAMES, RELATION_TABLE,
)

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = [ROOT / "scenarios" / "bloodberry" / f"{name}.yaml" for name in ("inoiri_dolls", "salt_festival")]

#: an English word: a run of 4 or more ASCII letters
WORD = re.compile(r"[A-Za-z]{4,}")
#: allowed: nothing beyond the agents' own free texts (card names such as 「Q♣」 and short tags such as 「GM」「PC」「1D6」
#: are shorter than a word). Kept as a tuple so that an allowed form can be added with its reason.
ALLOWED: tuple[re.Pattern[str], ...] = ()


def english(text: str, free: set[str]) -> list[str]:
    """The English words of ``text`` once the allowed forms and the agents' own free texts are removed."""
    for s in sorted(free, key=len, reverse=True):
        text = text.replace(s, " ")
    for rx in ALLOWED:
        text = rx.sub(" ", text)
    return WORD.findall(text)


def _strings(x: Any) -> Iterator[str]:
    if isinstance(x, str):
        yield x
    elif isinstance(x, dict):
        for v in x.values():
            yield from _strings(v)
    elif isinstance(x, list | tuple):
        for v in x:
            yield from _strings(v)


def play_and_collect(s: Session, agent: Any) -> tuple[list[tuple[str, str]], set[str]]:
    """Play to the end; return every (where, text) shown and the free texts the agent itself wrote (random strings
    of a random agent's payloads: player input, not engine text)."""
    texts: list[tuple[str, str]] = []
    free: set[str] = set()
    n = 0
    while (d := s.pending) is not None:
        texts.append((f"prompt {d.kind}", d.prompt))
        texts += [(f"label {d.kind} {o.id}", o.label) for o in d.options or ()]
        ans = agent.act(d, s)
        if d.payload_model is not None:
            free |= {x for x in _strings(ans) if len(x) >= 4}
        s.answer(ans, policy=agent.name)
        n += 1
        assert n < 20_000, "session does not end"
    for e in s.events:
        if isinstance(e, InfoEvent):
            texts.append((f"info {e.topic}", e.text))
        elif isinstance(e, NarrationEvent):
            texts.append((f"narration {e.actor}", e.text))
        elif isinstance(e, CheckEvent):
            # the terminal and the transcript print a check by its label: every check has one, in Japanese
            texts.append((f"check {e.check}", str(e.data.get("label", f"(no label) {e.check}"))))
    return texts, free


def assert_japanese(texts: list[tuple[str, str]], free: set[str]) -> None:
    bad = sorted({(where, text) for where, text in texts if english(text, free)})
    assert not bad, "English in game text:\n" + "\n".join(f"  {w}: {t}" for w, t in bad[:40])


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
    texts += list(_strings(RELATION_TABLE)) + list(_strings(EMOTION_TABLE)) + list(_strings(CURSE_TABLE))
    assert texts
    bad = [t for t in texts if WORD.search(t) and not re.fullmatch(r"[a-z][a-z0-9_]*", t)]
    assert not bad, bad
