"""夜狩り人 table state: characters (PCs, NPCs, enemies), items they hold, the battlefield (rules/yogaribito.md §4.2).

Plain dataclasses with ``snap()`` for snapshots. Rules never live here: the game mixins change these objects and
log every change as a ``state`` event (``YogaribitoGame.set``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "ABILITY_IDS", "POOL_STATS", "SLOT_IDS", "HAND_SLOTS", "STATUS_IDS",
    "ItemState", "Character", "Battlefield", "Table",
]

#: check abilities
ABILITY_IDS = ("mind", "tech", "body")
#: every stat with a base and a current value (kagaribi has a current value only: its base is fixed at 6)
POOL_STATS = ("mind", "tech", "body", "life", "soul", "luck", "wealth", "bullets")
SLOT_IDS = ("right_hand", "left_hand", "armor", "accessory")
HAND_SLOTS = ("right_hand", "left_hand")
#: bad statuses of §7.9 that a character can carry (incapacitated and dead are flags of their own)
STATUS_IDS = ("weapon_sealed", "magic_sealed", "poison", "curse", "brand", "bound", "paralysis", "fear")


@dataclass(slots=True)
class ItemState:
    """One item a character owns (§4.2: id, stocked|purchased, slot, sealed, uses left)."""

    uid: str  # unique per character: "<item id>" or "<item id>#2" for a second copy
    item: str  # item id (arms.ITEMS)
    origin: str = "stocked"  # stocked | purchased | found
    slot: str | None = None  # equipped slot; two-handed items: "right_hand" (and occupy both hands)
    uses_left: int | None = None  # consumables: 1; None = not consumed

    def snap(self) -> dict[str, Any]:
        return {"uid": self.uid, "item": self.item, "origin": self.origin, "slot": self.slot,
                "uses_left": self.uses_left}


@dataclass(slots=True)
class Character:
    id: str
    name: str
    side: str  # pc | gm  (GM side = NPCs and enemies)
    kind: str = "pc"  # pc | npc | enemy
    main_class: str | None = None  # class id (enemies: None, or a class whose feature they have)
    sub_class: str | None = None
    base: dict[str, int] = field(default_factory=dict)  # POOL_STATS (bullets only for witch hunters)
    current: dict[str, int] = field(default_factory=dict)  # POOL_STATS + "kagaribi"
    feats: list[str] = field(default_factory=list)
    items: list[ItemState] = field(default_factory=list)
    #: slot -> usable (痛打表 rows 2–5 make a slot unusable until combat end); enemies list only the parts they have
    slots_usable: dict[str, bool] = field(default_factory=lambda: {s: True for s in SLOT_IDS})
    slots_used_this_scenario: dict[str, bool] = field(default_factory=lambda: {s: False for s in SLOT_IDS})
    has_legs: bool = True
    legs_broken: bool = False
    #: status id -> inflicter ids (curse/brand end when all inflicters are down or release it); other statuses: []
    statuses: dict[str, list[str]] = field(default_factory=dict)
    sealed_item: str | None = None  # the item uid made unusable by 武器封じ
    awakened: bool = False
    awaken_eligible: bool = True
    doomed: bool = False
    dead: bool = False
    incapacitated: bool = False
    flying: bool = False
    blockading: str | None = None  # engagement id
    psychic_focus: int = 0  # -1 | 0 | +1
    attacks_received_this_round: int = 0
    delaying: bool = False
    in_scene: bool = False
    social_check_used: bool = False
    #: feat id -> uses in the current round / scene / scenario (reset by the matching end processing)
    uses_round: dict[str, int] = field(default_factory=dict)
    uses_scene: dict[str, int] = field(default_factory=dict)
    uses_scenario: dict[str, int] = field(default_factory=dict)
    #: effects pending until a moment: e.g. {"id": "all_out_attack", "until": "turn"} / {"id": "blessing", ...}
    effects: list[dict[str, Any]] = field(default_factory=list)
    shaman_patron: dict[str, Any] | None = None  # {name, favored_tags, disfavored_tags}
    tags: list[str] = field(default_factory=list)  # enemies: unholy_being, supernatural_being, human...
    xp_spent: int = 0
    xp_unspent: int = 0
    stock_points: int = 0  # at creation; banked stock points afterwards (AMB-40)
    lifepath: dict[str, Any] = field(default_factory=dict)  # origin, purpose, encounter, encounter_npc
    creation: dict[str, Any] = field(default_factory=dict)  # the creation record (dice, assignment, bonus)
    profile: str = ""
    #: what only this character (and the GM) knows (NPCs' secrets); never in snap()
    secret: str = ""
    player: str | None = None  # the player who plays this PC (XP is per player, §7.11.1)
    sample: str | None = None  # sample character id when quickplay

    # -- derived -----------------------------------------------------------------------------------------------
    @property
    def is_pc(self) -> bool:
        return self.side == "pc"

    @property
    def able(self) -> bool:
        """Can act: neither 戦闘不能 nor 死亡."""
        return not (self.dead or self.incapacitated)

    def has(self, status: str) -> bool:
        return status in self.statuses

    def item(self, uid: str) -> ItemState | None:
        for it in self.items:
            if it.uid == uid:
                return it
        return None

    def equipped(self) -> list[ItemState]:
        return [it for it in self.items if it.slot is not None]

    def snap(self) -> dict[str, Any]:
        return {
            "id": self.id, "name": self.name, "side": self.side, "kind": self.kind,
            "main_class": self.main_class, "sub_class": self.sub_class,
            "base": dict(self.base), "current": dict(self.current),
            "feats": list(self.feats), "items": [it.snap() for it in self.items],
            "slots_usable": dict(self.slots_usable), "slots_used_this_scenario": dict(self.slots_used_this_scenario),
            "has_legs": self.has_legs, "legs_broken": self.legs_broken,
            "statuses": {k: list(v) for k, v in self.statuses.items()}, "sealed_item": self.sealed_item,
            "awakened": self.awakened, "awaken_eligible": self.awaken_eligible, "doomed": self.doomed,
            "dead": self.dead, "incapacitated": self.incapacitated, "flying": self.flying,
            "blockading": self.blockading, "psychic_focus": self.psychic_focus,
            "attacks_received_this_round": self.attacks_received_this_round, "delaying": self.delaying,
            "in_scene": self.in_scene, "social_check_used": self.social_check_used,
            "uses_round": dict(self.uses_round), "uses_scene": dict(self.uses_scene),
            "uses_scenario": dict(self.uses_scenario), "effects": [dict(e) for e in self.effects],
            "shaman_patron": dict(self.shaman_patron) if self.shaman_patron else None, "tags": list(self.tags),
            "xp_spent": self.xp_spent, "xp_unspent": self.xp_unspent, "stock_points": self.stock_points,
            "lifepath": dict(self.lifepath), "player": self.player, "sample": self.sample, "profile": self.profile,
        }


@dataclass(slots=True)
class Battlefield:
    """§7.4: a partition of the combatants into engagements (ids "E1", "E2", ...), in a stable order."""

    engagements: dict[str, list[str]] = field(default_factory=dict)  # engagement id -> character ids
    next_id: int = 1
    round: int = 0
    order: list[str] = field(default_factory=list)  # this round's initiative order
    acted: list[str] = field(default_factory=list)
    #: combatants that left the battlefield (escape, §11.6)
    gone: list[str] = field(default_factory=list)

    def where(self, cid: str) -> str | None:
        for eid, members in self.engagements.items():
            if cid in members:
                return eid
        return None

    def new_engagement(self) -> str:
        while f"E{self.next_id}" in self.engagements:
            self.next_id += 1
        eid = f"E{self.next_id}"
        self.engagements[eid] = []
        self.next_id += 1
        return eid

    def move(self, cid: str, dest: str) -> None:
        src = self.where(cid)
        if src is not None:
            self.engagements[src].remove(cid)
            if not self.engagements[src]:
                del self.engagements[src]
        self.engagements.setdefault(dest, []).append(cid)

    def snap(self) -> dict[str, Any]:
        return {"engagements": {k: list(v) for k, v in self.engagements.items()}, "round": self.round,
                "order": list(self.order), "acted": list(self.acted), "gone": list(self.gone)}


@dataclass(slots=True)
class Table:
    chars: dict[str, Character] = field(default_factory=dict)  # roster order: PCs first, in sheet order
    battlefield: Battlefield | None = None
    phase: str = "preplay"
    scene_id: str | None = None
    time_of_day: str = "none"  # day | night | none
    env_tags: list[str] = field(default_factory=list)
    present: list[str] = field(default_factory=list)  # characters in the current scene (PCs and GM side)
    previous_scene_pcs: list[str] = field(default_factory=list)
    concentration: bool = False  # a psychic concentration situation is open (D22)
    disclosed: list[str] = field(default_factory=list)  # info ids disclosed to the PCs

    def pcs(self) -> list[Character]:
        return [c for c in self.chars.values() if c.is_pc]

    def gm_side(self) -> list[Character]:
        return [c for c in self.chars.values() if not c.is_pc]

    def snap(self) -> dict[str, Any]:
        return {
            "chars": {k: c.snap() for k, c in self.chars.items()},
            "battlefield": self.battlefield.snap() if self.battlefield else None,
            "phase": self.phase, "scene_id": self.scene_id, "time_of_day": self.time_of_day,
            "env_tags": list(self.env_tags), "present": list(self.present),
            "previous_scene_pcs": list(self.previous_scene_pcs), "concentration": self.concentration,
            "disclosed": list(self.disclosed),
        }
