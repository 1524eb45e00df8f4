"""Flow state machines on ``transitions``.

Each system declares its machines once (``MachineSpec``). ``transitions`` builds and checks each one once, at first
use (``Machine(model=None)``, ``auto_transitions=False``, invalid triggers raising: an unknown state or a malformed
transition fails there), and the machine's own transition table (``Machine.events``: trigger → source → dest, wildcard
sources expanded by ``transitions``) is what every session moves by. A session's position in a machine is a
``FlowState``: ``fire`` looks the move up in that table, refuses a trigger the machine does not allow from the current
state (``MachineError`` naming the machine, the trigger, the state and the triggers legal there; the position does not
move) and reports the move to ``on_move`` (the session logs it as a ``phase`` event).

Why a table and not a ``transitions`` model per session: our machines are plain (no conditions, no callbacks: the
rules decide what is legal before a trigger is fired, from ``may``), and a model fire through ``transitions`` cost about
15 µs, 12 % of a scripted 夜狩り人 session, and registered every session in the shared machines (a memory leak to
guard against in batches). ``tests/core/test_machine.py`` checks that the table moves exactly as ``transitions`` does
for every state and trigger of every registered machine.

``diagram`` writes a machine as a mermaid state diagram for the docs (``trpg diagram SYSTEM``).
"""

from __future__ import annotations

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
    _built: list[Any] = field(default_factory=list, compare=False, repr=False)

    def machine(self) -> Machine:
        """The ``transitions`` machine of this spec (built and checked once)."""
        self._build()
        return self._built[0]

    def table(self) -> dict[tuple[str, str], str]:
        """(state, trigger) → destination, read from the ``transitions`` machine."""
        self._build()
        return self._built[1]

    def _build(self) -> None:
        if self._built:
            return
        m = Machine(
            model=None,
            states=list(self.states),
            transitions=[{"trigger": t, "source": list(s) if not isinstance(s, str) else s, "dest": d} for t, s, d in self.transitions],
            initial=self.initial,
            auto_transitions=False,
            ignore_invalid_triggers=False,
            send_event=False,
        )
        table: dict[tuple[str, str], str] = {}
        for trigger, event in m.events.items():
            for src, moves in event.transitions.items():
                dests: list[str] = []
                for t in moves:
                    if t.conditions or t.prepare or t.before or t.after or t.dest is None:
                        raise ValueError(f"machine {self.name}: {trigger} from {src} has conditions, callbacks or no "
                                         "destination; FlowState supports plain transitions only")
                    dests.append(t.dest)
                # transitions takes the first transition whose conditions hold: with none, the first one
                table.setdefault((src, trigger), dests[0])
        self._built.extend((m, table))

    def triggers_from(self, state: str) -> list[str]:
        return [t for (s, t) in self.table() if s == state]


class FlowState:
    """A session's position in one machine. ``fire`` moves it and reports the move to ``on_move``."""

    __slots__ = ("spec", "state", "_table", "_on_move", "_closed")

    def __init__(self, spec: MachineSpec, on_move: Callable[[str, str, str, str], None] | None = None):
        self.spec = spec
        self.state: str = spec.initial
        self._table = spec.table()
        self._on_move = on_move
        self._closed = False

    def fire(self, trigger: str) -> None:
        src = self.state
        dst = self._table.get((src, trigger))
        if dst is None or self._closed:
            why = "the session is over" if self._closed else "legal here: " + (", ".join(self.spec.triggers_from(src)) or "none")
            raise MachineError(f"{self.spec.name}: trigger {trigger!r} is not allowed from state {src!r} ({why})")
        self.state = dst
        if self._on_move is not None:
            self._on_move(self.spec.name, trigger, src, dst)

    def may(self, trigger: str) -> bool:
        return not self._closed and (self.state, trigger) in self._table

    def close(self) -> None:
        """End this position (the session is over): it stays readable, and firing it is an engine bug (raises)."""
        self._closed = True

    def __repr__(self) -> str:
        return f"FlowState({self.spec.name}: {self.state})"


def diagram(spec: MachineSpec) -> str:
    """Mermaid state diagram of a machine spec (no graphviz needed)."""
    lines = ["stateDiagram-v2", f"    %% {spec.name}" + (f": {spec.doc}" if spec.doc else "")]
    lines.append(f"    [*] --> {spec.initial}")
    for trig, src, dst in spec.transitions:
        srcs = list(spec.states) if src == "*" else ([src] if isinstance(src, str) else list(src))
        for s in srcs:
            lines.append(f"    {s} --> {dst}: {trig}")
    return "\n".join(lines) + "\n"
