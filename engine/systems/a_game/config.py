"""Configuration flags of rules/a_game.md §9.10 (first value = default). Every flag is settable per scenario
(``config:`` in the scenario file) and per session (``--config KEY=VALUE``). Flags marked RULE in the spec have
one legal value (the rulebook's); the rest are the HOUSE readings of the ambiguities of §10 (A1–A31) and gaps of
§11 (G1–G13)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator, field_validator

__all__ = ["AGameConfig", "CAST_IDS", "ORDER_IDS"]

#: the six PC casts of §9.1 (the SD's own cast ``sd`` is never assigned to a PC)
CAST_IDS = ("protagonist", "partner", "expert", "companion", "mascot", "guest")
#: what a declaration order lists: the six casts and the SDCs
ORDER_IDS = (*CAST_IDS, "sdc")

Cast = Literal["protagonist", "partner", "expert", "companion", "mascot", "guest"]
OrderEntry = Literal["protagonist", "partner", "expert", "companion", "mascot", "guest", "sdc"]


class AGameConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    # -- table (§3) -----------------------------------------------------------------------------------------------
    pc_count_min: int = Field(3, ge=1, le=12, description="§3 RULE via 4–7 PLs incl. the SD")
    pc_count_max: int = Field(6, ge=1, le=12, description="§3 RULE via 4–7 PLs incl. the SD")
    require_protagonist: bool = Field(True, description="§3, A24: exactly one 主人公")
    unique_casts: tuple[Cast, ...] = Field(("protagonist", "partner"), description="§3, A24: casts at most one PC holds")
    # -- time (§6, §9.4, §9.5) ----------------------------------------------------------------------------------
    turns_per_scene: Literal[10] = Field(10, description="§6 RULE: a scene is 10 turns")
    turn_chart: Literal["house_default", "all_every_turn", "custom"] = Field(
        "house_default", description="§9.4, G1 (custom: the scenario's turn_chart)")
    declaration_order: tuple[OrderEntry, ...] = Field(
        ("guest", "mascot", "companion", "expert", "partner", "protagonist", "sdc"), description="§9.5, G2")
    scenes_per_game: int = Field(3, ge=1, le=20, description="§3, G12: the first N scenes of the scenario are played")
    # -- success elements (§4, §7.7) ---------------------------------------------------------------------------
    registration_limit_scope: Literal["player_turn", "table_turn", "player_check"] = Field(
        "player_turn", description="A1")
    briefing_counts_as_turn1: bool = Field(True, description="A2")
    max_elements: Literal[20] = Field(20, description="§4 RULE")
    element_max_len: int = Field(15, ge=1, le=100, description="§9.9")
    temporary_max_len: int = Field(30, ge=1, le=200, description="§9.9")
    temp_cap_per_check: Literal[2] = Field(2, description="§5 RULE")
    expert_modifier_counts_toward_temp_cap: bool = Field(False, description="A5")
    temp_dup_scope: Literal["sheet_and_check", "check"] = Field("sheet_and_check", description="A4")
    temp_proposers: Literal["actor", "actor_and_cooperators"] = Field("actor", description="A4")
    banned_name_blocks_temporary: bool = Field(True, description="A14")
    banned_name_blocks_registration: bool = Field(True, description="A14")
    # -- checks (§5) --------------------------------------------------------------------------------------------
    cast_modifier_in_coop: Literal["none", "actor_kept"] = Field("none", description="A6")
    cooperation_counts_as_action: bool = Field(True, description="A8")
    passive_counts_as_action: bool = Field(False, description="A21")
    greed_chain: bool = Field(True, description="A10")
    opposed_fumble_value: Literal["zero", "sum"] = Field("zero", description="A12")
    opposed_tie_first: Literal["opponent", "actor"] = Field("opponent", description="A12")
    opposed_min_difficulty: Literal[1, 0] = Field(1, description="A12")
    continued_check_mode: Literal["at_completion", "every_turn"] = Field("at_completion", description="A20")
    scene_end_on_goal: Literal["end_of_turn", "immediate"] = Field("end_of_turn", description="A25")
    on_scene_failure: Literal["continue", "end_game"] = Field("continue", description="G5")
    # -- game end (§7.11) ---------------------------------------------------------------------------------------
    usage_ban_tie: Literal["all", "player_choice", "gm_choice"] = Field("all", description="A13")
    usage_ban_includes_sdc: bool = Field(False, description="A13")
    allow_midgame_unrealize: bool = Field(False, description="A3")
    omnipotent_threshold: float = Field(0.3, ge=0.3, le=0.3, description="§9.9 RULE (30%): no other value")
    omnipotent_rejection_blacklists: bool = Field(False, description="A15")
    # -- hero points (§5.8, §7.8) -------------------------------------------------------------------------------
    hp_initial: int = Field(0, ge=0, le=99, description="A19")
    hp_max_per_declaration: int = Field(1, ge=1, le=10, description="A18")
    hp_b_timing: Literal["at_declaration", "at_step4"] = Field("at_declaration", description="A16")
    hp_b_max_per_target: int = Field(1, ge=1, le=10, description="A16")
    hp_refund_on_cancel: bool = Field(True, description="§5.7")
    # -- gaps (§11) ---------------------------------------------------------------------------------------------
    goal_difficulty_scale_by_pcs: bool = Field(False, description="G3")
    guest_suggestions: bool = Field(False, description="G7 (D36)")
    protagonist_decisive_uses: int = Field(0, ge=0, le=10, description="G8 (D37)")

    @field_validator("declaration_order")
    @classmethod
    def _order(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        if sorted(v) != sorted(ORDER_IDS):
            raise ValueError(f"declaration_order must list each of {', '.join(ORDER_IDS)} exactly once")
        return v

    @field_validator("unique_casts")
    @classmethod
    def _unique(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        if len(set(v)) != len(v):
            raise ValueError("unique_casts lists a cast twice")
        return v

    @model_validator(mode="after")
    def _ranges(self) -> AGameConfig:
        if self.pc_count_min > self.pc_count_max:
            raise ValueError(f"pc_count_min ({self.pc_count_min}) is above pc_count_max ({self.pc_count_max}): "
                             "no table can be set up")
        return self
