"""The main phase of ラストフラグメント (rules/last_fragment.md §6 main_phase, §7.1–§7.6): scene selection with
unlock conditions and no backtracking, discovery on entry, triggers, cycles of opportunities (free actions and one
main action each), investigation (objects, characters, secret fragments), personal scenes with a bond check, the
climax declaration and the GM's stuck resolution."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

from ...core.decision import Label, LazyContext
from ...core.visibility import GM
from .base import Gen, GameBase
from .conditions import evaluate
from .data import BOND_POWERS, SCENE_TYPE_NAMES
from .scenario import EffectSpec, SceneSpec
from .state import Char

__all__ = ["ScenesMixin"]

MAX_FREE_ACTIONS = 6  # HOUSE: free actions one character may take in one opportunity or window


class ScenesMixin(GameBase):
    session_m: Any
    scenes: dict[str, SceneSpec]
    #: worked examples: stop the main phase once this many scenes were entered (None: play on)
    stop_at_enter: int | None = None
    next_scene: str | None = None
    window: str = "main"

    # -- conditions (B.5) --------------------------------------------------------------------------------------
    def _atom(self, c: dict[str, Any]) -> bool:
        op = c["op"]
        pcs = [p.id for p in self.t.pcs()]
        if op in ("fragment_held", "item_held"):
            by = c["by"]
            if op == "fragment_held":
                test = lambda cid: self.holds(cid, c["id"])  # noqa: E731
            else:
                test = lambda cid: c["item"] in self.t.chars[cid].items  # noqa: E731
            if by == "any_pc":
                return any(test(p) for p in pcs)
            if by == "all_pcs":
                return all(test(p) for p in pcs)
            return by in self.t.chars and test(by)
        if op == "visited":
            return c["id"] in self.t.visited
        if op == "investigated":
            v = self.t.investigated.get(c["id"])
            return v is True if c.get("success", True) else v is not None
        if op == "flag":
            return c["name"] in self.t.flags
        return False  # pragma: no cover

    def holds_cond(self, cond: dict[str, Any]) -> bool:
        return evaluate(cond, self._atom)

    def unlocked(self, s: SceneSpec) -> bool:
        return s.id in self.t.forced or self.holds_cond(s.unlock)

    # -- who is here -------------------------------------------------------------------------------------------
    def present(self, c: Char) -> bool:
        if self.t.phase == "climax":
            return True
        if c.is_pc:
            return c.id not in self.t.absent
        return c.id in self.t.revealed

    def appearing(self) -> list[Char]:
        # ``present`` for every character, inlined (read at every free-action window and investigation)
        t = self.t
        if t.phase == "climax":
            return list(t.chars.values())
        absent, revealed = t.absent, t.revealed
        return [c for c in t.chars.values() if (c.id not in absent if c.is_pc else c.id in revealed)]

    def here_pcs(self) -> list[Char]:
        """The PCs appearing in the current scene, in seat order (all of them unless all_pcs_in_every_scene = false)."""
        return [c for c in self.t.pcs() if c.id not in self.t.absent]

    def introduce(self, ids: list[str]) -> None:
        """The scenario's description of each character who appears for the first time, told to the table."""
        for cid in ids:
            if cid in self.looks:
                self.ctx.narrate(GM, f"{self.t.chars[cid].name}: {self.txt(self.looks[cid])}", "scenario")

    def describe(self, refs: list[str]) -> None:
        """The scenario's description of each object or item found (B.3), told to the table as it is found."""
        for ref in refs:
            thing = self.objs.get(ref) or self.items.get(ref)
            if thing is not None and thing.description:
                kind = "" if ref in self.objs else "アイテム"
                self.ctx.narrate(GM, f"{kind}「{thing.name}」: {self.txt(thing.description)}", "scenario")

    def gate(self) -> bool:
        lf = self.last_id
        pcs = self.t.pcs()
        if self.cfg.climax_gate == "all_pcs":
            return all(self.holds(p.id, lf) for p in pcs)
        return any(self.holds(p.id, lf) for p in pcs)

    # -- the main phase ----------------------------------------------------------------------------------------
    def main_phase_loop(self) -> Gen:
        """§6 main_phase: returns True when the climax begins, False when the main phase ends without it."""
        first = True
        last: str | None = None
        while True:
            if first:
                first = False
                s = self.scenes[self.sc.start_scene]
                self.session_m.fire("enter")
            else:
                again = self.t.reentries < self.cfg.max_scene_reentries  # HOUSE safety: no endless back and forth
                cands = [s for s in self.sc.scenes if s.id != last and self.unlocked(s)
                         and (s.id not in self.t.visited or (again and (s.revisitable or self.cfg.allow_backtrack)))]
                if cands:
                    pairs: list[tuple[str, Label]] = [(s.id, f"{s.name}（{SCENE_TYPE_NAMES[s.type]}）") for s in cands]
                    sid = yield from self.choose("gm", "gm.next_scene", "次のシーンを選ぶ", "§6 scene_select", pairs,
                                                 context={"candidates": [s.id for s in cands]})
                    s = self.scenes[sid]
                    self.session_m.fire("enter")
                else:
                    if self.gate():
                        self.session_m.fire("declare")
                        ok = yield from self.climax_declaration()
                        if ok:
                            self.session_m.fire("climax")
                            return True
                        self.session_m.fire("refused")
                    else:
                        self.session_m.fire("stuck")
                    s = yield from self.gm_stuck()
                    if s is None:
                        self.session_m.fire("give_up")
                        return False
                    self.session_m.fire("force")
            result = yield from self.play_scene(s)
            last = s.id
            if result == "stop":
                return False
            if result == "climax":
                self.session_m.fire("climax")
                return True

    def gm_stuck(self) -> Gen:
        """§6 gm_stuck (HOUSE): force-unlock a locked unvisited scene, or end the main phase."""
        locked = [s for s in self.sc.scenes if s.id not in self.t.visited and not self.unlocked(s)]
        pairs: list[tuple[str, Label]] = [(f"force:{s.id}", f"「{s.name}」を強制的に解放する") for s in locked]
        pairs.append(("end_main_phase", "メインフェイズを終える"))
        ch = yield from self.choose("gm", "gm.stuck_resolution", "進めるシーンがない: どうする?", "§6 gm_stuck (HOUSE)", pairs,
                                    context={"locked": [s.id for s in locked]})
        if ch == "end_main_phase":
            return None
        sid = ch.split(":", 1)[1]
        self.set_t("forced", [*self.t.forced, sid], "§6 gm_stuck force_unlock")
        return self.scenes[sid]

    # -- one scene ---------------------------------------------------------------------------------------------
    def play_scene(self, s: SceneSpec) -> Gen:
        if self.stop_at_enter is not None and len(self.t.visited) + 1 >= self.stop_at_enter:
            self.next_scene = s.id
            return "stop"
        yield from self.enter_scene(s)
        self.session_m.fire("play")
        result = yield from self.scene_play(s)
        return result

    def enter_scene(self, s: SceneSpec) -> Gen:
        """§6 scene_enter: visited, the drawback scene_hp_1, discovery in seat order, the on_enter triggers."""
        if s.id in self.t.visited:
            self.set_t("reentries", self.t.reentries + 1, "§6 scene_enter (再訪: HOUSE max_scene_reentries)")
            if self.t.reentries >= self.cfg.max_scene_reentries:
                self.ctx.info("reentry_cap", "再訪できるのはここまで: 訪れたシーンには、これ以上戻れない（上限 "
                              f"{self.cfg.max_scene_reentries} 回: 独自の安全上限）", scene=s.id)
        else:
            self.set_t("visited", [*self.t.visited, s.id], "§6 scene_enter")
        self.set_t("scene", s.id, "§6 scene_enter")
        self.set_t("scene_type", s.type, "§6 scene_enter")
        self.set_t("revealed", [], "§6 scene_enter")
        self.set_t("loose", [], "§6 scene_enter")
        self.set_t("scene_time", s.time if self.cfg.investigation_limit_mode == "scene_time" else None,
                   "Appendix A.4 scene_time")
        for c in self.t.chars.values():
            if c.used_scene:
                self.set_attr(c, "used_scene", [], "§9.6 1シーンにつき1回")
        self.ctx.narrate(GM, f"シーン「{s.name}」（{SCENE_TYPE_NAMES[s.type]}シーン）" + (f": {self.txt(s.description)}" if s.description
                                                                                  else ""), "scenario")
        self.ctx.info("scene", f"シーン「{s.name}」", scene=s.id, type=s.type)
        if not self.cfg.all_pcs_in_every_scene:
            yield from self.scene_appearance(s)
        for c in self.here_pcs():
            if "scene_hp_1" in self.drawbacks(c) and not c.incapacitated:
                n = sum(1 for d in self.drawbacks(c) if d == "scene_hp_1")
                self.lose_hp(c, n, "§9.8 scene_hp_1", s.id)
        # discovery (§7.2)
        for c in self.here_pcs():
            if c.incapacitated:
                continue
            hidden = [p for p in s.placed if p.ref not in self.t.revealed]
            if not hidden:
                break
            ch = yield from self.choose(c.id, "pc.discovery", f"「{s.name}」で発見を試みる?", "§7.2 発見",
                                        [("attempt", "発見を試みる"), ("skip", "試みない")],
                                        context={"scene": s.id}, always_ask=True)
            if ch != "attempt":
                continue
            found = [p for p in hidden if p.discovery_requirement is None
                     or self.level(c, p.discovery_requirement.ability) >= p.discovery_requirement.min_level]
            if found:
                self.set_t("revealed", [*self.t.revealed, *(p.ref for p in found)], "§7.2 発見", c.id)
                met = [p.ref for p in found if p.kind == "npc" and p.ref not in self.t.met]
                if met:
                    self.set_t("met", [*self.t.met, *met], "§7.2 発見（登場）", c.id)
                names = "、".join(self.placed_name(p.kind, p.ref) for p in found)
                self.ctx.narrate(GM, f"{c.name} の発見: {names}", "rules")
                self.introduce(met)
                self.describe([p.ref for p in found if p.kind != "npc"])
                loose = [p.ref for p in found if p.kind == "item"]
                if loose:
                    self.set_t("loose", [*self.t.loose, *loose], "§7.2 発見（アイテム）", c.id)
                    for ref in loose:
                        yield from self.offer_loose(ref, c)
                for p in found:
                    if p.kind == "npc":
                        yield from self.first_appearance(self.t.chars[p.ref])
            else:
                self.ctx.narrate(GM, f"{c.name} の発見: 何も見つからない。", "rules")
        yield from self.fire_triggers(s, "enter")

    def scene_appearance(self, s: SceneSpec) -> Gen:
        """all_pcs_in_every_scene = false (HOUSE): the GM chooses which PCs appear in the scene (at least one; default
        all). A PC who does not appear takes no part in it: no discovery, no opportunity, not a target, no sharing
        with it; it appears again in the next scene it is chosen for, and in the climax (every character appears)."""
        pcs = self.t.pcs()
        if len(pcs) <= 1:
            return  # the only PC appears
        pairs: list[tuple[str, Label]] = [(p.id, p.name) for p in pcs]
        picks = yield from self.choose_many("gm", "gm.scene_appearance", f"シーン「{s.name}」に登場する PC", "§6 scene_enter (HOUSE)",
                                            pairs, 1, len(pairs), context={"scene": s.id, "pcs": [p.id for p in pcs]})
        self.set_t("absent", [p.id for p in pcs if p.id not in picks], "§6 scene_enter (HOUSE all_pcs_in_every_scene)")
        self.ctx.narrate(GM, "登場: " + "、".join(p.name for p in pcs if p.id in picks)
                         + ("（登場しない: " + "、".join(self.who(x) for x in self.t.absent) + "）" if self.t.absent else ""),
                         "rules")

    def placed_name(self, kind: str, ref: str) -> str:
        if kind == "object":
            return f"「{self.objs[ref].name}」"
        if kind == "item":
            return f"アイテム「{self.items[ref].name}」"
        return self.who(ref)

    def offer_loose(self, ref: str, discoverer: Char) -> Gen:
        """§7.2 pc_take_loose_item: the discoverer first, then the others in seat order."""
        order = [discoverer, *(p for p in self.here_pcs() if p is not discoverer)]
        for p in order:
            if ref not in self.t.loose or p.incapacitated:
                continue
            ch = yield from self.choose(p.id, "pc.take_loose_item", f"アイテム「{self.items[ref].name}」を取る?",
                                        "§7.2 発見（アイテム）", [("take", "取る"), ("skip", "置いておく")],
                                        context={"item": ref, "discoverer": discoverer.id, "held": len(p.items),
                                                 "max": self.cfg.inventory_max}, always_ask=True)
            if ch == "take":
                yield from self.take_loose(p, ref)
                return

    def take_loose(self, p: Char, ref: str) -> Gen:
        self.set_t("loose", [x for x in self.t.loose if x != ref], "§7.2 pc_take_loose_item", p.id)
        yield from self.add_item(p, self.items[ref].name, "§7.2 pc_take_loose_item")

    def first_appearance(self, c: Char) -> Gen:
        """secret_ability_announced_at_opening (AMB-45): a holder fixes its secret's ability at first appearance."""
        if self.cfg.secret_ability_announced_at_opening and c.announced is None and self.secret_held(c):
            yield from self.announce(c)

    def announce(self, c: Char) -> Gen:
        pairs = [(a, self.aname(a)) for a in self.legal_abilities("daily")]
        a = yield from self.choose(c.id, "sf.designate_ability", "シークレットフラグメントの指定アビリティを公開する",
                                   "AMB-45 secret_ability_announced_at_opening", pairs,
                                   context={"investigator": None, "levels": {}})
        self.set_attr(c, "announced", a, "AMB-45")
        self.ctx.narrate(GM, f"{c.name} のシークレットフラグメントの指定アビリティ: {self.aname(a)}", "rules")

    # -- triggers (B.2) ----------------------------------------------------------------------------------------
    def fire_triggers(self, s: SceneSpec, on: str, obj: str | None = None, actor: Char | None = None) -> Gen:
        for k, t in enumerate(s.triggers):
            if t.on != on or (on == "after_investigate" and t.object != obj):
                continue
            key = f"{s.id}#{k}"
            if not t.repeat and key in self.t.fired:
                continue
            if not self.holds_cond(t.condition):
                continue
            if t.optional:
                ch = yield from self.choose("gm", "gm.scene_events", f"イベントを起こす? ({t.effect.what})", "§6 triggers",
                                            [("fire", "起こす"), ("skip", "起こさない")],
                                            context={"scene": s.id, "trigger": k, "effect": t.effect.what},
                                            always_ask=True)
                if ch != "fire":
                    continue
            if not t.repeat:
                self.set_t("fired", [*self.t.fired, key], "B.2 trigger", on)
            yield from self.apply_effect(t.effect, actor)

    def targets_of(self, spec: Any, actor: Char | None) -> list[Char]:
        if isinstance(spec, str):
            if spec == "all_pcs":
                return self.here_pcs()
            if spec == "investigator":
                return [actor] if actor is not None else []
            if spec == "all":
                return self.appearing()
            spec = [spec]
        return [self.t.chars[x] for x in spec if x in self.t.chars]

    def apply_effect(self, e: EffectSpec, actor: Char | None) -> Gen:
        if e.narrate is not None:
            self.ctx.narrate(GM, self.txt(e.narrate), "scenario")
        elif e.set_flag is not None:
            if e.set_flag.name not in self.t.flags:
                self.set_t("flags", [*self.t.flags, e.set_flag.name], "B.2 set_flag")
        elif e.give_fragment is not None:
            for c in self.targets_of(e.give_fragment.to, actor):
                self.acquire(c.id, e.give_fragment.id, "B.2 give_fragment", "シナリオ")
        elif e.damage is not None:
            for c in self.targets_of(e.damage.targets, actor):
                if c.incapacitated:
                    continue
                n, _ = self.roll_expr(e.damage.amount, f"{c.id} ダメージ")
                self.lose_hp(c, n, "B.2 damage", e.damage.amount)
        elif e.shock_check is not None:
            targets = yield from self.shock_targets(self.targets_of(e.shock_check.targets, actor), e.shock_check.ability)
            yield from self.shock(targets, e.shock_check.ability)

    def shock_targets(self, targets: list[Char], ability: str) -> Gen:
        """gm_shock_targets (§7.3, §8): any set of appearing characters (at least one); the scenario's targets are
        the default (HOUSE: all appearing PCs when the scenario says all_pcs). Targets cannot refuse (AMB-38).
        Returned in seat order (PCs, then NPCs and enemies in scenario order)."""
        here = self.appearing()
        if len(here) <= 1:
            return here  # nothing to decide
        default = [c.id for c in targets if c in here]
        pairs: list[tuple[str, Label]] = [(c.id, c.name + ("（シナリオの対象）" if c.id in default else "")) for c in here]
        picks = yield from self.choose_many("gm", "gm.shock_targets", f"ショック判定（{self.aname(ability)}）の対象",
                                            "§7.3 対象", pairs, 1, len(pairs),
                                            context={"ability": ability, "scenario_targets": default})
        return [c for c in here if c.id in picks]

    def shock(self, targets: list[Char], ability: str) -> Gen:
        """§7.3: each target in seat order; any failure → an abnormality; a fumble → the table too (AMB-15)."""
        self.ctx.narrate(GM, f"ショック判定（{self.aname(ability)}）: " + "、".join(c.name for c in targets), "rules")
        for c in targets:
            if c.incapacitated:
                if self.cfg.shock_on_incapacitated == "auto_fail":
                    self.gain_abnormality(c, "§7.3 ショック判定 (AMB-39 auto_fail)")
                continue
            out = yield from self.check(c, "shock", ability, rule="§7.3")
            if not out["success"]:
                self.gain_abnormality(c, "§7.3 ショック判定の失敗")
            yield from self.after_check(c, out)

    # -- scene play (cycles) -----------------------------------------------------------------------------------
    def scene_play(self, s: SceneSpec) -> Gen:
        cycles = 0
        while True:
            cycles += 1
            self.set_t("cycle", cycles, "§6 scene_play")
            all_pass = True
            for c in self.here_pcs():
                yield from self.free_window(c, "main")
                if c.incapacitated:
                    continue
                acted = yield from self.main_action(c, s)
                all_pass = all_pass and not acted
            yield from self.fire_triggers(s, "cycle_end")
            for n in self.t.others():
                if self.present(n) and not n.incapacitated:
                    yield from self.npc_investigation(n, s)
            if self.gate():
                self.session_m.fire("declare")
                ok = yield from self.climax_declaration()
                if ok:
                    return "climax"
                self.session_m.fire("resume")
            if all_pass or cycles >= self.cfg.max_cycles_per_scene or all(p.incapacitated for p in self.here_pcs()):
                if not all_pass and cycles >= self.cfg.max_cycles_per_scene:
                    self.ctx.info("scene_cap", f"語り部がシーン「{s.name}」を終える（{self.cfg.max_cycles_per_scene}"
                                  "サイクルの上限: 独自の安全上限）", scene=s.id)
                self.session_m.fire("end_scene")
                self.session_m.fire("next")
                return "end"

    def climax_declaration(self) -> Gen:
        """§6 climax_declaration: every non-incapacitated PC is asked (incapacitated PCs count as yes, HOUSE)."""
        ok = True
        for c in self.t.pcs():
            if c.incapacitated:
                continue
            ch = yield from self.choose(c.id, "pc.climax_declaration", "クライマックスフェイズに進む?", "§6 climax_declaration",
                                        [("yes", "進む"), ("pass", "まだ進まない")], always_ask=True)
            ok = ok and ch == "yes"
        if ok:
            self.ctx.narrate(GM, "全員がクライマックスを宣言した。", "rules")
        return ok

    # -- investigation (§7.1) ----------------------------------------------------------------------------------
    def inv_targets(self, c: Char, s: SceneSpec | None) -> list[tuple[str, str, int]]:
        """Legal investigation targets of ``c`` now: (id, label, the effective dice the policy reads)."""
        if self.t.scene_time is not None and self.t.scene_time <= 0:
            return []
        out: list[tuple[str, str, int]] = []
        st = self.t.scene_type
        if s is not None:
            for p in s.placed:
                if p.kind == "object" and p.ref in self.t.revealed and f"{c.id}>{p.ref}" not in self.t.attempts:
                    o = self.objs[p.ref]
                    out.append((p.ref, f"「{o.name}」（{self.aname(o.designated_ability)}）",
                                self.effective(c, o.designated_ability, st)))
        for o in self.appearing():
            if o is c or f"{c.id}>{o.id}" in self.t.attempts or o.kind == "enemy" and self.t.phase != "main":
                continue
            out.append((o.id, f"{o.name}", self.char_dice(c, o)))
        return out

    def secret_held(self, target: Char, investigator: Char | None = None) -> list[str]:
        return [f for f in self.secret_ids if self.holds(target.id, f)
                and (investigator is None or not self.holds(investigator.id, f))]

    def char_dice(self, c: Char, o: Char) -> int:
        st = self.t.scene_type
        if self.secret_held(o, c):
            if o.announced:
                return self.effective(c, o.announced, st)
            return min(self.effective_all(c, st).values())
        info = self.info.get(o.id)
        if info is not None:
            return self.effective(c, info.designated_ability, st)
        return 0

    def investigate(self, c: Char, target: str, s: SceneSpec | None) -> Gen:
        self.set_t("attempts", [*self.t.attempts, f"{c.id}>{target}"], "§7.1 1人1回 (AMB-13)", target)
        if self.t.scene_time is not None:
            self.set_t("scene_time", self.t.scene_time - 1, "Appendix A.4 scene_time")
        st = self.t.scene_type
        if target in self.objs:
            o = self.objs[target]
            self.ctx.narrate(GM, f"{c.name} が「{o.name}」を調査する。", "rules")
            out = yield from self.check(c, "investigation", o.designated_ability, rule="§7.1", target=target)
            self.mark_investigated(target, out["success"])
            if out["success"]:
                for f in o.rewards.fragments:
                    self.acquire(c.id, f, "§7.1 調査判定の成功", f"「{o.name}」の調査")
                for i in o.rewards.items:
                    yield from self.add_item(c, self.items[i].name, "§7.1 調査判定の成功（アイテム）")
                    self.describe([i])
                for e in o.on_success_extra:
                    yield from self.apply_effect(e, c)
            else:
                for e in o.on_fail:
                    yield from self.apply_effect(e, c)
            yield from self.after_check(c, out)
            if s is not None:
                yield from self.fire_triggers(s, "after_investigate", target, c)
            return
        o = self.t.chars[target]
        self.ctx.narrate(GM, f"{c.name} が {o.name} を調査する。", "rules")
        secrets = self.secret_held(o, c)
        info = self.info.get(o.id)
        if secrets:
            if o.announced:
                designated = o.announced
            else:
                levels = self.effective_all(c, st)
                pairs = [(a, f"{self.aname(a)}（{c.name} のダイス {n}）") for a, n in levels.items()]
                designated = yield from self.choose(o.id, "sf.designate_ability",
                                                    f"{c.name} があなたを調査する: 指定アビリティを選ぶ", "§7.5 シークレットフラグメント",
                                                    pairs, context={"investigator": c.id, "levels": levels})
        elif info is not None:
            designated = info.designated_ability
        else:
            self.ctx.narrate(GM, f"{o.name} からは何も得られない。", "rules")
            self.mark_investigated(target, False)
            return
        out = yield from self.check(c, "investigation", designated, rule="§7.1", target=target)
        self.mark_investigated(target, out["success"])
        if out["success"]:
            for f in secrets:
                if self.cfg.secret_reveal_public:
                    for p in self.here_pcs():
                        self.acquire(p.id, f, "§7.5 シークレットフラグメントの開示 (AMB-12 public)", f"{o.name} の調査")
                else:
                    self.acquire(c.id, f, "§7.5 シークレットフラグメントの開示 (AMB-12)", f"{o.name} の調査")
            if info is not None:
                for f in info.fragments:
                    self.acquire(c.id, f, "§7.1 調査判定の成功", f"{o.name} の調査")
        yield from self.after_check(c, out)

    def mark_investigated(self, target: str, success: bool) -> None:
        old = self.t.investigated.get(target)
        new = True if (old or success) else False
        if old != new:
            self.t.investigated[target] = new
            self.ctx.state(f"table.investigated.{target}", old, new, "§7.1")

    def npc_investigation(self, n: Char, s: SceneSpec) -> Gen:
        """gm_npc_investigation (AMB-46): an appearing NPC may investigate (default none)."""
        targets = self.inv_targets(n, s)
        if not targets:
            return
        pairs: list[tuple[str, Label]] = [("none", "調査しない")]
        pairs += [(f"investigate:{t}", f"{lab} を調査する") for t, lab, _ in targets]
        ch = yield from self.choose("gm", "gm.npc_investigation", f"{n.name} に調査させる?", "§6 scene_play (AMB-46)", pairs,
                                    context={"npc": n.id})
        if ch != "none":
            yield from self.investigate(n, ch.split(":", 1)[1], s)

    # -- main action -------------------------------------------------------------------------------------------
    def main_action(self, c: Char, s: SceneSpec) -> Gen:
        """pc_main_action: investigate / personal_scene / use_skill / pass. Returns whether it was not a pass."""
        targets = self.inv_targets(c, s)
        pairs: list[tuple[str, Label]] = [(f"investigate:{t}", f"{lab} を調査する") for t, lab, _ in targets]
        others_present = [p for p in self.appearing() if p is not c and p.kind != "enemy"]
        if c.personal_used < self.cfg.personal_scenes_per_session and others_present:
            pairs.append(("personal_scene", "パーソナルシーンを行う"))
        skill_opts = self.skill_options(c, combat=False)
        pairs += skill_opts
        pairs.append(("pass", "何もしない"))
        ch = yield from self.choose(c.id, "pc.main_action", f"{c.name} の行動", "§6 scene_play", pairs,
                                    context={"dice": {t: d for t, _, d in targets}, "order": [t for t, _, _ in targets],
                                             "personal_used": c.personal_used,
                                             "bonded_to": sorted(c.bonds), "hp": {p.id: p.hp for p in self.appearing()},
                                             "pcs": [p.id for p in self.t.pcs()]})
        if ch == "pass":
            return False
        if ch.startswith("investigate:"):
            yield from self.investigate(c, ch.split(":", 1)[1], s)
        elif ch == "personal_scene":
            self.session_m.fire("personal")
            yield from self.personal_scene(c, s)
            self.session_m.fire("back")
        else:
            yield from self.use_skills(c, [ch], combat=False)
        return True

    # -- personal scene (§7.4) ---------------------------------------------------------------------------------
    def personal_scene(self, owner: Char, s: SceneSpec) -> Gen:
        self.set_attr(owner, "personal_used", owner.personal_used + 1, "§7.4 パーソナルシーン")
        outer = self.t.scene_type
        mode = self.cfg.personal_scene_type
        if mode == "owner_choice":
            other = "nondaily" if outer == "daily" else "daily"
            st = yield from self.choose(owner.id, "ps.scene_type", "パーソナルシーンのシーンタイプ", "§7.4 (AMB-11 owner_choice)",
                                        [(outer, f"{SCENE_TYPE_NAMES[outer]}（このシーンと同じ）"),
                                         (other, SCENE_TYPE_NAMES[other])],
                                        context={"outer": outer}, always_ask=True)
        else:
            st = outer if mode == "inherit" else mode
        self.set_t("scene_type", st, "§7.4 personal_scene_type (AMB-11)")
        self.ctx.narrate(GM, f"{owner.name} のパーソナルシーン（{SCENE_TYPE_NAMES[st]}）", "rules")
        cands = [p for p in self.appearing() if p is not owner and p.kind != "enemy"]
        pairs: list[tuple[str, Label]] = [(p.id, p.name) for p in cands]
        req = yield from self.choose_many(owner.id, "ps.appearance_request", "登場を要請する相手", "§7.4 1 登場要請", pairs,
                                          0, len(pairs), context={"bonded_to": sorted(owner.bonds),
                                                                  "pcs": [p.id for p in self.t.pcs()]})
        appeared: list[Char] = []
        for pid in req:
            p = self.t.chars[pid]
            ch = yield from self.choose(p.id, "ps.appearance_response", f"{owner.name} のパーソナルシーンに登場する?",
                                        "§7.4 1 登場要請", [("accept", "登場する"), ("refuse", "登場しない")],
                                        context={"owner": owner.id}, always_ask=True)
            if ch == "accept":
                appeared.append(p)
        if appeared:
            self.ctx.narrate(GM, "登場: " + "、".join(p.name for p in appeared), "rules")
        if appeared and not owner.incapacitated:
            pairs = [(p.id, f"{p.name} と絆判定") for p in appeared]
            pairs.append(("none", "絆判定をしない"))
            tid = yield from self.choose(owner.id, "bond.check_target", "絆判定の相手", "§7.4 2", pairs,
                                         context={"accepted": [p.id for p in appeared]})
            if tid != "none":
                yield from self.bond_check(owner, self.t.chars[tid])
        # §7.4 6 (HOUSE): the owner may investigate characters appearing in the personal scene
        while not owner.incapacitated:
            opts: list[tuple[str, str]] = [(p.id, p.name) for p in appeared if f"{owner.id}>{p.id}" not in self.t.attempts
                    and (self.t.scene_time is None or self.t.scene_time > 0)]
            pairs = [("done", "パーソナルシーンを終える")]
            pairs += [(f"investigate:{i}", f"{n} を調査する") for i, n in opts]
            ch = yield from self.choose(owner.id, "ps.personal_scene_end", "パーソナルシーンを続ける?", "§7.4 6–7", pairs)
            if ch == "done":
                break
            yield from self.investigate(owner, ch.split(":", 1)[1], None)
        self.set_t("scene_type", outer, "§7.4 7 control returns to the scene")

    def bond_check(self, owner: Char, target: Char) -> Gen:
        st = self.t.scene_type
        levels = self.effective_all(owner, st)
        pairs = [(a, f"{self.aname(a)}（{owner.name} のダイス {n}）") for a, n in levels.items()]
        a = yield from self.choose(target.id, "bond.check_designate_ability", f"{owner.name} の絆判定: 指定アビリティを選ぶ",
                                   "§7.4 3 (相手が指定)", pairs,
                                   context={"owner": owner.id, "levels": levels, "hostile": target.hostile})
        out = yield from self.check(owner, "bond", a, rule="§7.4", target=target.id)
        if out["success"]:
            yield from self.gain_bond(owner, target, "§7.4 5 絆判定の成功")
            yield from self.gain_bond(target, owner, "§7.4 5 絆判定の成功")
        yield from self.after_check(owner, out)

    # -- free actions (§6, §7.5, §7.6, §7.8, §7.9.4) ----------------------------------------------------------
    def free_options(self, c: Char, window: str) -> list[tuple[str, Label]]:
        pairs: list[tuple[str, Label]] = []
        if c.withdrawn:
            return pairs
        if c.incapacitated:
            if self.bp_legal(c, "bp_revive"):
                pairs.append(("bp:bp_revive", "絆の力①: 行動不能から復帰する（HP1）"))
            return pairs
        here = [p for p in self.appearing() if p is not c]
        # labels are made when someone reads them (a scripted seat reads the ids; the climax offers 100+ options)
        fname = self.fname
        iname = self.iname
        holders = self.t.holders
        receivers = [p for p in here if not p.withdrawn]
        pc_receivers = {p.id for p in receivers if p.is_pc}
        shares = self._share_pairs
        for fid in self.held(c.id):
            if fid in c.secrets:  # the original holder reveals its secret by coming out (§7.5)
                continue
            have = holders.get(fid, ())
            lacking = [p for p in receivers if p.id not in have]
            if not lacking:
                continue
            # a fragment's share options are the same (id, label maker) pairs all session: made once, on first offer
            # (a label reads the names when it is made; the climax offers dozens of shares at every window)
            made = shares.get(fid)
            if made is None:
                made = shares[fid] = {"pcs": (f"share:{fid}:pcs", partial(_share_all_label, fname, fid))}
            if pc_receivers and not pc_receivers.issubset(have):  # a PC here lacks it
                pairs.append(made["pcs"])
            for p in lacking:
                pair = made.get(p.id)
                if pair is None:
                    pair = made[p.id] = (f"share:{fid}:{p.id}", partial(_share_label, fname, fid, p))
                pairs.append(pair)
        for fid in self.secret_ids:
            if self.holds(c.id, fid) and not self.frag[fid].no_come_out and fid in c.secrets:
                if any(not self.holds(p.id, fid) for p in here):
                    pairs.append((f"come_out:{fid}", partial(_come_out_label, fname, fid)))
        items = c.items
        room = self.cfg.inventory_max
        anytime = self.cfg.memorialize_timing == "anytime"
        takers = [p for p in here if not p.incapacitated and not p.withdrawn]
        for i in range(len(items)):
            for p in takers:
                if len(p.items) < room:
                    pairs.append((f"give:{i}:{p.id}", partial(_give_label, iname, items, i, p)))
            pairs.append((f"discard:{i}", partial(_discard_label, iname, items, i)))
            if anytime:
                pairs.append((f"memorialize:{i}", partial(_memorialize_label, iname, items, i)))
        for ref in dict.fromkeys(self.t.loose):
            pairs.append((f"take:{ref}", partial(_take_label, self.items, ref)))
        if self.bp_legal(c, "bp_cleanse"):
            pairs.append(("bp:bp_cleanse", "絆の力③: 最も高いレベルの異常性を取り除く"))
        if self.dart_options(c, window):
            pairs.append(("dart", "ダートを使う"))
        return pairs

    def bp_legal(self, c: Char, power: str) -> bool:
        if self.cfg.bond_power_climax_only and self.t.phase != "climax":
            return False
        if power in c.bp_used or len(c.bp_used) >= len(c.bonds):
            return False
        if power == "bp_revive":
            return c.incapacitated and not c.withdrawn
        if power == "bp_cleanse":
            return bool(c.abnormalities) and not c.incapacitated
        return not c.incapacitated and not c.withdrawn  # bp_double

    def dart_options(self, c: Char, window: str) -> list[tuple[str, Label]]:
        return []  # the climax (combat.py) offers darts

    def free_window(self, c: Char, window: str) -> Gen:
        """Free actions of ``c`` (pc_free_action) until it chooses none (at most MAX_FREE_ACTIONS, HOUSE)."""
        self.window = window
        for _ in range(MAX_FREE_ACTIONS):
            pairs = self.free_options(c, window)
            if not pairs:
                return
            pairs = [("none", "何もしない"), *pairs]
            ch = yield from self.choose(c.id, "pc.free_action", f"{c.name} のフリーアクション", "§6 / §7.9.4 フリーアクション",
                                        pairs, context=self.free_context(c, window))
            if ch == "none":
                return
            yield from self.do_free(c, ch)

    def free_context(self, c: Char, window: str) -> Mapping[str, Any]:
        """A free-action window's context, each key built when someone reads it (a scripted seat reads two or three;
        ``free_keys``)."""
        # the window is a plain value (readable after the answer too); its key stays first, where the table puts it
        return LazyContext(self.free_keys(c, window), {"window": window}, (self, c, window))

    def free_keys(self, c: Char, window: str) -> Mapping[str, Callable[..., Any]]:
        """The keys of ``free_context`` after ``window``: key → function of (game, character, window)."""
        return FREE_KEYS

    def do_free(self, c: Char, ch: str) -> Gen:
        parts = ch.split(":")
        if parts[0] == "share":
            fid = parts[1]
            if parts[2] == "pcs":
                to = [p for p in self.here_pcs() if p is not c and not self.holds(p.id, fid)]
            else:
                to = [self.t.chars[parts[2]]]
            self.ctx.narrate(GM, f"{c.name} がフラグメントを共有した: " + "、".join(p.name for p in to), "rules")
            for p in to:
                self.acquire(p.id, fid, "§7.5 共有", f"{c.name} からの共有")
        elif parts[0] == "come_out":
            fid = parts[1]
            cands = [p for p in self.appearing() if p is not c and not self.holds(p.id, fid)]
            pairs: list[tuple[str, Label]] = [(p.id, p.name) for p in cands]
            to = yield from self.choose_many(c.id, "sf.come_out", "カミングアウトする相手", "§7.5 カミングアウト", pairs,
                                             1, len(pairs), context={"fragment": fid,
                                                                     "pcs": [p.id for p in self.t.pcs()]})
            self.ctx.narrate(GM, f"{c.name} がシークレットフラグメントをカミングアウトした: "
                             + "、".join(self.who(x) for x in to), "rules")
            for x in to:
                self.acquire(x, fid, "§7.5 カミングアウト", f"{c.name} のカミングアウト")
        elif parts[0] == "give":
            items = list(c.items)
            name = items.pop(int(parts[1]))
            o = self.t.chars[parts[2]]
            self.set_attr(c, "items", items, "§7.6 譲渡", name)
            self.ctx.narrate(GM, f"{c.name} が「{name}」を {o.name} に渡した。", "rules")
            yield from self.add_item(o, name, "§7.6 譲渡")
        elif parts[0] == "discard":
            items = list(c.items)
            name = items.pop(int(parts[1]))
            self.set_attr(c, "items", items, "§7.6 破棄", name)
        elif parts[0] == "memorialize":
            items = list(c.items)
            name = items.pop(int(parts[1]))
            self.set_attr(c, "items", items, "§7.12 思い出化 (AMB-42 anytime)", name)
            self.set_attr(c, "memories", [*c.memories, name], "§7.12 思い出化 (AMB-42 anytime)", name)
            self.ctx.narrate(GM, f"{c.name} が「{name}」を思い出化した。", "rules")
        elif parts[0] == "take":
            yield from self.take_loose(c, parts[1])
        elif parts[0] == "skill":
            yield from self.timing_skill(c, ch)
        elif parts[0] == "bp":
            yield from self.use_bond_power(c, parts[1])
        elif parts[0] == "dart":
            pairs = self.dart_options(c, self.window)
            ch = yield from self.choose(c.id, "cb.dart_use", "使うダートと対象", "§7.9.5 ダート",
                                        [("none", "使わない"), *pairs], context=self.free_context(c, self.window))
            if ch != "none":
                _, abn, target = ch.split(":")
                yield from self.use_dart(c, abn, target)

    def use_bond_power(self, c: Char, power: str) -> Gen:
        self.set_attr(c, "bp_used", [*c.bp_used, power], "§7.8 絆の力", power)
        self.ctx.narrate(GM, f"{c.name} が絆の力{BOND_POWERS[power][0]}を使った: {BOND_POWERS[power][1]}", "rules")
        if power == "bp_revive":
            self.revive(c, 1, "§7.8 絆の力①")
        elif power == "bp_cleanse":
            self.remove_abnormality(c, "§7.8 絆の力③ (AMB-17)")
        elif power == "bp_double":
            self.set_attr(c, "double_active", True, "§7.8 絆の力②")
        return
        yield  # pragma: no cover

    # hooks filled by the combat mixin
    def skill_options(self, c: Char, combat: bool) -> list[tuple[str, Label]]:
        raise NotImplementedError

    def use_skills(self, c: Char, picks: list[str], combat: bool) -> Gen:
        raise NotImplementedError

    def use_dart(self, c: Char, abn: str, target: str) -> Gen:
        raise NotImplementedError

    def timing_skill(self, c: Char, pick: str) -> Gen:
        raise NotImplementedError

    objs: dict[str, Any]
    items: dict[str, Any]
    info: dict[str, Any]
    looks: dict[str, str]
    secret_ids: list[str]
    last_id: str


#: a free-action window's context (``free_context``), key by key, in the order it is shown
FREE_KEYS: dict[str, Callable[..., Any]] = {
    "window": lambda g, c, w: w,
    "phase": lambda g, c, w: g.t.phase,
    "pcs": lambda g, c, w: [p.id for p in g.t.pcs()],
    # (the scenario's order: secret_ids keeps it; held() would walk every fragment of the scenario)
    "secret_fragments": lambda g, c, w: [f for f in g.secret_ids if g.holds(c.id, f)],
    "cooperative": lambda g, c, w: [f for f in c.secrets if g.frag[f].cooperative],
    "abnormality_level": lambda g, c, w: c.abnormality_level,
}


# the free actions' labels, made when someone reads them (``functools.partial`` of these: cheap to make, typed)
def _share_all_label(fname: Callable[[str], str], fid: str) -> str:
    return f"フラグメント「{fname(fid)}」を持っていない PC 全員に共有する"


def _share_label(fname: Callable[[str], str], fid: str, p: Char) -> str:
    return f"フラグメント「{fname(fid)}」を {p.name} に共有する"


def _come_out_label(fname: Callable[[str], str], fid: str) -> str:
    return f"シークレットフラグメント「{fname(fid)}」をカミングアウトする"


def _give_label(iname: Callable[[list[str], int], str], items: list[str], i: int, p: Char) -> str:
    return f"{iname(items, i)}を {p.name} に渡す"


def _discard_label(iname: Callable[[list[str], int], str], items: list[str], i: int) -> str:
    return f"{iname(items, i)}を捨てる"


def _memorialize_label(iname: Callable[[list[str], int], str], items: list[str], i: int) -> str:
    return f"{iname(items, i)}を思い出化する（使えなくなり、次のセッションで再取得できる）"


def _take_label(items: Mapping[str, Any], ref: str) -> str:
    return f"アイテム「{items[ref].name}」を取る"
