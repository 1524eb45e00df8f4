"""Configuration flags of rules/yogaribito.md §10.2 (first value = default). Every flag is settable per scenario
(``config:`` in the scenario file) and per session (``--config KEY=VALUE``)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["YogaribitoConfig"]


class YogaribitoConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    hero_bonus_mode: Literal["free", "fixed"] = Field("free", description="AMB-01")
    low_roll_fallback: Literal["mandatory", "optional"] = Field("mandatory", description="AMB-02")
    class_floor_mode: Literal["clamp", "reject"] = Field("clamp", description="AMB-03")
    stock_points_recalc_on_growth: bool = Field(False, description="AMB-04")
    xp_can_raise_kagaribi: bool = Field(False, description="AMB-05")
    general_pool_floor: Literal[0, 1] = Field(0, description="AMB-06")
    flare_doubles_bought_dice: bool = Field(True, description="AMB-07")
    #: AMB-09: ``own_roll`` = each side right after its own roll; ``after_both`` = after both rolls, the active side
    #: first, then the passive side. In an attack (§7.5) the hit check is one check for every target and 【運】 is
    #: once per check, so with ``after_both`` the attacker decides ONCE, after every defense of the attack is rolled
    #: (an area attack: after all of them), then each defender in declared order (DESIGN.md, "Rule readings").
    luck_window: Literal["own_roll", "after_both"] = Field("own_roll", description="AMB-09")
    attack_crit_choice_timing: Literal["after_defense", "before_defense"] = Field("after_defense", description="AMB-11")
    multi_target_crit_choice: Literal["per_target", "per_attack"] = Field("per_target", description="AMB-11")
    crit_table_mode: Literal["gm_decides", "always", "never"] = Field("gm_decides", description="AMB-12")
    crit_row6_mode: Literal["gm_decides", "incapacitate", "damage3_add", "damage3_replace"] = Field(
        "gm_decides", description="AMB-14")
    special_zero_allows_awaken: bool = Field(False, description="AMB-14, AMB-19")
    consecutive_counts_failed_attacks: bool = Field(True, description="AMB-15")
    awakened_life_cost: Literal["waived", "from_soul"] = Field("waived", description="AMB-17")
    awaken_soul_cap: Literal["base", "none"] = Field("base", description="AMB-18")
    cost_zero_action_resolves: bool = Field(True, description="AMB-19")
    arachne_awakened_payment: Literal["soul", "free_capped"] = Field("soul", description="AMB-20")
    damage_roll_per_target: bool = Field(True, description="AMB-25")
    incapacitated_outside_combat_release: Literal["scene_end", "never"] = Field("scene_end", description="AMB-27")
    helpless_can_defend: bool = Field(False, description="AMB-28")
    allow_attack_incapacitated: bool = Field(False, description="AMB-28")
    bs_clear_at_combat_end: bool = Field(True, description="AMB-29")
    social_check_limit_shared: bool = Field(True, description="AMB-32")
    master_scene_counts_for_purchase: bool = Field(True, description="AMB-32")
    allow_move_to_new_engagement: bool = Field(True, description="AMB-34")
    heal_cap: Literal["base", "none"] = Field("base", description="AMB-38")
    raise_from_zero_cost: Literal[2, 0] = Field(2, description="AMB-39")
    returned_stock_points: Literal["banked", "lost"] = Field("banked", description="AMB-40")
    rebuild_keep_ability_dice: bool = Field(True, description="AMB-41")
    #: HOUSE safety caps (not rules): a combat that lasts longer ends as a draw; a scene asks at most this many actions
    max_combat_rounds: int = Field(30, ge=1, le=100, description="HOUSE safety cap",
                                   json_schema_extra={"safety_cap": True})
    max_scene_actions: int = Field(8, ge=1, le=100, description="HOUSE safety cap",
                                   json_schema_extra={"safety_cap": True})
