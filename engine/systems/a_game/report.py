"""「A」's hooks for the playtest report (``engine.core.report_hooks``): the exact success probability of a check's
first roll next to the observed rate, goal outcomes per scene, hero points and elements as resources, hero point
effects and each PC's element usage as rules fired (bans and omnipotent deletions: the info topics ``usage_ban`` and
``omnipotent``).

The probability is that of the **first roll as it fell** (§5.2): N elements, f of them fixed at 2 (the roller's
choice, D22), D the difficulty; success iff no rolled 1 and 2f + the sum ≥ 2D. It is computed exactly by dynamic
programming over the faces (``odds.p_first_roll``), with no greed roll and no hero point, because the raw result
the report compares it with is the first roll's. (``odds.p_with_greed`` gives the probability under the scripted
greed policy, D23, for those who want it.) Opposed checks get no probability: their difficulty is the opponent's
roll. Voided checks (hero point effect B) never reach these hooks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...core.report_hooks import CheckEntry, Dice, ReportHooks
from .odds import evaluate, p_first_roll

__all__ = ["REPORT", "check_entries", "element_uses"]


def raw_success(faces: Sequence[int], difficulty: int) -> bool:
    """A roll as it fell, no die fixed (§5.2): a 1 fails it, else the sum succeeds from twice the difficulty."""
    return evaluate(sum(faces), difficulty, 1 in faces) == "success"


def check_entries(check: str, rolls: Sequence[Any], data: Mapping[str, Any], dice: Dice) -> list[CheckEntry]:
    result = data.get("result")
    success = result == "success" if isinstance(result, str) and result else None
    n, fixed, d = data.get("n"), data.get("fixed"), data.get("difficulty")
    if data.get("opponent") or not isinstance(n, int) or not isinstance(fixed, int) or not isinstance(d, int):
        return [(check, success, None, None)]
    raw = data.get("raw")
    return [(check, success, p_first_roll(n, d, fixed), raw == "success" if isinstance(raw, str) else None)]


def element_uses(check: str, data: Mapping[str, Any]) -> list[str]:
    """Element usage (§4-1-3) as rules fired: ``<pc>:【name】`` for each own element and each contribution of a check
    (SDC checks count none, as usage does not)."""
    if check == "redo" or check == "sdc":
        return []
    actor = str(data.get("actor", "?"))
    out = [f"{actor}:【{e}】" for e in data.get("elements") or []]
    out += [f"{c.get('pc', '?')}:【{c.get('element')}】" for c in data.get("contributions") or []]
    opp = data.get("opponent") or {}
    if isinstance(opp, Mapping) and opp.get("who") and not str(data.get("opposed_by", "")).startswith("sdc"):
        out += [f"{opp['who']}:【{e}】" for e in opp.get("elements") or []]
    return out


def _outcomes(outcome: Mapping[str, Any]) -> dict[str, str]:
    return {f"goal {sid}": str(res) for sid, res in (outcome.get("goals") or {}).items()}


def _read(snap: Mapping[str, Any], pc: str) -> dict[str, float]:
    ch = ((snap.get("table") or {}).get("pcs") or {}).get(pc) or {}
    out: dict[str, float] = {}
    if isinstance(ch.get("hp"), int):
        out["hp"] = ch["hp"]
    if isinstance(ch.get("elements"), list):
        out["elements"] = len(ch["elements"])
    return out


def _available(snap: Mapping[str, Any], pcs: list[str]) -> list[str]:
    return sorted(f"{pc}:{e}" for pc in pcs for e in ("A", "B"))


REPORT = ReportHooks(
    checks=check_entries,
    raw_success=raw_success,
    # hero points are lost at the game end (§4-5-2): the "end" values are those when the game end began
    end_before_phase="game_end",
    stats=("hp",),
    read_stats=_read,
    outcomes=_outcomes,
    losses=frozenset({"no_goals", "ended_early", "failed"}),
    effect_topics={"hero_point": "effect"},
    effects_from_check=element_uses,
    available_effects=_available,
)
