"""Sessions the fuzzer found failing (docs/reliability.md, the full-size sessions runs of seeds 0 and 2), played again
with every decision checked and the replay verified as `trpg fuzz sessions` checks them; each failed before its fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.fuzz.sessions import replay_case

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
    # a PC used 《精霊の守り》 on the defense against its own attack (after_both) and died paying it with
    # cost_zero_action_resolves = false: the feat still resolved and the dead attacker was asked cb.crit_bonus (§7.9);
    # now the feat and the attack are cancelled (AMB-19) (`trpg fuzz sessions --seed 2 --case 487`)
    "helper_cost_kills_the_attacker_2000493": (BELFRY, 2000493, ("all=scripted", "pcs=random", "npcs=random"),
                                               "hero_bonus_mode=fixed low_roll_fallback=optional "
                                               "stock_points_recalc_on_growth=true general_pool_floor=1 "
                                               "flare_doubles_bought_dice=false luck_window=after_both "
                                               "multi_target_crit_choice=per_attack crit_row6_mode=damage3_replace "
                                               "special_zero_allows_awaken=true cost_zero_action_resolves=false "
                                               "helpless_can_defend=true allow_attack_incapacitated=true "
                                               "social_check_limit_shared=false "
                                               "master_scene_counts_for_purchase=false "
                                               "allow_move_to_new_engagement=false raise_from_zero_cost=0 "
                                               "max_combat_rounds=56 max_scene_actions=64", False),
    # two consumables used up, then a second knife bought: the item list as long as before, so the kept copy counts
    # were stale and 「ナイフ（1つ目）」 was 「ナイフ」 in the replay (`trpg fuzz sessions --seed 2 --case 1678`)
    "copy_label_after_consumed_items_2001684": (NIGHT, 2001684, ("all=scripted", "pcs=random", "npcs=random"),
                                                "low_roll_fallback=optional flare_doubles_bought_dice=false "
                                                "attack_crit_choice_timing=before_defense "
                                                "crit_row6_mode=damage3_replace consecutive_counts_failed_attacks=false "
                                                "awakened_life_cost=from_soul awaken_soul_cap=none "
                                                "cost_zero_action_resolves=false arachne_awakened_payment=free_capped "
                                                "damage_roll_per_target=false "
                                                "incapacitated_outside_combat_release=never "
                                                "bs_clear_at_combat_end=false social_check_limit_shared=false "
                                                "master_scene_counts_for_purchase=false "
                                                "allow_move_to_new_engagement=false raise_from_zero_cost=0 "
                                                "max_combat_rounds=56 max_scene_actions=73", False),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_session_passes_every_check(name: str, tmp_path: Path) -> None:
    path, seed, seats, config, create = CASES[name]
    s = replay_case("yogaribito", path, seed, seats, config, create, tmp_path / "s.jsonl")
    assert s.outcome is not None
