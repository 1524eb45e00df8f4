"""The one agent protocol: whoever sits at the table answers the session's pending decision."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from engine.core.decision import Decision
    from engine.core.session import Session

__all__ = ["Agent"]


@runtime_checkable
class Agent(Protocol):
    #: the policy name written into every answer event ("scripted", "random", "human", "llm:<model>")
    name: str

    def act(self, decision: Decision, session: Session) -> Any:
        """Return an answer for ``decision``: an option id, a list of ids, or a payload dict (see Decision.check)."""
        ...
