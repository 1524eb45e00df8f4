"""夜狩り人 rules that a mutation pass (scripts/mutate_rules.py, seed 13; docs/mutation.md) could change with every
test still passing. Each test names the mutant it kills and the section of rules/yogaribito.md it pins."""

from __future__ import annotations

from typing import Any

from . import run_example


def yg(case: dict[str, Any], scenario: str = "yogaribito_table.yaml") -> None:
    run_example("yogaribito", scenario, case)


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
