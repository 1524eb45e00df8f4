"""Scripted agents: deterministic heuristic policies per system and role, implementing the specs' defaults.

A system's policy is the module ``agent.scripted.<system id>`` with ``POLICY: dict[decision kind, function]``; each
function gets the decision and the seat view (``engine.core.seat.SeatView``) and may read only what they hold. The
reaction windows are answered by the system's ``default`` standing answer (the spec's scripted default, declared
in its decision table: ``engine.core.standing``), which the agent also declares, so that the engine resolves those
windows without asking it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from engine.core.decision import Decision
from engine.core.seat import SeatView
from engine.core.standing import DEFAULT, StandingAnswer, declared_kinds

__all__ = ["ScriptedAgent", "policy_for", "standing_defaults"]

Policy = Callable[[Decision, SeatView], Any]
_POLICIES: dict[str, dict[str, Policy]] = {}


def policy_for(system_id: str) -> dict[str, Policy]:
    if system_id not in _POLICIES:
        mod = importlib.import_module(f"agent.scripted.{system_id}")
        _POLICIES[system_id] = mod.POLICY
    return _POLICIES[system_id]


def standing_defaults(standing: Mapping[str, Sequence[StandingAnswer]], prefix: str = "") -> dict[str, Any]:
    """Policy entries for the reaction windows (of kinds starting with ``prefix``): each answers with the window's
    ``default`` standing answer, so the scripted policy and its declared standing answers are one rule."""
    out: dict[str, Any] = {}
    for kind, vocab in standing.items():
        if kind.startswith(prefix):
            for sa in vocab:
                if sa.id == DEFAULT:
                    out[kind] = (lambda resolve: lambda d, v: resolve(d))(sa.resolve)
    return out


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

    def standing_answers(self, system: Any, actor: str, role: str) -> dict[str, str]:
        """The windows this policy answers by their default standing answer (all of the seat's with one)."""
        return declared_kinds(system.decision_table, role, DEFAULT)
