"""Character creation (rules/yogaribito.md §3): steps 1–8 as decisions D01–D16, sheet validation V1–V7, samples.

Two doors lead to the same ``Character``:

* at the table, ``CreationMixin.create_character`` asks D01–D16 (kinds ``cc.*`` and ``gm.approve_common``) and
  assembles a **sheet** (the scenario file's ``pcs:`` format, ``YogaribitoPCSheet``) step by step;
* from a file, ``character_from_sheet`` builds the character from such a sheet.

Both go through ``sheet_problems`` (§3.2 V1–V7, one message per problem, naming the field) and ``_derive``, so a
sheet made at the table always loads again, and the afterplay's campaign sheets (``sheet_of``) too. Every payload
decision has a pydantic model with bounds plus a cross-field ``payload_check`` that refuses an illegal answer with
the rule's reason before anything changes.
"""

from __future__ import annotations

import functools
import itertools
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, model_validator, create_model

from .arms import ENEMIES, FEATS, ITEMS, SN_CLASSES, feats_of_list, lists_of_class
from .base import GameBase, Gen
from .config import YogaribitoConfig
from .data import (
    ABILITIES, ABILITY_NAMES, ASSIGN_ORDER, BULLETS_BASE, CLASS_IDS, CLASS_KITS, CLASSES, DEFAULT_PATRON,
    FALLBACK_THRESHOLD, FALLBACK_VALUES, FEAT_COUNTS, FEAT_XP_COST, FREE_ENTRY, HERO_BONUS, HERO_BONUS_STATS,
    KAGARIBI_MAX, LIFEPATH_KINDS, LIFEPATH_TABLE_NAMES, LIFEPATH_TABLES, MAX_COMMON_SUBSTITUTIONS, PRIMARY_ABILITY,
    ROLLED_DICE, SAMPLE_PCS, SLOTS, STOCK_POINTS_BONUS, lifepath_entry, lifepath_lookup,
    raise_steps_cost,
)
from .state import SLOT_IDS, Character, ItemState

if TYPE_CHECKING:
    from ...core.session import Session

__all__ = [
    "CreationMixin", "YogaribitoPCSheet", "CreationRecord", "SheetItem", "LifepathRecord", "PatronRecord",
    "GrowthRecord", "character_from_sheet", "sheet_problems", "sheet_of", "sample_sheet", "enemy_character",
    "feat_problems", "split_feats", "item_problems", "occupied_slots", "lifepath_problems", "default_assignment",
    "kit_for", "trimmed_kit", "default_feats", "growth_cost", "feat_xp_cost", "learnable_feats", "PATRON_TAGS",
    "RAISABLE", "new_character_session",
]

#: D08: the tag vocabulary a patron's favored/disfavored environments come from (§7.1 tags + time of day)
PATRON_TAGS: tuple[str, ...] = ("holy", "unholy", "nature", "outdoors", "indoors", "urban", "water", "sunlight",
                                "open_field", "confined", "school", "day", "night")
#: §7.11.2: what XP may raise (bullets: Witch Hunter main only; 燎 only with xp_can_raise_kagaribi)
RAISABLE: tuple[str, ...] = ("mind", "tech", "body", "life", "soul", "luck", "wealth", "bullets", "kagaribi")
SlotId = Literal["right_hand", "left_hand", "armor", "accessory"]


# ======================================================================================================================
# the sheet (scenario file ``pcs:`` entries, campaign sheets)
# ======================================================================================================================
class _M(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CreationRecord(_M):
    """§3.1 steps 1–2 as played: the six dice, the fallback, the assignment and the 6/3/1 bonus."""

    dice: list[int] = Field(min_length=ROLLED_DICE, max_length=ROLLED_DICE, description="the six d6 as rolled")
    fallback: bool | None = Field(
        None, description="sum ≤ 20: the values became 1..6 (default: yes; AMB-02 / D03)")
    assignment: dict[Literal["mind", "tech", "body", "life", "soul", "luck"], int] = Field(
        description="the six values (rolled, or 1..6) assigned one-to-one, before bonus and class (D02)")
    hero_bonus: dict[Literal["life", "soul", "luck"], int] | None = Field(
        None, description="{6,3,1} over life/soul/luck (D04; default life 6, soul 3, luck 1)")
    stock_cost: int | None = Field(
        None, ge=0, description="Σ stock costs of the items bought at creation (needed once the sheet has growth)")


class SheetItem(_M):
    item: str = Field(description="item id (§11.4)")
    slot: SlotId | None = Field(None, description="worn/held slot; a two-handed item: right_hand (uses both hands)")


class LifepathRecord(_M):
    """§3.1 step 8: entry ids of the three tables (``free`` = 任意 with a free text)."""

    origin: str | None = None
    origin_text: str = Field("", max_length=200)
    purpose: str | None = None
    purpose_text: str = Field("", max_length=200)
    encounter: str | None = None
    encounter_text: str = Field("", max_length=200)
    encounter_npc: str | None = Field(None, description="one of the entry's two NPC ids; free text for 任意")
    rolls: dict[Literal["origin", "purpose", "encounter"], list[int]] = Field(
        default_factory=dict, description="the ordered dice when rolled (first = row)")


class PatronRecord(_M):
    """D08: the シャーマニック patron (favored / disfavored situation tags)."""

    name: str = Field(min_length=1, max_length=40)
    favored_tags: list[str] = Field(min_length=1, max_length=5)
    disfavored_tags: list[str] = Field(min_length=1, max_length=5)


class GrowthRecord(_M):
    """§7.11.2: what the character's spent XP bought (kept so that the sheet can be checked and rebuilt)."""

    xp_spent: int = Field(0, ge=0)
    xp_unspent: int = Field(0, ge=0)
    raises: dict[str, int] = Field(default_factory=dict, description="ability -> steps raised by XP")
    feats: list[str] = Field(default_factory=list, description="feats learned with XP")
    item_xp: int = Field(0, ge=0, description="XP spent on stocking items")
    stock_points: int = Field(0, ge=0, description="banked stock points (AMB-40)")


class YogaribitoPCSheet(_M):
    """A PC in a scenario file: ``sample: <id>`` (quickplay, §3.4) or a full sheet (§3). Checked by §3.2 V1–V7.

    The flags that change legality (``low_roll_fallback``, ``hero_bonus_mode``, ``class_floor_mode``,
    ``returned_stock_points``, ``stock_points_recalc_on_growth``, ``xp_can_raise_kagaribi``) are taken from the
    validation context's ``config`` when given; otherwise any setting of them is accepted here and the session
    checks the sheet again with its own configuration (``character_from_sheet``).
    """

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    player: str | None = Field(None, description="the player (XP is per player, §7.11.1); default: one per PC")
    sample: str | None = Field(None, description="quickplay: a §11.5 sample id (then only personal data and lifepath)")
    name: str | None = Field(None, min_length=1, max_length=40)
    main_class: str | None = None
    sub_class: str | None = None
    gm_approved_common: bool = Field(False, description="D06: the GM approved コモン")
    creation: CreationRecord | None = None
    feats: list[str] = Field(default_factory=list, description="feats taken at creation (§3.1 step 5)")
    items: list[SheetItem] = Field(default_factory=list, description="stocked items with their slots")
    patron: PatronRecord | None = Field(None, description="シャーマニック main only (default: nature)")
    lifepath: LifepathRecord | None = None
    gender: str = Field("", max_length=20)
    age: str = Field("", max_length=20)
    profile: str = Field("", max_length=1000)
    equivalents: dict[str, str] = Field(default_factory=dict, description="相当品: feat/item id -> shown name")
    growth: GrowthRecord | None = None
    values: dict[str, int] | None = Field(
        None, description="optional: the values written on the sheet, checked against the rules (V2, V5, V6)")

    @model_validator(mode="after")
    def _legal(self, info: ValidationInfo) -> YogaribitoPCSheet:
        ctx = info.context if isinstance(info.context, Mapping) else {}
        cfg = ctx.get("config")
        if isinstance(cfg, Mapping):
            cfg = YogaribitoConfig(**cfg)
        problems = sheet_problems(self.model_dump(exclude_none=True), cfg=cfg)
        if problems:
            raise ValueError(f"PC {self.id}: " + "; ".join(problems))
        return self


# ======================================================================================================================
# pure rules: values, feats, items, lifepath, growth
# ======================================================================================================================
def rolled_values(dice: Sequence[int], fallback: bool) -> list[int]:
    return list(FALLBACK_VALUES) if fallback else list(dice)


def class_bases(pre: Mapping[str, int], main_class: str) -> tuple[dict[str, int], list[str]]:
    """Step 3 before the floor: pre-class values + main-class modifiers; returns (values, stats that are ≤ 0)."""
    mods = CLASSES[main_class].modifiers
    out = {a: pre[a] + mods.get(a, 0) for a in ABILITIES}
    return out, [a for a in ABILITIES if out[a] <= 0]


def floor_problems(pre: Mapping[str, int], main_class: str) -> list[str]:
    """class_floor_mode = reject: which bases the class would put at 0 or below (empty = legal)."""
    vals, low = class_bases(pre, main_class)
    return [f"{ABILITY_NAMES[a]} {a} would be {vals[a]}" for a in low]


def default_assignment(values: Sequence[int], main_class: str) -> dict[str, int]:
    """D02 scripted default: values sorted descending onto the class's primary ability, then life, soul, body, tech,
    mind (skipping the primary), luck last."""
    primary = PRIMARY_ABILITY[main_class]
    order = [primary] + [a for a in ASSIGN_ORDER if a != primary]
    return dict(zip(order, sorted(values, reverse=True), strict=True))


def _feat_label(fid: str) -> str:
    f = FEATS.get(fid)
    return f"{f.name} {fid}" if f else fid


def feat_lists(main_class: str, sub_class: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    return lists_of_class(main_class), lists_of_class(sub_class)


def main_feat_options(main_class: str) -> list[str]:
    """Main picks in table order: the class list, then SN common for SN classes (D09's order)."""
    return [f.id for lst in lists_of_class(main_class) for f in feats_of_list(lst)]


def sub_feat_options(main_class: str, sub_class: str) -> list[str]:
    """Sub picks: the sub class's lists; requires_main feats only when that class is the main class."""
    return [f.id for lst in lists_of_class(sub_class) for f in feats_of_list(lst)
            if not (f.requires_main and sub_class != main_class)]


def common_feat_options() -> list[str]:
    return [f.id for f in feats_of_list("common")]


def feat_problems(main_class: str, sub_class: str, main: Sequence[str], sub: Sequence[str],
                  where: str = "feats") -> list[str]:
    """§3.1 step 5 / V4 for an explicit split into main picks (incl. ≤ 1 common substitution) and sub picks."""
    out: list[str] = []
    same = main_class == sub_class
    counts = FEAT_COUNTS["same" if same else "different"]
    rule = "(§3.1 step 5, V4)"
    for fid in list(main) + list(sub):
        if fid not in FEATS:
            out.append(f"{where}: unknown feat {fid!r} {rule}")
    if out:
        return out
    every = list(main) + list(sub)
    dup = sorted({f for f in every if every.count(f) > 1})
    if dup:
        out.append(f"{where}: {', '.join(_feat_label(f) for f in dup)} taken twice (no feat may be taken twice) {rule}")
    mname, sname = CLASSES[main_class].name, CLASSES[sub_class].name
    if same:
        if len(main) + len(sub) != counts["total"]:
            out.append(f"{where}: main = sub ({mname}): exactly {counts['total']} feats from the {mname} list "
                       f"(one may be a common feat), got {len(main) + len(sub)} {rule}")
        elif sub:
            out.append(f"{where}: main = sub ({mname}): all {counts['total']} picks are main-class picks (no sub "
                       f"pick) {rule}")
    else:
        if len(main) != counts["main"] or len(sub) != counts["sub"]:
            out.append(f"{where}: main ≠ sub: exactly {counts['main']} feats from the {mname} list (one may be a "
                       f"common feat) and {counts['sub']} from the {sname} list, got {len(main)} + {len(sub)} {rule}")
    main_lists = lists_of_class(main_class)
    commons = [f for f in main if FEATS[f].list == "common"]
    for fid in main:
        f = FEATS[fid]
        if f.list == "common":
            continue
        if f.list not in main_lists:
            extra = " (SN common feats only for supernatural classes)" if f.list == "sn_common" else ""
            out.append(f"{where}: {_feat_label(fid)} is not on the {mname} list{extra} {rule}")
    if len(commons) > MAX_COMMON_SUBSTITUTIONS:
        out.append(f"{where}: at most {MAX_COMMON_SUBSTITUTIONS} common feat may replace a main-class pick, got "
                   f"{len(commons)} ({', '.join(_feat_label(f) for f in commons)}) {rule}")
    sub_lists = lists_of_class(sub_class)
    for fid in sub:
        f = FEATS[fid]
        if f.list not in sub_lists:
            why = " (a common feat may only replace a main-class pick)" if f.list == "common" else ""
            out.append(f"{where}: {_feat_label(fid)} is not on the {sname} list{why} {rule}")
        elif f.requires_main and sub_class != main_class:
            out.append(f"{where}: {_feat_label(fid)} requires {sname} as the main class {rule}")
    return out


def split_feats(main_class: str, sub_class: str, feats: Sequence[str]) -> tuple[list[str], list[str], list[str]]:
    """A flat feat list (a file sheet) → (main picks, sub picks, problems): the first legal split, else the natural
    one (a feat goes to the main picks when the main class may take it) with its problems."""
    feats = list(feats)
    if main_class == sub_class or len(feats) > 8:
        return feats, [], feat_problems(main_class, sub_class, feats, [])
    for mask in itertools.product((True, False), repeat=len(feats)):
        m = [f for f, x in zip(feats, mask, strict=True) if x]
        s = [f for f, x in zip(feats, mask, strict=True) if not x]
        if not feat_problems(main_class, sub_class, m, s):
            return m, s, []
    main_lists = lists_of_class(main_class)
    m = [f for f in feats if f in FEATS and (FEATS[f].list in main_lists or FEATS[f].list == "common")]
    s = [f for f in feats if f not in m]
    return m, s, feat_problems(main_class, sub_class, m, s)


def default_feats(main_class: str, sub_class: str) -> dict[str, list[str]]:
    """D09 scripted default: first legal feats of the main list in table order (then SN common for SN classes; a
    list too short for main = sub is completed with the first common feat, the one legal substitution), sub list
    first."""
    n = FEAT_COUNTS["same" if main_class == sub_class else "different"]
    main = (main_feat_options(main_class) + common_feat_options()[:MAX_COMMON_SUBSTITUTIONS])[: n["main"]]
    sub = [f for f in sub_feat_options(main_class, sub_class) if f not in main][: n["sub"]]
    return {"main": main, "sub": sub}


def slot_targets(item_id: str) -> tuple[str, ...]:
    """The slots an item may be assigned to (two-handed: right_hand, meaning both hands)."""
    kind = ITEMS[item_id].slots
    return {"none": (), "one_hand": ("right_hand", "left_hand"), "two_hands": ("right_hand",), "armor": ("armor",),
            "accessory": ("accessory",)}[kind]


def occupied_slots(items: Sequence[tuple[str, str | None]]) -> list[str]:
    """Slots occupied by (item, slot) pairs; a two-handed item occupies both hands (§3.1 step 6.4)."""
    out: list[str] = []
    for item, slot in items:
        if slot is None or item not in ITEMS:
            continue
        if ITEMS[item].slots == "two_hands":
            out += ["right_hand", "left_hand"]
        else:
            out.append(slot)
    return out


def item_problems(items: Sequence[tuple[str, str | None]], stock_points: int | None, where: str = "items",
                  *, check_cost: bool = True) -> list[str]:
    """§3.1 step 6 / V5: known stockable items, legal slots (≤ 1 item per slot, two-handed uses both hands), Σ stock
    costs ≤ stock points."""
    out: list[str] = []
    used: dict[str, int] = {}
    total = 0
    for k, (item, slot) in enumerate(items):
        if item not in ITEMS:
            out.append(f"{where}[{k}].item: unknown item {item!r} (§11.4)")
            continue
        d = ITEMS[item]
        if d.stock is None:
            out.append(f"{where}[{k}].item: {d.name} {item} cannot be stocked (§11.4)")
            continue
        total += d.stock
        if slot is None:
            continue
        legal = slot_targets(item)
        if slot not in legal:
            if not legal:
                out.append(f"{where}[{k}].slot: {d.name} {item} is carried, not worn (no slot) (§3.1 step 6.4, V5)")
            elif d.slots == "two_hands":
                out.append(f"{where}[{k}].slot: {d.name} {item} is two-handed: assign it to right_hand (it occupies "
                           f"both hands) (§3.1 step 6.4, V5)")
            else:
                out.append(f"{where}[{k}].slot: {d.name} {item} goes to {' or '.join(legal)}, not {slot} "
                           f"(§3.1 step 6.4, V5)")
            continue
        for s in (("right_hand", "left_hand") if d.slots == "two_hands" else (slot,)):
            if s in used:
                other = items[used[s]][0]
                out.append(f"{where}[{k}].slot: {SLOTS[s].name} {s} is already used by {where}[{used[s]}] "
                           f"({ITEMS[other].name} {other}); at most one item per slot (§3.1 step 6.4, V5)")
            else:
                used[s] = k
    if check_cost and stock_points is not None and total > stock_points:
        out.append(f"{where}: stock costs {total} exceed the stock points {stock_points} (§3.1 step 6.2, V5)")
    return out


def kit_for(main_class: str) -> list[dict[str, Any]]:
    return [{"item": k.item, "slot": k.slot, "stock": ITEMS[k.item].stock} for k in CLASS_KITS[main_class]]


def trimmed_kit(main_class: str, stock_points: int) -> list[dict[str, Any]]:
    """D10 scripted default: the class kit (§11.4) with items dropped from the end until Σ stock ≤ stock points."""
    kit = list(CLASS_KITS[main_class])
    while kit and sum(ITEMS[k.item].stock or 0 for k in kit) > stock_points:
        kit.pop()
    return [{"item": k.item, "slot": k.slot} for k in kit]


def lifepath_problems(lp: Mapping[str, Any], where: str = "lifepath") -> list[str]:
    """V7: valid table entries; 任意 has a free text; the 邂逅 NPC is one of the entry's two (free text for 任意);
    recorded dice give the recorded entry."""
    out: list[str] = []
    for kind in LIFEPATH_KINDS:
        eid = lp.get(kind)
        if eid is None:
            continue
        e = lifepath_lookup(kind, eid)
        if e is None:
            ids = ", ".join(x.id for x in LIFEPATH_TABLES[kind])
            out.append(f"{where}.{kind}: {eid!r} is not an entry of the {LIFEPATH_TABLE_NAMES[kind]} table ({ids}) "
                       f"(§9.5, V7)")
            continue
        if eid == FREE_ENTRY and not str(lp.get(f"{kind}_text") or "").strip():
            out.append(f"{where}.{kind}_text: 任意 needs a free text (§3.1 step 8, V7)")
        rolls = (lp.get("rolls") or {}).get(kind)
        if rolls is not None:
            if len(rolls) != 2 or not all(isinstance(v, int) and 1 <= v <= 6 for v in rolls):
                out.append(f"{where}.rolls.{kind}: two d6 faces expected, got {rolls!r} (§3.1 step 8)")
            else:
                got = lifepath_entry(kind, rolls[0], rolls[1])
                if got.id != eid:
                    out.append(f"{where}.rolls.{kind}: dice {rolls[0]},{rolls[1]} give {got.roll} {got.name} {got.id}, "
                               f"not {eid} (§3.1 step 8, V7)")
    enc = lp.get("encounter")
    npc = lp.get("encounter_npc")
    if enc is not None and (e := lifepath_lookup("encounter", enc)) is not None:
        if enc == FREE_ENTRY:
            if not str(npc or "").strip():
                out.append(f"{where}.encounter_npc: 任意 needs the NPC as free text (§3.1 step 8, V7)")
        elif npc is None:
            out.append(f"{where}.encounter_npc: choose one of {', '.join(f'{n} {i}' for i, n in e.npcs)} (D15, V7)")
        elif e.npc_name(npc) is None:
            out.append(f"{where}.encounter_npc: {npc!r} is not one of the two NPCs of {e.name} {enc} "
                       f"({', '.join(f'{n} {i}' for i, n in e.npcs)}) (D15, V7)")
    elif npc is not None and enc is None:
        out.append(f"{where}.encounter_npc: given without an encounter (§3.1 step 8, V7)")
    return out


def feat_xp_cost(c_main: str, c_sub: str, feat_id: str) -> int | None:
    """§7.11.2: the XP cost to learn a feat (None = the character may not learn it)."""
    f = FEATS[feat_id]
    main_lists, sub_lists = lists_of_class(c_main), lists_of_class(c_sub)
    if f.list == "common":
        return FEAT_XP_COST["common"]
    if f.list == "sn_common":
        return FEAT_XP_COST["sn_common"] if (c_main in SN_CLASSES or c_sub in SN_CLASSES) else None
    if f.list in main_lists:
        return FEAT_XP_COST["main"]
    if f.list in sub_lists and not f.requires_main:
        return FEAT_XP_COST["sub"]
    return None


def learnable_feats(c_main: str, c_sub: str, owned: Sequence[str]) -> list[tuple[str, int]]:
    """(feat id, XP cost) of every feat the character may still learn, in table order."""
    return [(fid, cost) for fid in FEATS if fid not in owned
            and (cost := feat_xp_cost(c_main, c_sub, fid)) is not None]


def growth_cost(creation_base: Mapping[str, int], raises: Mapping[str, int], feats: Sequence[str], item_xp: int,
                main: str, sub: str, raise_from_zero_cost: int = 2) -> int:
    """XP that a growth record costs: raises one step at a time from the creation base (AMB-39), feats by list."""
    total = item_xp
    for stat, n in raises.items():
        total += raise_steps_cost(creation_base.get(stat, KAGARIBI_MAX if stat == "kagaribi" else 0), n,
                                  raise_from_zero_cost)
    for fid in feats:
        total += feat_xp_cost(main, sub, fid) or 0
    return total


# ======================================================================================================================
# sheets → values (one derivation for validation and for building the character)
# ======================================================================================================================
@dataclass
class _Derived:
    problems: list[str] = field(default_factory=list)
    pre: dict[str, int] = field(default_factory=dict)  # after bonus, before class
    creation_base: dict[str, int] = field(default_factory=dict)  # at the end of creation (incl. wealth, bullets)
    base: dict[str, int] = field(default_factory=dict)  # after growth
    clamped: list[str] = field(default_factory=list)
    stock_points: int = 0
    stock_cost: int = 0
    kagaribi: int = 0
    main_feats: list[str] = field(default_factory=list)
    sub_feats: list[str] = field(default_factory=list)


def sample_sheet(sample_id: str, overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A §11.5 sample PC as a full sheet (quickplay; personal data and lifepath may be overridden)."""
    s = SAMPLE_PCS[sample_id]
    sheet: dict[str, Any] = {
        "id": "pc", "name": s.name, "main_class": s.main_class, "sub_class": s.sub_class,
        "creation": {"dice": list(s.dice), "fallback": s.fallback, "assignment": dict(s.assignment),
                     "hero_bonus": dict(s.hero_bonus)},
        "feats": list(s.feats), "items": [{"item": k.item, "slot": k.slot} for k in s.items],
    }
    if s.patron is not None:
        sheet["patron"] = dict(s.patron)
    for k, v in (overrides or {}).items():
        if k in _SAMPLE_OVERRIDES and k != "sample" and not _empty(v):
            sheet[k] = v
    return sheet


#: what a quickplay sheet may set besides the sample (§3.4: lifepath and personal data)
_SAMPLE_OVERRIDES = ("id", "sample", "name", "player", "lifepath", "gender", "age", "profile", "equivalents")


def _empty(v: Any) -> bool:
    """A field left at its default (model dumps carry them): None, False, "", [] or {}."""
    return v is None or v is False or v == "" or v == [] or v == {}


def _flag(cfg: YogaribitoConfig | None, name: str) -> Any:
    return None if cfg is None else getattr(cfg, name)


def _derive(sheet: Mapping[str, Any], cfg: YogaribitoConfig | None) -> _Derived:
    """§3.2 V1–V7 (and growth accounting) for a sheet dict. ``cfg`` None: every flag-dependent alternative is
    accepted (the scenario file's field check; the session re-checks with its configuration)."""
    d = _Derived()
    P = d.problems
    if sheet.get("sample") is not None:
        sid = sheet["sample"]
        if sid not in SAMPLE_PCS:
            P.append(f"sample: unknown sample {sid!r}; known: {', '.join(SAMPLE_PCS)} (§11.5)")
            return d
        extra = [k for k, v in sheet.items() if k not in _SAMPLE_OVERRIDES and not _empty(v)]
        if extra:
            P.append(f"{extra[0]}: not allowed with sample (quickplay changes only the lifepath and personal data, "
                     f"§3.4)")
            return d
        sheet = sample_sheet(sid, sheet)
    # -- V3 classes ----------------------------------------------------------------------------------------------
    for key in ("name", "main_class", "sub_class", "creation"):
        if sheet.get(key) is None:
            P.append(f"{key}: required for a full sheet (or give sample:)")
    if P:
        return d
    main, sub = sheet["main_class"], sheet["sub_class"]
    for key, cls in (("main_class", main), ("sub_class", sub)):
        if cls not in CLASSES:
            P.append(f"{key}: unknown class {cls!r}; known: {', '.join(CLASS_IDS)} (§9.2, V3)")
    if P:
        return d
    if "common" in (main, sub) and not sheet.get("gm_approved_common"):
        key = "main_class" if main == "common" else "sub_class"
        P.append(f"{key}: コモン needs the GM's approval (gm_approved_common: true) (D06, V3)")
    # -- V1 dice, assignment, bonus --------------------------------------------------------------------------------
    rec = sheet["creation"]
    dice = list(rec.get("dice") or [])
    if len(dice) != ROLLED_DICE or not all(isinstance(v, int) and 1 <= v <= 6 for v in dice):
        P.append(f"creation.dice: six d6 faces (1–6) expected, got {dice!r} (§3.1 step 1, V1)")
        return d
    low = sum(dice) <= FALLBACK_THRESHOLD
    fb = rec.get("fallback")
    mode = _flag(cfg, "low_roll_fallback")
    if not low and fb:
        P.append(f"creation.fallback: the dice sum {sum(dice)} > {FALLBACK_THRESHOLD}: no 1..6 fallback (§3.1 step 1, "
                 f"V1)")
        fb = False
    if low and fb is False and mode == "mandatory":
        P.append(f"creation.fallback: the dice sum {sum(dice)} ≤ {FALLBACK_THRESHOLD}: the values must be 1..6 "
                 f"(low_roll_fallback=mandatory, AMB-02, V1)")
        fb = True
    fallback = low if fb is None else bool(fb)
    values = rolled_values(dice, fallback)
    assign = dict(rec.get("assignment") or {})
    if set(assign) != set(ABILITIES):
        missing = [a for a in ABILITIES if a not in assign]
        P.append(f"creation.assignment: assign all of {', '.join(ABILITIES)} (missing {', '.join(missing)}) "
                 f"(§3.1 step 1.3, V1)")
        return d
    if Counter(assign.values()) != Counter(values):
        src = "1..6 (fallback)" if fallback else f"the dice {dice}"
        P.append(f"creation.assignment: the six values {sorted(assign.values(), reverse=True)} are not a permutation "
                 f"of {src} (§3.1 step 1.3, V1)")
    bonus = rec.get("hero_bonus")
    fixed = dict(zip(HERO_BONUS_STATS, HERO_BONUS, strict=True))
    if bonus is None:
        bonus = fixed
    elif set(bonus) != set(HERO_BONUS_STATS) or sorted(bonus.values()) != sorted(HERO_BONUS):
        P.append(f"creation.hero_bonus: use 6, 3 and 1 once each on life, soul and luck, got {dict(bonus)} "
                 f"(§3.1 step 2, V1)")
        bonus = fixed
    elif _flag(cfg, "hero_bonus_mode") == "fixed" and dict(bonus) != fixed:
        P.append(f"creation.hero_bonus: hero_bonus_mode=fixed: life +6, soul +3, luck +1, got {dict(bonus)} "
                 f"(AMB-01, V1)")
        bonus = fixed
    d.pre = {a: assign[a] + bonus.get(a, 0) for a in ABILITIES}
    # -- V2 class modifiers and the floor ---------------------------------------------------------------------------
    vals, lows = class_bases(d.pre, main)
    if lows and _flag(cfg, "class_floor_mode") == "reject":
        for a in lows:
            P.append(f"creation.assignment: with main class {CLASSES[main].name} {main}, {ABILITY_NAMES[a]} {a} would "
                     f"be {vals[a]} (class_floor_mode=reject, AMB-03, V2)")
    d.clamped = list(lows)
    base = {a: max(1, v) for a, v in vals.items()}
    # -- V4 feats ---------------------------------------------------------------------------------------------------
    feats = list(sheet.get("feats") or [])
    d.main_feats, d.sub_feats, fp = split_feats(main, sub, feats)
    P.extend(fp)
    # -- V5 items, stock points, wealth ------------------------------------------------------------------------------
    d.stock_points = base["tech"] + STOCK_POINTS_BONUS
    items = [(it["item"], it.get("slot")) for it in (sheet.get("items") or [])]
    growth = sheet.get("growth")
    P.extend(item_problems(items, d.stock_points, check_cost=growth is None))
    now_cost = sum((ITEMS[i].stock or 0) for i, _ in items if i in ITEMS)
    if growth is None:
        d.stock_cost = now_cost
    elif rec.get("stock_cost") is None:
        P.append("creation.stock_cost: required for a sheet with growth (Σ stock costs at creation) (§7.11.2)")
        d.stock_cost = min(now_cost, d.stock_points)
    else:
        d.stock_cost = int(rec["stock_cost"])
        if d.stock_cost > d.stock_points:
            P.append(f"creation.stock_cost: {d.stock_cost} exceeds the stock points {d.stock_points} (§3.1 step 6, V5)")
    base["wealth"] = max(0, d.stock_points - d.stock_cost)
    if main == "witch_hunter":
        base["bullets"] = BULLETS_BASE
    d.creation_base = dict(base)
    # -- V6 燎 -------------------------------------------------------------------------------------------------------
    d.kagaribi = max(0, KAGARIBI_MAX - len(occupied_slots(items)))
    # -- D08 patron --------------------------------------------------------------------------------------------------
    patron = sheet.get("patron")
    if patron is not None:
        if main != "shamanic":
            P.append("patron: only a シャーマニック main class has a patron (§9.2, D08)")
        else:
            P.extend(_patron_problems(patron, "patron"))
    # -- V7 lifepath ------------------------------------------------------------------------------------------------
    if sheet.get("lifepath") is not None:
        P.extend(lifepath_problems(sheet["lifepath"]))
    # -- 相当品 -------------------------------------------------------------------------------------------------------
    owned = set(feats) | {i for i, _ in items} | set((growth or {}).get("feats") or [])
    for k in sheet.get("equivalents") or {}:
        if k not in owned:
            P.append(f"equivalents.{k}: not a feat or item of this character (相当品, D16)")
    # -- growth (§7.11.2) ---------------------------------------------------------------------------------------------
    d.base = dict(base)
    if growth is not None:
        _growth_problems(d, sheet, growth, main, sub, feats, items, cfg)
    # -- values written on the sheet ------------------------------------------------------------------------------------
    stated = sheet.get("values")
    if stated:
        derived = dict(d.base, kagaribi=d.kagaribi + d.base.get("kagaribi", KAGARIBI_MAX) - KAGARIBI_MAX)
        derived["stock_points"] = d.stock_points
        for k, v in stated.items():
            if k not in derived:
                P.append(f"values.{k}: not a value of this character")
            elif derived[k] != v:
                vrule = {"kagaribi": "§3.1 step 7, V6", "wealth": "§3.1 step 6, V5", "stock_points": "AMB-04, V5"}
                P.append(f"values.{k}: the sheet says {v}, the rules give {derived[k]} ({vrule.get(k, '§3.1, V2')})")
    return d


def _patron_problems(p: Mapping[str, Any], where: str) -> list[str]:
    out = []
    for key in ("favored_tags", "disfavored_tags"):
        bad = [t for t in p.get(key) or [] if t not in PATRON_TAGS]
        if bad:
            out.append(f"{where}.{key}: unknown tags {bad}; use {', '.join(PATRON_TAGS)} (D08)")
    both = set(p.get("favored_tags") or []) & set(p.get("disfavored_tags") or [])
    if both:
        out.append(f"{where}: a tag cannot be both favored and disfavored: {', '.join(sorted(both))} (D08)")
    return out


def _growth_problems(d: _Derived, sheet: Mapping[str, Any], g: Mapping[str, Any], main: str, sub: str,
                     feats: list[str], items: list[tuple[str, str | None]], cfg: YogaribitoConfig | None) -> None:
    P = d.problems
    raises = dict(g.get("raises") or {})
    for stat, n in raises.items():
        if stat not in RAISABLE:
            P.append(f"growth.raises.{stat}: not an ability XP can raise (§7.11.2)")
        elif stat == "bullets" and main != "witch_hunter":
            P.append("growth.raises.bullets: only a Witch Hunter has 【弾】 (§7.11.2)")
        elif stat == "kagaribi" and _flag(cfg, "xp_can_raise_kagaribi") is False:
            P.append("growth.raises.kagaribi: 【燎】 cannot be raised (xp_can_raise_kagaribi=false, AMB-05)")
        elif n < 0:
            P.append(f"growth.raises.{stat}: a number of steps ≥ 0 expected")
    gfeats = list(g.get("feats") or [])
    for k, fid in enumerate(gfeats):
        if fid not in FEATS:
            P.append(f"growth.feats[{k}]: unknown feat {fid!r}")
        elif fid in feats or gfeats.index(fid) != k:
            P.append(f"growth.feats[{k}]: {_feat_label(fid)} is already taken (no feat twice, §3.1 step 5)")
        elif feat_xp_cost(main, sub, fid) is None:
            P.append(f"growth.feats[{k}]: {_feat_label(fid)} cannot be learned with {main}/{sub} (§7.11.2)")
    if any(p.startswith("growth.") for p in P):
        return
    rfz = _flag(cfg, "raise_from_zero_cost")
    cost = growth_cost(d.creation_base, raises, gfeats, int(g.get("item_xp", 0)), main, sub,
                       2 if rfz is None else rfz)
    if cost != int(g.get("xp_spent", 0)):
        P.append(f"growth.xp_spent: the growth costs {cost} XP, the sheet says {g.get('xp_spent', 0)} (§7.11.2)")
    for stat, n in raises.items():
        if n:
            d.base[stat] = d.base.get(stat, KAGARIBI_MAX if stat == "kagaribi" else 0) + n
    # stocked items: Σ stock(items) + banked = creation stock + item XP (+ tech raises with recalc)
    now_cost = sum((ITEMS[i].stock or 0) for i, _ in items if i in ITEMS)
    banked = int(g.get("stock_points", 0))
    recalc = _flag(cfg, "stock_points_recalc_on_growth")
    budget = d.stock_cost + int(g.get("item_xp", 0))
    tech_bonus = int(raises.get("tech", 0))
    mode = _flag(cfg, "returned_stock_points")
    if mode == "lost" and banked:
        P.append("growth.stock_points: returned stock points are lost (returned_stock_points=lost, AMB-40)")
    lo, hi = budget + (tech_bonus if recalc else 0), budget + (tech_bonus if recalc is not False else 0)
    if mode == "banked" and cfg is not None:
        ok = lo <= now_cost + banked <= hi
    else:  # lost, or any mode: points may have been lost
        ok = now_cost + banked <= hi
    if not ok:
        P.append(f"items: stocked items ({now_cost}) + banked stock points ({banked}) do not match the creation "
                 f"stock ({d.stock_cost}) + item XP ({g.get('item_xp', 0)})"
                 + (f" + tech raises ({tech_bonus})" if recalc else "") + " (§7.11.2, AMB-40)")


def sheet_problems(sheet: Mapping[str, Any], *, cfg: YogaribitoConfig | None) -> list[str]:
    """§3.2 V1–V7 for a sheet dict (the scenario file's ``pcs:`` entry): one message per problem, naming the field.
    ``cfg`` None accepts every setting of the flags that change legality."""
    return list(_derive(sheet, cfg).problems)


def character_from_sheet(sheet: Mapping[str, Any], *, cfg: YogaribitoConfig | None) -> Character:
    """A legal sheet → a ``Character`` at creation values (current = base; 燎 = 6 − occupied slots). Raises
    ``ValueError`` listing every problem if the sheet is not legal under ``cfg``."""
    sheet = dict(sheet)
    pid = str(sheet.get("id") or "pc")
    d = _derive(sheet, cfg)
    if d.problems:
        raise ValueError(f"PC {pid}: illegal sheet: " + "; ".join(d.problems))
    sample = sheet.get("sample")
    full = sample_sheet(sample, sheet) if sample else sheet
    main, sub = full["main_class"], full["sub_class"]
    growth = dict(full.get("growth") or {})
    base = {k: v for k, v in d.base.items() if k != "kagaribi"}
    current = dict(base)
    kag_base = d.base.get("kagaribi", KAGARIBI_MAX)
    current["kagaribi"] = max(0, kag_base - len(occupied_slots([(i["item"], i.get("slot")) for i in full["items"]])))
    c = Character(id=pid, name=str(full["name"]), side="pc", kind="pc", main_class=main, sub_class=sub, base=base,
                  current=current, feats=list(full.get("feats") or []) + list(growth.get("feats") or []),
                  awaken_eligible=CLASSES[main].can_awaken, player=full.get("player"), sample=sample)
    if kag_base != KAGARIBI_MAX:
        c.base["kagaribi"] = kag_base
    counts: Counter[str] = Counter()
    for it in full.get("items") or []:
        c.items.append(_item_state(it["item"], it.get("slot"), counts))
    occ = set(occupied_slots([(it.item, it.slot) for it in c.items]))
    c.slots_used_this_scenario = {s: s in occ for s in SLOT_IDS}
    if main == "shamanic":
        c.shaman_patron = _patron_dict(full.get("patron") or DEFAULT_PATRON)
    c.xp_spent = int(growth.get("xp_spent", 0))
    c.xp_unspent = int(growth.get("xp_unspent", 0))
    c.stock_points = int(growth.get("stock_points", 0))
    c.lifepath = {k: v for k, v in (full.get("lifepath") or {}).items() if not _empty(v)}
    c.profile = str(full.get("profile") or "")
    rec = dict(full["creation"])
    c.creation = {
        "dice": list(rec["dice"]), "fallback": sum(rec["dice"]) <= FALLBACK_THRESHOLD if rec.get("fallback") is None
        else bool(rec["fallback"]),
        "assignment": dict(rec["assignment"]),
        "hero_bonus": dict(rec.get("hero_bonus") or dict(zip(HERO_BONUS_STATS, HERO_BONUS, strict=True))),
        "pre_class": dict(d.pre), "clamped": list(d.clamped), "stock_points": d.stock_points,
        "stock_cost": d.stock_cost, "feats": list(full.get("feats") or []),
        "main_feats": list(d.main_feats), "sub_feats": list(d.sub_feats),
        "stocked": [{"item": it["item"], "slot": it.get("slot")} for it in full.get("items") or []],
        "base": dict(d.creation_base), "gm_approved_common": bool(full.get("gm_approved_common")),
        "gender": str(full.get("gender") or ""), "age": str(full.get("age") or ""),
        "equivalents": dict(full.get("equivalents") or {}),
        "growth": {"raises": dict(growth.get("raises") or {}), "feats": list(growth.get("feats") or []),
                   "item_xp": int(growth.get("item_xp", 0))},
    }
    return c


def _patron_dict(p: Mapping[str, Any]) -> dict[str, Any]:
    return {"name": str(p["name"]), "favored_tags": list(p["favored_tags"]),
            "disfavored_tags": list(p["disfavored_tags"])}


def _item_state(item: str, slot: str | None, counts: Counter[str], origin: str = "stocked") -> ItemState:
    counts[item] += 1
    uid = item if counts[item] == 1 else f"{item}#{counts[item]}"
    return ItemState(uid=uid, item=item, origin=origin, slot=slot,
                     uses_left=ITEMS[item].uses if ITEMS[item].consumable else None)


def sheet_of(c: Character) -> dict[str, Any]:
    """A PC as a scenario-file sheet (``YogaribitoPCSheet``): creation record, stocked items, growth. The afterplay's
    campaign mapping is made of these, so the next session can load the PCs as they are now."""
    rec = c.creation
    g = rec.get("growth") or {}
    sheet: dict[str, Any] = {"id": c.id}
    if c.player:
        sheet["player"] = c.player
    sheet.update({
        "name": c.name, "main_class": c.main_class, "sub_class": c.sub_class,
        "creation": {"dice": list(rec["dice"]), "fallback": bool(rec["fallback"]),
                     "assignment": dict(rec["assignment"]), "hero_bonus": dict(rec["hero_bonus"])},
        "feats": list(rec.get("feats") or []),
        "items": [{"item": it["item"], **({"slot": it["slot"]} if it.get("slot") else {})}
                  for it in rec.get("stocked") or []],
    })
    if rec.get("gm_approved_common"):
        sheet["gm_approved_common"] = True
    if c.main_class == "shamanic" and c.shaman_patron:
        sheet["patron"] = _patron_dict(c.shaman_patron)
    if c.lifepath:
        sheet["lifepath"] = {k: (list(v) if isinstance(v, list) else dict(v) if isinstance(v, dict) else v)
                             for k, v in c.lifepath.items()}
    for k in ("gender", "age"):
        if rec.get(k):
            sheet[k] = rec[k]
    if c.profile:
        sheet["profile"] = c.profile
    if rec.get("equivalents"):
        sheet["equivalents"] = dict(rec["equivalents"])
    if c.xp_spent or c.xp_unspent or c.stock_points or g.get("raises") or g.get("feats") or g.get("item_xp"):
        sheet["creation"]["stock_cost"] = int(rec.get("stock_cost", 0))
        sheet["growth"] = {"xp_spent": c.xp_spent, "xp_unspent": c.xp_unspent,
                           "raises": {k: v for k, v in (g.get("raises") or {}).items() if v},
                           "feats": list(g.get("feats") or []), "item_xp": int(g.get("item_xp", 0)),
                           "stock_points": c.stock_points}
    return sheet


# ======================================================================================================================
# enemies (§11.7)
# ======================================================================================================================
def enemy_character(enemy_id: str, cid: str, name: str | None = None) -> Character:
    """§11.7 data → a GM-side ``Character``: slots only for the parts it has, legs, tags, awaken designation,
    燎/財 0 (運 as stated). The data id, defense data, natural weapons and whether it may fight 素手 are kept in
    ``creation`` (``{"enemy", "defense", "boss", "unarmed", "natural_weapons"}``)."""
    if enemy_id not in ENEMIES:
        raise ValueError(f"unknown enemy {enemy_id!r}; known: {', '.join(ENEMIES)}")
    e = ENEMIES[enemy_id]
    base = {k: int(e.abilities.get(k, 0)) for k in ("mind", "tech", "body", "life", "soul", "luck")}
    base["wealth"] = 0
    c = Character(id=cid, name=name or e.name, side="gm", kind="enemy", main_class=e.class_feature,
                  base=dict(base), current={**base, "kagaribi": 0}, feats=list(e.feats),
                  slots_usable={s: True for s in e.slots}, slots_used_this_scenario={s: False for s in e.slots},
                  has_legs=e.has_legs, awaken_eligible=e.awaken, tags=list(e.tags))
    counts: Counter[str] = Counter()
    for item, slot in e.items:
        c.items.append(_item_state(item, slot, counts))
        if slot is not None:
            for s in occupied_slots([(item, slot)]):
                c.slots_used_this_scenario[s] = True
    c.creation = {"enemy": enemy_id, "defense": dict(e.defense), "boss": e.boss, "unarmed": e.unarmed,
                  "natural_weapons": list(e.natural_weapons)}
    c.profile = e.attacks_jp
    return c


# ======================================================================================================================
# payload models (D02, D04, D08, D09, D10, D12–D16 free texts)
# ======================================================================================================================
class Assignment(_M):
    """D02: the six values onto the six abilities (one-to-one)."""

    mind: int = Field(ge=1, le=6)
    tech: int = Field(ge=1, le=6)
    body: int = Field(ge=1, le=6)
    life: int = Field(ge=1, le=6)
    soul: int = Field(ge=1, le=6)
    luck: int = Field(ge=1, le=6)


class HeroBonus(_M):
    """D04: 6, 3 and 1 onto 【命】【魂】【運】 (one each)."""

    life: Literal[1, 3, 6]
    soul: Literal[1, 3, 6]
    luck: Literal[1, 3, 6]


class FeatPicks(_M):
    """D09: main-class picks (one may be a common feat) and the sub-class pick (none when main = sub)."""

    main: list[str] = Field(min_length=1, max_length=4)
    sub: list[str] = Field(default_factory=list, max_length=1)


class ItemPick(_M):
    # the known ids are published in the schema (humans and models see them); unknown or unstockable ones get the
    # rule's own message from the cross-field check
    item: str = Field(min_length=1, max_length=40, json_schema_extra={"enum": [i for i, d in ITEMS.items()
                                                                               if d.stock is not None]})
    slot: SlotId | None = None


class Equipment(_M):
    """D10: stocked items with their slots (carried items: no slot)."""

    items: list[ItemPick] = Field(default_factory=list, max_length=12)


class FreeText(_M):
    text: str = Field(min_length=1, max_length=200)


class Personal(_M):
    """D16: free personal data; 相当品 re-skins (feat/item id → the name shown), data unchanged."""

    name: str = Field(min_length=1, max_length=40)
    gender: str = Field("", max_length=20)
    age: str = Field("", max_length=20)
    profile: str = Field("", max_length=1000)
    equivalents: dict[str, str] = Field(default_factory=dict, max_length=8)


def _assignment_check(values: Sequence[int]) -> Any:
    want = Counter(values)

    def check(p: BaseModel) -> str | None:
        assert isinstance(p, Assignment)
        got = [getattr(p, a) for a in ABILITIES]
        if Counter(got) != want:
            return (f"assign each of the values {sorted(values, reverse=True)} exactly once (got "
                    f"{dict(zip(ABILITIES, got, strict=True))}) (§3.1 step 1.3, D02)")
        return None

    return check


def _bonus_check(p: BaseModel) -> str | None:
    assert isinstance(p, HeroBonus)
    got = sorted((p.life, p.soul, p.luck))
    if got != sorted(HERO_BONUS):
        return f"use 6, 3 and 1 once each (got life {p.life}, soul {p.soul}, luck {p.luck}) (§3.1 step 2, D04)"
    return None


def _patron_check(p: BaseModel) -> str | None:
    assert isinstance(p, PatronRecord)
    probs = _patron_problems(p.model_dump(), "patron")
    return "; ".join(probs) or None


# ======================================================================================================================
# the mixin: D01–D16 at the table
# ======================================================================================================================
class CreationMixin(GameBase):
    """§3 at the table. ``create_character`` returns the new ``Character`` (the caller adds it to the table)."""

    # -- scenario hints (creation: section), tolerant of tables without a scenario ------------------------------------
    def _creation_hints(self) -> dict[str, Any]:
        sc = getattr(self, "sc", None)
        cr = getattr(sc, "creation", None)
        return {
            "suggested_classes": list(getattr(cr, "suggested_classes", None) or []),
            "allow_common": bool(getattr(cr, "allow_common", False)),
            "allow_quickplay": bool(getattr(cr, "allow_quickplay", True)),
        }

    @staticmethod
    def _pc_index(pc_id: str) -> int:
        digits = "".join(ch for ch in pc_id if ch.isdigit())
        return int(digits) - 1 if digits else 0

    def creating_ids(self) -> list[str]:
        """PC ids whose creation is running now: actors of ``cc.*`` decisions before they are on the table (a
        session's ``actors()`` / ``actor_role()`` should treat them as PCs)."""
        return list(self.__dict__.get("_creating", ()))

    def _log(self, pc_id: str, what: str, value: Any, rule: str, cause: str = "") -> None:
        self.ctx.state(f"{pc_id}.creation.{what}", None, value, rule, cause)

    def create_character(self, pc_id: str, *, sample: str | None = None, actor: str | None = None,
                         suggested: Mapping[str, str] | None = None) -> Gen:
        """§3.1 steps 1–8 (D01–D16) for ``pc_id``; returns the ``Character`` (not yet on the table).

        ``sample``: the scenario's suggested sample (D01's default). ``actor``: who answers (default ``pc_id``; a
        replacement character is built by its player's seat). ``suggested``: ``{"main": cls, "sub": cls}`` defaults
        for D05/D07 (D53: the dead PC's classes)."""
        creating: list[str] = self.__dict__.setdefault("_creating", [])
        creating.append(pc_id)
        try:
            c = yield from self._create(pc_id, sample, actor, suggested)
        finally:
            creating.remove(pc_id)
        return c

    def _create(self, pc_id: str, sample: str | None, actor: str | None,
                suggested: Mapping[str, str] | None) -> Gen:
        who = actor or pc_id
        hints = self._creation_hints()
        idx = self._pc_index(pc_id)
        sug_main = (suggested or {}).get("main")
        if sug_main is None:
            sc = hints["suggested_classes"]
            sug_main = sc[idx] if idx < len(sc) else "adept"
        sug_sub = (suggested or {}).get("sub")
        # -- D01 creation mode ------------------------------------------------------------------------------------
        taken = {c.sample for c in self.t.chars.values() if c.sample and not c.dead}
        pairs: list[tuple[str, str]] = [("create", "キャラクターを作成する (§3.1)")]
        refused: dict[str, str] = {}
        for sid, s in SAMPLE_PCS.items():
            if not hints["allow_quickplay"]:
                refused[f"quickplay:{sid}"] = "このシナリオではGMがクイックプレイを認めていない"
            elif sid in taken:
                refused[f"quickplay:{sid}"] = "このサンプルは他のPCが使っている"
            elif probs := sheet_problems({"id": pc_id, "sample": sid}, cfg=self.cfg):
                refused[f"quickplay:{sid}"] = f"この設定ではこのサンプルは使えない: {probs[0]}"
            else:
                pairs.append((f"quickplay:{sid}", f"クイックプレイ: {s.name} ({CLASSES[s.main_class].name}/"
                                                  f"{CLASSES[s.sub_class].name})"))
        mode = yield from self.choose(who, "cc.mode", f"{pc_id}: キャラクターを作る? サンプルで遊ぶ?", "§3, §3.4 D01",
                                      pairs, context={"pc": pc_id, "suggested_sample": sample}, refused=refused)
        self._log(pc_id, "mode", mode, "§3 D01")
        if mode.startswith("quickplay:"):
            sid = mode.split(":", 1)[1]
            sheet = {"id": pc_id, "sample": sid}
            name = SAMPLE_PCS[sid].name
        else:
            sheet = yield from self._build(pc_id, who, sug_main, sug_sub, hints)
            name = pc_id
        # -- step 8: lifepath and personal data (D12–D16) -------------------------------------------------------------
        sheet["lifepath"] = yield from self.choose_lifepath(who, pc_id)
        owned = self._owned_ids(sheet)
        personal = yield from self._personal(who, pc_id, name, owned)
        sheet.update(personal)
        c = character_from_sheet(sheet, cfg=self.cfg)
        self.ctx.info("character_created", f"{c.name} ({CLASSES[c.main_class or 'adept'].name}"
                      f"/{CLASSES[c.sub_class or 'adept'].name})", pc=pc_id, sheet=sheet_of(c))
        return c

    def _owned_ids(self, sheet: Mapping[str, Any]) -> list[str]:
        full = sample_sheet(sheet["sample"], {}) if sheet.get("sample") else sheet
        return list(full.get("feats") or []) + [i["item"] for i in full.get("items") or []]

    # -- steps 1–7 ----------------------------------------------------------------------------------------------------
    def _build(self, pc_id: str, who: str, sug_main: str, sug_sub: str | None, hints: Mapping[str, Any],
               *, dice: list[int] | None = None, fallback: bool | None = None) -> Gen:
        """Steps 1–7 → a sheet dict. ``dice``/``fallback`` given: a rebuild that keeps the array (AMB-41)."""
        # step 1: 6 dice, the fallback
        if dice is None:
            dice = self.dice(ROLLED_DICE, f"creation:{pc_id}:abilities")
            self._log(pc_id, "dice", list(dice), "§3.1 step 1")
            fallback = False
            if sum(dice) <= FALLBACK_THRESHOLD:
                if self.cfg.low_roll_fallback == "mandatory":
                    fallback = True
                else:
                    ch = yield from self.choose(
                        who, "cc.fallback", f"出目の合計 {sum(dice)} ≤ 20: 1・2・3・4・5・6 を使う?", "§3.1 step 1 D03",
                        [("use_1_to_6", "1〜6 を割り振る"), ("keep_rolled", f"出目 {dice} のまま")],
                        context={"dice": list(dice)})
                    fallback = ch == "use_1_to_6"
                if fallback:
                    self._log(pc_id, "fallback", True, "§3.1 step 1.2, AMB-02", f"sum {sum(dice)} ≤ 20")
        values = rolled_values(dice, bool(fallback))
        approved_common = False
        refused_main: dict[str, str] = {}
        while True:
            # step 1.3: D02
            default = default_assignment(values, sug_main)
            others = [default_assignment(values, k) for k in ("witch_hunter", "black_magic")]
            assign = yield from self.ask_payload(
                who, "cc.assign", (f"{pc_id}: 出目 {list(dice)}（合計 {sum(dice)} ≤ 20 のため 1〜6）" if fallback else
                                   f"{pc_id}: 出目") + f" {sorted(values, reverse=True)} を【心】【技】【体】【命】【魂】【運】に割り振る",
                "§3.1 step 1.3 D02", Assignment, _assignment_check(values),
                context={"values": sorted(values, reverse=True), "dice": list(dice), "fallback": bool(fallback),
                         "suggested_class": sug_main, "primary": PRIMARY_ABILITY[sug_main]}, samples=[default, *others])
            assignment = {a: getattr(assign, a) for a in ABILITIES}
            self._log(pc_id, "assignment", dict(assignment), "§3.1 step 1.3 D02")
            # step 2: D04
            fixed = dict(zip(HERO_BONUS_STATS, HERO_BONUS, strict=True))
            if self.cfg.hero_bonus_mode == "free":
                b = yield from self.ask_payload(
                    who, "cc.hero_bonus", f"{pc_id}: 【命】【魂】【運】に 6・3・1 を割り振る", "§3.1 step 2 D04, AMB-01",
                    HeroBonus, _bonus_check,
                    samples=[fixed, {"life": 3, "soul": 6, "luck": 1},
                                                 {"life": 6, "soul": 1, "luck": 3}])
                bonus = {"life": b.life, "soul": b.soul, "luck": b.luck}
            else:
                bonus = fixed
            self._log(pc_id, "hero_bonus", dict(bonus), "§3.1 step 2")
            pre = {a: assignment[a] + bonus.get(a, 0) for a in ABILITIES}
            # step 3: D05 (D06 for コモン); reject mode may send the player back to D02
            main = yield from self._main_class(who, pc_id, pre, sug_main, refused_main, hints)
            if main == "reassign":
                continue
            if main == "common":
                approved_common = True
            break
        vals, lows = class_bases(pre, main)
        for a in lows:
            self.ctx.info("class_floor", f"{ABILITY_NAMES[a]} {vals[a]} → 1", pc=pc_id, ability=a,
                          value=vals[a], rule="§3.1 step 3, AMB-03 clamp")
        self._log(pc_id, "main_class", main, "§3.1 step 3 D05")
        # step 4: D07 (D06 for コモン)
        sub = yield from self._sub_class(who, pc_id, main, sug_sub, approved_common, hints)
        if sub == "common":
            approved_common = True
        self._log(pc_id, "sub_class", sub, "§3.1 step 4 D07")
        sheet: dict[str, Any] = {
            "id": pc_id, "name": pc_id, "main_class": main, "sub_class": sub,
            "creation": {"dice": list(dice), "fallback": bool(fallback), "assignment": assignment,
                         "hero_bonus": bonus},
        }
        if approved_common:
            sheet["gm_approved_common"] = True
        # D08 patron
        if main == "shamanic":
            p = yield from self.ask_payload(
                who, "cc.patron", f"{pc_id}: 崇める存在 (好む環境・苦手な環境)", "§9.2 シャーマニック D08", PatronRecord,
                _patron_check, context={"vocabulary": list(PATRON_TAGS), "default": _patron_dict(DEFAULT_PATRON)}, samples=[_patron_dict(DEFAULT_PATRON),
                                                            {"name": "日", "favored_tags": ["sunlight", "day"],
                                                             "disfavored_tags": ["night"]}])
            sheet["patron"] = _patron_dict(p.model_dump())
            self._log(pc_id, "patron", dict(sheet["patron"]), "D08")
        # step 5: D09
        sheet["feats"] = yield from self._feats(who, pc_id, main, sub)
        # step 6: D10
        tech = max(1, vals["tech"])
        sp = tech + STOCK_POINTS_BONUS
        self._log(pc_id, "stock_points", sp, "§3.1 step 6.1, AMB-04", f"【技】{tech} + 3")
        sheet["items"] = yield from self._equipment(who, pc_id, main, sp)
        occ = occupied_slots([(i["item"], i.get("slot")) for i in sheet["items"]])
        self._log(pc_id, "kagaribi", max(0, KAGARIBI_MAX - len(occ)), "§3.1 step 7", f"{len(occ)} slots occupied")
        return sheet

    def _main_class(self, who: str, pc_id: str, pre: Mapping[str, int], suggested: str,
                    refused: dict[str, str], hints: Mapping[str, Any]) -> Gen:
        while True:
            floor_refused: dict[str, str] = {}
            if self.cfg.class_floor_mode == "reject":
                for cid in CLASS_IDS:
                    probs = floor_problems(pre, cid)
                    if probs:
                        floor_refused[cid] = (f"{', '.join(probs)}: 能力値が0以下になるクラスは選べない (class_floor_mode=reject, "
                                              f"§3.1 step 3, AMB-03)。割り振りをやり直すには reassign")
            why = {**floor_refused, **refused}
            pairs = [(cid, _class_label(cid)) for cid in CLASS_IDS if cid not in why]
            if floor_refused:
                pairs.append(("reassign", "割り振りをやり直す (D02)"))
            ch = yield from self.choose(who, "cc.main_class", f"{pc_id}: メインクラスを選ぶ", "§3.1 step 3 D05", pairs,
                                        context={"suggested": suggested, "pre_class": dict(pre)}, refused=why,
                                        always_ask=True)
            if ch == "common":
                ok = yield from self._approve_common(pc_id, "main", hints)
                if not ok:
                    refused["common"] = "GMがコモンを許可しなかった (D06)"
                    continue
            return ch

    def _approve_common(self, pc_id: str, role: str, hints: Mapping[str, Any]) -> Gen:
        ans = yield from self.choose("gm", "gm.approve_common", f"{pc_id} が コモン を{'メイン' if role == 'main' else 'サブ'}"
                                     "クラスにしたい。許可する?", "§9.2 コモン D06, AMB-46",
                                     [("approve", "許可する"), ("refuse", "許可しない")],
                                     context={"pc": pc_id, "role": role, "allowed": hints["allow_common"]})
        self._log(pc_id, "gm_approved_common", ans == "approve", "D06")
        return ans == "approve"

    def _sub_class(self, who: str, pc_id: str, main: str, suggested: str | None, approved: bool,
                   hints: Mapping[str, Any]) -> Gen:
        refused: dict[str, str] = {}
        while True:
            pairs = [(cid, _class_label(cid, modifiers=False)) for cid in CLASS_IDS if cid not in refused]
            ch = yield from self.choose(who, "cc.sub_class", f"{pc_id}: サブクラスを選ぶ (メインと同じでもよい)",
                                        "§3.1 step 4 D07", pairs,
                                        context={"main": main, "suggested": suggested or main}, refused=refused)
            if ch == "common" and not approved:
                ok = yield from self._approve_common(pc_id, "sub", hints)
                if not ok:
                    refused["common"] = "GMがコモンを許可しなかった (D06)"
                    continue
            return ch

    def _feats(self, who: str, pc_id: str, main: str, sub: str) -> Gen:
        n = FEAT_COUNTS["same" if main == sub else "different"]
        main_opts, sub_opts = main_feat_options(main), ([] if main == sub else sub_feat_options(main, sub))
        common = common_feat_options()
        default = default_feats(main, sub)
        alt = {"main": [*default["main"][:-1], common[0]], "sub": list(default["sub"])}

        def check(p: BaseModel) -> str | None:
            assert isinstance(p, FeatPicks)
            return "; ".join(feat_problems(main, sub, p.main, p.sub)) or None

        label = (f"{CLASSES[main].name}から{n['main']}つ" if main == sub else
                 f"{CLASSES[main].name}から{n['main']}つ、{CLASSES[sub].name}から{n['sub']}つ")
        # feat ids as an enum in the schema (humans and models see them), the candidates listed in the prompt; which
        # list a pick may come from and the counts are the cross-field check, with the rule's own messages
        main_ids = tuple(dict.fromkeys(main_opts + sub_opts + common))
        known = tuple(dict.fromkeys(main_ids + tuple(FEATS)))
        model = _feat_picks_model(known)
        listing = "、".join(f"{f}={FEATS[f].name}" for f in main_ids)
        picks = yield from self.ask_payload(
            who, "cc.feats", f"{pc_id}: 特技を選ぶ ({label}; メインの1つは共通特技でもよい)\n{listing}",
            "§3.1 step 5 D09", model,
            check, context={"main_class": main, "sub_class": sub, "counts": dict(n), "main_options": main_opts,
                            "sub_options": sub_opts, "common_options": common,
                            "names": {f: FEATS[f].name for f in dict.fromkeys(main_opts + sub_opts + common)},
                            "default": default}, samples=[default, alt])
        feats = list(picks.main) + list(picks.sub)
        self._log(pc_id, "feats", {"main": list(picks.main), "sub": list(picks.sub)}, "§3.1 step 5 D09")
        return feats

    def _equipment(self, who: str, pc_id: str, main: str, sp: int) -> Gen:
        def check(p: BaseModel) -> str | None:
            assert isinstance(p, Equipment)
            return "; ".join(item_problems([(i.item, i.slot) for i in p.items], sp)) or None

        default = trimmed_kit(main, sp)
        eq = yield from self.ask_payload(
            who, "cc.equipment", f"{pc_id}: 常備化ポイント {sp} で装備を取得する (余りは【財】)", "§3.1 step 6 D10", Equipment,
            check, context={"stock_points": sp, "kit": kit_for(main), "default": default,
                            "items": {i.id: {"name": i.name, "stock": i.stock, "slots": i.slots}
                                      for i in ITEMS.values() if i.stock is not None}}, samples=[{"items": default}, {"items": []}])
        items = [{"item": i.item, "slot": i.slot} for i in eq.items]
        total = sum(ITEMS[i["item"]].stock or 0 for i in items)
        self._log(pc_id, "items", [dict(i) for i in items], "§3.1 step 6 D10")
        self._log(pc_id, "wealth", sp - total, "§3.1 step 6.3", f"stock points {sp} − {total}")
        return items

    # -- step 8 -------------------------------------------------------------------------------------------------------
    def choose_lifepath(self, who: str, pc_id: str) -> Gen:
        """D12–D15: per table, roll (ordered two dice) or choose an entry (任意 with a free text); then the NPC."""
        lp: dict[str, Any] = {}
        kinds = {"origin": "cc.origin", "purpose": "cc.purpose", "encounter": "cc.encounter"}
        rules = {"origin": "D12", "purpose": "D13", "encounter": "D14"}
        for kind in LIFEPATH_KINDS:
            table = LIFEPATH_TABLES[kind]
            pairs = [("roll", f"{LIFEPATH_TABLE_NAMES[kind]}表を振る (2D6: 1個目=行, 2個目 1-3/4-6)")]
            pairs += [(e.id, f"{e.roll} {e.name}" + (f" — {e.text}" if e.text else "")) for e in table]
            rule = f"§3.1 step 8, §9.5 {rules[kind]}"
            ch = yield from self.choose(who, kinds[kind], f"{pc_id}: ライフパス {LIFEPATH_TABLE_NAMES[kind]}", rule, pairs,
                                        context={"table": kind})
            if ch == "roll":
                first = self.d6(f"lifepath:{kind}:row")
                second = self.d6(f"lifepath:{kind}:column")
                e = lifepath_entry(kind, first, second)
                lp.setdefault("rolls", {})[kind] = [first, second]
                self.ctx.info("lifepath_roll", f"{LIFEPATH_TABLE_NAMES[kind]}: {first}・{second} → {e.roll} {e.name}",
                              pc=pc_id, table=kind, dice=[first, second], entry=e.id)
            else:
                e = next(x for x in table if x.id == ch)
            lp[kind] = e.id
            if e.id == FREE_ENTRY:
                t = yield from self.ask_payload(who, kinds[kind], f"{pc_id}: {LIFEPATH_TABLE_NAMES[kind]} (任意) を自由に決める",
                                                rule, FreeText, context={"table": kind}, samples=[
                                                    {"text": "（自由記述）"}])
                lp[f"{kind}_text"] = t.text
            self._log(pc_id, f"lifepath.{kind}", e.id, rule)
        enc = lifepath_lookup("encounter", lp["encounter"])
        assert enc is not None
        if enc.id == FREE_ENTRY:
            t = yield from self.ask_payload(who, "cc.encounter_npc", f"{pc_id}: 邂逅の相手 (任意) を自由に決める",
                                            "§3.1 step 8 D15", FreeText,
                                            context={"encounter": enc.id}, samples=[{"text": "（自由記述）"}])
            lp["encounter_npc"] = t.text
        else:
            lp["encounter_npc"] = yield from self.choose(
                who, "cc.encounter_npc", f"{pc_id}: 邂逅 {enc.name} の相手 (いずれか一人)", "§3.1 step 8 D15",
                [(i, n) for i, n in enc.npcs], context={"encounter": enc.id}, always_ask=True)
        self._log(pc_id, "lifepath.encounter_npc", lp["encounter_npc"], "§3.1 step 8 D15")
        if "rolls" in lp:
            lp["rolls"] = lp.pop("rolls")  # the entries first, the dice last (sheet readability)
        return lp

    def _personal(self, who: str, pc_id: str, name: str, owned: Sequence[str]) -> Gen:
        def check(p: BaseModel) -> str | None:
            assert isinstance(p, Personal)
            bad = [k for k in p.equivalents if k not in owned]
            if bad:
                return f"equivalents: {', '.join(bad)} is not a feat or item of this character (相当品, D16)"
            empty = [k for k, v in p.equivalents.items() if not v.strip()]
            if empty:
                return f"equivalents.{empty[0]}: the shown name is empty (相当品, D16)"
            if not p.name.strip():
                return "name: empty (§3.1 step 8 D16)"
            if p.name.strip() in taken:
                return (f"name: {p.name.strip()!r} is taken; each character needs its own name (§3.1 step 8 D16; "
                        "HOUSE: the table tells characters apart by name)")
            return None

        taken = {c.name.strip() for c in self.t.chars.values() if c.id != pc_id}
        if name.strip() in taken:
            name = pc_id

        p = yield from self.ask_payload(who, "cc.personal", f"{pc_id}: 名前・性別・年齢などの設定 (相当品はGMの許可が必要)",
                                        "§3.1 step 8 D16", Personal, check,
                                        context={"default_name": name, "owned": list(owned)}, samples=[{"name": name}])
        out: dict[str, Any] = {"name": p.name.strip()}
        for k in ("gender", "age", "profile"):
            if getattr(p, k):
                out[k] = getattr(p, k)
        if p.equivalents:
            ok = yield from self.choose("gm", "gm.approve_equivalent",
                                        f"{p.name} の相当品 {dict(p.equivalents)} を許可する?", "◆相当品 D16",
                                        [("approve", "許可する"), ("refuse", "許可しない")],
                                        context={"pc": pc_id, "equivalents": dict(p.equivalents)})
            if ok == "approve":
                out["equivalents"] = dict(p.equivalents)
        self._log(pc_id, "personal", dict(out), "§3.1 step 8 D16")
        return out

    # -- D11 starting loadout ------------------------------------------------------------------------------------------
    def choose_loadout(self, c: Character) -> Gen:
        """D11 (scenario start): which owned slot items are worn/held. ``keep`` = as assigned; the other options are
        every legal loadout of the owned slot items (at most 40, fewest slots first). Returns the chosen mapping
        uid -> slot | None and applies it (state events); 燎 is the caller's (scenario start recomputes it)."""
        slot_items = [it for it in c.items if it.item in ITEMS and ITEMS[it.item].slots != "none"]
        current = {it.uid: it.slot for it in slot_items}
        loadouts = _loadouts(slot_items)
        pairs: list[tuple[str, str]] = [("keep", "割り当て通りに装備する")]
        by_id: dict[str, dict[str, str | None]] = {}
        for lo in loadouts:
            if lo == current:
                continue
            lid = "loadout:" + ",".join(f"{u}={s}" for u, s in lo.items() if s) if any(lo.values()) else "loadout:none"
            n = len(occupied_slots([(next(i.item for i in slot_items if i.uid == u), s) for u, s in lo.items()]))
            # two copies of one item: numbered (#1, #2), so that no two loadouts read alike
            copies = Counter(i.item for i in slot_items)
            nth: Counter[str] = Counter()
            names: dict[str, str] = {}
            for i in slot_items:
                nth[i.item] += 1
                names[i.uid] = ITEMS[i.item].name + (f" #{nth[i.item]}" if copies[i.item] > 1 else "")
            where = {"right_hand": "右手", "left_hand": "左手", "armor": "防具", "accessory": "アクセサリー"}
            label = "・".join(f"{names[u]}→{where.get(s, s)}" for u, s in lo.items() if s) or "何も装備しない"
            pairs.append((lid, f"{label}（【燎】{max(0, KAGARIBI_MAX - n)}）"))
            by_id[lid] = lo
            if len(pairs) > 40:
                break
        ch = yield from self.choose(self.controller(c), "cc.loadout", f"{c.name}: シナリオ開始時の装備", "§3.1 step 6.4 D11",
                                    pairs, context={"current": dict(current)})
        if ch != "keep":
            for it in slot_items:
                new = by_id[ch][it.uid]
                if new != it.slot:
                    self.ctx.state(f"{c.id}.items.{it.uid}.slot", it.slot, new, "D11", "starting loadout")
                    it.slot = new
        return {it.uid: it.slot for it in slot_items}


def _loadouts(items: list[ItemState]) -> list[dict[str, str | None]]:
    """Every legal assignment of the items to slots (or none), fewest occupied slots first, stable order."""
    out: list[dict[str, str | None]] = []
    choices = [[None, *slot_targets(it.item)] for it in items]
    for combo in itertools.product(*choices):
        pairs = [(it.item, s) for it, s in zip(items, combo, strict=True)]
        occ = occupied_slots(pairs)
        if len(occ) == len(set(occ)):
            out.append({it.uid: s for it, s in zip(items, combo, strict=True)})
        if len(out) >= 200:
            break
    return sorted(out, key=lambda lo: sum(1 for s in lo.values() if s))


def _class_label(cid: str, modifiers: bool = True) -> str:
    c = CLASSES[cid]
    sn = " ※スーパーナチュラル" if c.supernatural else ""
    if not modifiers:
        return f"{c.name}{sn}"
    mods = " ".join(f"{ABILITY_NAMES[a]}{v:+d}" for a, v in c.modifiers.items() if v)
    return f"{c.name}{sn} ({mods or '±0'})"


# ======================================================================================================================
# trpg new-character yogaribito
# ======================================================================================================================
def new_character_session(seed: int = 0) -> Session:
    """``trpg new-character yogaribito``: one PC through D01–D16. The outcome's ``sheet`` is ready for a scenario
    file's ``pcs:``."""
    from ...core import Session, load_scenario
    from ...core.registry import get_system

    info = get_system("yogaribito")
    return Session(load_scenario(info.sample_scenarios[0]), seed=seed,
                   options={"procedure": {"creation": {"pc_count": 1}}})


@functools.lru_cache(maxsize=256)
def _feat_picks_model(known: tuple[str, ...]) -> type[FeatPicks]:
    """``FeatPicks`` with the feat ids as an enum; one class per id list (building a pydantic model costs more than
    the rest of a character's creation, and every after-play rebuild asks for the same lists)."""
    fields: dict[str, Any] = {
        "main": (list[Literal[known]], Field(min_length=1, max_length=4)),  # type: ignore[valid-type,misc]
        "sub": (list[Literal[known]], Field(default_factory=list, max_length=1)),  # type: ignore[valid-type,misc]
    }
    return create_model("FeatPicks", __base__=FeatPicks, **fields)
