"""Checks and the primitives every other part builds on (rules/yogaribito.md §5, §7.7.2–§7.9).

``ChecksMixin.run_check`` is the §5.2 pipeline as a generator, with its decision windows in the spec's order:

    D24 defense ability tie (defense checks only; needed before the pool of step A can be shown)
    A   pre-check auto feats (D25): the actor first, then other characters whose feat triggers on this check
        (``before_defense_in_engagement``) in initiative / roster order; costs paid at once (§5.7)
    B   bought dice (D26): Summoner soul, Arachne life (awakened: AMB-20, D49), 【財】 on social checks
    C   【燎】 (D27)
    D   the pool: ability + §5.3 static modifiers + auto-feat dice; defense: −consecutive, −3 legs, floor 1;
        others: the general floor; + bought dice; ×2 with 【燎】 (AMB-07)
    E   the roll (束縛 defense: two rolls, the lower adopted, AMB-31)
    F   【運】 (D28) in the actor's own luck window (AMB-09)
    G   evaluate; a critical/fumble offers the GM's narrative hook (D43)

The damage / heal / zero trigger / awakening / bad-status primitives live here too; combat.py and game.py call them.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass, field
from typing import Any

from ...core import kept as _kept
from .arms import BAD_STATUSES, FEATS, STATUS_NAMES, DamageMod, FeatData, ItemData, item_data
from .base import GameBase, Gen
from .state import ABILITY_IDS, Character, ItemState

__all__ = ["CheckResult", "OpposedResult", "ChecksMixin", "evaluate", "SOCIAL_KINDS", "ABILITY_JP", "STAT_JP"]

SOCIAL_KINDS = ("negotiation", "information", "purchase")
ABILITY_JP = {"mind": "【心】", "tech": "【技】", "body": "【体】"}
#: check kinds (§5.1) as the rulebook names them (display only)
CHECK_KIND_JP = {"entry": "登場判定", "generic": "判定", "information": "情報収集判定", "negotiation": "交渉判定",
                 "purchase": "購入判定", "psychic_focus": "精神集中の判定", "hit": "命中判定", "defense": "防御判定",
                 "release": "解除判定", "blockade_contest": "封鎖の対決"}
STAT_JP = {"mind": "【心】", "tech": "【技】", "body": "【体】", "life": "【命】", "soul": "【魂】", "luck": "【運】",
           "wealth": "【財】", "kagaribi": "【燎】", "bullets": "【弾】"}
#: D24 default tie-break: body > tech > mind
_DEFENSE_PREFERENCE = ("body", "tech", "mind")
#: D46 default: bullets cover life first, then soul, then wealth
_BULLET_PREFERENCE = ("life", "soul", "wealth")
DEFAULT_PATRON = {"name": "nature", "favored_tags": ["nature", "outdoors"], "disfavored_tags": ["indoors", "urban"]}


#: auto-feat triggers that fire before a check (§11.2), the ones ``_auto_candidates`` looks at
_CHECK_TRIGGERS = frozenset({"before_own_defense", "before_defense_in_engagement", "before_own_check"})


@functools.lru_cache(maxsize=4096)
def _check_auto_feats(feats: tuple[str, ...]) -> tuple[str, ...]:
    """The feats of a feat list that are auto feats with a check trigger, in list order."""
    out = []
    for fid in feats:
        f = FEATS.get(fid)
        if f is not None and f.timing == "auto" and f.trigger in _CHECK_TRIGGERS:
            out.append(fid)
    return tuple(out)


@functools.lru_cache(maxsize=4096)
def _helps_defense(feats: tuple[str, ...]) -> bool:
    """Whether a feat list has an auto feat that triggers on a defense check in its engagement (another's too)."""
    return any(FEATS[f].trigger == "before_defense_in_engagement" for f in _check_auto_feats(feats))


def evaluate(faces: list[int], target: int) -> tuple[int, bool, bool, bool]:
    """§5.2 G: (achievement, critical, success, fumble). A critical always succeeds; a fumble is a failure with 1s."""
    ach = sixes = ones = 0
    for f in faces:
        if f >= 5:
            ach += 1
            if f == 6:
                sixes += 1
        elif f == 1:
            ones += 1
    crit = sixes >= 2
    success = crit or ach >= target
    fumble = (not success) and ones >= 2
    return ach, crit, success, fumble


@dataclass
class CheckResult:
    actor: str
    kind: str
    ability: str | None
    target: int
    pool: int
    faces: list[int]
    ach: int
    crit: bool
    success: bool
    fumble: bool
    kagaribi: bool
    bought: dict[str, int]
    luck: str | None  # "set5" | "reroll" | None
    rolls: list[list[int]]  # every roll made (束縛 defense: two per roll)
    #: the check was cancelled (a cost brought the actor to 0 with cost_zero_action_resolves = false, AMB-19)
    cancelled: bool = False
    auto_feats: list[str] = field(default_factory=list)  # "<owner>:<feat>" used at step A
    #: the §5.3 static modifiers in the pool, as [source, dice] (class features, constant feats, equipment, 祝福)
    mods: list[list[Any]] = field(default_factory=list)

    @property
    def eff(self) -> int:
        """Effective achievement for opposed comparisons: ach + 1 on a critical (§5.5)."""
        return self.ach + (1 if self.crit else 0)

    def roll(self) -> dict[str, Any]:
        """The typed dice line of this check (``engine.core.events.CheckRoll``)."""
        result = "critical" if self.crit else "fumble" if self.fumble else "success" if self.success else "failure"
        if self.cancelled:
            result = "cancelled"
        return {"who": self.actor, "pool": self.pool, "faces": list(self.faces), "target": self.target,
                "ach": self.ach, "success": self.success, "result": result}

    def summary(self) -> dict[str, Any]:
        return {"who": self.actor, "kind": self.kind, "ability": self.ability, "target": self.target,
                "pool": self.pool, "faces": list(self.faces), "ach": self.ach, "crit": self.crit,
                "success": self.success, "fumble": self.fumble, "kagaribi": self.kagaribi,
                "bought": dict(self.bought), "luck": self.luck, "rolls": [list(r) for r in self.rolls],
                "cancelled": self.cancelled, "auto_feats": list(self.auto_feats), "mods": [list(m) for m in self.mods]}


@dataclass
class OpposedResult:
    active: CheckResult
    passive: CheckResult | None
    winner: str  # active | passive | draw


class ChecksMixin(GameBase):
    def log_check(self, kind: str, rule: str, label: str, res: CheckResult) -> str:
        """Record a check (its id counts even when nothing is recorded; the summary is built for the log only)."""
        ctx = self.ctx
        if not ctx.recording:
            return ctx.check(kind, rule, {})
        return ctx.check(kind, rule, {"label": label, **res.summary()}, label=label, rolls=(res.roll(),))

    # ==========================================================================================================
    # equipment and situation helpers
    # ==========================================================================================================
    def usable_item(self, c: Character, it: ItemState) -> bool:
        """An equipped item whose slot(s) are usable and which is not 武器封じ (§7.6, §7.9, §11.4)."""
        if it.slot is None:
            return False
        d = item_data(it.item)
        slots = ("right_hand", "left_hand") if d.slots == "two_hands" else (it.slot,)
        usable = c.slots_usable
        for s in slots:
            if not usable.get(s, False):
                return False
        return not (c.has("weapon_sealed") and c.sealed_item == it.uid)

    def active_items(self, c: Character) -> list[ItemData]:
        """Data of the equipped items whose effects work now (constant bonuses, damage reductions)."""
        return [item_data(it.item) for it in c.items if self.usable_item(c, it)]

    def scene_tags(self) -> set[str]:
        """The situation tags of the current scene: env tags plus the time of day (AMB-23)."""
        tags = set(self.t.env_tags)
        if self.t.time_of_day in ("day", "night"):
            tags.add(self.t.time_of_day)
        return tags

    def patron(self, c: Character) -> dict[str, Any]:
        return c.shaman_patron or DEFAULT_PATRON

    def patron_favored(self, c: Character) -> bool:
        return bool(self.scene_tags() & set(self.patron(c).get("favored_tags", ())))

    def _condition(self, c: Character, cond: str | None, context: dict[str, Any]) -> bool:
        if cond is None:
            return True
        if cond in ("day", "night"):
            return self.t.time_of_day == cond
        if cond == "unholy":
            return "unholy" in self.t.env_tags
        if cond == "patron_favored":
            return self.patron_favored(c)
        if cond.startswith("tag:"):
            return cond[4:] in self.scene_tags()
        if cond == "vs_mind_attack":
            return context.get("attack_attribute") == "mind"
        raise ValueError(f"unknown condition {cond!r}")

    # ==========================================================================================================
    # §5.3 static modifiers
    # ==========================================================================================================
    def static_mods(self, c: Character, ability: str, kind: str, context: dict) -> int:
        """§5.3: the sum of every static dice modifier that applies (main-class feature, constant feats, usable
        equipment, a pending 《祝福》). "Mind checks" include a defense check with the mind ability (AMB-16)."""
        total = 0
        for _, n in self.static_mod_parts(c, ability, kind, context):
            total += n
        return total

    _mods_cache: tuple[Any, ...] | None = None

    def static_mod_parts(self, c: Character, ability: str, kind: str, context: dict) -> list[tuple[str, int]]:
        """The §5.3 modifiers as (source, dice). A check asks for them up to four times (pools shown in its decision
        windows, then the pool it rolls): the last answer is kept until the next state change (``ctx.version``:
        every change of statuses, effects and items is logged; the scene's time and tags are part of the key).
        Do not mutate the list."""
        t = self.t
        key = (c.id, ability, kind, context.get("attack_attribute"), self.ctx.version, t.time_of_day)
        hit = self._mods_cache
        if hit is not None and hit[1] is c and hit[2] is t.env_tags and hit[0] == key:
            if _kept.CHECK:
                _kept.confirm("static_mod_parts", key, hit[3], lambda: self._static_mod_parts(c, ability, kind, context))
            return hit[3]
        parts = self._static_mod_parts(c, ability, kind, context)
        self._mods_cache = (key, c, t.env_tags, parts)
        return parts

    def _static_mod_parts(self, c: Character, ability: str, kind: str, context: dict) -> list[tuple[str, int]]:
        parts: list[tuple[str, int]] = []
        tod = self.t.time_of_day
        tags = set(self.t.env_tags)
        mc = c.main_class
        if ability == "mind":
            if mc == "black_magic":
                parts += [("black_magic:unholy", 1)] if "unholy" in tags else []
                parts += [("black_magic:holy", -1)] if "holy" in tags else []
            elif mc == "white_magic":
                parts += [("white_magic:holy", 1)] if "holy" in tags else []
                parts += [("white_magic:unholy", -1)] if "unholy" in tags else []
            elif mc == "shamanic":
                p = self.patron(c)
                st = self.scene_tags()
                parts += [("shamanic:favored", 1)] if st & set(p.get("favored_tags", ())) else []
                parts += [("shamanic:disfavored", -1)] if st & set(p.get("disfavored_tags", ())) else []
            elif mc == "psychic" and c.psychic_focus:
                parts.append(("psychic:focus", c.psychic_focus))
        if mc == "night_walker" and tod in ("day", "night"):
            parts.append((f"night_walker:{tod}", -1 if tod == "day" else 1))
        elif mc == "celestial" and tod in ("day", "night"):
            parts.append((f"celestial:{tod}", 1 if tod == "day" else -1))
        for fid in c.feats:
            f = FEATS.get(fid)
            if f is None or f.timing != "constant":
                continue
            for b in f.check_bonuses:
                if kind in b.kinds and self._condition(c, b.condition, context):
                    parts.append((fid, b.dice))
        for d in self.active_items(c):
            for b in d.check_bonuses:
                if kind in b.kinds and self._condition(c, b.condition, context):
                    parts.append((d.id, b.dice))
        for e in c.effects:
            if e.get("id") == "blessing":
                parts.append(("blessing", int(e.get("dice", 1))))
        return parts

    # ==========================================================================================================
    # damage attribute modifiers (for combat's damage phase, §7.7.1)
    # ==========================================================================================================
    def damage_mods(self, attacker: Character | None, target: Character, attribute: str | None) -> list[tuple[str, int]]:
        """Constant damage modifiers of §7.7.1 as (source, amount): the Adept feature (dealt, body), the mind-damage
        class features of the target (received), constant feats (unholy_pact, night_predator, diamond_body, chitin)
        and the target's usable equipment (stab_vest, warded_coat). Attribute-less damage gets none (AMB-24) except
        the unconditional "damage you deal" feats (night_predator) when an attacker is given."""
        out: list[tuple[str, int]] = []
        if attacker is not None:
            if attacker.main_class == "adept" and attribute == "body":
                out.append(("adept", 1))
            for fid in attacker.feats:
                f = FEATS.get(fid)
                if f is not None and f.timing == "constant":
                    out += [(fid, m.amount) for m in f.damage_mods if m.direction == "dealt"
                            and self._damage_mod_applies(attacker, m, attribute)]
        if attribute == "mind":
            if target.main_class in ("night_walker", "arachne"):
                out.append((f"{target.main_class}:mind", 1))
            elif target.main_class == "celestial":
                out.append(("celestial:mind", -1))
        for fid in target.feats:
            f = FEATS.get(fid)
            if f is not None and f.timing == "constant":
                out += [(fid, m.amount) for m in f.damage_mods if m.direction == "received"
                        and self._damage_mod_applies(target, m, attribute)]
        for d in self.active_items(target):
            out += [(d.id, m.amount) for m in d.damage_mods if m.direction == "received"
                    and self._damage_mod_applies(target, m, attribute)]
        return out

    def _damage_mod_applies(self, c: Character, m: DamageMod, attribute: str | None) -> bool:
        if m.attribute is not None and m.attribute != attribute:
            return False
        return self._condition(c, m.condition, {})

    # ==========================================================================================================
    # feats: usability, costs (§5.7), limits
    # ==========================================================================================================
    def effective_cost(self, c: Character, feat_id: str) -> dict[str, int]:
        """§5.7 before the bullet payment: 刻印 +1 soul; awakened life costs waived or moved to soul (AMB-17)."""
        f = FEATS[feat_id]
        cost = {k: v for k, v in f.cost.items() if v}
        if c.has("brand"):
            cost["soul"] = cost.get("soul", 0) + 1
        if c.awakened and cost.get("life"):
            life = cost.pop("life")
            if self.cfg.awakened_life_cost == "from_soul":
                cost["soul"] = cost.get("soul", 0) + life
        return cost

    def _bullets_apply(self, c: Character, f: FeatData) -> bool:
        return f.feat_class == "witch_hunter" and c.main_class == "witch_hunter"

    def cost_allocations(self, c: Character, feat_id: str) -> list[tuple[dict[str, int], dict[str, int]]]:
        """Every legal way to pay the feat now: (stat payments, bullets per stat). Without bullets: one way or none."""
        f = FEATS[feat_id]
        cost = self.effective_cost(c, feat_id)
        bullets = c.current.get("bullets", 0) if self._bullets_apply(c, f) else 0
        coverable = [s for s in _BULLET_PREFERENCE if cost.get(s)]
        out: list[tuple[dict[str, int], dict[str, int]]] = []
        ranges = [range(0, min(cost[s], bullets) + 1) for s in coverable]
        for ks in itertools.product(*ranges):
            by_b = {s: k for s, k in zip(coverable, ks) if k}
            if sum(by_b.values()) > bullets:
                continue
            pay = {s: n - by_b.get(s, 0) for s, n in cost.items() if n - by_b.get(s, 0) > 0}
            if all(c.current.get(s, 0) >= n for s, n in pay.items()):
                out.append((pay, by_b))
        return out

    def can_pay(self, c: Character, feat_id: str) -> bool:
        """Whether some allocation of ``cost_allocations`` exists, without listing them: every shortfall must be on a
        stat bullets may cover, and the shortfalls together must fit in the bullets (asked for every feat of every
        combatant before each action, so it is kept cheap)."""
        f = FEATS[feat_id]
        bullets = c.current.get("bullets", 0) if self._bullets_apply(c, f) else 0
        need = 0
        for stat, n in self.effective_cost(c, feat_id).items():
            short = n - c.current.get(stat, 0)
            if short > 0:
                if stat not in _BULLET_PREFERENCE:
                    return False
                need += short
        return need <= bullets

    def feat_limit_reason(self, c: Character, feat_id: str) -> str | None:
        lim = FEATS[feat_id].limit
        if lim is None:
            return None
        uses = {"round": c.uses_round, "scene": c.uses_scene, "scenario": c.uses_scenario}[lim]
        if uses.get(feat_id, 0) >= 1:
            return {"round": "1ラウンドに1回", "scene": "1シーンに1回", "scenario": "1シナリオに1回"}[lim] + "（使用済み）"
        return None

    def feat_usable(self, c: Character, feat_id: str) -> str | None:
        """None if ``c`` may use the feat now (timing aside), else the reason: not learned, constant, 戦闘不能/死亡,
        麻痺/恐怖, 魔封 (supernatural non-constant feats), usage limit, cost not payable."""
        f = FEATS.get(feat_id)
        if f is None or feat_id not in c.feats:
            return "未取得の特技"
        if f.timing == "constant":
            return "常時特技は宣言して使うものではない"
        if not c.able:
            return "戦闘不能/死亡"
        if (c.has("paralysis") or c.has("fear")) and not set(f.trigger_statuses) & {"paralysis", "fear"}:
            return "麻痺/恐怖: 解除判定以外の行動はできない (§7.9)"
        if f.supernatural and c.has("magic_sealed"):
            return "魔封: スーパーナチュラルの特技は使えない (§7.9)"
        lim = self.feat_limit_reason(c, feat_id)
        if lim is not None:
            return lim
        if not self.can_pay(c, feat_id):
            cost = self.effective_cost(c, feat_id)
            return "代償を払えない: " + "・".join(f"{STAT_JP[s]}{n}" for s, n in cost.items())
        return None

    def record_use(self, c: Character, feat_id: str, rule: str = "§5.7 usage limit") -> None:
        lim = FEATS[feat_id].limit
        if lim is None:
            return
        uses = {"round": c.uses_round, "scene": c.uses_scene, "scenario": c.uses_scenario}[lim]
        old = uses.get(feat_id, 0)
        uses[feat_id] = old + 1
        self.ctx.state(f"{c.id}.uses_{lim}.{feat_id}", old, old + 1, rule, "feat used")

    def pay_feat_cost(self, c: Character, feat_id: str) -> Gen:
        """§5.7: pay the feat's cost (D46 for Witch Hunter bullets) and record its use. Returns False when it cannot
        be paid (nothing changed). A life/soul reaching 0 runs the normal zero trigger (§7.7.2); the action still
        resolves unless ``cost_zero_action_resolves`` is false (see ``action_cancelled``)."""
        f = FEATS[feat_id]
        allocs = self.cost_allocations(c, feat_id)
        if not allocs:
            return False
        if len(allocs) > 1:
            ids = {_alloc_id(b): (p, b) for p, b in allocs}
            pairs = [(i, _alloc_label(b)) for i, (_, b) in ids.items()]
            choice = yield from self.choose(
                self.controller(c), "ck.bullets", f"{f.name} の代償を【弾】で払う?", "§5.7 D46", pairs,
                context={"feat": feat_id, "cost": self.effective_cost(c, feat_id),
                         "bullets": c.current.get("bullets", 0),
                         "allocations": {i: dict(b) for i, (_, b) in ids.items()}})
            pay, by_b = ids[choice]
        else:
            pay, by_b = allocs[0]
        cause = f"cost of {feat_id}"
        if by_b:
            self.set_current(c, "bullets", c.current.get("bullets", 0) - sum(by_b.values()), "§5.7 D46", cause)
        for s in ("wealth", "luck", "life", "soul"):
            if pay.get(s):
                self.set_current(c, s, c.current.get(s, 0) - pay[s], "§5.7", cause)
        self.record_use(c, feat_id)
        if self.ctx.recording:
            self.ctx.info("cost", f"{c.name} は {f.name} の代償を払った", who=c.id, feat=feat_id, paid=dict(pay),
                          bullets=dict(by_b))
        for s in ("life", "soul"):
            if pay.get(s) and c.current.get(s, 0) == 0 and c.able:
                yield from self.zero_trigger(c, s, rule="§7.7.2 AMB-19", special=False)
        return True

    def action_cancelled(self, c: Character) -> bool:
        """After paying a cost: the action is cancelled because the payment put the actor out (AMB-19 flag)."""
        return not self.cfg.cost_zero_action_resolves and not c.able

    # ==========================================================================================================
    # §5.2 the check pipeline
    # ==========================================================================================================
    def defense_pool_before(self, c: Character, ability: str, context: dict, extra: int = 0,
                            ignore_consecutive: bool = False) -> int:
        p = c.current.get(ability, 0) + self.static_mods(c, ability, "defense", context) + extra
        if not ignore_consecutive:
            p -= c.attacks_received_this_round
        if c.legs_broken:
            p -= 3
        return max(1, p)

    def defense_ability(self, c: Character, context: dict) -> Gen:
        """§5.2 / AMB-16: the highest current of mind/tech/body; a tie is the defender's choice (D24)."""
        cur = c.current
        values = [cur.get(a, 0) for a in ABILITY_IDS]
        top = max(values)
        tied = [a for a, v in zip(ABILITY_IDS, values) if v == top]
        if len(tied) == 1:
            return tied[0]
        pools = {a: self.defense_pool_before(c, a, context) for a in tied}
        ability = yield from self.choose(
            self.controller(c), "ck.defense_ability", "防御判定に使う能力値を選ぶ（同値）", "§5.2 AMB-16 D24",
            [(a, f"{ABILITY_JP[a]} {c.current.get(a, 0)}（{pools[a]}個）") for a in tied],
            context={"pools": pools, "values": {a: c.current.get(a, 0) for a in tied}})
        return ability

    def run_check(self, actor: Character, kind: str, ability: str | None, target: int = 1, *,
                  label: str, rule: str, context: dict | None = None,
                  opponent: CheckResult | None = None) -> Gen:
        """§5.2 A–G for one check. ``context`` keys read here: ``side`` (active | passive), ``attacker``,
        ``attack_attribute`` (kashima_charm), ``targets`` (hit checks: target ids, occult_lore), ``defer_luck``
        (luck_window = after_both: the caller runs ``luck_step`` later). Returns a ``CheckResult``."""
        c = actor
        ctx = dict(context or {})
        if kind == "defense":
            ability = yield from self.defense_ability(c, ctx)
        if ability is None:
            raise ValueError(f"run_check({kind}): an ability is needed")
        res = CheckResult(c.id, kind, ability, target, 0, [], 0, False, False, False, False, {}, None, [])
        # A. pre-check auto feats (D25)
        extra, ignore_consecutive = yield from self._auto_feats(c, kind, ability, ctx, res)
        cancelled = self.action_cancelled(c)
        # B. bought dice (D26)
        bought_dice = 0
        if not cancelled:
            bought_dice = yield from self._bought(c, kind, ability, target, ctx, res, extra, ignore_consecutive,
                                                  label=label)
            cancelled = self.action_cancelled(c)
        if cancelled:
            res.cancelled = True
            self.log_check(kind, rule, label, res)
            return res
        # C. 【燎】 (D27)
        if c.current.get("kagaribi", 0) >= 1:
            pool_now = self._pool(c, kind, ability, ctx, extra, ignore_consecutive) + bought_dice
            use = yield from self.choose(
                self.controller(c), "ck.kagaribi", f"{label}: 【燎】を使う?（ダイス{pool_now}個→{pool_now * 2}個）",
                "§5.4 D27", [("none", "使わない"), ("use", "【燎】を1点使ってダイスを2倍にする")],
                context={"kind": kind, "phase": self.t.phase, "pool": pool_now,
                         "kagaribi": c.current.get("kagaribi", 0), "side": ctx.get("side")})
            if use == "use":
                self.set_current(c, "kagaribi", c.current["kagaribi"] - 1, "§5.4 燎", label)
                res.kagaribi = True
        # D. the pool
        res.mods = [[k, n] for k, n in self.static_mod_parts(c, ability, kind, ctx)]
        base_pool = self._pool(c, kind, ability, ctx, extra, ignore_consecutive)
        if res.kagaribi:
            p = (base_pool + bought_dice) * 2 if self.cfg.flare_doubles_bought_dice else base_pool * 2 + bought_dice
        else:
            p = base_pool + bought_dice
        res.pool = p
        # E. roll
        self._roll_once(c, res, label)
        # blessing: "the target's next check" is this one
        if c.effects and any(e.get("id") == "blessing" for e in c.effects):
            old = [dict(e) for e in c.effects]
            c.effects = [e for e in c.effects if e.get("id") != "blessing"]
            self.ctx.state(f"{c.id}.effects", old, [dict(e) for e in c.effects], "§11.3 blessing", "used")
        # F. luck (D28)
        if not ctx.get("defer_luck"):
            yield from self.luck_step(c, res, label=label, side=ctx.get("side"), opponent=opponent, log=False)
        # G. evaluate (done in _roll / luck_step), log, GM hook
        self.log_check(kind, rule, label, res)
        yield from self._crit_fiat(c, res, label)
        return res

    def _pool(self, c: Character, kind: str, ability: str, ctx: dict, extra: int, ignore_consecutive: bool) -> int:
        """Step D without bought dice and 燎."""
        if kind == "defense":
            return self.defense_pool_before(c, ability, ctx, extra, ignore_consecutive)
        p = c.current.get(ability, 0) + self.static_mods(c, ability, kind, ctx) + extra
        return max(self.cfg.general_pool_floor, p)

    def _roll_once(self, c: Character, res: CheckResult, label: str) -> None:
        """E: roll ``res.pool`` dice (束縛 defense: twice, adopt the lower effective achievement; tie → first)."""
        if res.pool <= 0:
            faces: list[int] = []
        elif res.kind == "defense" and c.has("bound"):
            a = self.dice(res.pool, f"{c.id} {label} (束縛 A)")
            b = self.dice(res.pool, f"{c.id} {label} (束縛 B)")
            res.rolls += [a, b]
            ea, ca = evaluate(a, res.target)[:2]
            eb, cb = evaluate(b, res.target)[:2]
            faces = b if eb + (1 if cb else 0) < ea + (1 if ca else 0) else a
        else:
            faces = self.dice(res.pool, f"{c.id} {label}")
            res.rolls.append(faces)
        res.faces = list(faces)
        res.ach, res.crit, res.success, res.fumble = evaluate(res.faces, res.target)

    def luck_options(self, c: Character, res: CheckResult) -> tuple[list[tuple[str, str]], dict[str, str]]:
        pairs: list[tuple[str, str]] = [("none", "使わない")]
        refused: dict[str, str] = {}
        for i, f in enumerate(res.faces):
            if f != 5:
                pairs.append((f"set5:{i}", f"{i + 1}個目のダイス（{f}）を5にする"))
        if res.fumble:
            refused["reroll"] = "致命的失敗の判定は振り直せない (§5.4)"
        else:
            pairs.append(("reroll", "判定を振り直す"))
        return pairs, refused

    def luck_step(self, c: Character, res: CheckResult, *, label: str, side: str | None = None,
                  opponent: CheckResult | None = None, log: bool = True,
                  extra_context: dict[str, Any] | None = None) -> Gen:
        """F (D28): once per check, 【運】 ≥ 1: set one die to 5, or reroll the whole check (not on a fumble; a 束縛
        defense rerolls both rolls). ``log``: emit a ``luck`` check event (for a deferred window, AMB-09).
        ``extra_context``: more keys for the decision's context (an attack's after_both window: the defenses)."""
        if res.luck is not None or res.pool <= 0 or c.current.get("luck", 0) < 1 or res.cancelled:
            return res
        pairs, refused = self.luck_options(c, res)
        m = opponent.eff if opponent is not None else None
        choice = yield from self.choose(
            self.controller(c), "ck.luck", f"{label}: 【運】を使う?（出目 {res.faces}）", "§5.4 D28 AMB-08 AMB-09",
            pairs, refused=refused,
            context={"kind": res.kind, "side": side, "faces": list(res.faces), "target": res.target,
                     "ach": res.ach, "crit": res.crit, "success": res.success, "fumble": res.fumble, "m": m,
                     "luck": c.current.get("luck", 0), "phase": self.t.phase, **(extra_context or {})})
        if choice == "none":
            return res
        self.set_current(c, "luck", c.current["luck"] - 1, "§5.4 運", label)
        if choice == "reroll":
            res.luck = "reroll"
            self._roll_once(c, res, label + " (振り直し)")
        else:
            i = int(choice.split(":", 1)[1])
            res.luck = "set5"
            res.faces[i] = 5
            res.ach, res.crit, res.success, res.fumble = evaluate(res.faces, res.target)
        if log:
            self.log_check("luck", "§5.4 D28", label, res)
        return res

    def _crit_fiat(self, c: Character, res: CheckResult, label: str) -> Gen:
        """D43 / AMB-48: on a critical or a fumble the GM may add a narrative effect (no rule change)."""
        if not (res.crit or res.fumble):
            return None
        what = "決定的成功" if res.crit else "致命的失敗"
        choice = yield from self.choose(
            "gm", "ck.crit_fiat", f"{c.name} の {label} は{what}: GMの裁量で演出を加える?", "§5.2 D43 AMB-48",
            [("none", "加えない"), ("narrative", "演出を加える（ルール上の効果なし）")],
            context={"who": c.id, "kind": res.kind, "crit": res.crit, "fumble": res.fumble}, speech=True)
        if choice == "narrative":
            self.ctx.info("crit_fiat", f"{c.name} の{what}にGMが演出を加えた", who=c.id, crit=res.crit)
        return None

    # -- A. auto feats -----------------------------------------------------------------------------------------
    def _auto_candidates(self, chooser: Character, actor: Character, kind: str, ctx: dict) -> list[str]:
        """Auto feats of ``chooser`` whose trigger matches this check of ``actor`` (§11.2), usable now."""
        out: list[str] = []
        own = chooser.id == actor.id
        for fid in _check_auto_feats(tuple(chooser.feats)):
            f = FEATS[fid]
            if f.trigger == "before_own_defense":
                ok = own and kind == "defense"
            elif f.trigger == "before_defense_in_engagement":
                ok = kind == "defense" and (own or self.same_engagement(chooser, actor))
            elif f.trigger == "before_own_check":
                ok = own and kind in f.trigger_kinds
                if ok and kind == "hit" and f.trigger_target_tag is not None:
                    ok = any(f.trigger_target_tag in self.t.chars[t].tags for t in ctx.get("targets", ())
                             if t in self.t.chars)
            else:
                ok = False
            if ok and self.feat_usable(chooser, fid) is None:
                out.append(fid)
        return out

    def same_engagement(self, a: Character, b: Character) -> bool:
        bf = self.t.battlefield
        if bf is None:
            return a.id == b.id
        ea = bf.where(a.id)
        return ea is not None and ea == bf.where(b.id)

    def initiative_or_roster(self) -> list[str]:
        bf = self.t.battlefield
        order = list(bf.order) if bf is not None and bf.order else []
        return order + [cid for cid in self.t.chars if cid not in order]

    def _auto_feats(self, c: Character, kind: str, ability: str, ctx: dict, res: CheckResult) -> Gen:
        extra = 0
        ignore = False
        chars = self.t.chars
        # only characters with a check-triggered auto feat can have a candidate (most have none); another character's
        # feat can only be one that helps a defense in its engagement (§11.2 before_defense_in_engagement)
        choosers = [c] if _check_auto_feats(tuple(c.feats)) else []
        if kind == "defense":
            choosers += [chars[i] for i in self.initiative_or_roster()
                         if i != c.id and _helps_defense(tuple(chars[i].feats))]
        for ch in choosers:
            if not ch.able:
                continue
            cands = self._auto_candidates(ch, c, kind, ctx)
            if not cands:
                continue
            own = ch.id == c.id
            pool_now = self._pool(c, kind, ability, ctx, extra, ignore)
            feats_ctx = {fid: {"bonus_dice": FEATS[fid].bonus_dice, "ignore_consecutive": FEATS[fid].ignore_consecutive,
                               "cost": self.effective_cost(ch, fid), "trigger": FEATS[fid].trigger} for fid in cands}
            picked = yield from self.choose_many(
                self.controller(ch), "ck.auto_feats",
                f"{c.name} の{'' if own else '（味方の）'}判定の前にオートタイミング特技を使う?", "§5.2 A §11.2 D25",
                [(fid, f"{FEATS[fid].name}: {FEATS[fid].effect_jp}") for fid in cands], 0, len(cands),
                context={"check": kind, "kind": kind, "ability": ability, "own": own, "checker": c.id,
                         "ally": ch.side == c.side,
                         "pool_before": pool_now, "feats": feats_ctx, "side": ctx.get("side")})
            for fid in [f for f in cands if f in picked]:
                if self.feat_usable(ch, fid) is not None:  # a previous payment may have changed things
                    continue
                paid = yield from self.pay_feat_cost(ch, fid)
                if not paid:
                    continue
                f = FEATS[fid]
                if ch is not c and self.action_cancelled(ch):
                    # AMB-19 false: the cost put the helper out, so its feat does not resolve (the cost stays
                    # paid); the checker's own check goes on (its own payment cancels the whole check, below)
                    self.ctx.info("cancelled", f"{f.name} は代償で戦闘不能になったため不発 (AMB-19)", who=ch.id,
                                  feat=fid)
                    continue
                extra += f.bonus_dice
                ignore = ignore or f.ignore_consecutive
                res.auto_feats.append(f"{ch.id}:{fid}")
                self.ctx.info("auto_feat", f"{ch.name} は {f.name} を使った", who=ch.id, feat=fid, check=kind,
                              checker=c.id)
        return extra, ignore

    # -- B. bought dice ----------------------------------------------------------------------------------------
    def _ask_amount(self, c: Character, source: str, mx: int, kind: str, target: int, label: str,
                    pool: int, extra_ctx: dict | None = None) -> Gen:
        pairs = [("none", "買わない")] + [(str(n), f"{STAT_JP.get(source, source)}{n}点でダイス+{n}")
                                          for n in range(1, mx + 1)]
        choice = yield from self.choose(
            self.controller(c), "ck.bought", f"{label}: {STAT_JP.get(source, source)}でダイスを買う?", "§5.2 B §5.4 D26",
            pairs, context={"source": source, "max": mx, "kind": kind, "target": target, "pool": pool,
                            **(extra_ctx or {})})
        return 0 if choice == "none" else int(choice)

    def _bought(self, c: Character, kind: str, ability: str, target: int, ctx: dict, res: CheckResult,
                extra: int, ignore: bool, *, label: str = "") -> Gen:
        label = label or CHECK_KIND_JP.get(kind, "判定")
        dice = 0
        cur = c.current
        if not ((c.main_class == "summoner" and cur.get("soul", 0) >= 1) or c.main_class == "arachne"
                or (kind in SOCIAL_KINDS and cur.get("wealth", 0) >= 1)):
            return 0  # nothing to buy dice with (the pool below is only for the windows' prompts)
        pool = self._pool(c, kind, ability, ctx, extra, ignore)
        # Summoner: soul
        if c.main_class == "summoner" and c.current.get("soul", 0) >= 1:
            n = yield from self._ask_amount(c, "soul", c.current["soul"], kind, target, label, pool,
                                            {"offering": "offering" in c.feats})
            if n:
                self.set_current(c, "soul", c.current["soul"] - n, "§9.2 summoner", "bought dice")
                res.bought["soul"] = n
                dice += n + (FEATS["offering"].summoner_first_die - 1 if "offering" in c.feats else 0)
                if c.current["soul"] == 0:
                    yield from self.zero_trigger(c, "soul", rule="§7.7.3 summoner", special=True)
        # Arachne: life (awakened: AMB-20)
        if c.main_class == "arachne":
            dice += yield from self._arachne(c, kind, target, label, pool + dice, res)
        # wealth: social checks only
        if kind in SOCIAL_KINDS and c.current.get("wealth", 0) >= 1 and not self.action_cancelled(c):
            n = yield from self._ask_amount(c, "wealth", c.current["wealth"], kind, target, label, pool + dice)
            if n:
                self.set_current(c, "wealth", c.current["wealth"] - n, "§5.4 財", "bought dice")
                res.bought["wealth"] = n
                dice += n
        return dice

    def _arachne(self, c: Character, kind: str, target: int, label: str, pool: int, res: CheckResult) -> Gen:
        """The Arachne feature; returns the dice bought."""
        if not c.awakened:
            if c.current.get("life", 0) < 1:
                return 0
            n = yield from self._ask_amount(c, "life", c.current["life"], kind, target, label, pool)
            if n:
                self.set_current(c, "life", c.current["life"] - n, "§9.2 arachne", "bought dice")
                res.bought["life"] = n
                if c.current["life"] == 0:
                    yield from self.zero_trigger(c, "life", rule="§7.7.3 arachne", special=True)
            return n
        # awakened (AMB-20): soul per die, or free up to base life; either way the character becomes doomed (D49)
        if self.cfg.arachne_awakened_payment == "soul":
            mx, source = c.current.get("soul", 0), "soul"
        else:
            mx, source = c.base.get("life", 0), "free"
        if mx < 1:
            return 0
        n = yield from self._ask_amount(c, source, mx, kind, target, label, pool, {"awakened": True, "doom": True})
        if not n:
            return 0
        if not c.doomed:
            ack = yield from self.choose(
                self.controller(c), "ck.doom_ack", "覚醒中にアラクネの力を使うと完全に蟲に成り果てる（シナリオ終了時に死亡）。本当に使う?",
                "§7.8 AMB-20 AMB-21 D49", [("cancel", "やめる"), ("confirm", "使う")], always_ask=True,
                context={"amount": n, "source": source})
            if ack == "cancel":
                return 0
            self.set_flag(c, "doomed", True, "§7.8 AMB-20", "arachne feature while awakened")
        if source == "soul":
            self.set_current(c, "soul", c.current["soul"] - n, "§9.2 arachne AMB-20", "bought dice")
            res.bought["soul"] = n
            if c.current["soul"] == 0:
                yield from self.zero_trigger(c, "soul", rule="§7.8 AMB-20", special=False)
        else:
            res.bought["free"] = n
        return n

    # ==========================================================================================================
    # §5.5 opposed checks
    # ==========================================================================================================
    def opposed(self, active: Character, a_kind: str, a_ability: str | None, passive: Character, p_kind: str,
                p_ability: str | None, *, label: str, rule: str, need_winner: bool = True,
                a_context: dict | None = None, p_context: dict | None = None) -> Gen:
        """§5.5: the active side rolls; if it fails the passive side wins without rolling; else the passive side
        rolls and the effective achievements (ach + 1 on a critical) are compared; a tie goes to the passive side
        (or is a draw when ``need_winner`` is false). Luck windows per ``luck_window`` (AMB-09)."""
        after_both = self.cfg.luck_window == "after_both"
        a_ctx = {**(a_context or {}), "side": "active", "defer_luck": after_both}
        a = yield from self.run_check(active, a_kind, a_ability, 1, label=f"{label}（能動側）", rule=rule,
                                      context=a_ctx)
        if after_both and not a.success and not a.cancelled:
            # nothing to wait for: the passive side would not roll, so the active window is now
            yield from self.luck_step(active, a, label=f"{label}（能動側）", side="active")
        if not a.success:
            self.ctx.check("opposed", rule, {"label": label, "active": active.id, "passive": passive.id,
                                             "a_eff": a.eff, "p_eff": None, "winner": "passive"},
                           result="passive")
            return OpposedResult(a, None, "passive")
        p_ctx = {**(p_context or {}), "side": "passive", "defer_luck": after_both}
        p = yield from self.run_check(passive, p_kind, p_ability, 1, label=f"{label}（受動側）", rule=rule,
                                      context=p_ctx, opponent=a)
        if after_both:
            yield from self.luck_step(active, a, label=f"{label}（能動側）", side="active")
            yield from self.luck_step(passive, p, label=f"{label}（受動側）", side="passive", opponent=a)
        if a.eff > p.eff:
            winner = "active"
        elif a.eff == p.eff:
            winner = "passive" if need_winner else "draw"
        else:
            winner = "passive"
        self.ctx.check("opposed", rule, {"label": label, "active": active.id, "passive": passive.id,
                                         "a_eff": a.eff, "p_eff": p.eff, "winner": winner}, result=winner)
        return OpposedResult(a, p, winner)

    # ==========================================================================================================
    # damage, zero trigger, awakening, healing (§7.7.2, §7.7.3, §7.8, AMB-26, AMB-27, AMB-38)
    # ==========================================================================================================
    def damage(self, c: Character, amount: int, stat: str, *, rule: str, cause: str, special: bool = False) -> Gen:
        """Apply ``amount`` damage to ``stat`` (life | soul); while awakened every damage hits soul (§7.8). A stat
        that becomes 0 runs the zero trigger (normal, or special §7.7.3 when ``special``), in and out of combat
        (AMB-26). Returns the damage applied (``max(0, amount)``; the loss is capped by the current value)."""
        amount = max(0, amount)
        if c.dead or amount == 0:
            return 0 if c.dead else amount
        if c.awakened:
            stat = "soul"
        old = c.current.get(stat, 0)
        new = max(0, old - amount)
        self.set_current(c, stat, new, rule, cause)
        cb = getattr(self, "_cb", None)
        if cb is not None and new < old and self.t.battlefield is not None:
            cb.harm_round = self.t.battlefield.round
        if old > 0 and new == 0 and c.able:
            yield from self.zero_trigger(c, stat, rule=rule, special=special)
        return amount

    def zero_trigger(self, c: Character, stat: str, *, rule: str, special: bool = False) -> Gen:
        """§7.7.2 / §7.7.3: awakened → soul 0 is death; otherwise D44 (awaken | 戦闘不能) when eligible, else 戦闘不能.
        Special zero: 戦闘不能 (awakened: 死亡) with no choice unless ``special_zero_allows_awaken``."""
        if c.dead:
            return None
        if c.awakened:
            if c.current.get("soul", 0) == 0:
                self._die(c, rule)
            return None
        offer = c.awaken_eligible and (not special or self.cfg.special_zero_allows_awaken)
        choice = "incapacitated"
        if offer:
            choice = yield from self.choose(
                self.controller(c), "ck.zero", f"{c.name} の{STAT_JP[stat]}が0になった: 覚醒する?", "§7.7.2 D44",
                [("awaken", "覚醒（アウェイクン）する"), ("incapacitated", "戦闘不能になる")], always_ask=True,
                context={"who": c.id, "stat": stat, "special": special, "soul": c.current.get("soul", 0),
                         "soul_base": c.base.get("soul", 0)})
        if choice == "awaken":
            self.awaken(c, rule)
        else:
            self.set_flag(c, "incapacitated", True, rule, f"{stat} 0")
            self.on_character_down(c)
        return None

    def instant_zero(self, c: Character, *, rule: str, cause: str) -> Gen:
        """痛打表 row 6 (§7.6, AMB-14): life becomes 0 at once and the character is 戦闘不能 (awakened: 死亡); with
        ``special_zero_allows_awaken`` an eligible character may awaken instead (D44)."""
        if c.dead:
            return None
        if c.awakened:
            self.kill(c, rule)
            return None
        self.set_current(c, "life", 0, rule, cause)
        if c.able:
            yield from self.zero_trigger(c, "life", rule=rule, special=True)
        return None

    def _die(self, c: Character, rule: str) -> None:
        self.set_flag(c, "dead", True, rule, "死亡")
        self.on_character_down(c)

    def kill(self, c: Character, rule: str) -> None:
        """死亡 (e.g. 痛打表 row 6 on an awakened character)."""
        if not c.dead:
            self._die(c, rule)

    def knock_out(self, c: Character, rule: str, cause: str) -> None:
        """戦闘不能 without a zero-trigger choice (special effects already resolved by the caller)."""
        if c.awakened:
            self.kill(c, rule)
            return
        if not c.incapacitated and not c.dead:
            self.set_flag(c, "incapacitated", True, rule, cause)
            self.on_character_down(c)

    def awaken(self, c: Character, rule: str) -> None:
        """§7.8: life 0, soul + 1D3 (cap base, AMB-18), every bad status removed, awakened."""
        self.set_current(c, "life", 0, rule, "覚醒")
        gain = self.d3(f"{c.id} 覚醒 1D3")
        soul = c.current.get("soul", 0) + gain
        if self.cfg.awaken_soul_cap == "base":
            soul = min(c.base.get("soul", 0), soul)
        self.set_current(c, "soul", soul, "§7.8 AMB-18", f"覚醒 1D3={gain}")
        for s in list(c.statuses):
            self.remove_status(c, s, rule="§7.8", cause="覚醒")
        self.set_flag(c, "incapacitated", False, rule, "覚醒")
        self.set_flag(c, "awakened", True, rule, "覚醒")
        self.ctx.info("awaken", f"{c.name} は覚醒した（【魂】+{gain}）", who=c.id, d3=gain)

    def heal(self, c: Character, stat: str, amount: int, *, rule: str, cause: str) -> int:
        """Recover ``amount`` of life/soul: nothing while awakened or dead (§7.8), capped at base (heal_cap, AMB-38).
        Releases 戦闘不能 when the healing brings every 0 of life/soul back to ≥ 1 (AMB-27). Returns the amount."""
        if c.dead or c.awakened or amount <= 0:
            return 0
        old = c.current.get(stat, 0)
        new = old + amount
        if self.cfg.heal_cap == "base":
            new = min(new, max(old, c.base.get(stat, 0)))
        self.set_current(c, stat, new, rule, cause)
        healed = new - old
        if healed > 0 and c.incapacitated and c.current.get("life", 0) >= 1 and c.current.get("soul", 0) >= 1:
            self.set_flag(c, "incapacitated", False, "§7.9 AMB-27", cause)
        return healed

    # ==========================================================================================================
    # bad statuses (§7.9)
    # ==========================================================================================================
    def inflict(self, c: Character, status: str, inflicter: str | None, *, rule: str, item: str | None = None) -> None:
        """Give ``c`` a bad status. [HOUSE] no stacking: a present status only records a new inflicter (curse/brand).
        武器封じ records the sealed item uid."""
        if status not in BAD_STATUSES or BAD_STATUSES[status].flag:
            raise ValueError(f"not a bad status: {status!r}")
        if c.dead:
            return
        old = list(c.statuses[status]) if status in c.statuses else None
        if old is None:
            new = [inflicter] if inflicter else []
            c.statuses[status] = new
            self.ctx.state(f"{c.id}.statuses.{status}", None, list(new), rule, f"{STATUS_NAMES[status]}")
            if status == "weapon_sealed":
                self.set_flag(c, "sealed_item", item, rule, "武器封じ")
            return
        if inflicter and inflicter not in old and BAD_STATUSES[status].ends_with_inflicter:
            c.statuses[status] = old + [inflicter]
            self.ctx.state(f"{c.id}.statuses.{status}", old, old + [inflicter], rule, "inflicter added")

    def remove_status(self, c: Character, status: str, *, rule: str, cause: str) -> None:
        if status not in c.statuses:
            return
        old = c.statuses.pop(status)
        self.ctx.state(f"{c.id}.statuses.{status}", list(old), None, rule, cause)
        if status == "weapon_sealed":
            self.set_flag(c, "sealed_item", None, rule, cause)

    def on_character_down(self, c: Character) -> None:
        """§7.9: curse/brand whose inflicter is now 戦闘不能/死亡 lose that inflicter and end when none is left.
        A blockade by the fallen character ends too (《結界》 "ends if … 戦闘不能")."""
        for x in self.t.chars.values():
            for s in ("curse", "brand"):
                inf = x.statuses.get(s)
                if inf and c.id in inf:
                    rest = [i for i in inf if i != c.id]
                    if rest:
                        x.statuses[s] = rest
                        self.ctx.state(f"{x.id}.statuses.{s}", list(inf), list(rest), "§7.9", f"{c.id} down")
                    else:
                        self.remove_status(x, s, rule="§7.9", cause=f"inflicter {c.id} down")
        if c.blockading is not None:
            self.set_flag(c, "blockading", None, "§11.3 ward", "戦闘不能/死亡")

    def release_window(self, inflicter: Character) -> Gen:
        """D45: the inflicter may release curse/brand it inflicted ("any time"; callers open this window at the
        inflicter's own turn). One decision per call; returns the released (target, status) or None."""
        pairs: list[tuple[str, str]] = [("keep", "維持する")]
        for x in self.t.chars.values():
            for s in ("curse", "brand"):
                if inflicter.id in x.statuses.get(s, []):
                    pairs.append((f"release:{x.id}:{s}", f"{x.name} の{STATUS_NAMES[s]}を解く"))
        if len(pairs) == 1:
            return None
        choice = yield from self.choose(self.controller(inflicter), "ck.release_status", "呪詛/刻印を解く?",
                                        "§7.9 D45", pairs, context={"inflicter": inflicter.id})
        if choice == "keep":
            return None
        _, tid, s = choice.split(":")
        x = self.t.chars[tid]
        inf = x.statuses.get(s, [])
        rest = [i for i in inf if i != inflicter.id]
        if rest:
            x.statuses[s] = rest
            self.ctx.state(f"{x.id}.statuses.{s}", list(inf), list(rest), "§7.9 D45", f"released by {inflicter.id}")
        else:
            self.remove_status(x, s, rule="§7.9 D45", cause=f"released by {inflicter.id}")
        return (tid, s)

    # ==========================================================================================================
    # scene end (§7.10.2 steps 1–2)
    # ==========================================================================================================
    def end_of_scene_for(self, c: Character) -> None:
        """Awakening ends with life +1; 戦闘不能 outside combat recovers (0 → 1, AMB-27 HOUSE); bad statuses
        inflicted outside combat end with the scene (AMB-29 HOUSE)."""
        if c.dead:
            return
        if c.awakened:
            self.set_flag(c, "awakened", False, "§7.10.2", "scene end")
            life = c.current.get("life", 0) + 1
            if self.cfg.heal_cap == "base":
                life = min(life, max(1, c.base.get("life", 1)))
            self.set_current(c, "life", life, "§7.8 §7.10.2", "awakening ends")
        if c.incapacitated and self.cfg.incapacitated_outside_combat_release == "scene_end":
            for s in ("life", "soul"):
                if c.current.get(s, 0) == 0:
                    self.set_current(c, s, 1, "§7.10.2 AMB-27", "scene end")
            self.set_flag(c, "incapacitated", False, "§7.10.2 AMB-27", "scene end")
        if self.cfg.bs_clear_at_combat_end:
            for s in list(c.statuses):
                self.remove_status(c, s, rule="§7.10.2 AMB-29", cause="scene end")


def _alloc_id(by_bullets: dict[str, int]) -> str:
    if not by_bullets:
        return "none"
    return "+".join(f"{s}{by_bullets[s]}" for s in _BULLET_PREFERENCE if by_bullets.get(s))


def _alloc_label(by_bullets: dict[str, int]) -> str:
    if not by_bullets:
        return "【弾】を使わない"
    return "【弾】で払う: " + "・".join(f"{STAT_JP[s]}{n}" for s, n in by_bullets.items())
