"""Scripted agents: deterministic heuristic policies per system and role, implementing the specs' defaults."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from engine.core.decision import Decision
from engine.core.session import Session

__all__ = ["ScriptedAgent", "policy_for"]

Policy = Callable[[Decision, Session], Any]
_POLICIES: dict[str, dict[str, Policy]] = {}


def policy_for(system_id: str) -> dict[str, Policy]:
    if system_id not in _POLICIES:
        mod = importlib.import_module(f"agent.scripted.{system_id}")
        _POLICIES[system_id] = mod.POLICY
    return _POLICIES[system_id]


class ScriptedAgent:
    """Answers every decision kind of a system with the spec's scripted default (§8 of each rules spec)."""

    name = "scripted"

    def act(self, decision: Decision, session: Session) -> Any:
        table = policy_for(session.system.id)
        fn = table.get(decision.kind)
        if fn is None:
            raise KeyError(f"scripted policy for {session.system.id} has no rule for decision {decision.kind!r}")
        return fn(decision, session)
