"""The climax of ラストフラグメント (rules/last_fragment.md §6 climax_phase, §7.8–§7.10): skills (§9.6) in and out of
combat, bond power ②, darts (§7.9.5), the combat of §7.9.1 — secret simultaneous SP choices and withdrawal
declarations (``engine.core.ask.simultaneous``), skill bundles within SP, free-action windows, incapacitation — the
climax aftermath and the winner's loot."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

from ...core import ask
from ...core.decision import Decision, Label
from ...core.visibility import GM
from .base import Gen
from .scenes import FREE_KEYS, ScenesMixin
from .state import Char

__all__ = ["CombatMixin"]

_DART = re.compile(r"^(dmg|heal|sp|dice)\(\+?([^)]*)\)$")
#: a dart's effect as a player reads it (§9.8: dmg / heal / sp / dice)
DART_WORDS = {"dmg": "ダメージ ", "heal": "回復 ", "sp": "SP +", "dice": "ダイス +"}
MAX_AFTERMATH_PASSES = 3  # HOUSE: the GM ends the climax aftermath after three passes


class CombatMixin(ScenesMixin):
    combat_m: Any
    #: during the combat, skill and dart targets are the combatants (present in the round, §9.6)
    in_combat: bool = False

    # -- skills (§9.6, §7.9.3) ---------------------------------------------------------------------------------
    def skill_here(self) -> list[Char]:
        """The characters a skill may target now, before its kind's own conditions (``skill_targets``)."""
        in_combat = self.in_combat
        return [p for p in self.appearing() if not p.withdrawn and (p.combatant or not in_combat)]

    def skill_targets(self, c: Char, sid: str, here: list[Char] | None = None) -> list[Char]:
        """``here``: ``skill_here()``, when the caller asks for several skills at the same moment."""
        sk = self.tb.skills[sid]
        if here is None:
            here = self.skill_here()
        if sk.kind == "attack":
            return [p for p in here if p is not c]
        if sk.kind == "heal":
            return [p for p in here if not p.incapacitated and (p is not c or sk.self_allowed) and p.hp < p.max_hp]
        if sk.kind == "revive":
            return [p for p in here if p.incapacitated and p is not c]
        if sk.kind == "bond":
            return [p for p in here if p is not c and p.kind != "enemy"]
        return [p for p in here if p.abnormalities and (p is not c or sk.self_allowed)]  # cleanse

    def skill_options(self, c: Char, combat: bool, sp_left: int | None = None,
                      declared: list[str] | None = None, double_declared: bool = False) -> list[tuple[str, Label]]:
        if c.incapacitated or c.withdrawn:
            return []
        pairs: list[tuple[str, Label]] = []
        used = c.used_round if combat else c.used_scene
        here: list[Char] | None = None
        double: bool | None = None  # 絆の力② can go with an attack (the same for every attack of this list)
        aname = self.aname
        for sid in c.skills:
            sk = self.tb.skills.get(sid)
            if sk is None or sid in used or sid in (declared or ()) or sk.timing != "tsuujou":
                continue  # a round_start / round_end skill is used in its free-action window (timing_options)
            if self.t.scene_type == "daily" and self.tb.category(sk.ability) == "inou":
                continue  # AMB-37: a 異能 skill is unusable in daily scenes
            if combat and sp_left is not None and sk.sp_cost > sp_left:
                continue
            cost = f"、SP{sk.sp_cost}" if combat else ""
            if here is None:
                here = self.skill_here()
            with_double = False
            if sk.kind == "attack":
                if double is None:
                    double = not double_declared and self.bp_legal(c, "bp_double")
                with_double = double
            # labels are made when someone reads them (a scripted seat reads the ids)
            for p in self.skill_targets(c, sid, here):
                pairs.append((f"skill:{sid}:{p.id}", partial(_skill_label, aname, sk, cost, p)))
                if with_double:
                    pairs.append((f"skill2:{sid}:{p.id}", partial(_skill2_label, sk, p)))
        return pairs

    def timing_options(self, c: Char, window: str) -> list[tuple[str, Label]]:
        """§9.6 HOUSE timings: in the combat's free-action window "start" the skills of timing round_start, in "end"
        those of round_end; once per round each, within the SP left (a combat-only vocabulary: outside the combat's
        rounds these skills are not used)."""
        timing = {"combat_start": "round_start", "combat_end": "round_end"}.get(window)
        if timing is None or not self.in_combat or not c.combatant or c.incapacitated or c.withdrawn:
            return []
        pairs: list[tuple[str, Label]] = []
        here: list[Char] | None = None
        for sid in c.skills:
            sk = self.tb.skills.get(sid)
            if sk is None or sk.timing != timing or sid in c.used_round or sk.sp_cost > c.sp_left:
                continue
            if self.t.scene_type == "daily" and self.tb.category(sk.ability) == "inou":
                continue  # AMB-37
            when = "ラウンド開始時" if timing == "round_start" else "ラウンド終了時"
            if here is None:
                here = self.skill_here()
            for p in self.skill_targets(c, sid, here):
                pairs.append((f"skill:{sid}:{p.id}", f"{sk.name}（{when}、{self.aname(sk.ability)}、SP{sk.sp_cost}）→ {p.name}"))
        return pairs

    def timing_skill(self, c: Char, pick: str) -> Gen:
        sid = pick.split(":")[1]
        self.set_attr(c, "sp_left", c.sp_left - self.tb.skills[sid].sp_cost, "§7.9.2 SP（宣言時に消費, AMB-26）", sid)
        self.set_attr(c, "used_round", [*c.used_round, sid], "§9.6 1ラウンドにつき1回")
        yield from self.use_skills(c, [pick], combat=True)

    def free_options(self, c: Char, window: str) -> list[tuple[str, Label]]:
        return [*super().free_options(c, window), *self.timing_options(c, window)]

    def use_skills(self, c: Char, picks: list[str], combat: bool, resolve_all: bool = False) -> Gen:
        """Resolve declared skills in order. Sequential (AMB-35 default): a user incapacitated mid-bundle loses the
        rest; ``resolve_all`` (resolution_mode = simultaneous): every declared skill resolves."""
        for pick in picks:
            kind, sid, tid = pick.split(":")
            sk = self.tb.skills[sid]
            if c.incapacitated and not resolve_all:
                self.ctx.narrate(GM, f"{c.name} は行動不能: 残りのスキル（{sk.name}）は使えない。", "rules")
                break
            if not combat:
                self.set_attr(c, "used_scene", [*c.used_scene, sid], "§9.6 1シーンにつき1回 (AMB-27)")
            if kind == "skill2":
                yield from self.use_bond_power(c, "bp_double")
            target = self.t.chars[tid]
            self.ctx.narrate(GM, f"{c.name} が{sk.name}を {target.name} に使う。", "rules")
            out = yield from self.check(c, "skill", sk.ability, rule="§7.9.3", target=tid, allow_item=False,
                                        label=f"{sk.name}（{self.aname(sk.ability)}）")
            yield from self.skill_effect(c, sk, target, out)
            yield from self.after_check(c, out)

    def skill_effect(self, c: Char, sk: Any, target: Char, out: dict[str, Any]) -> Gen:
        ok, crit = out["success"], out["critical"]
        if sk.kind == "attack":
            double = c.double_active
            if double and (ok or self.cfg.bond_power_double_consumed_on_fail):
                self.set_attr(c, "double_active", False, "§7.8 絆の力② consumed (AMB-7)")
            if not ok:
                return
            dmg, _ = self.roll_expr(sk.dice, f"{c.id} {sk.name} ダメージ")
            if crit and sk.extra:
                extra, _ = self.roll_expr(sk.extra, f"{c.id} {sk.name} 追加効果")
                dmg += extra
            if double:
                dmg *= 2
            if target.withdrawn:
                self.ctx.narrate(GM, f"{target.name} は離脱している: 効果なし。", "rules")
                return
            self.ctx.narrate(GM, f"{target.name} に {dmg} ダメージ。", "rules")
            self.lose_hp(target, dmg, f"§7.9.3 {sk.name}", c.id)
        elif not ok:
            return
        elif sk.kind == "heal":
            if target.incapacitated or target.withdrawn:
                self.ctx.narrate(GM, f"{sk.name}は効果がない（対象が行動不能か離脱）。", "rules")
                return
            n, _ = self.roll_expr(sk.dice, f"{c.id} {sk.name} 回復")
            if crit and sk.extra:
                m, _ = self.roll_expr(sk.extra, f"{c.id} {sk.name} 追加効果")
                n += m
            self.heal(target, n, f"§7.9.3 {sk.name}", c.id)
        elif sk.kind == "revive":
            if not target.incapacitated or target.withdrawn:
                self.ctx.narrate(GM, f"{sk.name}は効果がない。", "rules")
                return
            hp = int(sk.dice or 1)
            if crit and sk.extra:
                hp, _ = self.roll_expr(sk.extra, f"{c.id} {sk.name} 追加効果")
            self.revive(target, hp, f"§7.9.3 {sk.name}")
        elif sk.kind == "bond":
            yield from self.gain_bond(c, target, f"§9.6 {sk.name}")
            if crit:
                yield from self.gain_bond(target, c, f"§9.6 {sk.name} 追加効果")
        elif sk.kind == "cleanse":
            self.remove_abnormality(target, f"§9.6 {sk.name} (AMB-17)")
            if crit and sk.extra and not target.incapacitated:
                n, _ = self.roll_expr(sk.extra, f"{c.id} {sk.name} 追加効果")
                self.heal(target, n, f"§9.6 {sk.name} 追加効果")

    # -- darts (§7.9.5) ----------------------------------------------------------------------------------------
    def dart_of(self, abn: str) -> tuple[str, str]:
        m = _DART.match(self.tb.abn[abn]["dart"])
        assert m is not None
        return m.group(1), m.group(2)

    def dart_options(self, c: Char, window: str) -> list[tuple[str, Label]]:
        if self.t.phase != "climax" or c.incapacitated or c.withdrawn:
            return []
        in_combat = window.startswith("combat")
        if self.cfg.dart_timing == "combat_only" and not in_combat:
            return []
        pairs: list[tuple[str, Label]] = []
        for a in c.abnormalities:
            if a.dart_used:
                continue
            kind, x = self.dart_of(a.id)
            name = self.tb.abn[a.id]["name"]
            here = [p for p in self.appearing() if not p.withdrawn and (p.combatant or not self.in_combat)]
            if kind == "dmg":
                targets = [p for p in here if p is not c]
            elif kind == "heal":
                targets = [p for p in here if not p.incapacitated]
            elif kind == "sp":
                targets = [c] if in_combat and c.combatant else []
            else:
                targets = [c]
            for p in targets:
                pairs.append((f"dart:{a.id}:{p.id}", f"ダート「{name}」{DART_WORDS[kind]}{x} → {p.name}"))
        return pairs

    def dart_kinds(self, c: Char, window: str) -> dict[str, str]:
        """Each dart option's effect as the abnormality list writes it (``dmg(1D4)``), for the policies."""
        out: dict[str, str] = {}
        for oid, _ in self.dart_options(c, window):
            abn = oid.split(":")[1]
            kind, x = self.dart_of(abn)
            out[oid] = f"{kind}({x})"
        return out

    def use_dart(self, c: Char, abn: str, tid: str) -> Gen:
        a = next(x for x in c.abnormalities if x.id == abn)
        a.dart_used = True
        self.ctx.state(f"{c.id}.darts_used", None, abn, "§7.9.5 ダート（異常性1つにつき一度）")
        kind, x = self.dart_of(abn)
        target = self.t.chars[tid]
        self.ctx.narrate(GM, f"{c.name} がダート「{self.tb.abn[abn]['name']}」を使う → {target.name}", "rules")
        if kind == "dmg":
            n, _ = self.roll_expr(x, f"{c.id} ダート {abn}")
            self.lose_hp(target, n, "§7.9.5 ダート dmg", c.id)
        elif kind == "heal":
            n, _ = self.roll_expr(x, f"{c.id} ダート {abn}")
            self.heal(target, n, "§7.9.5 ダート heal", c.id)
        elif kind == "sp":
            n = int(x)
            self.set_attr(c, "sp_left", c.sp_left + n, "§7.9.5 ダート sp")
            self.set_attr(c, "sp", c.sp + n, "§7.9.5 ダート sp")
        else:
            self.set_attr(c, "dice_bonus", c.dice_bonus + int(x), "§7.9.5 ダート dice")
        return
        yield  # pragma: no cover

    def free_keys(self, c: Char, window: str) -> Mapping[str, Callable[..., Any]]:
        """The scenes' keys, every character's HP, side and state, the darts, and in a window with timed skills
        their kinds."""
        return _FREE_KEYS_TIMED if self.timing_options(c, window) else _FREE_KEYS

    def side(self, p: Char) -> str:
        return "pc" if p.is_pc else "enemy" if (p.kind == "enemy" or p.combatant) else "npc"

    # -- the climax (§6, §7.9) ---------------------------------------------------------------------------------
    def climax_phase(self) -> Gen:
        self.set_t("phase", "climax", "§6 climax_phase")
        self.set_t("absent", [], "§6 climax_phase（全員が登場する）")
        met = [c.id for c in self.t.others() if c.id not in self.t.met]
        if met:
            self.set_t("met", [*self.t.met, *met], "§6 climax_phase（登場）")
        cx = self.sc.climax
        st = cx.scene_type or self.cfg.climax_scene_type
        if st == "last_scene":
            st = self.scenes[self.t.visited[-1]].type if self.t.visited else "nondaily"
        self.set_t("scene_type", st, "§6 climax_phase (AMB-40)")
        self.ctx.narrate(GM, f"クライマックスフェイズ「{cx.name}」" + (f": {self.txt(cx.description)}" if cx.description else ""),
                         "scenario")
        self.introduce(met)
        for c in self.t.chars.values():
            if c.used_scene:
                self.set_attr(c, "used_scene", [], "§9.6")
        npcs = [c for c in self.t.others() if c.kind == "npc"]
        chosen: list[str] = []
        if npcs:
            pairs: list[tuple[str, Label]] = [(c.id, c.name) for c in npcs]
            chosen = yield from self.choose_many("gm", "gm.combat_participants", "戦闘に参加する NPC", "§7.9.1 combat.start",
                                                 pairs, 0, len(pairs), context={"npc_combatants": list(cx.npc_combatants)})
        enemies = [self.t.chars[e] for e in cx.enemies] if cx.enemies else [c for c in self.t.others() if c.kind == "enemy"]
        parts = [*self.t.pcs(), *(c for c in npcs if c.id in chosen), *enemies]
        for p in parts:
            self.set_attr(p, "combatant", True, "§7.9.1 combat.start")
        yield from self.combat(parts)
        self.session_m.fire("fought")
        yield from self.aftermath()
        self.session_m.fire("wrap")
        if self.t.winner:
            yield from self.loot()
        self.session_m.fire("end_climax")

    def order(self, parts: list[Char]) -> list[Char]:
        if self.cfg.initiative_order == "seat":
            return list(parts)
        return sorted(parts, key=lambda p: -p.sp if self.cfg.initiative_order == "sp_desc" else p.sp)

    def combat(self, parts: list[Char]) -> Gen:
        self.in_combat = True
        self.combat_m.fire("begin")
        self.ctx.narrate(GM, "戦闘開始: " + "、".join(p.name for p in parts), "rules")
        rnd = 0
        self.combat_m.fire("round")
        while True:
            rnd += 1
            self.set_t("round", rnd, "§7.9.1 round_start")
            active = [p for p in parts if not p.withdrawn and not p.incapacitated]
            for p in parts:
                if p.used_round:
                    self.set_attr(p, "used_round", [], "§7.9.1 round_start")
                if p.incapacitated or p.withdrawn:
                    self.set_attr(p, "sp", 0, "§7.9.1 SP 0")
                    self.set_attr(p, "sp_left", 0, "§7.9.1 SP 0")
            if active:
                ds = [Decision(p.id, "cb.sp_choice", f"ラウンド{rnd}: このラウンドの SP（1〜10）を秘密裏に選ぶ", "§7.9.2 SP",
                               options=ask.options([(str(i), f"SP {i}") for i in range(1, 11)]),
                               context={"round": rnd, "skills": {s: self.tb.skills[s].sp_cost for s in p.skills
                                                                 if s in self.tb.skills}})
                      for p in active]
                answers = yield from ask.simultaneous(ds, "cb.sp_choice", "§7.9.2 SP (simultaneous)")
                for p in active:
                    sp = int(answers[p.id].choice)
                    self.set_attr(p, "sp", sp, "§7.9.2 SP")
                    self.set_attr(p, "sp_left", sp, "§7.9.2 SP")
                self.ctx.narrate(GM, "SP 公開: " + "、".join(f"{p.name} {p.sp}" for p in active), "rules")
            order = self.order(parts)
            yield from self.faw(order, "start")
            self.combat_m.fire("act")
            if self.cfg.resolution_mode == "simultaneous":
                # AMB-35 simultaneous: every actor declares first (in initiative order, each seeing the declarations
                # before it), then every declared skill resolves, even if its user was incapacitated in the step
                decls: dict[str, list[str]] = {}
                for p in order:
                    if p.withdrawn or p.incapacitated:
                        continue
                    decls[p.id] = yield from self.declare(p, rnd)
                for p in order:
                    if p.id not in decls:
                        continue
                    if decls[p.id]:
                        yield from self.use_skills(p, decls[p.id], combat=True, resolve_all=True)
                    yield from self.faw(order, "after_action")
            else:
                for p in order:
                    if p.withdrawn or p.incapacitated:
                        continue
                    yield from self.combat_action(p, rnd)
                    yield from self.faw(order, "after_action")
            self.combat_m.fire("close")
            yield from self.faw(order, "end")
            active = [p for p in parts if not p.withdrawn and not p.incapacitated]
            said: dict[str, bool] = {}
            if active:
                ds = [Decision(p.id, "cb.withdrawal_declaration", f"ラウンド{rnd}の終了: 離脱を宣言する?", "§7.9.1 round_end",
                               options=ask.options([("pass", "離脱しない"), ("withdraw", "離脱する")]),
                               context=self.withdraw_context(p, parts))
                      for p in active]
                answers = yield from ask.simultaneous(ds, "cb.withdrawal_declaration", "AMB-23 (simultaneous)")
                said = {p.id: answers[p.id].choice == "withdraw" for p in active}
            newly = [p for p in parts if not p.withdrawn and (p.incapacitated or said.get(p.id))]
            for p in newly:
                self.set_attr(p, "withdrawn", True, "§7.9.1 離脱", "行動不能" if p.incapacitated else "離脱宣言")
            if newly:
                self.ctx.narrate(GM, "離脱: " + "、".join(p.name for p in newly), "rules")
            remaining = [p for p in parts if not p.withdrawn]
            if len(remaining) <= 1 or rnd >= self.cfg.max_combat_rounds:
                if len(remaining) > 1:
                    self.ctx.info("round_cap", f"{self.cfg.max_combat_rounds}ラウンドを超えたため戦闘を打ち切る"
                                  "（独自の安全上限）", round=rnd)
                self.combat_m.fire("finish")
                break
            self.combat_m.fire("next_round")
        self.in_combat = False
        winner = remaining[0] if len(remaining) == 1 else None
        self.set_t("winner", winner.id if winner else None, "§7.10 勝者")
        self.set_t("losers", [p.id for p in parts if p.withdrawn], "§7.10 敗者")
        self.ctx.narrate(GM, f"戦闘終了: 勝者 {winner.name}" if winner else "戦闘終了: 勝者なし", "rules")
        for p in parts:
            if p.withdrawn:
                self.set_attr(p, "withdrawn", False, "§7.9.1 combat.end")
            for attr, v in (("sp", 0), ("sp_left", 0)):
                self.set_attr(p, attr, v, "§7.9.1 combat.end")

    def withdraw_context(self, p: Char, parts: list[Char]) -> dict[str, Any]:
        return {"side": {q.id: self.side(q) for q in parts}, "hp": {q.id: q.hp for q in parts},
                "incapacitated": [q.id for q in parts if q.incapacitated], "withdrawn": [q.id for q in parts if q.withdrawn],
                "seat": [q.id for q in parts]}

    def faw(self, order: list[Char], window: str) -> Gen:
        for p in order:
            yield from self.free_window(p, f"combat_{window}")

    def combat_action(self, c: Char, rnd: int) -> Gen:
        declared = yield from self.declare(c, rnd)
        if declared:
            yield from self.use_skills(c, declared, combat=True)

    def declare(self, c: Char, rnd: int) -> Gen:
        """combat_action: a bundle of 通常時 skills within the SP left, one at a time, then done (SP spent and the
        skills marked used as they are declared, AMB-26). Returns the declared picks."""
        declared: list[str] = []
        while True:
            names = [x.split(":")[1] for x in declared]
            opts = self.skill_options(c, combat=True, sp_left=c.sp_left, declared=names,
                                      double_declared=any(x.startswith("skill2") for x in declared))
            if not opts:
                break
            pairs: list[tuple[str, Label]] = [("done", "宣言を終える" if declared else "行動しない"), *opts]
            ctx = self.withdraw_context(c, [p for p in self.t.chars.values() if p.combatant])
            ctx.update(sp_left=c.sp_left, declared=list(declared), max_hp={p.id: p.max_hp for p in self.t.chars.values()})
            ch = yield from self.choose(c.id, "cb.combat_action", f"ラウンド{rnd}: {c.name} の行動宣言（残りSP {c.sp_left}）",
                                        "§7.9.1 action_step", pairs, context=ctx)
            if ch == "done":
                break
            sid = ch.split(":")[1]
            declared.append(ch)
            self.set_attr(c, "sp_left", c.sp_left - self.tb.skills[sid].sp_cost, "§7.9.2 SP（宣言時に消費, AMB-26）", sid)
            self.set_attr(c, "used_round", [*c.used_round, sid], "§9.6 1ラウンドにつき1回")
        if declared and self.cfg.resolution_mode == "simultaneous":
            self.ctx.narrate(GM, f"{c.name} の行動宣言: " + "、".join(self.pick_text(x) for x in declared), "rules")
        return declared

    def pick_text(self, pick: str) -> str:
        kind, sid, tid = pick.split(":")
        return f"{self.tb.skills[sid].name}" + ("＋絆の力②" if kind == "skill2" else "") + f"→{self.who(tid)}"

    def aftermath(self) -> Gen:
        """§6 climax_aftermath (HOUSE): free actions and each skill once (SP ignored) until a pass of passes."""
        for c in self.t.chars.values():
            if c.used_scene:
                self.set_attr(c, "used_scene", [], "§6 climax_aftermath")
        order = [*self.t.pcs(), *(c for c in self.t.others() if c.kind == "npc"),
                 *(c for c in self.t.others() if c.kind == "enemy")]
        for _ in range(MAX_AFTERMATH_PASSES):
            acted = False
            for c in order:
                yield from self.free_window(c, "aftermath")
                opts = self.skill_options(c, combat=False)
                if not opts:
                    continue
                seen = [q for q in order if self.known(c.id, q)]  # who it knows is at the table (never the unmet)
                ctx = {"side": {q.id: self.side(q) for q in seen}, "hp": {q.id: q.hp for q in seen},
                       "max_hp": {q.id: q.max_hp for q in seen}, "incapacitated": [q.id for q in seen if q.incapacitated]}
                ch = yield from self.choose(c.id, "cb.aftermath_action", f"{c.name}: クライマックスの余韻（スキルを使う?）",
                                            "§6 climax_aftermath", [("pass", "何もしない"), *opts], context=ctx)
                if ch != "pass":
                    acted = True
                    yield from self.use_skills(c, [ch], combat=False)
            if not acted:
                break

    def loot(self) -> Gen:
        w = self.t.chars[self.t.winner or ""]
        pairs: list[tuple[str, Label]] = [("none", "何も取らない")]
        for lid in self.t.losers:
            lo = self.t.chars[lid]
            pairs += [(f"item:{lid}:{i}", f"{lo.name} のアイテム{self.iname(lo.items, i)}") for i in range(len(lo.items))]
            frs = [f for f in self.held(lid) if not self.holds(w.id, f)]
            pairs += [(f"frag:{lid}:{f}", f"{lo.name} のフラグメント（その{k + 1}）") for k, f in enumerate(frs)]
        if len(pairs) == 1:
            return
        ch = yield from self.choose(w.id, "cb.winner_loot", "勝者: 敗者から1つ奪う", "§7.10 勝者", pairs,
                                    context={"losers": list(self.t.losers),
                                             "side": {q.id: self.side(q) for q in self.known_to(w)},
                                             "seat": [q.id for q in self.known_to(w)]})
        if ch == "none":
            return
        kind, lid, x = ch.split(":", 2)
        lo = self.t.chars[lid]
        if kind == "item":
            items = list(lo.items)
            name = items.pop(int(x))
            self.set_attr(lo, "items", items, "§7.10 勝者の略奪", w.id)
            self.ctx.narrate(GM, f"{w.name} が {lo.name} から「{name}」を奪った。", "rules")
            yield from self.add_item(w, name, "§7.10 勝者の略奪")
        else:
            self.ctx.narrate(GM, f"{w.name} が {lo.name} からフラグメントを奪った。", "rules")
            self.acquire(w.id, x, "§7.10 勝者の略奪 (AMB-28)", f"{lo.name} から")
            if self.cfg.loot_fragment_mode == "move" and self.holds(lid, x):
                old = list(self.t.holders[x])
                self.t.holders[x] = [h for h in old if h != lid]
                self.ctx.state(f"fragments.{x}.holders", old, list(self.t.holders[x]), "AMB-28 move", to=old)


#: the climax's free-action context (``free_keys``): key → function of (game, character, window)
_FREE_KEYS: dict[str, Callable[..., Any]] = {
    **FREE_KEYS,
    "hp": lambda g, c, w: {p.id: p.hp for p in g.known_to(c)},
    "max_hp": lambda g, c, w: {p.id: p.max_hp for p in g.known_to(c)},
    "side": lambda g, c, w: {p.id: g.side(p) for p in g.known_to(c)},
    "incapacitated": lambda g, c, w: [p.id for p in g.known_to(c) if p.incapacitated],
    "withdrawn": lambda g, c, w: [p.id for p in g.known_to(c) if p.withdrawn],
    "darts": lambda g, c, w: g.dart_kinds(c, w),
}
_FREE_KEYS_TIMED: dict[str, Callable[..., Any]] = {
    **_FREE_KEYS,
    "skill_kinds": lambda g, c, w: {s: g.tb.skills[s].kind for s in c.skills if s in g.tb.skills},
}


def _skill_label(aname: Callable[[str], str], sk: Any, cost: str, p: Char) -> str:
    return f"{sk.name}（{aname(sk.ability)}{cost}）→ {p.name}"


def _skill2_label(sk: Any, p: Char) -> str:
    return f"{sk.name}＋絆の力②（ダメージ2倍）→ {p.name}"
