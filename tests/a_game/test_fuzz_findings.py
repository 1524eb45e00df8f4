"""Sessions the fuzzer found failing (`trpg fuzz sessions`), played again with every decision checked as the fuzzer
checks it; each failed before its fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.fuzz.sessions import replay_case

ROOT = Path(__file__).resolve().parents[2]
YOMICHI = str(ROOT / "scenarios/a_game/yomichi_no_hikari.yaml")

# (scenario, seed, seats, --config options, --create): the printed `trpg play` commands of the failing cases
CASES = {
    # hp_b_timing=at_step4: effect B is settled at each declarer's step 4, so two PCs (or one PC twice) could name
    # the same record and both be approved: the record was the target of effect B twice (§5.8 hp_b_max_per_target)
    "hp_b_twice_at_step4_1000771": (YOMICHI, 1000771, ("all=scripted", "gm=random", "pcs=random"),
                                    "pc_count_max=5 require_protagonist=false scenes_per_game=2 "
                                    "briefing_counts_as_turn1=false element_max_len=8 temporary_max_len=27 "
                                    "temp_proposers=actor_and_cooperators banned_name_blocks_temporary=false "
                                    "greed_chain=false opposed_fumble_value=sum continued_check_mode=every_turn "
                                    "scene_end_on_goal=immediate on_scene_failure=end_game "
                                    "usage_ban_tie=player_choice usage_ban_includes_sdc=true "
                                    "omnipotent_rejection_blacklists=true hp_initial=73 hp_max_per_declaration=4 "
                                    "hp_b_timing=at_step4 protagonist_decisive_uses=6", False),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_session_passes_every_check(name: str, tmp_path: Path) -> None:
    path, seed, seats, config, create = CASES[name]
    s = replay_case("a_game", path, seed, seats, config, create, tmp_path / "s.jsonl")
    assert s.outcome is not None
