"""Unit tests of the 夜狩り人 check pipeline (engine/systems/yogaribito/checks.py, rules/yogaribito.md §5, §7.7–§7.9).

A small harness drives ``ChecksMixin`` directly: a fake context with a real scripted ``Dice`` (so a test fails if
the rules roll one die more or less than the example says), scripted answers in order, and the examples' "no"
policy (or the §8 scripted policy) for everything else. Every answer goes through ``Decision.check``.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import pytest

from agent.scripted.yogaribito.checks import POLICY, luck_choice
from engine.core.decision import Answer, Decision, IllegalAnswer
from engine.core.dice import Dice, DiceScriptError
from engine.core.examples import NO_POLICY
from engine.systems.yogaribito.arms import CRIT_TABLE, ENEMIES, FEATS, ITEMS, Formula, feats_of_list
from engine.systems.yogaribito.checks import CheckResult, ChecksMixin, evaluate
from engine.systems.yogaribito.config import YogaribitoConfig
from engine.systems.yogaribito.state import Battlefield, Character, ItemState, Table

from .harness import FakeCtx


# ----------------------------------------------------------------------------------------------------------------
# harness
# ----------------------------------------------------------------------------------------------------------------
class G(ChecksMixin):
    def __init__(self, faces: list[int], **cfg: Any):
        self.ctx = FakeCtx(Dice.scripted(faces))  # type: ignore[assignment]
        self.cfg = YogaribitoConfig(**cfg)
        self.t = Table()

    def add(self, *cs: Character) -> None:
        for c in cs:
            self.t.chars[c.id] = c

    def checks(self) -> list[dict[str, Any]]:
        return [e[2] for e in self.ctx.events if e[0] == "check"]  # type: ignore[attr-defined]


def no_answer(d: Decision) -> Any:
    if d.pick is not None and d.pick[0] == 0:
        return []
    for p in NO_POLICY:
        if p in d.option_ids:
            return p
    raise AssertionError(f"unexpected decision {d.kind} for {d.actor}: {d.option_ids}")


def drive(gen: Generator[Decision, Answer, Any], answers: list[tuple[str, Any]] | None = None,
          scripted: bool = False, asked: list[Decision] | None = None) -> Any:
    queue = list(answers or [])
    ans: Answer | None = None
    try:
        d = next(gen)
        while True:
            if asked is not None:
                asked.append(d)
            if queue and queue[0][0] == d.kind:
                raw = queue.pop(0)[1]
            elif scripted:
                raw = POLICY[d.kind](d, None)  # type: ignore[arg-type]
            else:
                raw = no_answer(d)
            ans = d.check(raw)
            d = gen.send(ans)
    except StopIteration as stop:
        assert not queue, f"unused answers {queue}"
        return stop.value


def pc(cid: str, main: str, *, mind: int = 1, tech: int = 1, body: int = 1, life: int = 10, soul: int = 5,
       luck: int = 0, wealth: int = 0, kagaribi: int = 0, feats: tuple[str, ...] = (), **kw: Any) -> Character:
    base = {"mind": mind, "tech": tech, "body": body, "life": life, "soul": soul, "luck": luck, "wealth": wealth}
    if main == "witch_hunter":
        base["bullets"] = kw.pop("bullets", 5)
    c = Character(id=cid, name=cid, side="pc", main_class=main, sub_class=main, base=dict(base),
                  current={**base, "kagaribi": kagaribi}, feats=list(feats),
                  awaken_eligible=main != "common")
    for k, v in kw.items():
        setattr(c, k, v)
    return c


def jin() -> Character:
    c = pc("jin", "witch_hunter", mind=1, tech=7, body=4, life=13, soul=6, luck=5, wealth=4, kagaribi=3,
           feats=("silver_bullet", "occult_lore", "diamond_body"))
    c.sub_class = "adept"
    c.items = [ItemState("handgun", "handgun", slot="right_hand"), ItemState("knife", "knife", slot="left_hand"),
               ItemState("stab_vest", "stab_vest", slot="armor"), ItemState("revitalizer", "revitalizer", uses_left=1)]
    return c


def mio() -> Character:
    c = pc("mio", "white_magic", mind=7, tech=3, body=1, life=10, soul=9, luck=2, wealth=2, kagaribi=4,
           feats=("healing_prayer", "holy_light", "blessing", "curse_bullet"))
    c.items = [ItemState("school_uniform", "school_uniform", slot="armor"),
               ItemState("kashima_charm", "kashima_charm", slot="accessory"),
               ItemState("amplifier", "amplifier", uses_left=1)]
    return c


def enemy(cid: str, eid: str) -> Character:
    e = ENEMIES[eid]
    ab = dict(e.abilities)
    c = Character(id=cid, name=e.name, side="gm", kind="enemy", main_class=e.class_feature,
                  base={**ab, "wealth": 0}, current={**ab, "wealth": 0, "kagaribi": 0}, feats=list(e.feats),
                  awaken_eligible=e.awaken, tags=list(e.tags), has_legs=e.has_legs,
                  slots_usable={s: True for s in e.slots})
    return c


def check(g: G, c: Character, kind: str, ability: str | None, target: int = 1, answers: Any = None,
          context: dict[str, Any] | None = None, opponent: CheckResult | None = None,
          asked: list[Decision] | None = None, scripted: bool = False) -> CheckResult:
    return drive(g.run_check(c, kind, ability, target, label="test", rule="test", context=context,
                             opponent=opponent), answers, scripted=scripted, asked=asked)


# ----------------------------------------------------------------------------------------------------------------
# arms data
# ----------------------------------------------------------------------------------------------------------------
def test_arms_tables():
    assert len(FEATS) == 39 and len(ITEMS) == 13 and list(ENEMIES) == ["ghoul", "cult_sorcerer", "vampire_count"]
    assert str(Formula(1, 6, 1)) == "1D6+1" and str(Formula(0, 6, 2)) == "2" and str(Formula(1, 3, 1)) == "1D3+1"
    assert [f.id for f in feats_of_list("sn_common")] == ["curse_bullet", "spirit_sight", "ward"]
    assert [f.id for f in feats_of_list("class:common")] == ["run_away", "ordinary_intuition", "desperate_courage"]
    assert FEATS["offering"].requires_main and FEATS["curse_bullet"].supernatural
    assert not FEATS["silver_bullet"].supernatural and FEATS["silver_bullet"].feat_class == "witch_hunter"
    assert ITEMS["katana"].slots == "two_hands" and ITEMS["shotgun"].categories == ("illegal", "firearm")
    assert FEATS["first_aid"].name == "《応急手当》" and ENEMIES["vampire_count"].name == "夜の伯爵"
    assert CRIT_TABLE[4].name == "お゛ぅっ……ごォッ！？　お腹、があ……ッ！？"


# ----------------------------------------------------------------------------------------------------------------
# WE-04 evaluate
# ----------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("faces,target,want", [
    ([5, 2, 1], 1, (1, False, True, False)),
    ([6, 6, 1], 3, (2, True, True, False)),
    ([1, 1, 4], 1, (0, False, False, True)),
    ([6, 1, 1], 2, (1, False, False, True)),
    ([5, 5, 6, 2], 3, (3, False, True, False)),
    ([], 1, (0, False, False, False)),
])
def test_evaluate(faces, target, want):
    assert evaluate(faces, target) == want


def test_we04_checks_through_pipeline():
    g = G([6, 6, 1])
    c = pc("a", "adept", tech=3)
    g.add(c)
    r = check(g, c, "generic", "tech", 3)
    assert (r.pool, r.ach, r.crit, r.success, r.fumble) == (3, 2, True, True, False)


def test_we04f_empty_pool_rolls_nothing():
    g = G([])
    g.t.time_of_day = "day"
    c = pc("kuro", "night_walker", tech=1, mind=4, luck=3)
    g.add(c)
    asked: list[Decision] = []
    r = check(g, c, "generic", "tech", 1, asked=asked)
    assert (r.pool, r.faces, r.success, r.fumble) == (0, [], False, False)
    assert not asked  # no luck window on an empty pool


def test_general_pool_floor_one():
    g = G([5], general_pool_floor=1)
    g.t.time_of_day = "day"
    c = pc("kuro", "night_walker", tech=1)
    g.add(c)
    assert check(g, c, "generic", "tech").pool == 1


# ----------------------------------------------------------------------------------------------------------------
# WE-05 luck
# ----------------------------------------------------------------------------------------------------------------
def test_we05a_luck_set_die_scripted_default():
    g = G([5, 3, 1, 2, 4, 2, 3])
    j = jin()
    g.add(j)
    r = check(g, j, "generic", "tech", 2, scripted=True)
    assert r.faces == [5, 3, 5, 2, 4, 2, 3] and r.success and r.luck == "set5"
    assert j.current["luck"] == 4


def test_we05b_luck_on_fumble_no_reroll():
    g = G([1, 1, 3])
    m = mio()
    g.add(m)
    asked: list[Decision] = []
    r = check(g, m, "generic", "tech", 1, scripted=True, asked=asked)
    d = next(x for x in asked if x.kind == "ck.luck")
    assert "reroll" not in d.option_ids
    with pytest.raises(IllegalAnswer, match="致命的失敗"):
        d.check("reroll")
    assert r.faces == [5, 1, 3] and r.success and not r.fumble and m.current["luck"] == 1


def test_we05c_luck_reroll_is_final():
    g = G([2, 3, 4, 6, 2, 2])
    m = mio()
    m.current["luck"] = 1
    g.add(m)
    r = check(g, m, "generic", "tech", 1, answers=[("ck.luck", "reroll")])
    assert r.faces == [6, 2, 2] and r.success and r.luck == "reroll" and m.current["luck"] == 0
    assert r.rolls == [[2, 3, 4], [6, 2, 2]]


# ----------------------------------------------------------------------------------------------------------------
# WE-06 kagaribi with the consecutive penalty; floors
# ----------------------------------------------------------------------------------------------------------------
def test_we06_kagaribi_after_defense_floor():
    g = G([6, 5])
    x = pc("x", "adept", mind=2, tech=3, body=3, kagaribi=2, attacks_received_this_round=5)
    g.add(x)
    r = check(g, x, "defense", None, answers=[("ck.defense_ability", "body"), ("ck.kagaribi", "use")])
    assert (r.pool, r.ach, r.crit) == (2, 2, False) and x.current["kagaribi"] == 1


def test_we06_scripted_default_no_kagaribi_outside_climax():
    g = G([6])
    x = pc("x", "adept", mind=2, tech=3, body=3, kagaribi=2, attacks_received_this_round=5)
    g.add(x)
    r = check(g, x, "defense", None, scripted=True)
    assert r.pool == 1 and r.ability == "body" and x.current["kagaribi"] == 2


def test_kagaribi_default_in_climax_for_defense():
    g = G([6, 5])
    g.t.phase = "climax"
    x = pc("x", "adept", body=3, kagaribi=2, attacks_received_this_round=5)
    g.add(x)
    assert check(g, x, "defense", None, scripted=True).pool == 2


def test_legs_broken_defense_floor():
    g = G([5])
    x = pc("x", "adept", body=3, legs_broken=True)
    g.add(x)
    assert check(g, x, "defense", None).pool == 1


def test_defense_tie_d24_default_prefers_larger_pool_then_body():
    g = G([1, 1, 1, 1])
    g.t.time_of_day = "day"
    h = pc("hikari", "celestial", mind=3, tech=1, body=3)
    g.add(h)
    asked: list[Decision] = []
    r = check(g, h, "defense", None, scripted=True, asked=asked)
    assert asked[0].kind == "ck.defense_ability" and r.ability == "body" and r.pool == 4
    # the shaman patron favours mind in nature: the mind pool is larger
    g2 = G([1, 1, 1, 1])
    g2.t.env_tags = ["nature"]
    s = pc("ren", "shamanic", mind=3, body=3)
    g2.add(s)
    assert check(g2, s, "defense", None, scripted=True).ability == "mind"


# ----------------------------------------------------------------------------------------------------------------
# WE-12 day/night classes
# ----------------------------------------------------------------------------------------------------------------
def test_we12_day_night_modifiers():
    g = G([1, 2, 3, 4, 2])
    g.t.time_of_day = "night"
    k = pc("kuro", "night_walker", mind=4)
    g.add(k)
    assert check(g, k, "generic", "mind").pool == 5
    g2 = G([2, 3])
    g2.t.time_of_day = "night"
    h = pc("hikari", "celestial", mind=2, tech=1, body=3)
    g2.add(h)
    r = check(g2, h, "defense", None)
    assert r.ability == "body" and r.pool == 2


def test_static_mods_catalogue():
    g = G([])
    j, m = jin(), mio()
    g.add(j, m)
    g.t.env_tags = ["school", "holy"]
    assert g.static_mods(m, "mind", "information", {}) == 1 + 1  # holy + school uniform
    assert g.static_mods(m, "tech", "information", {}) == 1  # uniform only
    assert g.static_mods(m, "body", "defense", {"attack_attribute": "mind"}) == 1  # kashima charm
    assert g.static_mods(m, "mind", "defense", {"attack_attribute": "body"}) == 1  # holy only
    m.slots_usable["accessory"] = False
    assert g.static_mods(m, "body", "defense", {"attack_attribute": "mind"}) == 0  # 痛打表 row 5
    g.t.env_tags = ["holy", "unholy"]
    assert g.static_mods(m, "mind", "generic", {}) == 0
    j.items.append(ItemState("smartphone", "smartphone", slot="accessory"))
    assert g.static_mods(j, "tech", "information", {}) == 1
    j.statuses["weapon_sealed"] = []
    j.sealed_item = "smartphone"
    assert g.static_mods(j, "tech", "information", {}) == 0
    h = pc("h", "celestial", feats=("halo",))
    g.t.time_of_day = "day"
    assert g.static_mods(h, "body", "defense", {}) == 2
    co = pc("co", "common", feats=("run_away", "ordinary_intuition"))
    assert g.static_mods(co, "body", "blockade_contest", {}) == 2
    assert g.static_mods(co, "mind", "entry", {}) == 1
    sh = pc("sh", "shamanic", feats=("nature_communion",), shaman_patron={"name": "sun", "favored_tags": ["day"],
                                                                         "disfavored_tags": ["night"]})
    assert g.static_mods(sh, "mind", "information", {}) == 2
    ps = pc("ps", "psychic", psychic_focus=-1)
    assert g.static_mods(ps, "mind", "generic", {}) == -1 and g.static_mods(ps, "tech", "generic", {}) == 0


def test_blessing_is_consumed_by_the_next_check():
    g = G([5, 1, 1])
    c = pc("a", "adept", body=2, effects=[{"id": "blessing", "until": "round", "by": "mio"}])
    g.add(c)
    assert check(g, c, "generic", "body").pool == 3
    assert c.effects == []


# ----------------------------------------------------------------------------------------------------------------
# bought dice, 燎 doubling, special zero (WE-11 check part)
# ----------------------------------------------------------------------------------------------------------------
def _soma() -> Character:
    return pc("soma", "summoner", body=4, soul=7, kagaribi=2, feats=("pact_beast",))


def test_we11_cost_bought_to_zero_kagaribi_doubles():
    g = G([5, 6, 1, 2, 3, 5, 4, 2, 6, 1])
    s = _soma()
    s.current["soul"] = 3
    g.add(s)
    assert drive(g.pay_feat_cost(s, "pact_beast")) is True
    assert s.current["soul"] == 1
    r = check(g, s, "hit", "body", answers=[("ck.bought", "1"), ("ck.kagaribi", "use")])
    assert s.current["soul"] == 0 and s.incapacitated and not s.awakened
    assert (r.pool, r.ach, r.crit, r.success) == (10, 4, True, True) and r.bought == {"soul": 1}
    assert s.current["kagaribi"] == 1


def test_we11_flags_awaken_offered_and_cancel():
    g = G([4], special_zero_allows_awaken=True, cost_zero_action_resolves=False)
    s = _soma()
    s.current["soul"] = 1
    g.add(s)
    asked: list[Decision] = []
    r = check(g, s, "hit", "body", answers=[("ck.bought", "1"), ("ck.zero", "incapacitated")], asked=asked)
    assert [d.kind for d in asked] == ["ck.bought", "ck.zero"]
    assert r.cancelled and not r.success and r.faces == [] and s.incapacitated
    g.ctx.dice.force([4])  # type: ignore[attr-defined]
    g2 = G([4, 5, 5, 5, 5, 5], special_zero_allows_awaken=True)
    s2 = _soma()
    s2.current["soul"] = 1
    g2.add(s2)
    r2 = check(g2, s2, "hit", "body", answers=[("ck.bought", "1"), ("ck.zero", "awaken")])
    assert s2.awakened and s2.current["soul"] == 2 and r2.pool == 5


def test_flare_without_bought_doubling():
    g = G([1] * 9, flare_doubles_bought_dice=False)
    s = _soma()
    g.add(s)
    r = check(g, s, "generic", "body", answers=[("ck.bought", "1"), ("ck.kagaribi", "use")])
    assert r.pool == 9  # 4 × 2 + 1


def test_offering_first_soul_gives_two_dice():
    g = G([1] * 7)
    s = _soma()
    s.feats.append("offering")
    g.add(s)
    assert check(g, s, "generic", "body", answers=[("ck.bought", "2")]).pool == 4 + 3


def test_arachne_life_and_awakened_doom():
    g = G([2] * 5)
    a = pc("kumo", "arachne", mind=3, life=4, soul=3)
    g.add(a)
    r = check(g, a, "generic", "mind", answers=[("ck.bought", "2")])
    assert r.pool == 5 and a.current["life"] == 2 and a.able
    g2 = G([2] * 4)
    b = pc("kumo", "arachne", mind=3, life=4, soul=3, awakened=True)
    b.current["life"] = 0
    g2.add(b)
    asked: list[Decision] = []
    r2 = check(g2, b, "generic", "mind", answers=[("ck.bought", "1"), ("ck.doom_ack", "confirm")], asked=asked)
    assert r2.pool == 4 and b.doomed and b.current["soul"] == 2 and r2.bought == {"soul": 1}
    g3 = G([2] * 3)
    b3 = pc("kumo", "arachne", mind=3, life=4, soul=3, awakened=True)
    g3.add(b3)
    r3 = check(g3, b3, "generic", "mind", answers=[("ck.bought", "1"), ("ck.doom_ack", "cancel")])
    assert r3.pool == 3 and not b3.doomed and b3.current["soul"] == 3


def test_arachne_life_to_zero_is_special_zero():
    g = G([2] * 5)
    a = pc("kumo", "arachne", mind=3, life=2)
    g.add(a)
    check(g, a, "generic", "mind", answers=[("ck.bought", "2")])
    assert a.incapacitated and not a.awakened


def test_wealth_only_on_social_checks_and_default():
    g = G([1, 1, 1])
    j = jin()
    j.current["tech"] = 3
    g.add(j)
    asked: list[Decision] = []
    check(g, j, "generic", "tech", 2, asked=asked)
    assert not [d for d in asked if d.kind == "ck.bought"]
    g2 = G([5, 2, 6, 3])
    m = mio()
    m.current["wealth"] = 1
    g2.add(m)
    r = check(g2, m, "purchase", "tech", 2, scripted=True)  # D26 default: 1 wealth when target ≥ 2
    assert r.pool == 4 and r.success and m.current["wealth"] == 0


# ----------------------------------------------------------------------------------------------------------------
# 束縛 defense (WE-16)
# ----------------------------------------------------------------------------------------------------------------
def test_we16_bound_defense_lower_roll_and_luck():
    g = G([5, 5, 6, 1, 2, 3, 4, 5, 2, 2, 1, 3, 4, 3])
    j = jin()
    j.statuses["bound"] = []
    g.add(j)
    hit = CheckResult("ghoul", "hit", "body", 1, 3, [5, 6, 2], 2, False, True, False, False, {}, None, [[5, 6, 2]])
    r = check(g, j, "defense", None, context={"side": "passive"}, opponent=hit, scripted=True)
    assert r.rolls == [[5, 5, 6, 1, 2, 3, 4], [5, 2, 2, 1, 3, 4, 3]]
    assert r.faces == [5, 2, 2, 5, 3, 4, 3] and r.ach == 2 and j.current["luck"] == 4


def test_bound_tie_takes_first_roll_and_reroll_rolls_both():
    g = G([5, 1, 1, 2, 6, 6, 5, 5])
    c = pc("a", "adept", body=2, luck=1, statuses={"bound": []})
    g.add(c)
    r = check(g, c, "defense", None, answers=[("ck.luck", "reroll")])
    assert r.rolls == [[5, 1], [1, 2], [6, 6], [5, 5]] and r.faces == [5, 5] and r.luck == "reroll"


# ----------------------------------------------------------------------------------------------------------------
# opposed checks
# ----------------------------------------------------------------------------------------------------------------
def test_opposed_active_failure_passive_does_not_roll():
    g = G([2, 3, 4])
    a, p = enemy("gh", "ghoul"), jin()
    g.add(a, p)
    r = drive(g.opposed(a, "hit", "body", p, "defense", None, label="t", rule="t"))
    assert r.winner == "passive" and r.passive is None


def test_opposed_tie_and_draw_and_crit():
    for need, want in ((True, "passive"), (False, "draw")):
        g = G([5, 2, 5, 3])
        a, p = pc("a", "adept", body=2), pc("b", "adept", body=2)
        g.add(a, p)
        r = drive(g.opposed(a, "generic", "body", p, "generic", "body", label="t", rule="t", need_winner=need))
        assert r.winner == want
    g = G([5, 5, 6, 6])
    a, p = pc("a", "adept", body=2), pc("b", "adept", body=2)
    g.add(a, p)
    r = drive(g.opposed(a, "generic", "body", p, "generic", "body", label="t", rule="t"))
    assert r.passive.eff == 3 and r.winner == "passive"


def test_passive_luck_default_reaches_m():
    g = G([5, 6, 2, 5, 2, 1])
    a, p = pc("a", "adept", body=3), pc("b", "adept", body=3, luck=1)
    g.add(a, p)
    r = drive(g.opposed(a, "generic", "body", p, "generic", "body", label="t", rule="t"), scripted=True)
    assert r.passive.faces == [5, 2, 5] and r.winner == "passive"


def test_luck_window_after_both():
    g = G([5, 2, 2, 1], luck_window="after_both")
    a, p = pc("a", "adept", body=2, luck=1), pc("b", "adept", body=2, luck=1)
    g.add(a, p)
    asked: list[Decision] = []
    r = drive(g.opposed(a, "generic", "body", p, "generic", "body", label="t", rule="t"),
              answers=[("ck.luck", "none"), ("ck.luck", "set5:1")], asked=asked)
    assert [d.actor for d in asked if d.kind == "ck.luck"] == ["a", "b"]
    assert r.winner == "passive" and r.passive.faces == [2, 5]


def test_luck_policy():
    assert luck_choice([2, 3, 1], 1, 0, ["set5:0", "set5:1", "set5:2"]) == "set5:2"
    assert luck_choice([2, 3, 4], 1, 0, ["set5:0", "set5:1", "set5:2"]) == "set5:0"
    assert luck_choice([2, 3, 4], 3, 1, ["set5:0"]) == "none"
    assert luck_choice([6, 3], 1, 1, ["set5:1"]) == "none"


# ----------------------------------------------------------------------------------------------------------------
# auto feats (D25)
# ----------------------------------------------------------------------------------------------------------------
def test_auto_feats_own_and_engagement():
    g = G([1] * 5)
    d = pc("d", "psychic", body=3, soul=3, feats=("sixth_sense", "mental_barrier"), attacks_received_this_round=2)
    ren = pc("ren", "shamanic", soul=3, feats=("spirit_guard",))
    far = pc("far", "shamanic", soul=3, feats=("spirit_guard",))
    g.add(d, ren, far)
    g.t.battlefield = Battlefield(engagements={"E1": ["d", "ren"], "E2": ["far"]})
    asked: list[Decision] = []
    r = check(g, d, "defense", None, scripted=True, asked=asked)
    kinds = [(x.kind, x.actor) for x in asked]
    assert kinds[:2] == [("ck.auto_feats", "d"), ("ck.auto_feats", "ren")]
    # pool before: 3 − 2 = 1 ≤ 2 → the default uses both own feats, then ren's (pool still ≤ 2? 3+1 = 4 → no)
    assert r.pool == 3 + 1  # sixth_sense +1, mental_barrier ignores the penalty; ren's pool_before 4 > 2
    assert d.current["soul"] == 1 and d.uses_round == {"sixth_sense": 1, "mental_barrier": 1}
    assert ren.current["soul"] == 3
    assert g.feat_usable(d, "sixth_sense") == "1ラウンドに1回（使用済み）"


def test_auto_feat_information_and_magic_seal():
    g = G([3] + [1] * 7)
    p = pc("p", "psychic", mind=3, soul=2, feats=("mind_reading", "spirit_sight"))
    g.add(p)
    r = check(g, p, "information", "mind", scripted=True)
    # both boosts (default on information checks); soul 2 − 1 − 1 = 0 → D44 awaken (1D3: die 3 → 2)
    assert r.pool == 3 + 2 + 2 and p.awakened and p.current["soul"] == 2
    g2 = G([2, 3, 4])
    q = pc("q", "psychic", mind=3, soul=2, feats=("mind_reading",), statuses={"magic_sealed": []})
    g2.add(q)
    asked: list[Decision] = []
    check(g2, q, "information", "mind", asked=asked)
    assert not asked and g2.feat_usable(q, "mind_reading").startswith("魔封")


def test_occult_lore_on_hit_needs_supernatural_target():
    g = G([5] * 14)
    j, s, gh = jin(), enemy("s", "cult_sorcerer"), enemy("gh", "ghoul")
    g.add(j, s, gh)
    asked: list[Decision] = []
    check(g, j, "hit", "tech", context={"targets": ["s"]}, asked=asked)
    assert [d.kind for d in asked] == ["ck.kagaribi", "ck.luck"]
    asked.clear()
    check(g, j, "hit", "tech", context={"targets": ["gh"]}, asked=asked)  # offered; "no" answer = none
    assert [d.kind for d in asked] == ["ck.auto_feats", "ck.kagaribi", "ck.luck"] and asked[0].option_ids == ["occult_lore"]


# ----------------------------------------------------------------------------------------------------------------
# costs (§5.7): brand, bullets, awakened life costs
# ----------------------------------------------------------------------------------------------------------------
def test_brand_and_bullets():
    g = G([])
    j = jin()
    j.statuses["brand"] = ["sorc"]
    g.add(j)
    assert g.effective_cost(j, "silver_bullet") == {"wealth": 1, "soul": 1}
    asked: list[Decision] = []
    assert drive(g.pay_feat_cost(j, "silver_bullet"), scripted=True, asked=asked) is True
    d = asked[0]
    assert d.kind == "ck.bullets" and set(d.option_ids) == {"none", "soul1", "wealth1", "soul1+wealth1"}
    assert j.current["bullets"] == 3 and j.current["wealth"] == 4 and j.current["soul"] == 6
    assert j.uses_round == {"silver_bullet": 1}
    # the "no" answer pays without bullets
    g2 = G([])
    j2 = jin()
    g2.add(j2)
    assert drive(g2.pay_feat_cost(j2, "silver_bullet")) is True
    assert j2.current["wealth"] == 3 and j2.current["bullets"] == 5


def test_bullets_do_not_pay_other_feats_and_unpayable():
    g = G([])
    j = jin()
    j.feats.append("sixth_sense")
    j.current["soul"] = 0
    g.add(j)
    assert not g.can_pay(j, "sixth_sense")
    assert g.feat_usable(j, "sixth_sense").startswith("代償を払えない")
    assert drive(g.pay_feat_cost(j, "sixth_sense")) is False
    j.current["wealth"] = 0
    assert g.can_pay(j, "silver_bullet")  # bullets cover the wealth
    j.current["bullets"] = 0
    assert not g.can_pay(j, "silver_bullet")


def test_awakened_life_cost():
    g = G([])
    a = pc("a", "adept", life=5, soul=4, feats=("iron_fist",), awakened=True)
    a.current["life"] = 0
    g.add(a)
    assert g.effective_cost(a, "iron_fist") == {}
    g2 = G([], awakened_life_cost="from_soul")
    g2.add(a)
    assert g2.effective_cost(a, "iron_fist") == {"soul": 1}


def test_feat_cost_to_zero_normal_trigger():
    g = G([3])
    a = pc("a", "adept", life=1, soul=4, feats=("iron_fist",))
    g.add(a)
    asked: list[Decision] = []
    assert drive(g.pay_feat_cost(a, "iron_fist"), scripted=True, asked=asked) is True
    assert [d.kind for d in asked] == ["ck.zero"] and a.awakened and a.current["soul"] == 4
    assert not g.action_cancelled(a)


# ----------------------------------------------------------------------------------------------------------------
# damage, zero trigger, awakening, healing (WE-10, WE-20 parts)
# ----------------------------------------------------------------------------------------------------------------
def test_we10_awaken_cap_and_damage_to_soul_and_scene_end():
    g = G([5])
    m = mio()
    m.current.update(life=2, soul=5)
    m.statuses["poison"] = []
    g.add(m)
    drive(g.damage(m, 4, "life", rule="t", cause="t"), answers=[("ck.zero", "awaken")])
    assert m.awakened and m.current["life"] == 0 and m.current["soul"] == 8 and not m.statuses
    drive(g.damage(m, 3, "life", rule="t", cause="t"))
    assert m.current["soul"] == 5
    assert g.heal(m, "life", 3, rule="t", cause="t") == 0
    g.end_of_scene_for(m)
    assert not m.awakened and m.current["life"] == 1 and m.current["soul"] == 5


def test_awaken_soul_cap_base_and_none():
    g = G([2])
    j = jin()
    j.current["life"] = 1
    g.add(j)
    drive(g.damage(j, 5, "life", rule="t", cause="t"), scripted=True)
    assert j.current["soul"] == 6 and j.awakened
    g2 = G([6], awaken_soul_cap="none")
    j2 = jin()
    g2.add(j2)
    g2.awaken(j2, "t")
    assert j2.current["soul"] == 9


def test_dead_while_awakened_and_not_eligible():
    g = G([])
    m = mio()
    m.awakened = True
    m.current.update(life=0, soul=2)
    g.add(m)
    drive(g.damage(m, 5, "life", rule="t", cause="t"))
    assert m.dead and m.current["soul"] == 0
    gh = enemy("gh", "ghoul")
    g.add(gh)
    asked: list[Decision] = []
    drive(g.damage(gh, 9, "life", rule="t", cause="t"), asked=asked)
    assert gh.incapacitated and not asked


def test_special_zero_damage():
    g = G([])
    j = jin()
    g.add(j)
    asked: list[Decision] = []
    drive(g.damage(j, 20, "life", rule="t", cause="t", special=True), asked=asked)
    assert j.incapacitated and not asked


def test_heal_cap_and_amb27_release():
    g = G([])
    j = jin()
    j.current.update(life=0, soul=0)
    j.incapacitated = True
    g.add(j)
    assert g.heal(j, "life", 30, rule="t", cause="t") == 13
    assert j.incapacitated  # soul still 0
    assert g.heal(j, "soul", 1, rule="t", cause="t") == 1
    assert not j.incapacitated
    g2 = G([], heal_cap="none")
    k = jin()
    g2.add(k)
    assert g2.heal(k, "life", 2, rule="t", cause="t") == 2 and k.current["life"] == 15


def test_scene_end_releases_incapacitated_outside_combat():
    g = G([])
    j = jin()
    j.current["life"] = 0
    j.incapacitated = True
    j.statuses["poison"] = []
    g.add(j)
    g.end_of_scene_for(j)
    assert not j.incapacitated and j.current["life"] == 1 and not j.statuses


# ----------------------------------------------------------------------------------------------------------------
# statuses (§7.9)
# ----------------------------------------------------------------------------------------------------------------
def test_inflict_no_stacking_and_inflicters():
    g = G([])
    j, s1, s2 = jin(), enemy("s1", "cult_sorcerer"), enemy("s2", "cult_sorcerer")
    g.add(j, s1, s2)
    g.inflict(j, "curse", "s1", rule="t")
    g.inflict(j, "curse", "s2", rule="t")
    g.inflict(j, "curse", "s2", rule="t")
    assert j.statuses == {"curse": ["s1", "s2"]}
    g.inflict(j, "weapon_sealed", "s1", rule="t", item="handgun")
    g.inflict(j, "weapon_sealed", "s2", rule="t", item="knife")
    assert j.sealed_item == "handgun" and j.statuses["weapon_sealed"] == ["s1"]
    assert not g.usable_item(j, j.items[0])
    drive(g.damage(s1, 20, "life", rule="t", cause="t"))
    assert j.statuses["curse"] == ["s2"]
    drive(g.damage(s2, 20, "life", rule="t", cause="t"))
    assert "curse" not in j.statuses
    g.remove_status(j, "weapon_sealed", rule="t", cause="major action")
    assert j.sealed_item is None and g.usable_item(j, j.items[0])


def test_release_window():
    g = G([])
    j, s = jin(), enemy("s", "cult_sorcerer")
    g.add(j, s)
    g.inflict(j, "brand", "s", rule="t")
    assert drive(g.release_window(s)) is None and j.has("brand")  # "no" answer = keep
    assert drive(g.release_window(s), answers=[("ck.release_status", "release:jin:brand")]) == ("jin", "brand")
    assert not j.has("brand")


def test_crit_fiat_asked_on_crit():
    g = G([6, 6])
    a = pc("a", "adept", body=2)
    g.add(a)
    asked: list[Decision] = []
    check(g, a, "generic", "body", asked=asked)
    assert [d.kind for d in asked] == ["ck.crit_fiat"] and asked[0].actor == "gm"


def test_dice_are_strict():
    g = G([5])
    a = pc("a", "adept", body=2)
    g.add(a)
    with pytest.raises(DiceScriptError):
        check(g, a, "generic", "body")


def test_check_event_logged():
    g = G([5, 2])
    a = pc("a", "adept", body=2)
    g.add(a)
    check(g, a, "generic", "body")
    ev = g.checks()[-1]
    assert ev["pool"] == 2 and ev["faces"] == [5, 2] and ev["ach"] == 1 and ev["success"] and ev["who"] == "a"
    assert {"crit", "fumble", "kagaribi", "bought", "luck"} <= set(ev)


def test_instant_zero_row6():
    g = G([])
    j = jin()
    g.add(j)
    drive(g.instant_zero(j, rule="§7.6", cause="row 6"))
    assert j.incapacitated and j.current["life"] == 0 and not j.awakened
    m = mio()
    m.awakened = True
    g.add(m)
    drive(g.instant_zero(m, rule="§7.6", cause="row 6"))
    assert m.dead
    g2 = G([2], special_zero_allows_awaken=True)
    k = jin()
    g2.add(k)
    drive(g2.instant_zero(k, rule="§7.6", cause="row 6"), scripted=True)
    assert k.awakened and k.current["soul"] == 6 and k.current["life"] == 0  # WE-20 (c)


def test_spirit_guard_default_helps_allies_only():
    g = G([1, 1])
    d = pc("d", "adept", body=2, attacks_received_this_round=1)
    foe = pc("foe", "shamanic", soul=3, feats=("spirit_guard",))
    foe.side = "gm"
    friend = pc("friend", "shamanic", soul=3, feats=("spirit_guard",))
    g.add(d, foe, friend)
    g.t.battlefield = Battlefield(engagements={"E1": ["d", "foe", "friend"]})
    asked: list[Decision] = []
    r = check(g, d, "defense", None, scripted=True, asked=asked)
    assert [x.actor for x in asked if x.kind == "ck.auto_feats"] == ["foe", "friend"]
    assert r.pool == 2 and foe.current["soul"] == 3 and friend.current["soul"] == 2
