"""ブラッドベリー's hooks for the playtest report (``engine.core.report_hooks``): the exact success probability of
a roller (§5.3), the abilities worth following, victory goals as outcomes, sublimation effects spent and
available."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from math import comb
from typing import Any

from ...core.report_hooks import CheckEntry, Dice, ReportHooks, count_fives, generic_checks, roll_field, stats_reader

__all__ = ["REPORT", "success_probability", "check_entries"]

STATS = ("passion", "grace", "maturity", "willpower")


@lru_cache(maxsize=4096)
def success_probability(pool: int, threshold: int) -> float:
    """§5.3 (judge.py): achievement = number of dice showing 5 or 6; a basic check succeeds iff achievement >=
    threshold. P(Binomial(pool, 1/3) >= threshold), exactly."""
    if threshold <= 0:
        return 1.0
    if pool <= 0:
        return 0.0
    good = sum(comb(pool, k) * 2 ** (pool - k) for k in range(threshold, pool + 1))
    return good / 3**pool


def check_entries(check: str, rolls: Sequence[Any], data: Mapping[str, Any], dice: Dice) -> list[CheckEntry]:
    """One entry per roller (its typed line: who, pool, threshold as ``target``, success), keyed
    ``<check>:<kind>`` (``<check>:opposed:<side>`` for an opposed check, the side from ``data["rollers"]``). The raw
    first roll is the judge's first roll of that roller (purpose ``<check>:<who>``, before any reroll)."""
    if not rolls:
        return generic_checks(check, rolls, data, dice)
    kind = str(data.get("kind") or "")
    details = [r for r in data.get("rollers") or [] if isinstance(r, Mapping)]
    if len(details) != len(rolls):  # the same rollers in the same order; else by who
        by_who = {str(r.get("who")): r for r in details}
        details = [by_who.get(str(roll_field(r, "who")), {}) for r in rolls]
    out: list[CheckEntry] = []
    for r, d in zip(rolls, details):
        who = roll_field(r, "who")
        key = f"{check}:{kind}:{d.get('side', '')}" if kind == "opposed" else f"{check}:{kind}"
        s = bool(roll_field(r, "success"))
        pool, thr = roll_field(r, "pool"), roll_field(r, "target")
        first = dice.get(f"{check}:{who}") or []
        if isinstance(pool, int) and isinstance(thr, int) and pool > 0 and len(first) >= pool \
                and roll_field(r, "result") != "abandoned":
            raw = count_fives(first[:pool], thr)
            out.append((key, s, success_probability(pool, thr), raw))
        else:  # abandoned, not rolled (unopposed), no threshold
            out.append((key, s, None, None))
    return out


def _outcomes(outcome: Mapping[str, Any]) -> dict[str, str]:
    out: dict[str, str] = {}
    for pc, info in (outcome.get("pcs") or {}).items():
        if isinstance(info, Mapping):
            for i, v in enumerate(info.get("victory") or []):
                if isinstance(v, Mapping):
                    out[f"victory goal {pc}[{i}]"] = "achieved" if v.get("achieved") else "not achieved"
    return out


def _effect_spent(path: str, new: Any) -> str | None:
    # §7.3: declaring a sublimated skill's effect spends it (``<pc>.skill.<id>.effect``: available → spent)
    if new != "spent":  # (every state change of a session comes through here)
        return None
    parts = path.split(".")
    if len(parts) == 4 and parts[1] == "skill" and parts[3] == "effect":
        return f"{parts[0]}:{parts[2]}"
    return None


def _sublimated(snap: Mapping[str, Any], pcs: list[str]) -> list[str]:
    chars = (snap.get("table") or {}).get("chars") or {}
    return sorted(f"{pc}:{sk['id']}" for pc in pcs for sk in (chars.get(pc) or {}).get("skills") or []
                  if isinstance(sk, Mapping) and sk.get("sublimated") and isinstance(sk.get("id"), str))


REPORT = ReportHooks(
    checks=check_entries,
    raw_success=count_fives,  # §5.1 達成値: the 5s and 6s, against the threshold
    stats=STATS,
    read_stats=stats_reader(STATS, "abilities"),
    outcomes=_outcomes,
    losses=frozenset({"defeat", "rival_victory", "dropped", "cursed", "not achieved"}),
    cap_endings=frozenset({"withdrawn"}),
    effect_from_state=_effect_spent,
    available_effects=_sublimated,
)
