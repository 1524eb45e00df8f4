"""Shared by the systems' Japanese-text tests (tests/<system>/test_japanese_text.py): play a session, collect every
text players and the GM read (decision prompts, option labels, info and narration texts, check labels), and find
English words in them. The project rule: Japanese game text, ASCII code ids."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any

from engine.core import Session
from engine.core.events import CheckEvent, InfoEvent, NarrationEvent

__all__ = ["WORD", "english", "strings", "play_and_collect", "assert_japanese"]

#: an English word: a run of 4 or more ASCII letters
WORD = re.compile(r"[A-Za-z]{4,}")


def english(text: str, free: set[str], allowed: Sequence[re.Pattern[str]] = ()) -> list[str]:
    """The English words of ``text`` once the ``allowed`` forms and the agents' own free texts are removed."""
    for s in sorted(free, key=len, reverse=True):
        text = text.replace(s, " ")
    for rx in allowed:
        text = rx.sub(" ", text)
    return WORD.findall(text)


def strings(x: Any) -> Iterator[str]:
    """Every string inside nested dicts, lists and tuples."""
    if isinstance(x, str):
        yield x
    elif isinstance(x, dict):
        for v in x.values():
            yield from strings(v)
    elif isinstance(x, list | tuple):
        for v in x:
            yield from strings(v)


def play_and_collect(s: Session, agent: Any) -> tuple[list[tuple[str, str]], set[str]]:
    """Play to the end; return every (where, text) shown and the free texts the agent itself wrote (random strings
    of a random agent's payloads: player input, not engine text)."""
    texts: list[tuple[str, str]] = []
    free: set[str] = set()
    n = 0
    while (d := s.pending) is not None:
        texts.append((f"prompt {d.kind}", d.prompt))
        texts += [(f"label {d.kind} {o.id}", o.label) for o in d.options or ()]
        ans = agent.act(s.view(d))
        if d.payload_model is not None:
            free |= {x for x in strings(ans) if len(x) >= 4}
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


def assert_japanese(texts: list[tuple[str, str]], free: set[str], allowed: Sequence[re.Pattern[str]] = ()) -> None:
    bad = sorted({(where, text) for where, text in texts if english(text, free, allowed)})
    assert not bad, "English in game text:\n" + "\n".join(f"  {w}: {t}" for w, t in bad[:40])
