"""Scripted agents: deterministic heuristic policies per system and role, implementing the specs' defaults.

A system's policy is the module ``agent.scripted.<system id>`` with ``POLICY: dict[decision kind, function]``; each
function gets the decision and the seat view (``engine.core.seat.SeatView``) and may read only what they hold.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from engine.core.decision import Decision
from engine.core.seat import SeatView

__all__ = ["ScriptedAgent", "policy_for"]

Policy = Callable[[Decision, SeatView], Any]
_POLICIES: dict[str, dict[str, Policy]] = {}


def policy_for(system_id: str) -> dict[str, Policy]:
    if system_id not in _POLICIES:
        mod = importlib.import_module(f"agent.scripted.{system_id}")
        _POLICIES[system_id] = mod.POLICY
    return _POLICIES[system_id]


class ScriptedAgent:
    """Answers every decision kind of a system with the spec's scripted default (§8 of each rules spec)."""

    name = "scripted"

    def act(self, view: SeatView) -> Any:
        d = view.decision
        table = policy_for(view.system.id)
        fn = table.get(d.kind)
        if fn is None:
            raise KeyError(f"scripted policy for {view.system.id} has no rule for decision {d.kind!r}")
        return fn(d, view)
