"""Who sees what: the one place that decides whether an actor may see an event (ARCHITECTURE 8).

Every event that can be private carries its audience (``to``: ``None`` for everyone at the table, otherwise the
actors listed). The rules set it when they emit (``GameContext.whisper``, ``to=`` on the emitters, a system's
audience for state paths); this module only reads it. A seat — the terminal, a browser, an LLM prompt, a research
adapter — reads the past through ``seat_transcript`` and nothing else, so no agent ever filters the omniscient log.

Two events are shown in part:

- an answer with speech (``text``) that is not sealed, to those outside its audience: what was said aloud is heard
  by everyone, the choice only by the audience (the projection keeps ``text`` and drops the choice and its label);
- a declaration of standing answers, to its audience: each seat it names sees its own answers only (the GM sees
  them all);
- nothing else: an event is seen whole or not at all.

Agent and table events that are not part of the fiction (model calls) are in no seat's transcript; a voided check
(``void`` event) is dropped from every transcript, though it stays in the log.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from .events import AnswerEvent, CheckEvent, HeaderEvent, ModelCallEvent, StandingEvent, VoidEvent

__all__ = ["GM", "visible", "seen_by", "seat_transcript", "voided_checks", "audience", "Secret"]

#: the GM's actor id in every system
GM = "gm"


def _json_inner(text: str) -> str:
    """``text`` as it appears inside a JSON string (escaped, without the quotes)."""
    return json.dumps(text, ensure_ascii=False)[1:-1]


@dataclass(frozen=True, slots=True)
class Secret:
    """A private fact and who holds it (``Game.secrets()``): the conformance suite checks that no seat outside
    ``holders`` ever sees ``text`` in its observation, decisions or transcript, whatever its length. ``ident``: the
    text is an id (of a character not met yet, say), found only as a whole id — a JSON string of its own, one part
    of a ``:``-joined option id or a quoted id of a prompt — and not inside a longer one (``f_akari`` does not name ``akari``)."""

    text: str
    holders: frozenset[str]
    ident: bool = False

    @classmethod
    def of(cls, text: str, *holders: str) -> Secret:
        return cls(text, frozenset(holders))

    def found_in(self, text: str) -> bool:
        """Whether ``text`` (JSON text: an observation, a decision, a transcript) shows the secret."""
        item = _json_inner(self.text)
        if not self.ident:
            return item in text
        return re.search(rf'(?<=["`:]){re.escape(item)}(?=["`:])', text) is not None


def audience(to: Iterable[str] | None, *, gm: bool = True) -> list[str] | None:
    """An audience list for an event: ``None`` stays public; otherwise the actors in first-seen order, with the GM
    added unless ``gm`` is false (a sealed simultaneous answer, a secret the GM must not see)."""
    if to is None:
        return None
    out = list(dict.fromkeys(to))
    if gm and GM not in out:
        out.append(GM)
    return out


def visible(event: BaseModel, actor: str) -> bool:
    """Whether ``actor`` may see ``event`` whole."""
    to = getattr(event, "to", None)
    return to is None or actor in to


def seen_by(event: BaseModel, actor: str) -> BaseModel | None:
    """``event`` as ``actor`` sees it: itself, a projection (the speech of an answer it may not see), or None."""
    if isinstance(event, (ModelCallEvent, HeaderEvent)):
        return None
    to = getattr(event, "to", None)
    if isinstance(event, StandingEvent) and actor != GM and to is not None and actor in to and len(event.answers) > 1:
        # a seat sees its own standing answers, not the others' (their list names every actor at the table, the NPCs
        # and enemies it has not met included)
        mine = event.answers.get(actor)
        return event.model_copy(update={"answers": {actor: mine}, "to": [actor, GM]}) if mine is not None else None
    if to is None or actor in to:
        return event
    if isinstance(event, AnswerEvent):
        text = event.answer.get("text")
        if isinstance(text, str) and text and not event.sealed:
            return event.model_copy(update={"answer": {"text": text}, "label": "", "to": None})
    return None


def voided_checks(events: Iterable[BaseModel]) -> set[str]:
    """The ids of the checks a ``void`` event retracted."""
    return {e.check for e in events if isinstance(e, VoidEvent)}


def seat_transcript(events: Sequence[BaseModel], actor: str, start: int = 0, *,
                    void: Collection[str] | None = None) -> list[Any]:
    """The events from ``start`` on as ``actor`` sees them, voided checks left out (a check voided later than
    ``start`` is left out too: the transcript is what the seat knows now). ``void``: the ids of the voided checks
    when the caller keeps them (``Session``), else they are read from ``events``."""
    if void is None:
        void = voided_checks(events)
    out: list[Any] = []
    for i in range(start, len(events)):
        e = events[i]
        if void and isinstance(e, CheckEvent) and e.id in void:
            continue
        seen = seen_by(e, actor)
        if seen is not None:
            out.append(seen)
    return out
