"""The dice arithmetic of rules/a_game.md §5.2 and §9.6: the closed form of the scripted fixed-dice policy against
exact probabilities, and the exact probabilities against brute-force enumeration."""

from __future__ import annotations

import itertools
import math

import pytest

from engine.systems.a_game.odds import choose_fixed, evaluate, p_first_roll, p_with_greed, result_distribution


def _brute(n: int, d: int, f: int) -> tuple[float, float]:
    """P(success), P(not failure) of the first roll by enumerating every face."""
    rolled = n - f
    succ = ok = 0
    for faces in itertools.product(range(1, 7), repeat=rolled):
        r = evaluate(2 * f + sum(faces), d, 1 in faces)
        succ += r == "success"
        ok += r != "failure"
    total = 6 ** rolled
    return succ / total, ok / total


@pytest.mark.parametrize("n", range(0, 6))
@pytest.mark.parametrize("d", range(1, 13))
def test_first_roll_probability_is_exact(n, d):
    for f in range(0, n + 1):
        succ, ok = _brute(n, d, f)
        assert math.isclose(p_first_roll(n, d, f), succ, abs_tol=1e-12)
        dist = result_distribution(n, d, f)
        assert math.isclose(dist["success"] + dist["intermediate"], ok, abs_tol=1e-12)
        assert math.isclose(sum(dist.values()), 1.0, abs_tol=1e-12)


def _best(n: int, d: int) -> int:
    """§9.6: maximize P(success), then P(not failure); ties → more fixed dice."""
    best, key = 0, None
    for f in range(0, n + 1):
        dist = result_distribution(n, d, f)
        k = (round(dist["success"], 12), round(1 - dist["failure"], 12), f)
        if key is None or k > key:
            best, key = f, k
    return best


@pytest.mark.parametrize("n", range(0, 11))
def test_closed_form_choose_fixed_is_the_optimum(n):
    for d in range(1, 61):
        assert choose_fixed(n, d) == _best(n, d), (n, d)


def test_the_table_of_section_9_6():
    rows = {1: [1, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1], 2: [2, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
            3: [3, 3, 3, 1, 0, 0, 0, 0, 0, 0, 0, 0], 4: [4, 4, 4, 4, 2, 1, 0, 0, 0, 0, 0, 0],
            5: [5, 5, 5, 5, 5, 3, 2, 1, 0, 0, 0, 0], 6: [6, 6, 6, 6, 6, 6, 4, 3, 2, 1, 0, 0]}
    for n, row in rows.items():
        assert [choose_fixed(n, d) for d in range(1, 13)] == row


def test_worked_examples_of_section_12():
    assert choose_fixed(3, 4) == 1  # EX-01
    assert choose_fixed(2, 5) == 0  # EX-02
    assert choose_fixed(4, 4) == 4  # EX-04
    assert choose_fixed(3, 8) == 0  # EX-05
    assert choose_fixed(2, 2) == 2  # EX-09
    assert choose_fixed(3, 14) == 0  # EX-16
    assert choose_fixed(4, 6) == 1  # EX-17


def test_evaluate_thresholds():
    assert evaluate(9, 5, False) == "intermediate"
    assert evaluate(4, 5, False) == "failure"
    assert evaluate(10, 5, False) == "success"
    assert evaluate(19, 3, True) == "failure"  # any 1
    assert evaluate(0, 1, False) == "failure"  # N = 0


def test_greed_policy_only_adds_success():
    for n in range(1, 5):
        for d in range(1, 12):
            for f in range(0, n + 1):
                assert p_with_greed(n, d, f) >= p_first_roll(n, d, f) - 1e-12
                assert p_with_greed(n, d, f, chain=True) >= p_with_greed(n, d, f, chain=False) - 1e-12
    assert p_first_roll(4, 4, 4) == 1.0 and p_with_greed(4, 4, 4) == 1.0
    assert p_first_roll(0, 2) == 0.0
