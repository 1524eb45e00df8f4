"""Combat (rules/yogaribito.md §7.3–§7.7, §7.10.1, §11.6): rounds, engagements, attacks, the 痛打表, damage.

``CombatMixin.combat(spec)`` runs one combat from ``combat_start`` to ``combat_end`` on the flat flow machine
``COMBAT``. Every choice is a decision whose options are exactly the legal actions (§8 D29–D42, D47, D48, D57, D60):

    D29 cb.layout        D30 cb.delay        D31 cb.pc_order     D32 cb.gm_order     D33 cb.setup_feat
    D34 cb.minor         D35 cb.major        D36 cb.targets      D37 cb.seal_item    D38 cb.blockade_consent
    D39 cb.blockade_opponent                 D40 cb.crit_bonus   D41 cb.crit_table   D42 cb.crit_hand
    D47 cb.end           D57 cb.crit_row6    D60 cb.other_auto   (D48 is part of D34/D35: ``item:<uid>:<target>``)

The combat end condition (§11.6) is checked after every damage application and state change; when it holds the
combat ends at once (``CombatOver`` unwinds the round). Checks, costs, damage, healing, the zero trigger and bad
statuses are the primitives of ``ChecksMixin`` (checks.py).
"""

from __future__ import annotations

import functools
import math
from functools import partial
from dataclasses import dataclass, field
from typing import Any

from ...core import kept as _kept
from ...core.decision import Label, LazyContext, LazyMap, plain
from ...core.machine import FlowState, MachineSpec
from .arms import BAD_STATUSES, CRIT_TABLE, FEATS, STATUS_NAMES, FeatData, Formula, item_data
from .base import Gen
from .checks import ABILITY_JP, STAT_JP, CheckResult, ChecksMixin
from .state import HAND_SLOTS, Battlefield, Character, ItemState

__all__ = ["COMBAT", "CombatMixin", "CombatOver", "AttackSource", "SLOT_JP", "OUTCOMES"]

COMBAT = MachineSpec(
    name="combat",
    doc="§7.3 combat (a combat runs idle → combat_start → … → combat_end → idle)",
    states=("idle", "combat_start", "setup_phase", "main_phase", "cleanup", "end_phase", "combat_end"),
    initial="idle",
    transitions=(
        ("start", "idle", "combat_start"),
        ("setup", ("combat_start", "end_phase"), "setup_phase"),
        ("main", ("setup_phase", "cleanup"), "main_phase"),
        ("cleanup", "main_phase", "cleanup"),
        # not from setup_phase: a round whose order has nobody able left has already met §11.6 (no able PC)
        ("end_round", "cleanup", "end_phase"),
        ("finish", ("combat_start", "setup_phase", "main_phase", "cleanup", "end_phase"), "combat_end"),
        ("close", "combat_end", "idle"),
    ),
    # when the rules fire a conditional move (documentation for the diagrams; never evaluated)
    guards={
        ("finish", "combat_start"): "§11.6 holds at once (no able enemy or PC)",
        ("finish", "setup_phase"): "§11.6 holds after a setup feat (its cost or effect)",
        ("finish", "main_phase"): "§11.6 holds after the action (no able enemy or PC, all PCs escaped, scenario target down)",
        ("finish", "cleanup"): "§11.6 holds, or the GM ends the combat (cb.end D47)",
        ("finish", "end_phase"): "§11.6 holds, the scenario's round limit, or the round cap (HOUSE)",
        ("main", "*"): "the next combatant in the order is able and has not escaped",
        ("end_round", "*"): "no combatant left in the order",
        ("setup", "end_phase"): "§11.6 does not hold (the combat goes on)",
    },
)

#: combat outcomes (DESIGN.md)
OUTCOMES = ("pcs_win", "pcs_lose", "ended_by_gm", "escaped", "round_cap")
SLOT_JP = {"right_hand": "右手", "left_hand": "左手", "armor": "防具", "accessory": "アクセサリー"}
RANGE_JP = {"close": "至近", "ranged": "遠隔", "scene": "シーン"}


class CombatOver(Exception):
    """The combat end condition holds (§11.6, D47): unwinds the round to ``combat``."""

    def __init__(self, outcome: str, reason: str):
        super().__init__(outcome)
        self.outcome = outcome
        self.reason = reason


@dataclass(slots=True)
class AttackSource:
    """One weapon or attack feat (§7.5: one per attack). Never changed after it is made (not ``frozen``: built for
    every combatant at every state change, and a frozen dataclass is three times slower to build)."""

    id: str  # item uid | feat id | "unarmed" | natural weapon item uid
    name: str
    kind: str  # item | feat | unarmed | natural
    ability: str
    range: str  # close | ranged | scene
    target: str  # single | area | scene_all
    damage: Formula | None
    attribute: str | None
    damage_stat: str = "life"
    no_damage: bool = False
    categories: tuple[str, ...] = ()
    feat: FeatData | None = None

    def avg_damage(self) -> float:
        if self.no_damage or self.damage is None:
            return 0.0
        f = self.damage
        return f.dice * (3.5 if f.sides == 6 else 2.0) + f.plus


@dataclass
class _Combat:
    """Per-combat bookkeeping that is not table state (who fights, the spec, the outcome)."""

    enemies: list[str]
    escape_allowed: bool = False
    end_condition: dict[str, Any] | None = None
    outcome: str | None = None
    running: bool = False  # a full combat (combat()) rather than a single procedure on a prepared table
    log: list[dict[str, Any]] = field(default_factory=list)
    #: the last round in which a combatant lost 【命】 or 【魂】 to damage (D47's context: how long nobody was harmed)
    harm_round: int = 0


@dataclass
class _Hit:
    target: str
    hit: bool = False
    d_eff: int | None = None
    bonus: str | None = None  # ach | dmg
    row: int | None = None
    plus_life: int = 0  # 痛打表 "+1 (life)" results
    finished: bool = False  # row 6 took the target out (no damage phase)
    row6: str | None = None  # incapacitate | damage3_add | damage3_replace
    damage: int | None = None


class CombatMixin(ChecksMixin):
    _cb: _Combat | None = None
    _combat_flow: FlowState | None = None

    # ==========================================================================================================
    # small queries
    # ==========================================================================================================
    @property
    def bf(self) -> Battlefield:
        bf = self.t.battlefield
        if bf is None:
            raise RuntimeError("no battlefield: combat is not running")
        return bf

    def in_combat(self) -> bool:
        return self._cb is not None and self.t.battlefield is not None

    _placement: tuple[Any, ...] | None = None

    def _placed(self) -> tuple[dict[str, str], list[Character]]:
        """(character id → engagement id, the combatants in roster order) of the current battlefield. Asked a
        thousand times a session, so kept until the battlefield changes: every change of the engagements is logged
        under ``battlefield`` (``ctx.heads``) before anything reads them again; a new battlefield or roster is a new
        key as well."""
        bf = self.t.battlefield
        chars = self.t.chars
        version = self.ctx.heads.get("battlefield")  # (engagement changes are logged under "battlefield")
        hit = self._placement
        if hit is not None and hit[0] is bf and hit[1] == version and hit[2] is chars and hit[3] == len(chars):
            if _kept.CHECK:
                _kept.confirm("placement", version, (hit[4], hit[5]), self._place,
                              lambda p: (p[0], _kept.same_objects(p[1])))
            return hit[4], hit[5]
        where, fighters = self._place()
        self._placement = (bf, version, chars, len(chars), where, fighters)
        return where, fighters

    def _place(self) -> tuple[dict[str, str], list[Character]]:
        bf = self.t.battlefield
        where = {cid: eid for eid, members in bf.engagements.items() for cid in members} if bf is not None else {}
        return where, [c for cid, c in self.t.chars.items() if cid in where]

    _vmemo: tuple[Any, ...] | None = None

    def vmemo(self) -> dict[Any, Any]:
        """A scratch dict for values derived from the table (legal targets, context views), emptied at the next state
        change: every change of the table is logged through ``ctx.state``, which moves ``ctx.version``. Values kept
        here are shared by everyone who asks meanwhile, so they must not be mutated; every reuse is recomputed and
        compared in the debug mode (``engine.core.kept``)."""
        version = self.ctx.version
        m = self._vmemo
        chars = self.t.chars
        if m is None or m[0] != version or m[1] is not chars or m[2] != len(chars) or m[3] is not self.t.battlefield:
            m = self._vmemo = (version, chars, len(chars), self.t.battlefield, {})
        return m[4]

    def combatants(self) -> list[Character]:
        """Characters on the battlefield (in an engagement), roster order."""
        return list(self._placed()[1])

    @staticmethod
    def hostile(a: Character, b: Character) -> bool:
        """§7.4 "enemy": a character of the other side (PC side vs GM side)."""
        return a.side != b.side

    def engagement_of(self, c: Character) -> str | None:
        return self._placed()[0].get(c.id)

    def members(self, eid: str) -> list[Character]:
        return [self.t.chars[i] for i in self.bf.engagements.get(eid, [])]

    def enemies_in_engagement(self, c: Character, eid: str | None = None) -> list[Character]:
        """Hostile characters in ``c``'s (or ``eid``'s) engagement that are not 戦闘不能/死亡 (§7.4)."""
        eid = eid if eid is not None else self.engagement_of(c)
        if eid is None:
            return []
        return [x for x in self.members(eid) if x.id != c.id and self.hostile(c, x) and x.able]

    def who(self, c: Character) -> str:
        """A display name that is unique among the characters of the table (labels must be told apart)."""
        name, cid = c.name, c.id
        for x in self.t.chars.values():  # (a loop, not any(): labels ask this for every character they name)
            if x.name == name and x.id != cid:
                return f"{name}（{cid}）"
        return name

    def item_name(self, c: Character, it: ItemState) -> str:
        """The item's Japanese name; with several copies, the copy's number from its uid (``knife#2`` →
        「ナイフ（2つ目）」, ``knife`` → 「ナイフ（1つ目）」): labels show no code id."""
        d = item_data(it.item)
        # how many of each item c holds, kept while c is unchanged (``ctx.heads``: every change of its item list is a
        # state event under c's id; uids are unique per character): every option label names items. The item list's
        # length alone is no key: a consumable used up and an item bought leave it as long as before with other
        # counts, and a label then depended on when it was last asked (play and replay differed, fuzz case 1678)
        items = c.items
        head = self.ctx.heads.get(c.id)
        kept = self.kept("item_counts")
        hit = kept.get(c.id)
        if hit is None or hit[0] is not items or hit[1] != len(items) or hit[4] != head:
            hit = kept[c.id] = (items, len(items), *_item_counts(items), head)
        elif _kept.CHECK:
            _kept.confirm("item_counts", (c.id, head), (hit[2], hit[3]), lambda: _item_counts(items))
        others = hit[2].get(it.item, 0) - (1 if hit[3].get(it.uid) == it.item else 0)
        if others > 0:
            n = it.uid.rpartition("#")[2] if "#" in it.uid else ("1" if it.uid == it.item else "")
            return f"{d.name}（{n}つ目）" if n.isdigit() else f"{d.name}（{it.uid}）"
        return d.name

    def helpless(self, c: Character) -> bool:
        return c.has("paralysis") or c.has("fear")

    # ==========================================================================================================
    # the combat (§7.3)
    # ==========================================================================================================
    def combat(self, spec: dict) -> Gen:
        """§7.3 from combat_start to combat_end. Returns the outcome: pcs_win | pcs_lose | ended_by_gm | escaped |
        round_cap. ``spec``: enemies, layout (engagement id → ids; "pcs" = every present PC), flying,
        escape_allowed, end_condition ({"defeated": [ids]} → pcs_win, {"rounds": n} → ended_by_gm)."""
        if self._combat_flow is None:
            self._combat_flow = self.ctx.flow(COMBAT)
        fs = self._combat_flow
        fs.fire("start")
        cb = _Combat(enemies=list(spec.get("enemies") or []), escape_allowed=bool(spec.get("escape_allowed", False)),
                     end_condition=spec.get("end_condition"), running=True)
        self._cb = cb
        try:
            yield from self._combat_start(spec)
            self.check_combat_end()
            while True:
                fs.fire("setup")
                yield from self.setup_phase()
                for cid in list(self.bf.order):
                    c = self.t.chars[cid]
                    if not c.able or cid in self.bf.gone:
                        continue  # §7.3 main_phase: 戦闘不能/死亡 are skipped (no cleanup either)
                    fs.fire("main")
                    acted = yield from self.main_phase(c)
                    fs.fire("cleanup")
                    if acted:
                        yield from self.cleanup(c)
                    yield from self._gm_end_window()
                fs.fire("end_round")
                self.end_phase()
                self.check_combat_end()
                self._round_limits()
        except CombatOver as over:
            cb.outcome = over.outcome
            self.ctx.info("combat_over", f"戦闘終了: {_OUTCOME_JP[over.outcome]}（{over.reason}）",
                          outcome=over.outcome, reason=over.reason, round=self.bf.round)
        fs.fire("finish")
        outcome = cb.outcome or "ended_by_gm"
        self.combat_end()
        fs.fire("close")
        self._cb = None
        return outcome

    def _round_limits(self) -> None:
        cb = self._cb
        assert cb is not None
        cond = cb.end_condition or {}
        if cond.get("rounds") is not None and self.bf.round >= int(cond["rounds"]):
            raise CombatOver("ended_by_gm", f"シナリオの条件: {cond['rounds']}ラウンド経過")
        if self.bf.round >= self.cfg.max_combat_rounds:
            self.ctx.info("round_cap", f"{self.cfg.max_combat_rounds}ラウンドを超えたため戦闘を打ち切る（独自の安全上限）",
                          rounds=self.bf.round)
            raise CombatOver("round_cap", f"{self.cfg.max_combat_rounds}ラウンドの上限（独自の安全上限）")

    def begin_combat_context(self, spec: dict | None = None) -> None:
        """Make the table a running combat without combat_start (procedures on a prepared table): the enemies are
        the present GM-side characters unless named; the battlefield is the prepared one or the default layout."""
        spec = spec or {}
        present = [self.t.chars[i] for i in self.t.present] if self.t.present else list(self.t.chars.values())
        enemies = list(spec.get("enemies") or [c.id for c in present if not c.is_pc])
        self._cb = _Combat(enemies=enemies, escape_allowed=bool(spec.get("escape_allowed", False)),
                           end_condition=spec.get("end_condition"))
        if self.t.battlefield is None:
            self.t.battlefield = self._default_layout([c for c in present if c.is_pc and not c.dead],
                                                      [self.t.chars[e] for e in enemies])

    def _default_layout(self, pcs: list[Character], enemies: list[Character]) -> Battlefield:
        bf = Battlefield()
        if pcs:
            bf.engagements[bf.new_engagement()] = [c.id for c in pcs]
        if enemies:
            bf.engagements[bf.new_engagement()] = [c.id for c in enemies]
        return bf

    def _combat_start(self, spec: dict) -> Gen:
        """§7.3 combat_start: the battlefield (D29), flying states, psychic focus (§7.3.1), round 0."""
        pcs = [self.t.chars[i] for i in self.t.present if self.t.chars[i].is_pc and not self.t.chars[i].dead]
        enemies = [self.t.chars[e] for e in (spec.get("enemies") or []) if not self.t.chars[e].dead]
        layout = spec.get("layout")
        if layout is None and self.t.battlefield is not None and self.t.battlefield.engagements:
            bf = self.t.battlefield  # a battlefield prepared beforehand (procedures)
        elif layout is None:
            how = yield from self.choose(
                "gm", "cb.layout", "戦場の配置を決める", "§7.3 combat_start D29",
                [("split", "PCとエネミーを別々のエンゲージに配置する"), ("melee", "全員を一つのエンゲージに配置する")],
                context={"pcs": [c.id for c in pcs], "enemies": [c.id for c in enemies]})
            bf = self._default_layout(pcs, enemies) if how == "split" else Battlefield()
            if how == "melee":
                bf.engagements[bf.new_engagement()] = [c.id for c in pcs + enemies]
        else:
            bf = Battlefield()
            placed: list[str] = []
            top = 0
            for eid, ids in layout.items():
                members: list[str] = []
                for m in ids:
                    for x in ([p.id for p in pcs] if m == "pcs" else [m]):
                        if x not in self.t.chars:
                            raise ValueError(f"combat layout {eid}: unknown character {x!r}")
                        if x not in placed and not self.t.chars[x].dead:
                            members.append(x)
                            placed.append(x)
                if members:
                    bf.engagements[eid] = members
                if eid.startswith("E") and eid[1:].isdigit():
                    top = max(top, int(eid[1:]))
            bf.next_id = top + 1
            stray = [c.id for c in pcs + enemies if c.id not in placed]
            if stray:
                home = next((e for e, ids in bf.engagements.items() if any(self.t.chars[i].is_pc for i in ids)), None)
                bf.engagements.setdefault(home or bf.new_engagement(), []).extend(stray)
        bf.round = 0
        bf.order, bf.acted, bf.gone = [], [], []
        self.t.battlefield = bf
        self.ctx.state("battlefield", None, bf.snap(), "§7.3 combat_start D29", "battlefield set")
        for c in self.combatants():
            self.set_flag(c, "attacks_received_this_round", 0, "§7.3 combat_start")
            self.set_flag(c, "delaying", False, "§7.3 combat_start")
            if c.id in (spec.get("flying") or []):
                self._add_effect(c, {"id": "layout_flying", "until": "combat", "flying": True}, "§7.4 D29")
                self.set_flag(c, "flying", True, "§7.4 D29", "battlefield state")
        self.ctx.info("combat_start", "戦闘開始", engagements={k: list(v) for k, v in bf.engagements.items()})
        # §7.3.1 psychic focus: every psychic main-class combatant, mandatory 魂 check
        for c in self.combatants():
            if c.main_class == "psychic" and c.able:
                res = yield from self.run_check(c, "psychic_focus", "soul", 1, label="サイキック（精神集中）",
                                                rule="§7.3.1 AMB-22")
                self.set_flag(c, "psychic_focus", 1 if res.success else -1, "§7.3.1",
                              "成功" if res.success else "失敗")

    # ==========================================================================================================
    # setup phase (§7.3, §7.3.2, D30–D33)
    # ==========================================================================================================
    def setup_phase(self) -> Gen:
        bf = self.bf
        old = bf.round
        bf.round = old + 1
        self.ctx.state("battlefield.round", old, bf.round, "§7.3 setup_phase")
        bf.acted = []
        fighters = [c for c in self.combatants()]
        for c in fighters:
            if c.uses_round:
                self.ctx.state(f"{c.id}.uses_round", dict(c.uses_round), {}, "§7.3 new round", "round limits reset")
                c.uses_round.clear()
        # D30 delay
        for c in fighters:
            delay = False
            if c.able:
                ans = yield from self.choose(
                    self.controller(c), "cb.delay", f"{c.name}: 遅延する?（【体】{c.current.get('body', 0)} → 0 として扱う）",
                    "§7.3.2 D30", [("none", "通常の行動順"), ("delay", "遅延する（【体】0として扱う）")],
                    context=self.lazy_battle(c, body=c.current.get("body", 0)))
                delay = ans == "delay"
            self.set_flag(c, "delaying", delay, "§7.3.2 D30")
        yield from self._initiative(fighters)
        # D33 setup feats, in initiative order
        for cid in list(bf.order):
            c = self.t.chars[cid]
            if not c.able or cid in bf.gone or self.helpless(c):
                continue
            yield from self._setup_feats(c)
            self.check_combat_end()

    def _initiative(self, fighters: list[Character]) -> Gen:
        """§7.3.2: 体 descending (0 when delaying); ties: PCs first, then D31 among PCs / D32 among the GM side."""
        def key(c: Character) -> int:
            return 0 if c.delaying else c.current.get("body", 0)

        order: list[str] = []
        for k in sorted({key(c) for c in fighters}, reverse=True):
            tied = [c for c in fighters if key(c) == k]
            for side, kind, rule in (("pc", "cb.pc_order", "§7.3.2 D31"), ("gm", "cb.gm_order", "§7.3.2 D32")):
                group = [c for c in tied if (c.side == "pc") == (side == "pc")]
                able = [c for c in group if c.able]
                rest = [c for c in group if not c.able]
                while len(able) > 1:
                    actor = self.controller(able[0]) if side == "pc" else "gm"
                    pick = yield from self.choose(
                        actor, kind, f"行動順が同値（{k}）: 次に行動するのは?", rule,
                        [(c.id, self.who(c)) for c in able],
                        context={"tied": [c.id for c in able], "key": k, "placed": list(order)})
                    order.append(pick)
                    able = [c for c in able if c.id != pick]
                order += [c.id for c in able] + [c.id for c in rest]
        old = list(self.bf.order)
        self.bf.order = order
        self.ctx.state("battlefield.order", old, list(order), "§7.3.2", "initiative")
        if self.ctx.recording:
            self.ctx.info("initiative", "行動順: " + " → ".join(self.t.chars[i].name for i in order),
                          order=list(order), round=self.bf.round)
        return order

    def _setup_feats(self, c: Character) -> Gen:
        pairs: list[tuple[str, str]] = [("none", "使わない")]
        for fid in c.feats:
            f = FEATS.get(fid)
            if f is None or f.timing != "setup" or self.feat_usable(c, fid) is not None:
                continue
            if f.target == "single":
                for x in self._support_targets(c, f):
                    pairs.append((f"feat:{fid}:{x.id}", f"{f.name}（{self.who(x)}）"))
            else:
                pairs.append((f"feat:{fid}", f"{f.name}"))
        if len(pairs) == 1:
            return None
        ans = yield from self.choose(self.controller(c), "cb.setup_feat", f"{c.name}: セットアップの特技を使う?",
                                     "§7.3 setup_phase D33", pairs, context=self.lazy_battle(c))
        if ans == "none":
            return None
        parts = ans.split(":")
        yield from self._use_feat(c, parts[1], parts[2] if len(parts) > 2 else None, "§7.3 setup D33")
        return None

    # ==========================================================================================================
    # main phase (§7.3, §7.3.3, D34, D35, D60)
    # ==========================================================================================================
    def main_phase(self, c: Character) -> Gen:
        """One character's turn: D60 own_turn_start feats; 麻痺/恐怖 → the release check only; else minor (D34) then
        major (D35). Returns whether the character had its main phase (and so has a cleanup)."""
        if not c.able or c.id in self.bf.gone:
            return False
        self.bf.acted.append(c.id)
        if self.ctx.recording:
            self.ctx.info("turn", f"{c.name} の手番", who=c.id, round=self.bf.round)
        yield from self._own_turn_start(c)
        yield from self.release_window(c)  # D45: an inflicter may release its 呪詛/刻印 at its turn
        if self.helpless(c):
            which = [s for s in ("paralysis", "fear") if c.has(s)]
            pairs = [(f"release:{s}", f"{STATUS_NAMES[s]}の解除判定（{ABILITY_JP[BAD_STATUSES[s].release_ability or 'body']}）")
                     for s in which]
            ans = yield from self.choose(self.controller(c), "cb.major", f"{c.name}: メジャーアクション（解除判定のみ）",
                                         "§7.9 D35", pairs, context=self.lazy_battle(c))
            yield from self._do_action(c, ans, major=True)
            return True
        ans = yield from self._ask_action(c, major=False)
        if ans != "none":
            yield from self._do_action(c, ans, major=False)
            self.check_combat_end()
        if not c.able or self.helpless(c):
            return True
        ans = yield from self._ask_action(c, major=True)
        if ans != "pass":
            yield from self._do_action(c, ans, major=True)
            self.check_combat_end()
        return True

    def _own_turn_start(self, c: Character) -> Gen:
        """D60 own_turn_start (desperate_courage while 麻痺/恐怖)."""
        cands = []
        for fid in c.feats:
            f = FEATS.get(fid)
            if f is None or f.timing != "auto" or f.trigger != "own_turn_start":
                continue
            if f.trigger_statuses and not any(c.has(s) for s in f.trigger_statuses):
                continue
            if self.feat_usable(c, fid) is None:
                cands.append(f)
        if not cands:
            return None
        ans = yield from self.choose(
            self.controller(c), "cb.other_auto", f"{c.name}: 手番の開始にオートタイミング特技を使う?", "§11.2 D60",
            [("none", "使わない")] + [(f"feat:{f.id}", f"{f.name}: {f.effect_jp}") for f in cands],
            context=self.lazy_battle(c, trigger="own_turn_start", feats=[f.id for f in cands]))
        if ans == "none":
            return None
        f = FEATS[ans.split(":", 1)[1]]
        paid = yield from self.pay_feat_cost(c, f.id)
        if paid:
            self.ctx.info("auto_feat", f"{c.name} は {f.name} を使った", who=c.id, feat=f.id)
            for s in f.removes_statuses:
                if c.has(s):
                    self.remove_status(c, s, rule=f"§11.3 {f.id}", cause=f.name)
        return None

    def _ask_action(self, c: Character, *, major: bool) -> Gen:
        pairs, refused = self.action_options(c, major=major)
        kind, rule = ("cb.major", "§7.3.3 D35") if major else ("cb.minor", "§7.3.3 D34")
        prompt = f"{c.name}: {'メジャー' if major else 'マイナー'}アクション"
        ctx = self.lazy_battle(c, action="major" if major else "minor")
        ans = yield from self.choose(self.controller(c), kind, prompt, rule, pairs, context=ctx, refused=refused)
        return ans

    def action_options(self, c: Character, *, major: bool) -> tuple[list[tuple[str, Label]], dict[str, str]]:
        """The legal minor (D34) or major (D35) actions of ``c`` now, as (option id, label), plus refusal reasons
        for actions the rules know but forbid now. Labels that name characters or items are functions that make
        them (``Label``): asked twice a turn, and a scripted answer reads only the ids."""
        pairs: list[tuple[str, Label]] = [("pass", "何もしない")] if major else [("none", "何もしない")]
        refused: dict[str, str] = {}
        eid = self.engagement_of(c)
        if eid is None:
            return pairs, refused
        enemies_here = self.enemies_in_engagement(c)
        # movement (§7.4)
        can_move_now = not c.has("bound") and (major or not c.legs_broken)
        free_to_leave = c.flying or not enemies_here
        dests = self._destinations(c)
        if can_move_now:
            if free_to_leave:
                for dst in dests:
                    pairs.append((f"move:{dst}", partial(self._dest_label, "移動", dst)))
            else:
                for dst in dests:
                    refused[f"move:{dst}"] = "敵のいるエンゲージからは通常の移動で出られない（離脱はメジャー） (§7.4)"
            if major and not free_to_leave:
                for dst in dests:
                    pairs.append((f"withdraw:{dst}", partial(self._dest_label, "離脱", dst)))
        else:
            why = "束縛中は移動できない (§7.9)" if c.has("bound") else "足が折れている: 移動にはメジャーアクションが必要 (§7.6)"
            for dst in dests:
                refused[f"move:{dst}"] = why
                refused[f"withdraw:{dst}"] = why
        # minor-timing feats (also usable as the major action, §7.3.3)
        for fid in c.feats:
            f = FEATS.get(fid)
            if f is None or f.timing != "minor":
                continue
            why_not = self.feat_usable(c, fid)
            if why_not is not None:
                refused[f"feat:{fid}"] = why_not
                continue
            if f.move_leaves_engagement:
                if can_move_now:
                    for dst in dests:
                        pairs.append((f"feat:{fid}:{dst}",
                                      partial(self._dest_label, "移動", dst, f"{f.name}で")))
                continue
            pairs.append((f"feat:{fid}", f"{f.name}: {f.effect_jp}"))
        # weapon swap (§7.3.3, §4.3)
        pairs += self._swap_options(c)
        # consumables on oneself (HOUSE: minor), D48
        if not c.awakened:
            for it in c.items:
                d = item_data(it.item)
                if d.consumable and (it.uses_left or 0) > 0:
                    pairs.append((f"item:{it.uid}:{c.id}", partial(self._item_label, c, it, "", "を自分に使う")))
        else:
            refused.update({f"item:{it.uid}:{c.id}": "覚醒中は回復できない (§7.8)" for it in c.items
                            if item_data(it.item).consumable})
        if not major:
            return pairs, refused
        # attacks (§7.5)
        for src in self.attack_sources(c):
            if self.legal_targets(c, src):
                pairs.append((f"attack:{src.id}", f"{src.name}で攻撃"))
            else:
                refused[f"attack:{src.id}"] = f"{RANGE_JP[src.range]}の射程に攻撃できる対象がいない (§7.5)"
        # major-timing support feats (healing)
        for fid in c.feats:
            f = FEATS.get(fid)
            if f is None or f.timing != "major" or f.attack:
                continue
            why_not = self.feat_usable(c, fid)
            if why_not is not None:
                refused[f"feat:{fid}"] = why_not
                continue
            for x in self._support_targets(c, f):
                pairs.append((f"feat:{fid}:{x.id}", partial(self._who_label, x, f"{f.name}（", "）")))
        # items on another character: major, same engagement (AMB-47), not awakened
        for it in c.items:
            d = item_data(it.item)
            if not d.consumable or (it.uses_left or 0) <= 0:
                continue
            for x in self.members(eid):
                if x.id != c.id and not self.hostile(c, x) and not x.dead and not x.awakened:
                    pairs.append((f"item:{it.uid}:{x.id}",
                                  partial(self._item_on_label, c, it, x)))
        # remove one removable bad status from oneself (AMB-30)
        for s in list(c.statuses):
            if BAD_STATUSES[s].removable_by_major:
                pairs.append((f"remove:{s}", f"{STATUS_NAMES[s]}を解除する"))
        # escape (§11.6)
        cb = self._cb
        if cb is not None and cb.escape_allowed:
            if enemies_here:
                refused["escape"] = "敵のいるエンゲージからは逃走できない (§11.6)"
            elif c.has("bound"):
                refused["escape"] = "束縛中は移動できない (§7.9)"
            else:
                pairs.append(("escape", "戦場から逃走する"))
        return pairs, refused

    def _destinations(self, c: Character) -> list[str]:
        eid = self.engagement_of(c)
        out = [e for e in self.bf.engagements if e != eid]
        if self.cfg.allow_move_to_new_engagement and eid is not None and len(self.bf.engagements[eid]) > 1:
            out.append("new")
        return out

    def _dest_label(self, verb: str, d: str, before: str = "") -> str:
        if d == "new":
            return f"{before}新しいエンゲージへ{verb}"
        names = "・".join(self.who(self.t.chars[i]) for i in self.bf.engagements.get(d, []))
        return f"{before}{d}（{names}）へ{verb}"

    # option labels made when the options are read (``Label``: action options are asked twice a turn)
    def _item_label(self, c: Character, it: ItemState, before: str, after: str) -> str:
        return f"{before}{self.item_name(c, it)}{after}"

    def _who_label(self, x: Character, before: str, after: str) -> str:
        return f"{before}{self.who(x)}{after}"

    def _item_on_label(self, c: Character, it: ItemState, x: Character) -> str:
        return f"{self.item_name(c, it)}を{self.who(x)}に使う"

    def _support_targets(self, c: Character, f: FeatData) -> list[Character]:
        """Targets of a support feat (blessing, healing): allies (and oneself if allowed) in range; healing feats
        not on awakened characters (§7.8). [HOUSE] support feats are offered on one's own side only."""
        eid = self.engagement_of(c)
        out: list[Character] = []
        for x in self.combatants():
            if x.dead or self.hostile(c, x) or x.id in self.bf.gone:
                continue
            if x.id == c.id and not f.target_self_ok:
                continue
            if f.target_not_awakened and x.awakened:
                continue
            if f.heal is None and not x.able:
                continue
            if f.range == "close" and self.engagement_of(x) != eid:
                continue
            if f.range == "ranged" and self.engagement_of(x) == eid:
                continue
            out.append(x)
        return out

    # ==========================================================================================================
    # executing an action
    # ==========================================================================================================
    def _do_action(self, c: Character, ans: str, *, major: bool) -> Gen:
        head, _, rest = ans.partition(":")
        rule = "§7.3.3 D35" if major else "§7.3.3 D34"
        if head == "move":
            yield from self.move(c, rest, how="move", rule="§7.4 move")
        elif head == "withdraw":
            yield from self.move(c, rest, how="withdraw", rule="§7.4 withdraw")
        elif head == "attack":
            yield from self.attack(c, rest)
        elif head == "feat":
            fid, _, arg = rest.partition(":")
            yield from self._use_feat(c, fid, arg or None, rule)
        elif head == "swap":
            uid, _, slot = rest.partition(":")
            self.swap(c, uid, slot)
        elif head == "unequip":
            self.unequip(c, rest)
        elif head == "item":
            uid, _, tid = rest.partition(":")
            self.use_item(c, uid, self.t.chars[tid])
        elif head == "remove":
            self.remove_status(c, rest, rule="§7.3.3 AMB-30", cause="major action")
            self.ctx.info("remove_status", f"{c.name} は{STATUS_NAMES[rest]}を解除した", who=c.id, status=rest)
        elif head == "release":
            ability = BAD_STATUSES[rest].release_ability or "body"
            res = yield from self.run_check(c, "release", ability, 1, label=f"{STATUS_NAMES[rest]}の解除判定",
                                            rule="§7.9 release")
            if res.success:
                self.remove_status(c, rest, rule="§7.9 release", cause="release check")
        elif head == "escape":
            yield from self._escape(c)
        else:
            raise RuntimeError(f"unknown action {ans!r} (engine bug)")

    def _add_effect(self, c: Character, effect: dict[str, Any], rule: str) -> None:
        old = [dict(e) for e in c.effects]
        c.effects.append(dict(effect))
        self.ctx.state(f"{c.id}.effects", old, [dict(e) for e in c.effects], rule, str(effect.get("id")))

    def _drop_effects(self, c: Character, pred: Any, rule: str, cause: str) -> list[dict[str, Any]]:
        gone = [e for e in c.effects if pred(e)]
        if gone:
            old = [dict(e) for e in c.effects]
            c.effects = [e for e in c.effects if not pred(e)]
            self.ctx.state(f"{c.id}.effects", old, [dict(e) for e in c.effects], rule, cause)
            if any(e.get("flying") for e in gone) and not any(e.get("flying") for e in c.effects):
                self.set_flag(c, "flying", False, rule, cause)
            if any(e.get("id") == "ward" for e in gone) and c.blockading is not None:
                self.set_flag(c, "blockading", None, rule, cause)
        return gone

    def _use_feat(self, c: Character, fid: str, arg: str | None, rule: str) -> Gen:
        """A non-attack feat (setup / minor / major). Costs first (§5.7); the effect resolves even if the cost put
        the user out, unless ``cost_zero_action_resolves`` is false."""
        f = FEATS[fid]
        if f.move_leaves_engagement and arg is not None:
            yield from self.move(c, arg, how="gale_step", rule=f"§11.3 {fid}", feat=fid)
            return None
        target = self.t.chars[arg] if arg else c
        paid = yield from self.pay_feat_cost(c, fid)
        if not paid:
            raise RuntimeError(f"{fid}: cost not payable although offered (engine bug)")
        self.ctx.info("feat", f"{c.name} は {f.name} を使った" + (f"（{target.name}）" if target is not c else ""),
                      who=c.id, feat=fid, target=target.id)
        if self.action_cancelled(c):
            self.ctx.info("cancelled", f"{f.name} は代償で戦闘不能になったため不発 (AMB-19)", who=c.id, feat=fid)
            return None
        r = f"§11.3 {fid}"
        if f.blockade:
            eid = self.engagement_of(c)
            self._add_effect(c, {"id": fid, "until": "round", "engagement": eid}, r)
            self.set_flag(c, "blockading", eid, r, f.name)
        if f.grants_flying:
            until = "round" if f.grants_flying == "round" else "scene"
            self._add_effect(c, {"id": fid, "until": until, "flying": True}, r)
            self.set_flag(c, "flying", True, r, f.name)
        if f.id == "blessing" or (f.timing == "setup" and f.bonus_dice and f.target == "single"):
            self._add_effect(target, {"id": "blessing", "until": "round", "dice": f.bonus_dice, "by": c.id}, r)
        if f.next_attack_damage:
            self._add_effect(c, {"id": fid, "until": "turn", "damage": f.next_attack_damage}, r)
        if f.next_attack_dice is not None:
            nd = f.next_attack_dice
            self._add_effect(c, {"id": fid, "until": "turn", "dice": nd.dice, "sides": nd.sides, "plus": nd.plus,
                                 "category": f.next_attack_category}, r)
        if f.heal is not None:
            amount = self.formula(f.heal, f"{c.id} {f.name}")
            healed = self.heal(target, f.heal_stat, amount, rule=r, cause=f.name)
            self.ctx.info("heal", f"{target.name} の【命】が{healed}点回復した（{f.heal}={amount}）", who=target.id,
                          amount=amount, healed=healed, feat=fid)
        for s in f.removes_statuses:
            if target.has(s) and f.timing != "auto":
                self.remove_status(target, s, rule=r, cause=f.name)
        return None

    def use_item(self, c: Character, uid: str, target: Character) -> None:
        """A consumable (D48): self = minor, another in the same engagement = major (AMB-47); not on awakened."""
        it = c.item(uid)
        if it is None or (it.uses_left or 0) <= 0:
            raise RuntimeError(f"item {uid!r} cannot be used (engine bug)")
        d = item_data(it.item)
        old = it.uses_left
        it.uses_left = (it.uses_left or 0) - 1
        self.ctx.state(f"{c.id}.items.{uid}.uses_left", old, it.uses_left, "§11.4", "used")
        if it.uses_left <= 0:
            c.items.remove(it)
            self.ctx.state(f"{c.id}.items.{uid}", it.snap(), None, "§11.4", "consumed")
        assert d.consumable_amount is not None and d.consumable_stat is not None
        amount = self.formula(d.consumable_amount, f"{c.id} {d.name}")
        healed = self.heal(target, d.consumable_stat, amount, rule="§11.4 D48", cause=d.name)
        self.ctx.info("item", f"{c.name} は{d.name}を{target.name}に使った: +{healed}", who=c.id, target=target.id,
                      item=d.id, amount=amount, healed=healed)

    # -- weapon swap (§7.3.3, §4.3) -----------------------------------------------------------------------------
    @staticmethod
    def _slots_of(it: ItemState) -> tuple[str, ...]:
        if it.slot is None:
            return ()
        return HAND_SLOTS if item_data(it.item).slots == "two_hands" else (it.slot,)

    def _holder(self, c: Character, slot: str) -> ItemState | None:
        for it in c.items:
            if slot in self._slots_of(it):
                return it
        return None

    def _swap_options(self, c: Character) -> list[tuple[str, Label]]:
        out: list[tuple[str, Label]] = []
        for it in c.items:
            d = item_data(it.item)
            if d.slots == "none":
                continue
            if d.slots == "one_hand":
                want: list[tuple[str, tuple[str, ...]]] = [(s, (s,)) for s in HAND_SLOTS]
            elif d.slots == "two_hands":
                want = [("right_hand", HAND_SLOTS)]
            else:
                want = [(d.slots, (d.slots,))]
            for slot, needs in want:
                if it.slot == slot:
                    continue
                if all(c.slots_usable.get(s, False) for s in needs):
                    where = "両手" if len(needs) == 2 else SLOT_JP[slot]
                    out.append((f"swap:{it.uid}:{slot}",
                                partial(self._item_label, c, it, "", f"を{where}に装備する")))
        for it in c.items:
            if it.slot is not None:
                out.append((f"unequip:{it.uid}", partial(self._item_label, c, it, "", "を外す")))
        return out

    def unequip(self, c: Character, uid: str) -> None:
        it = c.item(uid)
        if it is None or it.slot is None:
            raise RuntimeError(f"unequip {uid!r}: not equipped (engine bug)")
        old = it.slot
        it.slot = None
        self.ctx.state(f"{c.id}.items.{uid}.slot", old, None, "§7.3.3 weapon swap", "unequipped")

    def swap(self, c: Character, uid: str, slot: str) -> None:
        """Put item ``uid`` into ``slot`` (two-handed items: right_hand, occupying both hands), taking off what is
        there; a slot first occupied in this scenario costs 1 【燎】 (§4.3, AMB-05)."""
        it = c.item(uid)
        if it is None:
            raise RuntimeError(f"swap: {c.id} has no item {uid!r} (engine bug)")
        d = item_data(it.item)
        needs = HAND_SLOTS if d.slots == "two_hands" else (slot,)
        if it.slot is not None:
            self.unequip(c, uid)
        for s in needs:
            other = self._holder(c, s)
            if other is not None:
                self.unequip(c, other.uid)
        it.slot = slot
        self.ctx.state(f"{c.id}.items.{uid}.slot", None, slot, "§7.3.3 weapon swap", "equipped")
        for s in needs:
            if not c.slots_used_this_scenario.get(s, False):
                c.slots_used_this_scenario[s] = True
                self.ctx.state(f"{c.id}.slots_used_this_scenario.{s}", False, True, "§4.3", "first use")
                self.set_current(c, "kagaribi", max(0, c.current.get("kagaribi", 0) - 1), "§4.3 AMB-05",
                                 f"{SLOT_JP[s]}を初めて使用")
        self.ctx.info("swap", f"{c.name} は{d.name}を装備した", who=c.id, item=uid, slot=slot,
                      kagaribi=c.current.get("kagaribi", 0))

    # ==========================================================================================================
    # movement, blockade (§7.4, D38, D39), escape (§11.6)
    # ==========================================================================================================
    def move(self, c: Character, dest: str, *, how: str, rule: str, feat: str | None = None) -> Gen:
        """Move ``c`` to engagement ``dest`` ("new" = a new one). ``how``: move | withdraw | gale_step. Blockade
        contests on leaving and on entering (flying ignores them); a lost contest spends the action. Returns
        whether ``c`` moved."""
        bf = self.bf
        src = bf.where(c.id)
        if feat is not None:
            paid = yield from self.pay_feat_cost(c, feat)
            if not paid:
                raise RuntimeError(f"{feat}: cost not payable although offered (engine bug)")
            if self.action_cancelled(c):
                return False
        verb = {"move": "移動", "withdraw": "離脱", "gale_step": "移動（《疾風》）"}[how]
        if src is not None:
            ok = yield from self._blockade(c, src, "leave", rule)
            if not ok:
                self.ctx.info("move_failed", f"{c.name} の{verb}は封鎖に阻まれた", who=c.id, src=src, dest=dest)
                return False
        if dest != "new" and dest in bf.engagements:
            ok = yield from self._blockade(c, dest, "enter", rule)
            if not ok:
                self.ctx.info("move_failed", f"{c.name} の{verb}は封鎖に阻まれた", who=c.id, src=src, dest=dest)
                return False
        target = bf.new_engagement() if dest == "new" else dest
        if dest == "new":
            bf.engagements.pop(target, None)
        old_map = {k: list(v) for k, v in bf.engagements.items()}
        bf.move(c.id, target)
        self.ctx.state("battlefield.engagements", old_map, {k: list(v) for k, v in bf.engagements.items()}, rule,
                       f"{c.id} {how}")
        if c.blockading is not None and c.blockading != target:
            self._drop_effects(c, lambda e: e.get("id") == "ward", "§11.3 ward", "left the engagement")
            self.set_flag(c, "blockading", None, "§11.3 ward", "left the engagement")
        self.ctx.info("move", f"{c.name} は{target}へ{verb}した", who=c.id, src=src, dest=target, how=how)
        return True

    def blockaders(self, eid: str, mover: Character) -> list[Character]:
        return [x for x in self.combatants() if x.blockading == eid and x.id != mover.id and x.able
                and self.engagement_of(x) == eid]

    def _blockade(self, c: Character, eid: str, way: str, rule: str) -> Gen:
        """§7.4: entering/leaving a blockaded engagement needs consent (D38) or a won 体 contest (mover active,
        blockader passive, tie → blockader); several blockaders: the blockading side picks one (D39)."""
        if c.flying:
            return True
        bl = self.blockaders(eid, c)
        if not bl:
            return True
        contest: list[Character] = []
        for b in bl:
            ans = yield from self.choose(
                self.controller(b), "cb.blockade_consent",
                f"{c.name} が封鎖された{eid}に{'入ろう' if way == 'enter' else 'から出よう'}としている: 許可する?", "§7.4 D38",
                [("consent", "許可する（対決なし）"), ("contest", "【体】で対決する")], always_ask=True,
                context=self.lazy_battle(b, **{"mover": c.id, "mover_side": c.side, "way": way,
                         "engagement": eid}))
            if ans == "contest":
                contest.append(b)
        if not contest:
            return True
        opp = contest[0]
        if len(contest) > 1:
            pick = yield from self.choose(
                self.controller(contest[0]), "cb.blockade_opponent", f"{c.name} と対決する封鎖側を選ぶ", "§7.4 D39",
                [(b.id, f"{self.who(b)}（【体】{b.current.get('body', 0)}）") for b in contest],
                context={"mover": c.id, "bodies": {b.id: b.current.get("body", 0) for b in contest}})
            opp = self.t.chars[pick]
        res = yield from self.opposed(c, "blockade_contest", "body", opp, "blockade_contest", "body",
                                      label=f"封鎖の対決（{c.name} vs {opp.name}）", rule="§7.4 blockade AMB-35")
        return res.winner == "active"

    def _escape(self, c: Character) -> Gen:
        bf = self.bf
        src = bf.where(c.id)
        if src is not None:
            ok = yield from self._blockade(c, src, "leave", "§11.6 escape")
            if not ok:
                return None
            old_map = {k: list(v) for k, v in bf.engagements.items()}
            bf.engagements[src].remove(c.id)
            if not bf.engagements[src]:
                del bf.engagements[src]
            self.ctx.state("battlefield.engagements", old_map, {k: list(v) for k, v in bf.engagements.items()},
                           "§11.6 escape", f"{c.id} escaped")
        bf.gone.append(c.id)
        self.ctx.state("battlefield.gone", bf.gone[:-1], list(bf.gone), "§11.6 escape", c.id)
        if c.blockading is not None:
            self.set_flag(c, "blockading", None, "§11.6 escape", "left the battlefield")
        self.ctx.info("escape", f"{c.name} は戦場から逃走した", who=c.id)
        self.check_combat_end()
        return None

    # ==========================================================================================================
    # attacks (§7.5, §7.6, §7.7)
    # ==========================================================================================================
    def attack_sources(self, c: Character) -> list[AttackSource]:
        """Weapons and attack feats ``c`` can use now (usable slot, not 武器封じ, feat usable incl. cost and 魔封).
        Cached until ``c`` changes (``ctx.heads``): asked for every combatant before each action."""
        cache = self.kept("attack_sources")
        # they depend on ``c`` alone (its items, slots, statuses, feats, costs and limits): kept while ``c`` is unchanged
        head = self.ctx.heads.get(c.id)
        hit = cache.get(c.id)
        if hit is not None and hit[0] is c and hit[1] == head:
            if _kept.CHECK:
                _kept.confirm("attack_sources", (c.id, head), hit[2], lambda: self._attack_sources(c))
            return list(hit[2])
        out = self._attack_sources(c)
        cache[c.id] = (c, head, out)
        return list(out)

    def _attack_sources(self, c: Character) -> list[AttackSource]:
        out: list[AttackSource] = []
        if not c.able or self.helpless(c):
            return out
        hands_ok = any(c.slots_usable.get(s, False) for s in HAND_SLOTS)
        for it in c.items:
            d = item_data(it.item)
            if not d.is_weapon or not self.usable_item(c, it):
                continue
            assert d.check is not None and d.range is not None
            out.append(AttackSource(it.uid, self.item_name(c, it), "item", d.check, d.range, d.target or "single", d.damage,
                                    d.attribute, categories=d.categories))
        for nid in self.natural_weapons(c):
            if not self._natural_usable(c, nid):
                continue
            d = item_data(nid)
            if d.only_if_unusable is not None and d.only_if_unusable in self.natural_weapons(c) \
                    and self._natural_usable(c, d.only_if_unusable):
                continue
            assert d.check is not None and d.range is not None
            out.append(AttackSource(nid, d.name, "natural", d.check, d.range, d.target or "single", d.damage,
                                    d.attribute))
        if self._has_unarmed(c) and hands_ok:
            d = item_data("unarmed")
            assert d.check is not None and d.range is not None
            out.append(AttackSource("unarmed", d.name, "unarmed", d.check, d.range, d.target or "single", d.damage,
                                    d.attribute))
        for fid in c.feats:
            f = FEATS.get(fid)
            if f is None or not f.attack or f.timing != "major" or self.feat_usable(c, fid) is not None:
                continue
            assert f.check is not None and f.range is not None
            out.append(AttackSource(fid, f.name, "feat", f.check, f.range, f.target, f.damage,
                                    f.attribute or f.check, f.damage_stat, f.no_damage, feat=f))
        return out

    @staticmethod
    def natural_weapons(c: Character) -> list[str]:
        """Natural weapons of GM-side data (§11.7 ghoul claws/bite), kept by creation.enemy_character."""
        return list(c.creation.get("natural_weapons") or [])

    def _natural_usable(self, c: Character, item_id: str) -> bool:
        """A natural weapon can be used unless it needs a hand and no hand is usable, or it is 武器封じ."""
        d = item_data(item_id)
        if d.needs_hand and not any(c.slots_usable.get(s, False) for s in HAND_SLOTS):
            return False
        return not (c.has("weapon_sealed") and c.sealed_item == item_id)

    @staticmethod
    def _has_unarmed(c: Character) -> bool:
        """素手: every PC; a GM-side character as its data says (§11.7: the ghoul fights with claws and bite)."""
        return bool(c.creation.get("unarmed", True))

    def source_of(self, c: Character, sid: str) -> AttackSource:
        for s in self.attack_sources(c):
            if s.id == sid:
                return s
        raise ValueError(f"{c.id} cannot attack with {sid!r} now")

    def legal_targets(self, c: Character, src: AttackSource) -> list[Character]:
        """§7.5 step 1: never oneself; not 戦闘不能/死亡 (allow_attack_incapacitated: 戦闘不能 allowed); range.
        (Asked for every attack of the actor by the options, the context and the attack itself: kept in ``vmemo``.)"""
        memo = self.vmemo()
        key = ("legal_targets", c.id, src.range)
        hit = memo.get(key)
        if hit is not None and hit[0] is c:
            if _kept.CHECK:
                _kept.confirm("legal_targets", key, hit[1], lambda: self._legal_targets(c, src), _kept.same_objects)
            return list(hit[1])
        out = self._legal_targets(c, src)
        memo[key] = (c, out)
        return list(out)

    def _legal_targets(self, c: Character, src: AttackSource) -> list[Character]:
        where, fighters = self._placed()
        eid = where.get(c.id)
        gone = self.bf.gone
        allow_incap = self.cfg.allow_attack_incapacitated
        rng = src.range
        out = []
        for x in fighters:
            if x.id == c.id or x.dead or x.id in gone:
                continue
            if x.incapacitated and not allow_incap:
                continue
            ex = where.get(x.id)
            if rng == "close" and ex != eid:
                continue
            if rng == "ranged" and ex == eid:
                continue
            out.append(x)
        return out

    def choose_targets(self, c: Character, src: AttackSource) -> Gen:
        """D36: single → one legal character; area → a non-empty subset of one engagement the range allows;
        scene_all → a non-empty subset of every legal character."""
        legal = self.legal_targets(c, src)
        ctx = self.lazy_battle(c, source=src.id, source_feat=src.feat.id if src.feat else None,
                               target_type=src.target, range=src.range)
        if src.target == "single":
            pick = yield from self.choose(self.controller(c), "cb.targets", f"{src.name}の対象を選ぶ", "§7.5 D36",
                                          [(x.id, self.who(x)) for x in legal], context=ctx.plus(stage="target"))
            return [self.t.chars[pick]]
        pool = legal
        if src.target == "area":
            engs: list[str] = []
            for x in legal:
                e = self.engagement_of(x)
                if e is not None and e not in engs:
                    engs.append(e)
            eid = engs[0]
            if len(engs) > 1:
                eid = yield from self.choose(
                    self.controller(c), "cb.targets", f"{src.name}（範囲）で狙うエンゲージを選ぶ", "§7.5 D36",
                    [(e, self._dest_label("", e).removesuffix("へ")) for e in engs],
                    context=ctx.plus(stage="engagement"))
            pool = [x for x in legal if self.engagement_of(x) == eid]
        if len(pool) == 1:
            return pool
        picked = yield from self.choose_many(
            self.controller(c), "cb.targets", f"{src.name}の対象を選ぶ（1人以上）", "§7.5 D36",
            [(x.id, self.who(x)) for x in pool], 1, len(pool), context=ctx.plus(stage="members"))
        return [self.t.chars[i] for i in picked]

    def attack(self, c: Character, source: str, targets: list[str] | None = None) -> Gen:
        """§7.5 attack resolution, then the damage phase (§7.7) for every target hit. Returns a summary dict."""
        src = self.source_of(c, source)
        if targets is None:
            tgts = yield from self.choose_targets(c, src)
        else:
            legal = {x.id for x in self.legal_targets(c, src)}
            bad = [t for t in targets if t not in legal]
            if bad or not targets:
                raise ValueError(f"attack by {c.id} with {source}: illegal targets {bad or targets}")
            tgts = [self.t.chars[t] for t in targets]
        out: dict[str, Any] = {"attacker": c.id, "source": src.id, "targets": [t.id for t in tgts], "hit": {},
                               "damage": {}, "rows": {}}
        if self.ctx.recording:
            self.ctx.info("attack", f"{c.name} は{src.name}で{'・'.join(t.name for t in tgts)}を攻撃する", who=c.id,
                          source=src.id, targets=[t.id for t in tgts])
        # 2. costs, then the minor-declared bonuses of this turn
        if src.feat is not None:
            paid = yield from self.pay_feat_cost(c, src.feat.id)
            if not paid:
                raise RuntimeError(f"{src.feat.id}: cost not payable although offered (engine bug)")
            if self.action_cancelled(c):
                self.ctx.info("cancelled", f"{src.name} は代償で戦闘不能になったため不発 (AMB-19)", who=c.id)
                out["cancelled"] = True
                return out
        fixed_bonus = 0
        bonus_dice: list[Formula] = []
        for e in [e for e in c.effects if e.get("until") == "turn"]:
            if e.get("damage"):
                fixed_bonus += int(e["damage"])
                self._drop_effects(c, lambda x, e=e: x is e, "§11.3", f"{e['id']} used")
            elif e.get("dice") and (e.get("category") is None or e.get("category") in src.categories):
                bonus_dice.append(Formula(int(e["dice"]), int(e.get("sides", 6)), int(e.get("plus", 0))))
                self._drop_effects(c, lambda x, e=e: x is e, "§11.3", f"{e['id']} used")
        # 3. one hit check for every target
        after_both = self.cfg.luck_window == "after_both"
        hit_ctx: dict[str, Any] = {"side": "active", "targets": [t.id for t in tgts],
                                   "attack_attribute": src.attribute, "source": src.id}
        if after_both:
            hit_ctx["defer_luck"] = True
        hit = yield from self.run_check(c, "hit", src.ability, 1, label=f"{src.name}の命中判定", rule="§7.5 hit",
                                        context=hit_ctx)
        out["hit_check"] = {"ach": hit.ach, "crit": hit.crit, "success": hit.success}
        if hit.cancelled:
            out["cancelled"] = True
            return out
        # AMB-09 after_both: every defense first, then the attacker's one window, then each defender's
        pre: dict[str, tuple[str | None, CheckResult | None]] = {}
        if after_both:
            if (yield from self._after_both_windows(c, src, tgts, hit, pre)):
                return self._attack_cancelled(c, src, out)
            out["hit_check"] = {"ach": hit.ach, "crit": hit.crit, "success": hit.success}
        results: list[_Hit] = []
        per_attack_bonus: str | None = None
        for t in tgts:
            h = _Hit(t.id)
            results.append(h)
            defended = False
            if hit.success and t.able and not (self.helpless(t) and not self.cfg.helpless_can_defend):
                defended = True
            a_eff = hit.ach
            if hit.success and t.id in pre:
                bonus, d_pre = pre[t.id]
                h.bonus = bonus if hit.crit else None  # a reroll may have taken the critical away
                if d_pre is not None:
                    h.d_eff = d_pre.eff
                else:
                    h.d_eff = 0
                    self.ctx.info("helpless", f"{t.name} は防御判定を行えない", who=t.id)
                a_eff, per_attack_bonus = yield from self._settle_hit(c, src, t, hit, h, a_eff, per_attack_bonus)
            elif hit.success:
                if hit.crit and self.cfg.attack_crit_choice_timing == "before_defense":
                    h.bonus = per_attack_bonus or (yield from self._crit_bonus(c, src, t, hit, None))
                    if self.cfg.multi_target_crit_choice == "per_attack":
                        per_attack_bonus = h.bonus
                if defended:
                    d = yield from self.run_check(
                        t, "defense", None, 1, label=f"{src.name}に対する防御判定", rule="§7.5 defense",
                        context={"side": "passive", "attacker": c.id, "attack_attribute": src.attribute,
                                 "source": src.id}, opponent=hit)
                    h.d_eff = d.eff
                    if self.action_cancelled(c):
                        return self._attack_cancelled(c, src, out)
                else:
                    h.d_eff = 0
                    self.ctx.info("helpless", f"{t.name} は防御判定を行えない", who=t.id)
                a_eff, per_attack_bonus = yield from self._settle_hit(c, src, t, hit, h, a_eff, per_attack_bonus)
            if self.ctx.recording:
                verdict = (f"達成値 {a_eff} 対 {h.d_eff} → {'命中' if h.hit else '回避'}" if hit.success
                           else "命中判定に失敗")
                self.ctx.check("attack_result", "§7.5", {"label": f"{c.name} の{src.name} → {t.name}: {verdict}",
                                                          "attacker": c.id, "target": t.id, "source": src.id,
                                                          "a_eff": a_eff if hit.success else None, "d_eff": h.d_eff,
                                                          "bonus": h.bonus, "hit": h.hit},
                               result="hit" if h.hit else "miss")
            else:
                self.ctx.check("attack_result", "§7.5", {})
            if h.hit:
                if hit.crit:
                    yield from self._crit_table(c, src, t, h)
                if not h.finished and src.feat is not None and src.feat.on_hit_status and not t.dead:
                    yield from self._on_hit_status(c, t, src.feat.on_hit_status)
            if hit.success or self.cfg.consecutive_counts_failed_attacks:
                self.set_flag(t, "attacks_received_this_round", t.attacks_received_this_round + 1, "§7.5 AMB-15")
            out["hit"][t.id] = h.hit
            if h.row is not None:
                out["rows"][t.id] = h.row
            if h.finished:
                self.check_combat_end()
        # 5. damage phase, per hit target in declared order
        shared: dict[str, int] = {}
        for h in results:
            if not h.hit:
                continue
            t = self.t.chars[h.target]
            if h.row6 == "damage3_replace":
                yield from self.damage(t, 3, "life", rule="§7.6 row 6 D57", cause="痛打表6（3点に置き換え）")
                h.damage = 3
                self._after_damage(c, src, t, 3)
            elif h.finished or src.no_damage:
                continue
            else:
                h.damage = yield from self.damage_phase(c, src, t, h, fixed_bonus, bonus_dice, shared)
            out["damage"][t.id] = h.damage
            self.check_combat_end()
        return out

    def _after_both_windows(self, c: Character, src: AttackSource, tgts: list[Character], hit: CheckResult,
                            pre: dict[str, tuple[str | None, CheckResult | None]]) -> Gen:
        """§5.5 / AMB-09 with ``luck_window = after_both`` in an attack (§7.5): the hit check is ONE check for every
        target and 【運】 is usable once per check (§5.4), so the attacker has ONE window, after every defense of the
        attack is rolled (a single target: after both rolls; an area: after all of them); then each defender, in
        declared order, against the final hit. A failed hit rolls no defense: its window is at once (as in
        ``opposed``); if 【運】 makes it succeed, the defenses are rolled and only the defenders' windows remain.
        Fills ``pre``: target id → (a ``before_defense`` critical choice, the defense check or None if helpless).
        Returns True when the attacker's own payment at a defense (an auto feat helping it) put it out with
        ``cost_zero_action_resolves = false``: the attack is cancelled (AMB-19)."""
        label = f"{src.name}の命中判定"
        if not hit.success:
            yield from self.luck_step(c, hit, label=label, side="active")
            if not hit.success:
                return False
        defenses: list[tuple[Character, CheckResult]] = []
        per_attack_bonus: str | None = None
        for t in tgts:
            bonus: str | None = None
            if hit.crit and self.cfg.attack_crit_choice_timing == "before_defense":
                bonus = per_attack_bonus or (yield from self._crit_bonus(c, src, t, hit, None))
                if self.cfg.multi_target_crit_choice == "per_attack":
                    per_attack_bonus = bonus
            d: CheckResult | None = None
            if t.able and not (self.helpless(t) and not self.cfg.helpless_can_defend):
                d = yield from self.run_check(
                    t, "defense", None, 1, label=f"{src.name}に対する防御判定", rule="§7.5 defense",
                    context={"side": "passive", "attacker": c.id, "attack_attribute": src.attribute,
                             "source": src.id, "defer_luck": True}, opponent=hit)
                defenses.append((t, d))
                if self.action_cancelled(c):
                    return True
            pre[t.id] = (bonus, d)
        yield from self.luck_step(c, hit, label=label, side="active",
                                  extra_context={"defenses": {t.id: d.eff for t, d in defenses}})
        for t, d in defenses:
            if not hit.success:  # the attacker's reroll failed: nothing is left to defend against
                break
            yield from self.luck_step(t, d, label=f"{src.name}に対する防御判定", side="passive", opponent=hit)
        return False

    def _attack_cancelled(self, c: Character, src: AttackSource, out: dict[str, Any]) -> dict[str, Any]:
        """AMB-19 with ``cost_zero_action_resolves = false``: the attacker paid a cost during its own attack (an auto
        feat at a target's defense, §11.2 before_defense_in_engagement) that put it out: nothing of the attack
        resolves after that (§7.9: no choices of a 戦闘不能/dead attacker, no damage); costs stay paid."""
        self.ctx.info("cancelled", f"{src.name} は代償で戦闘不能になったため不発 (AMB-19)", who=c.id)
        out["cancelled"] = True
        return out

    def _settle_hit(self, c: Any, src: Any, t: Any, hit: Any, h: Any, a_eff: int, per_attack_bonus: Any) -> Any:
        """After the defense (or none): the critical's bonus if not chosen yet (once per attack with
        ``multi_target_crit_choice = per_attack``), +1 achievement for the ``ach`` bonus, and the hit verdict.
        Returns the attacker's effective achievement and the per-attack bonus."""
        if hit.crit and h.bonus is None:
            h.bonus = per_attack_bonus or (yield from self._crit_bonus(c, src, t, hit, h.d_eff))
            if self.cfg.multi_target_crit_choice == "per_attack":
                per_attack_bonus = h.bonus
        if h.bonus == "ach":
            a_eff += 1
        h.hit = a_eff > h.d_eff
        return a_eff, per_attack_bonus

    def _crit_bonus(self, c: Character, src: AttackSource, t: Character, hit: CheckResult, d_eff: int | None) -> Gen:
        ans = yield from self.choose(
            self.controller(c), "cb.crit_bonus", f"命中判定が決定的成功: {t.name} に対して達成値+1か、ダメージ+1D6か",
            "§7.5 D40 AMB-11", [("ach", "達成値+1"), ("dmg", "ダメージ+1D6")], always_ask=True,
            context={"target": t.id, "hit_ach": hit.ach, "d_eff": d_eff, "no_damage": src.no_damage or
                     src.damage is None, "source": src.id})
        return ans

    def _crit_table(self, c: Character, src: AttackSource, t: Character, h: _Hit) -> Gen:
        """§7.6 痛打表: D41 (gm_decides), one die per hit target, rows 1–6."""
        mode = self.cfg.crit_table_mode
        if mode == "never":
            return None
        if mode == "gm_decides":
            ans = yield from self.choose("gm", "cb.crit_table", f"{t.name} に痛打表を振る?", "§7.6 D41 AMB-12",
                                         [("roll", "痛打表を振る"), ("skip", "振らない")], always_ask=True,
                                         context={"attacker": c.id, "target": t.id, "source": src.id})
            if ans != "roll":
                return None
        row = self.d6(f"痛打表 ({t.name})")
        h.row = row
        cr = CRIT_TABLE[row]
        self.ctx.check("crit_table", "§7.6", {"label": f"痛打表 {row}「{cr.name}」（{t.name}）", "target": t.id,
                                              "row": row, "name": cr.name}, result=cr.name)
        rule = f"§7.6 row {row}"
        if row == 1:
            h.plus_life += 1
        elif row == 2:
            hands = [s for s in HAND_SLOTS if s in t.slots_usable]
            usable = [s for s in hands if t.slots_usable[s]]
            if not usable:
                h.plus_life += 1
            else:
                held: dict[str, str | None] = {}
                for s in usable:
                    holder = self._holder(t, s)
                    held[s] = holder.item if holder is not None else None
                slot = yield from self.choose(
                    self.controller(c), "cb.crit_hand", f"痛打表2: {t.name} のどちらの手を使えなくする?", "§7.6 D42",
                    [(s, SLOT_JP[s] + _held_label(held[s])) for s in usable],
                    context={"target": t.id, "held": held, "weapons": {s: _is_weapon(held[s]) for s in usable}})
                self._disable_slot(t, slot, rule)
        elif row == 3:
            if not t.has_legs or t.legs_broken:
                h.plus_life += 1
            else:
                self.set_flag(t, "legs_broken", True, rule, cr.name)
        elif row in (4, 5):
            slot = "armor" if row == 4 else "accessory"
            if not t.slots_usable.get(slot, False):
                h.plus_life += 1
            else:
                self._disable_slot(t, slot, rule)
        else:
            choice = self.cfg.crit_row6_mode
            if choice == "gm_decides":
                choice = yield from self.choose(
                    "gm", "cb.crit_row6", f"痛打表6: {t.name} をどう処理する?", "§7.6 D57 AMB-14",
                    [("incapacitate", "即座に【命】0・戦闘不能（覚醒中なら死亡）"),
                     ("damage3_add", "通常のダメージ+【命】3点"),
                     ("damage3_replace", "【命】3点のダメージに置き換える")], always_ask=True,
                    context={"target": t.id, "awakened": t.awakened, "life": t.current.get("life", 0)})
            h.row6 = choice
            if choice == "incapacitate":
                h.finished = True
                yield from self.instant_zero(t, rule=rule, cause=cr.name)
            elif choice == "damage3_add":
                h.plus_life += 3
        return None

    def _disable_slot(self, t: Character, slot: str, rule: str) -> None:
        t.slots_usable[slot] = False
        self.ctx.state(f"{t.id}.slots_usable.{slot}", True, False, rule, f"{SLOT_JP[slot]}が使用不能")

    def _on_hit_status(self, c: Character, t: Character, status: str) -> Gen:
        item = None
        if status == "weapon_sealed":
            eq = [it for it in t.items if it.slot is not None]
            if not eq:
                return None
            uid = yield from self.choose(
                self.controller(c), "cb.seal_item", f"{t.name} のどの装備を武器封じにする?", "§7.9 D37",
                [(it.uid, self.item_name(t, it)) for it in eq],
                context={"target": t.id, "damage": {it.uid: _max_damage(it.item) for it in eq}})
            item = uid
        self.inflict(t, status, c.id, rule="§11.2 on hit", item=item)
        self.ctx.info("inflict", f"{t.name} は{STATUS_NAMES[status]}を受けた", who=t.id, status=status, by=c.id)
        return None

    def damage_phase(self, c: Character, src: AttackSource, t: Character, h: _Hit, fixed_bonus: int,
                     bonus_dice: list[Formula], shared: dict[str, int]) -> Gen:
        """§7.7.1: dice (formula, bonus dice, critical d6), modifiers, reductions, D60 after determination, apply,
        after-damage effects. Returns the damage determined."""
        name = t.name
        if "formula" in shared:
            formula_val, bonus_val = shared["formula"], shared["bonus"]
        else:
            formula_val = self.formula(src.damage, f"{src.name} ダメージ ({name})") if src.damage is not None else 0
            bonus_val = sum(self.formula(f, f"ボーナスダメージ ({name})") for f in bonus_dice)
            if not self.cfg.damage_roll_per_target:
                shared["formula"], shared["bonus"] = formula_val, bonus_val
        crit_die = self.d6(f"クリティカル+1D6 ({name})") if h.bonus == "dmg" else 0
        parts: list[tuple[str, int]] = [("formula", formula_val)]
        if bonus_val:
            parts.append(("bonus_dice", bonus_val))
        if crit_die:
            parts.append(("critical_d6", crit_die))
        if fixed_bonus:
            parts.append(("next_attack", fixed_bonus))
        if src.feat is not None and src.feat.bonus_vs_tag is not None and src.feat.bonus_vs_tag[0] in t.tags:
            parts.append((f"{src.feat.id}:{src.feat.bonus_vs_tag[0]}", src.feat.bonus_vs_tag[1]))
        separate_life = 0
        if h.plus_life:
            if src.damage_stat == "life":
                parts.append(("crit_table", h.plus_life))
            else:
                separate_life = h.plus_life
        parts += self.damage_mods(c, t, src.attribute)
        raw = sum(n for _, n in parts)
        raw = yield from self._after_determination(t, raw)
        dmg = max(0, raw)
        stat = "soul" if t.awakened else src.damage_stat
        self.ctx.check("damage", "§7.7.1", {"label": f"{src.name}のダメージ → {t.name}: {dmg}点（{STAT_JP[stat]}）",
                                             "attacker": c.id, "target": t.id, "source": src.id,
                                             "parts": [[k, v] for k, v in parts], "raw": raw, "damage": dmg,
                                             "stat": stat}, result=str(dmg))
        yield from self.damage(t, dmg, stat, rule="§7.7.1", cause=f"{src.name} ({c.name})")
        if separate_life:
            yield from self.damage(t, separate_life, "life", rule="§7.6 AMB-13", cause="痛打表 +1")
        self._after_damage(c, src, t, dmg)
        return dmg

    def _after_determination(self, t: Character, raw: int) -> Gen:
        """D60 after_damage_to_self_determined (guardian_spirit): −n to the determined damage."""
        if raw <= 0 or not t.able:
            return raw
        cands = []
        for fid in t.feats:
            f = FEATS.get(fid)
            if f is None or f.timing != "auto" or f.trigger != "after_damage_to_self_determined":
                continue
            if self.feat_usable(t, fid) is None:
                cands.append(f)
        if not cands:
            return raw
        ans = yield from self.choose(
            self.controller(t), "cb.other_auto", f"{t.name}: {raw}点のダメージ。オートタイミング特技で軽減する?",
            "§7.7.1 §11.2 D60", [("none", "使わない")] + [(f"feat:{f.id}", f"{f.name}: {f.effect_jp}") for f in cands],
            context=self.lazy_battle(t, **{"trigger": "after_damage_to_self_determined", "damage": raw,
                     "feats": [f.id for f in cands]}))
        if ans == "none":
            return raw
        f = FEATS[ans.split(":", 1)[1]]
        paid = yield from self.pay_feat_cost(t, f.id)
        if not paid:
            return raw
        self.ctx.info("auto_feat", f"{t.name} は {f.name} を使った（ダメージ−{f.damage_reduction_auto}）", who=t.id,
                      feat=f.id)
        return raw - f.damage_reduction_auto

    def _after_damage(self, c: Character, src: AttackSource, t: Character, dealt: int) -> None:
        """After-damage effects: 《吸血》 heals ceil(damage dealt / 2) (cap base; nothing while awakened)."""
        if src.feat is not None and src.feat.drain and dealt > 0 and not c.dead:
            amount = math.ceil(dealt / 2)
            healed = self.heal(c, "life", amount, rule=f"§11.3 {src.feat.id}", cause=src.feat.name)
            self.ctx.info("drain", f"{c.name} は【命】を{healed}点回復した", who=c.id, amount=amount, healed=healed)

    # ==========================================================================================================
    # cleanup, end phase, combat end (§7.3, §7.10.1, §11.6, D47)
    # ==========================================================================================================
    def cleanup(self, c: Character) -> Gen:
        """The actor's cleanup process: 毒 (1 life) then 呪詛 (1 soul); "until end of turn" effects end."""
        if c.able and c.has("poison"):
            yield from self.damage(c, 1, "soul" if c.awakened else "life", rule="§7.9 poison", cause="毒")
            self.check_combat_end()
        if c.able and c.has("curse"):
            yield from self.damage(c, 1, "soul", rule="§7.9 curse", cause="呪詛")
            self.check_combat_end()
        self._drop_effects(c, lambda e: e.get("until") == "turn", "§7.3 cleanup", "end of turn")
        return None

    def _gm_end_window(self) -> Gen:
        """D47: after each turn the GM may end the combat (scenario reason)."""
        pairs = [("none", "続ける"), ("end", "戦闘を終了する（シナリオ上の理由）")]
        fs = getattr(self, "_combat_flow", None)
        if fs is not None:  # the combat machine decides whether the combat can end here (from a turn's cleanup)
            pairs = fs.offer(pairs, {"end": "finish"})
        cb = self._cb
        # completed rounds since the last damage: a fight in which nobody can harm anybody is the GM's to end
        quiet = 0 if cb is None else max(0, self.bf.round - 1 - cb.harm_round)
        ans = yield from self.choose("gm", "cb.end", "戦闘を続ける?", "§11.6 D47", pairs,
                                     always_ask=True, context=self.lazy_battle(None, rounds_without_damage=quiet))
        if ans == "end":
            raise CombatOver("ended_by_gm", "GMの判断 (D47)")
        return None

    def end_phase(self) -> None:
        """§7.3 end_phase: attacks received reset; "until end of round" effects end (ward, mist_form, blessing)."""
        for c in self.combatants():
            if c.attacks_received_this_round:
                self.set_flag(c, "attacks_received_this_round", 0, "§7.3 end_phase")
            self._drop_effects(c, lambda e: e.get("until") == "round", "§7.3 end_phase", "end of round")
        self.ctx.info("end_phase", f"ラウンド{self.bf.round}終了", round=self.bf.round)

    def combat_end(self) -> None:
        """§7.10.1: 戦闘不能 wake (0 → 1), 痛打表 effects end, bad statuses / flying / blockade / psychic focus end,
        attacks received reset; awakening continues until the scene ends."""
        rule = "§7.10.1"
        for c in self.combatants() + [self.t.chars[i] for i in (self.bf.gone if self.t.battlefield else [])]:
            if c.incapacitated and not c.dead:
                for s in ("life", "soul"):
                    if c.current.get(s, 0) == 0:
                        self.set_current(c, s, 1, rule, "combat end")
                self.set_flag(c, "incapacitated", False, rule, "combat end")
            for s in list(c.slots_usable):
                if not c.slots_usable[s]:
                    c.slots_usable[s] = True
                    self.ctx.state(f"{c.id}.slots_usable.{s}", False, True, rule, "combat end")
            self.set_flag(c, "legs_broken", False, rule, "combat end")
            if self.cfg.bs_clear_at_combat_end:
                for s in list(c.statuses):
                    self.remove_status(c, s, rule=rule, cause="combat end")
            self._drop_effects(c, lambda e: e.get("until") in ("turn", "round", "combat") or e.get("flying"), rule,
                               "combat end")
            self.set_flag(c, "flying", False, rule, "combat end")
            self.set_flag(c, "blockading", None, rule, "combat end")
            if not self.t.concentration:
                self.set_flag(c, "psychic_focus", 0, rule, "combat end")
            self.set_flag(c, "attacks_received_this_round", 0, rule, "combat end")
            self.set_flag(c, "delaying", False, rule, "combat end")
        if self.t.battlefield is not None:
            self.ctx.state("battlefield", self.t.battlefield.snap(), None, rule, "combat end")
        self.t.battlefield = None

    def combat_end_reason(self) -> tuple[str, str] | None:
        """§11.6 (a)–(c): the outcome and reason if the combat must end now, else None."""
        cb = self._cb
        bf = self.t.battlefield
        if cb is None or bf is None:
            return None
        # asked after every action and damage application: the answer holds until the next state change
        memo = self.vmemo()
        hit = memo.get("end_reason")
        if hit is not None and hit[0] is cb and hit[1] == cb.end_condition:
            if _kept.CHECK:
                _kept.confirm("end_reason", cb.end_condition, hit[2], lambda: self._combat_end_reason(cb, bf))
            return hit[2]
        why = self._combat_end_reason(cb, bf)
        memo["end_reason"] = (cb, cb.end_condition, why)
        return why

    def _combat_end_reason(self, cb: _Combat, bf: Battlefield) -> tuple[str, str] | None:
        enemies = cb.enemies
        pc_able = foe_able = False
        for c in self._placed()[1]:  # (one pass: asked after every action and damage)
            if c.dead or c.incapacitated:
                continue
            if c.side == "pc":
                pc_able = True
            elif c.id in enemies:
                foe_able = True
        if not pc_able:
            escaped = [i for i in bf.gone if self.t.chars[i].is_pc and self.t.chars[i].able]
            if escaped:
                return "escaped", "戦場に残ったPCがいない（逃走）"
            return "pcs_lose", "行動できるPCがいない"
        if not foe_able:
            return "pcs_win", "行動できる敵がいない"
        cond = cb.end_condition or {}
        if cond.get("defeated"):
            if all(not self.t.chars[i].able or i in bf.gone for i in cond["defeated"]):
                return "pcs_win", "シナリオの条件: 目標を倒した"
        return None

    def check_combat_end(self) -> None:
        """Raise ``CombatOver`` when §11.6 holds (checked after every damage application and state change). In a
        procedure on a prepared table (``begin_combat_context``) the outcome is only recorded and play goes on."""
        why = self.combat_end_reason()
        if why is None:
            return
        cb = self._cb
        if cb is not None and not cb.running:
            if cb.outcome is None:
                cb.outcome = why[0]
                self.ctx.info("combat_over", f"戦闘終了の条件を満たした: {_OUTCOME_JP[why[0]]}（{why[1]}）",
                              outcome=why[0], reason=why[1])
            return
        raise CombatOver(*why)

    # ==========================================================================================================
    # what a combat decision's context shows (the policy reads only this and the options)
    # ==========================================================================================================
    def lazy_battle(self, me: Character | None, **extra: Any) -> LazyContext:
        """``battle_context(me)`` plus ``extra``; each key (and each combatant under ``chars``) is built only when
        someone reads it."""
        bf = self.t.battlefield
        return LazyContext(_BATTLE_KEYS if me is None else _BATTLE_KEYS_ME, extra, (self, me, bf), _REPEATS)

    def battle_context(self, me: Character | None) -> dict[str, Any]:
        """What a combat decision's context shows, built at once (plain dicts)."""
        return plain(self.lazy_battle(me))

    def _char_battle_view(self, cid: str) -> dict[str, Any]:
        """One combatant as a combat decision's context shows it. Views are kept until the next state change
        (``ctx.version``) and shared by the decisions asked meanwhile (a turn's minor and major action, the setup
        windows of a round): contexts are read-only, like the decision they belong to."""
        # a view shows one character and where it stands: it holds while neither that character nor the battlefield
        # changed (``ctx.heads``), which is most of the time between two decisions
        heads = self.ctx.heads
        chars = self.t.chars
        x = chars[cid]
        key = (heads.get(cid), heads.get("battlefield"))
        views = self.kept("char_views")
        hit = views.get(cid)
        if hit is not None and hit[0] is x and hit[1] is self.t.battlefield and hit[2] == key:
            if _kept.CHECK:
                _kept.confirm("char_views", (cid, key), hit[3], lambda: self._make_char_view(cid))
            return hit[3]
        v = self._make_char_view(cid)
        views[cid] = (x, self.t.battlefield, key, v)
        return v

    def _make_char_view(self, cid: str) -> dict[str, Any]:
        x = self.t.chars[cid]
        return {
            "name": x.name, "side": x.side, "kind": x.kind, "engagement": self.engagement_of(x),
            "life": x.current.get("life", 0), "life_base": x.base.get("life", 0),
            "soul": x.current.get("soul", 0), "soul_base": x.base.get("soul", 0),
            "body": x.current.get("body", 0), "able": x.able, "dead": x.dead, "awakened": x.awakened,
            "flying": x.flying, "statuses": sorted(x.statuses), "tags": list(x.tags),
            "sn_feats": _sn_feats(tuple(x.feats)),
        }

    def _attack_views(self, c: Character) -> list[dict[str, Any]]:
        """``c``'s attacks as a combat decision's context shows them; shared until the next state change like the
        character views (``_char_battle_view``)."""
        memo = self.vmemo()
        key = ("attacks", c.id)
        v = memo.get(key)
        if v is None or v[0] is not c:
            v = memo[key] = (c, [self._source_view(c, s) for s in self.attack_sources(c)])
        elif _kept.CHECK:
            _kept.confirm("attack_views", key, v[1], lambda: [self._source_view(c, s) for s in self.attack_sources(c)])
        return v[1]

    def _source_view(self, c: Character, s: AttackSource) -> dict[str, Any]:
        return {"source": s.id, "name": s.name, "range": s.range, "target": s.target, "ability": s.ability,
                "pool": c.current.get(s.ability, 0), "avg_damage": s.avg_damage(), "no_damage": s.no_damage,
                "feat": s.feat.id if s.feat else None, "cost": self.effective_cost(c, s.feat.id) if s.feat else {},
                "categories": list(s.categories),
                "bonus_vs_tag": list(s.feat.bonus_vs_tag) if s.feat and s.feat.bonus_vs_tag else None,
                "targets": [x.id for x in self.legal_targets(c, s)] if self.t.battlefield else []}


# what a combat decision's context shows, key by key: each function gets (game, the decider or None, the battlefield
# when the decision was asked) and is called on first read (``LazyContext``); one table serves every decision
def _k_engagements(g: CombatMixin, me: Character | None, bf: Battlefield | None) -> dict[str, list[str]]:
    return {k: list(v) for k, v in bf.engagements.items()} if bf else {}


def _k_chars(g: CombatMixin, me: Character | None, bf: Battlefield | None) -> LazyMap:
    return LazyMap([x.id for x in g.combatants()], g._char_battle_view)


def _k_attack_abilities(g: CombatMixin, me: Character | None, bf: Battlefield | None) -> dict[str, int]:
    # each combatant's best attack ability (what a blessing is worth on it): its own key, because it needs every
    # combatant's attack sources, which the other keys do not
    return {x.id: max((x.current.get(s.ability, 0) for s in g.attack_sources(x)), default=0) for x in g.combatants()}


def _k_cost_ok(g: CombatMixin, me: Character, bf: Battlefield | None) -> dict[str, bool]:
    return {fid: g.feat_usable(me, fid) is None for fid in me.feats if fid in FEATS and FEATS[fid].timing != "constant"}


def _k_costs(g: CombatMixin, me: Character, bf: Battlefield | None) -> dict[str, dict[str, int]]:
    return {fid: g.effective_cost(me, fid) for fid in me.feats if fid in FEATS and FEATS[fid].timing != "constant"}


_BATTLE_KEYS: dict[str, Any] = {
    "round": lambda g, me, bf: bf.round if bf else 0,
    "time_of_day": lambda g, me, bf: g.t.time_of_day,
    "phase": lambda g, me, bf: g.t.phase,
    "engagements": _k_engagements,
    "chars": _k_chars,
    "attack_abilities": _k_attack_abilities,
}
#: battle context keys that restate the observation (its ``battlefield`` and ``characters``): not shown in prompts
_REPEATS = frozenset({"round", "time_of_day", "phase", "engagements", "chars"})
_BATTLE_KEYS_ME: dict[str, Any] = {
    **_BATTLE_KEYS,
    "me": lambda g, me, bf: me.id,
    "side": lambda g, me, bf: me.side,
    "engagement": lambda g, me, bf: g.engagement_of(me) if bf else None,
    "attacks": lambda g, me, bf: g._attack_views(me),
    "items": lambda g, me, bf: [_item_view(me, it) for it in me.items],
    "cost_ok": _k_cost_ok,
    "costs": _k_costs,
}


def _item_view(me: Character, it: ItemState) -> dict[str, Any]:
    """One of the decider's items; a weapon also shows what it would attack with (for a swap back into a usable
    slot: an item the decider cannot use now is not among its ``attacks``)."""
    v: dict[str, Any] = {"uid": it.uid, "item": it.item, "slot": it.slot, "uses_left": it.uses_left}
    d = item_data(it.item)
    if d.type == "weapon" and d.damage is not None:
        f = d.damage
        v["weapon"] = {"range": d.range, "target": d.target, "ability": d.check, "categories": list(d.categories),
                       "pool": me.current.get(d.check or "", 0),
                       "avg_damage": f.dice * (3.5 if f.sides == 6 else 2.0) + f.plus}
    return v


@functools.lru_cache(maxsize=4096)
def _sn_feats(feats: tuple[str, ...]) -> int:
    """How many supernatural feats a feat list has (what the sorcerer's brand looks for, §11.7)."""
    return sum(1 for f in feats if f in FEATS and FEATS[f].supernatural)


def _held_label(item_id: str | None) -> str:
    return f"（{item_data(item_id).name}）" if item_id else ""


def _max_damage(item_id: str) -> int:
    f = item_data(item_id).damage
    return f.maximum if f is not None else 0


def _is_weapon(item_id: str | None) -> bool:
    return item_id is not None and item_data(item_id).is_weapon


_OUTCOME_JP = {"pcs_win": "PCの勝利", "pcs_lose": "PCの敗北", "ended_by_gm": "GMによる終了", "escaped": "逃走",
               "round_cap": "ラウンド上限"}


def _item_counts(items: list[ItemState]) -> tuple[dict[str, int], dict[str, str]]:
    """(item id → how many copies, uid → item id) of an item list (``item_name``'s kept value)."""
    counts: dict[str, int] = {}
    for o in items:
        counts[o.item] = counts.get(o.item, 0) + 1
    return counts, {o.uid: o.item for o in items}
