"""Scripted defaults for the check windows of 夜狩り人 (rules/yogaribito.md §8: D24–D28, D43–D46, D49, D54).

Each function reads only the decision's options, context and observation. The psychic focus check (D54: "no
resources") reuses the ck.* windows with ``context.kind == "psychic_focus"``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.core.decision import Decision
from engine.core.session import Session

__all__ = ["POLICY", "luck_choice"]

# the reaction windows (D24–D28, D46) are answered by their default standing answers: engine.systems.yogaribito.standing
from engine.systems.yogaribito.standing import luck_choice  # noqa: E402  (kept importable from here)
from agent.scripted import standing_defaults
from engine.systems.yogaribito.standing import STANDING as _STANDING

_DEFENSIVE_TRIGGERS = ("before_own_defense", "before_defense_in_engagement")
_DEFENSE_PREFERENCE = ("body", "tech", "mind")
_BULLET_PREFERENCE = ("life", "soul", "wealth")


def _ctx(d: Decision) -> dict[str, Any]:
    return dict(d.context or {})
















def ck_zero(d: Decision, s: Session) -> Any:
    """D44: PCs awaken; NPCs awaken iff designated (the option exists only for eligible characters)."""
    return "awaken" if "awaken" in d.option_ids else d.option_ids[0]




def ck_release_status(d: Decision, s: Session) -> Any:
    """D45: keep."""
    return "keep"


def ck_doom_ack(d: Decision, s: Session) -> Any:
    """D49: cancel."""
    return "cancel"


def ck_crit_fiat(d: Decision, s: Session) -> Any:
    """D43: the scripted GM adds nothing."""
    return "none"


POLICY: dict[str, Callable[[Decision, Session], Any]] = {
    "ck.zero": ck_zero,
    "ck.release_status": ck_release_status,
    "ck.doom_ack": ck_doom_ack,
    "ck.crit_fiat": ck_crit_fiat,
}

# the reaction windows: the system's default standing answers (engine.systems.yogaribito.standing), which the agent
# also declares (ScriptedAgent.standing_answers), so that the engine resolves them without asking
POLICY.update(standing_defaults(_STANDING, "ck."))
