"""Sessions the fuzzer found failing (`trpg fuzz sessions`), played again with every decision checked as the fuzzer
checks it (docs/reliability.md, Findings); each failed before its fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.fuzz.sessions import replay_case

ROOT = Path(__file__).resolve().parents[2]
KAERIMICHI = str(ROOT / "scenarios/last_fragment/kaerimichi_no_eki.yaml")
SHUUDEN = str(ROOT / "scenarios/last_fragment/shuuden_no_mukou.yaml")

# (scenario, seed, seats, --config options, --create): the printed `trpg play` commands of the failing cases
CASES = {
    # resolution_mode=simultaneous (AMB-35): a dart incapacitated an enemy after it declared 強撃, and its declared
    # skill still resolved, as the option says; the invariant took its check windows for windows of a downed
    # character (Finding 23: the invariant was wrong)
    "simultaneous_downed_user_9000184": (
        KAERIMICHI, 9000184, ("all=scripted", "gm=random", "npcs=random"),
        "base_max_hp=48 initial_ap=185 ap_cost_per_level=2 max_ability_level=49 initial_skill_slots=3 initial_items=0 "
        "inventory_max=21 house_abnormality_drawbacks=false max_tokens_per_check=59 item_requests_per_check=10 "
        "secret_ability_announced_at_opening=true personal_scene_type=nondaily personal_scenes_per_session=10 "
        "all_pcs_in_every_scene=false allow_backtrack=true initiative_order=sp_desc resolution_mode=simultaneous "
        "max_combat_rounds=13 max_cycles_per_scene=5 incapacitated_can_share=true shock_on_incapacitated=auto_fail "
        "ending_precedence=missing_first respec_requires_unspent_ap=false memorialize_timing=anytime "
        "max_item_name_vetoes=1 dart_timing=combat_only", True),
    # the table's declaration of standing answers named every actor, and each seat it named saw it whole: an NPC saw
    # the id of an enemy it had not met (Finding 22)
    "standing_declaration_2000010": (SHUUDEN, 2000010, ("all=scripted", "gm=random", "pcs=random"), "", False),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_session_passes_every_check(name: str, tmp_path: Path) -> None:
    path, seed, seats, config, create = CASES[name]
    s = replay_case("last_fragment", path, seed, seats, config, create, tmp_path / "s.jsonl")
    assert s.outcome is not None
