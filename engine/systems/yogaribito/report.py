"""夜狩り人's hooks for the playtest report (``engine.core.report_hooks``): the exact success probability of a
check (§5.2), the resources worth following, fights as outcomes, feats fired and available."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from math import comb
from typing import Any

from ...core.report_hooks import CheckEntry, Dice, ReportHooks, roll_field, stats_reader

__all__ = ["REPORT", "success_probability", "check_entries", "check_effects"]

STATS = ("life", "soul", "luck", "wealth", "kagaribi")


@lru_cache(maxsize=4096)
def success_probability(pool: int, target: int) -> float:
    """§5.2: n d6, success iff #(5 or 6) >= target, or at least two 6s (a critical always succeeds).

    Exact, by summing over (number of 6s, number of 5s): P(k6 sixes, k5 fives) is multinomial with p=1/6, 1/6, 4/6.
    A pool of 0 rolls nothing (success only if the target is 0 or less, as the engine evaluates it)."""
    if pool <= 0:
        return 1.0 if target <= 0 else 0.0
    total = 0
    for k6 in range(pool + 1):
        for k5 in range(pool - k6 + 1):
            if k6 >= 2 or k5 + k6 >= target:
                rest = pool - k6 - k5
                total += comb(pool, k6) * comb(pool - k6, k5) * 4**rest
    return total / 6**pool


def raw_success(faces: Sequence[int], target: int) -> bool:
    """A roll as it fell (§5.2 step 3): a critical (two 6s or more) or an achievement (5s and 6s) reaching the
    target."""
    return faces.count(6) >= 2 or sum(1 for f in faces if f >= 5) >= target


def check_entries(check: str, rolls: Sequence[Any], data: Mapping[str, Any], dice: Dice) -> list[CheckEntry]:
    """A check with one roller (its typed line: pool, target, success); opposed checks, attack results, damage and
    the crit table have none (results, not rolls). The raw first roll comes from ``data["rolls"]`` (every roll
    made: one, two with a 【運】 reroll)."""
    s = roll_field(rolls[0], "success") if len(rolls) == 1 else None
    if not isinstance(s, bool):
        return [(check, None, None, None)]
    r = rolls[0]
    pool, target, cancelled = roll_field(r, "pool"), roll_field(r, "target"), roll_field(r, "result") == "cancelled"
    if check == "luck" or not isinstance(pool, int) or not isinstance(target, int) or cancelled:
        return [(check, s, None, None)]  # "luck": the same roll again, after a deferred 【運】
    if pool <= 0:
        return [(check, s, success_probability(pool, target), target <= 0)]
    # one roll (two with a 【運】 reroll); 束縛 defense rolls twice and keeps the lower one: not a plain roll
    made = data.get("rolls") or []
    if len(made) != (2 if data.get("luck") == "reroll" else 1) or len(made[0]) != pool:
        return [(check, s, None, None)]
    first = made[0]
    raw = raw_success(first, target)
    return [(check, s, success_probability(pool, target), raw)]


def check_effects(check: str, data: Mapping[str, Any]) -> list[str]:
    """Constant feats that applied (``<who>:<feat>``): a static dice modifier of a check (``mods``), or a damage
    modifier of a damage determination (``parts``: the target's for damage received, the attacker's for dealt)."""
    from .arms import FEATS

    out: list[str] = []
    if check == "damage":
        for part in data.get("parts") or []:
            f = FEATS.get(part[0]) if part else None
            if f is not None and f.timing == "constant" and f.damage_mods:
                received = any(m.direction == "received" for m in f.damage_mods)
                out.append(f"{data.get('target' if received else 'attacker', '?')}:{f.id}")
        return out
    for mod in data.get("mods") or []:
        f = FEATS.get(mod[0]) if mod else None
        if f is not None and f.timing == "constant":
            out.append(f"{data.get('who', '?')}:{f.id}")
    return out


def _outcomes(outcome: Mapping[str, Any]) -> dict[str, str]:
    return {f"fight {fid}": str(res) for fid, res in (outcome.get("fights") or {}).items()}


def _feats(snap: Mapping[str, Any], pcs: list[str]) -> list[str]:
    chars = (snap.get("table") or {}).get("chars") or {}
    return sorted(f"{pc}:{f}" for pc in pcs for f in (chars.get(pc) or {}).get("feats") or [] if isinstance(f, str))


REPORT = ReportHooks(
    checks=check_entries,
    raw_success=raw_success,
    # scenario end restores every survivor to base: the "end" values are those when the afterplay began
    end_before_phase="afterplay",
    stats=STATS,
    read_stats=stats_reader(STATS, "current"),
    outcomes=_outcomes,
    losses=frozenset({"objective_failed", "pcs_lose", "dead", "doomed", "escaped"}),
    cap_outcomes=frozenset({"round_cap"}),
    effect_topics={"feat": "feat", "auto_feat": "feat", "cost": "feat"},
    effects_from_check=check_effects,
    available_effects=_feats,
)
