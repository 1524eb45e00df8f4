"""Configuration flags of rules/bloodberry.md §10.1 (first value = default). Every flag is settable per scenario
(``config:`` in the scenario file) and per session (``--config KEY=VALUE``)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["BloodberryConfig"]


class BloodberryConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    emotion_roll_mode: Literal["half_d6", "2d6_sum", "d12"] = Field("half_d6", description="A13")
    judge_grant_enabled: bool = Field(True, description="A4")
    grant_ignores_threshold: bool = Field(False, description="A4")
    relation_both_success: Literal["active_only", "both"] = Field("active_only", description="A4")
    abandon_unopposed_auto_success: bool = Field(True, description="A6")
    relation_passive_needs_threshold: bool = Field(True, description="A8")
    passive_raise_count_mode: Literal["sum", "each"] = Field("sum", description="A9")
    relation_check_at_max_allowed: bool = Field(False, description="A11")
    confrontation_sublimation: bool = Field(True, description="A12")
    cost_floor_reading: Literal["floor_1", "floor_2"] = Field("floor_1", description="A14")
    absence_mode: Literal["miss_n", "miss_n_minus_1"] = Field("miss_n", description="A15")
    guard_floor: Literal[0, "forbid_below_1"] = Field(0, description="A16")
    chukoku_scope: Literal["any_present", "own_checks"] = Field("any_present", description="A17")
    heal_cap: Literal["full", "none"] = Field("full", description="A18")
    allow_self_rescue_at_zero: bool = Field(True, description="A18")
    foam_bonus_owner: Literal["user", "target"] = Field("user", description="A19")
    hama_relation_scope: Literal["camp_in_confrontation", "individual"] = Field("camp_in_confrontation", description="A20")
    fairy_curse_reroll_owner: Literal["target", "user"] = Field("target", description="A22")
    face_card_numeric: Literal[None, 0] = Field(None, description="A25")
    ace_value: Literal[1] = Field(1, description="A25")
    initial_hand_size: Literal[3] = Field(3, description="A26")
    initiative_card_mode: Literal["reveal_keep", "discard_redraw"] = Field("reveal_keep", description="A26")
    change_window_timing: Literal["before_draw", "after_draw"] = Field("before_draw", description="A27")
    change_limit_reset: Literal["per_cycle", "per_own_round"] = Field("per_cycle", description="A27")
    role_check_on_refresh: bool = Field(False, description="A28")
    multiple_roles: Literal["max", "sum"] = Field("max", description="§9.9 house")
    camp_cap_basis: Literal["pcs_at_start", "pcs_current"] = Field("pcs_at_start", description="A29")
    npc_camp_cap: Literal["members"] = Field("members", description="A29")
    flagmap_obstruction_mode: Literal["dice_pool", "fixed_value"] = Field("dice_pool", description="A31")
    flagmap_move_unit: Literal["camp", "individual"] = Field("camp", description="A32")
    flagmap_camp_order: Literal["pc_first", "card_bid"] = Field("pc_first", description="A32")
    subevent_card_consumed: bool = Field(True, description="A36")
    npc_initiated_relation_checks: bool = Field(False, description="A37")
    useful_bonus_window: Literal["scene_and_between", "scene_only"] = Field("scene_and_between", description="A38")
    curse_check_loss_ability: Literal["by_type"] = Field("by_type", description="A40")
    ookami_majo_target: Literal["self"] = Field("self", description="A45")
    two_pc_relations: Literal["single", "double"] = Field("single", description="A34")
    sublimations_per_success: Literal["one", "catch_up"] = Field("one", description="A47")
    jokers: Literal[False] = Field(False, description="§7.4 house")
    session_start_restore: bool = Field(True, description="§4.1 house")
    formless_curse_default_difficulty: int = Field(2, ge=0, le=10, description="§11 G5 house")
    auto_resolve_judges: bool = Field(False, description="§5.3")
    hours_per_scene: int = Field(1, ge=0, le=24, description="§11 G9 house")
