"""夜狩り人 game text is Japanese (the project rule: Japanese game text, ASCII code ids): no decision prompt, option
label, info or narration text that players and the GM read contains an English word. Data texts shown to players
(feat effects, enemy profiles) have Japanese versions (engine/systems/yogaribito/DESIGN.md, "Japanese text")."""

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
from engine.systems.yogaribito.arms import ENEMIES, FEATS
from engine.systems.yogaribito.creation import new_character_session

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "scenarios" / "yogaribito" / "night_of_the_count.yaml"

#: an English word: a run of 4 or more ASCII letters
WORD = re.compile(r"[A-Za-z]{4,}")
#: allowed: ``id=《名前》`` lists in payload prompts (they name the ids the payload must use) and a code id in
#: parentheses that tells apart two characters of the same name (``CombatMixin.who``: 「屍鬼（ghoul_1）」)
ALLOWED = (re.compile(r"\b[a-z][a-z0-9_]*=(?=《)"), re.compile(r"（[a-z][a-z0-9_#]*）"))


def english(text: str, free: set[str]) -> list[str]:
    """The English words of ``text`` once the allowed id forms and the agents' own free texts are removed."""
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
