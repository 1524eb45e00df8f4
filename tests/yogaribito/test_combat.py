"""Unit and property tests of 夜狩り人 combat (engine/systems/yogaribito/combat.py, rules/yogaribito.md §7.3–§7.10.1,
§11.6) and its scripted policy (agent/scripted/yogaribito/combat.py).

A small harness drives ``CombatMixin`` directly: a fake context with a real ``Dice`` (scripted faces, so a test fails
if the rules roll one die more or less than it says; or seeded for whole fights), scripted answers in order, and
either the worked examples' "no" policy or the §8 scripted policy for everything else. Every answer goes through
``Decision.check``, the same door as a player's answer.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Generator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent.scripted.yogaribito import POLICY
from engine.core.decision import Answer, Decision, IllegalAnswer
from engine.core.dice import Dice
from engine.core.examples import NO_POLICY
from engine.systems.yogaribito.combat import COMBAT, CombatMixin
from engine.systems.yogaribito.config import YogaribitoConfig
from engine.systems.yogaribito.creation import character_from_sheet, enemy_character
from engine.systems.yogaribito.state import Battlefield, Character, ItemState, Table

from .harness import FakeCtx


# ----------------------------------------------------------------------------------------------------------------
# harness
# ----------------------------------------------------------------------------------------------------------------
class G(CombatMixin):
    def __init__(self, faces: list[int] | None = None, seed: int = 0, **cfg: Any):
        dice = Dice.scripted(faces) if faces is not None else Dice(seed)
        self.ctx = FakeCtx(dice)  # type: ignore[assignment]
        self.cfg = YogaribitoConfig(**cfg)
        self.t = Table()

    def add(self, *cs: Character) -> None:
        for c in cs:
            self.t.chars[c.id] = c
            self.t.present.append(c.id)

    def layout(self, **engs: list[Character]) -> None:
        bf = Battlefield()
        for eid, cs in engs.items():
            bf.engagements[eid] = [c.id for c in cs]
        bf.next_id = len(engs) + 1
        self.t.battlefield = bf
        self.begin_combat_context({})

    def events(self, kind: str, name: str | None = None) -> list[Any]:
        return [e for e in self.ctx.events if e[0] == kind and (name is None or e[1] == name)]  # type: ignore[attr-defined]


def jin(g: G, cid: str = "jin") -> Character:
    return character_from_sheet({"id": cid, "sample": "sample_midou_jin"}, cfg=g.cfg)


def mio(g: G, cid: str = "mio") -> Character:
    return character_from_sheet({"id": cid, "sample": "sample_shirasagi_mio"}, cfg=g.cfg)


def pc(cid: str, main: str = "adept", feats: tuple[str, ...] = (), luck: int = 0, **base: int) -> Character:
    b = {"mind": 2, "tech": 2, "body": 3, "life": 10, "soul": 5, "luck": luck, "wealth": 0, **base}
    return Character(id=cid, name=cid, side="pc", main_class=main, sub_class=main, base=dict(b),
                     current={**b, "kagaribi": 0}, feats=list(feats))


def foe(kind: str, cid: str, luck: int | None = 0) -> Character:
    c = enemy_character(kind, cid, cid)
    if luck is not None:
        c.current["luck"] = luck
    return c


def no_answer(d: Decision) -> Any:
    if d.pick is not None and d.pick[0] == 0:
        return []
    for p in NO_POLICY:
        if p in d.option_ids:
            return p
    raise AssertionError(f"unexpected decision {d.kind} for {d.actor}: {d.option_ids}")


def scripted(d: Decision) -> Any:
    return POLICY[d.kind](d, None)  # type: ignore[arg-type]


def drive(gen: Generator[Decision, Answer, Any], answers: list[tuple[str, Any]] | None = None,
          fallback: Callable[[Decision], Any] = no_answer, asked: list[Decision] | None = None) -> Any:
    queue = list(answers or [])
    try:
        d = next(gen)
        while True:
            if asked is not None:
                asked.append(d)
            raw = queue.pop(0)[1] if queue and queue[0][0] == d.kind else fallback(d)
            d = gen.send(d.check(raw))
    except StopIteration as stop:
        assert not queue, f"answers left: {queue}"
        return stop.value


def options(g: G, c: Character, major: bool) -> list[str]:
    return [o for o, _ in g.action_options(c, major=major)[0]]


# ----------------------------------------------------------------------------------------------------------------
# initiative (§7.3.2, D30–D32)
# ----------------------------------------------------------------------------------------------------------------
def test_initiative_pc_before_gm_on_ties_and_delay() -> None:
    g = G([])
    a, b, gh = pc("a", body=3), pc("b", body=1), foe("ghoul", "gh")
    g.add(a, b, gh)
    g.layout(E1=[a, b], E2=[gh])
    order = drive(g.setup_phase())
    assert order is None and g.bf.order == ["a", "gh", "b"]
    assert g.bf.round == 1
    drive(g.setup_phase(), [("cb.delay", "delay")])  # a delays: 体 0 < b's 1
    assert g.bf.order == ["gh", "b", "a"]
    drive(g.setup_phase(), [("cb.delay", "delay"), ("cb.delay", "delay"), ("cb.delay", "delay"),
                            ("cb.pc_order", "a")])
    assert g.bf.order == ["a", "b", "gh"]  # all at 0: the PCs first (D31 among them)


def test_initiative_ties_asked_to_the_players_and_the_gm() -> None:
    g = G([])
    a, b = pc("a", body=3), pc("b", body=3)
    g1, g2 = foe("ghoul", "g1"), foe("ghoul", "g2")
    g.add(a, b, g1, g2)
    g.layout(E1=[a, b], E2=[g1, g2])
    asked: list[Decision] = []
    drive(g.setup_phase(), [("cb.pc_order", "b"), ("cb.gm_order", "g2")], asked=asked)
    assert g.bf.order == ["b", "a", "g2", "g1"]
    kinds = [(d.kind, d.actor) for d in asked if d.kind in ("cb.pc_order", "cb.gm_order")]
    assert kinds == [("cb.pc_order", "a"), ("cb.gm_order", "gm")]


def test_incapacitated_stay_in_order_but_are_skipped() -> None:
    g = G([])
    a, gh = pc("a", body=3), foe("ghoul", "gh")
    gh.incapacitated = True
    g.add(a, gh)
    g.layout(E1=[a], E2=[gh])
    drive(g.setup_phase())
    assert g.bf.order == ["a", "gh"]
    assert drive(g.main_phase(gh)) is False


# ----------------------------------------------------------------------------------------------------------------
# movement (§7.4)
# ----------------------------------------------------------------------------------------------------------------
def test_move_and_withdraw_legality() -> None:
    g = G([])
    j, gh, m = jin(g), foe("ghoul", "gh"), mio(g)
    g.add(j, m, gh)
    g.layout(E1=[j, gh], E2=[m])
    minor, major = options(g, j, False), options(g, j, True)
    assert not any(o.startswith("move:") for o in minor)
    assert not any(o.startswith("withdraw:") for o in minor)
    assert {"withdraw:E2", "withdraw:new"} <= set(major)
    refused = g.action_options(j, major=False)[1]
    assert "離脱" in refused["move:E2"]
    # no enemy: ordinary moves, in the minor and the major action
    assert {"move:E1"} <= set(options(g, m, False)) and "move:new" not in options(g, m, False)
    # 束縛: no movement at all
    j.statuses["bound"] = ["gh"]
    assert not any(o.startswith(("move:", "withdraw:")) for o in options(g, j, True))
    del j.statuses["bound"]
    # legs broken: movement only as the major action
    m.legs_broken = True
    assert not any(o.startswith("move:") for o in options(g, m, False))
    assert "move:E1" in options(g, m, True)
    # flying: an ordinary move leaves an engagement with enemies
    j.flying = True
    assert "move:E2" in options(g, j, False)


def test_move_to_new_engagement_and_empty_engagements_disappear() -> None:
    g = G([])
    a, b, gh = pc("a"), pc("b"), foe("ghoul", "gh")
    g.add(a, b, gh)
    g.layout(E1=[a, b], E2=[gh])
    assert drive(g.move(a, "new", how="move", rule="t")) is True
    assert g.bf.engagements == {"E1": ["b"], "E2": ["gh"], "E3": ["a"]}
    assert drive(g.move(a, "E2", how="move", rule="t")) is True
    assert g.bf.engagements == {"E1": ["b"], "E2": ["gh", "a"]}


def test_blockade_contest_tie_goes_to_the_blockader_and_consent_skips_it() -> None:
    ren = pc("ren", main="shamanic", feats=("ward",), body=3, soul=5)
    gh = foe("ghoul", "gh")
    ally = pc("ally", body=2)
    g = G([5, 2, 1, 6, 1, 3])
    g.add(ren, ally, gh)
    g.layout(E1=[ren], E2=[gh, ally])
    drive(g._use_feat(ren, "ward", None, "t"))
    assert ren.blockading == "E1" and ren.current["soul"] == 3
    moved = drive(g.move(gh, "E1", how="move", rule="t"), [("cb.blockade_consent", "contest")])
    assert moved is False and g.engagement_of(gh) == "E2"
    # an ally: consent, no dice
    assert drive(g.move(ally, "E1", how="move", rule="t"), [("cb.blockade_consent", "consent")]) is True
    assert g.engagement_of(ally) == "E1"
    # leaving the engagement ends the ward
    assert drive(g.move(ren, "new", how="move", rule="t")) is True
    assert ren.blockading is None


def test_blockade_several_blockaders_pick_one() -> None:
    r1 = pc("r1", body=2)
    r2 = pc("r2", body=4)
    gh = foe("ghoul", "gh")
    g = G([5, 5, 5, 6, 6, 6, 1])  # ghoul 3 dice ach 3 vs r2: 4 dice ach 3 + crit → blockader wins
    g.add(r1, r2, gh)
    g.layout(E1=[r1, r2], E2=[gh])
    r1.blockading = r2.blockading = "E1"
    asked: list[Decision] = []
    moved = drive(g.move(gh, "E1", how="move", rule="t"), fallback=scripted, asked=asked)
    assert moved is False
    pick = [d for d in asked if d.kind == "cb.blockade_opponent"]
    assert len(pick) == 1 and pick[0].option_ids == ["r1", "r2"]


def test_flying_ignores_blockade_and_gale_step_does_not() -> None:
    g = G([1, 1, 1])
    ad = pc("ad", feats=("gale_step",), body=3, soul=3)
    b = pc("b", body=3)
    gh = foe("ghoul", "gh")
    g.add(ad, b, gh)
    g.layout(E1=[ad, gh], E2=[b])
    gh.blockading = "E1"
    assert "feat:gale_step:E2" in options(g, ad, False)
    out = drive(g._use_feat(ad, "gale_step", "E2", "t"), [("cb.blockade_consent", "contest")])
    assert out is None and g.engagement_of(ad) == "E1" and ad.current["soul"] == 2
    ad.flying = True
    assert drive(g.move(ad, "E2", how="move", rule="t")) is True


# ----------------------------------------------------------------------------------------------------------------
# attacks (§7.5), consecutive penalty, crit choice
# ----------------------------------------------------------------------------------------------------------------
def test_ranged_and_close_target_legality() -> None:
    g = G([])
    j, gh, so = jin(g), foe("ghoul", "gh"), foe("cult_sorcerer", "so")
    g.add(j, gh, so)
    g.layout(E1=[j, gh], E2=[so])
    srcs = {s.id: s for s in g.attack_sources(j)}
    assert [x.id for x in g.legal_targets(j, srcs["handgun"])] == ["so"]
    assert [x.id for x in g.legal_targets(j, srcs["knife"])] == ["gh"]
    gh.incapacitated = True
    assert g.legal_targets(j, srcs["knife"]) == []
    assert "attack:knife" not in options(g, j, True)


def test_consecutive_penalty_counts_every_attack_and_floors_at_one() -> None:
    g = G([5, 2, 2,  5, 2,   5, 2, 2,  6])
    j, gh = jin(g), foe("ghoul", "gh")
    j.current["luck"] = 0
    g.add(j, gh)
    g.layout(E1=[j, gh])
    j.attacks_received_this_round = 5
    drive(g.attack(gh, "ghoul_claws", ["jin"]))
    assert g.events("check", "defense")[-1][2]["pool"] == 2  # 7 − 5
    assert j.attacks_received_this_round == 6
    drive(g.attack(gh, "ghoul_claws", ["jin"]))
    assert g.events("check", "defense")[-1][2]["pool"] == 1  # 7 − 6 = 1 (floor)
    j.legs_broken = True
    assert g.defense_pool_before(j, "tech", {}) == 1


def test_failed_hit_counts_unless_configured() -> None:
    g = G([1, 2, 3], consecutive_counts_failed_attacks=False)
    j, gh = jin(g), foe("ghoul", "gh")
    g.add(j, gh)
    g.layout(E1=[j, gh])
    out = drive(g.attack(gh, "ghoul_claws", ["jin"]))
    assert out["hit"] == {"jin": False} and j.attacks_received_this_round == 0


def test_area_attack_one_hit_check_per_target_defense_and_crit_choice() -> None:
    # shotgun (tech 7): 6,6,5,1,1,1,1 → ach 3 crit; g1 defends 5,5,5 (3) → tie; g2 defends 1,1,1 (0)
    g = G([6, 6, 5, 2, 2, 2, 2,   5, 5, 5,   1,   2, 2, 2,   1,   3,   4, 5])
    j = jin(g)
    j.items = [ItemState(uid="shotgun", item="shotgun", slot="right_hand")]
    g1, g2 = foe("ghoul", "g1"), foe("ghoul", "g2")
    g.add(j, g1, g2)
    g.layout(E1=[j], E2=[g1, g2])
    asked: list[Decision] = []
    out = drive(g.attack(j, "shotgun"), [("cb.targets", ["g1", "g2"])], fallback=scripted, asked=asked)
    crits = [d for d in asked if d.kind == "cb.crit_bonus"]
    assert [d.context["d_eff"] for d in crits] == [3, 0]
    assert [d.context["target"] for d in crits] == ["g1", "g2"]
    assert out["hit"] == {"g1": True, "g2": True}  # +1 achievement on the tie, +1D6 on the other
    assert len(g.events("check", "hit")) == 1
    assert g1.attacks_received_this_round == g2.attacks_received_this_round == 1


def test_crit_choice_before_defense_per_attack() -> None:
    g = G([6, 6, 5, 2, 2, 2, 2,   5, 5, 5,   1,   2, 2, 2,   1,   3,   5],
          attack_crit_choice_timing="before_defense", multi_target_crit_choice="per_attack")
    j = jin(g)
    j.items = [ItemState(uid="shotgun", item="shotgun", slot="right_hand")]
    g1, g2 = foe("ghoul", "g1"), foe("ghoul", "g2")
    g.add(j, g1, g2)
    g.layout(E1=[j], E2=[g1, g2])
    asked: list[Decision] = []
    out = drive(g.attack(j, "shotgun", ["g1", "g2"]), [("cb.crit_bonus", "ach")], asked=asked)
    assert [d.context["d_eff"] for d in asked if d.kind == "cb.crit_bonus"] == [None]
    assert out["hit"] == {"g1": True, "g2": True}


def test_helpless_defender_does_not_roll() -> None:
    g = G([5, 2, 2,   3])
    j, gh = jin(g), foe("ghoul", "gh")
    j.statuses["paralysis"] = []
    g.add(j, gh)
    g.layout(E1=[j, gh])
    out = drive(g.attack(gh, "ghoul_claws", ["jin"]))
    assert out["hit"] == {"jin": True} and not g.events("check", "defense")
    assert j.current["life"] == 13 - 1  # 3 − 2 (diamond_body, stab_vest)


# ----------------------------------------------------------------------------------------------------------------
# 痛打表 (§7.6)
# ----------------------------------------------------------------------------------------------------------------
def _crit_hit(g: G, attacker: Character, target: Character, source: str, answers: list[tuple[str, Any]]) -> Any:
    return drive(g.attack(attacker, source, [target.id]), [("cb.crit_bonus", "ach")] + answers, fallback=scripted)


HIT = [6, 6, 5, 2, 2, 2, 2]   # Jin's handgun: ach 3, critical
DEF0 = [1, 2, 3, 4]           # the sorcerer's defense (mind 4): ach 0


@pytest.mark.parametrize("row", [1, 2, 3, 4, 5])
def test_crit_rows_1_to_5(row: int) -> None:
    g = G(HIT + DEF0 + [row, 4])
    j, so = jin(g), foe("cult_sorcerer", "so")
    g.add(j, so)
    g.layout(E1=[j], E2=[so])
    out = _crit_hit(g, j, so, "handgun", [])
    assert out["rows"] == {"so": row}
    dmg = out["damage"]["so"]
    if row == 1:
        assert dmg == 5
    elif row == 2:
        assert so.slots_usable["right_hand"] is False and dmg == 4  # the knife hand (D42 default)
        assert "knife" not in {s.id for s in g.attack_sources(so)}
    elif row == 3:
        assert so.legs_broken and dmg == 4
        assert g.defense_pool_before(so, "mind", {}) == 1
        assert not any(o.startswith("move:") for o in options(g, so, False))
    else:
        assert so.slots_usable["armor" if row == 4 else "accessory"] is False and dmg == 4


@pytest.mark.parametrize("row", [2, 3, 4, 5])
def test_crit_rows_plus_one_when_the_part_is_missing_or_already_gone(row: int) -> None:
    g = G(HIT + [1, 2, 3] + [row, 1])
    j, gh = jin(g), foe("ghoul", "gh")
    gh.slots_usable = {"right_hand": False, "left_hand": False}
    gh.has_legs = False
    g.add(j, gh)
    g.layout(E1=[j], E2=[gh])
    out = _crit_hit(g, j, gh, "handgun", [])
    assert out["damage"]["gh"] == 2  # 1 + 1


def test_crit_row4_stops_the_armor() -> None:
    g = G([6, 6, 2,   1, 1, 2, 2, 2, 2, 2,   4,   4])
    gh, j = foe("ghoul", "gh"), jin(g)
    j.current["luck"] = 0
    g.add(j, gh)
    g.layout(E1=[j, gh])
    out = drive(g.attack(gh, "ghoul_claws", ["jin"]), [("cb.crit_bonus", "ach")])
    # row 4 disables the armor slot (no +1): 4 − 1 (diamond_body); the stab vest no longer counts
    assert out["damage"]["jin"] == 3 and j.slots_usable["armor"] is False


@pytest.mark.parametrize("choice,life,dead", [("incapacitate", 0, False), ("damage3_add", 13 - 7, False),
                                              ("damage3_replace", 10, False)])
def test_crit_row6_choices(choice: str, life: int, dead: bool) -> None:
    faces = HIT + [1, 2, 3, 4, 1, 2, 3] + [6] + ([4] if choice == "damage3_add" else [])
    g = G(faces)
    j, j2 = jin(g), jin(g, "j2")
    j2.current["luck"] = 0
    j2.side = "gm"
    g.add(j, j2)
    g.layout(E1=[j], E2=[j2])
    drive(g.attack(j, "handgun", ["j2"]), [("cb.crit_bonus", "ach"), ("cb.crit_row6", choice)])
    assert j2.current["life"] == life and j2.dead is dead
    assert j2.incapacitated is (choice == "incapacitate")


def test_crit_table_modes() -> None:
    g = G(HIT + DEF0 + [2], crit_table_mode="never")
    j, so = jin(g), foe("cult_sorcerer", "so")
    g.add(j, so)
    g.layout(E1=[j], E2=[so])
    asked: list[Decision] = []
    drive(g.attack(j, "handgun", ["so"]), [("cb.crit_bonus", "ach")], asked=asked)
    assert not [d for d in asked if d.kind == "cb.crit_table"] and so.current["life"] == 5
    g = G(HIT + DEF0 + [1, 2], crit_row6_mode="incapacitate", crit_table_mode="always")
    j, so = jin(g), foe("cult_sorcerer", "so")
    g.add(j, so)
    g.layout(E1=[j], E2=[so])
    asked = []
    drive(g.attack(j, "handgun", ["so"]), [("cb.crit_bonus", "ach")], asked=asked)
    assert not [d for d in asked if d.kind == "cb.crit_table"] and so.current["life"] == 7 - 3


# ----------------------------------------------------------------------------------------------------------------
# damage (§7.7.1), awakening (§7.8), after-determination feats (D60)
# ----------------------------------------------------------------------------------------------------------------
def test_awakening_by_damage_then_damage_to_soul() -> None:
    g = G([5, 5, 5,   1, 1, 2, 2, 2, 2, 2,   6,   5,   5, 5, 5,   2, 2, 2, 2, 2, 2,   3])
    m, gh = mio(g), foe("ghoul", "gh")
    m.current["life"] = 2
    m.current["luck"] = 0
    g.add(m, gh)
    g.layout(E1=[m, gh])
    drive(g.attack(gh, "ghoul_claws", ["mio"]), [("ck.zero", "awaken")])
    assert m.awakened and m.current["life"] == 0 and m.current["soul"] == 9  # 9 + 3, cap base 9
    drive(g.attack(gh, "ghoul_claws", ["mio"]))
    assert m.current["soul"] == 6 and m.current["life"] == 0


def test_adept_and_unholy_pact_and_holy_light_bonus() -> None:
    g = G([5, 2, 2,   1, 1, 1,   4])
    ad = pc("ad", main="adept", feats=("iron_fist",), body=3)
    gh = foe("ghoul", "gh")
    g.add(ad, gh)
    g.layout(E1=[ad, gh])
    out = drive(g.attack(ad, "iron_fist", ["gh"]))
    assert out["damage"]["gh"] == 4 + 1 + 1  # 1D6+1, adept +1
    g = G([5, 2, 2, 2,   1, 1, 1,   3], )
    m = pc("m", main="white_magic", feats=("holy_light",), mind=4, soul=5)
    g1 = foe("ghoul", "g1")
    g.add(m, g1)
    g.layout(E1=[m], E2=[g1])
    out = drive(g.attack(m, "holy_light", ["g1"]))
    assert out["damage"]["g1"] == 3 + 2


def test_guardian_spirit_after_determination() -> None:
    g = G([5, 5, 5,   1, 1, 2,   6])
    s = pc("s", main="summoner", feats=("guardian_spirit",), body=3, soul=4)
    gh = foe("ghoul", "gh")
    g.add(s, gh)
    g.layout(E1=[s, gh])
    asked: list[Decision] = []
    drive(g.attack(gh, "ghoul_claws", ["s"]), fallback=scripted, asked=asked)
    d = next(x for x in asked if x.kind == "cb.other_auto")
    assert d.context["damage"] == 6 and s.current["life"] == 10 - 4 and s.current["soul"] == 3


def test_damage_roll_once_for_all_targets() -> None:
    g = G([5, 5, 2, 2, 2, 2, 2,   1, 1, 1,   1, 1, 1,   4], damage_roll_per_target=False)
    j = jin(g)
    j.items = [ItemState(uid="shotgun", item="shotgun", slot="right_hand")]
    g1, g2 = foe("ghoul", "g1"), foe("ghoul", "g2")
    g.add(j, g1, g2)
    g.layout(E1=[j], E2=[g1, g2])
    out = drive(g.attack(j, "shotgun", ["g1", "g2"]))
    assert out["damage"] == {"g1": 4, "g2": 4}


# ----------------------------------------------------------------------------------------------------------------
# turns: minor-declared bonuses, consumables, swap, statuses, cleanup
# ----------------------------------------------------------------------------------------------------------------
def test_silver_bullet_and_all_out_attack_apply_to_the_next_attack_only() -> None:
    g = G([5, 2, 2, 2, 2, 2, 2,   1, 1, 1, 2,   3, 4])
    j, so = jin(g), foe("cult_sorcerer", "so")
    j.feats.append("all_out_attack")
    g.add(j, so)
    g.layout(E1=[j], E2=[so])
    drive(g.main_phase(j), [("cb.minor", "feat:silver_bullet"), ("cb.major", "attack:handgun")])
    assert j.current["wealth"] == 3 and so.current["life"] == 7 - 7
    assert not any(e.get("id") == "silver_bullet" for e in j.effects)


def test_consumables_self_minor_other_major_same_engagement_not_awakened() -> None:
    g = G([4])
    j, m, gh = jin(g), mio(g), foe("ghoul", "gh")
    g.add(j, m, gh)
    g.layout(E1=[j, m], E2=[gh])
    assert "item:revitalizer:jin" in options(g, j, False)
    assert "item:revitalizer:mio" not in options(g, j, False)
    assert "item:revitalizer:mio" in options(g, j, True)
    m.awakened = True
    assert "item:revitalizer:mio" not in options(g, j, True)
    m.awakened = False
    m.current["life"] = 3
    drive(g._do_action(j, "item:revitalizer:mio", major=True))
    assert m.current["life"] == 7 and j.item("revitalizer") is None


def test_weapon_swap_kagaribi_per_slot_per_scenario() -> None:
    g = G([])
    m = mio(g)
    m.items += [ItemState(uid="knife", item="knife", origin="found"),
                ItemState(uid="shotgun", item="shotgun", origin="purchased")]
    g.add(m)
    g.layout(E1=[m])
    assert m.current["kagaribi"] == 4
    assert "swap:knife:right_hand" in options(g, m, False)
    g.swap(m, "knife", "right_hand")
    assert m.current["kagaribi"] == 3
    g.swap(m, "knife", "left_hand")
    assert m.current["kagaribi"] == 2 and m.item("knife").slot == "left_hand"  # type: ignore[union-attr]
    g.swap(m, "shotgun", "right_hand")
    assert m.current["kagaribi"] == 2 and m.item("knife").slot is None  # type: ignore[union-attr]
    m.slots_usable["left_hand"] = False
    assert "swap:knife:left_hand" not in options(g, m, False)
    assert "attack:shotgun" not in options(g, m, True)


def test_remove_status_and_release_check_and_desperate_courage() -> None:
    g = G([5, 2, 1,   1, 1])
    a = pc("a", body=3)
    gh = foe("ghoul", "gh")
    g.add(a, gh)
    g.layout(E1=[a], E2=[gh])
    a.statuses = {"poison": [], "bound": ["gh"], "curse": ["gh"]}
    major = options(g, a, True)
    assert {"remove:poison", "remove:bound"} <= set(major) and "remove:curse" not in major
    a.statuses = {"paralysis": []}
    asked: list[Decision] = []
    drive(g.main_phase(a), asked=asked)
    assert [d.kind for d in asked] == []  # the release check is the only option: not asked
    assert not a.has("paralysis")
    a.statuses = {"fear": []}
    drive(g.main_phase(a))  # mind 2: 1,1 → fails
    assert a.has("fear")
    c = pc("c", main="common", feats=("desperate_courage",), body=2)
    c.statuses = {"fear": []}
    g.add(c)
    g.bf.engagements["E1"].append(c.id)
    drive(g.main_phase(c), [("cb.other_auto", "feat:desperate_courage")])
    assert not c.has("fear") and c.uses_scenario == {"desperate_courage": 1}


def test_poison_then_curse_at_cleanup_and_turn_effects_end() -> None:
    g = G([])
    a = pc("a", life=3, soul=2)
    gh = foe("ghoul", "gh")
    g.add(a, gh)
    g.layout(E1=[a], E2=[gh])
    a.statuses = {"poison": [], "curse": ["gh"]}
    a.effects = [{"id": "all_out_attack", "until": "turn", "damage": 2}]
    drive(g.cleanup(a))
    assert (a.current["life"], a.current["soul"]) == (2, 1) and a.effects == []
    paths = [e[1] for e in g.events("state") if e[1] in ("a.life", "a.soul")]
    assert paths == ["a.life", "a.soul"]


def test_illegal_answer_is_refused_and_changes_nothing() -> None:
    g = G([])
    j, gh = jin(g), foe("ghoul", "gh")
    g.add(j, gh)
    g.layout(E1=[j, gh])
    gen = g.main_phase(j)
    d = next(gen)
    assert d.kind == "cb.minor"
    before = g.t.snap()
    for bad in ("move:new", "attack:knife", "withdraw:new", "escape", "item:revitalizer:gh"):
        with pytest.raises(IllegalAnswer):
            d.check(bad)
    assert g.t.snap() == before


# ----------------------------------------------------------------------------------------------------------------
# the whole combat (§7.3, §7.10.1, §11.6)
# ----------------------------------------------------------------------------------------------------------------
def fight(seed: int, enemies: list[str], *, tod: str = "night", policy: Callable[[Decision], Any] = scripted,
          **cfg: Any) -> tuple[G, str]:
    g = G(seed=seed, **cfg)
    g.add(jin(g), mio(g))
    ids = []
    for k, e in enumerate(enemies):
        c = enemy_character(e, f"{e}{k}")
        g.add(c)
        ids.append(c.id)
    g.t.time_of_day = tod
    outcome = drive(g.combat({"enemies": ids, "layout": None}), fallback=policy)
    return g, outcome


def test_combat_end_processing_and_flow() -> None:
    g, outcome = fight(0, ["ghoul"])
    assert outcome == "pcs_win"
    assert g.t.battlefield is None and g._cb is None
    gh = g.t.chars["ghoul0"]
    assert not gh.incapacitated and gh.current["life"] >= 1
    for c in g.t.chars.values():
        assert all(c.slots_usable.values()) and not c.legs_broken and not c.flying and c.blockading is None
        assert c.attacks_received_this_round == 0 and not c.statuses
    phases = [e[3] for e in g.events("phase")]
    assert phases[:3] == ["combat_start", "setup_phase", "main_phase"] and phases[-2:] == ["combat_end", "idle"]
    # the flow machine is reusable for the next combat
    drive(g.combat({"enemies": ["ghoul0"], "layout": {"E1": ["pcs"], "E2": ["ghoul0"]}}), fallback=scripted)


def test_round_cap_and_gm_end() -> None:
    g, outcome = fight(1, ["vampire_count"], max_combat_rounds=1)
    assert outcome == "round_cap"
    assert any(e[1] == "round_cap" for e in g.events("info"))
    g = G(seed=2)
    g.add(jin(g), foe("vampire_count", "v"))
    out = drive(g.combat({"enemies": ["v"], "layout": None}), [("cb.end", "end")], fallback=scripted)
    assert out == "ended_by_gm"


def test_escape() -> None:
    g = G(seed=3)
    a, gh = pc("a"), foe("ghoul", "gh")
    g.add(a, gh)
    out = drive(g.combat({"enemies": ["gh"], "layout": {"E1": ["a"], "E2": ["gh"]}, "escape_allowed": True}),
                [("cb.minor", "none"), ("cb.major", "escape")], fallback=scripted)
    assert out == "escaped"


def test_scenario_end_condition_defeated() -> None:
    g = G(seed=4)
    g.add(jin(g), mio(g), foe("ghoul", "g1", luck=None), foe("vampire_count", "v", luck=None))
    g.t.chars["g1"].current["life"] = 1
    out = drive(g.combat({"enemies": ["g1", "v"], "layout": None, "end_condition": {"defeated": ["g1"]}}),
                fallback=scripted)
    assert out == "pcs_win" and g.t.chars["v"].current["life"] >= 1


def test_scripted_policy_wins_fair_fights_and_loses_unfair_ones() -> None:
    fair = [fight(s, ["ghoul", "ghoul"])[1] for s in range(30)]
    assert fair.count("pcs_win") >= 27, fair
    climax = [fight(s, ["vampire_count"])[1] for s in range(30)]
    assert climax.count("pcs_win") >= 18, climax
    unfair = [fight(s, ["vampire_count"] * 3)[1] for s in range(30)]
    assert unfair.count("pcs_win") <= 3 and unfair.count("pcs_lose") >= 12, unfair


# ----------------------------------------------------------------------------------------------------------------
# properties over random combats
# ----------------------------------------------------------------------------------------------------------------
ACTION_KINDS = ("cb.minor", "cb.major", "cb.setup_feat", "cb.delay")


def random_policy(rng: random.Random, g: G, seen: list[str]) -> Callable[[Decision], Any]:
    def act(d: Decision) -> Any:
        if d.kind in ACTION_KINDS:
            c = g.t.chars[d.actor]
            assert c.able, f"{d.kind} asked to {d.actor} who is 戦闘不能/死亡"
            seen.append(d.kind)
        if d.kind == "cb.end":
            return "none"
        if d.payload_model is not None:
            raise AssertionError(f"unexpected payload decision {d.kind}")
        if d.pick is not None:
            lo, hi = d.pick
            return rng.sample(d.option_ids, rng.randint(lo, min(hi, len(d.option_ids))))
        return rng.choice(d.option_ids)
    return act


ENEMY_SETS = [["ghoul"], ["ghoul", "ghoul"], ["cult_sorcerer", "ghoul"], ["vampire_count"],
              ["vampire_count", "cult_sorcerer"]]
FLAGS = st.fixed_dictionaries({}, optional={
    "crit_table_mode": st.sampled_from(["gm_decides", "always", "never"]),
    "crit_row6_mode": st.sampled_from(["gm_decides", "incapacitate", "damage3_add", "damage3_replace"]),
    "special_zero_allows_awaken": st.booleans(),
    "consecutive_counts_failed_attacks": st.booleans(),
    "cost_zero_action_resolves": st.booleans(),
    "damage_roll_per_target": st.booleans(),
    "helpless_can_defend": st.booleans(),
    "allow_attack_incapacitated": st.booleans(),
    "attack_crit_choice_timing": st.sampled_from(["after_defense", "before_defense"]),
    "multi_target_crit_choice": st.sampled_from(["per_target", "per_attack"]),
    "luck_window": st.sampled_from(["own_roll", "after_both"]),
})


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), enemies=st.sampled_from(ENEMY_SETS), tod=st.sampled_from(["day", "night", "none"]),
       scripted_side=st.booleans(), flags=FLAGS)
def test_random_combats_keep_the_invariants(seed: int, enemies: list[str], tod: str, scripted_side: bool,
                                            flags: dict[str, Any]) -> None:
    rng = random.Random(seed)
    seen: list[str] = []
    g = G(seed=seed, max_combat_rounds=6, **flags)
    rand = random_policy(rng, g, seen)

    def policy(d: Decision) -> Any:
        if scripted_side and d.actor != "gm" and d.actor in g.t.chars and not g.t.chars[d.actor].is_pc:
            if d.kind in ACTION_KINDS:
                assert g.t.chars[d.actor].able
            return scripted(d)
        return rand(d)

    g.add(jin(g), mio(g))
    ids = []
    for k, e in enumerate(enemies):
        c = enemy_character(e, f"{e}{k}")
        g.add(c)
        ids.append(c.id)
    g.t.time_of_day = tod

    def watch(e: tuple[Any, ...]) -> None:
        if e[0] == "state" and e[1].rsplit(".", 1)[-1] in ("life", "soul", "luck", "wealth", "kagaribi", "bullets"):
            assert isinstance(e[3], int) and e[3] >= 0, e
        if e[0] == "check" and e[1] == "defense" and not e[2].get("cancelled"):
            assert e[2]["pool"] >= 1, e

    events = g.ctx.events  # type: ignore[attr-defined]

    class Watched(list):  # type: ignore[type-arg]
        def append(self, e: Any) -> None:
            watch(e)
            super().append(e)

    g.ctx.events = Watched(events)  # type: ignore[attr-defined]
    outcome = drive(g.combat({"enemies": ids, "layout": None}), fallback=policy)
    assert outcome in ("pcs_win", "pcs_lose", "round_cap", "escaped", "ended_by_gm")
    for c in g.t.chars.values():
        for stat, v in c.current.items():
            assert v >= 0, (c.id, stat, v)
        assert c.current["kagaribi"] <= 6
        assert not (c.dead and c.able)
    assert g.t.battlefield is None


def test_combat_machine_is_flat_and_documented() -> None:
    assert COMBAT.initial == "idle"
    for t in COMBAT.triggers_from("cleanup"):
        assert t in ("main", "end_round", "finish")


@pytest.mark.parametrize("luck_window", ["own_roll", "after_both"])
@pytest.mark.parametrize("resolves", [True, False])
def test_attacker_put_out_by_a_feat_at_its_targets_defense(luck_window: str, resolves: bool) -> None:
    # AMB-19 (fuzz seed 2 case 487): ren attacks a ghoul, hits critically, and pays 《精霊の守り》 on the ghoul's
    # defense (before_defense_in_engagement) with its last 魂: 戦闘不能. With cost_zero_action_resolves = false the
    # feat and the attack are cancelled (no crit choice asked of the downed attacker, §7.9); with true both resolve
    g = G([6, 6, 5] + [1] * 20, cost_zero_action_resolves=resolves, luck_window=luck_window)
    ren = pc("ren", "shamanic", soul=1, feats=("spirit_guard",))
    gh = foe("ghoul", "gh")
    g.add(ren, gh)
    g.layout(E1=[ren, gh])
    asked: list[Decision] = []
    out = drive(g.attack(ren, "unarmed", ["gh"]), [("ck.auto_feats", ["spirit_guard"]), ("ck.zero", "incapacitated")],
                fallback=scripted, asked=asked)
    assert ren.current["soul"] == 0 and ren.incapacitated
    kinds = [d.kind for d in asked if d.actor == "ren"]
    (defense,) = g.events("check", "defense")
    if resolves:
        assert "cb.crit_bonus" in kinds and not out.get("cancelled")
        assert "ren:spirit_guard" in defense[2]["auto_feats"]
    else:
        assert "cb.crit_bonus" not in kinds and out["cancelled"] and out["damage"] == {}
        assert defense[2]["auto_feats"] == []
        assert gh.current["life"] == gh.base["life"]
