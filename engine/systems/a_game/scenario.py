"""Scenario file model for 「A」 (rules/a_game.md §3, §6, §9.8). Published as JSON Schema by ``trpg schema --system
a_game``.

A scenario gives the world (its summary and forbidden keywords), the SD's anticipated checks (``expected_checks``,
for the 30% omnipotence test; GM-only unless ``public_expected_checks``), the PCs (pregenerated sheets: name, 設定,
success elements with categories) or ``creation`` to build them at the table, the SDCs, a suggested cast
assignment, element suggestions, setting facts (targets of hero point effect B, some immutable), and the scenes:
each with a clearly stated goal (category, difficulty, mode), the time scale, hazards (reverse elements),
advantage hints (temporary elements), passive-check events, SDC actions, category difficulties and duration hints.
Cross-references are checked here, so ``trpg validate`` names the field of a broken one.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from ...core.scenario import ScenarioBase
from .config import CAST_IDS, AGameConfig
from .names import form_problem, normalize

__all__ = [
    "AGameScenario", "ElementSpec", "PCSheet", "SDCSheet", "GoalSpec", "HazardSpec", "HintSpec", "PassiveSpec",
    "EventSpec", "SdcActionSpec", "DurationHint", "SceneSpec", "SettingFact", "ExpectedCheck", "WorldSpec",
    "CreationSpec", "Category", "CastId",
]

ID = r"^[a-z][a-z0-9_]*$"
Category = Literal["combat", "athletics", "perception", "investigation", "knowledge", "technical", "social",
                   "stealth", "willpower", "supernatural"]
CastId = Literal["protagonist", "partner", "expert", "companion", "mascot", "guest"]
Mode = Literal["single_check", "success_count", "gm_judgement"]


class _M(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _unique_categories(v: list[str]) -> list[str]:
    if len(set(v)) != len(v):
        raise ValueError("a category is listed twice")
    return v


class ElementSpec(_M):
    """A success element (§4.1): a word or short phrase and its HOUSE categories (§9.7, 1..10 of them)."""

    name: str = Field(min_length=1, max_length=100, description="one word or a short phrase (at most element_max_len "
                                                                 "characters after normalization)")
    categories: list[Category] = Field(min_length=1, max_length=10, description="check categories it helps in (§9.7)")

    @field_validator("categories")
    @classmethod
    def _cats(cls, v: list[str]) -> list[str]:
        return _unique_categories(v)


class PCSheet(_M):
    """A pregenerated PC (§3.1 steps 4–5): name, 設定 and success elements; the cast comes from D01."""

    id: str = Field(pattern=ID)
    name: str = Field(min_length=1, max_length=30)
    player: str = Field("", description="the PL's id (default: the PC's id); the per-turn registration limit is per PL")
    background: str = Field("", description="設定: free text")
    elements: list[ElementSpec] = Field(default_factory=list, max_length=20)
    opposes: bool = Field(False, description="D15: checks targeting this PC are opposed by it")


class SDCSheet(_M):
    """An SDC (セッションデザイナーキャラクター, §9.8 G9): its elements (the SD's own; never counted)."""

    id: str = Field(pattern=ID)
    name: str = Field(min_length=1, max_length=30)
    description: str = ""
    secret: str = Field("", description="GM-only text (never shown to PCs)")
    elements: list[ElementSpec] = Field(default_factory=list, max_length=20)
    opposes: bool = Field(True, description="D15: checks targeting this SDC are opposed by it")


class GoalSpec(_M):
    """§6 scene_intro / D05: the goal stated at the start of the scene, to be reached within 10 turns."""

    text: str = Field(min_length=1)
    category: Category
    difficulty: int = Field(ge=1, le=100, description="§9.6 guide (普通 3, 難しい 5, とても難しい 7, 至難 10)")
    mode: Mode = Field("single_check", description="G5: single_check, success_count or gm_judgement")
    required_successes: int = Field(1, ge=1, le=30, description="success_count: that many goal successes")
    decisive: bool = Field(False, description="G8/D37: a decisive moment for the protagonist")


class HazardSpec(_M):
    """A situation that hinders: a reverse element (§4-3-B) the SD sets in checks of its categories (D19)."""

    id: str = Field(pattern=ID)
    text: str = Field(min_length=1, max_length=30)
    categories: list[Category] = Field(min_length=1)
    turns: list[int] = Field(default_factory=list, description="turns it is active (empty: every turn)")

    @field_validator("turns")
    @classmethod
    def _turns(cls, v: list[int]) -> list[int]:
        for t in v:
            if not 1 <= t <= 10:
                raise ValueError(f"turn {t} is not 1..10")
        return v


class HintSpec(_M):
    """An advantage a PL may name as a temporary element (§4-3-A, D17)."""

    id: str = Field(pattern=ID)
    text: str = Field(min_length=1, max_length=30)
    categories: list[Category] = Field(min_length=1)


class PassiveSpec(_M):
    """D26: a passive check (受動行動判定) the SD requires of PCs without a declaration."""

    pcs: list[str] = Field(min_length=1, description="PC ids, or [all]")
    category: Category
    difficulty: int = Field(ge=1, le=100)
    reason: str = Field(min_length=1, description="what happens (shown to the players)")


class EventSpec(_M):
    turn: int = Field(ge=1, le=10)
    passive: list[PassiveSpec] = Field(default_factory=list)


class SdcActionSpec(_M):
    """D12: what an SDC does in a turn (declared after the PCs)."""

    turn: int = Field(ge=1, le=10)
    sdc: str
    text: str = Field(min_length=1)
    category: Category
    target: str = Field("other", description="goal, other, a PC id or an SDC id")
    opposed: bool = Field(False, description="the target (a PC) resists with a passive check (§5.5)")
    difficulty: int | None = Field(None, ge=1, le=100, description="when not opposed (default: 3)")


class DurationHint(_M):
    """D07: an action whose text contains ``keyword`` takes ``turns`` turns (§3-2 時間スケール)."""

    keyword: str = Field(min_length=1)
    turns: int = Field(ge=1, le=10)


class SceneSpec(_M):
    id: str = Field(pattern=ID)
    title: str = Field(min_length=1)
    situation: str = Field(min_length=1, description="状況説明 (read out at scene start)")
    situation_keywords: list[str] = Field(default_factory=list, description="D18: temporaries must mention one")
    secret: str = Field("", description="GM-only notes of this scene")
    goal: GoalSpec
    turn_duration: str = Field("1ターン", description="時間スケール: fictional time per turn (e.g. 10分)")
    hazards: list[HazardSpec] = Field(default_factory=list)
    advantage_hints: list[HintSpec] = Field(default_factory=list)
    events: list[EventSpec] = Field(default_factory=list)
    sdc_actions: list[SdcActionSpec] = Field(default_factory=list)
    category_difficulty: dict[Category, int] = Field(default_factory=dict, description="D14: difficulty per category")
    duration_hints: list[DurationHint] = Field(default_factory=list)

    @field_validator("category_difficulty")
    @classmethod
    def _bounds(cls, v: dict[str, int]) -> dict[str, int]:
        for k, d in v.items():
            if not 1 <= d <= 100:
                raise ValueError(f"{k}: difficulty {d} is not 1..100")
        return v


class SettingFact(_M):
    """An established fact of the fiction (設定): a target of hero point effect B (D09–D11) unless immutable."""

    id: str = Field(pattern=ID)
    text: str = Field(min_length=1)


class ExpectedCheck(_M):
    """One of the SD's anticipated checks (想定判定, §9.8): the 30% omnipotence test counts them by category."""

    category: Category
    note: str = Field("", description="what the SD has in mind (GM-only)")


class WorldSpec(_M):
    summary: str = Field("", description="the world summary the SD publishes (§3.1 step 2)")
    forbidden_keywords: list[str] = Field(default_factory=list, description="D04 setting_conflict: words that do "
                                                                             "not fit this world")


class CreationSpec(_M):
    """Build the PCs at the table (D02–D04) instead of pregenerated sheets."""

    pc_count: int = Field(4, ge=1, le=12)


class AGameScenario(ScenarioBase):
    system: Literal["a_game"] = "a_game"
    setting: str = Field("", description="the scenario's public setting (read at the start)")
    world: WorldSpec = Field(default_factory=WorldSpec)
    gm_notes: str = Field("", description="GM-only notes")
    config: dict[str, Any] = Field(default_factory=dict, description="rules flags (rules/a_game.md §9.10)")
    expected_checks: list[ExpectedCheck] = Field(default_factory=list, description="想定判定 (default: each category "
                                                                                   "once)")
    public_expected_checks: bool = Field(False, description="publish expected_checks to the players (§3.1 step 2)")
    setting_facts: list[SettingFact] = Field(default_factory=list)
    immutable_facts: list[str] = Field(default_factory=list, description="setting fact ids effect B cannot change")
    cast_assignment: dict[str, CastId] = Field(default_factory=dict, description="D01 suggestion: PC id → cast")
    element_suggestions: list[ElementSpec] = Field(default_factory=list, description="D03 suggestions for the PLs")
    turn_chart: dict[CastId, list[int]] | None = Field(None, description="turn_chart=custom: cast → turns with ○")
    pcs: list[PCSheet] = Field(default_factory=list)
    creation: CreationSpec | None = Field(None, description="build the PCs at the table instead of pcs")
    sdcs: list[SDCSheet] = Field(default_factory=list)
    scenes: list[SceneSpec] = Field(min_length=1)

    @field_validator("expected_checks", mode="before")
    @classmethod
    def _bare(cls, v: Any) -> Any:
        """``expected_checks`` may list bare categories (``[combat, combat, social]``)."""
        if isinstance(v, list):
            return [{"category": x} if isinstance(x, str) else x for x in v]
        return v

    @field_validator("config")
    @classmethod
    def _config(cls, v: dict[str, Any]) -> dict[str, Any]:
        AGameConfig(**v)
        return v

    @model_validator(mode="after")
    def _refs(self) -> AGameScenario:
        cfg = AGameConfig(**self.config)
        problems = scenario_problems(self, cfg)
        if problems:
            raise ValueError("; ".join(problems))
        return self

    def pc_ids(self) -> list[str]:
        if self.pcs:
            return [p.id for p in self.pcs]
        return [f"pc{i + 1}" for i in range(self.creation.pc_count)] if self.creation else []


def _sheet_problems(where: str, elements: list[ElementSpec], cfg: AGameConfig) -> list[str]:
    out: list[str] = []
    seen: dict[str, int] = {}
    for k, e in enumerate(elements):
        problem = form_problem(e.name, cfg.element_max_len)
        if problem:
            out.append(f"{where}.elements[{k}].name: {e.name!r}: {problem} (§3.2)")
        key = normalize(e.name)
        if key in seen:
            out.append(f"{where}.elements[{k}].name: {e.name!r} repeats elements[{seen[key]}] (§3.2 duplicate)")
        seen.setdefault(key, k)
    return out


def cast_problems(casts: dict[str, str], cfg: AGameConfig, *, complete: bool) -> list[str]:
    """§3.2 table-level rules of a cast assignment (complete: every PC has one)."""
    out: list[str] = []
    for c in cfg.unique_casts:
        holders = [p for p, x in casts.items() if x == c]
        if len(holders) > 1:
            out.append(f"{len(holders)} PCs are {c} ({', '.join(holders)}); at most one (unique_casts)")
    if complete and cfg.require_protagonist:
        n = sum(1 for x in casts.values() if x == "protagonist")
        if n != 1:
            out.append(f"{n} protagonists; exactly one (require_protagonist)")
    return out


def scenario_problems(sc: AGameScenario, cfg: AGameConfig) -> list[str]:
    """Every cross-reference problem of a scenario under ``cfg``, each naming its field."""
    out: list[str] = []
    if not sc.pcs and sc.creation is None:
        out.append("pcs: give the PCs (3–6), or a creation: section to build them at the table")
    pc_ids = sc.pc_ids()
    n = len(pc_ids)
    if n and not cfg.pc_count_min <= n <= cfg.pc_count_max:
        out.append(f"pcs: {n} PCs; a table has {cfg.pc_count_min}–{cfg.pc_count_max} (§3.1: 4–7 PLs with the SD)")
    sdc_ids = [s.id for s in sc.sdcs]
    ids = pc_ids + sdc_ids + ["gm"]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        out.append(f"pcs/sdcs: ids used twice (or the reserved id gm): {', '.join(dup)}")
    names: dict[str, list[str]] = {}
    sheets: list[PCSheet | SDCSheet] = [*sc.pcs, *sc.sdcs]
    for sheet in sheets:
        names.setdefault(sheet.name.strip(), []).append(sheet.id)
    for name, who in names.items():
        if len(who) > 1:  # options, narration and the sheets name characters: a table tells them apart by name
            out.append(f"pcs/sdcs: the name {name!r} is used by {', '.join(who)}; give each character its own name")
    texts: dict[str, list[str]] = {}
    for fact in sc.setting_facts:
        texts.setdefault(fact.text.strip(), []).append(fact.id)
    for text, which in texts.items():
        if len(which) > 1:
            out.append(f"setting_facts: {', '.join(which)} have the same text {text!r}")
    for k, p in enumerate(sc.pcs):
        out += _sheet_problems(f"pcs[{k}] ({p.id})", p.elements, cfg)
    for k, sd in enumerate(sc.sdcs):
        out += _sheet_problems(f"sdcs[{k}] ({sd.id})", sd.elements, cfg)
    for k, e in enumerate(sc.element_suggestions):
        problem = form_problem(e.name, cfg.element_max_len)
        if problem:
            out.append(f"element_suggestions[{k}].name: {e.name!r}: {problem}")
    for pid in sc.cast_assignment:
        if pid not in pc_ids:
            out.append(f"cast_assignment.{pid}: unknown PC; PCs: {', '.join(pc_ids)}")
    complete = bool(pc_ids) and set(sc.cast_assignment) >= set(pc_ids)
    out += [f"cast_assignment: {p}" for p in cast_problems(dict(sc.cast_assignment), cfg, complete=complete)]
    fact_ids = {f.id for f in sc.setting_facts}
    for k, f in enumerate(sc.immutable_facts):
        if f not in fact_ids:
            out.append(f"immutable_facts[{k}]: unknown setting fact {f!r}; facts: {', '.join(sorted(fact_ids)) or 'none'}")
    if cfg.turn_chart == "custom":
        if sc.turn_chart is None:
            out.append("turn_chart: config turn_chart=custom needs the scenario's turn_chart (cast → turns)")
    if sc.turn_chart is not None:
        for cast, turns in sc.turn_chart.items():
            bad = [t for t in turns if not 1 <= t <= 10]
            if bad:
                out.append(f"turn_chart.{cast}: turns {bad} are not 1..10")
        missing = [c for c in CAST_IDS if c not in sc.turn_chart]
        if missing:
            out.append(f"turn_chart: every cast needs a row; missing {', '.join(missing)}")
    if len(sc.scenes) < cfg.scenes_per_game:
        out.append(f"scenes: {len(sc.scenes)} scenes, the game plays scenes_per_game = {cfg.scenes_per_game}; give "
                   f"that many or set config scenes_per_game")
    targets = {"goal", "other", *pc_ids, *sdc_ids}
    for s in sc.scenes:
        w = f"scenes.{s.id}"
        for i, ev in enumerate(s.events):
            for j, ps in enumerate(ev.passive):
                for pid in ps.pcs:
                    if pid != "all" and pid not in pc_ids:
                        out.append(f"{w}.events[{i}].passive[{j}].pcs: unknown PC {pid!r}; PCs: {', '.join(pc_ids)}")
        for i, a in enumerate(s.sdc_actions):
            if a.sdc not in sdc_ids:
                out.append(f"{w}.sdc_actions[{i}].sdc: unknown SDC {a.sdc!r}; SDCs: {', '.join(sdc_ids) or 'none'}")
            if a.target not in targets:
                out.append(f"{w}.sdc_actions[{i}].target: {a.target!r} is not goal, other, a PC or an SDC")
            if a.opposed and a.target not in pc_ids:
                out.append(f"{w}.sdc_actions[{i}].opposed: an opposed SDC action targets a PC (target {a.target!r})")
    return out
