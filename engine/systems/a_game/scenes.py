"""Scenes of 10 turns (rules/a_game.md §3, §6, §7.5, §7.6, §7.10; D05–D08, D12, D25, D26, D28a, D29, D30, D37).

A scene opens with the SD's 状況説明, a clearly stated goal and the time scale (D05); the briefing (作戦会議) counts
as turn 1 for registrations (A2). Each turn: the PCs the turn chart allows declare in the declaration order (D06,
with the duration D07, continued or split D08, a precedent D28a, the protagonist's decisive success D37, hero
points D09), then each SDC (D12); the declarations are locked (A30). The resolution resolves the SD's passive checks
first (D26), then the declarations and the continued actions completing now, in the same order, SDCs last. The
goal is judged at the end of the turn (D25); a scene ends when it is achieved or after the 10th turn. Scene end:
continued actions cancelled, the omnipotent review (D31), the cast review (D29) and the hero point award (D30), the
precedent window (D27).
"""

from __future__ import annotations

import functools
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

from .base import Gen, cat_name
from .checks import CheckSpec
from .data import CATEGORIES, HOUSE_CHART, MODE_NAMES, RESULT_NAMES
from .hero import HeroMixin
from .scenario import Category, SceneSpec
from .state import Character, Declaration, SceneState, Tally

__all__ = ["ScenesMixin", "SceneFrame", "SdcAction", "PassiveCheck", "MAX_CUSTOM_PASSIVE"]

#: HOUSE safety cap: passive checks the SD may add in one turn besides the scenario's events
MAX_CUSTOM_PASSIVE = 2
#: HOUSE safety cap: re-declarations after 「shorten」 (D08) in one declaration
MAX_REDECLARE = 2


class SceneFrame(BaseModel):
    """D05: the SD's frame of a scene; a field left empty keeps the scenario's value."""

    model_config = ConfigDict(extra="forbid")

    goal_text: str | None = Field(None, min_length=1, max_length=200, description="シーンの目標（明確に提示する）")
    category: Category | None = None
    difficulty: int | None = Field(None, ge=1, le=100)
    mode: Literal["single_check", "success_count", "gm_judgement"] | None = None
    required_successes: int | None = Field(None, ge=1, le=30)
    turn_duration: str | None = Field(None, min_length=1, max_length=30, description="時間スケール（1ターンの時間）")


class SdcAction(BaseModel):
    """D12: an SDC's action this turn."""

    model_config = ConfigDict(extra="forbid")

    text: str = Field("行動する", min_length=1, max_length=100)
    category: Category = "combat"
    target: str = Field("other", description="goal, other, a PC id or an SDC id")
    opposed: bool = Field(False, description="opposed by the target PC (§4-4-5)")


class PassiveCheck(BaseModel):
    """D26: a passive check the SD requires of a PC (受動行動判定)."""

    model_config = ConfigDict(extra="forbid")

    pc: str
    category: Category = "perception"
    difficulty: int = Field(3, ge=1, le=100)
    reason: str = Field("不意の出来事", min_length=1, max_length=100)


@functools.lru_cache(maxsize=64)
def _passive_model(ids: tuple[str, ...]) -> type[PassiveCheck]:
    """``PassiveCheck`` with the PCs as an enum (one class per table)."""
    return create_model("PassiveCheck", __base__=PassiveCheck, pc=(Literal[ids], Field(description="PC id")))  # type: ignore[valid-type,arg-type]


class ScenesMixin(HeroMixin):
    scene_index: int
    b_pending: dict[str, list[tuple[str, str]]]
    game_m: Any

    # -- the turn chart (§9.4) -------------------------------------------------------------------------------------
    def chart(self, cast: str) -> tuple[int, ...]:
        if self.cfg.turn_chart == "all_every_turn" or cast == "sdc":
            return tuple(range(1, 11))
        if self.cfg.turn_chart == "custom" and self.sc.turn_chart is not None:
            return tuple(self.sc.turn_chart.get(cast, ()))  # type: ignore[call-overload]
        return HOUSE_CHART[cast]

    def may_declare(self, c: Character, turn: int) -> bool:
        return c.cast is not None and turn in self.chart(c.cast)

    # -- the scenes of a game ---------------------------------------------------------------------------------------
    def play_scenes(self) -> Gen:
        scenes = self.sc.scenes[: self.cfg.scenes_per_game]
        for i, spec in enumerate(scenes, 1):
            yield from self.play_scene(i, spec)
            failed = not self.t.outcomes[-1]["achieved"]
            if i < len(scenes) and not (failed and self.cfg.on_scene_failure == "end_game"):
                self.game_m.fire("between")
                yield from self.between_scenes()
                self.game_m.fire("next_scene")
            else:
                if failed and i < len(scenes):
                    self.ctx.info("game", "シーンの目標を達成できず、ゲームは終わる（on_scene_failure=end_game）")
                self.game_m.fire("finish")
                return

    def scene_frame(self, index: int, spec: SceneSpec) -> Gen:
        """D05: the SD states the goal (text, category, difficulty, mode) and the time scale."""
        g = spec.goal
        pairs = [("keep", f"シナリオどおり: {g.text}（{cat_name(g.category)}、難易度 {g.difficulty}）"),
                 ("adjust", "目標・難易度・時間スケールを調整する")]
        ch = yield from self.choose("gm", "sd.scene_frame", f"シーン{index}「{spec.title}」の目標と時間スケール", "§3 D05",
                                    pairs, context={"scene": spec.id, "goal": g.model_dump(),
                                                    "turn_duration": spec.turn_duration})
        frame = SceneFrame()
        if ch == "adjust":
            p = yield from self.ask_payload("gm", "sd.scene_frame", "変える項目だけ書く（空欄はシナリオどおり）", "§3 D05",
                                            SceneFrame, context={"scene": spec.id, "goal": g.model_dump()})
            assert isinstance(p, SceneFrame)
            frame = p
        return SceneState(index=index, id=spec.id, title=spec.title, goal_text=frame.goal_text or g.text,
                          category=frame.category or g.category, difficulty=frame.difficulty or g.difficulty,
                          mode=frame.mode or g.mode, required=frame.required_successes or g.required_successes,
                          decisive=g.decisive, turn_duration=frame.turn_duration or spec.turn_duration)

    def play_scene(self, index: int, spec: SceneSpec) -> Gen:
        """§6 scene_intro … scene_end."""
        self.scene_index = index
        s = yield from self.scene_frame(index, spec)
        self.t.scene = s
        s.turn = 1
        self.ctx.state("scene", None, s.snap(), "§3 シーン", spec.id)
        self.ctx.info("scene", f"シーン{index}「{s.title}」", scene=spec.id, index=index)
        self.ctx.narrate("gm", f"シーン{index}「{s.title}」: {spec.situation}", source="gm")
        self.ctx.narrate("gm", f"シーンの目標: {s.goal_text}（{cat_name(s.category)}、難易度 {s.difficulty}、"
                               f"{MODE_NAMES[s.mode]}" + (f" {s.required}回" if s.mode == "success_count" else "")
                               + f"）。時間スケール: 1ターン {s.turn_duration}。10ターン以内に達成すること", source="gm")
        for c in self.t.pcs():
            if c.tally != Tally():
                self.ctx.state(f"{c.id}.tally", c.tally.snap(), Tally().snap(), "§6 scene_intro")
                c.tally = Tally()
            self.set_attr(c, "acted", False, "§6 scene_intro")
            self.set_attr(c, "busy_until", None, "§6 scene_intro")
        self.reset_created("§6 scene_intro")
        # 作戦会議: registrations here count toward turn 1 (A2, briefing_counts_as_turn1)
        for c in self.slot_order(self.t.pcs()):
            if self.cfg.briefing_counts_as_turn1:
                yield from self.registration_point(c, "scene", category=s.category, rule="§3-1 作戦会議 D03 (A2)")
            else:
                yield from self.free_window(c, "briefing", "§3-1 作戦会議 D03 (A2)")
        self.game_m.fire("briefed")
        for turn in range(1, self.cfg.turns_per_scene + 1):
            if turn > 1:
                self.ctx.state("scene.turn", s.turn, turn, "§3 ターン")
                s.turn = turn
                self.reset_created("§6 turn_declaration: 1ターンに1つ")
                for c in self.t.pcs():
                    self.set_attr(c, "acted", False, "§6 turn_declaration")
            self.ctx.info("turn", f"ターン {turn}", scene=s.id, turn=turn,
                          declarers=[c.id for c in self.slot_order(self.t.pcs()) if self.may_declare(c, turn)])
            yield from self.declaration_phase(turn)
            self.game_m.fire("declared")
            yield from self.resolution_phase(turn)
            self.game_m.fire("resolved")
            yield from self.judge_goal(turn)
            if s.achieved or turn == self.cfg.turns_per_scene:
                self.game_m.fire("end_scene")
                break
            self.game_m.fire("next_turn")
        yield from self.scene_end(spec)

    # -- the declaration phase (§3-1, §9.4, §9.5) -----------------------------------------------------------------
    def declaration_phase(self, turn: int) -> Gen:
        s = self.t.scene
        assert s is not None
        s.declarations = [d for d in s.declarations if d.continued and not d.cancelled and d.completes >= turn]
        for slot in self.cfg.declaration_order:
            if slot == "sdc":
                for sdc in self.t.sdcs():
                    yield from self.sdc_declare(sdc, turn)
                continue
            for c in self.t.pcs():
                if c.cast != slot or self.busy(c):
                    continue
                if self.may_declare(c, turn):
                    c.tally.circle_turns += 1
                    yield from self.declare(c, turn)
        self.ctx.state("scene.declarations", None, [d.snap() for d in s.declarations], "§3-1 A30 宣言は確定")

    def _target_pairs(self, c: Character) -> list[tuple[str, str]]:
        s = self.t.scene
        assert s is not None
        pairs: list[tuple[str, str]] = [("pass", "行動宣言しない（パス）")]
        if not s.achieved:
            pairs.append(("goal", f"シーンの目標に挑む: {s.goal_text}（{cat_name(s.category)}）"))
        pairs.append(("other", "ほかの行動をする"))
        pairs += [(f"sdc:{x.id}", f"{x.name} に対して行動する") for x in self.t.sdcs()]
        pairs += [(f"pc:{x.id}", f"{x.name} に対して行動する") for x in self.t.pcs() if x is not c]
        return pairs

    def declare(self, c: Character, turn: int) -> Gen:
        """D06 行動宣言 (with D07, D08, D28a, D37, D09); a registration may come first (D03)."""
        s = self.t.scene
        assert s is not None
        yield from self.registration_point(c, "scene", category=s.category, rule="§4-1-2 D03 (行動宣言)")
        for attempt in range(MAX_REDECLARE + 1):
            usable = self.usable_elements(c)
            context: dict[str, Any] = {
                "turn": turn, "goal_achieved": s.achieved, "goal_category": s.category, "goal_text": s.goal_text,
                "goal_difficulty": self.goal_difficulty(), "cast": c.cast,
                "elements": {e.id: list(e.categories) for e in usable},
                "circle_turns_left": [t for t in self.chart(c.cast or "") if t > turn],
                "last_scene": self.scene_index >= min(len(self.sc.scenes), self.cfg.scenes_per_game),
            }
            ans = yield from self.choose(c.id, "pc.declare",
                                         f"{c.name}（{self.cast_of(c)}）の行動宣言（ターン {turn}）。何をする? 行動の内容を一言（note）",
                                         "§3-1 D06", self._target_pairs(c), context=context,
                                         notes={"*": "allowed"}, speech=True, answer=True)
            if ans.choice == "pass":
                self.ctx.info("declare", f"{c.name} はパスした", pc=c.id, turn=turn)
                return
            target = ans.choice
            text = (ans.note or "").strip()
            if target == "goal":
                category = s.category
            else:
                pairs = [(k, f"{v}（{k}）") for k, v in CATEGORIES.items()]
                category = yield from self.choose(c.id, "pc.declare_category", f"{c.name}: この行動の判定分野",
                                                  "§3-1 D06", pairs, context={**context, "target": target})
            epairs = [(e.id, self.el_label(e)) for e in usable]
            chosen: list[str] = []
            if epairs:
                ans2 = yield from self.choose_many(c.id, "pc.declare_elements",
                                                   f"{c.name}: この行動（{cat_name(category)}）に使う成功要素を宣言する",
                                                   "§3-1 D06", epairs, 0, len(epairs),
                                                   context={**context, "target": target, "category": category})
                chosen = list(ans2.choices or ())
            decl = Declaration(pc=c.id, turn=turn, target=target, category=category, elements=chosen,
                               text=text or self.default_action(CheckSpec(c, "declared", category, target)))
            dur = yield from self.duration(c, decl)
            if dur >= 2:
                how = yield from self.continue_or_split(c, decl, dur, turn, attempt < MAX_REDECLARE)
                if how == "withdraw":
                    self.ctx.info("declare", f"{c.name} は宣言を取り下げた", pc=c.id, turn=turn)
                    return
                if how == "shorten":
                    continue
                if how == "continued":
                    decl.continued, decl.dur = True, dur
                else:
                    decl.dur = 1
            decl.completes = turn + decl.dur - 1
            yield from self.invoke_precedent(c, decl)
            yield from self.decisive(c, decl)
            b_pending: list[tuple[str, str]] = []
            if c.hp >= 1:
                yield from self.declare_hero_points(c, decl, b_pending, {
                    "goal_targeted": decl.goal, "candidate_n": self.candidate_n(c, decl),
                    "goal_difficulty": self.goal_difficulty(), "last_circle_turn": not context["circle_turns_left"],
                    "last_scene": context["last_scene"], "category": decl.category})
            self.b_pending[c.id] = b_pending
            self.set_attr(c, "acted", True, "§3-1 行動宣言", decl.target)
            if decl.continued:
                self.set_attr(c, "busy_until", decl.completes, "§4-4-6 継続行動", decl.text)
            s.declarations.append(decl)
            self.ctx.narrate(c.id, f"{c.name}: {decl.text}" + (f"（継続行動 {decl.dur}ターン）" if decl.continued else ""),
                             source="declare")
            return

    def candidate_n(self, c: Character, decl: Declaration) -> int:
        """D09's estimate: usable declared elements of the category + the cast modifier."""
        n = sum(1 for e in self.usable_elements(c) if e.id in decl.elements and decl.category in e.categories)
        return n + (1 if c.cast == "expert" else -1 if c.cast == "mascot" else 0)

    def duration(self, c: Character, decl: Declaration) -> Gen:
        """D07 (§3-2): how many turns the declared action takes, from the scene's time scale."""
        s = self.t.scene
        sc = self.scene_spec()
        assert s is not None
        pairs = [("none", "1ターンで終わる（継続行動にならない）")]
        pairs += [(str(k), f"{k}ターン") for k in range(2, self.cfg.turns_per_scene + 1)]
        ch = yield from self.choose("gm", "sd.duration", f"{c.name}「{decl.text}」は何ターンかかる?（1ターン {s.turn_duration}）",
                                    "§3-2 D07", pairs,
                                    context={"text": decl.text, "turn_duration": s.turn_duration,
                                             "duration_hints": [h.model_dump() for h in sc.duration_hints] if sc else [],
                                             "turn": s.turn})
        return 1 if ch == "none" else int(ch)

    def continue_or_split(self, c: Character, decl: Declaration, dur: int, turn: int, may_shorten: bool) -> Gen:
        """D08 (§3-2, §5.7): a continued action only if it completes within the scene (t + dur − 1 ≤ 10)."""
        last = turn + dur - 1
        pairs: list[tuple[str, str]] = []
        refused: dict[str, str] = {}
        if last <= self.cfg.turns_per_scene:
            pairs.append(("continued", f"継続行動にする（ターン {turn}〜{last}、判定はターン {last}）"))
        else:
            refused["continued"] = (f"§5.7: the action would end in turn {last}, after turn {self.cfg.turns_per_scene}; "
                                    "shorten or split it")
        pairs.append(("split", "行動を分割し、このターンの分だけ宣言する"))
        if may_shorten:
            pairs.append(("shorten", "もっと短い行動に宣言し直す"))
        pairs.append(("withdraw", "宣言を取り下げる"))
        ch = yield from self.choose(c.id, "pc.continue_or_split",
                                    f"{c.name}: この行動は {dur} ターンかかる。継続行動にする? 分割する?", "§3-2 D08", pairs,
                                    context={"dur": dur, "turn": turn, "last": last, "fits": last <= self.cfg.turns_per_scene},
                                    refused=refused)
        return ch

    def invoke_precedent(self, c: Character, decl: Declaration) -> Gen:
        """D28a: the PC names one of its precedents for the declared check (§4-4-4)."""
        if not c.precedents:
            return
        pairs = [("none", "前例を示さない")]
        pairs += [(p.id, f"前例 {p.id}: {self.who(p.actor)}「{p.action}」（{cat_name(p.category)}、難易度 {p.difficulty}）")
                  for p in c.precedents]
        ch = yield from self.choose(c.id, "pc.invoke_precedent", f"{c.name}: 前例を示して同じ処理を求める?", "§4-4-4 D28",
                                    pairs, context={"category": decl.category, "target": decl.target,
                                                    "precedents": {p.id: {"category": p.category, "target": p.target}
                                                                   for p in c.precedents}})
        if ch != "none":
            decl.precedent = ch

    def decisive(self, c: Character, decl: Declaration) -> Gen:
        """D37 (G8, HOUSE): the protagonist's decisive success in a scene the scenario marks decisive."""
        s = self.t.scene
        if c.cast != "protagonist" or c.decisive_left <= 0 or s is None or not s.decisive or not decl.goal:
            return
        ch = yield from self.choose(c.id, "pc.decisive_success", f"{c.name}: 主人公として決定的な局面で成功を収める?（残り {c.decisive_left}）",
                                    "§1 主人公 D37", [("none", "使わない"), ("use", "使う（この判定は成功する）")],
                                    context={"goal_targeted": decl.goal, "left": c.decisive_left})
        if ch == "use":
            decl.decisive = True
            self.set_attr(c, "decisive_left", c.decisive_left - 1, "§1 主人公 G8")

    def sdc_declare(self, sdc: Character, turn: int) -> Gen:
        """D12: the SD declares for each SDC (the scenario's sdc_actions for this turn by default)."""
        s = self.t.scene
        sc = self.scene_spec()
        assert s is not None
        plans = [a for a in (sc.sdc_actions if sc else []) if a.turn == turn and a.sdc == sdc.id]
        pairs: list[tuple[str, str]] = [("pass", f"{sdc.name} は何もしない")]
        pairs += [(f"plan:{i}", f"{sdc.name}: {a.text}（{cat_name(a.category)}" + ("、対抗" if a.opposed else "") + "）")
                  for i, a in enumerate(plans)]
        pairs.append(("custom", f"{sdc.name} に別の行動をさせる"))
        ch = yield from self.choose("gm", "sd.sdc_declare", f"SDC {sdc.name} の行動宣言（ターン {turn}）", "§3-1 D12", pairs,
                                    context={"sdc": sdc.id, "plans": [a.model_dump() for a in plans]})
        if ch == "pass":
            return
        if ch.startswith("plan:"):
            a = plans[int(ch.split(":", 1)[1])]
            text, category, target, opposed, diff = a.text, a.category, a.target, a.opposed, a.difficulty
        else:
            pcs = tuple(c.id for c in self.t.pcs())

            def check(p: BaseModel) -> str | None:
                assert isinstance(p, SdcAction)
                if p.target not in ("goal", "other", *pcs, *(x.id for x in self.t.sdcs())):
                    return f"target {p.target!r}: goal, other, a PC ({', '.join(pcs)}) or an SDC"
                if p.opposed and p.target not in pcs:
                    return "an opposed SDC action targets a PC"
                return None

            p = yield from self.ask_payload("gm", "sd.sdc_declare", f"{sdc.name} の行動（内容・判定分野・対象・対抗か）", "§3-1 D12",
                                            SdcAction, check, context={"sdc": sdc.id, "pcs": list(pcs)},
                                            samples=[{"text": "様子をうかがう", "category": "perception", "target": "other",
                                                      "opposed": False}])
            assert isinstance(p, SdcAction)
            text, category, target, opposed, diff = p.text, p.category, p.target, p.opposed, None
        if target != "goal" and target != "other" and not target.startswith(("pc:", "sdc:")):
            target = f"pc:{target}" if target in self.t.chars and self.t.chars[target].is_pc else f"sdc:{target}"
        decl = Declaration(pc=sdc.id, turn=turn, target=target, category=category, elements=[], text=text, sdc=True,
                           opposed=opposed, completes=turn, difficulty=diff)
        s.declarations.append(decl)
        self.ctx.narrate("gm", f"{sdc.name}: {text}", source="gm")

    # -- the resolution phase (§4, §7.5, §7.6) ------------------------------------------------------------------
    def resolution_phase(self, turn: int) -> Gen:
        s = self.t.scene
        assert s is not None
        yield from self.passive_phase(turn)
        queue = [d for d in s.declarations if self._resolves(d, turn)]
        queue.sort(key=lambda d: self.slot_key(self.t.chars[d.pc]))
        for d in queue:
            if self.cfg.scene_end_on_goal == "immediate" and s.achieved:
                break
            if d.cancelled:
                continue
            yield from self.resolve(d, turn)

    def _resolves(self, d: Declaration, turn: int) -> bool:
        if d.cancelled:
            return False
        if not d.continued:
            return d.turn == turn
        if self.cfg.continued_check_mode == "every_turn":
            return d.turn <= turn <= d.completes
        return d.completes == turn

    def resolve(self, d: Declaration, turn: int) -> Gen:
        a = self.t.chars[d.pc]
        if d.sdc:
            target = d.target.split(":", 1)[1] if ":" in d.target else None
            spec = CheckSpec(a, "sdc", d.category, d.target, d.text, None, opposed_by=target if d.opposed else None,
                             difficulty=d.difficulty, rule="§3-1 D12")
            yield from self.run_check(spec)
            return
        final = not d.continued or turn == d.completes
        kind = "continued" if d.continued else "declared"
        spec = CheckSpec(a, kind, d.category, d.target, d.text, list(d.elements), hp_a=d.hp_a and final,
                         decisive=d.decisive and final, precedent=d.precedent,
                         rule="§4-4-6 継続判定" if d.continued else "§4 行動判定",
                         hp_b=self.b_pending.pop(a.id, []) if final else [])
        rec = yield from self.run_check(spec)
        if d.continued:
            d.checked.append(turn)
            if final or rec.result == "failure":
                if not final:
                    d.cancelled = True
                    self.ctx.info("continued", f"{a.name} の継続行動は失敗で終わった", pc=a.id, turn=turn)
                    if d.hp_a and self.cfg.hp_refund_on_cancel:
                        self.set_hp(a, a.hp + 1, "§5.7 hp_refund_on_cancel", "continued action ended")
                self.set_attr(a, "busy_until", None, "§7.5 継続行動の終了", rec.id)

    def passive_phase(self, turn: int) -> Gen:
        """D26 (§4-4-7, §7.6): passive checks at the start of the resolution, the scenario's events first."""
        sc = self.scene_spec()
        events = [ps for ev in (sc.events if sc else []) if ev.turn == turn for ps in ev.passive]
        done: set[int] = set()
        custom = 0
        while True:
            pairs: list[tuple[str, str]] = [("none", "受動行動判定はない（解決へ進む）")]
            for k, ps in enumerate(events):
                if k not in done:
                    who = "全員" if "all" in ps.pcs else "・".join(self.who(p) for p in ps.pcs)
                    pairs.append((f"event:{k}", f"{ps.reason}（{who}、{cat_name(ps.category)}、難易度 {ps.difficulty}）"))
            if custom < MAX_CUSTOM_PASSIVE:
                pairs.append(("custom", "ほかの受動行動判定を求める"))
            ch = yield from self.choose("gm", "sd.passive", f"ターン {turn}: 受動行動判定を求める?", "§4-4-7 D26", pairs,
                                        context={"turn": turn, "events": [e.model_dump() for e in events],
                                                 "done": sorted(done)})
            if ch == "none":
                return
            if ch.startswith("event:"):
                k = int(ch.split(":", 1)[1])
                done.add(k)
                ps = events[k]
                targets = [c for c in self.slot_order(self.t.pcs()) if "all" in ps.pcs or c.id in ps.pcs]
                for c in targets:
                    yield from self.run_check(CheckSpec(c, "passive", ps.category, "other", ps.reason, None,
                                                        difficulty=ps.difficulty, rule="§4-4-7 受動行動判定",
                                                        reason=ps.reason))
                continue
            custom += 1
            ids = tuple(c.id for c in self.t.pcs())
            p = yield from self.ask_payload("gm", "sd.passive", "受動行動判定: 誰に、どの分野で、難易度いくつ、何が起きたか",
                                            "§4-4-7 D26", _passive_model(ids), context={"pcs": list(ids)})
            assert isinstance(p, PassiveCheck)
            yield from self.run_check(CheckSpec(self.t.chars[p.pc], "passive", p.category, "other", p.reason, None,
                                                difficulty=p.difficulty, rule="§4-4-7 受動行動判定", reason=p.reason))

    # -- the end of a turn and of a scene ---------------------------------------------------------------------------
    def judge_goal(self, turn: int) -> Gen:
        """D25: mode gm_judgement — the SD rules whether the goal is achieved (the other modes count successes)."""
        s = self.t.scene
        if s is None or s.mode != "gm_judgement" or s.achieved:
            return
        ch = yield from self.choose("gm", "sd.judge_goal", f"ターン {turn} の終わり: シーンの目標「{s.goal_text}」は達成された?",
                                    "§3 D25", [("not_achieved", "まだ達成されていない"), ("achieved", "達成された")],
                                    context={"successes": s.successes, "required": s.required, "turn": turn})
        if ch == "achieved":
            s.judged = True
            self.update_achieved()

    def scene_end(self, spec: SceneSpec) -> Gen:
        """§7.10: cancel continued actions, record the goal, D31, D29, D30, the precedent window (D27)."""
        s = self.t.scene
        assert s is not None
        for d in s.declarations:
            if d.continued and not d.sdc and not d.cancelled and d.completes not in d.checked:
                d.cancelled = True
                c = self.t.chars[d.pc]
                self.ctx.info("continued", f"シーンが終わり、{c.name} の継続行動「{d.text}」は中止された", pc=c.id)
                if d.hp_a and self.cfg.hp_refund_on_cancel:
                    self.set_hp(c, c.hp + 1, "§5.7 hp_refund_on_cancel", "continued action cancelled")
                self.b_pending.pop(c.id, None)
        for c in self.t.pcs():
            self.set_attr(c, "busy_until", None, "§7.5 scene end")
        outcome = {"index": s.index, "id": s.id, "achieved": s.achieved, "outcome": "achieved" if s.achieved else "failed",
                   "mode": s.mode, "required": s.required, "successes": s.successes, "turns": s.turn}
        self.t.outcomes.append(outcome)
        self.ctx.state(f"scenes.{s.id}", None, dict(outcome), "§7.10 goal outcome")
        self.ctx.narrate("gm", f"シーン{s.index}「{s.title}」終了: 目標" + ("達成" if s.achieved else "未達成"), source="gm")
        yield from self.omnipotent_review()
        violations = yield from self.cast_review()
        yield from self.award_hero_points(violations)
        yield from self.precedent_window()
        self.t.scene = None
        self.ctx.state("scene", s.snap(), None, "§7.10 scene end", s.id)

    def cast_review(self) -> Gen:
        """D29 (§1, G4): the SD flags PCs that did not act per their cast (the only consequence: no hero point)."""
        pcs = self.t.pcs()
        lead = max((c.tally.successes for c in pcs if c.cast in ("protagonist", "partner")), default=0)
        flagged: set[str] = set()
        for c in pcs:
            context = {"pc": c.id, "cast": c.cast, "tally": c.tally.snap(), "lead_successes": lead,
                       "cast_constraint": ""}
            ans = yield from self.choose("gm", "sd.cast_violation",
                                         f"{c.name}（{self.cast_of(c)}）はこのシーン、キャストに沿って行動した?", "§1 キャスト違反 D29",
                                         [("none", "キャストに沿っていた"), ("violation", "キャスト違反（理由を note に）")],
                                         context=context, notes={"violation": "required"}, answer=True)
            if ans.choice == "violation":
                flagged.add(c.id)
                self.ctx.ruling("gm", "sd.cast_violation", c.name, "reject", "cast_violation", text=ans.note or "",
                                rule="§1 キャスト違反 D29", pc=c.id)
        return flagged

    def award_hero_points(self, flagged: set[str]) -> Gen:
        """D30 (§4-5-2): +1 at the scene end to each PC that acted according to its cast."""
        for c in self.t.pcs():
            pairs = [("none", "与えない")] if c.id in flagged else [("award", "ヒーローポイントを1点与える"), ("none", "与えない")]
            ch = yield from self.choose("gm", "sd.award_hp", f"{c.name} にヒーローポイントを与える?", "§4-5-2 D30", pairs,
                                        context={"pc": c.id, "tally": c.tally.snap(), "violation": c.id in flagged})
            if ch == "award":
                self.set_hp(c, c.hp + 1, "§4-5-2 ヒーローポイントの獲得", "scene end")

    def precedent_window(self) -> Gen:
        """D27 at the scene end (§6): any PC may record any check of the scene as a precedent."""
        s = self.t.scene
        assert s is not None
        recs = [r for r in self.t.records if r.game == self.t.game_no and r.scene == s.index]
        if not recs:
            return
        for c in self.slot_order(self.t.pcs()):
            for _ in range(len(recs)):
                have = {p.check for p in c.precedents if p.game == self.t.game_no}
                left = [r for r in recs if r.id not in have]
                if not left:
                    break
                pairs = [("none", "記録しない")]
                pairs += [(f"record:{r.id}", f"{r.id}: {self.who(r.actor)}「{r.action}」{RESULT_NAMES[r.result]}") for r in left]
                ch = yield from self.choose(c.id, "pc.record_precedent", f"シーン終了: {c.name} は判定を前例として記録する?",
                                            "§4-4-4 D27", pairs,
                                            context={"own": False, "records": {f"record:{r.id}": {"actor": r.actor,
                                                                                                  "result": r.result}
                                                                               for r in left}})
                if ch == "none":
                    break
                rec = self.t.record(ch.split(":", 1)[1])
                if rec is not None:
                    self.add_precedent(c, rec)

    # -- between scenes (§6) -------------------------------------------------------------------------------------
    def between_scenes(self) -> Gen:
        for c in self.t.pcs():
            if self.cfg.allow_midgame_unrealize:
                yield from self.unrealize_window(c, "§4-1-5 D34 (A3 allow_midgame_unrealize)")
            yield from self.free_window(c, "between", "§4-1-2 D32")
