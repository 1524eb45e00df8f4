"""行動判定, the action check of 「A」 (rules/a_game.md §5, §7.1–§7.4, §7.9; D13–D24, D27, D28, D38, D39).

One check runs C0 難易度の設定 (category D13, opposed D15, difficulty D14; an invoked precedent binds the SD unless it
deviates with a reason, D28) → C1 成功要素の確定 (a new element may be registered, D39 picks the elements, the SD
confirms each, D16) → C2 状況修正 (temporaries D17/D18, reverse elements D19, the cooperation window D20/D21, cast
modifiers; §7.4: the opposing side's pool) → C3 成功判定 (fixed dice D22, the roll, greed batches D23) → C4 ヒーロー
ポイント効果 (effect A) → C5 記録 (usage counts, the check record, goal progress, D24, D27, D38).

Dice: fixed dice draw nothing; the N − f rolled dice are one pool; each greed batch of k dice is one pool (§5.2,
ARCHITECTURE "dice-stream discipline"). SDC checks use the same procedure without approvals, cast modifiers,
cooperation, hero points or usage counting (§5.3).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ...core import ask
from ...core.decision import Label
from ...core.events import CheckRoll
from .base import Gen, approve, cat_name, cats_text
from .data import (
    CATEGORIES,
    CONFIRM_REASONS,
    COOPERATION_REASONS,
    DIFFICULTY_GUIDE,
    EXPERT_MODIFIER,
    MASCOT_MODIFIER,
    RESULT_NAMES,
    TEMPORARY_REASONS,
)
from .elements import ElementsMixin
from .names import bracketed, meaningless, normalize
from .odds import evaluate
from .state import Character, CheckRecord, Element, Precedent

__all__ = ["ChecksMixin", "CheckSpec", "Side", "RollOut", "Difficulty", "TemporaryText", "ReverseTexts",
           "MAX_TEMPORARY_PROPOSALS", "CHECK_KIND_JP"]

#: HOUSE safety cap: temporaries one side may propose in one check (each proposal is new, so a fuzzer never stops)
MAX_TEMPORARY_PROPOSALS = 6
CHECK_KIND_JP = {"declared": "行動判定", "continued": "継続判定", "passive": "受動行動判定", "sdc": "SDC の判定",
                 "redo": "判定のやり直し"}


class Difficulty(BaseModel):
    """D14: the difficulty of a check (§4-2: 1〜100)."""

    model_config = ConfigDict(extra="forbid")

    difficulty: int = Field(3, ge=1, le=100, description="難易度 1〜100（普通 3、難しい 5、とても難しい 7、至難 10）")


class TemporaryText(BaseModel):
    """D17: a temporary element in words (need not be one word; empty: propose nothing)."""

    model_config = ConfigDict(extra="forbid")

    text: str = Field("", max_length=60, description="一時成功要素（単語でなくてよい。30文字まで。空欄ならやめる）")


class ReverseTexts(BaseModel):
    """D19: reverse elements in words, besides the scene's hazards."""

    model_config = ConfigDict(extra="forbid")

    texts: list[str] = Field(default_factory=list, max_length=5, description="逆成功要素（それぞれ30文字まで）")


@dataclass
class CheckSpec:
    """What a check is about: who acts, how it came (declared, continued, passive, an SDC's), its category and target,
    the elements the declaration listed, hero point effect A, an invoked precedent, a preset difficulty/opponent."""

    actor: Character
    kind: str
    category: str
    target: str = "other"
    action: str = ""
    elements: list[str] | None = None
    hp_a: bool = False
    decisive: bool = False
    precedent: str | None = None
    difficulty: int | None = None
    opposed_by: str | None = None
    rule: str = "§5.3"
    reason: str = ""
    #: hero point effect B declared for step 4 (hp_b_timing=at_step4): (target, statement)
    hp_b: list[tuple[str, str]] = field(default_factory=list)

    @property
    def goal(self) -> bool:
        return self.target == "goal"


@dataclass
class Side:
    """One side's pool (§5.1): confirmed own elements, temporaries, reverse elements, contributions, modifiers."""

    who: Character
    own: list[Element] = field(default_factory=list)
    temps: list[str] = field(default_factory=list)
    reverse: list[str] = field(default_factory=list)
    coop: list[tuple[Character, Element]] = field(default_factory=list)
    proposed_temps: list[str] = field(default_factory=list)
    guest_reverse: list[str] = field(default_factory=list)

    def modifiers(self, cfg: Any) -> tuple[int, int, list[str]]:
        """§5.1: 【専門家修正】 +1 / 【おちゃめ】 −1 for a PC actor, unless the check is cooperative (A6)."""
        if not self.who.is_pc or (self.coop and cfg.cast_modifier_in_coop == "none"):
            return 0, 0, []
        if self.who.cast == "expert":
            return 1, 0, [bracketed(EXPERT_MODIFIER)]
        if self.who.cast == "mascot":
            return 0, 1, [bracketed(MASCOT_MODIFIER)]
        return 0, 0, []

    def n(self, cfg: Any) -> int:
        plus, minus, _ = self.modifiers(cfg)
        return max(0, len(self.own) + len(self.temps) + len(self.coop) + plus - len(self.reverse) - minus)


@dataclass
class RollOut:
    """§5.2 roll: fixed dice, the rolled faces in order, the greed batches, the total, any 1."""

    n: int
    fixed: int = 0
    rolled: list[int] = field(default_factory=list)
    batches: list[list[int]] = field(default_factory=list)
    total: int = 0
    auto_fail: bool = False

    @property
    def first_total(self) -> int:
        return 2 * self.fixed + sum(self.rolled)

    @property
    def faces(self) -> list[int]:
        return [*self.rolled, *(f for b in self.batches for f in b)]

    def snap(self) -> dict[str, Any]:
        return {"n": self.n, "fixed": self.fixed, "rolled": list(self.rolled), "batches": [list(b) for b in self.batches],
                "total": self.total, "auto_fail": self.auto_fail}


class ChecksMixin(ElementsMixin):
    # -- order and eligibility (§5.4, §9.5) ----------------------------------------------------------------------
    def slot_key(self, c: Character) -> tuple[int, int]:
        order = self.cfg.declaration_order
        return (order.index(c.cast) if c.is_pc and c.cast in order else order.index("sdc"), c.seat)

    def slot_order(self, chars: list[Character]) -> list[Character]:
        return sorted(chars, key=self.slot_key)

    def busy(self, c: Character) -> bool:
        s = self.t.scene
        return c.busy_until is not None and s is not None and s.turn <= c.busy_until

    def eligible(self, pc: Character, side: Side, others: tuple[Character, ...] = ()) -> bool:
        """§5.4: not the actor, the actor a PC, not acted this turn, not inside a continued action."""
        return (pc is not side.who and pc not in others and side.who.is_pc and not pc.acted and not self.busy(pc))

    def window_now(self) -> str:
        return "scene" if self.t.scene is not None else "between"

    def scene_spec(self) -> Any:
        s = self.t.scene
        if s is None:
            return None
        return next((x for x in self.sc.scenes if x.id == s.id), None)

    # -- the check -----------------------------------------------------------------------------------------------
    def run_check(self, spec: CheckSpec) -> Gen:
        """§7.1 C0–C5 for one check; returns its ``CheckRecord``."""
        a = spec.actor
        s = self.t.scene
        rid = f"c{len(self.t.records) + 1}"
        rec = CheckRecord(id=rid, game=self.t.game_no, scene=s.index if s else 0, turn=s.turn if s else 0,
                          kind=spec.kind, actor=a.id, category=spec.category, target=spec.target, goal=spec.goal,
                          action=spec.action or self.default_action(spec), hp_a=spec.hp_a, decisive=spec.decisive,
                          precedent=spec.precedent)
        if self.cfg.registration_limit_scope == "player_check":
            self.reset_created("A1 registration_limit_scope=player_check")
        self.check_m.fire("begin")
        self.ctx.info("check", f"{CHECK_KIND_JP.get(spec.kind, '判定')}: {a.name}「{rec.action}」", actor=a.id,
                      record=rid, kind=spec.kind)
        # C0 難易度の設定 -----------------------------------------------------------------------------------------
        prec = self._precedent(a, spec.precedent)
        follow = False
        if prec is not None:
            follow = yield from self._follow_precedent(rec, prec)
        rec.category = yield from self._category(rec, spec)
        opponent = yield from self._opposed(rec, spec)
        if opponent is not None:
            rec.opposed_by = opponent.id
        elif follow and prec is not None:
            rec.difficulty = prec.difficulty
            self.ctx.info("precedent", f"前例 {prec.id} に従い難易度 {prec.difficulty}", record=rid, precedent=prec.id)
        elif spec.difficulty is not None:
            rec.difficulty = spec.difficulty
        else:
            rec.difficulty = yield from self._difficulty(rec, spec)
        self.check_m.fire("set")
        # C1 成功要素の確定 ----------------------------------------------------------------------------------------
        side = Side(a)
        yield from self._confirm(side, rec, spec.elements, prec if follow else None, role="actor")
        self.check_m.fire("confirmed")
        # C2 状況修正 ----------------------------------------------------------------------------------------------
        yield from self._situation(side, rec, spec, prec if follow else None, role="actor",
                                   others=(opponent,) if opponent is not None else ())
        opp: Side | None = None
        if opponent is not None:
            self.check_m.fire("oppose")
            opp = Side(opponent)
            yield from self._confirm(opp, rec, None, None, role="opponent")
            yield from self._situation(opp, rec, spec, None, role="opponent", others=(a,))
        self.check_m.fire("assembled")
        # C3 成功判定 ----------------------------------------------------------------------------------------------
        n = side.n(self.cfg)
        out, opp_out = yield from self._rolls(rec, side, opp)
        self._fill(rec, side, out, n)
        if opp is not None and opp_out is not None:
            self._fill_opponent(rec, opp, opp_out)
        rec.rolled_result = evaluate(out.total, rec.difficulty, out.auto_fail)
        rec.raw = evaluate(out.first_total, rec.difficulty, 1 in out.rolled)
        self.check_m.fire("rolled")
        # C4 ヒーローポイント効果の判定 -----------------------------------------------------------------------------
        rec.result = rec.rolled_result
        yield from self.step4(rec, spec, side, opp)
        if spec.hp_a or spec.decisive:
            rec.result = "success"
            self.ctx.info("hero_point_applied", f"{a.name}: ヒーローポイント効果A — 判定は成功" if spec.hp_a else
                          f"{a.name}: 主人公の決定的な成功", pc=a.id, effect="A" if spec.hp_a else "decisive",
                          record=rid)
        self.check_m.fire("applied")
        # C5 記録 -------------------------------------------------------------------------------------------------
        yield from self._record(rec, spec, side, opp)
        self.check_m.fire("done")
        return rec

    def default_action(self, spec: CheckSpec) -> str:
        if spec.kind == "passive":
            return spec.reason or f"{cat_name(spec.category)}の受動行動判定"
        if spec.goal:
            s = self.t.scene
            return s.goal_text if s is not None else "シーンの目標"
        if ":" in spec.target:
            return f"{cat_name(spec.category)}の行動（{self.who(spec.target.split(':', 1)[1])}へ）"
        return f"{cat_name(spec.category)}の行動"

    # -- C0 ------------------------------------------------------------------------------------------------------
    def _precedent(self, a: Character, pid: str | None) -> Precedent | None:
        if pid is None:
            return None
        return next((p for p in a.precedents if p.id == pid), None)

    def _follow_precedent(self, rec: CheckRecord, prec: Precedent) -> Gen:
        """D28 (§4-4-4): the SD must follow an invoked precedent unless it states a reason."""
        ans = yield from self.choose(
            "gm", "sd.follow_precedent",
            f"{self.who(rec.actor)} が前例 {prec.id}（{cat_name(prec.category)}、難易度 {prec.difficulty}）を示した。"
            "従う? 従わないなら理由を述べる",
            "§4-4-4 D28", [("follow", "前例に従う（同じ難易度・逆成功要素・承認）"), ("deviate", "理由を説明して従わない")],
            context={"precedent": prec.snap(), "category": rec.category, "target": rec.target},
            notes={"deviate": "required"}, answer=True)
        if ans.choice == "deviate":
            rec.deviated = ans.note or ""
            self.ctx.ruling("gm", "sd.follow_precedent", prec.id, "reject", "deviate", text=rec.deviated,
                            rule="§4-4-4 D28", record=rec.id)
            return False
        self.ctx.ruling("gm", "sd.follow_precedent", prec.id, "approve", None, text="前例に従う", rule="§4-4-4 D28",
                        record=rec.id)
        return True

    def _category(self, rec: CheckRecord, spec: CheckSpec) -> Gen:
        """D13: the SD keeps the declared category or rules another one (§9.7)."""
        declared = rec.category
        pairs = [("keep", f"宣言どおり: {cat_name(declared)}（{declared}）")]
        pairs += [(c, f"{jp}（{c}）") for c, jp in CATEGORIES.items() if c != declared]
        s = self.t.scene
        ch = yield from self.choose("gm", "sd.check_category",
                                    f"{self.who(rec.actor)}「{rec.action}」の判定分野（宣言: {cat_name(declared)}）", "§7.1 C0 D13",
                                    pairs, context={"declared": declared, "goal_targeted": rec.goal,
                                                    "goal_category": s.category if s else None, "kind": spec.kind})
        return declared if ch == "keep" else ch

    def _opposed(self, rec: CheckRecord, spec: CheckSpec) -> Gen:
        """D15: an opposed check (§4-4-5) — the difficulty becomes the opponent's achieved value."""
        if spec.opposed_by is not None:
            return self.t.chars[spec.opposed_by]
        if spec.kind in ("passive", "sdc") or spec.goal:
            return None
        a = spec.actor
        pairs: list[tuple[str, str]] = [("none", "対抗判定にしない")]
        for c in self.t.sdcs():
            pairs.append((f"sdc:{c.id}", f"{c.name} との対抗判定"))
        for c in self.t.pcs():
            if c is not a:
                pairs.append((f"pc:{c.id}", f"{c.name} との対抗判定"))
        target = spec.target.split(":", 1)[1] if ":" in spec.target else None
        tc = self.t.chars.get(target) if target else None
        ch = yield from self.choose("gm", "sd.opposed", f"{a.name}「{rec.action}」は対抗判定?", "§4-4-5 D15", pairs,
                                    context={"target": spec.target, "target_opposes": bool(tc and tc.opposes)})
        if ch == "none":
            return None
        return self.t.chars[ch.split(":", 1)[1]]

    def goal_difficulty(self) -> int | None:
        s = self.t.scene
        if s is None:
            return None
        return s.difficulty * (len(self.t.pcs()) if self.cfg.goal_difficulty_scale_by_pcs else 1)

    def _difficulty(self, rec: CheckRecord, spec: CheckSpec) -> Gen:
        """D14: the SD sets the difficulty, 1..100 (§4-2)."""
        sc = self.scene_spec()
        context = {"category": rec.category, "goal_targeted": rec.goal, "goal_difficulty": self.goal_difficulty(),
                   "category_difficulty": dict(sc.category_difficulty) if sc is not None else {},
                   "guide": {v[0]: v[1] for v in DIFFICULTY_GUIDE.values()}, "kind": spec.kind,
                   "precedent_difficulty": None}
        if rec.precedent is not None:
            p = self._precedent(spec.actor, rec.precedent)
            context["precedent_difficulty"] = p.difficulty if p is not None else None
        p = yield from self.ask_payload("gm", "sd.difficulty",
                                        f"{self.who(rec.actor)}「{rec.action}」（{cat_name(rec.category)}）の難易度（1〜100）",
                                        "§4-2 D14", Difficulty, context=context)
        assert isinstance(p, Difficulty)
        return p.difficulty

    # -- C1 ------------------------------------------------------------------------------------------------------
    def _confirm(self, side: Side, rec: CheckRecord, declared: list[str] | None, prec: Precedent | None,
                 role: str) -> Gen:
        """C1: registration (a PC, limit permitting), the elements proposed (D39), the SD's confirmation (D16)."""
        c = side.who
        new: Element | None = None
        if c.is_pc:
            before = {e.id for e in c.elements}
            yield from self.registration_point(c, self.window_now(), category=rec.category,
                                               rule="§4-1-2 D03 (C1)")
            new = next((e for e in c.elements if e.id not in before), None)
        usable = self.usable_elements(c)
        if declared is not None:
            els = [e for e in usable if e.id in declared]
            if new is not None and self.usable(c, new):
                ans = yield from self.choose_many(
                    c.id, "ck.elements", f"宣言した成功要素に、いま作った {bracketed(new.name)} を加える?", "§7.1 C1 D39",
                    [(new.id, self.el_label(new))], 0, 1,
                    context={"category": rec.category, "declared": list(declared), "new": new.id})
                if new.id in (ans.choices or ()):
                    els.append(new)
        else:
            pairs = [(e.id, self.el_label(e, usage=c.is_pc)) for e in usable]
            if pairs:
                ans = yield from self.choose_many(
                    c.id, "ck.elements",
                    f"{c.name}: この判定（{cat_name(rec.category)}）に使う成功要素を選ぶ", "§7.1 C1 D39", pairs, 0, len(pairs),
                    context={"category": rec.category, "role": role, "kind": rec.kind,
                             "elements": {e.id: list(e.categories) for e in usable}})
                chosen = set(ans.choices or ())
                els = [e for e in usable if e.id in chosen]
            else:
                els = []
        for e in els:
            if not c.is_pc:
                side.own.append(e)  # §5.3: SDC checks have no approvals
                continue
            if prec is not None and e.name in prec.elements:
                self.ctx.ruling("gm", "sd.confirm_element", bracketed(e.name), "approve", None, text="前例どおり確定",
                                rule="§4-4-4 D28", pc=c.id, record=rec.id)
                side.own.append(e)
                continue
            verdict = yield from approve(
                self.ctx, "gm", "sd.confirm_element", bracketed(e.name),
                f"{c.name} の成功要素 {bracketed(e.name)}（{cats_text(e.categories)}）はこの判定（{cat_name(rec.category)}）に役立つ?",
                "§7.1 C1 D16", CONFIRM_REASONS, approve_label="確定する",
                context={"category": rec.category, "element": e.name, "categories": list(e.categories),
                         "usage": e.usage, "precedent_elements": list(prec.elements) if prec else [],
                         "action": rec.action, "difficulty": rec.difficulty},
                data={"pc": c.id, "record": rec.id})
            if verdict.approved:
                side.own.append(e)

    # -- C2 ------------------------------------------------------------------------------------------------------
    def _temp_problem(self, side: Side, text: str) -> str | None:
        """§9.9 pre-checks of a temporary element (no SD call)."""
        key = normalize(text)
        if not key:
            return "empty"
        if len(key) > self.cfg.temporary_max_len:
            return f"{len(key)} characters, at most {self.cfg.temporary_max_len} (temporary_max_len)"
        if meaningless(text):
            return "meaningless (§9.9)"
        used = {e.key for e in side.own} | {e.key for _, e in side.coop}
        if self.cfg.temp_dup_scope == "sheet_and_check":
            used |= {e.key for e in side.who.elements}
        if key in used:
            return "the same as a registered element (§4-3-A: 通常の成功要素で既に使用されているものは使用できません, A4)"
        if self.cfg.banned_name_blocks_temporary and key in self.t.banned:
            return "a name banned this game (A14)"
        if key in side.proposed_temps:
            return "already proposed in this check"
        return None

    def temp_cap(self, side: Side) -> int:
        cap: int = self.cfg.temp_cap_per_check
        if self.cfg.expert_modifier_counts_toward_temp_cap and side.who.is_pc and side.who.cast == "expert":
            cap -= 1
        return cap

    def _temporaries(self, side: Side, rec: CheckRecord, proposer: Character, prec: Precedent | None) -> Gen:
        """D17/D18 (§4-3-A): up to 2 temporaries per check, each approved by the SD (SDC: no approval)."""
        sc = self.scene_spec()
        hints = list(sc.advantage_hints) if sc is not None else []
        for _ in range(MAX_TEMPORARY_PROPOSALS):
            if len(side.temps) >= self.temp_cap(side):
                return
            pairs: list[tuple[str, Label]] = [("none", "一時成功要素を出さない")]
            legal = [h for h in hints if self._temp_problem(side, h.text) is None]
            pairs += [(f"hint:{h.id}", partial(_hint_label, h.text, h.categories)) for h in legal]
            pairs.append(("new", "一時成功要素を考えて出す（自由記入）"))
            context = {"category": rec.category, "approved": list(side.temps), "cap": self.temp_cap(side),
                       "hints": {f"hint:{h.id}": {"text": h.text, "categories": list(h.categories)} for h in legal},
                       "role": "actor" if side.who is proposer else "cooperator"}
            ch = yield from self.choose(proposer.id, "ck.temporary",
                                        f"{proposer.name}: 一時成功要素を出す?（{len(side.temps)}/{self.temp_cap(side)}、"
                                        f"{cat_name(rec.category)}の判定）", "§4-3-A D17", pairs, context=context)
            if ch == "none":
                return
            if ch.startswith("hint:"):
                text = next(h.text for h in hints if h.id == ch.split(":", 1)[1])
            else:
                def check(p: BaseModel) -> str | None:
                    assert isinstance(p, TemporaryText)
                    if not p.text.strip():
                        return None
                    why = self._temp_problem(side, p.text)
                    return f"{bracketed(p.text.strip())}: {why}" if why else None

                p = yield from self.ask_payload(proposer.id, "ck.temporary", "一時成功要素を書く（空欄ならやめる）",
                                                "§4-3-A D17", TemporaryText, check, context=context)
                assert isinstance(p, TemporaryText)
                text = p.text.strip()
                if not text:
                    return
            side.proposed_temps.append(normalize(text))
            ok = yield from self._approve_temporary(side, rec, proposer, text, prec)
            if ok:
                side.temps.append(text)

    def _approve_temporary(self, side: Side, rec: CheckRecord, proposer: Character, text: str,
                           prec: Precedent | None) -> Gen:
        if not side.who.is_pc:
            return True
        if prec is not None and normalize(text) in [normalize(x) for x in prec.temporaries]:
            self.ctx.ruling("gm", "sd.approve_temporary", bracketed(text), "approve", None, text="前例どおり",
                            rule="§4-4-4 D28", record=rec.id)
            return True
        sc = self.scene_spec()
        verdict = yield from approve(
            self.ctx, "gm", "sd.approve_temporary", bracketed(text),
            f"{proposer.name} の一時成功要素 {bracketed(text)} を認める?（{cat_name(rec.category)}の判定）", "§4-3-A D18",
            TEMPORARY_REASONS,
            context={"text": text, "category": rec.category, "situation": sc.situation if sc else "",
                     "situation_keywords": list(sc.situation_keywords) if sc else [],
                     "approved": list(side.temps), "precedent_temporaries": list(prec.temporaries) if prec else []},
            data={"pc": proposer.id, "record": rec.id})
        return verdict.approved

    def active_hazards(self) -> list[Any]:
        sc = self.scene_spec()
        s = self.t.scene
        if sc is None or s is None:
            return []
        return [h for h in sc.hazards if not h.turns or s.turn in h.turns]

    def _reverse(self, side: Side, rec: CheckRecord, prec: Precedent | None) -> Gen:
        """D19 (§4-3-B): the SD sets reverse elements from the situation, without limit (a precedent: its list)."""
        if prec is not None:
            side.reverse = list(prec.reverse)
            if prec.reverse:
                self.ctx.info("precedent", f"前例 {prec.id} の逆成功要素: {''.join(bracketed(x) for x in prec.reverse)}",
                              record=rec.id)
            return
        sc = self.scene_spec()
        hazards = list(sc.hazards) if sc is not None else []
        active = {h.id for h in self.active_hazards()}
        pairs = [(h.id, f"{bracketed(h.text)}（{cats_text(h.categories)}" + ("" if h.id in active else "、このターンは該当なし")
                  + "）") for h in hazards]
        pairs.append(("custom", "ほかの逆成功要素を書く"))
        context = {"category": rec.category, "side": side.who.id,
                   "hazards": {h.id: {"text": h.text, "categories": list(h.categories), "active": h.id in active}
                               for h in hazards}, "guest_suggested": list(side.guest_reverse)}
        ans = yield from self.choose_many("gm", "sd.reverse_elements",
                                          f"{side.who.name} の判定（{cat_name(rec.category)}）にかける逆成功要素を選ぶ",
                                          "§4-3-B D19", pairs, 0, len(pairs), context=context)
        chosen = list(ans.choices or ())
        texts = [h.text for h in hazards if h.id in chosen]
        if "custom" in chosen:
            p = yield from self.ask_payload("gm", "sd.reverse_elements", "逆成功要素を書く（それぞれ30文字まで）", "§4-3-B D19",
                                            ReverseTexts, _reverse_check, context=context)
            assert isinstance(p, ReverseTexts)
            texts += [x.strip() for x in p.texts if x.strip()]
        side.reverse = texts

    def _guest(self, side: Side, rec: CheckRecord) -> Gen:
        """D36 (G7, guest_suggestions): the ゲスト as sub-master may suggest a reverse element or a temporary; the SD
        decides (a suggested reverse element is offered to D19, a temporary goes through D18)."""
        if not self.cfg.guest_suggestions:
            return
        sc = self.scene_spec()
        for g in self.t.pcs():
            if g.cast != "guest" or g is side.who:
                continue
            pairs: list[tuple[str, str]] = [("none", "提案しない")]
            if sc is not None:
                pairs += [(f"reverse:{h.id}", f"逆成功要素 {bracketed(h.text)} を提案") for h in sc.hazards]
                if side.who.is_pc:
                    pairs += [(f"temporary:{h.id}", f"一時成功要素 {bracketed(h.text)} を提案") for h in sc.advantage_hints
                              if self._temp_problem(side, h.text) is None]
            ch = yield from self.choose(g.id, "pc.guest_suggestion",
                                        f"ゲスト {g.name}: {side.who.name} の判定に提案する?（サブマスター）", "§1 ゲスト D36", pairs,
                                        context={"category": rec.category, "side": side.who.id})
            if ch.startswith("reverse:") and sc is not None:
                h = next(x for x in sc.hazards if x.id == ch.split(":", 1)[1])
                side.guest_reverse.append(h.id)
            elif ch.startswith("temporary:") and sc is not None and len(side.temps) < self.temp_cap(side):
                h2 = next(x for x in sc.advantage_hints if x.id == ch.split(":", 1)[1])
                side.proposed_temps.append(normalize(h2.text))
                ok = yield from self._approve_temporary(side, rec, g, h2.text, None)
                if ok:
                    side.temps.append(h2.text)

    def _situation(self, side: Side, rec: CheckRecord, spec: CheckSpec, prec: Precedent | None, role: str,
                   others: tuple[Character | None, ...] = ()) -> Gen:
        """C2 (§4-3): A temporaries, B reverse elements, C the cooperation window; then the pool is known."""
        yield from self._temporaries(side, rec, side.who, prec)
        yield from self._guest(side, rec)
        yield from self._reverse(side, rec, prec)
        if side.who.is_pc:
            yield from self._cooperation(side, rec, spec, role, tuple(o for o in others if o is not None))
            if self.cfg.temp_proposers == "actor_and_cooperators":
                helpers = {p.id: p for p, _ in side.coop}  # each cooperator once, in the order they helped
                for pc in helpers.values():
                    yield from self._temporaries(side, rec, pc, prec)

    def _cooperation(self, side: Side, rec: CheckRecord, spec: CheckSpec, role: str,
                     others: tuple[Character, ...]) -> Gen:
        """§4-3-C, §7.2: the eligible PCs are polled in slot order (``engine.core.ask.poll``, once per check); each may
        register one element and offer own elements (D20); the SD approves each (D21); an approved offer makes the PC
        acted (A8) and the check cooperative (A6). Only a PC's own offer changes its eligibility, so the list is known
        when the window opens."""
        eligible = [pc.id for pc in self.slot_order(self.t.pcs()) if self.eligible(pc, side, others)]
        yield from ask.poll(eligible, lambda pid: self._offer(side, rec, role, self.t.chars[pid]))

    def _offer(self, side: Side, rec: CheckRecord, role: str, pc: Character) -> Gen:
        """One PC's turn in the cooperation window: a registration point, the offer (D20), the SD's rulings (D21)."""
        yield from self.registration_point(pc, self.window_now(), category=rec.category,
                                           rule="§4-1-2 D03 (協調成功判定)")
        usable = self.usable_elements(pc)
        if not usable:
            return False
        n_now = side.n(self.cfg)
        d = rec.difficulty if role == "actor" and rec.opposed_by is None else None
        d_est = None
        if d is None and rec.opposed_by is not None:
            rival = self.t.chars[rec.opposed_by] if role == "actor" else self.t.chars[rec.actor]
            d_est = max(1, 2 * len(self.usable_elements(rival)))
        context = {"category": rec.category, "goal_targeted": rec.goal and role == "actor", "n_so_far": n_now,
                   "difficulty": d, "d_est": d_est, "actor": side.who.id, "actor_cast": side.who.cast,
                   "coop_so_far": bool(side.coop), "opposed": rec.opposed_by is not None, "role": role,
                   "elements": {e.id: list(e.categories) for e in usable}, "name": pc.name}
        pairs = [(e.id, self.el_label(e)) for e in usable]
        ans = yield from self.choose_many(
            pc.id, "pc.offer_cooperation",
            f"{pc.name}: {side.who.name} の判定（{cat_name(rec.category)}）に成功要素を供出して協力する?"
            "（協力方法を一言: note）", "§4-3-C D20", pairs, 0, len(pairs), context=context,
            notes={"*": "allowed"})
        picked = [e for e in usable if e.id in (ans.choices or ())]
        if not picked:
            return False
        method = (ans.note or "").strip() or f"{pc.name}が{''.join(bracketed(e.name) for e in picked)}で手伝う"
        approved = 0
        for e in picked:
            verdict = yield from approve(
                self.ctx, "gm", "sd.approve_cooperation", f"{pc.name} の {bracketed(e.name)}",
                f"{pc.name} が {side.who.name} の判定（{cat_name(rec.category)}）に {bracketed(e.name)} を供出する。"
                f"協力方法:「{method}」。認める?", "§4-3-C D21", COOPERATION_REASONS,
                context={"category": rec.category, "element": e.name, "categories": list(e.categories),
                         "method": method, "method_length": len(method), "cooperator": pc.id,
                         "cooperator_cast": pc.cast},
                data={"pc": pc.id, "record": rec.id, "method": method})
            if verdict.approved:
                side.coop.append((pc, e))
                approved += 1
        if approved:
            pc.tally.cooperations += 1
            if self.cfg.cooperation_counts_as_action:
                self.set_attr(pc, "acted", True, "§4-3-C 協力は行動 (A8)", f"cooperated:{rec.id}")
            self.ctx.info("cooperation", f"{pc.name} が協力した: {method}", pc=pc.id, record=rec.id)
        return approved > 0

    # -- C3 ------------------------------------------------------------------------------------------------------
    def roll_side(self, who: Character, n: int, d: int | None, d_est: int | None, role: str, purpose: str) -> Gen:
        """§5.2 roll for one side: D22 fixed dice, the N − f dice, greed batches (D23)."""
        out = RollOut(n=n)
        if n > 0:
            pairs = [("roll", f"固定しない（{n}個すべて振る）")]
            pairs += [(f"fix:{k}", f"{k}個を2に固定（{n - k}個振る）") for k in range(1, n + 1)]
            target = f"難易度 {d}" if d is not None else "難易度は相手の達成値"
            ch = yield from self.choose(who.id, "ck.fixed",
                                        f"{who.name}: 成功要素 {n} 個（{target}）。いくつのダイスを2に固定する?（固定的サイコロ運用）",
                                        "§4-4-2 D22", pairs, context={"n": n, "difficulty": d, "d_est": d_est, "role": role})
            out.fixed = 0 if ch == "roll" else int(ch.split(":", 1)[1])
        k = n - out.fixed
        out.rolled = self.ctx.dice.pool(k, purpose) if k > 0 else []
        out.total = 2 * out.fixed + sum(out.rolled)
        out.auto_fail = 1 in out.rolled
        avail = out.rolled.count(6)
        while not out.auto_fail and avail > 0:
            dd = d if d is not None else d_est
            now = evaluate(out.total, dd, False) if dd is not None else None
            pairs = [("stop", "振り足さない")] + [(f"greed:{j}", f"{j}個振り足す（1が出れば自動失敗）")
                                                for j in range(1, avail + 1)]
            ch = yield from self.choose(who.id, "ck.greed",
                                        f"{who.name}: 6 が出た。グリードロールで最大 {avail} 個振り足す?（達成値 {out.total}）",
                                        "§4-4-3 D23", pairs, context={"total": out.total, "difficulty": d, "d_est": d_est,
                                                                      "avail": avail, "result_now": now, "role": role})
            if ch == "stop":
                break
            j = int(ch.split(":", 1)[1])
            extra = self.ctx.dice.pool(j, purpose + " greed")
            out.batches.append(extra)
            out.total += sum(extra)
            if 1 in extra:
                out.auto_fail = True
                break
            avail = extra.count(6) if self.cfg.greed_chain else 0
        return out

    def _pool_text(self, side: Side) -> str:
        """§5.1 in words: where each die of a side comes from (the player sees the count before deciding D22)."""
        plus, minus, mods = side.modifiers(self.cfg)
        parts = [f"成功要素 {''.join(bracketed(e.name) for e in side.own)}"] if side.own else []
        if side.temps:
            parts.append(f"一時成功要素 {''.join(bracketed(t) for t in side.temps)}")
        if side.coop:
            parts.append("協力 " + "".join(f"{bracketed(e.name)}（{pc.name}）" for pc, e in side.coop))
        if plus:
            parts.append(mods[0])
        text = " + ".join(parts) or "成功要素なし"
        if side.reverse:
            text += f" − 逆成功要素 {''.join(bracketed(t) for t in side.reverse)}"
        if minus:
            text += f" − {mods[0]}"
        return f"{side.who.name} のダイス {side.n(self.cfg)} 個 = {text}"

    def _rolls(self, rec: CheckRecord, side: Side, opp: Side | None) -> Gen:
        """C3, and §5.5/§7.4 O3–O6 for an opposed check: the side with more elements rolls first."""
        n = side.n(self.cfg)
        purpose = f"{rec.id} {side.who.id}"
        for s in (side,) if opp is None else (side, opp):
            self.ctx.info("pool", self._pool_text(s), record=rec.id, who=s.who.id, dice=s.n(self.cfg))
        if opp is None:
            out = yield from self.roll_side(side.who, n, rec.difficulty, None, "actor", purpose)
            return out, None
        m = opp.n(self.cfg)
        if n > m:
            first = "actor"
        elif m > n:
            first = "opponent"
        else:
            first = "opponent" if self.cfg.opposed_tie_first == "opponent" else "actor"
        rec.first = side.who.id if first == "actor" else opp.who.id
        opp_purpose = f"{rec.id} {opp.who.id}"
        if first == "opponent":
            opp_out = yield from self.roll_side(opp.who, m, None, None, "opponent", opp_purpose)
            rec.difficulty = self._opposed_difficulty(opp_out)
            out = yield from self.roll_side(side.who, n, rec.difficulty, None, "actor", purpose)
        else:
            out = yield from self.roll_side(side.who, n, None, max(1, 2 * m), "actor", purpose)
            opp_out = yield from self.roll_side(opp.who, m, None, None, "opponent", opp_purpose)
            rec.difficulty = self._opposed_difficulty(opp_out)
        return out, opp_out

    def _opposed_difficulty(self, o: RollOut) -> int:
        value = 0 if (o.auto_fail and self.cfg.opposed_fumble_value == "zero") else o.total
        return max(self.cfg.opposed_min_difficulty, value)

    def _fill(self, rec: CheckRecord, side: Side, out: RollOut, n: int) -> None:
        rec.elements = [e.name for e in side.own]
        rec.temporaries = list(side.temps)
        rec.reverse = list(side.reverse)
        rec.contributions = [{"pc": pc.id, "element": e.name} for pc, e in side.coop]
        rec.modifiers = side.modifiers(self.cfg)[2]
        rec.n = n
        rec.fixed, rec.rolled, rec.batches = out.fixed, list(out.rolled), [list(b) for b in out.batches]
        rec.total, rec.auto_fail = out.total, out.auto_fail

    def _fill_opponent(self, rec: CheckRecord, opp: Side, o: RollOut) -> None:
        rec.opponent = {"who": opp.who.id, "elements": [e.name for e in opp.own], "temporaries": list(opp.temps),
                        "reverse": list(opp.reverse),
                        "contributions": [{"pc": pc.id, "element": e.name} for pc, e in opp.coop],
                        "modifiers": opp.modifiers(self.cfg)[2], **o.snap(),
                        "value": rec.difficulty}

    def step4(self, rec: CheckRecord, spec: CheckSpec, side: Side, opp: Side | None) -> Gen:
        """C4 hook for hero point effect B at step 4 (hp_b_timing=at_step4; hero.py)."""
        return
        yield

    # -- C5 ------------------------------------------------------------------------------------------------------
    def check_event(self, rec: CheckRecord, rule: str, *, redo_of: str | None = None) -> str:
        """The typed check record in the log (ARCHITECTURE 10): one line per side."""
        rolls = [CheckRoll(who=rec.actor, pool=rec.n, faces=[*rec.rolled, *(f for b in rec.batches for f in b)],
                           target=rec.difficulty, ach=rec.total, success=rec.result == "success", result=rec.result)]
        if rec.opponent:
            o = rec.opponent
            rolls.append(CheckRoll(who=o["who"], pool=o["n"], faces=[*o["rolled"], *(f for b in o["batches"] for f in b)],
                                   ach=o["total"], result="automatic_failure" if o["auto_fail"] else ""))
        data = {"record": rec.id, "actor": rec.actor, "kind": rec.kind, "category": rec.category, "target": rec.target,
                "goal": rec.goal, "difficulty": rec.difficulty, "n": rec.n, "fixed": rec.fixed,
                "rolled": list(rec.rolled), "batches": [list(b) for b in rec.batches], "total": rec.total,
                "auto_fail": rec.auto_fail, "raw": rec.raw, "rolled_result": rec.rolled_result, "result": rec.result,
                "elements": list(rec.elements), "temporaries": list(rec.temporaries), "reverse": list(rec.reverse),
                "contributions": [dict(c) for c in rec.contributions], "modifiers": list(rec.modifiers),
                "hp_a": rec.hp_a, "decisive": rec.decisive, "opposed_by": rec.opposed_by, "first": rec.first,
                "opponent": dict(rec.opponent) if rec.opponent else None, "greed_chain": self.cfg.greed_chain}
        if redo_of is not None:
            data["redo_of"] = redo_of
        label = f"{self.who(rec.actor)}「{rec.action}」（{cat_name(rec.category)}、難易度 {rec.difficulty}）"
        kind = "redo" if redo_of is not None else rec.kind
        return self.ctx.check(kind, rule, data, label=label, rolls=rolls, result=rec.result)

    def count_usage(self, rec: CheckRecord, side: Side) -> None:
        """§4-1-3, §5.9: +1 for every confirmed own element and every approved contribution, once per check."""
        if side.who.is_pc or self.cfg.usage_ban_includes_sdc:
            for e in side.own:
                self.count_use(side.who, e, rec.category, "§4-1-3 使用回数")
        for pc, e in side.coop:
            self.count_use(pc, e, rec.category, "§4-3-C 協調成功判定に使用された成功要素は使用回数が+1")

    def _record(self, rec: CheckRecord, spec: CheckSpec, side: Side, opp: Side | None) -> Gen:
        a = spec.actor
        self.count_usage(rec, side)
        if opp is not None:
            self.count_usage(rec, opp)
        rec.event = self.check_event(rec, spec.rule)
        self.t.records.append(rec)
        self.ctx.state(f"checks.{rec.id}", None, rec.result, spec.rule, a.id)
        if a.is_pc:
            if spec.kind in ("declared", "continued"):
                a.tally.declared += 1
                if rec.result == "success":
                    a.tally.successes += 1
            if opp is not None and opp.who.is_pc:
                a.tally.opposed_vs_pc += 1
            if spec.kind == "passive" and self.cfg.passive_counts_as_action:
                self.set_attr(a, "acted", True, "A21 passive_counts_as_action")
        if rec.goal and a.is_pc and rec.result == "success":
            self.goal_progress(rec, +1)
        if rec.result == "intermediate" and rec.goal and a.is_pc:
            ch = yield from self.choose("gm", "sd.intermediate",
                                        f"{a.name} の判定は中間判定。状況はどう変わる?", "§4-4-1 D24",
                                        [("none", "目標は進まない（描写のみ）"), ("progress", "目標に向けて一歩前進（成功1回と数える）")],
                                        context={"record": rec.id, "goal_targeted": rec.goal, "total": rec.total,
                                                 "difficulty": rec.difficulty}, speech=True)
            if ch == "progress":
                rec.progress = True
                self.ctx.state(f"checks.{rec.id}.progress", False, True, "§4-4-1 D24")
                self.goal_progress(rec, +1)
        if a.is_pc:
            ch = yield from self.choose(a.id, "pc.record_precedent",
                                        f"{a.name}: この判定（{RESULT_NAMES[rec.result]}）を前例として記録する?", "§4-4-4 D27",
                                        [("none", "記録しない"), ("record", "前例として記録する")],
                                        context={"record": rec.id, "result": rec.result, "own": True})
            if ch == "record":
                self.add_precedent(a, rec)
        text = f"{self.who(rec.actor)}の「{rec.action}」は{RESULT_NAMES[rec.result]}"
        ans = yield from self.choose("gm", "sd.narrate", f"判定の結果を語る: {text}", "§7.1 C5 D38",
                                     [("none", f"定型で語る:「{text}」"), ("narrate", "自分の言葉で語る（note に書く）")],
                                     context={"record": rec.id, "template": text}, notes={"narrate": "required"},
                                     speech=True, answer=True)
        self.ctx.narrate("gm", ans.note if ans.choice == "narrate" and ans.note else text, source="gm")

    def add_precedent(self, by: Character, rec: CheckRecord) -> Precedent:
        """§4-4-4 D27: a record of a resolved check; the SD must apply the same handling when it is invoked."""
        p = Precedent(id=f"p{self.t.next_precedent}", by=by.id, game=self.t.game_no, check=rec.id, actor=rec.actor,
                      category=rec.category, target=rec.target, action=rec.action, difficulty=rec.difficulty,
                      temporaries=list(rec.temporaries), reverse=list(rec.reverse), elements=list(rec.elements))
        self.ctx.state("table.next_precedent", self.t.next_precedent, self.t.next_precedent + 1, "§4-4-4")
        self.t.next_precedent += 1
        by.precedents.append(p)
        self.ctx.state(f"{by.id}.precedents.{p.id}", None, p.snap(), "§4-4-4 D27", rec.id)
        return p

    def goal_progress(self, rec: CheckRecord, delta: int) -> None:
        """D25 by mode: a goal-targeted success counts toward the scene's goal (gm_judgement: the SD rules)."""
        s = self.t.scene
        if s is None or rec.scene != s.index:
            self.retro_goal(rec)
            return
        old = s.successes
        s.successes = max(0, s.successes + delta)
        self.ctx.state("scene.successes", old, s.successes, "§3 シーンの目標", rec.id)
        self.update_achieved()

    def update_achieved(self) -> None:
        s = self.t.scene
        if s is None:
            return
        if s.mode == "gm_judgement":
            achieved = s.judged
        elif s.mode == "success_count":
            achieved = s.successes >= s.required
        else:
            achieved = s.successes >= 1
        if achieved != s.achieved:
            self.ctx.state("scene.achieved", s.achieved, achieved, "§3 シーンの目標 (D25)")
            s.achieved = achieved
            if achieved:
                self.ctx.info("goal", f"シーンの目標を達成した: {s.goal_text}", scene=s.id)

    def retro_goal(self, rec: CheckRecord) -> None:
        """A retcon (effect B) of a check of an earlier scene re-evaluates that scene's recorded outcome."""
        for o in self.t.outcomes:
            if o.get("index") != rec.scene:
                continue
            succ = sum(1 for r in self.t.records if r.scene == rec.scene and r.game == rec.game and r.goal
                       and self.t.chars.get(r.actor) is not None and self.t.chars[r.actor].is_pc
                       and r.result == "success")
            succ += sum(1 for r in self.t.records if r.scene == rec.scene and r.game == rec.game and r.goal
                        and r.progress and r.result == "intermediate")
            mode, req = o.get("mode"), o.get("required", 1)
            achieved = o.get("achieved") if mode == "gm_judgement" else succ >= (req if mode == "success_count" else 1)
            if achieved != o.get("achieved"):
                self.ctx.state(f"scenes.{o['id']}.achieved", o.get("achieved"), achieved, "§5.8 効果B", rec.id)
                o["achieved"] = achieved
                o["outcome"] = "achieved" if achieved else "failed"


def _reverse_check(p: BaseModel) -> str | None:
    assert isinstance(p, ReverseTexts)
    for t in p.texts:
        if len(t.strip()) > 30:
            return f"{t[:20]!r}…: a reverse element has at most 30 characters"
    return None


def _hint_label(text: str, cats: Sequence[str]) -> str:
    return f"{bracketed(text)}（{cats_text(cats)}）"
