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


def test_a_dropped_pc_is_not_asked_to_maintain_hama():
    """§4.8: a PC who cannot act keeps no 破魔 up — it is released at the target's turn without a question (the
    engine asked the dropped PC `sk.hama`, then released it whatever the answer)."""
    from pathlib import Path

    import pytest

    from engine.core import Session, load_scenario

    cast = Path(__file__).resolve().parents[2] / "engine" / "systems" / "bloodberry" / "examples" / "bloodberry_cast.yaml"
    s = Session(load_scenario(cast), 0)
    g = s.game
    g.t.hama[("chika", "ningyo")] = "doubt"
    for status, asked in (("active", True), ("dropped", False)):
        g.t.hama[("chika", "ningyo")] = "doubt"
        g.t.chars["chika"].status = status
        gen = g._hama_turn_start(g.t.chars["ningyo"])
        if asked:
            d = next(gen)
            assert d.kind == "sk.hama" and d.actor == "chika"
            gen.close()
        else:
            with pytest.raises(StopIteration):
                next(gen)
            assert ("chika", "ningyo") not in g.t.hama
