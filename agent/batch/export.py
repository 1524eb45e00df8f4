"""Every decision of a batch as JSON lines (``trpg compare --export-decisions FILE``), for offline analysis or
imitation learning.

One line per answered decision::

    {"policy": "rnd", "seed": 7, "seq": 12, "actor": "aoi", "role": "pc", "kind": "pc.declare", "rule": "§5.1",
     "observation": {...}, "legal": {"options": ["a", "b"]}, "choice": {"choice": "a"}, "answered_by": "random"}

``policy`` is the compared policy's name (``--policy NAME:...``), ``answered_by`` the seat policy that really
answered (``scripted`` after an LLM fallback, ``forced`` for a forced answer). ``legal`` is ``{"options": [...]}``
for one option, ``{"options": [...], "pick": [lo, hi]}`` for a subset, ``{"payload_schema": {...}}`` for a payload.
``observation`` is the actor's observation when the decision was asked.

Lines are written as the sessions run (nothing is kept in memory). Each task writes its own part file; the parts
are concatenated in seed order at the end (``concat_parts``), so the file is the same for any number of workers.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import IO, Any

from pydantic import BaseModel, ConfigDict, model_validator

from engine.core.decision import Decision
from engine.core.events import AnswerEvent
from engine.core.session import Session

from ..table import Table

__all__ = ["ExportedDecision", "legal_of", "DecisionWriter", "ExportTable", "concat_parts", "validate_line"]


class ExportedDecision(BaseModel):
    """The schema of one exported line (``validate_line`` checks a line against it)."""

    model_config = ConfigDict(extra="forbid")

    policy: str
    seed: int
    seq: int
    actor: str
    role: str
    kind: str
    rule: str
    observation: dict[str, Any]
    legal: dict[str, Any]
    choice: dict[str, Any]
    answered_by: str

    @model_validator(mode="after")
    def _consistent(self) -> ExportedDecision:
        legal, choice = self.legal, self.choice
        if "payload_schema" in legal:
            if "payload" not in choice:
                raise ValueError("a payload decision answered without a payload")
            return self
        options = legal.get("options")
        if not isinstance(options, list):
            raise ValueError("legal names neither options nor a payload schema")
        if "pick" in legal:
            lo, hi = legal["pick"]
            picked = choice.get("choices")
            if not isinstance(picked, list) or not lo <= len(picked) <= hi or not set(picked) <= set(options):
                raise ValueError(f"choices {picked!r} are not {lo}..{hi} of {options}")
        elif choice.get("choice") not in options:
            raise ValueError(f"choice {choice.get('choice')!r} is not one of {options}")
        return self


def validate_line(line: str) -> ExportedDecision:
    return ExportedDecision.model_validate_json(line)


def legal_of(d: Decision) -> dict[str, Any]:
    if d.payload_model is not None:
        return {"payload_schema": d.payload_schema()}
    out: dict[str, Any] = {"options": d.option_ids}
    if d.pick is not None:
        out["pick"] = list(d.pick)
    return out


def _answer_of(session: Session, start: int, seq: int) -> tuple[dict[str, Any], str] | None:
    """The (answer, policy) the session recorded for decision ``seq`` among its events from ``start`` on."""
    for e in reversed(session._events[start:]):
        if type(e) is tuple:
            cls, f = e
            if cls is AnswerEvent and f["seq"] == seq:
                return dict(f["answer"]), str(f.get("policy") or "")
        elif isinstance(e, AnswerEvent) and e.seq == seq:
            return dict(e.answer), e.policy
    return None


class DecisionWriter:
    """Writes the decisions of the sessions it is given to an open text file, one JSON line each."""

    def __init__(self, fh: IO[str]):
        self.fh = fh
        self.lines = 0

    def for_session(self, policy: str, seed: int) -> Callable[[Mapping[str, Any]], None]:
        def write(rec: Mapping[str, Any]) -> None:
            self.fh.write(json.dumps({"policy": policy, "seed": seed, **rec}, ensure_ascii=False, default=str) + "\n")
            self.lines += 1

        return write


class ExportTable(Table):
    """A table that hands every answered decision (with the actor's observation) to ``on_decision``."""

    def __init__(self, *args: Any, on_decision: Callable[[Mapping[str, Any]], None], **kw: Any):
        super().__init__(*args, **kw)
        self.on_decision = on_decision

    def _before(self) -> tuple[Decision, dict[str, Any], dict[str, Any], int]:
        d = self.session.pending
        assert d is not None
        return d, d.observation, legal_of(d), len(self.session._events)

    def _after(self, d: Decision, obs: dict[str, Any], legal: dict[str, Any], start: int) -> None:
        s = self.session
        found = _answer_of(s, start, d.seq)
        if found is None:  # the session keeps no events: nothing to tell
            return
        answer, answered_by = found
        self.on_decision({"seq": d.seq, "actor": d.actor, "role": s.actor_role(d.actor), "kind": d.kind, "rule": d.rule,
                          "observation": obs, "legal": legal, "choice": answer, "answered_by": answered_by})

    def step(self) -> None:
        before = self._before()
        super().step()
        self._after(*before)

    async def step_async(self) -> None:
        before = self._before()
        await super().step_async()
        self._after(*before)


def concat_parts(parts: Iterable[str | Path], dest: str | Path) -> int:
    """Concatenate the part files (in the order given) into ``dest`` and delete them; returns the number of lines."""
    n = 0
    with open(dest, "w", encoding="utf-8") as out:
        for p in parts:
            with open(p, encoding="utf-8") as fh:
                for line in fh:
                    out.write(line)
                    n += 1
            Path(p).unlink()
    return n
