"""The table of 「A」 (rules/a_game.md §3, §4): characters without numbers, their success elements with usage counts,
the game's bans and the campaign's blacklist, the scene and its turn, check records and precedents.

Plain dataclasses with a ``snap()`` for snapshots (``trpg examples`` paths read them: ``table.pcs.yagami.usage.空手``).
Every change goes through the game's logged setters (``base.GameBase``), never directly from rules code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["Element", "Precedent", "Declaration", "Character", "CheckRecord", "SceneState", "Table", "Tally"]


@dataclass
class Element:
    """One registered success element (§4.1): a word or short phrase, its HOUSE categories (§9.7) and its usage."""

    id: str
    name: str
    key: str  # normalized name (§9.9)
    categories: list[str]
    order: int  # registration order on the table (ties: earliest registered, D33/D34)
    registered_at: str  # "g1:creation", "g1:s2:t5", "g1:between1", "g1:post"
    usage: int = 0
    #: categories of the checks it was used in this game (D31's set U)
    used_in: list[str] = field(default_factory=list)

    def snap(self, banned: bool = False) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "categories": list(self.categories), "usage": self.usage,
                "used_in": list(self.used_in), "banned": banned, "registered_at": self.registered_at,
                "order": self.order}

    def sheet(self) -> dict[str, Any]:
        """What a campaign carries (usage counts reset at game start)."""
        return {"id": self.id, "name": self.name, "categories": list(self.categories),
                "registered_at": self.registered_at, "order": self.order}


@dataclass
class Precedent:
    """§5.9, §7.9: a recorded check whose handling the SD must repeat when it is invoked (dice never copied)."""

    id: str
    by: str
    game: int
    check: str
    actor: str
    category: str
    target: str
    action: str
    difficulty: int
    temporaries: list[str]
    reverse: list[str]
    elements: list[str]

    def snap(self) -> dict[str, Any]:
        return {"id": self.id, "by": self.by, "game": self.game, "check": self.check, "actor": self.actor,
                "category": self.category, "target": self.target, "action": self.action,
                "difficulty": self.difficulty, "temporaries": list(self.temporaries), "reverse": list(self.reverse),
                "elements": list(self.elements)}


@dataclass
class Declaration:
    """§3-1 行動宣言 (D06), locked at the end of the declaration phase (A30)."""

    pc: str
    turn: int
    target: str  # "goal" | "other" | "sdc:<id>" | "pc:<id>"
    category: str
    elements: list[str]  # element ids, in sheet order
    text: str
    hp_a: bool = False
    decisive: bool = False
    precedent: str | None = None
    dur: int = 1
    continued: bool = False
    completes: int = 0  # the turn of its (last) check
    cancelled: bool = False
    #: continued_check_mode=every_turn: the turns whose check is done
    checked: list[int] = field(default_factory=list)
    #: an SDC's action (D12): opposed by its target
    opposed: bool = False
    sdc: bool = False
    #: an SDC action's preset difficulty (scenario sdc_actions)
    difficulty: int | None = None

    @property
    def goal(self) -> bool:
        return self.target == "goal"

    def snap(self) -> dict[str, Any]:
        return {"pc": self.pc, "turn": self.turn, "target": self.target, "category": self.category,
                "elements": list(self.elements), "text": self.text, "hp_a": self.hp_a, "decisive": self.decisive,
                "precedent": self.precedent, "dur": self.dur, "continued": self.continued,
                "completes": self.completes, "cancelled": self.cancelled, "sdc": self.sdc, "opposed": self.opposed}


@dataclass
class Tally:
    """A PC's record in the current scene, for the cast review (D29) and the hero point award (D30)."""

    declared: int = 0  # own declared/continued checks resolved
    cooperations: int = 0  # approved cooperations
    successes: int = 0  # own declared/continued checks whose final result is success
    opposed_vs_pc: int = 0  # opposed checks it was the actor of, the opposing side a PC
    circle_turns: int = 0  # turns of the scene in which it had ○ (and was not busy)

    def snap(self) -> dict[str, int]:
        return {"declared": self.declared, "cooperations": self.cooperations, "successes": self.successes,
                "opposed_vs_pc": self.opposed_vs_pc, "circle_turns": self.circle_turns}


@dataclass
class Character:
    """A PC (player character: cast, background, elements, hero points) or an SDC (an NPC the SD runs)."""

    id: str
    name: str
    kind: str  # "pc" | "sdc"
    player: str = ""
    seat: int = 0
    cast: str | None = None
    background: str = ""
    hp: int = 0
    elements: list[Element] = field(default_factory=list)
    opposes: bool = False
    secret: str = ""
    created_this_turn: int = 0
    acted: bool = False
    busy_until: int | None = None
    precedents: list[Precedent] = field(default_factory=list)
    next_element: int = 1
    tally: Tally = field(default_factory=Tally)
    decisive_left: int = 0

    @property
    def is_pc(self) -> bool:
        return self.kind == "pc"

    def element(self, eid: str) -> Element | None:
        return next((e for e in self.elements if e.id == eid), None)

    def by_key(self, key: str) -> Element | None:
        return next((e for e in self.elements if e.key == key), None)

    def snap(self, banned: set[str]) -> dict[str, Any]:
        d: dict[str, Any] = {
            "id": self.id, "name": self.name, "kind": self.kind,
            "elements": [e.snap(e.key in banned) for e in self.elements],
            "usage": {e.name: e.usage for e in self.elements},
        }
        if self.is_pc:
            d.update({"player": self.player, "seat": self.seat, "cast": self.cast, "background": self.background,
                      "hp": self.hp, "created_this_turn": self.created_this_turn, "acted": self.acted,
                      "busy_until": self.busy_until, "precedents": [p.snap() for p in self.precedents],
                      "tally": self.tally.snap(), "decisive_left": self.decisive_left})
        else:
            d.update({"opposes": self.opposes})
        return d


@dataclass
class CheckRecord:
    """One resolved 行動判定 (§5.3): what was used, how the dice fell, the result; its history when hero point effect
    B voided and redid it (§5.8)."""

    id: str
    game: int
    scene: int
    turn: int
    kind: str  # declared | continued | passive | sdc
    actor: str
    category: str
    target: str
    goal: bool
    action: str
    difficulty: int = 0
    opposed_by: str | None = None
    opponent: dict[str, Any] | None = None
    first: str | None = None  # who rolled first in an opposed check
    elements: list[str] = field(default_factory=list)  # names confirmed (own)
    temporaries: list[str] = field(default_factory=list)
    reverse: list[str] = field(default_factory=list)
    contributions: list[dict[str, str]] = field(default_factory=list)  # {pc, element}
    modifiers: list[str] = field(default_factory=list)  # 【専門家修正】 / 【おちゃめ】 applied
    n: int = 0
    fixed: int = 0
    rolled: list[int] = field(default_factory=list)
    batches: list[list[int]] = field(default_factory=list)
    total: int = 0
    auto_fail: bool = False
    raw: str = ""  # the first roll's result (before greed and hero points)
    rolled_result: str = ""  # after greed, before hero points
    result: str = ""  # final
    hp_a: bool = False
    decisive: bool = False
    event: str = ""  # the id of its current check event (k1, ...)
    history: list[dict[str, Any]] = field(default_factory=list)
    b_targeted: int = 0
    precedent: str | None = None
    deviated: str | None = None
    #: D24: the SD ruled this intermediate result a step toward the goal
    progress: bool = False

    def snap(self) -> dict[str, Any]:
        return {
            "id": self.id, "game": self.game, "scene": self.scene, "turn": self.turn, "kind": self.kind,
            "actor": self.actor, "category": self.category, "target": self.target, "goal": self.goal,
            "action": self.action, "difficulty": self.difficulty, "opposed_by": self.opposed_by,
            "opponent": dict(self.opponent) if self.opponent else None, "first": self.first,
            "elements": list(self.elements), "temporaries": list(self.temporaries), "reverse": list(self.reverse),
            "contributions": [dict(c) for c in self.contributions], "modifiers": list(self.modifiers),
            "n": self.n, "fixed": self.fixed, "rolled": list(self.rolled), "batches": [list(b) for b in self.batches],
            "total": self.total, "auto_fail": self.auto_fail, "raw": self.raw, "rolled_result": self.rolled_result,
            "result": self.result, "hp_a": self.hp_a, "decisive": self.decisive, "event": self.event,
            "history": [dict(h) for h in self.history], "b_targeted": self.b_targeted,
            "precedent": self.precedent, "deviated": self.deviated, "progress": self.progress,
        }

    def view(self) -> dict[str, Any]:
        """What a seat is shown of a check: its current result (a voided roll is gone from every view, §5.8)."""
        d = {"id": self.id, "scene": self.scene, "turn": self.turn, "actor": self.actor, "category": self.category,
             "target": self.target, "goal": self.goal, "difficulty": self.difficulty, "n": self.n,
             "total": self.total, "result": self.result}
        if self.b_targeted:
            d["retconned"] = True
        if self.opposed_by:
            d["opposed_by"] = self.opposed_by
        return d


@dataclass
class SceneState:
    """The scene being played (§6 scene_intro … scene_end): its goal as the SD framed it (D05), turn, progress."""

    index: int
    id: str
    title: str
    goal_text: str
    category: str
    difficulty: int
    mode: str
    required: int
    decisive: bool
    turn_duration: str
    turn: int = 0
    successes: int = 0
    achieved: bool = False
    declarations: list[Declaration] = field(default_factory=list)
    judged: bool = False  # gm_judgement: the SD ruled the goal achieved (D25)

    def snap(self) -> dict[str, Any]:
        return {"index": self.index, "id": self.id, "title": self.title,
                "goal": {"text": self.goal_text, "category": self.category, "difficulty": self.difficulty,
                         "mode": self.mode, "required_successes": self.required, "decisive": self.decisive},
                "turn_duration": self.turn_duration, "turn": self.turn, "successes": self.successes,
                "achieved": self.achieved, "declarations": [d.snap() for d in self.declarations]}


@dataclass
class Table:
    game_no: int = 1
    chars: dict[str, Character] = field(default_factory=dict)
    banned: set[str] = field(default_factory=set)  # normalized names banned this game (§7.11)
    bans_next: list[str] = field(default_factory=list)
    blacklist: list[str] = field(default_factory=list)  # normalized names (campaign, §7.7)
    records: list[CheckRecord] = field(default_factory=list)
    facts: dict[str, str] = field(default_factory=dict)
    scene: SceneState | None = None
    outcomes: list[dict[str, Any]] = field(default_factory=list)  # one per scene played
    element_counter: int = 0
    table_created_this_turn: int = 0  # registration_limit_scope = table_turn
    next_precedent: int = 1

    def pcs(self) -> list[Character]:
        return sorted((c for c in self.chars.values() if c.is_pc), key=lambda c: c.seat)

    def sdcs(self) -> list[Character]:
        return [c for c in self.chars.values() if not c.is_pc]

    def record(self, rid: str) -> CheckRecord | None:
        return next((r for r in self.records if r.id == rid), None)

    def snap(self) -> dict[str, Any]:
        return {
            "pcs": {c.id: c.snap(self.banned) for c in self.pcs()},
            "sdcs": {c.id: c.snap(self.banned) for c in self.sdcs()},
        }
