"""The playtest report's hooks: what a system tells the batch summary (``agent.batch.summary``) about its sessions.

A system registers a ``ReportHooks`` as ``SystemInfo.report`` (None: the generic hooks, counts only). Every hook is
a plain function of plain data (event fields, the end snapshot, the session outcome), so the summary stays cheap
and knows no system.

Checks: ``checks(check, rolls, data, dice)`` gets a check event's name, its typed dice lines (``CheckRoll``: who,
pool, faces, target, ach, success, result), its system details (``data``) and the dice rolled since the previous
check (``RollEvent`` values by purpose, the raw dice before any reroll), and returns entries ``(key, success or
None, theoretical probability of the first roll or None, success of the first roll as rolled or None)``. "Raw" is
the success of the first roll as the dice fell (before luck, rerolls, effects and concessions): the only thing the
exact probability describes; comparing only rolls nobody touched would be biased (players spend luck and rerolls
on failures), so the theory is always compared with the raw first roll. Voided checks never reach the hooks.

``raw_success(faces, target)`` is that reading for one roller: the faces as they fell against the check's target
(the typed line's ``target``), with no modifier, fixed die, reroll or effect. The systems' ``checks`` hooks read
their raw first roll with it, and ``scripts/bench_batch.py``'s bare loop ("the dice and arithmetic alone") reads
every pool it rolls with it, so the bare loop of every system does its own system's arithmetic.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["ReportHooks", "CheckEntry", "Dice", "count_fives", "generic_checks", "roll_field", "stats_reader"]

#: (check key, success or None if the check has no success, theoretical probability of the first roll or None if not
#: applicable, success of the first roll as rolled or None)
CheckEntry = tuple[str, bool | None, float | None, bool | None]
#: the dice rolled since the previous check: purpose → values
Dice = Mapping[str, list[int]]


def roll_field(roll: Any, name: str, default: Any = None) -> Any:
    """A field of a typed dice line (a ``CheckRoll``, or its fields as a mapping)."""
    if isinstance(roll, Mapping):
        return roll.get(name, default)
    return getattr(roll, name, default)


def generic_checks(check: str, rolls: Sequence[Any], data: Mapping[str, Any], dice: Dice) -> list[CheckEntry]:
    """One entry per check: the success of its one roller (or the check's own ``success`` when it has no single
    roller); no probability."""
    s = roll_field(rolls[0], "success") if len(rolls) == 1 else data.get("success")
    return [(check, s if isinstance(s, bool) else None, None, None)]


def stats_reader(stats: tuple[str, ...], where: str) -> Callable[[Mapping[str, Any], str], dict[str, float]]:
    """A ``read_stats`` hook for a snapshot that keeps characters at ``table.chars.<pc>``: each of ``stats`` from
    the character's ``where`` mapping (e.g. ``current``) when it is there, else from the character itself."""

    def read(snap: Mapping[str, Any], pc: str) -> dict[str, float]:
        ch = ((snap.get("table") or {}).get("chars") or {}).get(pc) or {}
        out: dict[str, float] = {}
        for st in stats:
            src = ch.get(where) if st in (ch.get(where) or {}) else ch
            v = (src or {}).get(st)
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                out[st] = v
        return out

    return read


def count_fives(faces: Sequence[int], target: int) -> bool:
    """The default raw reading: the number of 5s and 6s reaches the target (ブラッドベリー's 達成値, its spec's §5.1;
    夜狩り人's achievement, its §5.2, before the critical)."""
    return sum(1 for f in faces if f >= 5) >= target


def _no_outcomes(outcome: Mapping[str, Any]) -> dict[str, str]:
    return {}


@dataclass(frozen=True)
class ReportHooks:
    #: check event → entries (key, success, theoretical probability, raw success): see the module docstring
    checks: Callable[[str, Sequence[Any], Mapping[str, Any], Dice], list[CheckEntry]] = generic_checks
    #: one roller's faces as they fell, against the check's target → success (see the module docstring)
    raw_success: Callable[[Sequence[int], int], bool] = count_fives
    #: resources of a PC worth following (state paths ``<pc>.<stat>``)
    stats: tuple[str, ...] = ()
    #: final values from the end snapshot
    read_stats: Callable[[Mapping[str, Any], str], dict[str, float]] | None = None
    #: extra named outcomes (fights, goals) from the session outcome
    outcomes: Callable[[Mapping[str, Any]], dict[str, str]] = _no_outcomes
    #: outcome labels that are a loss for the PCs (warned about when they dominate)
    losses: frozenset[str] = frozenset()
    #: ending labels that mean a safety cap ended the session
    cap_endings: frozenset[str] = frozenset()
    #: fight / contest labels that mean a safety cap
    cap_outcomes: frozenset[str] = frozenset()
    #: info topics of this system that mean a safety cap, beyond the shared ``round_cap`` and ``scene_cap``
    cap_topics: frozenset[str] = frozenset()
    #: info topics that are rules/effects firing (counted by data[field]) — e.g. feats paid for
    effect_topics: Mapping[str, str] = field(default_factory=dict)
    #: a state change that is an effect firing: (path, new value) -> ``<who>:<effect>`` or None
    effect_from_state: Callable[[str, Any], str | None] | None = None
    #: a check event that shows effects applying: (check, data) -> ``<who>:<effect>`` entries (constant feats)
    effects_from_check: Callable[[str, Mapping[str, Any]], list[str]] | None = None
    #: the effects the PCs could fire (``<pc>:<effect>``), from the end snapshot
    available_effects: Callable[[Mapping[str, Any], list[str]], list[str]] | None = None
    #: the session phase whose start freezes the "end" values (e.g. an afterplay that restores every survivor to
    #: base, which would hide what the scenario did to them); None: the end snapshot
    end_before_phase: str | None = None
