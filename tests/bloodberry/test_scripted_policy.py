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


def test_the_special_action_is_kept_for_the_step_that_settles_the_curse():
    """Rule of play of pc_cf_action (agent/scripted/bloodberry.py): a special action raising the camp relation is
    taken for the last step (τ = cap) when its chance beats the relation check's, not spent on an easy first step."""
    fn = POLICY["pc.cf_action"]

    def turn(strength: int) -> Decision:
        ids = ["rc:ningyo:inquiry", "rc:ningyo:banter", "sp:salt_rite:ningyo", "pass"]
        pools = {f"rc:ningyo:{t}": {"my_pool": 8, "curse_pool": 4} for t in ("inquiry", "banter")}
        return Decision("dora", "pc.cf_action", "?", "§7.5", options=[Option(i, i) for i in ids],
                        context={"pools": pools, "camp_strength": {"ningyo": strength}, "cap": 4,
                                 "specials": {"sp:salt_rite:ningyo": {"pool": 7, "difficulty": 2, "camp_strength": 1}}})

    assert fn(turn(0), None) == "rc:ningyo:inquiry"
    assert fn(turn(2), None) == "rc:ningyo:inquiry"
    assert fn(turn(3), None) == "sp:salt_rite:ningyo"


def test_former_safety_cap_seeds_of_inoiri_dolls_end_by_the_rules():
    """`trpg playtest scenarios/bloodberry/inoiri_dolls.yaml --runs 1000` had 3 sessions at the confrontation's safety
    cap (ending `withdrawn`, seeds 113, 153, 271): a camp of 4 at camp relation 3 kept rolling relation checks at
    τ = 4 while the scenario's difficulty-2 special action stood unused; seed 68 was one that spent it on the first
    step. All-scripted, every one now ends by the rules."""
    from pathlib import Path

    from agent.scripted import ScriptedAgent
    from engine.core import Session, load_scenario

    sc = load_scenario(Path(__file__).resolve().parents[2] / "scenarios" / "bloodberry" / "inoiri_dolls.yaml")
    for seed in (68, 113, 153, 271):
        s = Session(sc, seed)
        agent = ScriptedAgent()
        while not s.is_over:
            s.answer(agent.act(s.view()))
        assert s.outcome["ending"] in ("victory", "defeat"), (seed, s.outcome["ending"])
