"""The seat view: everything an agent is given to answer one decision, and nothing more (ARCHITECTURE "Agents").

An agent never holds the session. It gets a ``SeatView``: the decision (options or payload schema, prompt, rule,
context), the actor's observation (the engine's filtered view of the table), the seat's transcript (the past as
this actor may see it, ``engine.core.visibility``), and the system's declared metadata (``SystemInfo``: decision
table, prompt roles, language). What an agent wants logged besides its answer (an LLM seat's model calls) it
``note``s on the view; the table writes those events into the log before the answer, in order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

if TYPE_CHECKING:
    from .decision import Decision
    from .registry import SystemInfo
    from .session import Session, SessionKey

__all__ = ["SeatView"]


class SeatView:
    """One actor's view of one pending decision. See the module docstring. Everything but the decision is read
    when asked for (a scripted answer reads only the decision and the system)."""

    __slots__ = ("decision", "system", "events", "_session", "_spec")

    def __init__(self, session: Session, decision: Decision):
        self.decision = decision
        self.system: SystemInfo = session.system
        #: the agent's own events for the log (model calls), written by the table before the answer
        self.events: list[BaseModel] = []
        self._session = session
        self._spec: Any = None

    @property
    def actor(self) -> str:
        return self.decision.actor

    @property
    def role(self) -> str:
        """The actor's seat role: gm, pc or npc."""
        return self._session.actor_role(self.decision.actor)

    @property
    def prompt_role(self) -> str:
        """The prompt template role (gm, pc, npc, or what the system adds, e.g. curse)."""
        return self._session.prompt_role(self.decision.actor)

    @property
    def language(self) -> str:
        return str(getattr(self._session.scenario.model, "language", "ja") or "ja")

    @property
    def seed(self) -> int:
        return self._session.seed

    @property
    def scenario_id(self) -> str:
        return self._session.scenario.id

    @property
    def key(self) -> SessionKey:
        """An opaque token of the session (weakly referenceable), for agents that keep per-session notes."""
        return self._session.key

    @property
    def observation(self) -> dict[str, Any]:
        return self.decision.observation

    def logged_calls(self) -> list[Any]:
        """The model calls already in the log for this decision, oldest first: a session resumed from a log cut after
        them (before the answer) hands them to the seat's agent, which reuses their replies instead of asking the
        model again, so that the resumed file is the uninterrupted one. Empty in an uninterrupted session (an agent's
        calls go to the log with its answer)."""
        from .events import AnswerEvent, ModelCallEvent

        out: list[Any] = []
        d = self.decision
        events = self._session.events
        for ev in reversed(events):
            if isinstance(ev, AnswerEvent):
                break
            if isinstance(ev, ModelCallEvent) and ev.seq == d.seq and ev.actor == d.actor:
                out.append(ev)
        out.reverse()
        return out

    @property
    def log_length(self) -> int:
        """How many events the log holds now: a front end that shows the story between decisions reads
        ``transcript(start)`` from where it stopped."""
        return len(self._session.events)

    def transcript(self, start: int = 0) -> list[Any]:
        """The past as this seat may see it (events, oldest first; from index ``start`` of the log)."""
        return self._session.transcript(self.decision.actor, start)

    @property
    def spec(self) -> Any:
        """The decision kind's entry in the system's decision table (``DecisionSpec``), or None if undeclared."""
        if self._spec is None:
            self._spec = self.system.decision_table.get(self.decision.kind, False)
        return self._spec or None

    # -- standing answers (engine.core.standing) --------------------------------------------------------------
    def standing_menu(self) -> list[tuple[Any, Any, str | None]]:
        """The reaction windows this seat's actor may answer once and for all: (the window's ``DecisionSpec``, its
        standing answers, the id in force or None), in the decision table's order."""
        from .standing import standing_menu

        mine = self._session.standing.get(self.decision.actor, {})
        return [(spec, vocab, mine.get(spec.kind)) for spec, vocab in standing_menu(self.system.decision_table, self.role)]

    def set_standing(self, kind: str, answer: str | None) -> None:
        """Declare (an id of the window's vocabulary) or drop (None) this actor's standing answer to ``kind``, from
        the next window on (``Session.set_standing``; ``StandingError`` names what is legal, nothing changed)."""
        self._session.set_standing(self.decision.actor, kind, answer)

    def note(self, event: BaseModel) -> None:
        """An event of the agent's own (a model call) to go into the log before its answer."""
        self.events.append(event)
