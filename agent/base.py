"""The one agent protocol: whoever sits at the table answers one decision from its seat's view.

An agent gets a ``SeatView`` (``engine.core.seat``): the decision, the actor's observation, the seat's transcript
and the system's metadata — never the session. It returns an answer (an option id, a list of ids, a payload, or an
``Answer``); events of its own (an LLM seat's model calls) it notes on the view, and the table logs them. What to do
about an illegal answer is the table's business (re-ask, then a fallback that is always legal), not the agent's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from engine.core.seat import SeatView

__all__ = ["Agent"]


@runtime_checkable
class Agent(Protocol):
    #: the policy name written into every answer event ("scripted", "random", "human", "llm:<model>")
    name: str

    def act(self, view: SeatView) -> Any:
        """Return an answer for ``view.decision``: an option id, a list of ids, or a payload dict (Decision.check)."""
        ...
