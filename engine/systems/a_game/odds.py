"""The dice arithmetic of rules/a_game.md §5.2 and §9.6: the result of a roll, the scripted fixed-dice policy, and
exact probabilities (for the playtest report and for policies).

A check of pool N against difficulty D: f dice are fixed at 2 (no die is rolled for them), N − f d6 are rolled;
total = 2f + sum; any rolled 1 is an automatic failure; total ≥ 2D success, D ≤ total < 2D intermediate, else
failure. Each rolled 6 allows one extra die (グリードロール), rolled in batches; a 1 among them fails the check.

Probabilities are exact: sums of d6 are enumerated by dynamic programming over the faces 2..5 (a 1 fails, a 6 is
counted apart because it feeds the greed loop), with ``fractions``-free integer counts until the last division.
"""

from __future__ import annotations

import math
from functools import lru_cache, cache

__all__ = ["evaluate", "choose_fixed", "p_first_roll", "p_with_greed", "result_distribution"]


def evaluate(total: int, difficulty: int, auto_fail: bool) -> str:
    """§5.2 evaluate: ``success`` / ``intermediate`` / ``failure``."""
    if auto_fail:
        return "failure"
    if total >= 2 * difficulty:
        return "success"
    if total < difficulty:
        return "failure"
    return "intermediate"


def choose_fixed(n: int, d: int) -> int:
    """§9.6: the scripted number of fixed dice (maximizes P(success), then P(not failure), ignoring greed; ties →
    more fixed dice)."""
    if n <= 0:
        return 0
    if n >= d:
        return n
    if 3 * n >= d:
        return max(0, 2 * n - d - 1)
    if 6 * n < d:
        return n
    return max(0, 2 * n - math.ceil(d / 2) - 1)


@cache
def _counts(n: int) -> tuple[int, ...]:
    """Number of ways n dice with faces 2..5 make each sum (index = sum)."""
    ways = [1]
    for _ in range(n):
        nxt = [0] * (len(ways) + 5)
        for s, w in enumerate(ways):
            if w:
                for face in (2, 3, 4, 5):
                    nxt[s + face] += w
        ways = nxt
    return tuple(ways)


def _outcomes(n: int) -> list[tuple[int, int, int]]:
    """Every (sum, sixes, ways) of n rolled d6 with no 1 among them (the rest of 6**n has a 1)."""
    out: list[tuple[int, int, int]] = []
    for k6 in range(n + 1):
        c = math.comb(n, k6)
        for s, w in enumerate(_counts(n - k6)):
            if w:
                out.append((s + 6 * k6, k6, c * w))
    return out


def p_first_roll(n: int, d: int, fixed: int = 0) -> float:
    """P(success) of the first roll as it falls (no greed, no hero point): the raw result the report compares."""
    rolled = n - fixed
    if n <= 0:
        return 0.0 if d >= 1 else 1.0
    base = 2 * fixed
    good = sum(w for s, _k, w in _outcomes(rolled) if base + s >= 2 * d)
    return good / 6 ** rolled


@lru_cache(maxsize=65536)
def _greed(total: int, avail: int, d: int, chain: bool) -> float:
    """P(success) from ``total`` with ``avail`` extra dice allowed, under the scripted greed policy (D23: stop when
    the result is a success, else roll every allowed die)."""
    if total >= 2 * d:
        return 1.0
    if avail == 0:
        return 0.0
    acc = 0.0
    for s, k6, w in _outcomes(avail):
        acc += w * _greed(total + s, k6 if chain else 0, d, chain)
    return acc / 6 ** avail


def p_with_greed(n: int, d: int, fixed: int = 0, chain: bool = True) -> float:
    """P(success) of a check under the scripted greed policy (D23) after ``fixed`` dice were fixed."""
    rolled = n - fixed
    if n <= 0:
        return 0.0 if d >= 1 else 1.0
    base = 2 * fixed
    acc = 0.0
    for s, k6, w in _outcomes(rolled):
        acc += w * _greed(base + s, k6, d, chain)
    return acc / 6 ** rolled


def result_distribution(n: int, d: int, fixed: int = 0) -> dict[str, float]:
    """P(success), P(intermediate), P(failure) of the first roll (no greed)."""
    rolled = n - fixed
    if n <= 0:
        return {"success": 0.0, "intermediate": 0.0, "failure": 1.0} if d >= 1 else \
            {"success": 1.0, "intermediate": 0.0, "failure": 0.0}
    base = 2 * fixed
    total = 6 ** rolled
    succ = inter = 0
    for s, _k, w in _outcomes(rolled):
        t = base + s
        if t >= 2 * d:
            succ += w
        elif t >= d:
            inter += w
    return {"success": succ / total, "intermediate": inter / total, "failure": 1 - (succ + inter) / total}
