"""ヒーローポイント (rules/a_game.md §4-5, §5.8, §7.8; D09–D11, D37).

Declared only at the holding PC's action declaration (never while cooperating, in passive checks, for SDCs), at most
``hp_max_per_declaration`` per declaration. Effect A: 1 HP at the declaration, the declared action's check succeeds
at step 4 (it is still rolled; usage counts still rise). Effect B 「実は〜だった」: with the SD's approval (D10), 1 HP
voids an earlier check result of this game and decides it again (``ctx.void`` on its check event, step 3 re-run with
the same pool and difficulty, the same opponent value; usage not counted again), or replaces a setting fact (D11).
Every change is a new event; the voided check stays in the log and is gone from every view and statistic.
"""

from __future__ import annotations

from collections import Counter

from typing import Any

from .base import Gen, approve
from .checks import CheckSpec, ChecksMixin, Side
from .data import HP_B_REASONS, RESULT_NAMES
from .odds import evaluate
from .state import Character, CheckRecord, Declaration

__all__ = ["HeroMixin", "MAX_REJECTED_B"]

#: HOUSE safety cap: effect B declarations the SD may reject in one declaration before it goes on without
MAX_REJECTED_B = 2


def _contribution(rec: CheckRecord) -> int:
    """What a record adds to its scene's goal: a success, or an intermediate result the SD ruled progress (D24)."""
    return 1 if rec.result == "success" or (rec.result == "intermediate" and rec.progress) else 0


class HeroMixin(ChecksMixin):
    _queued_redos: list[tuple[str, str, str]]

    # -- D09 inside D06 --------------------------------------------------------------------------------------------
    def declare_hero_points(self, pc: Character, decl: Declaration, b_pending: list[tuple[str, str]],
                            context: dict[str, Any]) -> Gen:
        """D09: none, A (this action's check succeeds) or B (「実は〜だった」 on a check record or a setting fact)."""
        uses = 0  # hero points spent (or reserved for step 4); a rejected effect B spends nothing (§7.8)
        step4 = self.cfg.hp_b_timing == "at_step4"
        for _ in range(self.cfg.hp_max_per_declaration + MAX_REJECTED_B):
            if uses >= self.cfg.hp_max_per_declaration or pc.hp - (len(b_pending) if step4 else 0) < 1:
                return
            pairs: list[tuple[str, str]] = [("none", "ヒーローポイントを使わない")]
            if not decl.hp_a:
                pairs.append(("A", "効果A: この行動の判定の成功を得る（1点）"))
            refused: dict[str, str] = {}
            # at step 4 the effects B declared so far in this declaration count as targeting already (§5.8)
            pending = Counter(target for target, _ in b_pending)
            for r in self.t.records:
                if r.game != self.t.game_no:
                    continue
                oid = f"B:{r.id}"
                if r.b_targeted + pending[r.id] >= self.cfg.hp_b_max_per_target:
                    refused[oid] = (f"hp_b_max_per_target: {r.id} was already the target of effect B "
                                    f"{r.b_targeted + pending[r.id]} time(s) (§5.8)")
                    continue
                pairs.append((oid, f"効果B: {r.id}（{self.who(r.actor)}「{r.action}」{RESULT_NAMES.get(r.result, r.result)}）"
                                   "を「実は〜だった」で決め直す"))
            texts = {f.id: self.t.facts.get(f.id, f.text) for f in self.sc.setting_facts}
            seen = Counter(texts.values())
            for f in self.sc.setting_facts:
                # an empty or repeated text gets the fact's id, so that the options differ
                text = texts[f.id]
                named = f"「{text}」（{f.id}）" if not text.strip() or seen[text] > 1 else f"「{text}」"
                pairs.append((f"B:fact:{f.id}", f"効果B: 設定{named}を「実は〜だった」で変える"))
            if step4 and pending["self"] < self.cfg.hp_b_max_per_target:
                pairs.append(("B:self", "効果B: この行動の判定結果を、振った後に「実は〜だった」で決め直す"))
            elif step4:
                refused["B:self"] = (f"hp_b_max_per_target: this check is already the target of effect B "
                                     f"{pending['self']} time(s) (§5.8)")
            # the statement is the note; an empty one is the SD's to refuse (D10: no_statement)
            notes = {oid: "allowed" for oid, _ in pairs if oid.startswith("B:")}
            ans = yield from self.choose(pc.id, "pc.hero_point",
                                         f"{pc.name}: ヒーローポイント（{pc.hp}点）を使う? 効果Bなら「実は〜だった」を一言（note）",
                                         "§4-5-3 D09", pairs, context={**context, "hp": pc.hp, "uses": uses},
                                         refused=refused, notes=notes, answer=True)
            if ans.choice == "none":
                return
            if ans.choice == "A":
                uses += 1
                decl.hp_a = True
                self.set_hp(pc, pc.hp - 1, "§4-5-3 効果A", "declared")
                self.ctx.info("hero_point", f"{pc.name} はヒーローポイントを使った（効果A）", pc=pc.id, who=pc.id,
                              effect="A")
                continue
            target = ans.choice.split(":", 1)[1]
            statement = (ans.note or "").strip()
            if step4:
                uses += 1
                b_pending.append((target, statement))
                self.ctx.info("hero_point", f"{pc.name} は効果Bを宣言した（判定のステップ4で裁定）:「{statement}」",
                              pc=pc.id, who=pc.id, effect="B", target=target)
                continue
            ok = yield from self.hero_b(pc, target, statement)
            uses += 1 if ok else 0

    # -- D10, D11 and the redo ----------------------------------------------------------------------------------------
    def hero_b(self, pc: Character, target: str, statement: str, rule: str = "§4-5-3 D10") -> Gen:
        """Effect B: the SD approves (D10); then 1 HP, and the check is redone or the fact replaced."""
        rec = self.t.record(target) if not target.startswith("fact:") and target != "self" else None
        fact_id = target.split(":", 1)[1] if target.startswith("fact:") else None
        context: dict[str, Any] = {"statement": statement, "target": target, "immutable_facts": list(self.sc.immutable_facts)}
        if rec is not None:
            context.update(kind="check", resolved=bool(rec.result), current_game=rec.game == self.t.game_no,
                           b_targeted=rec.b_targeted, record=rec.view())
            subject = f"{rec.id}: {self.who(rec.actor)}「{rec.action}」"
        else:
            context.update(kind="fact", fact=fact_id, text=self.t.facts.get(fact_id or "", ""),
                           immutable=fact_id in self.sc.immutable_facts)
            subject = f"設定 {fact_id}"
        verdict = yield from approve(
            self.ctx, "gm", "sd.approve_hp_b", subject,
            f"{pc.name} がヒーローポイント効果B:「{statement}」（対象 {subject}）。認める?", rule, HP_B_REASONS,
            context=context, data={"pc": pc.id, "target": target, "statement": statement})
        if not verdict.approved:
            return False
        self.set_hp(pc, pc.hp - 1, "§4-5-3 効果B", target)
        self.ctx.info("hero_point", f"{pc.name} はヒーローポイントを使った（効果B）:「{statement}」", pc=pc.id, who=pc.id,
                      effect="B", target=target)
        if rec is not None:
            yield from self.redo_check(rec, pc, statement)
        elif fact_id is not None:
            ans = yield from self.choose("gm", "sd.new_fact", f"設定 {fact_id} の新しい事実:「{statement}」", "§4-5-3 D11",
                                         [("adopt", "PL の言葉どおりの事実にする"), ("revise", "SD の言葉で書き直す（note）")],
                                         context={"fact": fact_id, "statement": statement},
                                         notes={"revise": "required"}, answer=True)
            text = ans.note if ans.choice == "revise" and ans.note else statement
            old = self.t.facts.get(fact_id)
            self.t.facts[fact_id] = text
            self.ctx.state(f"facts.{fact_id}", old, text, "§4-5-3 効果B 設定", pc.id)
        return True

    def redo_check(self, rec: CheckRecord, by: Character, statement: str) -> Gen:
        """§5.8: the record's result is voided and decided again by re-running step 3 with the same N and D (the same
        opponent value); its actor re-chooses fixed dice and greed; usage is not counted again."""
        actor = self.t.chars[rec.actor]
        before = _contribution(rec)
        self.ctx.void(rec.event, "§4-5-3 効果B", reason=statement, by=by.id)
        rec.history.append({"event": rec.event, "result": rec.result, "total": rec.total, "fixed": rec.fixed,
                            "rolled": list(rec.rolled), "batches": [list(b) for b in rec.batches],
                            "auto_fail": rec.auto_fail, "by": by.id, "statement": statement})
        self.check_m.fire("redo")
        out = yield from self.roll_side(actor, rec.n, rec.difficulty, None, "actor", f"{rec.id} {actor.id} redo")
        rec.fixed, rec.rolled, rec.batches = out.fixed, list(out.rolled), [list(b) for b in out.batches]
        rec.total, rec.auto_fail = out.total, out.auto_fail
        rec.rolled_result = evaluate(out.total, rec.difficulty, out.auto_fail)
        rec.raw = evaluate(out.first_total, rec.difficulty, 1 in out.rolled)
        self.check_m.fire("rolled")
        old = rec.result
        rec.result = "success" if rec.hp_a or rec.decisive else rec.rolled_result
        if rec.result != "intermediate":
            rec.progress = False
        self.check_m.fire("applied")
        rec.b_targeted += 1
        rec.event = self.check_event(rec, "§4-5-3 効果B", redo_of=rec.id)
        self.ctx.state(f"checks.{rec.id}", old, rec.result, "§4-5-3 効果B", by.id)
        if actor.is_pc and rec.kind in ("declared", "continued") and self.t.scene is not None \
                and rec.scene == self.t.scene.index:
            actor.tally.successes += (rec.result == "success") - (old == "success")
        delta = _contribution(rec) - before
        if rec.goal and actor.is_pc and delta:
            self.goal_progress(rec, delta)
        self.check_m.fire("done")

    # -- step 4 with hp_b_timing = at_step4 ---------------------------------------------------------------------
    def step4(self, rec: CheckRecord, spec: CheckSpec, side: Side, opp: Side | None) -> Gen:
        pending = list(getattr(spec, "hp_b", []) or [])
        for target, statement in pending:
            pc = spec.actor
            if pc.hp < 1:
                break
            if target != "self":
                ok = yield from self._approve_only(pc, target, statement)
                if ok:
                    self._queued_redos.append((target, statement, pc.id))
                continue
            ok = yield from self._approve_only(pc, "self", statement, rec=rec)
            if not ok:
                continue
            # the roll as it fell is recorded, then voided (ARCHITECTURE 10), and step 3 is run again
            rec.event = self.check_event(rec, "§4-5-3 効果B (ステップ4)")
            self.ctx.void(rec.event, "§4-5-3 効果B", reason=statement, by=pc.id)
            rec.history.append({"event": rec.event, "result": rec.result, "total": rec.total, "fixed": rec.fixed,
                                "rolled": list(rec.rolled), "batches": [list(b) for b in rec.batches],
                                "auto_fail": rec.auto_fail, "by": pc.id, "statement": statement})
            rec.b_targeted += 1
            self.check_m.fire("reroll")
            out = yield from self.roll_side(pc, rec.n, rec.difficulty, None, "actor", f"{rec.id} {pc.id} redo")
            rec.fixed, rec.rolled, rec.batches = out.fixed, list(out.rolled), [list(b) for b in out.batches]
            rec.total, rec.auto_fail = out.total, out.auto_fail
            rec.rolled_result = evaluate(out.total, rec.difficulty, out.auto_fail)
            rec.raw = evaluate(out.first_total, rec.difficulty, 1 in out.rolled)
            rec.result = rec.rolled_result
            self.check_m.fire("rolled")

    def _approve_only(self, pc: Character, target: str, statement: str, rec: CheckRecord | None = None) -> Gen:
        """D10 at step 4: the SD's approval and the HP; the effect is applied by the caller. A record that is already
        the target of effect B ``hp_b_max_per_target`` times, counting the redos approved and not yet applied, cannot
        be approved (§5.8): another PC's effect B on it was settled at an earlier step 4 of the same turn."""
        r = rec if rec is not None else self.t.record(target)
        targeted = 0
        if r is not None and not target.startswith("fact:"):
            targeted = r.b_targeted + sum(1 for q in getattr(self, "_queued_redos", []) if q[0] == target)
        context: dict[str, Any] = {"statement": statement, "target": target, "kind": "check",
                                   "resolved": True, "current_game": True,
                                   "b_targeted": targeted,
                                   "immutable_facts": list(self.sc.immutable_facts)}
        forbid = None
        if target.startswith("fact:"):
            fid = target.split(":", 1)[1]
            context.update(kind="fact", fact=fid, immutable=fid in self.sc.immutable_facts)
        elif targeted >= self.cfg.hp_b_max_per_target:
            forbid = (f"hp_b_max_per_target: {r.id if r is not None else target} was already the target of effect B "
                      f"{targeted} time(s) (§5.8)")
        verdict = yield from approve(
            self.ctx, "gm", "sd.approve_hp_b", target,
            f"{pc.name} がヒーローポイント効果B:「{statement}」（対象 {target}）。認める?", "§4-5-3 D10 (A16 at_step4)",
            HP_B_REASONS, context=context, forbid=forbid, data={"pc": pc.id, "target": target, "statement": statement})
        if not verdict.approved:
            return False
        self.set_hp(pc, pc.hp - 1, "§4-5-3 効果B", target)
        if target.startswith("fact:"):
            fid = target.split(":", 1)[1]
            old = self.t.facts.get(fid)
            self.t.facts[fid] = statement
            self.ctx.state(f"facts.{fid}", old, statement, "§4-5-3 効果B 設定", pc.id)
            return False  # nothing more to apply
        return True

    def run_check(self, spec: CheckSpec) -> Gen:
        """A check, then the redos effect B queued at its step 4 (hp_b_timing=at_step4, earlier records)."""
        if not hasattr(self, "_queued_redos"):
            self._queued_redos = []
        rec = yield from super().run_check(spec)
        while self._queued_redos:
            target, statement, by = self._queued_redos.pop(0)
            r = self.t.record(target)
            if r is not None:
                yield from self.redo_check(r, self.t.chars[by], statement)
        return rec
