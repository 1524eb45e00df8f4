"""The pull-based session (OpenSpiel's ``State``, PettingZoo's AEC loop).

``session.pending`` is the next ``Decision`` (None when over); ``session.answer(x)`` checks ``x`` against it (the
checked door: ``IllegalAnswer``, state untouched), logs it, and runs the rules forward to the next decision.

A system's rules are a generator (``Game.run``) that yields ``Decision``s and receives checked ``Answer``s; the
session owns the dice, the event log and the decision numbering. A session is fully determined by its scenario,
seed, config, forced dice and the ordered answers, which is what ``engine.core.replay`` relies on.
"""

from __future__ import annotations

import functools

from collections.abc import Callable, Generator, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel

from .decision import Answer, Decision, IllegalAnswer
from .dice import Dice, Roll
from .events import (
    AnswerEvent,
    CheckEvent,
    DecisionEvent,
    EndEvent,
    EventLog,
    HeaderEvent,
    InfoEvent,
    NarrationEvent,
    PhaseEvent,
    RollEvent,
    StateEvent,
)
from .machine import FlowState, MachineSpec
from .scenario import LoadedScenario

__all__ = ["Session", "GameContext", "Game", "package_version", "ROLES"]

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


def _emit_after_end(cls: type[BaseModel], fields: dict[str, Any]) -> None:
    raise RuntimeError(f"the session is over: the rules emitted a {cls.__name__} after the end (engine bug)")


def _close_all(flows: list[FlowState]) -> None:
    for fs in flows:
        fs.close()
    flows.clear()


@dataclass
class GameContext:
    """Everything the rules may touch: the scenario, the config, the dice and the event sink."""

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

    def release(self) -> None:
        """Close every flow state of this session: positions stay readable, a later trigger is an engine bug."""
        _close_all(self._flows)

    def emit(self, event: BaseModel) -> None:
        self._emit(type(event), dict(event))

    def state(self, path: str, old: Any, new: Any, rule: str = "", cause: str = "") -> None:
        self.version = v = self.version + 1
        self.heads[path.partition(".")[0]] = v
        if self.recording:
            self._emit(StateEvent, {"path": path, "old": old, "new": new, "rule": rule, "cause": cause})

    def narrate(self, actor: str, text: str, source: str = "scenario") -> None:
        if self.recording:
            self._emit(NarrationEvent, {"actor": actor, "text": text, "source": source})

    def info(self, topic: str, text: str, **data: Any) -> None:
        if self.recording:
            self._emit(InfoEvent, {"topic": topic, "text": text, "data": data})

    def check(self, check: str, rule: str, data: dict[str, Any]) -> None:
        if self.recording:
            self._emit(CheckEvent, {"check": check, "rule": rule, "data": data})

    def flow(self, spec: MachineSpec) -> FlowState:
        fs = FlowState(spec, self._on_move if self.recording else None)
        self._flows.append(fs)
        return fs

    def _on_move(self, machine: str, trigger: str, src: str, dst: str) -> None:
        self._emit(PhaseEvent, {"machine": machine, "trigger": trigger, "src": src, "dst": dst})


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
        self.decisions = 0
        self.illegal_answers = 0
        self._log = _log if _log is not None else (EventLog(log_path) if log_path is not None else None)
        self._recording = keep_events or self._log is not None
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
        if self._recording:  # otherwise a roll event would be built only to be dropped
            self.dice.listen(self._on_roll)
        self.ctx = GameContext(scenario, self.config, self.dice, self.options, self._emit_kw, recording=self._recording)
        self.game = self.system.new_game(self.ctx)
        self._gen = self.game.run()
        self.outcome: dict[str, Any] | None = None
        self._pending: Decision | None = None
        self._advance(None, first=True)

    # -- config ------------------------------------------------------------------------------------------------
    def _build_config(self) -> Any:
        base = getattr(self.scenario.model, "config", None)
        merged: dict[str, Any] = base.model_dump() if isinstance(base, BaseModel) else dict(base or {})
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
        if self._log is not None:
            event = cls(**fields)
            self._log.write(event)
            if self.keep_events:
                self._events.append(event)
        elif self.keep_events:
            self._events.append((cls, fields))

    def _on_roll(self, r: Roll) -> None:
        self._emit_kw(RollEvent, {"purpose": r.purpose, "sides": r.sides, "value": r.value, "forced": r.forced})

    def record(self, event: BaseModel) -> None:
        """Agents' own events (model calls) go into the same log, in order."""
        if self.keep_events:
            self._events.append(event)
        if self._log is not None:
            self._log.write(event)

    # -- the contract ------------------------------------------------------------------------------------------
    @property
    def pending(self) -> Decision | None:
        return self._pending

    @property
    def is_over(self) -> bool:
        return self._pending is None

    def observation(self, actor: str) -> dict[str, Any]:
        return self.game.observation(actor)

    def actor_role(self, actor: str) -> str:
        return self.game.actor_role(actor)

    def snapshot(self) -> dict[str, Any]:
        return self.game.snapshot()

    def answer(self, raw: Any, *, policy: str = "") -> None:
        d = self._pending
        if d is None:
            raise RuntimeError("the session is over: there is nothing to answer")
        try:
            ans = d.check(raw)
        except IllegalAnswer:
            self.illegal_answers += 1
            raise
        if self._recording:
            label = ""
            if d.options is not None and (ans.choice is not None or ans.choices):
                picked = (ans.choice,) if ans.choice is not None else ans.choices or ()
                label = " / ".join(d.label_of(x) for x in picked)
            self._emit_kw(AnswerEvent, {"seq": d.seq, "actor": d.actor, "kind": d.kind, "answer": ans.to_json(),
                                        "policy": policy, "label": label})
        self._advance(ans)

    def _advance(self, ans: Answer | None, first: bool = False) -> None:
        try:
            d = next(self._gen) if first else self._gen.send(ans)  # type: ignore[arg-type]
        except StopIteration as stop:
            self._pending = None
            self.outcome = stop.value or {}
            self._emit_kw(EndEvent, {"outcome": self.outcome})
            self.close()
            self.ctx.release()
            # the context's event sink was the only way back from the rules to this session: without it a finished
            # session (its table, dice and rolls) is freed as soon as the caller drops it, not at the next collection
            self.ctx._emit = _emit_after_end
            return
        d.seq = self.decisions
        self.decisions += 1
        actor = d.actor
        d._observe = lambda: self.game.observation(actor)
        self._pending = d
        if not self._recording:
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
            },
        )

    def close(self) -> None:
        if self._log is not None:
            self._log.close()
            self._log = None
