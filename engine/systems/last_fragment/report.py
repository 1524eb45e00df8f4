"""ラストフラグメント's hooks for the playtest report (``engine.core.report_hooks``): the exact d4 probabilities next to
the observed rates, endings per PC, fragments found and shared, scenes unlocked or never reached, the resources.

A check of n dice keeps the highest die (§5.1): P(success) = 1 − (1/2)ⁿ (a 3 or a 4 among n d4), P(critical) =
1 − (3/4)ⁿ, P(fumble) = (1/4)ⁿ; 0 dice is an automatic failure (P 0). An item's automatic success has no
probability (no dice). The theory is compared with the check as rolled (no reroll exists in this game).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...core.report_hooks import CheckEntry, Dice, ReportHooks, stats_reader
from .base import SUCCESS
from .data import RESULT

__all__ = ["REPORT", "p_success", "p_critical", "p_fumble", "check_entries"]


def p_success(n: int) -> float:
    return 0.0 if n <= 0 else 1 - 0.5 ** n


def p_critical(n: int) -> float:
    return 0.0 if n <= 0 else 1 - 0.75 ** n


def p_fumble(n: int) -> float:
    return 0.0 if n <= 0 else 0.25 ** n


def raw_success(faces: Sequence[int], target: int = 0) -> bool:
    """A roll as it fell (§5.1): the highest die reads the result (1 fumble, 2 failure, 3 success, 4 critical); the
    check has no target number."""
    return bool(faces) and RESULT[max(faces)] in SUCCESS


def check_entries(check: str, rolls: Sequence[Any], data: Mapping[str, Any], dice: Dice) -> list[CheckEntry]:
    """One entry per check, keyed ``<kind> <n>d4``: success, P(success) for n dice, success as rolled; plus the
    critical and fumble rates of the same pool (``critical <n>d4``, ``fumble <n>d4``)."""
    if data.get("item"):
        return [(f"{check} item", True, None, None)]
    n = data.get("pool")
    faces = data.get("dice") or []
    if not isinstance(n, int):
        return [(check, None, None, None)]
    top = max(faces) if faces else 0
    ok = raw_success(faces, 0)
    out: list[CheckEntry] = [(f"{check} {n}d4", ok, p_success(n), ok)]
    if n > 0:
        out.append((f"critical {n}d4", top == 4, p_critical(n), top == 4))
        out.append((f"fumble {n}d4", top == 1, p_fumble(n), top == 1))
    return out


def _outcomes(outcome: Mapping[str, Any]) -> dict[str, str]:
    out: dict[str, str] = {}
    for pc, e in (outcome.get("endings") or {}).items():
        out[f"ending {pc}"] = str(e)
    out["climax"] = "reached" if outcome.get("ending") == "climax" else "not reached"
    w = outcome.get("winner")
    out["winner"] = str(w) if w else "none"
    for f, n in (outcome.get("fragments") or {}).items():
        out[f"fragment {f} (PCs holding)"] = str(n)
    visited = set(outcome.get("visited") or [])
    for s in outcome.get("scenes") or []:
        out[f"scene {s}"] = "reached" if s in visited else "never reached"
    for s in visited:
        out.setdefault(f"scene {s}", "reached")
    return out


def _effect(path: str, new: Any) -> str | None:
    """Bond powers, darts, abnormalities gained and fragments shared as rules fired."""
    head, _, rest = path.partition(".")
    if rest == "bp_used" and isinstance(new, list) and new:
        return f"{head}:{new[-1]}"
    if rest == "darts_used" and new:
        return f"{head}:dart"
    if head == "fragments" and rest.endswith(".holders") and isinstance(new, list) and new:
        return f"{new[-1]}:fragment {rest.split('.')[0]}"
    return None


REPORT = ReportHooks(
    checks=check_entries,
    raw_success=raw_success,
    stats=("hp", "tokens", "abnormality_level"),
    read_stats=stats_reader(("hp", "tokens", "abnormality_level", "bond_count"), "chars"),
    outcomes=_outcomes,
    losses=frozenset({"no_climax"}),
    effect_from_state=_effect,
    cap_topics=frozenset({"reentry_cap"}),
)
