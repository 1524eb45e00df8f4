"""Bloodberry table state: characters, skills, relations, camps, the clock (rules/bloodberry.md §4)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ...core import kept as _kept
from .data import ABILITIES, BASIC_SKILLS, CLASS_SKILLS, CLASSES, RACE_SKILLS

__all__ = ["SkillState", "Char", "Relation", "Table", "pair", "majority_classes", "sheet_problems", "SECOND", "split_ref",
           "rel_key"]


def pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a < b else (b, a)


#: A34 ``two_pc_relations = double``: two PCs have two relations, the ring's PC1–PC2 and its closing PC2–PC1. A
#: character names its relations by partner: ``"beni"`` is the first (the only one otherwise), ``"beni#2"`` the second.
SECOND = "#2"


def split_ref(ref: str) -> tuple[str, int]:
    """A relation reference (``"beni"`` or ``"beni#2"``) as (partner id, 1 or 2)."""
    return (ref[: -len(SECOND)], 2) if ref.endswith(SECOND) else (ref, 1)


def rel_key(a: str, ref: str) -> tuple[str, str]:
    """The table key of ``a``'s relation ``ref``: the pair in id order, the second relation marked on its second id
    (``("aoi", "beni#2")``), so that both relations of a pair are one key each, whoever names them."""
    if ref.endswith(SECOND):  # split_ref and pair, inlined: called for every relation an option list reads
        b = ref[: -len(SECOND)]
        return (a, b + SECOND) if a < b else (b, a + SECOND)
    return (a, ref) if a < ref else (ref, a)


@dataclass(slots=True)
class SkillState:
    """§4.5: one basic skill of a character."""

    id: str
    sublimated: bool = False
    effect_available: bool = False
    #: the useful-bonus window (§5.6) in which this skill last gave +1D
    useful_window: int = -1

    def snap(self) -> dict[str, Any]:
        return {"id": self.id, "sublimated": self.sublimated, "effect_available": self.effect_available}


@dataclass(slots=True)
class Char:
    id: str
    name: str
    kind: str  # pc | npc | curse
    number: int = 0  # PC number (ring order); NPCs 0
    ab: dict[str, int] = field(default_factory=dict)  # current abilities (curse: doubt/malice/anxiety)
    full: dict[str, int] = field(default_factory=dict)  # HOUSE full values (§4.1)
    willpower: int = 0
    skills: list[SkillState] = field(default_factory=list)
    cls: str | None = None
    race: str = "human"
    class_skills: list[str] = field(default_factory=list)
    race_skills: list[str] = field(default_factory=list)
    status: str = "active"  # active | dropped | dead | vanished | absent | hosted
    otherworldly: bool = False
    lost_wish: bool = False
    profile: str = ""
    personal_curse: str | None = None
    emotions: dict[str, list[str]] = field(default_factory=dict)
    victory: list[dict[str, Any]] = field(default_factory=list)
    description: str = ""
    secret: str = ""
    #: 合い鍵 held (own class skill or a key given by a 月の魔女)
    has_key: bool = False
    hosted_by: str | None = None
    foam_bonus: dict[str, int] = field(default_factory=dict)  # ability -> +n while a person is hosted (A19)
    no_relation_until: int = -1  # 完全支配 refusal: clock minute until which no relation checks (A21)
    absent_sessions: int = 0

    # -- helpers -----------------------------------------------------------------------------------------------
    @property
    def is_pc(self) -> bool:
        return self.kind == "pc"

    @property
    def is_curse(self) -> bool:
        return self.kind == "curse"

    @property
    def can_act(self) -> bool:
        return self.status == "active" or (self.status == "dead")

    @property
    def in_play(self) -> bool:
        return self.status in ("active", "dead")

    def skill(self, sid: str) -> SkillState | None:
        for s in self.skills:
            if s.id == sid:
                return s
        return None

    def effect_ready(self, sid: str) -> bool:
        s = self.skill(sid)
        return s is not None and s.sublimated and s.effect_available

    @property
    def sublimated_count(self) -> int:
        return sum(1 for s in self.skills if s.sublimated)

    def has_class_skill(self, sid: str) -> bool:
        return sid in self.class_skills or sid in self.race_skills

    def value(self, basis: str) -> int:
        """Current value of an ability (PC/NPC) or a curse stat; a curse rolls its stat for the matching ability."""
        if self.is_curse:
            stat = {"passion": "doubt", "grace": "malice", "maturity": "anxiety"}.get(basis, basis)
            return self.ab[stat]
        return self.ab[basis] + self.foam_bonus.get(basis, 0)

    def any_zero(self) -> bool:
        return not self.is_curse and any(self.ab[a] <= 0 for a in ABILITIES)

    def snap(self, private: bool = True) -> dict[str, Any]:
        d: dict[str, Any] = {
            "id": self.id,
            "name": self.name,
            "kind": self.kind,
            "status": self.status,
            "abilities": dict(self.ab),
        }
        if self.kind == "pc":
            d.update(
                number=self.number,
                full=dict(self.full),
                willpower=self.willpower,
                cls=self.cls,
                race=self.race,
                class_skills=list(self.class_skills),
                race_skills=list(self.race_skills),
                skills=[s.snap() for s in self.skills],
                has_key=self.has_key,
            )
        elif self.kind == "npc":
            d.update(willpower=self.willpower, otherworldly=self.otherworldly)
        if self.foam_bonus:
            d["foam_bonus"] = dict(self.foam_bonus)
        if self.hosted_by:
            d["hosted_by"] = self.hosted_by
        if self.no_relation_until >= 0:
            d["no_relation_until"] = self.no_relation_until
        if self.absent_sessions:
            d["absent_sessions"] = self.absent_sessions
        if private:
            d["profile"] = self.profile
            d["personal_curse"] = self.personal_curse
            d["emotions"] = {k: list(v) for k, v in self.emotions.items()}
            d["victory"] = [dict(v) for v in self.victory]
            if self.secret:
                d["secret"] = self.secret
        return d


@dataclass(slots=True)
class Relation:
    name: str
    strength: int = 0


@dataclass
class Table:
    chars: dict[str, Char] = field(default_factory=dict)
    relations: dict[tuple[str, str], Relation] = field(default_factory=dict)
    #: (camp, curse) -> camp relation strength (§7.5)
    camp_strength: dict[tuple[str, str], int] = field(default_factory=dict)
    camp_cap: dict[str, int] = field(default_factory=dict)
    camps: dict[str, list[str]] = field(default_factory=dict)
    clock: int = 0  # in-game minutes (§11 G9)
    frozen_minutes: int = 0  # 時間: stopped time still to come
    flags: set[str] = field(default_factory=set)
    clues: list[str] = field(default_factory=list)
    #: 破魔 blocks: (user, target) -> blocked check kind
    hama: dict[tuple[str, str], str] = field(default_factory=dict)
    #: 破魔 on the other of two PCs with two relations (A34 double): (user, target) -> the relation it wears down
    hama_rel: dict[tuple[str, str], str] = field(default_factory=dict)

    _pcs_cache: tuple[int, list[Char]] | None = None

    def pcs(self) -> list[Char]:
        """PCs in PC-number order (cached: characters are only ever added)."""
        cache = self._pcs_cache
        if cache is None or cache[0] != len(self.chars):
            cache = self._pcs_cache = (len(self.chars), self._sorted_pcs())
        elif _kept.CHECK:
            _kept.confirm("pcs", cache[0], cache[1], self._sorted_pcs, _kept.same_objects)
        return cache[1]

    def _sorted_pcs(self) -> list[Char]:
        return sorted((c for c in self.chars.values() if c.kind == "pc"), key=lambda c: c.number)

    def rel(self, a: str, b: str) -> Relation:
        """``a``'s relation ``b`` (a partner id, or ``"<id>#2"`` for the second relation of two PCs, A34)."""
        k = rel_key(a, b)
        r = self.relations.get(k)
        if r is None:
            r = self.relations[k] = Relation("")
        return r

    def strength(self, a: str, b: str) -> int:
        r = self.relations.get(rel_key(a, b))
        return r.strength if r is not None else 0

    def snap(self) -> dict[str, Any]:
        return {
            "chars": {k: c.snap() for k, c in self.chars.items()},
            "relations": {f"{a}|{b}": {"name": r.name, "strength": r.strength} for (a, b), r in sorted(self.relations.items())},
            "camp_strength": {f"{c}|{k}": v for (c, k), v in sorted(self.camp_strength.items())},
            "camp_cap": dict(self.camp_cap),
            "clock": self.clock,
            "flags": sorted(self.flags),
            "clues": list(self.clues),
            "hama": {f"{u}|{t}": k for (u, t), k in sorted(self.hama.items())},
            **({"hama_relation": {f"{u}|{t}": r for (u, t), r in sorted(self.hama_rel.items())}} if self.hama_rel else {}),
        }


def majority_classes(skills: list[str]) -> list[str]:
    """§3 step 4: the class appearing most often (3-0 or 2-1); on 1-1-1 every class present is allowed."""
    counts = Counter(BASIC_SKILLS[s].cls for s in skills if s in BASIC_SKILLS)
    if not counts:
        return []
    top = max(counts.values())
    return [c for c in CLASSES if counts.get(c) == top]


def sheet_problems(
    *,
    abilities: dict[str, int],
    skills: list[str],
    cls: str | None,
    race: str,
    class_skills: list[str] | None,
    fairy_drop: str | None,
    partners: list[str],
    emotions: dict[str, list[str]],
    relation_strengths: dict[str, int] | None = None,
    sublimated: list[str] | None = None,
    willpower: int | None = None,
) -> list[tuple[str, str]]:
    """Validation V1–V8 of §3. Returns (code, problem) pairs; empty = legal."""
    out: list[tuple[str, str]] = []
    if any(abilities.get(a, 0) < 1 for a in ABILITIES) or sum(abilities.get(a, 0) for a in ABILITIES) != 7:
        out.append(("V1", f"abilities must each be ≥ 1 and total 7 (1/1/1 + 4 points), got {abilities}"))
    elif any(abilities[a] > 5 for a in ABILITIES):
        out.append(("V1", f"abilities must each be 1–5 at creation, got {abilities}"))
    if len(skills) != 3 or len(set(skills)) != 3 or any(s not in BASIC_SKILLS for s in skills):
        out.append(("V2", f"exactly 3 different basic skills from the list of 15, got {skills}"))
        return out
    allowed = majority_classes(skills)
    if cls is None or cls not in allowed:
        out.append(("V3", f"class must be {' or '.join(allowed)} for skills {skills}, got {cls}"))
    subs = {BASIC_SKILLS[s].sub_ability for s in skills}
    if race == "fairy" and len(subs) != 1:
        out.append(("V5", "a fairy needs 3 basic skills with the same sublimation ability"))
    if cls in CLASS_SKILLS and class_skills is not None:
        base = list(CLASS_SKILLS[cls])
        if race == "fairy":
            if fairy_drop not in base:
                out.append(("V4", f"a fairy drops one of {base}, got {fairy_drop}"))
            want = [s for s in base if s != fairy_drop] + list(RACE_SKILLS)
        else:
            want = base
        if sorted(class_skills) != sorted(want):
            out.append(("V4", f"class skills must be {want}, got {class_skills}"))
    for p in partners:
        if relation_strengths is not None and relation_strengths.get(p, 0) != 0:
            out.append(("V6", f"relation with {p} must start at strength 0"))
        n = len(emotions.get(p, []))
        if not 1 <= n <= 2:
            out.append(("V7", f"relation with {p} needs 1 or 2 emotions, got {n}"))
    for p in emotions:
        if p not in partners:
            out.append(("V6", f"emotions for {p}, who is not a ring partner ({partners})"))
    if sublimated:
        out.append(("V8", f"no skill may be sublimated at creation ({sublimated})"))
    if willpower is not None and willpower != 1:
        out.append(("V8", f"気力 starts at 1, got {willpower}"))
    return out
