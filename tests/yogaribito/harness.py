"""The stand-in for ``engine.core.session.GameContext`` that the 夜狩り人 mixin unit tests drive the rules with:
real ``Dice`` (scripted faces or a seed), every event kept as a tuple, and a ``version`` that is new at every read.

In a session every change of the table is a logged state event, which moves ``GameContext.version``, and the rules
keep values derived from the table (legal targets, pools, context views) until it moves. Unit tests change the
table directly (``gh.incapacitated = True``) to set up a situation, so here every read of ``version`` is a new
version: nothing derived is ever kept, and each question is answered from the table as it is."""

from __future__ import annotations

import itertools
from typing import Any

from engine.core.dice import Dice
from engine.core.machine import FlowState, MachineSpec

__all__ = ["FakeCtx"]


class _Fresh(dict):  # type: ignore[type-arg]
    """A mapping whose every key reads as a new number."""

    def __init__(self, counter: itertools.count) -> None:  # type: ignore[type-arg]
        super().__init__()
        self._counter = counter

    def get(self, key: object, default: object = None) -> int:  # type: ignore[override]
        return next(self._counter)

    def __getitem__(self, key: object) -> int:
        return next(self._counter)


class FakeCtx:
    def __init__(self, dice: Dice, options: dict[str, Any] | None = None):
        self._versions = itertools.count()
        self.recording = True  # as GameContext: the events are kept (the tests read them)
        self.dice = dice
        self.options: dict[str, Any] = dict(options or {})
        self.events: list[tuple[Any, ...]] = []
        #: as GameContext: no standing answers here (every window is yielded to the test)
        self.standing: dict[tuple[str, str], Any] = {}

    @property
    def version(self) -> int:
        """A new number at every read (see the module docstring)."""
        return next(self._versions)

    @property
    def heads(self) -> _Fresh:
        """As ``GameContext.heads``: every head's version is new at every read too."""
        return _Fresh(self._versions)

    def state(self, path: str, old: Any, new: Any, rule: str = "", cause: str = "", to: Any = None) -> None:
        self.events.append(("state", path, old, new, rule))

    def check(self, check: str, rule: str, data: dict[str, Any], *, label: str | None = None, rolls: Any = (),
              result: str = "", to: Any = None) -> str:
        """As ``GameContext.check``: the check's data is kept, its id given back."""
        self.checks = getattr(self, "checks", 0) + 1
        self.events.append(("check", check, data))
        return f"k{self.checks}"

    def info(self, topic: str, text: str, *, to: Any = None, **data: Any) -> None:
        self.events.append(("info", topic, data))

    def narrate(self, actor: str, text: str, source: str = "scenario", *, to: Any = None) -> None:
        self.events.append(("narration", actor, text))

    def flow(self, spec: MachineSpec) -> FlowState:
        return FlowState(spec, lambda m, trig, src, dst: self.events.append(("phase", trig, src, dst)))
