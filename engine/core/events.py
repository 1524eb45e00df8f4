"""Typed session events and the append-only JSON-lines log.

Every event is a pydantic model with a literal ``type`` tag (Inspect AI's event union). The log is written as the
events happen (one line each, flushed), so a crash loses at most the line being written, and ``resume`` can carry
on from what is on disk. Lines are produced by pydantic's JSON serializer: UTF-8, Japanese kept as written, field
order fixed by the model, no timestamps: the same session gives the same bytes.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import IO, Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

__all__ = [
    "Event",
    "HeaderEvent",
    "RollEvent",
    "DecisionEvent",
    "AnswerEvent",
    "StateEvent",
    "PhaseEvent",
    "CheckEvent",
    "NarrationEvent",
    "InfoEvent",
    "EndEvent",
    "ModelCallEvent",
    "VoidEvent",
    "RulingEvent",
    "RevealEvent",
    "StandingEvent",
    "AutoEvent",
    "CheckRoll",
    "Audience",
    "EventLog",
    "EVENT_ADAPTER",
    "LOG_FORMAT",
    "read_log",
    "LogReadError",
]

#: 2: events carry their audience (``to``), checks are typed records with ids, void / ruling / reveal events
LOG_FORMAT = 2


class _Ev(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _no_audience(v: Any) -> bool:
    return v is None


def _not(v: Any) -> bool:
    return not v


#: who may see an event: ``None`` = everyone at the table; otherwise exactly these actors (the GM only when listed:
#: the engine adds it where the rules let the GM see, and leaves it out of a sealed simultaneous answer). Left out
#: of the JSON line when ``None``, so public events read as they always did.
Audience = Annotated[list[str] | None, Field(default=None, exclude_if=_no_audience)]


class HeaderEvent(_Ev):
    type: Literal["header"] = "header"
    format: int = LOG_FORMAT
    package_version: str
    system: str
    system_version: str
    scenario_id: str
    scenario_version: str
    scenario_path: str
    scenario_sha256: str
    seed: int
    config: dict[str, Any] = Field(default_factory=dict)
    seats: dict[str, str] = Field(default_factory=dict)
    forced_dice: list[Any] = Field(default_factory=list)
    options: dict[str, Any] = Field(default_factory=dict)


class RollEvent(_Ev):
    type: Literal["roll"] = "roll"
    purpose: str
    sides: int
    value: int
    forced: bool = False
    to: Audience = None


class DecisionEvent(_Ev):
    type: Literal["decision"] = "decision"
    seq: int
    actor: str
    kind: str
    rule: str
    prompt: str
    options: list[str] | None = None
    pick: list[int] | None = None
    payload: str | None = None
    to: Audience = None


class AnswerEvent(_Ev):
    type: Literal["answer"] = "answer"
    seq: int
    actor: str
    kind: str
    answer: dict[str, Any]
    policy: str = ""
    #: the chosen option's label(s), for readable transcripts
    label: str = ""
    to: Audience = None
    #: a member's answer to a simultaneous decision, held until the reveal: only its audience (the member) sees it,
    #: not even its speech
    sealed: bool = Field(False, exclude_if=_not)


class StateEvent(_Ev):
    type: Literal["state"] = "state"
    path: str
    old: Any = None
    new: Any = None
    rule: str = ""
    cause: str = ""
    to: Audience = None


class PhaseEvent(_Ev):
    type: Literal["phase"] = "phase"
    machine: str
    trigger: str
    src: str
    dst: str


class CheckRoll(_Ev):
    """One roller's dice in a check: the typed fields every consumer reads (prompts, terminal, statistics)."""

    who: str
    pool: int
    faces: list[int]
    #: the target number or difficulty the achievement is compared with (None: compared with an opponent)
    target: int | None = None
    #: the achievement (達成値) or total the rules read from the faces
    ach: int | None = None
    success: bool | None = None
    #: success / failure / critical / fumble / abandoned (what a player reads at a glance)
    result: str = ""


class CheckEvent(_Ev):
    """A resolved check (ARCHITECTURE 10): its id (``k1``, ``k2``, ... in the order of the session) lets a later
    ``void`` event retract it without editing the log; ``rolls`` are the typed dice lines, ``data`` the system's
    own details."""

    type: Literal["check"] = "check"
    id: str
    check: str
    rule: str
    label: str = ""
    rolls: list[CheckRoll] = Field(default_factory=list)
    #: the check's overall result when it has one besides its rolls (an opposed check's winner, a damage total)
    result: str = ""
    data: dict[str, Any] = Field(default_factory=dict)
    to: Audience = None


class VoidEvent(_Ev):
    """An earlier check (by id) is retracted: it stays in the log, every view and statistic skips it (「A」's hero
    point effect B). ``by``: who caused it; ``reason``: why, in the rules' words."""

    type: Literal["void"] = "void"
    check: str
    rule: str
    reason: str = ""
    by: str = ""
    to: Audience = None


class RulingEvent(_Ev):
    """A GM ruling: approval or refusal of ``subject`` with a reason code (``None`` when approved without one), so
    that approvals replay exactly and precedents can be kept across games."""

    type: Literal["ruling"] = "ruling"
    id: str
    by: str
    kind: str
    subject: str
    verdict: Literal["approve", "reject"]
    reason: str | None = None
    #: the reason in words, for players
    text: str = ""
    rule: str = ""
    data: dict[str, Any] = Field(default_factory=dict)
    to: Audience = None


class RevealEvent(_Ev):
    """The answers of a simultaneous decision, made public together once every member has answered (ARCHITECTURE
    9): ``seqs`` are the members' decisions, ``answers`` actor → answer (as in their answer events)."""

    type: Literal["reveal"] = "reveal"
    kind: str
    rule: str
    seqs: list[int]
    answers: dict[str, dict[str, Any]]
    labels: dict[str, str] = Field(default_factory=dict)
    to: Audience = None


class StandingEvent(_Ev):
    """Seats declared standing answers between two decisions (``engine.core.standing``): actor → decision kind → a
    standing answer id, or ``None`` where one was dropped. An input of the session, like an answer (replay feeds it
    back); seen by the GM, and by each actor it names as its own answers alone (``visibility.seen_by``)."""

    type: Literal["standing"] = "standing"
    answers: dict[str, dict[str, str | None]]
    to: Audience = None


class AutoEvent(_Ev):
    """A reaction window the engine resolved by its actor's standing answer ``standing`` instead of asking: the
    answer (as an answer event has it) and its label. Regenerated by replay from the declarations."""

    type: Literal["auto"] = "auto"
    actor: str
    kind: str
    standing: str
    answer: dict[str, Any]
    label: str = ""
    to: Audience = None


class NarrationEvent(_Ev):
    type: Literal["narration"] = "narration"
    actor: str
    text: str
    source: str = "scenario"
    to: Audience = None


class InfoEvent(_Ev):
    type: Literal["info"] = "info"
    topic: str
    text: str
    data: dict[str, Any] = Field(default_factory=dict)
    to: Audience = None


class EndEvent(_Ev):
    type: Literal["end"] = "end"
    outcome: dict[str, Any]


class ModelCallEvent(_Ev):
    """One LLM exchange (filled by the LLM agents; kept here so that every log has one event union)."""

    type: Literal["model_call"] = "model_call"
    seq: int
    actor: str
    kind: str
    data: dict[str, Any]


Event = Annotated[
    Union[
        HeaderEvent,
        RollEvent,
        DecisionEvent,
        AnswerEvent,
        StateEvent,
        PhaseEvent,
        CheckEvent,
        NarrationEvent,
        InfoEvent,
        EndEvent,
        ModelCallEvent,
        VoidEvent,
        RulingEvent,
        RevealEvent,
        StandingEvent,
        AutoEvent,
    ],
    Field(discriminator="type"),
]
EVENT_ADAPTER: TypeAdapter[Any] = TypeAdapter(Event)


class LogReadError(ValueError):
    pass


class EventLog:
    """Append-only JSON-lines writer; each line reaches the file as it is written.

    The file is opened unbuffered in binary mode and a line is one ``write`` of the bytes pydantic's serializer
    makes (``__pydantic_serializer__.to_json``: the bytes of ``model_dump_json()`` in UTF-8, without decoding them to
    a string and encoding them again through a text buffer that is flushed after every line). So a killed process
    loses at most the line being written, as before; a logged session's log costs about a quarter less
    (docs/benchmarks.md, issue #17's sixth step)."""

    def __init__(self, path: str | os.PathLike[str], mode: str = "w"):
        if mode not in ("w", "a"):
            raise ValueError(f"EventLog mode must be 'w' or 'a', got {mode!r}")
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._f: IO[bytes] | None = open(self.path, mode + "b", buffering=0)

    def write(self, event: BaseModel) -> None:
        self._put(type(event).__pydantic_serializer__.to_json(event) + b"\n")

    def write_line(self, line: str) -> None:
        self._put(line.encode("utf-8") + b"\n")

    def _put(self, data: bytes) -> None:
        f = self._f
        if f is None:
            raise ValueError(f"log {self.path} is closed")
        done = f.write(data)
        while done is not None and done < len(data):  # a short write (a signal, a full pipe): write the rest
            data = data[done:]
            done = f.write(data)

    def close(self) -> None:
        if self._f is not None:
            self._f.close()
            self._f = None


def read_log(path: str | os.PathLike[str]) -> tuple[list[Any], bool]:
    """Read a log. Returns (events, truncated): a last line cut off by a crash is dropped and reported."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as e:
        raise LogReadError(f"{p}: cannot read the log ({e.strerror or e})") from None
    # Split on the last newline before decoding: a crash can cut a line inside a multi-byte UTF-8 character.
    cut = raw.rfind(b"\n") + 1
    truncated = cut < len(raw)  # no newline at the end: the last line was being written when the process died
    try:
        text = raw[:cut].decode("utf-8", errors="strict")
    except UnicodeDecodeError as e:
        raise LogReadError(f"{p}: not UTF-8 text at byte {e.start}") from None
    lines = text.split("\n")
    lines.pop()  # the empty piece after the last newline
    if not lines and raw:
        raise LogReadError(f"{p}: the log holds only a partial first line (the session stopped while writing its "
                           "header); nothing can be replayed or resumed: start the session again")
    events: list[Any] = []
    for i, line in enumerate(lines, 1):
        try:
            events.append(EVENT_ADAPTER.validate_json(line))
        except Exception as e:  # pydantic ValidationError or JSON error
            # a line cut by a crash has no newline (it is left out above): a whole line that is no event was changed
            why = " ".join(str(e).splitlines()[:1]).replace("\r", " ")[:200]
            raise LogReadError(f"{p}, line {i}: not a valid event ({why})") from None
    if not events or not isinstance(events[0], HeaderEvent):
        raise LogReadError(f"{p}: line 1 is not a session header")
    return events, truncated
