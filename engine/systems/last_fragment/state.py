"""The table of ラストフラグメント (rules/last_fragment.md §3, §4): characters with their sheets and resources,
fragment holders, scenes visited and revealed, investigation attempts, flags, the combat.

Plain dataclasses with a ``snap()`` for snapshots (``trpg examples`` paths read them: ``table.chars.aoi.tokens``).
Every change goes through the game's logged setters (``base.GameBase``), never directly from rules code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["Abn", "Char", "Table"]


@dataclass
class Abn:
    """One abnormality held (§7.7): its id, the level it was drawn at, whether its dart was used this climax."""

    id: str
    level: int
    dart_used: bool = False

    def snap(self) -> dict[str, Any]:
        return {"id": self.id, "level": self.level, "dart_used": self.dart_used}


@dataclass
class Char:
    id: str
    name: str
    kind: str  # pc | npc | enemy
    seat: int = 0
    title: str = ""
    #: bought levels (能力/知識); NPCs and enemies may give a 異能 level (B.4 "derived unless given")
    abilities: dict[str, int] = field(default_factory=dict)
    max_hp: int = 20
    hp: int = 20
    incapacitated: bool = False
    skills: list[str] = field(default_factory=lambda: ["tsuujou_kougeki"])
    items: list[str] = field(default_factory=list)
    tokens: int = 0
    abnormalities: list[Abn] = field(default_factory=list)
    #: target id → bond type id (one directed bond per pair, AMB-10)
    bonds: dict[str, str] = field(default_factory=dict)
    bp_used: list[str] = field(default_factory=list)
    ap_total: int = 0
    ap_unspent: int = 0
    skill_slots: int = 0
    memories: list[str] = field(default_factory=list)
    personal_used: int = 0
    withdrawn: bool = False
    sp: int = 0
    sp_left: int = 0
    used_round: list[str] = field(default_factory=list)
    used_scene: list[str] = field(default_factory=list)
    double_active: bool = False
    dice_bonus: int = 0
    hostile: bool = False
    #: the handouts this PC was given (texts as the table reads them), in scenario order
    handouts: list[str] = field(default_factory=list)
    #: secret fragments this character was handed before play (origin holder)
    secrets: list[str] = field(default_factory=list)
    #: secret ability announced at first appearance (secret_ability_announced_at_opening)
    announced: str | None = None
    survived: int = 0
    ending: str | None = None
    combatant: bool = False

    def __post_init__(self) -> None:
        #: a PC (its kind never changes): a plain attribute, not a field (read thousands of times a session)
        self.is_pc: bool = self.kind == "pc"

    @property
    def abnormality_level(self) -> int:
        return len(self.abnormalities)

    def snap(self) -> dict[str, Any]:
        return {
            "id": self.id, "name": self.name, "kind": self.kind, "seat": self.seat, "title": self.title,
            "abilities": dict(self.abilities), "hp": self.hp, "max_hp": self.max_hp,
            "incapacitated": self.incapacitated, "skills": list(self.skills), "items": list(self.items),
            "tokens": self.tokens, "abnormalities": [a.id for a in self.abnormalities],
            "abnormality_level": self.abnormality_level, "darts_used": [a.id for a in self.abnormalities if a.dart_used],
            "bonds": dict(self.bonds), "bond_count": len(self.bonds), "bond_powers_used": list(self.bp_used),
            "ap_total": self.ap_total, "ap_unspent": self.ap_unspent, "skill_slots": self.skill_slots,
            "memories": list(self.memories), "personal_scenes_used": self.personal_used, "withdrawn": self.withdrawn,
            "sp": self.sp, "sp_left": self.sp_left, "double_active": self.double_active, "dice_bonus": self.dice_bonus,
            "ending": self.ending, "survived": self.survived,
        }


@dataclass
class Table:
    chars: dict[str, Char] = field(default_factory=dict)
    #: fragment id → holder ids in the order they acquired it
    holders: dict[str, list[str]] = field(default_factory=dict)
    visited: list[str] = field(default_factory=list)
    forced: list[str] = field(default_factory=list)
    #: entries into a scene already visited (backtracking or a revisitable scene), capped by max_scene_reentries
    reentries: int = 0
    scene: str | None = None
    scene_type: str = "daily"
    #: refs (objects, loose items, NPCs) revealed in the current scene
    revealed: list[str] = field(default_factory=list)
    #: NPCs and enemies that have appeared to the PCs so far (revealed in a scene, or in the climax): only these
    #: are on the table a PC's view shows (a character the scenario holds back is not announced by its sheet)
    met: list[str] = field(default_factory=list)
    #: loose items revealed and not yet taken
    loose: list[str] = field(default_factory=list)
    attempts: list[str] = field(default_factory=list)  # "investigator>target"
    #: target → True once investigated successfully by someone, False if only failed attempts
    investigated: dict[str, bool] = field(default_factory=dict)
    flags: list[str] = field(default_factory=list)
    fired: list[str] = field(default_factory=list)
    phase: str = "setup"
    session_no: int = 1
    round: int = 0
    cycle: int = 0
    winner: str | None = None
    losers: list[str] = field(default_factory=list)
    scene_time: int | None = None
    #: PCs who do not appear in the current scene (all_pcs_in_every_scene = false: the GM's gm.scene_appearance)
    absent: list[str] = field(default_factory=list)

    def pcs(self) -> list[Char]:
        return [c for c in self.chars.values() if c.is_pc]

    def others(self) -> list[Char]:
        return [c for c in self.chars.values() if not c.is_pc]

    def snap(self) -> dict[str, Any]:
        return {
            "chars": {k: c.snap() for k, c in self.chars.items()},
            "holders": {k: list(v) for k, v in self.holders.items()},
            "visited": list(self.visited), "scene": self.scene, "scene_type": self.scene_type,
            "revealed": list(self.revealed), "met": list(self.met), "loose": list(self.loose),
            "attempts": list(self.attempts), "investigated": dict(self.investigated),
            "flags": list(self.flags), "phase": self.phase, "session_no": self.session_no, "round": self.round,
            "winner": self.winner, "losers": list(self.losers),
            **({"absent": list(self.absent)} if self.absent else {}),
        }
