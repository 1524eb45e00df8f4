"""夜狩り人 rules that a mutation pass (scripts/mutate_rules.py, seed 13; docs/mutation.md) could change with every
test still passing. Each test names the mutant it kills and the section of rules/yogaribito.md it pins."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from . import ROOT, run_example


def yg(case: dict[str, Any], scenario: str = "yogaribito_table.yaml") -> None:
    run_example("yogaribito", scenario, case)


@contextmanager
def deadline(seconds: float = 5.0) -> Iterator[None]:
    """Fail (TimeoutError) instead of hanging when a rule's loop never ends (a mutant of it)."""
    def boom(*_: object) -> None:
        raise TimeoutError(f"not done within {seconds} s")

    old = signal.signal(signal.SIGALRM, boom)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _raw(**base: int) -> dict[str, Any]:
    return {"pc": {"name": "A", "main_class": "adept", "base": {"mind": 1, "tech": 1, "body": 1, "life": 10, "soul": 5,
                                                                 **base}}}


def test_legs_broken_takes_three_dice_from_defense():
    """§5.2 D: defense `if actor.legs_broken: p -= 3` (痛打表 row 3), then the floor 1: 【体】5 → 2 dice.
    Kills checks.py:429:17:const:1 (−2)."""
    yg({"id": "LEGS", "setup": {"chars": {"a": {**_raw(body=5), "legs_broken": True}}},
        "procedure": {"check": {"actor": "a", "kind": "defense", "target": 1}}, "dice": [5, 2],
        "expect": {"events": [{"type": "check", "check": "defense", "data": {"who": "a", "pool": 2, "ach": 1}}]}})


def test_bound_defense_adopts_the_lower_effective_achievement_a_critical_counting_plus_one():
    """§5.2 E, §7.9 束縛 (AMB-31): a bound defender rolls twice and adopts the roll with the lower effective
    achievement, ach + 1 if critical: A = 5,5,1 (2) vs B = 6,6,1 (2 + 1 = 3) → A. Kills checks.py:524:25:arith:0
    (the critical subtracted)."""
    yg({"id": "BOUND", "setup": {"chars": {"a": {**_raw(body=3), "statuses": {"bound": []}}}},
        "procedure": {"check": {"actor": "a", "kind": "defense", "target": 1}}, "dice": [5, 5, 1, 6, 6, 1],
        "expect": {"events": [{"type": "check", "check": "defense",
                               "data": {"who": "a", "pool": 3, "faces": [5, 5, 1], "ach": 2, "crit": False}}]}})
    # and the other way round: the critical roll first is not adopted either
    yg({"id": "BOUND-b", "setup": {"chars": {"a": {**_raw(body=3), "statuses": {"bound": []}}}},
        "procedure": {"check": {"actor": "a", "kind": "defense", "target": 1}}, "dice": [6, 6, 1, 5, 5, 1],
        "expect": {"events": [{"type": "check", "check": "defense",
                               "data": {"who": "a", "faces": [5, 5, 1], "ach": 2, "crit": False}}]}})


SORCERER_VS_KURO = {
    "chars": {"kuro": {"pc": {"name": "九郎", "main_class": "adept", "base": {"mind": 2, "tech": 1, "body": 1,
                                                                            "life": 10, "soul": 5}}},
              "sorcerer": {"enemy": "cult_sorcerer", "current": {"luck": 0}}},
    "layout": {"E1": ["kuro"], "E2": ["sorcerer"]},
}


def test_an_attack_feat_inflicts_its_status_on_the_target_it_hits():
    """§11.3 《魔の刻印》 (brand_of_malice, on_hit_status brand): "on hit inflict 刻印 (inflicter = you)" on a living
    target, and no equipment is chosen (only 武器封じ seals an item, §7.9). Kills combat.py:1154:90:not:0 (status
    only on a dead target) and combat.py:1257:11:cmp:0 (every status handled as 武器封じ)."""
    yg({"id": "BRAND", "setup": SORCERER_VS_KURO,
        "procedure": {"attack": {"attacker": "sorcerer", "source": "brand_of_malice", "targets": ["kuro"]}},
        "dice": [5, 5, 2, 3, 1, 2],
        "expect": {"result": {"hit": {"kuro": True}},
                   "state": {"table.chars.kuro.statuses": {"brand": ["sorcerer"]}},
                   "asked": [{"kind": "cb.seal_item", "times": 0}]}})


def test_weapon_sealed_makes_only_the_sealed_item_unusable():
    """§7.9 武器封じ: "the specified equipment item cannot be used" — the sealed handgun is refused, the knife in the
    other hand still attacks. Kills checks.py:155:20:boolop:0 (every item unusable while sealed)."""
    yg({"id": "SEALED", "setup": {"chars": {"jin": {"sample": "sample_midou_jin", "statuses": {"weapon_sealed": ["ghoul"]},
                                                    "sealed_item": "handgun"},
                                            "ghoul": {"enemy": "ghoul", "name": "屍鬼"}},
                                  "layout": {"E1": ["jin", "ghoul"]}, "time_of_day": "night"},
        "procedure": {"turn": {"actor": "jin"}},
        "dice": [5, 2, 1, 3, 4, 2, 3],
        "answers": [{"kind": "cb.minor", "actor": "jin", "answer": "none"},
                    {"kind": "cb.major", "actor": "jin", "answer": "attack:knife"}],
        "illegal": [{"kind": "cb.major", "actor": "jin", "answer": "attack:handgun"}],
        "expect": {"result": {"acted": True}}})


# ---------------------------------------------------------------------------------------------------------------------
# second pass (docs/mutation.md, 2026-12-02): ids at b70687f
# ---------------------------------------------------------------------------------------------------------------------
def test_black_magic_mind_checks_gain_a_die_in_an_unholy_scene():
    """§4.2 ブラックマジック (class table): mind checks +1 die in an `unholy` scene, −1 in a `holy` one: 【心】3 rolls 4
    dice, 3 without a tag, 2 when holy. Kills checks.py:223:16:arith:0 (the unholy +1 subtracted)."""
    pc = {"pc": {"name": "A", "main_class": "black_magic",
                 "base": {"mind": 3, "tech": 1, "body": 1, "life": 10, "soul": 5}}}
    for tags, pool in ((["unholy"], 4), ([], 3), (["holy"], 2)):
        yg({"id": f"BLACK-{pool}", "setup": {"chars": {"a": pc}, "tags": tags},
            "procedure": {"check": {"actor": "a", "kind": "generic", "ability": "mind", "target": 1}},
            "dice": [1] * pool,
            "expect": {"events": [{"type": "check", "data": {"who": "a", "pool": pool}}]}})


def test_unholy_pact_adds_one_mind_damage_only_in_an_unholy_scene():
    """§11.3 《魔との盟約》 (unholy_pact, constant): "in `unholy` scenes, mind-attribute damage you deal +1": 《黒き呪詛》
    damage 2 (mind) deals 3 in an unholy scene, 2 elsewhere. Kills checks.py:180:19:cmp:0 (the unholy condition
    read the other way round)."""
    for tags, dmg, dice in ((["unholy"], 3, [5, 5, 4, 2, 1, 1, 1]), ([], 2, [5, 5, 4, 1, 1, 1])):
        yg({"id": f"PACT-{dmg}",
            "setup": {"chars": {"a": {"pc": {"name": "A", "main_class": "black_magic", "feats": ["dark_curse", "unholy_pact"],
                                             "base": {"mind": 3, "tech": 1, "body": 1, "life": 10, "soul": 5}}},
                                "ghoul": {"enemy": "ghoul", "name": "屍鬼"}},
                      "layout": {"E1": ["a"], "E2": ["ghoul"]}, "tags": tags},
            "procedure": {"attack": {"attacker": "a", "source": "dark_curse", "targets": ["ghoul"]}},
            "dice": dice,
            "expect": {"result": {"hit": {"ghoul": True}, "damage": {"ghoul": dmg}}}})


def test_a_new_engagement_takes_the_next_free_id():
    """§7.4 (withdraw to a new engagement): a new engagement gets an id that no engagement has: with E1 and E2 on the
    battlefield the next is E3, then E4. Kills state.py:157:12:arith:0 (−=) and state.py:157:28:const:1 (+0: the
    loop never ends)."""
    from engine.systems.yogaribito.state import Battlefield

    bf = Battlefield(engagements={"E1": ["a"], "E2": ["b"]}, next_id=1)
    with deadline():
        assert bf.new_engagement() == "E3"
        assert bf.new_engagement() == "E4"
    assert set(bf.engagements) == {"E1", "E2", "E3", "E4"}


def _jin_sheet() -> dict[str, Any]:
    from engine.systems.yogaribito.config import YogaribitoConfig
    from engine.systems.yogaribito.creation import character_from_sheet, sheet_of

    s = sheet_of(character_from_sheet({"id": "jin", "sample": "sample_midou_jin"}, cfg=YogaribitoConfig()))
    s["creation"]["stock_cost"] = 6  # Σ stock costs at creation (handgun, knife, stab vest, revitalizer)
    return s


def test_growth_takes_no_feat_twice():
    """§3.1 step 5 (no feat twice) for growth (§7.11.2): a feat bought with XP must not be one the PC has, nor be
    bought twice. Kills creation.py:652:12:stmtdel:0 (the problem not reported)."""
    from engine.systems.yogaribito.config import YogaribitoConfig
    from engine.systems.yogaribito.creation import sheet_problems

    cfg = YogaribitoConfig()
    s = _jin_sheet()
    assert sheet_problems({**s, "growth": {"feats": ["first_aid"], "xp_spent": 5}}, cfg=cfg) == []
    twice = sheet_problems({**s, "growth": {"feats": ["first_aid", "first_aid"], "xp_spent": 10}}, cfg=cfg)
    assert any(p.startswith("growth.feats[1]") and "already taken" in p for p in twice), twice
    owned = sheet_problems({**s, "growth": {"feats": ["silver_bullet"], "xp_spent": 5}}, cfg=cfg)
    assert any(p.startswith("growth.feats[0]") and "already taken" in p for p in owned), owned


def test_stock_points_recalc_on_growth_adds_the_tech_raise_to_the_stock():
    """AMB-04/AMB-40 stock_points_recalc_on_growth: off (default) a tech raise adds no stock points; on, the stock
    becomes creation stock + item XP + tech raises, and Σ stock(items) + banked must reach it (banked mode): with 【技】
    +1 the sheet needs 1 more stock point. Kills creation.py:674:13:arith:0 (the lower bound budget − tech raises)."""
    from engine.systems.yogaribito.config import YogaribitoConfig
    from engine.systems.yogaribito.creation import sheet_problems

    s = _jin_sheet()
    same = {**s, "growth": {"raises": {"tech": 1}, "xp_spent": 14}}
    plus1 = {**s, "growth": {"raises": {"tech": 1}, "xp_spent": 14, "stock_points": 1}}
    off, on = YogaribitoConfig(), YogaribitoConfig(stock_points_recalc_on_growth=True)
    assert sheet_problems(same, cfg=off) == []
    assert any(p.startswith("items:") for p in sheet_problems(plus1, cfg=off))
    assert sheet_problems(plus1, cfg=on) == []
    assert any(p.startswith("items:") and "tech raises (1)" in p for p in sheet_problems(same, cfg=on))


def test_releasing_one_of_two_inflicters_logs_the_status_change():
    """§7.9 D45: an inflicter may release the 刻印 it inflicted at its turn; with a second inflicter the 刻印 stays
    (theirs), and the change of inflicters is a state change of the log like any other. Kills
    checks.py:952:12:stmtdel:0 (the change not logged)."""
    cult = {"enemy": "cult_sorcerer", "current": {"luck": 0}}
    yg({"id": "RELEASE", "setup": {"chars": {
            "kuro": {"pc": {"name": "九郎", "main_class": "adept", "base": {"mind": 2, "tech": 1, "body": 1, "life": 10,
                                                                          "soul": 5}},
                     "statuses": {"brand": ["sorcerer", "sorcerer2"]}},
            "sorcerer": cult, "sorcerer2": {**cult, "name": "二人目"}},
        "layout": {"E1": ["kuro"], "E2": ["sorcerer", "sorcerer2"]}},
        "procedure": {"turn": {"actor": "sorcerer"}}, "dice": [],
        "answers": [{"kind": "ck.release_status", "answer": "release:kuro:brand"}],
        "expect": {"state": {"table.chars.kuro.statuses": {"brand": ["sorcerer2"]}},
                   "events": [{"type": "state", "path": "kuro.statuses.brand", "old": ["sorcerer", "sorcerer2"],
                               "new": ["sorcerer2"]}]}})


TABLE = ROOT / "engine" / "systems" / "yogaribito" / "examples" / "yogaribito_table.yaml"


def _drive(gen: Any, answers: dict[str, list[str]]) -> list[Any]:
    """Run a rules generator to its end: the listed answers of a decision kind in order, else the first option.
    Returns the decisions asked."""
    from engine.core.decision import Answer

    asked: list[Any] = []
    queues = {k: list(v) for k, v in answers.items()}
    ans = None
    with deadline():
        while True:
            try:
                d = next(gen) if ans is None else gen.send(Answer(choice=ans))
            except StopIteration:
                return asked
            asked.append(d)
            q = queues.get(d.kind)
            ans = q.pop(0) if q else d.option_ids[0]


def _session(dice: list[int] | None = None, **config: Any) -> Any:
    from engine.core import Session, load_scenario
    from engine.core.dice import Dice

    return Session(load_scenario(TABLE), 0, config=config or None,
                   dice=Dice.scripted(dice) if dice is not None else None).game


def _in_scene(g: Any, scene_id: str) -> Any:
    scene = next(x for x in g.sc.scenes if x.id == scene_id).model_copy(update={"checks": [], "combat": None})
    g.t.present = ["jin", "mio"]
    for c in g.t.present:
        g.t.chars[c].in_scene = True
    return scene


def test_a_psychic_concentration_situation_opens_and_closes():
    """§7.3.1, D22: the GM may open a situation requiring concentration: a psychic present makes a 魂 check and its mind
    checks get ±1 until the situation ends; closing it ends the ±1. Kills game.py:515:47:cmp:0 (open and close
    swapped)."""
    g = _session([5] * 9)  # 澪 as a psychic: 【魂】9, a success
    mio = g.t.chars["mio"]
    mio.main_class = "psychic"
    scene = _in_scene(g, "m_investigate")
    states = []
    gen = g._active(scene)
    flow = ["concentration_on", "concentration_off"]
    from engine.core.decision import Answer

    ans = None
    with deadline():
        while flow:
            d = next(gen) if ans is None else gen.send(Answer(choice=ans))
            if d.kind == "gm.scene_flow":
                states.append((g.t.concentration, mio.psychic_focus))
                ans = flow.pop(0)
            else:
                ans = d.option_ids[0]
        d = gen.send(Answer(choice=ans))
        while d.kind != "gm.scene_flow":
            d = gen.send(Answer(choice=d.option_ids[0]))
        states.append((g.t.concentration, mio.psychic_focus))
    assert states == [(False, 0), (True, 1), (False, 0)], states


def test_a_negotiation_check_has_target_number_1():
    """§7.2, §5.2: a (not opposed) negotiation check is 心 or 技 against target number 1: no success die fails it
    and nothing is learned; one success gets the NPC's information. Kills game.py:654:73:const:1 (target 0)."""
    for faces, learned in (([1] * 7, False), ([6] + [1] * 6, True)):
        g = _session(faces)
        kaoru = next(n for n in g.sc.npcs if n.id == "kaoru")
        object.__setattr__(kaoru, "opposed", False)
        _in_scene(g, "m_investigate")
        g.t.present = ["mio"]
        _drive(g._social(g.t.chars["mio"], "negotiation", "kaoru"), {"gm.call_check": ["mind"]})
        assert ("church" in g.info_level) == learned, (faces, g.info_level)


def test_after_a_master_scene_every_pc_may_purchase_only_with_the_flag():
    """§6 between scenes (D21), AMB-32 master_scene_counts_for_purchase: after a master scene every PC counts as
    absent from it and may make a purchase check (true, the default); with false nobody does. Kills
    game.py:753:24:boolop:0 (`s.master or flag`)."""
    for flag, asked in ((True, ["jin", "mio"]), (False, [])):
        g = _session(master_scene_counts_for_purchase=flag)
        master = next(x for x in g.sc.scenes if x.master)
        ds = _drive(g._between_scenes(master), {})
        assert [d.actor for d in ds if d.kind == "pc.purchase"] == asked, (flag, ds)
