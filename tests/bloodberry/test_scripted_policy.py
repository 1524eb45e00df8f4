"""The scripted ブラッドベリー policy answers legally where the options differ by who decides."""

from __future__ import annotations

from agent.scripted.bloodberry import POLICY
from engine.core.decision import Decision, Option


def _passive(*ids: str) -> Decision:
    return Decision("ningyo", "rc.passive_choice", "?", "§5.4", options=[Option(i, i) for i in ids])


def test_passive_choice_of_a_formed_curse_is_legal():
    """A formed curse has no 気力 (§11 G4): the default 'raise if allowed, else willpower' lowers instead (it used to
    answer willpower, which the engine refused, and the scripted fallback was the same policy)."""
    fn = POLICY["rc.passive_choice"]
    assert fn(_passive("raise", "lower", "willpower"), None) == "raise"
    assert fn(_passive("lower", "willpower"), None) == "willpower"
    assert fn(_passive("lower"), None) == "lower"
    d = _passive("lower")
    assert d.check(fn(d, None)).choice == "lower"
