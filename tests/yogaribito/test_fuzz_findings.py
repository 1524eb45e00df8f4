"""Sessions the fuzzer found failing (docs/reliability.md, the full-size sessions run of seed 0), played again with
every decision checked as `trpg fuzz sessions` checks it; each failed before its fix."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from agent.fuzz.checks import DecisionChecker
from agent.fuzz.common import Sample
from agent.fuzz.sessions import Case, CheckedTable, _seat_spec, new_session
from engine.core.registry import get_system

ROOT = Path(__file__).resolve().parents[2]
NIGHT = str(ROOT / "scenarios/yogaribito/night_of_the_count.yaml")
BELFRY = str(ROOT / "scenarios/yogaribito/belfry_of_black_wings.yaml")

# (scenario, seed, seats, --config options, --create): the printed `trpg play` commands of the failing cases
CASES = {
    # cb.crit_hand (D42) is the attacker's choice on its own critical hit; a summoner who died paying bought dice for
    # that attack is still asked it under AMB-19 (cost_zero_action_resolves): the invariant was too strict
    "crit_hand_after_a_fatal_cost_2369": (BELFRY, 2369, ("all=scripted", "pcs=random", "npcs=random"),
                                          "stock_points_recalc_on_growth=true xp_can_raise_kagaribi=true "
                                          "general_pool_floor=1 luck_window=after_both "
                                          "attack_crit_choice_timing=before_defense crit_row6_mode=incapacitate "
                                          "special_zero_allows_awaken=true awaken_soul_cap=none "
                                          "damage_roll_per_target=false helpless_can_defend=true "
                                          "bs_clear_at_combat_end=false master_scene_counts_for_purchase=false "
                                          "allow_move_to_new_engagement=false raise_from_zero_cost=0 "
                                          "returned_stock_points=lost max_combat_rounds=80 max_scene_actions=2", True),
    # two copies of one item in the starting loadout (cc.loadout, D11): two options read alike until copies were
    # numbered (#1, #2)
    "loadout_copies_1378": (NIGHT, 1378, ("all=scripted", "pcs=random"),
                            "low_roll_fallback=optional class_floor_mode=reject stock_points_recalc_on_growth=true "
                            "xp_can_raise_kagaribi=true general_pool_floor=1 flare_doubles_bought_dice=false "
                            "attack_crit_choice_timing=before_defense crit_table_mode=always crit_row6_mode=damage3_add "
                            "consecutive_counts_failed_attacks=false awakened_life_cost=from_soul awaken_soul_cap=none "
                            "arachne_awakened_payment=free_capped damage_roll_per_target=false "
                            "incapacitated_outside_combat_release=never social_check_limit_shared=false "
                            "master_scene_counts_for_purchase=false heal_cap=none raise_from_zero_cost=0 "
                            "returned_stock_points=lost rebuild_keep_ability_dice=false max_combat_rounds=29 "
                            "max_scene_actions=15", True),
}


def _config(text: str) -> dict[str, object]:
    from agent.cli import _parse_config

    return _parse_config(shlex.split(text))


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_session_passes_every_check(name: str, tmp_path: Path) -> None:
    path, seed, seats, config, create = CASES[name]
    info = get_system("yogaribito")
    case = Case(0, seed, Sample("yogaribito", path, Path(path).stem, True), seats, create, _config(config))
    s = new_session(case, tmp_path / "s.jsonl")
    CheckedTable(s, _seat_spec(seats), DecisionChecker(s, info.invariants), lambda: None, 20_000).run()
    s.close()
    assert s.outcome is not None
