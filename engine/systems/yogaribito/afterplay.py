"""Scenario end and afterplay (rules/yogaribito.md §7.10.3, §7.11): XP award, deaths, rebuild, growth (D50–D53).

Order (§6 ``afterplay``): ``scenario_end`` (doomed Arachne die, stocked items restored, purchased ones removed,
survivors back to base, statuses cleared) → XP award per player (D50) and the GM's XP → dead PCs and their
replacements (D53, ceil(80 %) of the spent XP) → rebuilds (D52, exactly 100 % of the spent XP) → growth (D51).

XP belongs to a **player** (§7.11.1): PCs are grouped by ``Character.player`` (default: one player per PC). Growth is
a loop of single purchases (``ap.spend``) whose options are exactly the affordable legal purchases, so an illegal
purchase is refused before anything changes; ``done`` ends it and the rest is banked on the PC (``xp_unspent``).
The result's ``campaign`` maps each living PC to its sheet after growth (``creation.sheet_of``), loadable as a
scenario file's ``pcs:`` entry.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from .arms import FEATS, ITEMS
from .base import Gen
from .checks import ChecksMixin
from .creation import (
    CreationMixin, _item_state, character_from_sheet, learnable_feats, occupied_slots, sheet_of, slot_targets,
)
from .data import (
    ABILITY_NAMES, KAGARIBI_MAX, OBJECTIVE_MIN_XP, PRIMARY_ABILITY, SLOTS, XP_CRITERIA, death_xp, gm_xp,
    raise_cost,
)
from .state import SLOT_IDS, Character

__all__ = ["AfterplayMixin", "XPAward", "GROWTH_STATS"]

#: what XP may raise, in prompt order (bullets: Witch Hunters; 燎 only with xp_can_raise_kagaribi)
GROWTH_STATS = ("mind", "tech", "body", "life", "soul", "luck", "wealth", "bullets", "kagaribi")


class XPAward(BaseModel):
    """D50: one player's XP: the four 0/1 criteria and the objective (0, or 5 or more)."""

    model_config = ConfigDict(extra="forbid")

    active: int = Field(ge=0, le=1, description="セッション中に活躍した")
    helped_pc: int = Field(ge=0, le=1, description="セッション中に他のPCを助けた")
    helped_session: int = Field(ge=0, le=1, description="セッションの進行を助けた")
    scheduling: int = Field(ge=0, le=1, description="スケジュールを調整したりセッション開催に協力してくれた")
    objective: int = Field(ge=0, le=50, description="シナリオの目的を達成した: 0, or 5 or more")

    @property
    def total(self) -> int:
        return self.active + self.helped_pc + self.helped_session + self.scheduling + self.objective


class AfterplayMixin(CreationMixin, ChecksMixin):
    # ==========================================================================================================
    # §7.10.3 scenario end
    # ==========================================================================================================
    def scenario_end(self) -> None:
        """Doomed Arachne die as PCs (AMB-21); stocked items restored and other items removed; surviving PCs back to
        base (life, soul, luck, wealth, bullets; mind/tech/body too); every status and combat state cleared."""
        rule = "§7.10.3"
        for c in self.t.pcs():
            if c.doomed and not c.dead:
                self.set_flag(c, "dead", True, f"{rule}, AMB-21", "doomed Arachne dies as a PC")
        for c in self.t.chars.values():
            for st in list(c.statuses):
                self.remove_status(c, st, rule=rule, cause="scenario end")
        for c in self.t.pcs():
            self._restore_items(c, rule)
            for attr, value in (("awakened", False), ("flying", False), ("blockading", None), ("legs_broken", False),
                                ("delaying", False), ("psychic_focus", 0), ("attacks_received_this_round", 0),
                                ("sealed_item", None), ("in_scene", False), ("social_check_used", False)):
                self.set_flag(c, attr, value, rule, "scenario end")
            if c.effects:
                self.set_flag(c, "effects", [], rule, "scenario end")
            for attr in ("uses_round", "uses_scene", "uses_scenario"):
                if getattr(c, attr):
                    self.set_flag(c, attr, {}, rule, "scenario end")
            if not all(c.slots_usable.get(s, True) for s in SLOT_IDS):
                self.set_flag(c, "slots_usable", {s: True for s in SLOT_IDS}, rule, "痛打表 effects end")
            if c.dead:
                continue
            self.set_flag(c, "incapacitated", False, rule, "survivor restored")
            for stat, v in c.base.items():
                if stat != "kagaribi":
                    self.set_current(c, stat, v, rule, "survivor restored to base (アフタープレイ)")

    def _stocked(self, c: Character) -> list[dict[str, Any]]:
        """The PC's stocked items (item, assigned slot): the creation record, kept up to date by growth; a PC made
        without one (raw setup values) stocks the items it holds as ``stocked``."""
        if "stocked" not in c.creation:
            c.creation["stocked"] = [{"item": it.item, "slot": it.slot} for it in c.items
                                     if it.origin == "stocked" and it.item in ITEMS]
        stocked: list[dict[str, Any]] = c.creation["stocked"]
        return stocked

    def _restore_items(self, c: Character, rule: str, cause: str = "stocked items restored, others removed") -> None:
        counts: Counter[str] = Counter()
        new = [_item_state(s["item"], s.get("slot"), counts) for s in self._stocked(c)]
        old = [it.snap() for it in c.items]
        if old != [it.snap() for it in new]:
            c.items = new
            self.ctx.state(f"{c.id}.items", old, [it.snap() for it in new], rule, cause)

    # ==========================================================================================================
    # §7.11 afterplay
    # ==========================================================================================================
    def players(self) -> dict[str, list[Character]]:
        """Player → PCs in roster order (``Character.player``, default one player per PC)."""
        out: dict[str, list[Character]] = {}
        for c in self.t.pcs():
            out.setdefault(c.player or c.id, []).append(c)
        return out

    def afterplay(self, objective_achieved: bool) -> Gen:
        """§7.11 (D50–D53); returns ``{"xp", "gm_xp", "dead", "death_xp", "replacements", "rebuilt", "spent",
        "banked", "unbanked", "campaign"}``."""
        groups = self.players()
        seat: dict[str, str] = {c.id: c.id for c in self.t.pcs()}
        # -- D50 XP award (per player) and the GM's XP ---------------------------------------------------------------
        xp: dict[str, int] = {}
        for player, pcs in groups.items():
            xp[player] = yield from self._award(player, pcs, objective_achieved)
        gm = gm_xp(list(xp.values()))
        self.ctx.state("xp.gm", None, gm, "§7.11.1, AMB-42",
                       f"N = {len(xp)}: " + ("Σ + 1" if len(xp) == 1 else f"ceil({sum(xp.values())} / {len(xp) - 1})"))
        # -- deaths and replacements (D53) -----------------------------------------------------------------------------
        dead = [c for c in self.t.pcs() if c.dead]
        grants: dict[str, int] = {}
        replacements: dict[str, str] = {}
        for c in dead:
            grant = death_xp(c.xp_spent)
            grants[c.id] = grant
            ch = yield from self.choose(
                c.id, "ap.replacement", f"{c.name} は死亡した。使用経験点 {c.xp_spent} の八割 {grant} 点で新しいPCを作る?",
                "§7.11.4 D53", [("create", f"新しいキャラクターを作る ({grant} 点)"), ("none", "作らない")],
                context={"dead": c.id, "xp_spent": c.xp_spent, "grant": grant,
                         "main_class": c.main_class, "sub_class": c.sub_class}, always_ask=True)
            if ch != "create":
                continue
            nid = self._new_pc_id(c.id)
            nc = yield from self.create_character(nid, actor=c.id, suggested={"main": c.main_class or "adept",
                                                                               "sub": c.sub_class or "adept"})
            nc.player = c.player or c.id
            self.t.chars[nid] = nc
            self.ctx.state(f"{nid}.xp_unspent", 0, grant, "§7.11.4", f"replacement for {c.id}")
            nc.xp_unspent = grant
            groups.setdefault(nc.player, []).append(nc)
            seat[nid] = c.id
            replacements[c.id] = nid
        # -- rebuilds (D52) ----------------------------------------------------------------------------------------------
        rebuilt: list[str] = []
        for c in [x for x in self.t.pcs() if not x.dead and x.xp_spent > 0]:
            ch = yield from self.choose(
                seat.get(c.id, c.id), "ap.rebuild", f"{c.name}: リビルドする? (使用経験点 {c.xp_spent} 点をすべて使い直す)",
                "§7.11.3 D52", [("keep", "リビルドしない"), ("rebuild", "リビルドする")],
                context={"pc": c.id, "xp_spent": c.xp_spent}, always_ask=True)
            if ch == "rebuild":
                yield from self.rebuild(c, actor=seat.get(c.id, c.id))
                rebuilt.append(c.id)
        # -- growth (D51) --------------------------------------------------------------------------------------------------
        spent: dict[str, int] = {}
        banked: dict[str, int] = {}
        unbanked: dict[str, int] = {}
        for player, pcs in groups.items():
            pool = xp.get(player, 0)
            living = [c for c in pcs if not c.dead]
            for c in living:
                before = c.xp_spent
                pool = yield from self.spend_xp(c, pool, actor=seat.get(c.id, c.id))
                spent[c.id] = c.xp_spent - before
            if pool and living:
                keeper = living[0]
                self.ctx.state(f"{keeper.id}.xp_unspent", keeper.xp_unspent, keeper.xp_unspent + pool, "§7.11.2 D51",
                               f"player {player}: unspent XP banked")
                keeper.xp_unspent += pool
            elif pool:
                unbanked[player] = pool
            for c in living:
                banked[c.id] = c.xp_unspent
        living_pcs = [c for c in self.t.pcs() if not c.dead]
        campaign = {c.id: sheet_of(c) for c in living_pcs if "dice" in c.creation}
        out = {"xp": xp, "gm_xp": gm, "dead": [c.id for c in dead], "death_xp": grants,
               "replacements": replacements, "rebuilt": rebuilt, "spent": spent, "banked": banked,
               "unbanked": unbanked, "campaign": campaign,
               "players": {player: [c.id for c in pcs] for player, pcs in groups.items()},
               "campaign_missing": [c.id for c in living_pcs if c.id not in campaign]}
        self.ctx.info("afterplay", "アフタープレイ", xp=dict(xp), gm_xp=gm, dead=[c.id for c in dead],
                      replacements=dict(replacements))
        return out

    def _award(self, player: str, pcs: list[Character], objective_achieved: bool) -> Gen:
        sc = getattr(self, "sc", None)
        suggested = max(OBJECTIVE_MIN_XP, int(getattr(sc, "objective_xp", OBJECTIVE_MIN_XP) or OBJECTIVE_MIN_XP))

        def check(p: BaseModel) -> str | None:
            assert isinstance(p, XPAward)
            if not objective_achieved and p.objective:
                return "objective: the scenario objective was not achieved: 0 XP for it (§7.11.1 D50)"
            if 0 < p.objective < OBJECTIVE_MIN_XP:
                return f"objective: 0, or {OBJECTIVE_MIN_XP} or more (「シナリオの目的を達成した：５～」, §7.11.1 D50)"
            return None

        default = {"active": 1, "helped_pc": 1, "helped_session": 1, "scheduling": 1,
                   "objective": suggested if objective_achieved else 0}
        names = ", ".join(c.name for c in pcs)
        award = yield from self.ask_payload(
            "gm", "ap.xp_award", f"プレイヤー {player} ({names}) の経験点", "§7.11.1 D50", XPAward, check,
            context={"player": player, "pcs": [c.id for c in pcs], "objective_achieved": objective_achieved,
                     "objective_xp": suggested, "criteria": [{"id": x.id, "name": x.name, "xp": x.xp}
                                                             for x in XP_CRITERIA]}, samples=[default, {**default, "helped_pc": 0}])
        total = award.total
        self.ctx.state(f"xp.{player}", None, total, "§7.11.1 D50", str(award.model_dump()))
        return total

    def _new_pc_id(self, dead_id: str) -> str:
        k = 2
        while f"{dead_id}_{k}" in self.t.chars:
            k += 1
        return f"{dead_id}_{k}"

    # ==========================================================================================================
    # D52 rebuild
    # ==========================================================================================================
    def rebuild(self, c: Character, *, actor: str | None = None) -> Gen:
        """§7.11.3: re-create from the assignment (D02) onward — the rolled array kept
        (``rebuild_keep_ability_dice``) or rolled anew — keeping identity, lifepath and personal data; then spend
        exactly the XP spent before (D51 with an exact budget). Unspent banked XP stays banked."""
        who = actor or c.id
        budget = c.xp_spent
        keep = self.cfg.rebuild_keep_ability_dice and "dice" in c.creation
        hints = self._creation_hints()
        sheet = yield from self._build(c.id, who, c.main_class or "adept", c.sub_class, hints,
                                       dice=list(c.creation["dice"]) if keep else None,
                                       fallback=bool(c.creation.get("fallback")) if keep else None)
        old = sheet_of(c) if "dice" in c.creation else c.snap()
        sheet["name"] = c.name
        for k in ("gender", "age"):
            if c.creation.get(k):
                sheet[k] = c.creation[k]
        if c.profile:
            sheet["profile"] = c.profile
        if c.lifepath:
            sheet["lifepath"] = dict(c.lifepath)
        if c.player:
            sheet["player"] = c.player
        new = character_from_sheet(sheet, cfg=self.cfg)
        for attr in ("main_class", "sub_class", "base", "current", "feats", "items", "shaman_patron", "creation",
                     "awaken_eligible", "slots_used_this_scenario"):
            setattr(c, attr, getattr(new, attr))
        xp_unspent = c.xp_unspent
        c.xp_spent = 0
        c.stock_points = 0
        self.ctx.state(f"{c.id}.sheet", old, sheet_of(c), "§7.11.3 D52", "rebuild")
        yield from self.spend_xp(c, 0, actor=who, exact=budget)
        c.xp_unspent = xp_unspent
        return c

    # ==========================================================================================================
    # D51 spending
    # ==========================================================================================================
    def _growth(self, c: Character) -> dict[str, Any]:
        g: dict[str, Any] = c.creation.setdefault("growth", {})
        g.setdefault("raises", {})
        g.setdefault("feats", [])
        g.setdefault("item_xp", 0)
        return g

    def _spend_options(self, c: Character, avail: int, banked: int, returnable: list[int]
                       ) -> tuple[list[tuple[str, str]], dict[str, str], dict[str, int]]:
        pairs: list[tuple[str, str]] = []
        refused: dict[str, str] = {}
        costs: dict[str, int] = {}
        rfz = self.cfg.raise_from_zero_cost
        for stat in GROWTH_STATS:
            oid = f"raise:{stat}"
            if stat == "bullets" and "bullets" not in c.base:
                refused[oid] = "【弾】を持つのはウィッチハンターだけ (§7.11.2)"
                continue
            if stat == "kagaribi" and not self.cfg.xp_can_raise_kagaribi:
                refused[oid] = "【燎】は経験点で上げられない (xp_can_raise_kagaribi=false, AMB-05)"
                continue
            b = c.base.get(stat, KAGARIBI_MAX if stat == "kagaribi" else 0)
            cost = raise_cost(b, rfz)
            if cost > avail:
                refused[oid] = f"{ABILITY_NAMES[stat]} {b}→{b + 1} には経験点{cost}点が必要（使えるのは{avail}点） (§7.11.2)"
                continue
            pairs.append((oid, f"{ABILITY_NAMES[stat]} {b}→{b + 1} ({cost}点)"))
            costs[oid] = cost
        main, sub = c.main_class or "adept", c.sub_class or c.main_class or "adept"
        for fid, cost in learnable_feats(main, sub, c.feats):
            oid = f"feat:{fid}"
            if cost > avail:
                refused[oid] = f"{FEATS[fid].name} の習得には経験点{cost}点が必要（使えるのは{avail}点） (§7.11.2)"
                continue
            pairs.append((oid, f"{FEATS[fid].name} を習得 ({cost}点)"))
            costs[oid] = cost
        for fid in c.feats:
            refused[f"feat:{fid}"] = "習得済み（同じ特技は二度取れない） (§3.1 step 5)"
        stocked = self._stocked(c)
        used = set(occupied_slots([(s["item"], s.get("slot")) for s in stocked]))
        for item in ITEMS.values():
            if item.stock is None:
                continue
            xp_part = max(0, item.stock - banked)
            targets: list[str | None] = [None]
            for target in slot_targets(item.id):
                need = ("right_hand", "left_hand") if item.slots == "two_hands" else (target,)
                if not used & set(need):
                    targets.append(target)
            for slot in targets:
                oid = f"item:{item.id}:{slot or 'carried'}"
                where = SLOTS[slot].name if slot else "携帯"
                if xp_part > avail:
                    refused[oid] = (f"{item.name} の常備化には{item.stock}点が必要（保存した常備化ポイント{banked}点、"
                                    f"使える経験点{avail}点） (§7.11.2)")
                    continue
                pairs.append((oid, f"{item.name} を常備化 ({where}; 常備化 {item.stock}: 経験点 {xp_part}"
                                   f"{f' + 常備化ポイント {item.stock - xp_part}' if item.stock - xp_part else ''})"))
                costs[oid] = xp_part
        copies = Counter((stocked[k]["item"], stocked[k].get("slot")) for k in returnable)
        nth: Counter[tuple[str, str | None]] = Counter()
        for k in returnable:
            s = stocked[k]
            oid = f"return:{k}:{s['item']}"
            where = SLOTS[s["slot"]].name if s.get("slot") else "携帯"
            key = (s["item"], s.get("slot"))
            nth[key] += 1
            copy = f" #{nth[key]}" if copies[key] > 1 else ""  # two copies of one item: the options differ
            pairs.append((oid, f"{ITEMS[s['item']].name}{copy} ({where}) を常備化ポイントに戻す (+{ITEMS[s['item']].stock})"))
            costs[oid] = 0
        return pairs, refused, costs

    def spend_xp(self, c: Character, pool: int, *, actor: str | None = None, exact: int | None = None) -> Gen:
        """D51 for one PC: single purchases until ``done``. Normal growth spends the PC's banked XP first, then the
        player's ``pool``; returns what is left of the pool. ``exact`` (a rebuild): a budget that must be spent to
        the last point (``done`` only at 0), independent of banked XP and pool.

        Items: paid with banked stock points first (AMB-40), the rest in XP; stocked items owned before this
        afterplay may be returned to stock points ([HOUSE] an item stocked now cannot be returned in the same
        afterplay, so the loop always ends). Leftover stock points are kept (``banked``) or dropped (``lost``)."""
        who = actor or c.id
        rule = "§7.11.2 D51"
        g = self._growth(c)
        stocked = self._stocked(c)
        original = Counter((s["item"], s.get("slot")) for s in stocked)
        remaining = exact
        primary = PRIMARY_ABILITY.get(c.main_class or "adept", "body")
        while True:
            avail = remaining if remaining is not None else c.xp_unspent + pool
            returnable: list[int] = []
            seen: Counter[tuple[str, Any]] = Counter()
            for k, s in enumerate(stocked):
                key = (s["item"], s.get("slot"))
                if seen[key] < original[key]:
                    returnable.append(k)
                seen[key] += 1
            pairs, refused, costs = self._spend_options(c, avail, c.stock_points, returnable)
            if remaining is None or remaining == 0:
                pairs.insert(0, ("done", "終了する" + (f" (残り {avail} 点は保存)" if avail else "")))
            else:
                refused["done"] = f"作り直しでは経験点{exact}点をちょうど使い切る: 残り{remaining}点 (§7.11.3 D52)"
            ch = yield from self.choose(
                who, "ap.spend", f"{c.name}: 経験点の使い道 (使える経験点 {avail})", rule, pairs,
                context={"pc": c.id, "available": avail, "exact": remaining is not None, "primary": primary,
                         "costs": costs, "stock_points": c.stock_points}, refused=refused)
            if ch == "done":
                break
            cost = costs[ch]
            kind, _, rest = ch.partition(":")
            if kind == "raise":
                stat = rest
                b = c.base.get(stat, KAGARIBI_MAX if stat == "kagaribi" else 0)
                self.set_base(c, stat, b + 1, rule, f"{cost} XP")
                if stat != "kagaribi":
                    self.set_current(c, stat, c.current.get(stat, 0) + 1, rule, "raised")
                g["raises"][stat] = g["raises"].get(stat, 0) + 1
                if stat == "tech" and self.cfg.stock_points_recalc_on_growth:
                    self.set_flag(c, "stock_points", c.stock_points + 1, "AMB-04", "stock_points_recalc_on_growth")
            elif kind == "feat":
                self.set_flag(c, "feats", [*c.feats, rest], rule, f"{cost} XP")
                g["feats"].append(rest)
            elif kind == "item":
                item, _, slot = rest.partition(":")
                from_points = ITEMS[item].stock - cost  # type: ignore[operator]
                if from_points:
                    self.set_flag(c, "stock_points", c.stock_points - from_points, f"{rule}, AMB-40",
                                  "banked stock points used")
                stocked.append({"item": item, "slot": None if slot == "carried" else slot})
                g["item_xp"] += cost
                self._restore_items(c, rule, f"stocked {item}")
            else:  # return
                k = int(rest.split(":", 1)[0])
                s = stocked.pop(k)
                original[(s["item"], s.get("slot"))] -= 1
                self.set_flag(c, "stock_points", c.stock_points + (ITEMS[s["item"]].stock or 0), f"{rule}, AMB-40",
                              f"{s['item']} returned to stock points")
                self._restore_items(c, rule, f"returned {s['item']}")
            if cost:
                self.set_flag(c, "xp_spent", c.xp_spent + cost, rule, ch)
                if remaining is not None:
                    remaining -= cost
                else:
                    from_bank = min(c.xp_unspent, cost)
                    if from_bank:
                        self.set_flag(c, "xp_unspent", c.xp_unspent - from_bank, rule, ch)
                    pool -= cost - from_bank
        if self.cfg.returned_stock_points == "lost" and c.stock_points:
            self.set_flag(c, "stock_points", 0, "§7.11.2, AMB-40", "returned_stock_points=lost")
        return pool

