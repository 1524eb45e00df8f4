"""ブラッドベリー rules that a mutation pass (scripts/mutate_rules.py, seed 13; docs/mutation.md) could change with
every test still passing. Each test names the mutant it kills and the section of rules/bloodberry.md it pins."""

from __future__ import annotations

from typing import Any

from engine.core import Session, load_scenario
from engine.systems.bloodberry.cards import action_count, parse_card, roles_of

from . import ROOT, run_example

CAST = ROOT / "engine" / "systems" / "bloodberry" / "examples" / "bloodberry_cast.yaml"

# EX5's relation check (bloodberry.yaml): Aoi → Beni 探究, second basis 気品; Aoi rolls 8 dice, Beni 4
AOI_4_BENI_0 = [6, 5, 5, 6, 1, 2, 3, 4, 1, 2, 3, 4]
AOI_3_BENI_1 = [6, 1, 5, 2, 3, 5, 4, 1, 5, 2, 3, 1]  # EX5's own dice


def bb(case: dict[str, Any]) -> None:
    run_example("bloodberry", "bloodberry_cast.yaml", case)


def _rc(active: str = "aoi", passive: str = "beni", rtype: str = "inquiry") -> dict[str, Any]:
    return {"relation_check": {"active": active, "passive": passive, "type": rtype}}


# ---------------------------------------------------------------------------------------------------------------------
# §5.4 relation check
# ---------------------------------------------------------------------------------------------------------------------
def test_a11_an_active_success_at_strength_3_changes_nothing():
    """§10 A11 (relation_check_at_max_allowed = true): at strength 3 an active success does nothing — no strength
    beyond the cap, no sublimation. Kills game.py:1219:17:cmp:0 (`s >= 3` → `s > 3`)."""
    bb({"id": "A11", "config": {"relation_check_at_max_allowed": True},
        "setup": {"in_between": True, "relations": {"aoi|beni": 3}},
        "procedure": _rc(), "dice": AOI_4_BENI_0,
        "answers": [{"kind": "j.second_basis", "actor": "aoi", "answer": "grace"}],
        "expect": {"result": "active",
                   "state": {"table.relations.aoi|beni.strength": 3,
                             "table.chars.aoi.abilities": {"passion": 3, "grace": 2, "maturity": 2},
                             "table.chars.beni.abilities": {"passion": 2, "grace": 3, "maturity": 2}},
                   "asked": [{"kind": "rc.sublimate", "times": 0}]}})


# EX6's check (bloodberry.yaml): Beni → Aoi 誘惑 at strength 1, a tie → the passive (Aoi) succeeds
EX6_DICE = [5, 6, 1, 2, 3, 4, 2, 1, 6, 5, 2, 3]
EX6_SETUP = {"in_between": True, "relations": {"aoi|beni": 1},
             "chars": {"aoi": {"abilities": {"passion": 4}, "sublimated": ["ganbariya"]},
                       "beni": {"abilities": {"maturity": 3}, "sublimated": ["kyoshi"]}}}


def test_passive_lower_lowers_the_strength_by_one():
    """§5.4 P success: LOWER → s := max(0, s − 1). Kills game.py:1272:12:stmtdel:0 (the LOWER does nothing)."""
    bb({"id": "LOWER", "setup": EX6_SETUP, "procedure": _rc("beni", "aoi", "seduction"), "dice": EX6_DICE,
        "answers": [{"kind": "j.second_basis", "actor": "beni", "answer": "grace"},
                    {"kind": "rc.passive_choice", "actor": "aoi", "answer": "lower"}],
        "expect": {"result": "passive", "state": {"table.relations.aoi|beni.strength": 0,
                                                  "table.chars.aoi.willpower": 1}}})


def test_passive_raise_each_mode_needs_s_plus_1_on_each_side_and_no_more():
    """§10 A9 passive_raise_count_mode = each: RAISE needs both sides to have ≥ s + 1 sublimated skills (here
    1 ≥ 0 + 1 each, at strength 0) and is refused when one side has fewer. Kills game.py:1253:55:cmp:0 (`>=` → `>`
    on the passive side's count)."""
    setup = {"in_between": True, "relations": {"aoi|beni": 0},
             "chars": {"aoi": {"abilities": {"passion": 4}, "sublimated": ["ganbariya"]},
                       "beni": {"abilities": {"maturity": 3}, "sublimated": ["kyoshi"]}}}
    bb({"id": "RAISE-each", "config": {"passive_raise_count_mode": "each"}, "setup": setup,
        "procedure": _rc("beni", "aoi", "seduction"), "dice": [5, 1, 1, 2, 3, 4, 2, 1, 5, 2, 2, 3],
        "answers": [{"kind": "j.second_basis", "actor": "beni", "answer": "grace"},
                    {"kind": "rc.passive_choice", "actor": "aoi", "answer": "raise"}],
        "expect": {"result": "passive", "state": {"table.relations.aoi|beni.strength": 1}}})
    lonely = {**setup, "chars": {**setup["chars"], "beni": {"abilities": {"maturity": 2}}}}
    bb({"id": "RAISE-each-refused", "config": {"passive_raise_count_mode": "each"}, "setup": lonely,
        "procedure": _rc("beni", "aoi", "seduction"), "dice": [5, 1, 1, 2, 3, 4, 2, 1, 5, 2, 2, 3],
        "answers": [{"kind": "j.second_basis", "actor": "beni", "answer": "grace"},
                    {"kind": "rc.passive_choice", "actor": "aoi", "answer": "lower"}],
        "illegal": [{"kind": "rc.passive_choice", "actor": "aoi", "answer": "raise"}],
        "expect": {"result": "passive", "state": {"table.relations.aoi|beni.strength": 0}}})


# ---------------------------------------------------------------------------------------------------------------------
# §5.3.2 grant, §10 A4
# ---------------------------------------------------------------------------------------------------------------------
def test_no_grant_window_when_judge_grant_enabled_is_false():
    """§10 A4 judge_grant_enabled: with the grant on (default) the top success of an opposed check is asked whether
    to grant success to the lower side (j.grant); with it off nobody is. Kills judge.py:449:11:boolop:0."""
    base = {"setup": {"in_between": True}, "procedure": _rc(), "dice": AOI_3_BENI_1,
            "answers": [{"kind": "j.second_basis", "actor": "aoi", "answer": "grace"},
                        {"kind": "rc.sublimate", "actor": "aoi", "answer": "ganbariya"},
                        {"kind": "rc.sublimate", "actor": "beni", "answer": "kyoshi"}]}
    bb({**base, "id": "GRANT-on", "expect": {"result": "active", "asked": [{"kind": "j.grant", "times": 1}]}})
    bb({**base, "id": "GRANT-off", "config": {"judge_grant_enabled": False},
        "expect": {"result": "active", "asked": [{"kind": "j.grant", "times": 0}]}})


# ---------------------------------------------------------------------------------------------------------------------
# §6 SESSION_END absence, §10 A15
# ---------------------------------------------------------------------------------------------------------------------
def test_absence_miss_n_minus_1_returns_in_the_nth_session():
    """§10 A15 absence_mode = miss_n_minus_1: a PC with an ability at 0 misses (1D6 − 1) sessions, never fewer than
    0 (a 1 misses none). Kills game.py:1750:87:arith:0 (n + 1) and game.py:1750:84:const:0 (floor 1)."""
    for face, missed in ((3, 2), (1, "<absent>")):  # (the snapshot shows absent_sessions only when nonzero)
        bb({"id": f"A15-{face}", "config": {"absence_mode": "miss_n_minus_1"},
            "setup": {"chars": {"aoi": {"abilities": {"grace": 0}, "full": {"grace": 2}, "status": "dropped"}}},
            "procedure": {"session_end": {}}, "dice": [face],
            "expect": {"state": {"table.chars.aoi.absent_sessions": missed}}})


# ---------------------------------------------------------------------------------------------------------------------
# §9.2 完全支配, A19 淀みに浮かぶ泡沫の, §9.9 roles, §9.8 curse table, §9.2 過去の残像
# ---------------------------------------------------------------------------------------------------------------------
def test_total_domination_can_crush_an_object_outside_confrontation_only():
    """§9.2 完全支配 (古読み): the target is one character, or an object/structure ("anything within hand's reach is
    crushed"), outside confrontation. Kills game.py:913:16:stmtdel:0 (the object option never offered)."""
    s = Session(load_scenario(CAST), 0)
    g = s.game
    c = g.t.chars["aoi"]
    c.class_skills = [*c.class_skills, "total_domination"]
    outside = dict(g._skill_options(c, in_cf=False))
    inside = dict(g._skill_options(c, in_cf=True))
    assert "skill:domination_object" in outside
    assert "skill:domination_object" not in inside


def test_the_foam_bonus_counts_in_the_ability_used_for_checks():
    """§10 A19 淀みに浮かぶ泡沫の: on success against a person the owner raises one ability by 1; the bonus is part of
    the ability's value in checks. Kills state.py:101:15:arith:0 (the bonus subtracted)."""
    s = Session(load_scenario(CAST), 0)
    c = s.game.t.chars["aoi"]
    before = c.value("grace")
    c.foam_bonus = {"grace": 1}
    assert c.value("grace") == before + 1
    assert c.value("passion") == c.ab["passion"]


def test_several_roles_give_the_highest_action_count():
    """§9.9 HOUSE multiple_roles = max: a hand matching several roles acts as often as its best role (with
    face_card_numeric 12, Q♥ Q♦ Q♥ is 三枚が女王 (3) and also same colour and number and sum ≥ 25 (1 each)); sum adds
    them. Kills cards.py:116:11:minmax:0."""
    hand = [parse_card(x) for x in ("Q♥", "Q♦", "Q♥#2")]
    roles = roles_of(hand, face_card_numeric=12)
    assert "three_queens" in roles and "colour_set" in roles, roles
    assert action_count(roles, "max") == 3
    assert action_count(roles, "sum") == sum(3 if r in ("three_queens", "face_colour_set") else 1 for r in roles)


def test_the_curse_table_first_die_5_and_6_read_group_56():
    """§9.8 呪い表: first d6 1–2 → "12", 3–4 → "34", 5–6 → "56"; second d6 → row: (4, 2) → 34・2, (5, 2) → 56・2.
    Kills creation.py:68:54:const:0 (`first <= 5` for group 34)."""
    for dice, row in (([4, 2], "c34_2"), ([5, 2], "c56_2"), ([6, 6], "c56_6")):
        bb({"id": f"CURSE-{dice[0]}{dice[1]}", "procedure": {"table_roll": {"table": "curse"}}, "dice": dice,
            "expect": {"result": row}})


def test_a_failed_afterimage_reproduces_no_past_event():
    """§9.2 過去の残像 (with the tools at hand): 気品+大人, difficulty 3; only a success reproduces the scene's past
    event (as AFTERIMAGE in bloodberry_skills.yaml, here 5 dice → 2 < 3). Kills game.py:1025:15:boolop:0."""
    bb({"id": "AFTERIMAGE-fail", "procedure": {"pc_turn": {"pc": "beni", "scene": "atelier_scene"}},
        "dice": [5, 6, 1, 1, 2],
        "answers": [{"kind": "pc.declare", "actor": "beni", "answer": "skill:afterimage_of_past"}],
        "expect": {"result": {"flags": [], "clues": []},
                   "events": [{"type": "check", "check": "skill",
                               "data": {"rollers": [{"who": "beni", "pool": 5, "ach": 2, "success": False}]}}]}})
