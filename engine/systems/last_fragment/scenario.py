"""Scenario file model for ラストフラグメント (rules/last_fragment.md Appendix B). Published as JSON Schema by ``trpg
schema --system last_fragment``.

A scenario gives the PCs (``pcs_expected`` built at the table, or pregenerated ``pcs``), their handouts (secret
fragments), the scenes (daily / non-daily, unlock conditions in the Condition DSL of B.5, placed objects, loose
items and NPCs with discovery requirements, triggers), the objects (designated ability, rewards, traps), the
fragments (exactly one of kind ``last``), the items, the NPCs and enemies (stat blocks of B.4), the climax and
``config_overrides`` (rules flags of §9.10). Cross-references are checked here, so ``trpg validate`` names the
field of a broken one.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from ...core.scenario import ScenarioBase
from .conditions import condition_refs, parse_condition
from .config import LastFragmentConfig
from .tables import Tables

__all__ = ["LastFragmentScenario", "SceneSpec", "ObjectSpec", "FragmentSpec", "ItemSpec", "CharSpec", "PCSheet",
           "HandoutSpec", "ClimaxSpec", "TriggerSpec", "EffectSpec", "PlacedSpec", "SkillSpec", "sheet_problems"]

ID = r"^[a-z][a-z0-9_]*$"
DICE = re.compile(r"^(\d+)(?:[dD](\d+))?(?:\+(\d+))?$")
_ON = re.compile(r"^(enter|cycle_end|after_investigate)(?:\(\s*([a-z][a-z0-9_]*)\s*\))?$")


class _M(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _dice_ok(v: str) -> str:
    if not DICE.match(v.strip()):
        raise ValueError(f"{v!r} is not a number or dice (e.g. 3, 1D4, 2D4+2)")
    return v.strip().upper()


class Requirement(_M):
    """B.2 discovery requirement: revealed by a PC whose current level of ``ability`` is at least ``min_level``."""

    ability: str
    min_level: int = Field(1, ge=1, le=99)


class PlacedSpec(_M):
    kind: Literal["object", "item", "npc"]
    ref: str = Field(description="an object id, an item id (a loose item) or an NPC/enemy id")
    discovery_requirement: Requirement | None = None


Targets = str | list[str]


class ShockEffect(_M):
    ability: str
    targets: Targets = Field("all_pcs", description="all_pcs, investigator, or a list of character ids")


class DamageEffect(_M):
    amount: str = Field(description="HP lost: a number or dice (1D4)")
    targets: Targets = "all_pcs"

    @field_validator("amount", mode="before")
    @classmethod
    def _amt(cls, v: Any) -> str:
        return _dice_ok(str(v))


class GiveFragmentEffect(_M):
    id: str
    to: Targets = "investigator"


class SetFlagEffect(_M):
    name: str = Field(pattern=ID)


class EffectSpec(_M):
    """One trigger effect (B.2): exactly one of shock_check, damage, give_fragment, set_flag, narrate."""

    shock_check: ShockEffect | None = None
    damage: DamageEffect | None = None
    give_fragment: GiveFragmentEffect | None = None
    set_flag: SetFlagEffect | None = None
    narrate: str | None = None

    @model_validator(mode="after")
    def _one(self) -> EffectSpec:
        given = [k for k in ("shock_check", "damage", "give_fragment", "set_flag", "narrate")
                 if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError("an effect names exactly one of shock_check, damage, give_fragment, set_flag, narrate"
                             f" (given: {', '.join(given) or 'none'})")
        return self

    @property
    def what(self) -> str:
        return next(k for k in ("shock_check", "damage", "give_fragment", "set_flag", "narrate")
                    if getattr(self, k) is not None)


class TriggerSpec(_M):
    on: str = Field(description="enter, cycle_end, or after_investigate(<object id>)")
    object: str | None = Field(None, description="after_investigate: the object (or write after_investigate(id))")
    condition: Any = Field(None, description="fires only when this condition holds (Condition DSL)")
    optional: bool = Field(False, description="the GM decides whether to fire it (gm_scene_events)")
    repeat: bool = Field(False, description="fire every time (default: once per session)")
    effect: EffectSpec

    @model_validator(mode="before")
    @classmethod
    def _yaml_on(cls, v: Any) -> Any:
        """YAML 1.1 reads a bare ``on:`` key as the boolean true: take it as ``on``."""
        if isinstance(v, dict) and True in v and "on" not in v:
            v = dict(v)
            v["on"] = v.pop(True)
        return v

    @model_validator(mode="after")
    def _on(self) -> TriggerSpec:
        m = _ON.match(self.on.strip())
        if m is None:
            raise ValueError(f"on: {self.on!r}; one of enter, cycle_end, after_investigate(<object id>)")
        self.on = m.group(1)
        if m.group(2):
            self.object = m.group(2)
        if self.on == "after_investigate" and not self.object:
            raise ValueError("on: after_investigate needs the object (after_investigate(o1) or object: o1)")
        self.condition = parse_condition(self.condition)
        return self


class SceneSpec(_M):
    id: str = Field(pattern=ID)
    name: str = Field(min_length=1)
    type: Literal["daily", "nondaily"]
    description: str = Field("", description="read out on entering the scene")
    unlock: Any = Field(None, validate_default=True, description="unlock condition (Condition DSL; hidden from players); empty: open")
    revisitable: bool = False
    placed: list[PlacedSpec] = Field(default_factory=list)
    triggers: list[TriggerSpec] = Field(default_factory=list)
    time: int | None = Field(None, ge=1, le=99, description="investigation_limit_mode=scene_time (Appendix A.4)")

    @field_validator("unlock", mode="after")
    @classmethod
    def _unlock(cls, v: Any) -> dict[str, Any]:
        return parse_condition(v)


class Rewards(_M):
    fragments: list[str] = Field(default_factory=list)
    items: list[str] = Field(default_factory=list)


class ObjectSpec(_M):
    """B.3 an investigable object (need not be physical)."""

    id: str = Field(pattern=ID)
    name: str = Field(min_length=1)
    description: str = ""
    designated_ability: str
    rewards: Rewards = Field(default_factory=Rewards)
    on_fail: list[EffectSpec] = Field(default_factory=list)
    on_success_extra: list[EffectSpec] = Field(default_factory=list)


class FragmentSpec(_M):
    id: str = Field(pattern=ID)
    name: str = Field(min_length=1, description="a short title (seen only by holders)")
    text: str = Field(min_length=1, description="the information (seen only by holders)")
    kind: Literal["normal", "secret", "last"] = "normal"
    no_come_out: bool = Field(False, description="a secret the holder may not reveal voluntarily")
    cooperative: bool = Field(False, description="a secret the scripted holder comes out with (sf_come_out)")


class ItemSpec(_M):
    id: str = Field(pattern=ID)
    name: str = Field(min_length=1)
    description: str = ""


class InfoSpec(_M):
    designated_ability: str
    fragments: list[str] = Field(default_factory=list)


class CharSpec(_M):
    """B.4 an NPC or enemy stat block."""

    id: str = Field(pattern=ID)
    name: str = Field(min_length=1)
    description: str = ""
    hp: int = Field(20, ge=0, le=999)
    max_hp: int | None = Field(None, ge=1, le=999)
    abilities: dict[str, int] = Field(default_factory=dict)
    skills: list[str] = Field(default_factory=list, description="besides 通常攻撃 (always known)")
    items: list[str] = Field(default_factory=list, description="item ids")
    fragments_held: list[str] = Field(default_factory=list)
    secret_fragments: list[str] = Field(default_factory=list)
    info: InfoSpec | None = None
    is_enemy: bool = False
    hostile: bool = Field(False, description="designates against PCs (bond_check_designate_ability)")
    abnormalities: list[str] = Field(default_factory=list)
    tokens: int = Field(0, ge=0, le=99)

    @field_validator("abilities")
    @classmethod
    def _lv(cls, v: dict[str, int]) -> dict[str, int]:
        for k, lv in v.items():
            if not 0 <= lv <= 99:
                raise ValueError(f"{k}: level {lv} is not 0..99")
        return v


class PCSheet(_M):
    """A pregenerated PC (§3): abilities of 能力/知識 (異能 derived), skills besides 通常攻撃, initial items."""

    id: str = Field(pattern=ID)
    name: str = Field(min_length=1)
    title: str = Field("", description="肩書")
    age: str = ""
    sex: str = ""
    memo: str = Field("", description="profile memo (§3 step 1; no mechanics)")
    abilities: dict[str, int] = Field(default_factory=dict)
    skills: list[str] = Field(default_factory=list)
    items: list[str] = Field(default_factory=list, description="item names (named freely)")
    tokens: int = Field(0, ge=0, le=99)
    abnormalities: list[str] = Field(default_factory=list)


class HandoutSpec(_M):
    pc: str = Field(description="a PC id (pc1, pc2, … when the PCs are built at the table)")
    text: str = Field(min_length=1, description="the PC's premise (given privately); as in every text of the scenario, "
                      "{pc:<id>} is the name of the PC in that seat and {pc:<id>|<words>} the words while it is the "
                      "scenario's own PC (a PC built at the table is named)")
    secret_fragments: list[str] = Field(default_factory=list)


class ClimaxSpec(_M):
    name: str = "クライマックス"
    description: str = ""
    scene_type: Literal["daily", "nondaily"] | None = Field(None, description="default: config climax_scene_type")
    enemies: list[str] = Field(default_factory=list)
    npc_combatants: list[str] = Field(default_factory=list)


class SkillSpec(_M):
    """A scenario skill (same fields as §9.6)."""

    id: str = Field(pattern=ID)
    name: str = Field(min_length=1)
    ability: str
    sp_cost: int = Field(ge=0, le=99)
    kind: Literal["attack", "heal", "revive", "bond", "cleanse"]
    dice: str = ""
    extra: str = ""
    timing: Literal["tsuujou", "round_start", "round_end"] = Field(
        "tsuujou", description="§9.6: tsuujou (通常時: a main action, a combat action); HOUSE round_start / round_end: "
                               "used in the combat's free-action window at the round's start / end")
    self_allowed: bool = False
    effect_text: str = ""
    extra_text: str = ""


class LastFragmentScenario(ScenarioBase):
    system: Literal["last_fragment"] = "last_fragment"
    setting: str = Field("", description="the opening's public narration")
    gm_notes: str = Field("", description="GM-only notes")
    pcs_expected: int = Field(2, ge=1, le=8)
    pcs: list[PCSheet] = Field(default_factory=list, description="pregenerated PCs (empty: built at the table)")
    start_scene: str
    scenes: list[SceneSpec] = Field(min_length=1)
    objects: list[ObjectSpec] = Field(default_factory=list)
    fragments: list[FragmentSpec] = Field(min_length=1)
    items: list[ItemSpec] = Field(default_factory=list)
    npcs: list[CharSpec] = Field(default_factory=list)
    enemies: list[CharSpec] = Field(default_factory=list)
    handouts: list[HandoutSpec] = Field(default_factory=list)
    skills: list[SkillSpec] = Field(default_factory=list)
    climax: ClimaxSpec = Field(default_factory=ClimaxSpec)
    config_overrides: dict[str, Any] = Field(default_factory=dict, description="rules flags (§9.10)")

    @field_validator("config_overrides")
    @classmethod
    def _config(cls, v: dict[str, Any]) -> dict[str, Any]:
        LastFragmentConfig(**v)
        return v

    @model_validator(mode="after")
    def _refs(self) -> LastFragmentScenario:
        problems = scenario_problems(self, LastFragmentConfig(**self.config_overrides))
        if problems:
            raise ValueError("; ".join(problems))
        return self

    def pc_ids(self) -> list[str]:
        if self.pcs:
            return [p.id for p in self.pcs]
        return [f"pc{i + 1}" for i in range(self.pcs_expected)]


def sheet_problems(where: str, abilities: dict[str, int], skills: list[str], items: list[str], tb: Tables,
                   cfg: LastFragmentConfig, ap_total: int | None = None) -> list[str]:
    """§3 validation of a PC sheet (abilities of 能力/知識, skills, inventory)."""
    out: list[str] = []
    spent = 0
    for a, lv in abilities.items():
        if a not in tb.where:
            out.append(f"{where}.abilities.{a}: unknown ability; abilities: {', '.join(tb.order)}")
            continue
        if tb.category(a) == "inou":
            out.append(f"{where}.abilities.{a}: a 異能 is derived (能力 + 知識 of its row), not bought")
            continue
        if lv < 0:
            out.append(f"{where}.abilities.{a}: level {lv} < 0")
        if cfg.max_ability_level is not None and lv > cfg.max_ability_level:
            out.append(f"{where}.abilities.{a}: level {lv} > max_ability_level {cfg.max_ability_level}")
        spent += lv * cfg.ap_cost_per_level
    total = cfg.initial_ap if ap_total is None else ap_total
    if spent > total:
        out.append(f"{where}.abilities: {spent} AP spent, {total} available (§3 step 4)")
    if "tsuujou_kougeki" in skills:
        out.append(f"{where}.skills: 通常攻撃 is always known; list only the other skills")
    if len(set(skills)) != len(skills):
        out.append(f"{where}.skills: a skill is listed twice")
    for s in skills:
        if s not in tb.skills:
            out.append(f"{where}.skills: unknown skill {s!r}; skills: {', '.join(tb.skills)}")
    if len(skills) > cfg.initial_skill_slots and ap_total is None:
        out.append(f"{where}.skills: {len(skills)} skills, {cfg.initial_skill_slots} slots (initial_skill_slots)")
    if len(items) > cfg.inventory_max:
        out.append(f"{where}.items: {len(items)} items; at most {cfg.inventory_max}")
    return out


def _targets_problems(where: str, t: Targets, chars: set[str]) -> list[str]:
    if isinstance(t, str):
        if t in ("all_pcs", "investigator", "all"):
            return []
        t = [t]
    return [f"{where}: unknown character {x!r}" for x in t if x not in chars]


#: a PC named in a scenario text: ``{pc:<id>}`` is the name of the PC in that seat, ``{pc:<id>|<words>}`` the words
#: when it is the scenario's own PC (a nickname, a reading) and the name of a PC built at the table otherwise
PC_REF = re.compile(r"\{pc:([^{}|]*)(?:\|([^{}]*))?\}")


#: the texts the table reads with ``{pc:<id>}`` named (``game.txt``), as field paths with ``[*]`` for a list index;
#: any effect's ``narrate`` too. Elsewhere (a name, an id, an item's description) a reference would be shown raw.
PC_REF_FIELDS = frozenset({"handouts[*].text", "fragments[*].text", "scenes[*].description", "climax.description",
                           "npcs[*].description", "enemies[*].description", "objects[*].description",
                           "items[*].description", "setting", "summary", "gm_notes"})


def _pc_ref_problems(value: Any, where: str, pc_ids: list[str]) -> list[str]:
    """``{pc:<id>}`` references to unknown PCs, or in a field the table does not read as text (``where`` the field
    path)."""
    if isinstance(value, str):
        if "{pc:" not in value:
            return []
        if re.sub(r"\[\d+\]", "[*]", where) not in PC_REF_FIELDS and not where.endswith(".narrate"):
            return [f"{where}: {{pc:…}} is read only in {', '.join(sorted(PC_REF_FIELDS))} and an effect's narrate "
                    "(here it would be shown as written)"]
        return [f"{where}: {{pc:{m.group(1)[:60]}}} names no PC; PCs: {', '.join(pc_ids)}"
                for m in PC_REF.finditer(value) if m.group(1) not in pc_ids]
    if isinstance(value, dict):
        return [x for k, v in value.items() for x in _pc_ref_problems(v, f"{where}.{k}" if where else str(k), pc_ids)]
    if isinstance(value, list):
        return [x for k, v in enumerate(value) for x in _pc_ref_problems(v, f"{where}[{k}]", pc_ids)]
    return []


def scenario_problems(sc: LastFragmentScenario, cfg: LastFragmentConfig) -> list[str]:
    """Every cross-reference problem of a scenario under ``cfg``, each naming its field."""
    out: list[str] = []
    out += _pc_ref_problems(sc.model_dump(exclude={"pcs"}), "", sc.pc_ids())
    tb = Tables(cfg, sc.skills)
    abil = set(tb.where)
    pc_ids = sc.pc_ids()
    if sc.pcs and len(sc.pcs) != sc.pcs_expected:
        out.append(f"pcs_expected: {sc.pcs_expected}, but {len(sc.pcs)} pregenerated pcs are given")
    npc_ids = [n.id for n in sc.npcs]
    enemy_ids = [e.id for e in sc.enemies]
    ids = pc_ids + npc_ids + enemy_ids + ["gm"]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        out.append(f"pcs/npcs/enemies: ids used twice (or the reserved id gm): {', '.join(dup)}")
    names: dict[str, list[str]] = {}
    sheets: list[PCSheet | CharSpec] = [*sc.pcs, *sc.npcs, *sc.enemies]
    for sh in sheets:
        names.setdefault(sh.name.strip(), []).append(sh.id)
    for name, who in names.items():
        if len(who) > 1:
            out.append(f"npcs/enemies: the name {name!r} is used by {', '.join(who)}; give each character its own name")
    chars = set(pc_ids) | set(npc_ids) | set(enemy_ids)
    frag = {f.id: f for f in sc.fragments}
    items = {i.id: i for i in sc.items}
    objs = {o.id: o for o in sc.objects}
    scenes = {s.id: s for s in sc.scenes}
    lasts = [f.id for f in sc.fragments if f.kind == "last"]
    if len(lasts) != 1:
        out.append(f"fragments: exactly one fragment of kind last (§7.5); found {len(lasts)}"
                   + (f" ({', '.join(lasts)})" if lasts else ""))
    if sc.start_scene not in scenes:
        out.append(f"start_scene: unknown scene {sc.start_scene!r}; scenes: {', '.join(scenes)}")
    for sk in sc.skills:
        if sk.ability not in abil:
            out.append(f"skills.{sk.id}.ability: unknown ability {sk.ability!r}")
        for field in ("dice", "extra"):
            v = getattr(sk, field)
            if v and not DICE.match(v.lstrip("+")):
                out.append(f"skills.{sk.id}.{field}: {v!r} is not dice")
    # secret fragments: each has exactly one origin holder
    origins: dict[str, list[str]] = {}
    for hk, h in enumerate(sc.handouts):
        if h.pc not in pc_ids:
            out.append(f"handouts[{hk}].pc: unknown PC {h.pc!r}; PCs: {', '.join(pc_ids)}")
        for hf in h.secret_fragments:
            origins.setdefault(hf, []).append(f"handouts[{hk}]")
    for ch in [*sc.npcs, *sc.enemies]:
        for cf in ch.secret_fragments:
            origins.setdefault(cf, []).append(ch.id)
    for fid, where in origins.items():
        if fid not in frag:
            out.append(f"{where[0]}.secret_fragments: unknown fragment {fid!r}")
            continue
        if frag[fid].kind == "normal":
            out.append(f"fragments.{fid}.kind: it is handed out as a secret ({', '.join(where)}); kind secret or last")
        if len(where) > 1:
            out.append(f"fragments.{fid}: a secret fragment has one original holder; given by {', '.join(where)}")
    for fr in sc.fragments:
        if fr.kind == "secret" and fr.id not in origins:
            out.append(f"fragments.{fr.id}: kind secret, but no handout or NPC holds it (secret_fragments)")
        if (fr.no_come_out or fr.cooperative) and fr.kind == "normal":
            out.append(f"fragments.{fr.id}: no_come_out/cooperative are for secret fragments")
    # objects
    for o in sc.objects:
        w = f"objects.{o.id}"
        if o.designated_ability not in abil:
            out.append(f"{w}.designated_ability: unknown ability {o.designated_ability!r}")
        for f in o.rewards.fragments:
            if f not in frag:
                out.append(f"{w}.rewards.fragments: unknown fragment {f!r}")
        for i in o.rewards.items:
            if i not in items:
                out.append(f"{w}.rewards.items: unknown item {i!r}")
        for lst in ("on_fail", "on_success_extra"):
            for j, e in enumerate(getattr(o, lst)):
                out += _effect_problems(f"{w}.{lst}[{j}]", e, abil, frag, chars)
    # characters
    for c in [*sc.npcs, *sc.enemies]:
        w = f"{'enemies' if c.id in enemy_ids else 'npcs'}.{c.id}"
        for a in c.abilities:
            if a not in abil:
                out.append(f"{w}.abilities.{a}: unknown ability")
        for skid in c.skills:
            if skid not in tb.skills:
                out.append(f"{w}.skills: unknown skill {skid!r}; skills: {', '.join(tb.skills)}")
        for i in c.items:
            if i not in items:
                out.append(f"{w}.items: unknown item {i!r}")
        if len(c.items) > cfg.inventory_max:
            out.append(f"{w}.items: at most {cfg.inventory_max}")
        for f in c.fragments_held:
            if f not in frag:
                out.append(f"{w}.fragments_held: unknown fragment {f!r}")
        if c.info is not None:
            if c.info.designated_ability not in abil:
                out.append(f"{w}.info.designated_ability: unknown ability {c.info.designated_ability!r}")
            for f in c.info.fragments:
                if f not in frag:
                    out.append(f"{w}.info.fragments: unknown fragment {f!r}")
        for a in c.abnormalities:
            if a not in tb.abn:
                out.append(f"{w}.abnormalities: unknown abnormality {a!r}")
        if len(c.abnormalities) > 5:
            out.append(f"{w}.abnormalities: at most 5")
        if c.max_hp is not None and c.hp > c.max_hp:
            out.append(f"{w}.hp: {c.hp} > max_hp {c.max_hp}")
    for pk, pc in enumerate(sc.pcs):
        out += sheet_problems(f"pcs[{pk}] ({pc.id})", pc.abilities, pc.skills, pc.items, tb, cfg)
        for a in pc.abnormalities:
            if a not in tb.abn:
                out.append(f"pcs[{pk}].abnormalities: unknown abnormality {a!r}")
    # scenes
    flags_set = {e.set_flag.name for s in sc.scenes for t in s.triggers for e in [t.effect] if e.set_flag}
    flags_set |= {e.set_flag.name for o in sc.objects for e in [*o.on_fail, *o.on_success_extra] if e.set_flag}
    item_names = {i.name for i in sc.items} | {n for pc in sc.pcs for n in pc.items}
    placed_where: dict[str, str] = {}
    for s in sc.scenes:
        w = f"scenes.{s.id}"
        for j, p in enumerate(s.placed):
            pw = f"{w}.placed[{j}]"
            if p.kind == "object" and p.ref not in objs:
                out.append(f"{pw}.ref: unknown object {p.ref!r}; objects: {', '.join(objs) or 'none'}")
            elif p.kind == "item" and p.ref not in items:
                out.append(f"{pw}.ref: unknown item {p.ref!r}; items: {', '.join(items) or 'none'}")
            elif p.kind == "npc" and p.ref not in set(npc_ids) | set(enemy_ids):
                out.append(f"{pw}.ref: unknown NPC {p.ref!r}; NPCs: {', '.join(npc_ids) or 'none'}")
            if p.discovery_requirement is not None and p.discovery_requirement.ability not in abil:
                out.append(f"{pw}.discovery_requirement.ability: unknown ability {p.discovery_requirement.ability!r}")
            if p.kind == "object" and p.ref in objs:
                if p.ref in placed_where:
                    out.append(f"{pw}.ref: object {p.ref!r} is already placed in {placed_where[p.ref]}")
                placed_where[p.ref] = s.id
                if s.type == "daily" and objs[p.ref].designated_ability in abil \
                        and tb.category(objs[p.ref].designated_ability) == "inou":
                    out.append(f"{pw}: object {p.ref!r} designates a 異能 in a daily scene (AMB-37)")
        for j, t in enumerate(s.triggers):
            tw = f"{w}.triggers[{j}]"
            if t.on == "after_investigate" and t.object not in objs:
                out.append(f"{tw}.on: unknown object {t.object!r}")
            out += _effect_problems(f"{tw}.effect", t.effect, abil, frag, chars)
            if t.effect.shock_check and s.type == "daily" and t.effect.shock_check.ability in abil \
                    and tb.category(t.effect.shock_check.ability) == "inou":
                out.append(f"{tw}.effect.shock_check.ability: a 異能 in a daily scene (AMB-37)")
            out += _cond_problems(f"{tw}.condition", t.condition, frag, scenes, objs, chars, item_names, flags_set)
        out += _cond_problems(f"{w}.unlock", s.unlock, frag, scenes, objs, chars, item_names, flags_set)
        if cfg.investigation_limit_mode == "scene_time" and s.time is None:
            out.append(f"{w}.time: investigation_limit_mode=scene_time needs each scene's time")
    for e in sc.climax.enemies:
        if e not in enemy_ids:
            out.append(f"climax.enemies: unknown enemy {e!r}; enemies: {', '.join(enemy_ids) or 'none'}")
    for n in sc.climax.npc_combatants:
        if n not in npc_ids:
            out.append(f"climax.npc_combatants: unknown NPC {n!r}; NPCs: {', '.join(npc_ids) or 'none'}")
    return out


def _effect_problems(w: str, e: EffectSpec, abil: set[str], frag: dict[str, Any], chars: set[str]) -> list[str]:
    out: list[str] = []
    if e.shock_check:
        if e.shock_check.ability not in abil:
            out.append(f"{w}.shock_check.ability: unknown ability {e.shock_check.ability!r}")
        out += _targets_problems(f"{w}.shock_check.targets", e.shock_check.targets, chars)
    if e.damage:
        out += _targets_problems(f"{w}.damage.targets", e.damage.targets, chars)
    if e.give_fragment:
        if e.give_fragment.id not in frag:
            out.append(f"{w}.give_fragment.id: unknown fragment {e.give_fragment.id!r}")
        out += _targets_problems(f"{w}.give_fragment.to", e.give_fragment.to, chars)
    return out


def _cond_problems(w: str, c: dict[str, Any], frag: dict[str, Any], scenes: dict[str, Any], objs: dict[str, Any],
                   chars: set[str], item_names: set[str], flags: set[str]) -> list[str]:
    out: list[str] = []
    for op, arg, v in condition_refs(c):
        if op == "fragment_held" and arg == "id" and v not in frag:
            out.append(f"{w}: fragment_held: unknown fragment {v!r}")
        elif arg == "by" and v not in ("any_pc", "all_pcs") and v not in chars:
            out.append(f"{w}: {op}: by {v!r} is not any_pc, all_pcs or a character")
        elif op == "visited" and v not in scenes:
            out.append(f"{w}: visited: unknown scene {v!r}")
        elif op == "investigated" and v not in objs and v not in chars:
            out.append(f"{w}: investigated: unknown object {v!r}")
        elif op == "item_held" and arg == "item" and v not in item_names:
            out.append(f"{w}: item_held: no item is named {v!r}")
        elif op == "flag" and v not in flags:
            out.append(f"{w}: flag: no trigger sets the flag {v!r}")
    return out
