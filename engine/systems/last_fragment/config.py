"""Configuration flags of rules/last_fragment.md §9.10 (first value = default). Every flag is settable per scenario
(``config_overrides:`` in the scenario file) and per session (``--config KEY=VALUE``)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

__all__ = ["LastFragmentConfig", "AbilityName", "AbnormalityRow"]


class AbilityName(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    name: str = Field(min_length=1)


class AbnormalityRow(BaseModel):
    """One row of an abnormality list (§9.8 format)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    name: str = Field(min_length=1)
    level: int = Field(ge=1, le=5)
    face: int = Field(ge=1, le=4)
    drawback: str = Field("narrative", pattern=r"^(narrative|penalty\((nouryoku|chishiki|inou)\)|penalty_daily|"
                                                 r"penalty_all|scene_hp_1|no_token)$")
    dart: str = Field(pattern=r"^(dmg|heal|sp|dice)\(\+?\d*D?\d+(\+\d+)?\)$")


class LastFragmentConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    base_max_hp: int = Field(20, ge=1, le=999, description="§3 WIKI (later 20 / early 30)")
    initial_ap: int = Field(30, ge=0, le=999, description="§3 WIKI early")
    ap_cost_per_level: int = Field(1, ge=1, le=99, description="§3 HOUSE")
    max_ability_level: int | None = Field(5, ge=0, le=99, description="§3 HOUSE (null: no cap)")
    initial_skill_slots: int = Field(2, ge=0, le=20, description="§3 HOUSE")
    initial_items: int = Field(2, ge=0, le=5, description="§3 SOURCE/WIKI")
    inventory_max: int = Field(5, ge=1, le=99, description="§7.6 SOURCE")
    ability_rows: tuple[tuple[AbilityName, AbilityName, AbilityName], ...] | None = Field(
        None, description="§9.7 (null: the house rows); each row (能力, 知識, 異能)")
    abnormality_list: tuple[AbnormalityRow, ...] | None = Field(None, description="§9.8 (null: the house list)")
    house_abnormality_drawbacks: bool = Field(True, description="§9.8 HOUSE")
    max_tokens_per_check: int | None = Field(None, ge=0, le=99, description="AMB-1 (null: unlimited)")
    item_requests_per_check: int | None = Field(
        1, ge=1, le=99, description="AMB-21: item requests to the GM per check (null: unlimited; a refused item is "
                                    "not asked for again in the same check)")
    item_use_on_others: bool = Field(False, description="AMB-22: true = the roller may ask another present character "
                                                        "to use its item for the roller's check (ck.item_lend)")
    investigation_limit_mode: Literal["once_per_target", "scene_time"] = Field("once_per_target",
                                                                               description="Appendix A.4")
    secret_reveal_public: bool = Field(False, description="AMB-12")
    secret_ability_announced_at_opening: bool = Field(False, description="AMB-45")
    personal_scene_type: Literal["inherit", "daily", "nondaily", "owner_choice"] = Field(
        "inherit", description="AMB-11: owner_choice = the owner picks 日常 or 非日常 (ps.scene_type)")
    personal_scenes_per_session: int = Field(1, ge=0, le=10, description="§7.4 SOURCE")
    bond_table_roll: Literal["d10_row_choose_sign", "d20"] = Field("d10_row_choose_sign", description="AMB-8")
    bond_power_climax_only: bool = Field(False, description="AMB-5")
    bond_power_double_consumed_on_fail: bool = Field(True, description="AMB-7")
    climax_gate: Literal["all_pcs", "any_pc"] = Field("all_pcs", description="AMB-33")
    climax_scene_type: Literal["nondaily", "daily", "last_scene"] = Field("nondaily", description="AMB-40")
    all_pcs_in_every_scene: bool = Field(True, description="HOUSE: false = the GM chooses which PCs appear in each "
                                                           "scene (gm.scene_appearance)")
    allow_backtrack: bool = Field(False, description="WIKI")
    initiative_order: Literal["seat", "sp_desc", "sp_asc"] = Field("seat", description="AMB-24")
    resolution_mode: Literal["sequential", "simultaneous"] = Field(
        "sequential", description="AMB-35: simultaneous = every actor declares first, then every declared skill "
                                  "resolves, even if its user was incapacitated earlier in the step")
    max_combat_rounds: int = Field(30, ge=1, le=999, description="HOUSE safety",
                                   json_schema_extra={"safety_cap": True})
    max_cycles_per_scene: int = Field(12, ge=1, le=999, description="HOUSE safety: the GM ends a scene after so many "
                                                                    "cycles",
                                      json_schema_extra={"safety_cap": True})
    max_scene_reentries: int = Field(
        10, ge=0, le=99, description="HOUSE safety: entries into an already visited scene (allow_backtrack or a "
                                     "revisitable scene) per session; then only unvisited scenes are candidates",
        json_schema_extra={"safety_cap": True})
    loot_fragment_mode: Literal["copy", "move"] = Field("copy", description="AMB-28")
    incapacitated_can_share: bool = Field(False, description="AMB-31")
    shock_on_incapacitated: Literal["skip", "auto_fail"] = Field("skip", description="AMB-39")
    ending_precedence: Literal["death_first", "missing_first"] = Field("death_first", description="AMB-18")
    respec_requires_unspent_ap: bool = Field(True, description="AMB-44")
    memorialize_timing: Literal["between_sessions", "anytime"] = Field(
        "between_sessions", description="AMB-42: anytime = also as a free action during the session")
    max_item_name_vetoes: int = Field(3, ge=0, le=20, description="HOUSE safety: rename demands of the GM per PC "
                                                                  "(gm.item_name_veto)",
                                      json_schema_extra={"safety_cap": True})
    sp_outside_combat: Literal["ignore"] = Field("ignore", description="AMB-27")
    dart_timing: Literal["climax", "combat_only"] = Field("climax", description="AMB-30")

    @field_validator("ability_rows")
    @classmethod
    def _rows(cls, v):
        if v is not None:
            ids = [a.id for row in v for a in row]
            if len(set(ids)) != len(ids):
                raise ValueError("ability_rows: an ability id is used twice")
        return v

    @field_validator("abnormality_list")
    @classmethod
    def _abn(cls, v):
        if v is not None:
            ids = [a.id for a in v]
            if len(set(ids)) != len(ids):
                raise ValueError("abnormality_list: an id is used twice")
            for lv in range(1, 6):
                faces = sorted(a.face for a in v if a.level == lv)
                if faces != [1, 2, 3, 4]:
                    raise ValueError(f"abnormality_list: level {lv} needs faces 1..4 exactly once (has {faces})")
        return v
