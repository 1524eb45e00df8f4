"""The judge ジャッジ (rules/bloodberry.md §5.1–5.3, §7.2) with every reaction window that opens inside it.

Order (§7.2): J_ABANDON (each roller, active first) → J_PREROLL (active, then passive: useful-skill claims, dice
effects, base overrides; then third parties: 自堕落; each sublimation-effect declaration opens a 忘却 window at
once) → J_ROLL → J_REROLL (active side completes all its rerolls, then passive: 明日への願い, 気力, 妖精の呪い) →
J_MOD (active's 合い鍵, then passive's 教師) → J_EVALUATE → concede/grant → J_POST (忠告バスター after 誘惑).
Applying the outcome belongs to the caller (relation check, curse check, entry check...).
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...core.decision import Answer, Decision
from .data import ABILITY_NAMES, BASIC_SKILLS, CURSE_TYPE_NAMES, RELATION_TYPE_NAMES
from .state import Char

__all__ = ["CheckSpec", "Roller", "JudgeMixin", "PRE_ROLL_EFFECTS"]

Gen = Generator[Decision, Answer, Any]


@dataclass(slots=True)
class CheckSpec:
    kind: str  # basic | opposed
    what: str  # relation | curse | entry | generic | skill | special | gate
    label: str
    rule: str
    rel_type: str | None = None
    curse_type: str | None = None
    door: bool = False
    in_cf: bool = False


@dataclass(slots=True)
class Roller:
    char: Char
    side: str  # active | passive | basic
    bases: tuple[str, str]
    threshold: int | None = None  # basic: difficulty; relation: τ
    abandoned: bool = False
    rolled: bool = False
    pool: int = 0
    faces: list[int] = field(default_factory=list)
    ach: int = 0
    success: bool = False
    wish_used: bool = False
    rerolls: list[str] = field(default_factory=list)
    effects: list[str] = field(default_factory=list)  # sublimation effects that took effect
    cancelled: list[str] = field(default_factory=list)  # declared but cancelled by 忘却
    useful: list[str] = field(default_factory=list)
    extra_dice: int = 0
    mods: list[str] = field(default_factory=list)
    conceded: bool = False
    granted: bool = False
    rank: int = 0

    def roll(self) -> dict[str, Any]:
        """The typed dice line of this roller (``engine.core.events.CheckRoll``)."""
        result = "abandoned" if self.abandoned else "success" if self.success else "failure"
        return {"who": self.char.id, "pool": self.pool, "faces": list(self.faces), "target": self.threshold,
                "ach": self.ach, "success": self.success, "result": result}

    def summary(self) -> dict[str, Any]:
        return {
            "who": self.char.id,
            "side": self.side,
            "bases": list(self.bases),
            "pool": self.pool,
            "faces": list(self.faces),
            "ach": self.ach,
            "threshold": self.threshold,
            "abandoned": self.abandoned,
            "success": self.success,
            "rerolls": list(self.rerolls),
            "effects": list(self.effects),
            "cancelled": list(self.cancelled),
            "useful": list(self.useful),
            "mods": list(self.mods),
            "conceded": self.conceded,
            "granted": self.granted,
        }


#: §9.1 pre-roll sublimation effects: id -> (side needed, relation types, curse types)
#: side "A" = active of a relation check, "P" = passive of a relation check or the roller of a curse check, "any"
PRE_ROLL_EFFECTS: dict[str, tuple[str, tuple[str, ...], tuple[str, ...]]] = {
    "ecchi": ("P", ("seduction",), ("anxiety",)),
    "kataomoi": ("A", ("banter",), ()),
    "yasegaman": ("A", ("inquiry",), ()),
    "ijiwaru": ("P", ("banter",), ("malice",)),
    "ookami_san": ("A", ("seduction",), ()),
    "bannou": ("A", ("seduction",), ()),
    "majo": ("A", ("banter",), ()),
    "maguro": ("P", ("seduction",), ("anxiety",)),
    "yubiwa": ("any", (), ()),
}


class JudgeMixin:
    """Judge procedure; mixed into the game, which supplies ``choose``, ``present``, ``declare_effect`` etc."""

    # provided by the game
    cfg: Any
    ctx: Any
    window_id: int
    in_between: bool

    if TYPE_CHECKING:

        def choose(self, actor: str, kind: str, prompt: str, rule: str, pairs: Sequence[tuple[str, str]],
                   context: dict[str, Any] | None = None, refused: dict[str, str] | None = None,
                   always_ask: bool = False) -> Gen: ...

        def choose_many(self, actor: str, kind: str, prompt: str, rule: str, pairs: Sequence[tuple[str, str]], lo: int,
                        hi: int, context: dict[str, Any] | None = None) -> Gen: ...

        def declare_effect(self, c: Char, sid: str) -> Gen: ...

        def present_pcs(self) -> list[Char]: ...

        def set_willpower(self, c: Char, new: int, rule: str) -> None: ...

        def can_spend(self, c: Char, ab: str, n: int) -> bool: ...

        def spend(self, c: Char, ab: str, n: int, rule: str) -> None: ...

    # -- eligibility -------------------------------------------------------------------------------------------
    def _pre_effects_for(self, r: Roller, spec: CheckSpec) -> list[str]:
        c = r.char
        if not c.is_pc:
            return []
        out = []
        for sid, (side, rtypes, ctypes) in PRE_ROLL_EFFECTS.items():
            if not c.effect_ready(sid):
                continue
            if side == "any":
                ok = True
            elif spec.what == "relation":
                ok = (side == "A" and r.side == "active" and spec.rel_type in rtypes) or (
                    side == "P" and r.side == "passive" and spec.rel_type in rtypes
                )
            elif spec.what == "curse":
                ok = side == "P" and spec.curse_type in ctypes
            else:
                ok = False
            if ok:
                out.append(sid)
        return out

    def _useful_candidates(self, r: Roller) -> list[str]:
        c = r.char
        if not c.is_pc:
            return []
        if self.in_between and self.cfg.useful_bonus_window == "scene_only":
            return []
        w = self.window_id
        return [s.id for s in c.skills if s.sublimated and s.useful_window != w]

    def _pool(self, r: Roller, spec: CheckSpec) -> int:
        """§5.2: computed once, after every pre-roll declaration; NPCs and curses have no basic skills (G4)."""
        c = r.char
        b1, b2 = r.bases
        n = c.value(b1) + c.value(b2)
        if c.is_pc:
            if spec.what == "relation":
                n += sum(1 for s in c.skills if not s.sublimated and BASIC_SKILLS[s.id].affirm == spec.rel_type)
            elif spec.what == "curse":
                n -= sum(1 for s in c.skills if not s.sublimated and BASIC_SKILLS[s.id].weakness == spec.curse_type)
            n += len(r.useful)
        n += r.extra_dice
        return max(0, n)

    # -- the procedure -----------------------------------------------------------------------------------------
    def judge(self, spec: CheckSpec, rollers: list[Roller]) -> Gen:
        """Run a judge to evaluation (and post effects). Returns the rollers with results filled."""
        ctx = self.ctx
        # [1] abandon — active first (§5.3 step 1)
        for r in rollers:
            if r.char.kind == "place":
                continue  # a place rolls (A31) but decides nothing
            opts = [("roll", "振る"), ("abandon", "放棄する（自動失敗）")]
            choice = yield from self.choose(
                r.char.id, "j.abandon", f"{spec.label}: 判定ダイスを振るか、放棄するか?", "§5.3 step 1", opts,
                context={"check": spec.what, "bases": list(r.bases), "threshold": r.threshold, "side": r.side},
            )
            r.abandoned = choice == "abandon"
        live = [r for r in rollers if not r.abandoned]
        # [2] pre-roll declarations: active side first, then passive (§5.2 order)
        for r in sorted(live, key=lambda x: 0 if x.side in ("active", "basic") else 1):
            yield from self._claim_useful(r, spec)
            yield from self._pre_effects(r, spec, rollers)
        # third parties: 自堕落 (+2D to one roller other than self)
        for helper in self.present_pcs():
            if not helper.effect_ready("jidaraku"):
                continue
            targets = [r for r in live if r.char.id != helper.id]
            if not targets:
                continue
            opts = [("none", "使わない")] + [(f"jidaraku:{r.char.id}", f"自堕落: {r.char.name} に +2D") for r in targets]
            ch = yield from self.choose(helper.id, "j.pre_effects", f"{spec.label}: 判定者に自堕落を使う?", "§9.1 自堕落", opts,
                                        context={"check": spec.what, "third_party": True,
                                                 "rollers": [{"id": r.char.id, "side": r.side, "threshold": r.threshold} for r in targets]})
            if ch != "none":
                tid = ch.split(":", 1)[1]
                ok = yield from self.declare_effect(helper, "jidaraku")
                if ok:
                    for r in live:
                        if r.char.id == tid:
                            r.extra_dice += 2
                            r.effects.append(f"jidaraku<{helper.id}")
        # pool computed once, after every declaration (§5.2)
        for r in live:
            r.pool = self._pool(r, spec)
        # opponents all abandoned: a roller without an absolute threshold succeeds without rolling (A6)
        opposed = spec.kind == "opposed"
        for r in live:
            others = [o for o in rollers if o is not r and o.side != r.side]
            unopposed = opposed and others and all(o.abandoned for o in others)
            if unopposed and spec.what != "relation" and self.cfg.abandon_unopposed_auto_success:
                r.rolled = False
                continue
            # [2] roll
            r.faces = self.ctx.dice.pool(r.pool, f"{spec.what}:{r.char.id}")
            r.ach = sum(1 for f in r.faces if f >= 5)
            r.rolled = True
        # [3] rerolls: active side completes all its rerolls, then the passive side
        for r in sorted(live, key=lambda x: 0 if x.side in ("active", "basic") else 1):
            if r.rolled:
                yield from self._rerolls(r, spec, rollers)
        # [3] achievement modifiers: active's first (合い鍵), then passive's (教師)
        for r in live:
            if r.side in ("active", "basic") and r.rolled:
                yield from self._active_mods(r, spec)
        for r in live:
            if r.side == "passive" and spec.what == "relation" and r.char.effect_ready("kyoshi"):
                act = next((a for a in rollers if a.side == "active"), None)
                if act is None:
                    continue
                opts = [("none", "使わない"), ("kyoshi", "教師: 能動側の達成値 −1")]
                ch = yield from self.choose(r.char.id, "j.post_mods", f"{spec.label}: use 教師?", "§9.1 教師", opts,
                                            context={"my_ach": r.ach, "active_ach": act.ach, "threshold": r.threshold,
                                                     "active_abandoned": act.abandoned})
                if ch == "kyoshi":
                    ok = yield from self.declare_effect(r.char, "kyoshi")
                    if ok:
                        act.ach = max(0, act.ach - 1)
                        act.mods.append("kyoshi-1")
        # [4] evaluate
        self._evaluate(spec, rollers)
        # concession and grant (§5.3.2)
        yield from self._concede_grant(spec, rollers)
        if ctx.recording:
            ctx.check(spec.what, spec.rule, {"label": spec.label, "kind": spec.kind, "rel_type": spec.rel_type,
                                              "curse_type": spec.curse_type, "rollers": [r.summary() for r in rollers]},
                      label=spec.label, rolls=[r.roll() for r in rollers])
        else:
            ctx.check(spec.what, spec.rule, {})  # the id counts all the same
        return rollers

    def _claim_useful(self, r: Roller, spec: CheckSpec) -> Gen:
        cands = self._useful_candidates(r)
        if not cands:
            return
        opts = [(sid, f"{BASIC_SKILLS[sid].name}: {BASIC_SKILLS[sid].description}") for sid in cands]
        claimed = yield from self.choose_many(
            r.char.id, "j.claim_useful", f"{spec.label}: この判定に役立つ昇華済みの基本特技を申告する?（1つにつき +1D、GMが承認）",
            "§5.6", opts, 0, len(opts),
            context={"check": spec.what, "rel_type": spec.rel_type, "curse_type": spec.curse_type,
                     "affirm": {sid: BASIC_SKILLS[sid].affirm for sid in cands}},
        )
        if not claimed:
            return
        gopts = [(sid, f"{r.char.name}: {BASIC_SKILLS[sid].name}") for sid in claimed]
        approved = yield from self.choose_many(
            "gm", "gm.approve_useful", f"{spec.label}: {r.char.name} が申告した特技のうち、この判定に役立つものは?", "§5.6",
            gopts, 0, len(gopts),
            context={"roller": r.char.id, "check": spec.what, "rel_type": spec.rel_type, "curse_type": spec.curse_type,
                     "affirm": {sid: BASIC_SKILLS[sid].affirm for sid in claimed}},
        )
        w = self.window_id
        for sid in approved:
            sk = r.char.skill(sid)
            assert sk is not None
            sk.useful_window = w
            r.useful.append(sid)

    def _pre_effects(self, r: Roller, spec: CheckSpec, rollers: list[Roller]) -> Gen:
        while True:
            avail = self._pre_effects_for(r, spec)
            if not avail:
                return
            opts = [("none", "使わない")] + [(sid, f"{BASIC_SKILLS[sid].name}: {BASIC_SKILLS[sid].effect_text}") for sid in avail]
            ch = yield from self.choose(
                r.char.id, "j.pre_effects", f"{spec.label}: 振る前に昇華の効果を使う?", "§9.1", opts,
                context={"check": spec.what, "side": r.side, "rel_type": spec.rel_type, "curse_type": spec.curse_type,
                         "pool_estimate": self._pool(r, spec), "threshold": r.threshold, "in_cf": spec.in_cf},
            )
            if ch == "none":
                return
            ok = yield from self.declare_effect(r.char, ch)
            if not ok:
                r.cancelled.append(ch)
                continue
            r.effects.append(ch)
            c = r.char
            if ch == "ecchi":
                r.extra_dice += c.value("passion")
            elif ch == "kataomoi":
                r.extra_dice += c.value("maturity")
            elif ch == "yasegaman":
                r.extra_dice += c.value("passion")
            elif ch == "ijiwaru":
                r.extra_dice += c.value("grace")
            elif ch == "ookami_san":
                r.extra_dice += c.value("maturity")  # A45 ookami_majo_target = self
            elif ch == "majo":
                r.extra_dice += c.willpower
            elif ch == "yubiwa":
                r.extra_dice += 2
            elif ch == "maguro":
                r.bases = ("passion", "maturity")
            elif ch == "bannou":
                for p in rollers:
                    if p.side == "passive":
                        p.bases = ("passion", "passion")  # curse: [疑問][疑問] through Char.value
            else:  # pragma: no cover - the table above is exhaustive
                raise AssertionError(ch)

    def _rerolls(self, r: Roller, spec: CheckSpec, rollers: list[Roller]) -> Gen:
        c = r.char
        while True:
            opts = [("stop", "このまま（結果を受け入れる）")]
            if c.has_class_skill("wish_for_tomorrow") and not r.wish_used and r.bases == ("passion", "passion") and c.in_play:
                opts.append(("wish", "明日への願い: 無料で振り直す（判定ごとに1回）"))
            if c.willpower >= 1:
                opts.append(("willpower", f"気力 1 で振り直す (気力 {c.willpower})"))
            if len(opts) > 1:
                ch = yield from self.choose(
                    c.id, "j.reroll", f"{spec.label}: {r.faces} → 達成値 {r.ach}。振り直す?", "§5.3 step 3", opts,
                    context={"ach": r.ach, "threshold": r.threshold, "pool": r.pool, "check": spec.what,
                             "curse_type": spec.curse_type, "side": r.side, "willpower": c.willpower,
                             "loss_would_drop": self._loss_would_drop(r, spec),
                             "opponent_ach": max((o.ach for o in rollers if o.side != r.side and o.rolled), default=None)},
                )
            else:
                ch = "stop"
            if ch == "stop":
                helped = yield from self._fairy_offers(r, spec)
                if not helped:
                    return
                continue
            if ch == "wish":
                r.wish_used = True
            else:
                self.set_willpower(c, c.willpower - 1, "§4.3 気力 reroll")
            self._reroll(r, ch)

    def _reroll(self, r: Roller, source: str) -> None:
        r.faces = self.ctx.dice.pool(r.pool, f"reroll:{source}:{r.char.id}")
        r.ach = sum(1 for f in r.faces if f >= 5)
        r.rerolls.append(source)

    def _fairy_offers(self, r: Roller, spec: CheckSpec) -> Gen:
        """妖精の呪い (§9.3, A22): after a roll, a fairy offers; the consenting target pays 1 ability (a self-spend,
        never below 1) and a check is rerolled: the target's (fairy_curse_reroll_owner = target) or, with
        ``user``, the fairy's own check, paid for by a consenting other character."""
        if r.char.is_curse or r.char.kind == "place":
            return False
        if self.cfg.fairy_curse_reroll_owner == "target":
            fairies = [f for f in self.present_pcs() if f.id != r.char.id and f.has_class_skill("fairy_curse")]
            pairs_for = [(f, r.char) for f in fairies]
        else:
            if not (r.char.is_pc and r.char.has_class_skill("fairy_curse")):
                return False
            payers = [p for p in self.present_pcs() if p.id != r.char.id]
            pairs_for = [(r.char, p) for p in payers]
        for fairy, payer in pairs_for:
            if fairy.status not in ("active", "dead"):  # a dead character may still use skills (A21)
                continue
            payable = [a for a in ("passion", "grace", "maturity") if self.can_spend(payer, a, 1)]
            if not payable:
                continue
            ch = yield from self.choose(
                fairy.id, "j.fairy_offer", f"{spec.label}: 妖精の呪い ({payer.name} が代償を払い {r.char.name} が振り直す; 達成値 {r.ach})?",
                "§9.3 妖精の呪い, A22", [("pass", "見送る"), ("offer", f"{payer.name} に妖精の呪いを使う")],
                context={"target": payer.id, "roller": r.char.id, "ach": r.ach, "threshold": r.threshold, "check": spec.what,
                         "target_is_curse_check": spec.what == "curse", "owner_mode": self.cfg.fairy_curse_reroll_owner},
            )
            if ch != "offer":
                continue
            opts = [("refuse", "断る")] + [(f"pay:{a}", f"受け入れて{ABILITY_NAMES[a]}を1減らす") for a in payable]
            ans = yield from self.choose(
                payer.id, "j.fairy_consent", f"{fairy.name} の妖精の呪い: 能力値1点で {r.char.name} の判定を振り直す?", "§9.3 妖精の呪い",
                opts, context={"abilities": dict(payer.ab), "ach": r.ach, "threshold": r.threshold, "roller": r.char.id},
            )
            if ans == "refuse":
                continue
            ab = ans.split(":", 1)[1]
            self.spend(payer, ab, 1, "§9.3 妖精の呪い (A22)")
            self._reroll(r, f"fairy<{fairy.id}")
            return True
        return False

    def _active_mods(self, r: Roller, spec: CheckSpec) -> Gen:
        c = r.char
        if spec.door and sorted(r.bases) == ["maturity", "passion"] and (c.has_key or c.has_class_skill("spare_key")) and c.is_pc:
            ch = yield from self.choose(
                c.id, "j.post_mods", f"{spec.label}: 合い鍵を使う?（達成値 +2）", "§9.2 合い鍵",
                [("none", "使わない"), ("spare_key", "合い鍵: 達成値 +2")], context={"ach": r.ach, "threshold": r.threshold},
            )
            if ch == "spare_key":
                r.ach += 2
                r.mods.append("spare_key+2")

    def _loss_would_drop(self, r: Roller, spec: CheckSpec) -> bool:
        if spec.what != "curse" or spec.curse_type is None:
            return False
        from .data import CURSE_ABILITY

        return r.char.ab[CURSE_ABILITY[spec.curse_type]] <= 1

    def _evaluate(self, spec: CheckSpec, rollers: list[Roller]) -> None:
        """§5.3.1."""
        if spec.kind == "basic":
            for r in rollers:
                r.success = (not r.abandoned) and (r.ach >= (r.threshold or 0))
            return
        live = [r for r in rollers if not r.abandoned]
        if not live:
            return

        def key(r: Roller) -> tuple[int, int]:
            # ties: the passive ranks above the active (§5.3.1); unrolled unopposed rollers rank first
            return (10**6 if not r.rolled else r.ach, 1 if r.side == "passive" else 0)

        best = max(key(r) for r in live)
        for r in live:
            top = key(r) == best
            r.rank = 1 if top else 2
            meets = r.threshold is None or (not r.rolled) or r.ach >= r.threshold
            if spec.what == "relation" and r.side == "passive" and not self.cfg.relation_passive_needs_threshold:
                meets = True
            r.success = top and meets

    def _concede_grant(self, spec: CheckSpec, rollers: list[Roller]) -> Gen:
        if spec.kind == "opposed" and self.cfg.judge_grant_enabled:
            tops = [r for r in rollers if r.success and r.rank == 1 and r.char.kind != "place"]
            for t in tops:
                lower = [
                    r for r in rollers
                    if r is not t and not r.success and not r.abandoned and r.side != t.side
                    and (self.cfg.grant_ignores_threshold or r.threshold is None or r.ach >= r.threshold)
                ]
                if not lower:
                    continue
                opts = [("none", "認めない")] + [(f"grant:{r.char.id}", f"{r.char.name} の成功を認める") for r in lower]
                ch = yield from self.choose(
                    t.char.id, "j.grant", f"{spec.label}: 自分より下位の判定者の成功を認める?", "§5.3.2", opts,
                    context={"check": spec.what, "my_ach": t.ach, "side": t.side,
                             "others": [{"id": r.char.id, "ach": r.ach, "side": r.side} for r in lower]},
                )
                if ch != "none":
                    gid = ch.split(":", 1)[1]
                    for r in lower:
                        if r.char.id == gid:
                            r.success = True
                            r.granted = True
        for r in rollers:
            if not r.success or r.char.kind == "place":
                continue
            ch = yield from self.choose(
                r.char.id, "j.concede", f"{spec.label}: 成功のままにするか、放棄して失敗にするか?", "§5.3.2",
                [("keep", "成功のまま"), ("concede", "放棄する（失敗にする）")],
                context={"check": spec.what, "side": r.side, "ach": r.ach,
                         "others": [{"id": o.char.id, "success": o.success, "side": o.side} for o in rollers if o is not r]},
            )
            if ch == "concede":
                r.success = False
                r.conceded = True

    # -- labels ------------------------------------------------------------------------------------------------
    @staticmethod
    def type_label(spec: CheckSpec) -> str:
        if spec.rel_type:
            return RELATION_TYPE_NAMES[spec.rel_type]
        if spec.curse_type:
            return CURSE_TYPE_NAMES[spec.curse_type]
        return ""
