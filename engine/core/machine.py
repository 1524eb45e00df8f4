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

Guards are documentation. A transition whose move the rules make only under a condition ("climax only after the last
scene", "confront only if the scene has formed curses") carries that condition as text: a 4th element of the
transition, or ``guards[(trigger, source)]`` (source ``"*"`` = from every source of that trigger). The rules code
checks the condition before it fires the trigger; ``FlowState`` never evaluates a guard (and ``transitions`` never
sees one), so a guarded edge moves exactly like a plain one. ``diagram`` writes it as ``src --> dst: trigger [guard]``.
``tests/test_machine_coverage.py`` checks that every drawn edge is taken by some run.

``diagram`` writes a machine as a mermaid state diagram for the docs (``trpg diagram SYSTEM``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from transitions import Machine, MachineError

__all__ = ["MachineSpec", "FlowState", "Move", "Transition", "diagram", "MachineError"]

#: one drawn transition: (trigger, source(s), dest) or (trigger, source(s), dest, guard); source "*" = any state
Transition = tuple[str, str | Sequence[str], str] | tuple[str, str | Sequence[str], str, str]


class Move(NamedTuple):
    """One drawn edge: a transition with its sources expanded, and the guard the rules check before firing it."""

    src: str
    trigger: str
    dst: str
    guard: str | None = None


@dataclass(frozen=True)
class MachineSpec:
    name: str
    states: Sequence[str]
    #: (trigger, source(s), dest[, guard]); source "*" = any state
    transitions: Sequence[Transition]
    initial: str
    doc: str = ""
    #: (trigger, source) → the condition under which the rules fire that move (documentation, never evaluated);
    #: source "*" = every source of the trigger. The same as a transition's 4th element. Not compared (nor hashed):
    #: two specs that move alike are equal whatever their guards say.
    guards: Mapping[tuple[str, str], str] = field(default_factory=dict, compare=False)
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
        drawn = self.moves()  # checks the transitions' shape and the guards (each names a drawn move, one text each)
        m = Machine(
            model=None,
            states=list(self.states),
            transitions=[{"trigger": t[0], "source": t[1] if isinstance(t[1], str) else list(t[1]), "dest": t[2]}
                         for t in self.transitions],
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
        self._built.extend((m, table, drawn))

    def _sources(self, source: str | Sequence[str]) -> list[str]:
        return list(self.states) if source == "*" else [source] if isinstance(source, str) else list(source)

    def moves(self) -> list[Move]:
        """Every drawn edge (source lists and "*" expanded), in drawing order, each with its guard (or None)."""
        if len(self._built) > 2:
            return list(self._built[2])
        drawn: list[tuple[str, str, str, str | None]] = []
        for t in self.transitions:
            if len(t) not in (3, 4):
                raise ValueError(f"machine {self.name}: transition {t!r} is not (trigger, source(s), dest[, guard])")
            inline = t[3] if len(t) == 4 else None  # type: ignore[misc]
            drawn += [(s, t[0], t[2], inline) for s in self._sources(t[1])]
        by_trigger: dict[str, set[str]] = {}
        for s, trig, _d, _g in drawn:
            by_trigger.setdefault(trig, set()).add(s)
        for trig, src in self.guards:
            if trig not in by_trigger or (src != "*" and src not in by_trigger[trig]):
                raise ValueError(f"machine {self.name}: guard for ({trig!r}, {src!r}) names no drawn move")
        out: list[Move] = []
        for s, trig, d, inline in drawn:
            texts = {g for g in (inline, self.guards.get((trig, s)), self.guards.get((trig, "*"))) if g is not None}
            if len(texts) > 1:
                raise ValueError(f"machine {self.name}: {trig} from {s} has two guards: {sorted(texts)}")
            guard = texts.pop() if texts else None
            if guard is not None and (not guard.strip() or any(ch in guard for ch in "\n:;")):
                # a mermaid transition label is one line, and ':' or ';' end it
                raise ValueError(f"machine {self.name}: the guard of {trig} from {s} must be one line of text "
                                 f"without ':' or ';' (got {guard!r})")
            out.append(Move(s, trig, d, guard))
        return out

    def guard(self, trigger: str, source: str) -> str | None:
        """The guard of ``trigger`` from ``source`` (None: unconditional, or not drawn)."""
        return next((m.guard for m in self.moves() if m.trigger == trigger and m.src == source), None)

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

    def offer(self, pairs: Sequence[tuple[str, Any]], moves: Mapping[str, str | Sequence[str]]) -> list[tuple[str, Any]]:
        """The options of a seat's phase choice that this machine allows now (ARCHITECTURE 6): an option that
        ``moves`` maps to a trigger (or to any of several) is offered only if the machine may fire it from the
        current state; the others are offered as they are. The rules still check their own guards first and fire
        the move after the answer, so an option the machine does not allow can never be answered."""
        out = []
        for pair in pairs:
            trig = moves.get(pair[0])
            if trig is None or any(self.may(t) for t in ((trig,) if isinstance(trig, str) else trig)):
                out.append(pair)
        return out

    def close(self) -> None:
        """End this position (the session is over): it stays readable, and firing it is an engine bug (raises)."""
        self._closed = True

    def __repr__(self) -> str:
        return f"FlowState({self.spec.name}: {self.state})"


def diagram(spec: MachineSpec) -> str:
    """Mermaid state diagram of a machine spec (no graphviz needed)."""
    lines = ["stateDiagram-v2", f"    %% {spec.name}" + (f": {spec.doc}" if spec.doc else "")]
    lines.append(f"    [*] --> {spec.initial}")
    for m in spec.moves():
        lines.append(f"    {m.src} --> {m.dst}: {m.trigger}" + (f" [{m.guard}]" if m.guard else ""))
    return "\n".join(lines) + "\n"
