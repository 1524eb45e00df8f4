"""Flow state machines on ``transitions``.

Each system declares its machines once (``MachineSpec``); the ``transitions.Machine`` is built once per spec at first
use and shared by all sessions (``Machine(model=None)`` + ``add_model``/``remove_model``, models compared by identity),
with ``auto_transitions=False`` and invalid triggers raising. A trigger the rules do not allow now is refused before
it reaches the machine (the decision's legal options come from ``may_<trigger>``-style checks in the rules); a
``MachineError`` escaping here is an engine bug, never silently ignored.

``diagram`` writes a machine as a mermaid state diagram for the docs (``trpg diagram SYSTEM``).
"""

from __future__ import annotations

import inspect
import weakref

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from transitions import Machine, MachineError

__all__ = ["MachineSpec", "FlowState", "diagram", "MachineError"]


@dataclass(frozen=True)
class MachineSpec:
    name: str
    states: Sequence[str]
    #: (trigger, source(s), dest); source "*" = any state
    transitions: Sequence[tuple[str, str | Sequence[str], str]]
    initial: str
    doc: str = ""
    _built: list[Machine] = field(default_factory=list, compare=False, repr=False)

    def machine(self) -> Machine:
        if not self._built:
            m = Machine(
                model=None,
                states=list(self.states),
                transitions=[{"trigger": t, "source": list(s) if not isinstance(s, str) else s, "dest": d} for t, s, d in self.transitions],
                initial=self.initial,
                auto_transitions=False,
                ignore_invalid_triggers=False,
                send_event=False,
            )
            self._built.append(m)
        return self._built[0]

    def triggers_from(self, state: str) -> list[str]:
        out = []
        for t, s, _d in self.transitions:
            srcs = [s] if isinstance(s, str) else list(s)
            if "*" in srcs or state in srcs:
                out.append(t)
        return out


class FlowState:
    """A session's position in one machine. ``fire`` moves it and reports the move to ``on_move``."""

    __slots__ = ("spec", "_on_move", "__weakref__", "__dict__")
    state: str  # set and moved by transitions

    def __init__(self, spec: MachineSpec, on_move: Callable[[str, str, str, str], None] | None = None):
        self.spec = spec
        # the shared machine holds its models strongly: a bound method is held weakly, so that a session nobody
        # refers to any more can be collected (its GameContext then detaches its flow states, see session.py)
        self._on_move: Any = weakref.WeakMethod(on_move) if inspect.ismethod(on_move) else on_move
        spec.machine().add_model(self, initial=spec.initial)

    def fire(self, trigger: str) -> None:
        src = self.state
        try:
            getattr(self, trigger)()
        except (MachineError, AttributeError) as e:
            raise MachineError(f"{self.spec.name}: trigger {trigger!r} is not allowed from state {src!r} ({e})") from None
        cb = self._on_move
        if isinstance(cb, weakref.WeakMethod):
            cb = cb()
        if cb is not None:
            cb(self.spec.name, trigger, src, self.state)

    def may(self, trigger: str) -> bool:
        return trigger in self.spec.triggers_from(self.state)

    def detach(self) -> None:
        """Leave the shared machine (the position stays readable). Sessions detach their flow states when they end."""
        m = self.spec.machine()
        if any(x is self for x in m.models):
            m.remove_model(self)

    def __eq__(self, other: Any) -> bool:  # identity: transitions skips models that compare equal
        return self is other

    def __hash__(self) -> int:
        return id(self)


def diagram(spec: MachineSpec) -> str:
    """Mermaid state diagram of a machine spec (no graphviz needed)."""
    lines = ["stateDiagram-v2", f"    %% {spec.name}" + (f": {spec.doc}" if spec.doc else "")]
    lines.append(f"    [*] --> {spec.initial}")
    for trig, src, dst in spec.transitions:
        srcs = list(spec.states) if src == "*" else ([src] if isinstance(src, str) else list(src))
        for s in srcs:
            lines.append(f"    {s} --> {dst}: {trig}")
    return "\n".join(lines) + "\n"
