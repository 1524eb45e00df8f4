"""Scenario file model for ブラッドベリー (rules/bloodberry.md §11 G13: scenes/events, NPCs, formed curses, GM
victory conditions; the flag map arrives with issue 4). Published as JSON Schema by ``trpg schema``."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from ...core.scenario import ScenarioBase
from .config import BloodberryConfig
from .data import BASIC_SKILLS, CLASSES, CLASS_SKILLS, CURSE_TYPES, EMOTION_TABLE

__all__ = [
    "BloodberryScenario", "PCSheet", "NPCData", "CurseData", "SceneData", "SceneAction", "SceneEvent", "Outcome",
    "Abilities", "RelationName", "CreationRules", "Confrontation", "SpecialAction", "EMOTION_IDS", "Camp",
]

Ability = Literal["passion", "grace", "maturity"]
CurseType = Literal["doubt", "malice", "anxiety"]
EMOTION_IDS = tuple(e[0] for e in EMOTION_TABLE)
ID = r"^[a-z][a-z0-9_]*$"


class _M(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Abilities(_M):
    passion: int = Field(ge=0, le=20, description="情熱")
    grace: int = Field(ge=0, le=20, description="気品")
    maturity: int = Field(ge=0, le=20, description="大人")


class PCSheet(_M):
    """A pregenerated PC at creation values (§3). The engine checks V1–V8 when the session starts."""

    id: str = Field(pattern=ID)
    name: str = Field(min_length=1)
    profile: str = ""
    abilities: Abilities
    basic_skills: list[str] = Field(description="3 distinct basic skill ids (§9.1)")
    class_: str | None = Field(None, alias="class", description="seeker | moon_witch | old_reader; derived if omitted")
    race: Literal["human", "fairy"] = "human"
    fairy_drop: str | None = Field(None, description="fairy only: the class skill given up")
    personal_curse: str | None = Field(None, description="呪い表 id (c12_1 ...) or free text")
    emotions: dict[str, list[str]] = Field(default_factory=dict, description="partner PC id -> 1-2 emotion ids or free texts")
    victory_conditions: list[str] = Field(default_factory=list, description="PC-made victory conditions (<= 2 with the GM's)")

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    @field_validator("basic_skills")
    @classmethod
    def _skills_known(cls, v: list[str]) -> list[str]:
        for s in v:
            if s not in BASIC_SKILLS:
                raise ValueError(f"unknown basic skill {s!r}; known: {', '.join(BASIC_SKILLS)}")
        return v

    @field_validator("class_")
    @classmethod
    def _class_known(cls, v: str | None) -> str | None:
        if v is not None and v not in CLASSES:
            raise ValueError(f"unknown class {v!r}; known: {', '.join(CLASSES)}")
        return v

    @field_validator("fairy_drop")
    @classmethod
    def _drop_known(cls, v: str | None) -> str | None:
        if v is not None and not any(v in skills for skills in CLASS_SKILLS.values()):
            raise ValueError(f"unknown class skill {v!r}")
        return v


class RelationName(_M):
    between: tuple[str, str]
    name: str = Field(min_length=1, description="関係表 name such as 《腐縁》 or free text")


class NPCData(_M):
    id: str = Field(pattern=ID)
    name: str
    abilities: Abilities = Field(default_factory=lambda: Abilities(passion=2, grace=2, maturity=2))
    willpower: int = Field(0, ge=0, le=3)
    otherworldly: bool = False
    lost_wish: bool = Field(False, description="lost about its own wish (target of 言葉)")
    description: str = ""
    secret: str = Field("", description="GM only")


class CurseData(_M):
    """A formed curse (形ある呪い, §4.2): an NPC with 疑問/悪意/不安 instead of abilities; otherworldly."""

    id: str = Field(pattern=ID)
    name: str
    doubt: int = Field(ge=1, le=5)
    malice: int = Field(ge=1, le=5)
    anxiety: int = Field(ge=1, le=5)
    description: str = ""
    secret: str = Field("", description="GM only")


class Outcome(_M):
    text: str = ""
    set_flags: list[str] = Field(default_factory=list)
    clue: str = Field("", description="information handed to the PCs (shown to all PCs)")


class SceneAction(_M):
    """A turn action a participant may declare in this scene (pc.declare); the GM's judge comes from here."""

    id: str = Field(pattern=ID)
    label: str
    bases: tuple[Ability, Ability] | None = Field(None, description="None: no judge needed (auto success)")
    difficulty: int = Field(2, ge=0, le=10)
    door: bool = Field(False, description="a door/gate check (合い鍵 applies with bases 情熱+大人)")
    once: bool = Field(True, description="no more attempts after a success")
    requires_flags: list[str] = Field(default_factory=list)
    success: Outcome = Field(default_factory=Outcome)
    failure: Outcome = Field(default_factory=Outcome)


class SceneEvent(_M):
    """A GM event at the scene's start, in order. Exactly one of the fields is set."""

    narration: str | None = None
    curse_check: CurseCheckEvent | None = None
    npc_entry: str | None = None

    @model_validator(mode="after")
    def _one(self) -> SceneEvent:
        if sum(x is not None for x in (self.narration, self.curse_check, self.npc_entry)) != 1:
            raise ValueError("an event has exactly one of narration, curse_check, npc_entry")
        return self


class CurseCheckEvent(_M):
    curse: str = Field("formless", description="'formless' or a formed curse id")
    type: CurseType | None = Field(None, description="formless: required; formed: the GM picks the stat when omitted")
    difficulty: int | None = Field(None, ge=0, le=10, description="formless only; default config.formless_curse_default_difficulty")
    target: str = Field("scene_actors", description="'scene_actors', 'participants' or a PC id")
    text: str = ""


class SpecialAction(_M):
    """GM-defined turn action in a confrontation (§11 G14): a check and explicit state changes."""

    id: str = Field(pattern=ID)
    label: str
    bases: tuple[Ability, Ability]
    difficulty: int = Field(2, ge=0, le=10)
    success_camp_strength: int = Field(0, ge=0, le=3, description="added to the camp relation with the target curse")
    success_text: str = ""
    failure_text: str = ""
    once: bool = True


class Camp(_M):
    id: str = Field(pattern=ID)
    members: list[str] = Field(min_length=1, description="PC ids, or NPC ids for an NPC (rival) camp")


class Confrontation(_M):
    curses: list[str] = Field(min_length=1)
    camps: list[Camp] = Field(default_factory=list, description="default: one camp of every participating PC")
    progression: Literal["normal_order", "round_progression"] = Field("normal_order", description="the scripted GM's choice")
    special_actions: list[SpecialAction] = Field(default_factory=list)
    victory_text: str = ""
    defeat_text: str = ""
    rival_victory_text: str = Field("", description="narrated when an NPC camp settles the curses first")
    max_cycles: int = Field(12, ge=1, le=100, description="safety cap: after this many cycles the curse withdraws (HOUSE)")


class SlotData(_M):
    """One card of a place's establish condition (§7.6): every given field must hold (e.g. {suit: ♦})."""

    suit: Literal["♠", "♣", "♥", "♦"] | None = None
    colour: Literal["red", "black"] | None = None
    rank: Literal["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"] | None = None
    min: int | None = Field(None, ge=1, le=13)
    max: int | None = Field(None, ge=1, le=13)
    face: bool | None = None


class GateData(_M):
    """場所による移動の妨害 (D10): entering needs an opposed check against the place (A31)."""

    bases: tuple[Ability, Ability] = ("passion", "maturity")
    door: bool = Field(True, description="a door/gate: 合い鍵 applies with bases 情熱+大人")
    text: str = ""


class PlaceData(_M):
    id: str = Field(pattern=ID)
    name: str
    condition: list[SlotData] = Field(min_length=1, max_length=6)
    flag: str | None = Field(None, description="the flag this place holds")
    gate: GateData | None = None
    text: str = ""


class FlagData(_M):
    id: str = Field(pattern=ID)
    name: str
    kind: Literal["progress", "end"] = "progress"
    requires: list[str] = Field(default_factory=list, description="flags that must be raised first")
    scene: str | None = Field(None, description="a flag_scenes id played as the flag's event")
    text: str = ""


class FlagMapData(_M):
    id: str = Field(pattern=ID)
    title: str
    camps: list[Camp] = Field(default_factory=list, description="default: one camp of every active PC")
    places: list[PlaceData] = Field(min_length=1)
    flags: list[FlagData] = Field(min_length=1)
    subevents: dict[str, str] = Field(default_factory=dict, description="suit (♠♣♥♦ or 'any') -> sub-event text (G7)")
    deck: list[str] | None = Field(None, description="examples only: a stacked deck (top first), no shuffle")
    hands: dict[str, list[str]] | None = Field(None, description="examples only: each camp's starting hand")


#: the shoe of a flag map: two 52-card decks, no jokers (§7.6 FM_SETUP, §7.4, G8)
SHOE_SIZE = 104


def flag_map_problem(fm: FlagMapData, pcs: list[str], face_card_numeric: int | None = None) -> str | None:
    """What makes a flag map unplayable (§7.6), as ``<field>: <problem>`` under the map, or None.

    Play needs: a flag on every place (§7.6 [1]: the GM names "the places where the flags are"; a place without one
    never moves the map on); every flag on a place and no flag waiting for itself through ``requires`` (else it, and
    every flag after it, the end flag included, can never be raised and the map runs to its safety cap); hands of
    places × 2 cards for every camp out of the 104-card shoe (§7.6 [1], G8: more than that crashed the deal with
    "no card left in the deck"); every condition fillable by distinct cards of the shoe; and, for examples, a stacked
    ``deck`` and ``hands`` of real, distinct cards for known camps."""
    from .cards import Card, full_shoe, parse_card, slot_accepts

    for pl in fm.places:
        if pl.flag is None:
            return (f"places.{pl.id}.flag: missing; every place holds a flag (§7.6 [1]: the GM names the places where "
                    "the flags are); a place without one can never move the flag map on")
    held = {pl.flag for pl in fm.places}
    flags = {f.id: f for f in fm.flags}
    for f in fm.flags:
        if f.id not in held:
            return (f"flags.{f.id}: no place holds this flag, so it can never be raised (§7.6 [3])"
                    + ("; the flag map could never end" if f.kind == "end" else ""))
    for f in fm.flags:  # a requires chain that comes back to itself: none of its flags can ever be raised
        path, todo = [f.id], [(f.id, iter(f.requires))]
        while todo:
            fid, it = todo[-1]
            nxt = next(it, None)
            if nxt is None:
                todo.pop()
                path.pop()
                continue
            if nxt == f.id:
                return f"flags.{f.id}.requires: a cycle {' → '.join(path + [nxt])}; none of these flags can ever be raised"
            if nxt in flags and nxt not in path:
                path.append(nxt)
                todo.append((nxt, iter(flags[nxt].requires)))
    seen: set[str] = set()
    for m in (m for c in fm.camps for m in c.members):
        if m in seen:
            return f"camps: {m!r} is in two camps"
        seen.add(m)
    for camp in fm.camps:
        if len({m in pcs for m in camp.members}) > 1:
            return f"camps.{camp.id}: a camp is either PCs or NPCs"
    camp_ids = [c.id for c in fm.camps] or ["pcs"]
    if fm.hands is not None and fm.deck is None:
        return "hands: starting hands are only for a stacked deck (give deck as well, examples only)"
    listed: set[str] = set()
    cards: list[tuple[str, str]] = [(f"deck[{i}]", x) for i, x in enumerate(fm.deck or [])]
    for cid, hand in (fm.hands or {}).items():
        if cid not in camp_ids:
            return f"hands.{cid}: unknown camp (camps: {', '.join(camp_ids)})"
        cards += [(f"hands.{cid}[{i}]", x) for i, x in enumerate(hand)]
    for where, text in cards:
        try:
            card: Card = parse_card(text)
        except (ValueError, IndexError) as e:
            return f"{where}: {e if str(e).startswith('not a card') else f'not a card: {text!r}'}"
        if card.id in listed:
            return f"{where}: the card {card.id} is listed twice (two decks: each card has copies #1 and #2)"
        listed.add(card.id)
    per_camp = len(fm.places) * 2
    hands = fm.hands or {}  # (only with a stacked deck, checked above)
    dealt = sum(len(hands[c]) if c in hands else per_camp for c in camp_ids)
    if dealt > SHOE_SIZE:
        return (f"places: {len(fm.places)} places deal {per_camp} cards (places × 2, §7.6 [1]) to each of "
                f"{len(camp_ids)} camps, {dealt} cards, more than the {SHOE_SIZE} cards of the shoe (two decks, G8)")
    shoe = full_shoe()
    for pl in fm.places:
        fits: list[list[int]] = []
        for i, slot in enumerate(pl.condition):
            ok = [k for k, c in enumerate(shoe) if slot_accepts(slot.model_dump(exclude_none=True), c, face_card_numeric)]
            if not ok:
                spec = slot.model_dump(exclude_none=True)
                why = " (face cards have no number, A25)" if "face" in spec and ("min" in spec or "max" in spec) else ""
                return f"places.{pl.id}.condition[{i}]: no card of the two decks fits this slot {spec}{why}"
            fits.append(ok)
        if not _fill(fits):
            return (f"places.{pl.id}.condition: no set of distinct cards of the shoe fills its {len(fits)} slots at once "
                    "(two decks: two copies of each card)")
    return None


def _fill(fits: list[list[int]]) -> bool:
    """Whether every slot gets its own card (bipartite matching, slots → card indices)."""
    owner: dict[int, int] = {}

    def place(i: int, seen: set[int]) -> bool:
        for k in fits[i]:
            if k in seen:
                continue
            seen.add(k)
            if k not in owner or place(owner[k], seen):
                owner[k] = i
                return True
        return False

    return all(place(i, set()) for i in range(len(fits)))


class SceneData(_M):
    id: str = Field(pattern=ID)
    title: str
    text: str = Field("", description="GM framing narration")
    gm_secret: str = ""
    place: str = ""
    tags: list[Literal["otherworld", "tools_at_hand", "door"]] = Field(default_factory=list)
    participants: Literal["all"] | list[str] = "all"
    scene_actors: list[str] = Field(default_factory=list, max_length=2)
    npcs: list[str] = Field(default_factory=list, description="NPCs and curses present")
    events: list[SceneEvent] = Field(default_factory=list)
    actions: list[SceneAction] = Field(default_factory=list)
    cycles: int = Field(1, ge=0, le=10, description="turn cycles before the scripted GM ends the scene")
    progression: Literal["normal_order", "round_progression"] = Field("normal_order", description="the scripted GM's choice for the scene's turns")
    requires_flags: list[str] = Field(default_factory=list, description="the scene is skipped unless these flags are set; a flag-map flag raised by camp C also sets '<flag>@<C>'")
    confrontation: Confrontation | None = None
    flag_map: FlagMapData | None = Field(None, description="this entry is a flag map (§7.6) instead of an ordinary scene")
    past_event: str = Field("", description="過去の残像 reproduces this (GM text)")
    otherworld_voices: str = Field("", description="遠き夢の中へ hears this (GM text)")


class CreationRules(_M):
    allowed: bool = True
    min_pcs: int = Field(1, ge=1, le=6)
    max_pcs: int = Field(4, ge=1, le=6)


class BloodberryScenario(ScenarioBase):
    system: Literal["bloodberry"]
    config: BloodberryConfig = Field(default_factory=BloodberryConfig)
    setting: str = Field("", description="what players know of the setting")
    gm_notes: str = Field("", description="GM only")
    pcs: list[PCSheet] = Field(min_length=1, max_length=6)
    relations: list[RelationName] = Field(default_factory=list)
    creation: CreationRules = Field(default_factory=CreationRules)
    npcs: list[NPCData] = Field(default_factory=list)
    curses: list[CurseData] = Field(default_factory=list)
    gm_victory_conditions: dict[str, str] = Field(default_factory=dict, description="PC id -> the one GM-given condition")
    scenes: list[SceneData] = Field(min_length=1)
    flag_scenes: list[SceneData] = Field(default_factory=list, description="scenes played when a flag is raised")
    ending: str = Field("", description="ending narration")

    @model_validator(mode="after")
    def _references(self) -> BloodberryScenario:
        pcs = [p.id for p in self.pcs]
        npcs = [n.id for n in self.npcs]
        curses = [c.id for c in self.curses]
        everyone = pcs + npcs + curses
        dup = {x for x in everyone if everyone.count(x) > 1}
        if dup or "gm" in everyone:
            raise ValueError(f"character ids must be unique and not 'gm': {sorted(dup) or ['gm']}")
        names: dict[str, list[str]] = {}
        for cid, name in [*((p.id, p.name) for p in self.pcs), *((n.id, n.name) for n in self.npcs),
                          *((c.id, c.name) for c in self.curses)]:
            names.setdefault(name.strip(), []).append(cid)
        same = [f"{n!r} ({', '.join(who)})" for n, who in names.items() if len(who) > 1]
        if same:
            raise ValueError(f"names used twice among pcs, npcs and curses: {'; '.join(same)}; give each character "
                             "its own name (the table tells them apart by name)")
        from .state import split_ref

        double = self.config.two_pc_relations == "double" and len(pcs) == 2  # A34: "<pc>#2" is the second relation
        for p in self.pcs:
            for partner, emos in p.emotions.items():
                pid, n = split_ref(partner)
                if pid not in pcs or (n == 2 and not double):
                    extra = "; '<pc>#2' (the second relation) only with two PCs and two_pc_relations: double" if n == 2 else ""
                    raise ValueError(f"pcs.{p.id}.emotions: unknown PC {partner!r}{extra}")
                for e in emos:
                    if not e:
                        raise ValueError(f"pcs.{p.id}.emotions: empty emotion")
        named: dict[str, int] = {}
        for r in self.relations:
            for x in r.between:
                if x not in pcs:
                    raise ValueError(f"relations: unknown PC {x!r} (PCs: {', '.join(pcs)})")
            between = "|".join(sorted(r.between))
            named[between] = named.get(between, 0) + 1
            if double and named[between] > 2:
                raise ValueError(f"relations: {r.between[0]} and {r.between[1]} have two relations (A34 double), "
                                 "named by the pair's first two entries; a third is one too many")
        for k in self.gm_victory_conditions:
            if k not in pcs:
                raise ValueError(f"gm_victory_conditions: unknown PC {k!r}")
        seen: set[str] = set()
        for s in self.scenes:
            if s.id in seen:
                raise ValueError(f"scenes: duplicate scene id {s.id!r}")
            seen.add(s.id)
            if s.participants != "all":
                for x in s.participants:
                    if x not in pcs:
                        raise ValueError(f"scenes.{s.id}.participants: unknown PC {x!r}")
            for x in s.scene_actors:
                if x not in everyone:
                    raise ValueError(f"scenes.{s.id}.scene_actors: unknown character {x!r}")
            for x in s.npcs:
                if x not in npcs + curses:
                    raise ValueError(f"scenes.{s.id}.npcs: unknown NPC or curse {x!r}")
            for ev in s.events:
                if ev.npc_entry is not None and ev.npc_entry not in npcs + curses:
                    raise ValueError(f"scenes.{s.id}.events: unknown NPC {ev.npc_entry!r}")
                cc = ev.curse_check
                if cc is not None:
                    if cc.curse != "formless" and cc.curse not in curses:
                        raise ValueError(f"scenes.{s.id}.events: unknown curse {cc.curse!r}")
                    if cc.curse == "formless" and cc.type is None:
                        raise ValueError(f"scenes.{s.id}.events: a formless curse check needs a type ({', '.join(CURSE_TYPES)})")
                    if cc.target not in ("scene_actors", "participants") and cc.target not in pcs:
                        raise ValueError(f"scenes.{s.id}.events: unknown target {cc.target!r}")
            if s.confrontation is not None:
                for c in s.confrontation.curses:
                    if c not in curses:
                        raise ValueError(f"scenes.{s.id}.confrontation: unknown curse {c!r}")
                seen_m: set[str] = set()
                for camp in s.confrontation.camps:
                    kinds = {m in pcs for m in camp.members}
                    for m in camp.members:
                        if m not in pcs + npcs:
                            raise ValueError(f"scenes.{s.id}.confrontation.camps.{camp.id}: unknown member {m!r}")
                        if m in seen_m:
                            raise ValueError(f"scenes.{s.id}.confrontation.camps: {m!r} is in two camps")
                        seen_m.add(m)
                    if len(kinds) > 1:
                        raise ValueError(f"scenes.{s.id}.confrontation.camps.{camp.id}: a camp is either PCs or NPCs")
        from .game import ring_partners
        from .state import majority_classes, sheet_problems

        ring = ring_partners(pcs, double)
        for i, p in enumerate(self.pcs):
            majority = majority_classes(p.basic_skills)
            cls = p.class_ or (majority[0] if majority else None)
            cskills = list(CLASS_SKILLS.get(cls or "", ()))
            if p.race == "fairy":
                drop = p.fairy_drop or (cskills[2] if cskills else None)
                cskills = [s for s in cskills if s != drop] + ["fairy_curse", "fairy_guardian"]
            else:
                drop = None
                if p.fairy_drop is not None:
                    raise ValueError(f"pcs[{i}] ({p.id}): fairy_drop is only for race fairy")
            problems = sheet_problems(abilities=p.abilities.model_dump(), skills=p.basic_skills, cls=cls, race=p.race,
                                      class_skills=cskills, fairy_drop=drop, partners=ring[p.id], emotions=p.emotions)
            if problems:
                raise ValueError(f"pcs[{i}] ({p.id}) is not a legal sheet: " + "; ".join(f"{k} {m}" for k, m in problems))
            for e in (x for v in p.emotions.values() for x in v):
                if e not in EMOTION_IDS and len(e) > 40:
                    raise ValueError(f"pcs[{i}] ({p.id}): emotion {e!r} is neither a 感情表 id nor a short free text")
            if len(p.victory_conditions) + (1 if p.id in self.gm_victory_conditions else 0) > 2:
                raise ValueError(f"pcs[{i}] ({p.id}): at most 2 victory conditions including the GM's (§4.7)")
        flag_scene_ids = {fs.id for fs in self.flag_scenes}
        for s in self.scenes:
            fm = s.flag_map
            if fm is None:
                continue
            if s.confrontation is not None:
                raise ValueError(f"scenes.{s.id}: a scene is a flag map or has a confrontation, not both")
            fids = [f.id for f in fm.flags]
            for f in fm.flags:
                for req in f.requires:
                    if req not in fids:
                        raise ValueError(f"scenes.{s.id}.flag_map.flags.{f.id}: requires unknown flag {req!r}")
                if f.scene is not None and f.scene not in flag_scene_ids:
                    raise ValueError(f"scenes.{s.id}.flag_map.flags.{f.id}: unknown flag scene {f.scene!r} (flag_scenes: {sorted(flag_scene_ids)})")
            if not any(f.kind == "end" for f in fm.flags):
                raise ValueError(f"scenes.{s.id}.flag_map: needs an end flag")
            for pl in fm.places:
                if pl.flag is not None and pl.flag not in fids:
                    raise ValueError(f"scenes.{s.id}.flag_map.places.{pl.id}: unknown flag {pl.flag!r}")
            for camp in fm.camps:
                for m in camp.members:
                    if m not in pcs + npcs:
                        raise ValueError(f"scenes.{s.id}.flag_map.camps.{camp.id}: unknown member {m!r}")
            problem = flag_map_problem(fm, pcs, self.config.face_card_numeric)
            if problem is not None:
                raise ValueError(f"scenes.{s.id}.flag_map.{problem}")
            for k in fm.subevents:
                if k not in ("♠", "♣", "♥", "♦", "any"):
                    raise ValueError(f"scenes.{s.id}.flag_map.subevents: key {k!r} is not a suit (♠♣♥♦) or 'any'")
        for fs in self.flag_scenes:
            if fs.flag_map is not None:
                raise ValueError(f"flag_scenes.{fs.id}: a flag scene cannot hold another flag map")
            for x in fs.npcs:
                if x not in npcs + curses:
                    raise ValueError(f"flag_scenes.{fs.id}.npcs: unknown NPC or curse {x!r}")
        if self.creation.min_pcs > self.creation.max_pcs:
            raise ValueError("creation: min_pcs > max_pcs")
        return self


SceneEvent.model_rebuild()
