"""Scenario file model for 夜狩り人 (rules/yogaribito.md §6, §7.1, §7.2, §11.6–§11.8). Published as JSON Schema by
``trpg schema yogaribito``.

A scenario lists its PCs (sample characters or full sheets, or ``creation`` to build them at the table), NPCs for
social checks, enemies (§11.7 data, renamed or tuned), information with achievement tiers, and scenes grouped in
the four phases. Cross-references (scene players, NPCs, enemies, info ids, items) are checked here, so ``trpg
validate`` names the field of a broken reference.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from ...core.scenario import ScenarioBase
from .arms import ENEMIES, ITEMS
from .config import YogaribitoConfig
from .creation import SAMPLE_PCS, YogaribitoPCSheet, sheet_problems
from .data import CLASSES
from .state import POOL_STATS

__all__ = [
    "YogaribitoScenario", "NPCData", "EnemyRef", "InfoData", "InfoTier", "SceneData", "EntryData", "SceneCheck",
    "CombatData", "CreationRules", "PHASES", "ENV_TAGS",
]

ID = r"^[a-z][a-z0-9_]*$"
#: the largest base value a scenario may give an enemy (the strongest enemy of the data has 15 命): larger values
#: make fights that never end
MAX_BASE = 99
PHASES = ("opening", "middle", "climax", "ending")
Ability = Literal["mind", "tech", "body"]
#: §7.1 tag vocabulary (scenarios may add their own; these are the ones rules react to)
ENV_TAGS = ("holy", "unholy", "nature", "outdoors", "indoors", "urban", "water", "sunlight", "open_field", "confined",
            "school")


class _M(BaseModel):
    model_config = ConfigDict(extra="forbid")


class NPCData(_M):
    """A non-combat NPC the PCs can negotiate with (§7.2; D55 picks its ability in opposed social checks)."""

    id: str = Field(pattern=ID)
    name: str = Field(min_length=1)
    description: str = ""
    secret: str = Field("", description="GM-only text (never shown to PCs)")
    abilities: dict[str, int] = Field(default_factory=lambda: {"mind": 2, "tech": 2, "body": 2},
                                      description="mind, tech, body (0..20)")
    opposed: bool = Field(False, description="negotiation with this NPC is an opposed check (the NPC is passive)")
    on_success: str = Field("", description="narration when a negotiation succeeds")
    gives_info: str | None = Field(None, description="info id disclosed (tier 1) when a negotiation succeeds")

    @field_validator("abilities")
    @classmethod
    def _positive(cls, v: dict[str, int]) -> dict[str, int]:
        for k, x in v.items():
            if k not in ("mind", "tech", "body"):
                raise ValueError(f"unknown ability {k!r}; an NPC has mind, tech and body")
            if not 0 <= x <= 20:
                raise ValueError(f"ability {k} must be 0..20, got {x}")
        return v


class EnemyRef(_M):
    """An enemy of the scenario: §11.7 data (``enemy``) under its own id and name, optionally tuned."""

    id: str = Field(pattern=ID)
    enemy: str = Field(description="enemy data id (ghoul, cult_sorcerer, vampire_count)")
    name: str | None = None
    base: dict[str, int] = Field(default_factory=dict, description="overrides of base values (mind, life, ...): "
                                 f"{', '.join(POOL_STATS)}, each 0..{MAX_BASE}")
    awaken: bool | None = Field(None, description="GM designation: may this enemy awaken (default: the data's)")

    @field_validator("base")
    @classmethod
    def _base(cls, v: dict[str, int]) -> dict[str, int]:
        for k, n in v.items():
            if k not in POOL_STATS:
                raise ValueError(f"unknown value {k[:40]!r}; known: {', '.join(POOL_STATS)}")
            if not 0 <= n <= MAX_BASE:
                raise ValueError(f"{k} = {n} is out of range: 0..{MAX_BASE}")
        return v

    @field_validator("enemy")
    @classmethod
    def _known(cls, v: str) -> str:
        if v not in ENEMIES:
            raise ValueError(f"unknown enemy {v!r}; known: {', '.join(ENEMIES)}")
        return v


class InfoTier(_M):
    min_achievement: int = Field(ge=1, le=10)
    text: str = Field(min_length=1)


class InfoData(_M):
    """Information the PCs can gather (§7.2, D23): tiers by achievement (≥1 base, ≥2 more detail)."""

    id: str = Field(pattern=ID)
    topic: str = Field(min_length=1, description="what a PC asks about (shown in the options)")
    ability: Ability | Literal["mind_or_tech"] = Field("mind_or_tech", description="the GM's choice by default")
    target: int = Field(1, ge=1, le=10)
    tiers: list[InfoTier] = Field(min_length=1)

    @model_validator(mode="after")
    def _ordered(self) -> InfoData:
        mins = [t.min_achievement for t in self.tiers]
        if mins != sorted(set(mins)):
            raise ValueError("tiers must have increasing, distinct min_achievement values")
        return self


class EntryData(_M):
    """§7.1 entry: open (anyone may appear), check (an entry check), scene_player_only."""

    mode: Literal["open", "check", "scene_player_only"] = "open"
    ability: Ability | Literal["choice"] = Field("body", description="choice: the player picks (D56)")
    target: int = Field(1, ge=0, le=10)


class Damage(_M):
    stat: Literal["life", "soul"] = "life"
    amount: int = Field(ge=0, le=30)


class SceneCheck(_M):
    """A check the GM calls in a scene (D19), with what happens after."""

    id: str = Field(pattern=ID)
    label: str = Field(min_length=1)
    who: Literal["scene_player", "each_present"] | str = "scene_player"
    ability: Ability
    target: int = Field(1, ge=0, le=10)
    on_success: str = ""
    on_failure: str = ""
    failure_damage: Damage | None = Field(None, description="a penalty on failure (§9.12: life/soul damage)")
    reveals: str | None = Field(None, description="info id disclosed (tier by achievement) on success")


class CombatData(_M):
    enemies: list[str] = Field(min_length=1, description="enemy ids of the scenario")
    layout: dict[str, list[str]] | None = Field(
        None, description="engagement id -> character ids; the word 'pcs' stands for every present PC "
                          "(default: PCs in one engagement, enemies in another, D29)")
    flying: list[str] = Field(default_factory=list)
    escape_allowed: bool = False
    objective: bool = Field(False, description="winning this fight achieves the scenario objective")
    on_win: str = ""
    on_lose: str = ""


class SceneData(_M):
    id: str = Field(pattern=ID)
    phase: Literal["opening", "middle", "climax", "ending"]
    title: str = Field(min_length=1)
    text: str = Field("", description="GM narration when the scene opens")
    scene_player: str | None = Field(None, description="PC id; 'any' = the GM picks a living PC; omit for master")
    master: bool = Field(False, description="a master scene: no PCs, narration only")
    time_of_day: Literal["day", "night", "none"] = "none"
    tags: list[str] = Field(default_factory=list)
    entry: EntryData = Field(default_factory=EntryData)
    optional: bool = Field(False, description="the GM may skip it")
    checks: list[SceneCheck] = Field(default_factory=list)
    info: list[str] = Field(default_factory=list, description="info ids the PCs can investigate here")
    npcs: list[str] = Field(default_factory=list, description="NPC ids present (negotiation partners)")
    shop: bool = Field(True, description="purchase checks are possible in this scene")
    combat: CombatData | None = None
    concentration: bool = Field(False, description="a psychic concentration situation opens in this scene (D22)")
    closing: str = Field("", description="narration when the scene closes")

    @model_validator(mode="after")
    def _master(self) -> SceneData:
        if self.master and (self.scene_player or self.combat or self.checks):
            raise ValueError("a master scene has no scene player, no checks and no combat")
        if not self.master and not self.scene_player:
            raise ValueError("scene_player is required (a PC id or 'any') unless master: true")
        return self


class CreationRules(_M):
    pc_count: int = Field(2, ge=1, le=6)
    suggested_classes: list[str] = Field(default_factory=list, description="D05 default per PC, in order")
    allow_common: bool = Field(False, description="D06: the GM approves コモン")
    allow_quickplay: bool = True

    @field_validator("suggested_classes")
    @classmethod
    def _known(cls, v: list[str]) -> list[str]:
        for c in v:
            if c not in CLASSES:
                raise ValueError(f"unknown class {c!r}; known: {', '.join(CLASSES)}")
        return v


class YogaribitoScenario(ScenarioBase):
    system: Literal["yogaribito"] = "yogaribito"
    objective: str = Field("", description="the scenario objective (XP: 5 or more when achieved, §7.11.1)")
    objective_xp: int = Field(5, ge=5, le=20)
    config: dict[str, Any] = Field(default_factory=dict, description="rules flags (rules/yogaribito.md §10.2)")
    pcs: list[YogaribitoPCSheet] = Field(default_factory=list)
    creation: CreationRules | None = Field(None, description="build the PCs at the table (D01–D16) instead of pcs")
    npcs: list[NPCData] = Field(default_factory=list)
    enemies: list[EnemyRef] = Field(default_factory=list)
    info: list[InfoData] = Field(default_factory=list)
    shop: list[str] | None = Field(None, description="item ids purchasable in this scenario (default: every item "
                                                     "with a purchase target)")
    scenes: list[SceneData] = Field(min_length=1)

    @field_validator("config")
    @classmethod
    def _config(cls, v: dict[str, Any]) -> dict[str, Any]:
        YogaribitoConfig(**v)
        return v

    @model_validator(mode="after")
    def _refs(self) -> YogaribitoScenario:
        if not self.pcs and self.creation is None:
            raise ValueError("pcs: give at least one PC, or a creation: section to build them at the table")
        pc_ids = [p.id for p in self.pcs] if not self.creation else [f"pc{i + 1}" for i in range(self.creation.pc_count)]
        cfg = YogaribitoConfig(**self.config)
        for k, p in enumerate(self.pcs):
            problems = sheet_problems(p.model_dump(exclude_none=True, by_alias=True), cfg=cfg)
            if problems:
                raise ValueError(f"pcs[{k}] ({p.id}) is not legal under this scenario's config: " + "; ".join(problems))
        ids: list[str] = pc_ids + [n.id for n in self.npcs] + [e.id for e in self.enemies] + ["gm"]
        dup = sorted({i for i in ids if ids.count(i) > 1})
        if dup:
            raise ValueError(f"ids used twice among pcs, npcs and enemies: {', '.join(dup)}")
        names: dict[str, list[str]] = {}
        for pc in self.pcs:  # a quickplay PC is called by its sample's name unless the sheet renames it
            name = pc.name or (SAMPLE_PCS[pc.sample].name if pc.sample is not None and pc.sample in SAMPLE_PCS else None)
            if name:
                names.setdefault(name.strip(), []).append(pc.id)
        for n in self.npcs:
            names.setdefault(n.name.strip(), []).append(n.id)
        same = [f"{n!r} ({', '.join(w)})" for n, w in names.items() if len(w) > 1]
        if same:
            raise ValueError(f"names used twice among pcs and npcs: {'; '.join(same)}; give each character its own "
                             "name (the table tells them apart by name)")
        npc_ids = {n.id for n in self.npcs}
        enemy_ids = {e.id for e in self.enemies}
        info_ids = {i.id for i in self.info}
        for n in self.npcs:
            if n.gives_info and n.gives_info not in info_ids:
                raise ValueError(f"npcs.{n.id}.gives_info: unknown info id {n.gives_info!r}")
        if self.shop is not None:
            for it in self.shop:
                if it not in ITEMS or ITEMS[it].purchase is None:
                    raise ValueError(f"shop: {it!r} is not a purchasable item")
        scene_ids = [s.id for s in self.scenes]
        if len(set(scene_ids)) != len(scene_ids):
            raise ValueError("scene ids must be unique")
        last = -1
        for s in self.scenes:
            pi = PHASES.index(s.phase)
            if pi < last:
                raise ValueError(f"scenes.{s.id}: scenes must be listed in phase order (opening, middle, climax, "
                                 f"ending)")
            last = pi
            if s.scene_player not in (None, "any") and s.scene_player not in pc_ids:
                raise ValueError(f"scenes.{s.id}.scene_player: unknown PC {s.scene_player!r}; PCs: {', '.join(pc_ids)}")
            for nid in s.npcs:
                if nid not in npc_ids:
                    raise ValueError(f"scenes.{s.id}.npcs: unknown NPC {nid!r}")
            for i in s.info:
                if i not in info_ids:
                    raise ValueError(f"scenes.{s.id}.info: unknown info id {i!r}")
            for c in s.checks:
                if c.who not in ("scene_player", "each_present") and c.who not in pc_ids:
                    raise ValueError(f"scenes.{s.id}.checks.{c.id}.who: scene_player, each_present or a PC id")
                if c.reveals and c.reveals not in info_ids:
                    raise ValueError(f"scenes.{s.id}.checks.{c.id}.reveals: unknown info id {c.reveals!r}")
            if s.combat is not None:
                for e in s.combat.enemies:
                    if e not in enemy_ids:
                        raise ValueError(f"scenes.{s.id}.combat.enemies: unknown enemy {e!r}")
                if s.combat.layout is not None:
                    seen: list[str] = []
                    for eng, members in s.combat.layout.items():
                        for m in members:
                            if m != "pcs" and m not in pc_ids and m not in s.combat.enemies:
                                raise ValueError(f"scenes.{s.id}.combat.layout.{eng}: {m!r} is neither 'pcs', a PC "
                                                 f"nor an enemy of this combat")
                            seen.append(m)
                    missing = [e for e in s.combat.enemies if e not in seen]
                    if missing:
                        raise ValueError(f"scenes.{s.id}.combat.layout: enemies not placed: {', '.join(missing)}")
        if not any(s.phase == "climax" for s in self.scenes):
            raise ValueError("scenes: a scenario needs at least one climax scene (§6)")
        return self
