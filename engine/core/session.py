"""The pull-based session (OpenSpiel's ``State``, PettingZoo's AEC loop).

``session.pending`` is the next ``Decision`` (None when over); ``session.answer(x)`` checks ``x`` against it (the
checked door: ``IllegalAnswer``, state untouched), logs it, and runs the rules forward to the next decision.

A system's rules are a generator (``Game.run``) that yields ``Decision``s and receives checked ``Answer``s; the
session owns the dice, the event log and the decision numbering. A session is fully determined by its scenario,
seed, config, forced dice and the ordered answers, which is what ``engine.core.replay`` relies on.
"""

from __future__ import annotations

import functools
import hashlib
import json

from collections.abc import Callable, Generator, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel

from .decision import Answer, Decision, IllegalAnswer, Simultaneous, Window, picked_label
from .dice import Dice, Roll
from .events import (
    AnswerEvent,
    CheckEvent,
    CheckRoll,
    DecisionEvent,
    EndEvent,
    EventLog,
    HeaderEvent,
    InfoEvent,
    NarrationEvent,
    PhaseEvent,
    RevealEvent,
    RollEvent,
    AutoEvent,
    RulingEvent,
    StandingEvent,
    StateEvent,
    VoidEvent,
)
from .machine import FlowState, MachineSpec
from .scenario import LoadedScenario
from .seat import SeatView
from .standing import StandingAnswer, StandingError, standing_resolvers, standing_window
from .visibility import GM, audience, seat_transcript

__all__ = ["Session", "GameContext", "Game", "package_version", "ROLES", "SessionKey"]

_AUTO: Any = object()  # ``state(to=...)`` not given: the system's audience for the path decides

#: seat roles: who sits where (the CLI's --seat ROLE=POLICY)
ROLES = ("gm", "pc", "npc")


@functools.cache
def package_version() -> str:
    try:
        from importlib.metadata import version

        return version("trpg-agents")
    except Exception:  # running from a source tree without an install
        return "0+unknown"


class Game(Protocol):
    """What a system's rules object offers the session."""

    def run(self) -> Generator[Decision, Answer, dict[str, Any]]: ...

    def observation(self, actor: str) -> dict[str, Any]: ...

    def snapshot(self) -> dict[str, Any]: ...

    def actor_role(self, actor: str) -> str: ...

    def actors(self) -> list[str]: ...

    def secrets(self) -> list[Any]: ...


def _emit_after_end(cls: type[BaseModel], fields: dict[str, Any]) -> None:
    raise RuntimeError(f"the session is over: the rules emitted a {cls.__name__} after the end (engine bug)")


def _close_all(flows: list[FlowState]) -> None:
    for fs in flows:
        fs.close()
    flows.clear()


@dataclass
class GameContext:
    """Everything the rules may touch: the scenario, the config, the dice and the event sink.

    Every emitter takes an audience (``to``: ``None`` for everyone, else the actors who may see it; the GM is added
    unless ``gm=False``): the engine, not the agents, decides who sees what (``engine.core.visibility``)."""

    scenario: LoadedScenario
    config: Any
    dice: Dice
    options: Mapping[str, Any]
    _emit: Callable[[type[BaseModel], dict[str, Any]], None]
    #: number of state changes so far (``state`` calls): rules code may cache values derived from the table and
    #: recompute them when this moves (every state change is logged through ``state``)
    version: int = 0
    #: the same per first part of the path (``"jin.life"`` → ``"jin"``, ``"battlefield.round"`` → ``"battlefield"``):
    #: the ``version`` of the last change under that head, for values that depend on one character only
    heads: dict[str, int] = field(default_factory=dict)
    #: the flow states made by ``flow``: closed when the session ends (``release``)
    _flows: list[FlowState] = field(default_factory=list)
    #: whether events are kept or written: when not, rules may skip building the payload of an event nobody reads
    #: (state events must still go through ``state``: it moves ``version``)
    recording: bool = True
    #: whether narration is recorded (``recording``, unless the only listener reads no narration)
    narrating: bool = True
    #: the system's audience of a state path (set by the game): path → None (everyone) or the actors who may see
    #: the change; without it every state change is public
    state_audience: Callable[[str], list[str] | None] | None = None
    #: checks and rulings so far (their ids ``k1``…, ``r1``… count even when nothing is recorded)
    checks: int = 0
    rulings: int = 0
    #: the standing answers in force, (actor, kind) → ``StandingAnswer``: the session's own table, which
    #: ``Session.declare_standing`` changes (``ask.standing_answer`` reads it before a window's decision is made)
    standing: dict[tuple[str, str], StandingAnswer] = field(default_factory=dict)
    #: the session's resolver of a window by a standing answer: the checked answer (logged as an ``auto`` event), or
    #: None to ask after all
    resolve_window: Callable[[StandingAnswer, Window], Answer | None] | None = None

    def release(self) -> None:
        """Close every flow state of this session: positions stay readable, a later trigger is an engine bug."""
        _close_all(self._flows)

    def emit(self, event: BaseModel) -> None:
        self._emit(type(event), dict(event))

    def state(self, path: str, old: Any, new: Any, rule: str = "", cause: str = "", to: Any = _AUTO) -> None:
        self.version = v = self.version + 1
        self.heads[path.partition(".")[0]] = v
        if self.recording:
            fields: dict[str, Any] = {"path": path, "old": old, "new": new, "rule": rule, "cause": cause}
            if to is _AUTO:
                fn = self.state_audience
                to = fn(path) if fn is not None else None
            else:
                to = audience(to)
            if to is not None:
                fields["to"] = to
            self._emit(StateEvent, fields)

    def narrate(self, actor: str, text: str, source: str = "scenario", *, to: Iterable[str] | None = None,
                gm: bool = True) -> None:
        if self.recording and self.narrating:
            fields: dict[str, Any] = {"actor": actor, "text": text, "source": source}
            if to is not None:
                fields["to"] = audience(to, gm=gm)
            self._emit(NarrationEvent, fields)

    def whisper(self, to: Iterable[str], text: str, *, actor: str = GM, source: str = "whisper") -> None:
        """Narration only ``to`` (and the GM) hear: a clue handed to one investigator, a secret told in private."""
        self.narrate(actor, text, source, to=to)

    def info(self, topic: str, text: str, *, to: Iterable[str] | None = None, gm: bool = True, **data: Any) -> None:
        if self.recording:
            fields: dict[str, Any] = {"topic": topic, "text": text, "data": data}
            if to is not None:
                fields["to"] = audience(to, gm=gm)
            self._emit(InfoEvent, fields)

    def check(self, check: str, rule: str, data: Mapping[str, Any], *, label: str | None = None,
              rolls: Iterable[CheckRoll | Mapping[str, Any]] = (), result: str = "",
              to: Iterable[str] | None = None) -> str:
        """Record a resolved check; returns its id (``k1``, ``k2``, ...), by which a later ``void`` retracts it."""
        self.checks = n = self.checks + 1
        cid = f"k{n}"
        if self.recording:
            d = dict(data)
            fields: dict[str, Any] = {
                "id": cid, "check": check, "rule": rule,
                "label": label if label is not None else str(d.get("label", "")),
                "rolls": list(rolls),  # CheckRoll models or their fields: the event validates them when it is built
                "result": result, "data": d,
            }
            if to is not None:
                fields["to"] = audience(to)
            self._emit(CheckEvent, fields)
        return cid

    def void(self, check_id: str, rule: str, reason: str = "", by: str = "") -> None:
        """Retract an earlier check (「A」's hero point effect B): a new event, the log is never edited."""
        if self.recording:
            self._emit(VoidEvent, {"check": check_id, "rule": rule, "reason": reason, "by": by})

    def ruling(self, by: str, kind: str, subject: str, verdict: str, reason: str | None = None, *, text: str = "",
               rule: str = "", to: Iterable[str] | None = None, **data: Any) -> str:
        """Record a GM ruling (approval, or refusal with its reason code); returns its id (``r1``, ...)."""
        self.rulings = n = self.rulings + 1
        rid = f"r{n}"
        if self.recording:
            fields: dict[str, Any] = {"id": rid, "by": by, "kind": kind, "subject": subject, "verdict": verdict,
                                      "reason": reason, "text": text, "rule": rule, "data": data}
            if to is not None:
                fields["to"] = audience(to)
            self._emit(RulingEvent, fields)
        return rid

    def flow(self, spec: MachineSpec) -> FlowState:
        fs = FlowState(spec, self._on_move if self.recording else None)
        self._flows.append(fs)
        return fs

    def _on_move(self, machine: str, trigger: str, src: str, dst: str) -> None:
        self._emit(PhaseEvent, {"machine": machine, "trigger": trigger, "src": src, "dst": dst})



def logged_outcome(outcome: Mapping[str, Any]) -> dict[str, Any]:
    """The outcome as the ``end`` event logs it: a ``campaign`` (what the next game of a campaign loads, written to
    the campaign file by ``trpg play --campaign``) is logged as its digest, since it carries every character and
    record of every game so far and grows with the campaign. The session keeps it whole (``Session.outcome``), and a
    replay of the log rebuilds it."""
    camp = outcome.get("campaign")
    if not isinstance(camp, Mapping):
        return dict(outcome)
    text = json.dumps(camp, ensure_ascii=False, sort_keys=True, separators=(",", ":"), default=str).encode("utf-8")
    return {**outcome, "campaign": {"sha256": hashlib.sha256(text).hexdigest(), "bytes": len(text)}}

class SessionKey:
    """An opaque, weakly referenceable token of one session: agents that keep per-session notes (an LLM seat's
    warnings) key them by it instead of holding the session."""

    __slots__ = ("__weakref__",)


class Session:
    """One game at one table. See the module docstring."""

    def __init__(
        self,
        scenario: LoadedScenario,
        seed: int = 0,
        *,
        config: Mapping[str, Any] | None = None,
        dice: Dice | None = None,
        forced_dice: Iterable[Any] = (),
        log_path: str | Path | None = None,
        seats: Mapping[str, str] | None = None,
        options: Mapping[str, Any] | None = None,
        keep_events: bool = True,
        on_event: Callable[[type[BaseModel], Mapping[str, Any]], None] | None = None,
        on_event_kinds: Iterable[type[BaseModel]] | None = None,
        _log: EventLog | None = None,
    ):
        self.scenario = scenario
        self.system = scenario.system
        self.seed = seed
        self.forced_dice = list(forced_dice)
        self.dice = dice if dice is not None else Dice(seed, self.forced_dice)
        self.config_overrides = dict(config or {})
        self.config = self._build_config()
        self.seats = dict(seats or {})
        self.options = dict(options or {})
        self.keep_events = keep_events
        # events are kept as (class, fields) until someone reads ``events``: building the pydantic model is the
        # cost of most of a decision in batch runs, where nobody reads them; a log file gets the model at once.
        self._events: list[Any] = []
        self._materialized = 0
        #: the ids of the checks a void event retracted so far (a seat's transcript leaves them out): kept as the
        #: void events happen, so reading the transcript from an index does not walk the whole log
        self._voided: set[str] = set()
        self.decisions = 0
        self.illegal_answers = 0
        self._log = _log if _log is not None else (EventLog(log_path) if log_path is not None else None)
        #: called with (event class, fields) for every event as it happens, kept or not (a batch's summary
        #: aggregates there instead of keeping the events); it must not change the fields
        self.on_event = on_event
        self._recording = keep_events or self._log is not None or on_event is not None
        #: the event classes ``on_event`` reads (None: all); with no log and no kept events, the other events are not
        #: even built (a batch's summary reads neither the answers nor the narration)
        self._listened: frozenset[type[BaseModel]] | None = None if on_event_kinds is None else frozenset(on_event_kinds)
        wanted = None if keep_events or self._log is not None else self._listened
        self._wanted = wanted
        self._answers_recorded = self._recording and (wanted is None or AnswerEvent in wanted or RevealEvent in wanted)
        self._decisions_recorded = self._recording and (wanted is None or DecisionEvent in wanted)
        self._autos_recorded = self._recording and (wanted is None or AutoEvent in wanted)
        #: every decision asked and every window resolved by a standing answer so far, by kind (what a batch's
        #: summary counts without reading decision events)
        self.kinds: dict[str, int] = {}
        self.header = HeaderEvent(
            package_version=package_version(),
            system=self.system.id,
            system_version=self.system.version,
            scenario_id=scenario.id,
            scenario_version=str(getattr(scenario.model, "version", "1")),
            scenario_path=str(scenario.path),
            scenario_sha256=scenario.sha256,
            seed=seed,
            config=self.config_overrides,
            seats=self.seats,
            forced_dice=self.forced_dice,
            options=self.options,
        )
        self.record(self.header)
        if self._recording and (wanted is None or RollEvent in wanted):  # else a roll event would only be dropped
            self.dice.listen(self._on_roll)
        self.ctx = GameContext(scenario, self.config, self.dice, self.options, self._emit_kw, recording=self._recording,
                               narrating=self._recording and (wanted is None or NarrationEvent in wanted))
        self.game = self.system.new_game(self.ctx)
        table = getattr(self.system, "decision_table", None) or {}
        #: standing answers in force: actor → kind → answer id (``engine.core.standing``), as declared by
        #: ``declare_standing`` (``standing`` events in the log)
        self.standing: dict[str, dict[str, str]] = {}
        self._standing: dict[tuple[str, str], StandingAnswer] = self.ctx.standing
        self.ctx.resolve_window = self._resolve_window
        #: reaction windows resolved by a standing answer (not asked, not numbered)
        self.standing_resolved = 0
        #: whether standing answers were ever declared (a ``standing`` event), even if all were dropped since
        self.standing_declared = False
        #: answers given so far (members of a simultaneous node each count)
        self.answered = 0
        self._gen = self.game.run()
        self.outcome: dict[str, Any] | None = None
        self._pending: Decision | None = None
        #: a simultaneous node being answered: its members' checked answers are held here, outside the game state
        self._group: Simultaneous | None = None
        self._held: dict[str, Answer] = {}
        self._labels: dict[str, str] = {}
        self.key = SessionKey()
        #: decision kinds whose answers everyone sees (the system's decision table); others: the actor and the GM
        self._public_kinds = frozenset(k for k, spec in table.items() if getattr(spec, "public", False))
        if getattr(self.game, "state_audience", None) is not None and self.ctx.state_audience is None:
            self.ctx.state_audience = self.game.state_audience
        self._advance(None, first=True)

    # -- config ------------------------------------------------------------------------------------------------
    def _build_config(self) -> Any:
        merged = self.system.scenario_options(self.scenario.model)
        merged.update(self.config_overrides)
        return self.system.config_model.model_validate(merged)

    # -- events ------------------------------------------------------------------------------------------------
    @property
    def events(self) -> list[BaseModel]:
        ev = self._events
        for i in range(self._materialized, len(ev)):
            e = ev[i]
            if type(e) is tuple:
                ev[i] = e[0](**e[1])
        self._materialized = len(ev)
        return ev

    def _emit_kw(self, cls: type[BaseModel], fields: dict[str, Any]) -> None:
        if cls is VoidEvent:
            self._voided.add(fields["check"])
        if self.on_event is not None and (self._listened is None or cls in self._listened):
            self.on_event(cls, fields)
        if self._log is not None:
            event = cls(**fields)
            self._log.write(event)
            if self.keep_events:
                self._events.append(event)
        elif self.keep_events:
            self._events.append((cls, fields))

    def _on_roll(self, r: Roll) -> None:
        fields: dict[str, Any] = {"purpose": r.purpose, "sides": r.sides, "value": r.value, "forced": r.forced}
        if getattr(r, "secret", False):  # a shuffle's draws: the order of a hidden deck is nobody's but the GM's
            fields["to"] = [GM]
        self._emit_kw(RollEvent, fields)

    def record(self, event: BaseModel) -> None:
        """Agents' own events (model calls) go into the same log, in order."""
        if self.on_event is not None and (self._listened is None or type(event) in self._listened):
            self.on_event(type(event), event.__dict__)
        if self.keep_events:
            self._events.append(event)
        if self._log is not None:
            self._log.write(event)

    # -- the contract ------------------------------------------------------------------------------------------
    @property
    def pending(self) -> Decision | None:
        """The next unanswered decision (of a simultaneous node: its first unanswered member), None when over."""
        return self._pending

    def pending_all(self) -> list[Decision]:
        """Every decision that may be answered now: the members of a simultaneous node not answered yet (in the
        order the rules listed them), else the one pending decision. A table may ask them concurrently."""
        group = self._group
        if group is not None:
            return [d for d in group.decisions if d.actor not in self._held]
        return [self._pending] if self._pending is not None else []

    @property
    def is_over(self) -> bool:
        return self._pending is None

    def observation(self, actor: str) -> dict[str, Any]:
        return self.game.observation(actor)

    def actor_role(self, actor: str) -> str:
        return self.game.actor_role(actor)

    def prompt_role(self, actor: str) -> str:
        """The prompt template role of ``actor`` (gm, pc, npc, or a role the system adds such as curse)."""
        fn = getattr(self.game, "prompt_role", None)
        if fn is not None:
            return str(fn(actor))
        role = self.game.actor_role(actor)
        return role if role in ROLES else "npc"

    def snapshot(self) -> dict[str, Any]:
        return self.game.snapshot()

    def transcript(self, actor: str, start: int = 0) -> list[Any]:
        """The events from index ``start`` on as ``actor`` may see them (``engine.core.visibility``): the only way a
        seat reads the past. Needs the events kept (``keep_events``)."""
        return seat_transcript(self.events, actor, start, void=self._voided)

    def view(self, decision: Decision | None = None) -> SeatView:
        """The seat view of a pending decision (default ``pending``): what its actor's agent is given."""
        d = decision if decision is not None else self._pending
        if d is None:
            raise RuntimeError("the session is over: there is nothing to answer")
        return SeatView(self, d)

    def _target(self, seq: int | None) -> Decision:
        d = self._pending
        if d is None:
            raise RuntimeError("the session is over: there is nothing to answer")
        if seq is None or seq == d.seq:
            return d
        for m in self.pending_all():
            if m.seq == seq:
                return m
        raise IllegalAnswer(d, f"this answer is for decision #{seq}, which is not pending (pending: "
                               + ", ".join(f"#{m.seq}" for m in self.pending_all()) + "); it came too late or twice")

    def answer(self, raw: Any, *, policy: str = "", seq: int | None = None) -> None:
        """Check ``raw`` against the pending decision (``seq``: the decision it answers, which must be pending —
        any member of a simultaneous node), log it and run the rules on. ``IllegalAnswer``: nothing changed."""
        d = self._target(seq)
        try:
            ans = d.check(raw)
        except IllegalAnswer:
            self.illegal_answers += 1
            raise
        group = self._group
        label = ""
        if self._answers_recorded:
            if d.options is not None:
                label = picked_label(ans, d.label_of)
            fields: dict[str, Any] = {"seq": d.seq, "actor": d.actor, "kind": d.kind, "answer": ans.to_json(),
                                      "policy": policy, "label": label}
            if group is not None:
                fields["to"] = [d.actor]
                fields["sealed"] = True
            elif d.kind not in self._public_kinds:
                fields["to"] = [d.actor, GM] if d.actor != GM else [GM]
            self._emit_kw(AnswerEvent, fields)
        d.seal()
        self.answered += 1
        if group is None:
            self._advance(ans)
            return
        self._held[d.actor] = ans
        self._labels[d.actor] = label
        rest = self.pending_all()
        if rest:
            self._pending = rest[0]
            return
        held = {m.actor: self._held[m.actor] for m in group.decisions}
        if self._recording:
            fields = {"kind": group.kind, "rule": group.rule, "seqs": [m.seq for m in group.decisions],
                      "answers": {a: x.to_json() for a, x in held.items()},
                      "labels": {m.actor: self._labels[m.actor] for m in group.decisions if self._labels[m.actor]}}
            if group.reveal_to is not None:  # () : nobody yet (the rules announce the answers themselves later)
                fields["to"] = audience(group.reveal_to, gm=bool(group.reveal_to))
            self._emit_kw(RevealEvent, fields)
        self._group = None
        self._held = {}
        self._labels = {}
        self._advance(held)

    def _ask(self, d: Decision, member: bool) -> None:
        d.seq = self.decisions
        self.decisions += 1
        kinds = self.kinds
        kinds[d.kind] = kinds.get(d.kind, 0) + 1
        actor = d.actor
        d._observe = lambda: self.game.observation(actor)
        if not self._decisions_recorded:
            return
        self._emit_kw(
            DecisionEvent,
            {
                "seq": d.seq,
                "actor": d.actor,
                "kind": d.kind,
                "rule": d.rule,
                "prompt": d.prompt,
                "options": list(d.option_ids) if d.options is not None else None,
                "pick": list(d.pick) if d.pick is not None else None,
                "payload": d.payload_model.__name__ if d.payload_model is not None else None,
                # a member's question is its own (the GM sees it only as a member); else the actor's and the GM's
                "to": [actor] if member or actor == GM else [actor, GM],
            },
        )

    # -- standing answers ------------------------------------------------------------------------------------------
    def _roles(self) -> dict[str, str]:
        game = self.game
        return {a: game.actor_role(a) for a in game.actors()}

    def declare_standing(self, answers: Mapping[str, Mapping[str, str | None]]) -> None:
        """Declare standing answers (actor → decision kind → an id of that window's vocabulary, or None to drop
        one), in force from the next window on (a pending decision is still answered by its seat). Logged as one
        ``standing`` event, an input that replay feeds back; ``StandingError`` (nothing changed) names what is legal.
        Declaring nothing is not logged."""
        if self._pending is None:
            raise StandingError("the session is over: no standing answer can be declared")
        table = getattr(self.system, "decision_table", None) or {}
        roles = self._roles()
        given = standing_resolvers(table, {a: {k: v for k, v in kinds.items() if v is not None}
                                           for a, kinds in answers.items()}, roles)
        dropped: dict[str, list[str]] = {}
        for actor in sorted(answers):
            for kind in sorted(answers[actor]):
                if answers[actor][kind] is None:
                    standing_window(table, kind, actor)
                    dropped.setdefault(actor, []).append(kind)
        if not given and not dropped:
            return
        self.standing_declared = True
        logged: dict[str, dict[str, str | None]] = {}
        for actor, kinds in given.items():
            held = self.standing.setdefault(actor, {})
            said = logged.setdefault(actor, {})
            for kind, sa in kinds.items():
                held[kind] = said[kind] = sa.id
                self._standing[(actor, kind)] = sa
        for actor, gone in dropped.items():
            for kind in gone:
                mine = self.standing.get(actor)
                if mine is not None:
                    mine.pop(kind, None)
                    if not mine:
                        del self.standing[actor]
                self._standing.pop((actor, kind), None)
                logged.setdefault(actor, {})[kind] = None
        if self._recording:
            to = [a for a in logged if a != GM] + [GM]
            self._emit_kw(StandingEvent, {"answers": {a: dict(sorted(k.items())) for a, k in sorted(logged.items())},
                                          "to": to})

    def set_standing(self, actor: str, kind: str, answer: str | None) -> None:
        """One standing answer (``declare_standing``)."""
        self.declare_standing({actor: {kind: answer}})

    def _resolve_standing(self, d: Decision, sa: StandingAnswer) -> Answer | None:
        """A decision the rules yielded, resolved by its actor's standing answer (``_resolve_window`` is the same
        before a decision is made)."""
        actor = d.actor
        d._observe = lambda: self.game.observation(actor)
        raw = sa.resolve(d)
        if raw is None:
            return None
        try:
            ans = d.check(raw)
        except IllegalAnswer as e:  # the vocabulary is the engine's own: an illegal answer is an engine bug
            raise RuntimeError(f"the standing answer {sa.id!r} of {d.kind} gave an illegal answer: {e}") from None
        self._resolved(actor, d.kind, sa, ans, d.label_of)
        d.seal()
        return ans

    def _resolve_window(self, sa: StandingAnswer, w: Window) -> Answer | None:
        """A window resolved by its actor's standing answer before its decision is made (``ask.standing_answer``).
        None: the standing answer asks this time, or gave an answer the window does not take — then the rules make
        the decision and ``_resolve_standing`` resolves it again (and names the illegal answer)."""
        raw = sa.resolve(w)  # type: ignore[arg-type]  # a Window has what a resolver reads: option_ids, pick, context
        if raw is None:
            return None
        ans = w.check(raw)
        if ans is None:
            return None
        self._resolved(w.actor, w.kind, sa, ans, w.label_of)
        return ans

    def _resolved(self, actor: str, kind: str, sa: StandingAnswer, ans: Answer, label_of: Callable[[str], str]) -> None:
        self.standing_resolved += 1
        kinds = self.kinds
        kinds[kind] = kinds.get(kind, 0) + 1
        if self._autos_recorded:
            fields: dict[str, Any] = {"actor": actor, "kind": kind, "standing": sa.id, "answer": ans.to_json(),
                                      "label": picked_label(ans, label_of)}
            if kind not in self._public_kinds:
                fields["to"] = [actor, GM] if actor != GM else [GM]
            self._emit_kw(AutoEvent, fields)

    def _advance(self, ans: Any, first: bool = False) -> None:
        standing = self._standing
        try:
            d = next(self._gen) if first else self._gen.send(ans)  # type: ignore[arg-type]
            if standing:  # windows a seat answered once and for all: resolved here, never asked
                while type(d) is Decision:
                    sa = standing.get((d.actor, d.kind))
                    if sa is None:
                        break
                    auto = self._resolve_standing(d, sa)
                    if auto is None:
                        break
                    d = self._gen.send(auto)
        except StopIteration as stop:
            self._pending = None
            self.outcome = stop.value or {}
            self._emit_kw(EndEvent, {"outcome": logged_outcome(self.outcome)})
            self.close()
            self.ctx.release()
            # the context's event sink was the only way back from the rules to this session: without it a finished
            # session (its table, dice and rolls) is freed as soon as the caller drops it, not at the next collection
            self.ctx._emit = _emit_after_end
            self.ctx.resolve_window = None
            return
        if type(d) is Simultaneous:
            self._group = d
            for m in d.decisions:
                self._ask(m, True)
            self._pending = d.decisions[0]
            return
        self._ask(d, False)
        self._pending = d

    def close(self) -> None:
        if self._log is not None:
            self._log.close()
            self._log = None
