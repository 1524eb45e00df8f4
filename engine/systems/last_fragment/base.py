"""What every ラストフラグメント rules mixin shares (rules/last_fragment.md): one way to ask, logged state changes,
levels, dice, and the check of §5.1 with its consequences (fumble table §9.2, abnormalities §7.7, items §7.6,
fragments §7.5, bonds §7.4).

``LastFragmentGame`` (game.py) = ``GameBase`` + ``ScenesMixin`` (scenes.py, §6 main phase, §7.1–§7.5) +
``CombatMixin`` (combat.py, §7.8–§7.10). Every decision goes through ``engine.core.ask``, every die through
``self.ctx.dice`` and every change of the table through the logged setters, so that a log replays exactly.
"""

from __future__ import annotations

import re
from collections.abc import Generator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ...core import ask
from ...core.decision import Label
from ...core.events import CheckRoll
from ...core.visibility import GM
from .config import LastFragmentConfig
from .data import BOND_NAMES, BOND_TABLE, CATEGORY_NAMES, FUMBLE_TABLE, RESULT, RESULT_NAMES
from .scenario import PC_REF, LastFragmentScenario
from .state import Abn, Char, Table
from .tables import Tables

if TYPE_CHECKING:
    from ...core.machine import FlowState
    from ...core.session import GameContext

__all__ = ["Gen", "GameBase", "DICE_RE"]

Gen = Generator[Any, Any, Any]
DICE_RE = re.compile(r"^(\d+)(?:D(\d+))?(?:\+(\d+))?$")
SUCCESS = ("success", "critical", "auto_success")


class GameBase:
    ctx: GameContext
    cfg: LastFragmentConfig
    sc: LastFragmentScenario
    t: Table
    tb: Tables
    check_m: FlowState
    #: the result of the last check (worked examples read it)
    last_result: str | None = None

    # -- decisions ---------------------------------------------------------------------------------------------
    def choose(self, actor: str, kind: str, prompt: str, rule: str, pairs: Sequence[tuple[str, Label]],
               context: Mapping[str, Any] | None = None, refused: Mapping[str, str] | None = None,
               always_ask: bool = False) -> Gen:
        return ask.choose(actor, kind, prompt, rule, pairs, context=context, refused=refused, always_ask=always_ask,
                          ctx=self.ctx)

    def choose_many(self, actor: str, kind: str, prompt: str, rule: str, pairs: Sequence[tuple[str, Label]],
                    lo: int, hi: int, context: Mapping[str, Any] | None = None) -> Gen:
        return ask.choose_many(actor, kind, prompt, rule, pairs, lo, hi, context=context, ctx=self.ctx)

    # -- names -------------------------------------------------------------------------------------------------
    def who(self, cid: str) -> str:
        if cid == GM:
            return "語り部"
        c = self.t.chars.get(cid)
        return c.name if c is not None else cid

    def aname(self, a: str) -> str:
        return self.tb.name(a)

    @staticmethod
    def iname(items: list[str], i: int) -> str:
        """An item as an option reads it: 「name」, numbered when the inventory holds the name twice."""
        n = items[i]
        return f"「{n}」" + (f"（{i + 1}番目）" if items.count(n) > 1 else "")

    def fname(self, fid: str) -> str:
        f = self.frag.get(fid)
        return f.name if f is not None else fid

    # -- logged state changes ----------------------------------------------------------------------------------
    def set_attr(self, c: Char, attr: str, new: Any, rule: str, cause: str = "") -> None:
        old = getattr(c, attr)
        if new != old:
            setattr(c, attr, new)
            self.ctx.state(f"{c.id}.{attr}", old if not isinstance(old, list) else list(old),
                           new if not isinstance(new, list) else list(new), rule, cause)

    def set_t(self, attr: str, new: Any, rule: str, cause: str = "") -> None:
        old = getattr(self.t, attr)
        if new != old:
            setattr(self.t, attr, new)
            self.ctx.state(f"table.{attr}", old if not isinstance(old, list) else list(old),
                           new if not isinstance(new, list) else list(new), rule, cause)

    def lose_hp(self, c: Char, n: int, rule: str, cause: str = "") -> None:
        self.set_attr(c, "hp", max(0, c.hp - n), rule, cause)
        if c.hp <= 0 and not c.incapacitated:
            self.set_attr(c, "incapacitated", True, "§7.9.6 行動不能 (HP ≤ 0)", cause)
            self.ctx.narrate(GM, f"{c.name} は行動不能になった。", "rules")

    def heal(self, c: Char, n: int, rule: str, cause: str = "") -> None:
        if not c.incapacitated:
            self.set_attr(c, "hp", min(c.max_hp, c.hp + n), rule, cause)

    def revive(self, c: Char, hp: int, rule: str) -> None:
        self.set_attr(c, "incapacitated", False, rule)
        self.set_attr(c, "hp", min(c.max_hp, max(1, hp)), rule)
        self.ctx.narrate(GM, f"{c.name} は行動不能から復帰した（HP {c.hp}）。", "rules")

    # -- levels ------------------------------------------------------------------------------------------------
    def level(self, c: Char, a: str) -> int:
        """§3: a bought level; a 異能 is its row's 能力 + 知識 (an NPC may give its 異能 level)."""
        if a in c.abilities:
            return c.abilities[a]
        if self.tb.category(a) == "inou":
            n, k = self.tb.inou_parts(a)
            return c.abilities.get(n, 0) + c.abilities.get(k, 0)
        return 0

    def legal_abilities(self, scene_type: str) -> list[str]:
        """Abilities a check may designate in a scene of this type (daily: 能力/知識 only, AMB-37)."""
        return [a for a in self.tb.order if scene_type != "daily" or self.tb.category(a) != "inou"]

    def options_for(self, designated: str, scene_type: str) -> list[str]:
        out = [designated]
        if scene_type == "nondaily" and self.tb.category(designated) != "inou":
            out.append(self.tb.row_inou(designated))
        return out

    def main_phase(self) -> bool:
        return self.t.phase == "main"

    def drawbacks(self, c: Char) -> list[str]:
        if not (self.cfg.house_abnormality_drawbacks and self.main_phase()):
            return []
        return [self.tb.abn[a.id]["drawback"] for a in c.abnormalities if a.id in self.tb.abn]

    def penalty(self, c: Char, ability: str, drawbacks: list[str] | None = None) -> int:
        """§9.8 HOUSE drawbacks (main phase only): −1 die each (``drawbacks``: ``c``'s, when the caller has them)."""
        if drawbacks is None:
            drawbacks = self.drawbacks(c)
        if not drawbacks:
            return 0
        n = 0
        mine = f"penalty({self.tb.category(ability)})"
        daily = self.t.scene_type == "daily"
        for d in drawbacks:
            if d == mine or d == "penalty_all" or (d == "penalty_daily" and daily):
                n += 1
        return n

    def effective(self, c: Char, designated: str, scene_type: str, drawbacks: list[str] | None = None) -> int:
        """The dice a check would roll before tokens: the best legal ability, minus drawbacks (``drawbacks``:
        ``c``'s, when the caller asks for several abilities)."""
        if drawbacks is None:
            drawbacks = self.drawbacks(c)
        best = 0
        for a in self.options_for(designated, scene_type):
            n = self.level(c, a) - (self.penalty(c, a, drawbacks) if drawbacks else 0)
            if n > best:
                best = n
        return best

    def effective_all(self, c: Char, scene_type: str, drawbacks: list[str] | None = None) -> dict[str, int]:
        """``effective(c, a, scene_type)`` for every ability ``a`` a check may designate in this scene type
        (``legal_abilities``, in list order; §3 levels, §5.1 the designated ability or its row's 異能, AMB-37, §9.8
        HOUSE drawbacks). Each level is read once; ``effective`` ability by ability reads a row's
        異能 again for its 能力 and its 知識."""
        if drawbacks is None:
            drawbacks = self.drawbacks(c)
        tb = self.tb
        where = tb.where
        daily = scene_type == "daily"
        nondaily = scene_type == "nondaily"
        lv: dict[str, int] = {}
        for a in tb.order:
            if daily and where[a][1] == "inou":
                continue
            lv[a] = self.level(c, a) - (self.penalty(c, a, drawbacks) if drawbacks else 0)
        out: dict[str, int] = {}
        for a, n in lv.items():
            if nondaily and where[a][1] != "inou":
                m = lv[tb.row_inou(a)]
                if m > n:
                    n = m
            out[a] = n if n > 0 else 0
        return out

    # -- dice --------------------------------------------------------------------------------------------------
    def d4(self, purpose: str) -> int:
        return self.ctx.dice.roll(4, purpose)

    def roll_expr(self, expr: str, purpose: str) -> tuple[int, list[int]]:
        """A number or dice (1D4+1, 2D4): the total and the faces."""
        m = DICE_RE.match(expr.strip().lstrip("+").upper())
        if m is None:
            raise ValueError(f"not dice: {expr!r}")
        n, sides, plus = int(m.group(1)), m.group(2), int(m.group(3) or 0)
        if sides is None:
            return n + plus, []
        faces = [self.ctx.dice.roll(int(sides), purpose) for _ in range(n)]
        return sum(faces) + plus, faces

    # -- the check (§5.1) --------------------------------------------------------------------------------------
    def check(self, c: Char, kind: str, designated: str, *, rule: str, target: str = "", label: str = "",
              allow_item: bool = True) -> Gen:
        """§5.1 resolve_check: item request (investigation, shock, bond), ability, tokens, roll, token gain.
        Returns {result, dice, ability, pool, tokens, item, success, critical, cid}. The caller applies the kind's
        consequence, then ``after_check`` (the fumble table)."""
        st = self.t.scene_type
        out: dict[str, Any] = {"who": c.id, "kind": kind, "designated": designated, "item": None, "tokens": 0,
                               "dice": [], "ability": designated, "pool": 0}
        what = label or f"{self.aname(designated)}の{KIND_NAMES[kind]}"
        if st == "daily" and self.tb.category(designated) == "inou":
            # AMB-37: no 異能 check in a daily scene (e.g. an NPC's info designating one): a failure without dice
            self.ctx.narrate(GM, f"日常シーンでは異能（{self.aname(designated)}）の判定はできない。", "rules")
            out.update(result="auto_fail", success=False, critical=False)
            self.check_m.fire("begin_skill")
            self.check_m.fire("chosen")
            self.check_m.fire("auto_fail")
            out["cid"] = self._record(c, kind, out, what, target)
            self.check_m.fire("done")
            return out
        if kind in ("investigation", "shock", "bond"):
            self.check_m.fire("begin")
            if allow_item:
                used = yield from self.item_requests(c, kind, designated, what)
                if used is not None:
                    out.update(result="auto_success", item=used, success=True, critical=False)
                    self.check_m.fire("item_used")
                    out["cid"] = self._record(c, kind, out, what, target)
                    self.check_m.fire("done")
                    return out
            self.check_m.fire("no_item")
        else:
            self.check_m.fire("begin_skill")
        opts = self.options_for(designated, st)
        pairs = [(a, f"{self.aname(a)}（{CATEGORY_NAMES[self.tb.category(a)]} Lv{self.level(c, a)}"
                     + (f"、異常性で−{self.penalty(c, a)}" if self.penalty(c, a) else "") + "）") for a in opts]
        ability = yield from self.choose(c.id, "ck.ability_choice", f"{what}: 使うアビリティ", "§5.1 右端の異能",
                                         pairs, context={"check": kind, "designated": designated,
                                                         "levels": {a: self.level(c, a) - self.penalty(c, a) for a in opts}})
        self.check_m.fire("chosen")
        base = max(0, self.level(c, ability) - self.penalty(c, ability))
        bonus = c.dice_bonus if kind == "skill" else 0
        cap = c.tokens if self.cfg.max_tokens_per_check is None else min(c.tokens, self.cfg.max_tokens_per_check)
        k = 0
        if cap > 0:
            pairs = [(str(i), f"トークンを{i}個使う（{base + bonus + i}個のダイス）") for i in range(cap + 1)]
            k = int((yield from self.choose(c.id, "ck.token_spend", f"{what}: トークンを使う?", "§5.1 トークン (AMB-1)",
                                            pairs, context={"check": kind, "dice": base + bonus, "tokens": c.tokens})))
        if k:
            self.set_attr(c, "tokens", c.tokens - k, "§5.1 トークンの消費 (AMB-1)", what)
        if bonus:
            self.set_attr(c, "dice_bonus", 0, "§9.8 dice(+n) ダート", what)
        n = base + k + bonus
        out.update(ability=ability, tokens=k, pool=n)
        if n <= 0:
            out.update(result="auto_fail", success=False, critical=False)
            self.check_m.fire("auto_fail")
        else:
            self.check_m.fire("pool")
            faces = self.ctx.dice.pool(n, f"{c.id} {what}", sides=4)
            res = RESULT[max(faces)]
            out.update(dice=faces, result=res, success=res in SUCCESS, critical=res == "critical")
            self.check_m.fire("rolled")
        out["cid"] = self._record(c, kind, out, what, target)
        self.check_m.fire("done")
        if out["critical"] and kind in ("investigation", "bond", "shock"):
            if "no_token" in self.drawbacks(c):
                self.ctx.narrate(GM, f"{c.name} は異常性のためトークンを得られない。", "rules")
            else:
                self.set_attr(c, "tokens", c.tokens + 1, "§5.1 クリティカルでトークン +1", what)
        return out

    def item_requests(self, c: Char, kind: str, designated: str, what: str) -> Gen:
        """§7.6 check_item_request before an investigation, shock or bond check: the roller may ask the GM to let an
        item make the check an automatic success; the approved item is lost, a refused one returns (AMB-21: at most
        ``item_requests_per_check`` requests, a refused item is not asked for again). With ``item_use_on_others``
        (AMB-22) the roller may also ask another present character, who can act, to use one of its items
        (``ck.item_lend``, then the GM). Returns the name of the item used, or None."""
        st = self.t.scene_type
        limit = self.cfg.item_requests_per_check
        requests = 0
        refused: list[tuple[str, str]] = []  # (owner, item name) not to be offered again in this check
        while limit is None or requests < limit:
            pairs: list[tuple[str, Label]] = [("none", "使わない")]
            pairs += [(f"item:{i}", f"{self.iname(c.items, i)}を使う（自動成功）") for i in range(len(c.items))
                      if (c.id, c.items[i]) not in refused]
            if self.cfg.item_use_on_others:
                for o in self.appearing():
                    if o is c or o.incapacitated or o.withdrawn:
                        continue
                    pairs += [(f"lend:{o.id}:{i}", f"{o.name} の{self.iname(o.items, i)}を使ってもらう（自動成功）")
                              for i in range(len(o.items)) if (o.id, o.items[i]) not in refused]
            if len(pairs) == 1:
                return None
            dice_now = self.effective(c, designated, st) + c.tokens
            ch = yield from self.choose(
                c.id, "ck.item_request", f"{what}: アイテムを使って自動成功にする?", "§7.6 アイテム", pairs,
                context={"check": kind, "designated": designated, "effective_dice": self.effective(c, designated, st),
                         "tokens": c.tokens, "dice_with_tokens": dice_now, "abnormality_level": c.abnormality_level,
                         "items": list(c.items), **({"requests": requests} if requests else {})})
            if ch == "none":
                return None
            owner = c
            if ch.startswith("lend:"):
                _, oid, i = ch.split(":")
                owner = self.t.chars[oid]
                name = owner.items[int(i)]
                ok = yield from self.choose(owner.id, "ck.item_lend", f"{c.name} の{what}に「{name}」を使う?",
                                            "§7.6 アイテム (AMB-22 item_use_on_others)",
                                            [("accept", "使う（アイテムは失われる）"), ("refuse", "使わない")],
                                            context={"roller": c.id, "item": name, "check": kind,
                                                     "hostile": owner.hostile}, always_ask=True)
                if ok != "accept":
                    self.ctx.narrate(GM, f"{owner.name} は「{name}」を使わなかった。", "rules")
                    refused.append((owner.id, name))
                    continue
            else:
                name = c.items[int(ch.split(":")[1])]
            requests += 1
            by = "" if owner is c else f"（{owner.name} のアイテム）"
            v = yield from ask.approve(
                self.ctx, "gm", "gm.item_approval", name, f"{c.name} が「{name}」{by}で{what}を自動成功にしたい。認める?",
                "§7.6 アイテム（GMの承認）", {"inappropriate": "状況にそぐわない"},
                context={"item": name, "actor": c.id, "check": kind, "designated": designated,
                         **({"owner": owner.id} if owner is not c else {})},
                data={"actor": c.id, "item": name, **({"owner": owner.id} if owner is not c else {})})
            if v.approved:
                items = list(owner.items)
                items.remove(name)
                self.set_attr(owner, "items", items, "§7.6 使用したアイテムは失われる", name)
                return name
            self.ctx.narrate(GM, f"「{name}」は使われず手元に戻った。", "rules")
            refused.append((owner.id, name))
        return None

    def _record(self, c: Char, kind: str, out: dict[str, Any], what: str, target: str) -> str:
        res = out["result"]
        self.last_result = res
        text = f"{c.name}: {what} — {RESULT_NAMES[res]}" + (f" {out['dice']}" if out["dice"] else "")
        if out["item"]:
            text += f"（アイテム「{out['item']}」）"
        self.ctx.narrate(GM, text, "check")
        data = {k: out[k] for k in ("who", "kind", "designated", "ability", "pool", "tokens", "dice", "item")}
        data["target"] = target
        return self.ctx.check(kind, RULE_OF[kind], data, label=text,
                              rolls=[CheckRoll(who=c.id, pool=out["pool"], faces=list(out["dice"]),
                                               ach=max(out["dice"]) if out["dice"] else None,
                                               success=bool(out["success"]), result=res)],
                              result=res)

    def after_check(self, c: Char, out: Mapping[str, Any]) -> Gen:
        """§5.1 apply_outcome (b): the fumble table after the kind's consequence (AMB-15)."""
        if out["result"] == "fumble":
            yield from self.fumble_penalty(c)

    def fumble_penalty(self, c: Char) -> Gen:
        r = self.d4(f"{c.id} ファンブル表")
        fid, text = FUMBLE_TABLE[r]
        self.ctx.narrate(GM, f"ファンブル表 [{r}]: {c.name} — {text}", "rules")
        rule = f"§9.2 ファンブル表 {r} {fid}"
        if r == 1:
            self.lose_hp(c, 5, rule)
        elif r == 2:
            self.gain_abnormality(c, rule)
        elif r == 3:
            if c.items:
                pairs = [(f"item:{i}", f"{self.iname(c.items, i)}を失う") for i in range(len(c.items))]
                ch = yield from self.choose(c.id, "ck.fumble_item_choice", "ファンブル: 失うアイテムを選ぶ",
                                            "§9.2 ファンブル表 3 (AMB-14)", pairs, context={"items": list(c.items)})
                items = list(c.items)
                items.pop(int(ch.split(":")[1]))
                self.set_attr(c, "items", items, rule)
        elif r == 4:
            if c.tokens > 0:
                self.set_attr(c, "tokens", c.tokens - 1, rule)

    # -- abnormalities (§7.7) ----------------------------------------------------------------------------------
    def gain_abnormality(self, c: Char, rule: str) -> str | None:
        if c.abnormality_level >= 5:
            self.ctx.narrate(GM, f"{c.name} の異常性は Lv5: これ以上は獲得しない。", "rules")
            return None
        lv = c.abnormality_level + 1
        r = self.d4(f"{c.id} 異常性 Lv{lv} の一覧")
        aid = self.tb.abn_by_level[(lv, r)]
        old = [a.id for a in c.abnormalities]
        c.abnormalities.append(Abn(aid, lv))
        self.ctx.state(f"{c.id}.abnormalities", old, [a.id for a in c.abnormalities], rule, f"Lv{lv} [{r}]")
        self.ctx.narrate(GM, f"{c.name} は異常性「{self.tb.abn[aid]['name']}」を獲得した（異常性Lv{c.abnormality_level}）。",
                         "rules")
        return aid

    def remove_abnormality(self, c: Char, rule: str) -> str | None:
        if not c.abnormalities:
            return None
        top = max(c.abnormalities, key=lambda x: x.level)
        old = [a.id for a in c.abnormalities]
        c.abnormalities.remove(top)
        self.ctx.state(f"{c.id}.abnormalities", old, [a.id for a in c.abnormalities], rule, top.id)
        self.ctx.narrate(GM, f"{c.name} の異常性「{self.tb.abn[top.id]['name']}」が取り除かれた（異常性Lv{c.abnormality_level}）。",
                         "rules")
        return top.id

    # -- fragments (§7.5) --------------------------------------------------------------------------------------
    def holds(self, cid: str, fid: str) -> bool:
        return cid in self.t.holders.get(fid, [])

    def held(self, cid: str) -> list[str]:
        holders = self.t.holders  # holds(), for every fragment of the scenario
        return [f.id for f in self.sc.fragments if cid in holders.get(f.id, ())]

    def txt(self, text: str) -> str:
        """A scenario text as this table reads it: ``{pc:<id>}`` becomes the name of the PC in that seat, and
        ``{pc:<id>|<words>}`` the words when that PC is the scenario's own (else the name of the PC built there)."""
        if "{pc:" not in text:
            return text

        def name(m: re.Match[str]) -> str:
            pid, words = m.group(1), m.group(2)
            sheet = next((p.name for p in self.sc.pcs if p.id == pid), None)
            c = self.t.chars.get(pid)
            if c is None or (words is not None and c.name == sheet):
                return words if words is not None else (sheet or pid)
            return c.name

        return PC_REF.sub(name, text)

    def acquire(self, cid: str, fid: str, rule: str, how: str) -> bool:
        """``cid`` becomes a holder of ``fid``; the text is whispered to it alone (and the GM)."""
        if self.holds(cid, fid):
            return False
        old = list(self.t.holders.get(fid, []))
        new = [*old, cid]
        self.t.holders[fid] = new
        self.ctx.state(f"fragments.{fid}.holders", old, new, rule, how, to=new)
        f = self.frag[fid]
        tag = {"last": "【ラストフラグメント】", "secret": "【シークレットフラグメント】"}.get(f.kind, "")
        self.ctx.whisper([cid], f"{tag}フラグメント「{f.name}」（{how}）: {self.txt(f.text)}")
        # that someone got a fragment is told to whoever knows the someone: an NPC's fragments at the opening (the
        # scenario's holders) do not announce an NPC the PCs have not met
        c = self.t.chars.get(cid)
        told = None if c is None else [p.id for p in self.t.chars.values() if self.known(p.id, c)]
        if told is not None and len(told) == len(self.t.chars):
            told = None
        self.ctx.narrate(GM, f"{self.who(cid)} はフラグメントを獲得した（{how}）。", "rules", to=told)
        return True

    # -- items (§7.6) ------------------------------------------------------------------------------------------
    def add_item(self, c: Char, name: str, rule: str) -> Gen:
        self.set_attr(c, "items", [*c.items, name], rule, name)
        yield from self.overflow(c)

    def overflow(self, c: Char) -> Gen:
        """§7.6: over the inventory maximum, discard or give until it fits (inventory_overflow)."""
        while len(c.items) > self.cfg.inventory_max:
            pairs: list[tuple[str, Label]] = [(f"discard:{i}", f"{self.iname(c.items, i)}を捨てる") for i in range(len(c.items))]
            for o in self.t.chars.values():
                if o is not c and len(o.items) < self.cfg.inventory_max and self.present(o):
                    pairs += [(f"give:{i}:{o.id}", f"{self.iname(c.items, i)}を{o.name}に渡す") for i in range(len(c.items))]
            ch = yield from self.choose(c.id, "inv.inventory_overflow",
                                        f"アイテムが{self.cfg.inventory_max}個を超えた: 捨てるか渡す", "§7.6 アイテム枠",
                                        pairs, context={"items": list(c.items), "max": self.cfg.inventory_max})
            parts = ch.split(":")
            items = list(c.items)
            name = items.pop(int(parts[1]))
            self.set_attr(c, "items", items, "§7.6 アイテム枠（最大5）", name)
            if parts[0] == "give":
                o = self.t.chars[parts[2]]
                self.set_attr(o, "items", [*o.items, name], "§7.6 譲渡", name)

    def present(self, c: Char) -> bool:  # overridden by the game (who appears now)
        return c.is_pc

    def appearing(self) -> list[Char]:
        return [c for c in self.t.chars.values() if self.present(c)]

    def known(self, actor: str, c: Char) -> bool:
        """Whether ``actor`` knows ``c`` is at the table: PCs (sheets are public from the opening), itself, and
        NPCs and enemies once they have appeared (``met``) or appear now."""
        return c.is_pc or c.id == actor or c.id in self.t.met or self.present(c)

    def known_to(self, c: Char) -> list[Char]:
        """The characters ``c`` knows are at the table (``known``), in the table's order: what a decision's context
        may name for it. An NPC or enemy not met yet is nobody's business but the GM's (and its own)."""
        return [p for p in self.t.chars.values() if self.known(c.id, p)]

    # -- bonds (§7.4) ------------------------------------------------------------------------------------------
    def bond_label(self, t: str) -> str:
        row, sign, name = BOND_NAMES[t]
        return f"{name}（{row}{sign}）"

    def gain_bond(self, a: Char, b: Char, rule: str) -> Gen:
        """One direction a→b: change the type of an existing bond (bond_type_change) or gain one (bond_type_choice,
        a free choice of row and sign, or a roll: AMB-8)."""
        if b.id in a.bonds:
            pairs: list[tuple[str, Label]] = [("keep", f"そのまま（{self.bond_label(a.bonds[b.id])}）")]
            pairs += [(tid, self.bond_label(tid)) for tid in BOND_NAMES if tid != a.bonds[b.id]]
            ch = yield from self.choose(a.id, "bond.type_change", f"{b.name} への絆の種類を変える?", "§7.4 5 (AMB-10)", pairs,
                                        context={"toward": b.id, "current": a.bonds[b.id]})
            if ch != "keep":
                self.set_attr(a, "bonds", {**a.bonds, b.id: ch}, rule, f"→{b.id}")
            return
        pairs = [("roll", "ダイスで決める（1D10で行、符号は選ぶ）" if self.cfg.bond_table_roll == "d10_row_choose_sign"
                  else "ダイスで決める（1D20）")]
        pairs += [(tid, self.bond_label(tid)) for tid in BOND_NAMES]
        ch = yield from self.choose(a.id, "bond.type_choice", f"{b.name} への絆の種類", "§7.4 5 絆表 (AMB-8)", pairs,
                                    context={"toward": b.id})
        if ch == "roll":
            if self.cfg.bond_table_roll == "d20":
                r = self.ctx.dice.roll(20, f"{a.id} 絆表 1D20")
                ch = BOND_TABLE[r if r <= 10 else r - 10][0 if r <= 10 else 1][0]
            else:
                r = self.ctx.dice.roll(10, f"{a.id} 絆表 1D10")
                plus, minus = BOND_TABLE[r]
                ch = yield from self.choose(a.id, "bond.type_choice", f"絆表 [{r}]: 符号を選ぶ", "§7.4 5 絆表 (AMB-8)",
                                            [(plus[0], f"+ {plus[1]}"), (minus[0], f"− {minus[1]}")],
                                            context={"toward": b.id, "row": r}, always_ask=True)
        self.set_attr(a, "bonds", {**a.bonds, b.id: ch}, rule, f"→{b.id}")
        self.ctx.narrate(GM, f"{a.name} は {b.name} への絆「{self.bond_label(ch)}」を得た。", "rules")

    frag: dict[str, Any]
    _share_pairs: dict[str, dict[str, tuple[str, Label]]]


KIND_NAMES = {"investigation": "調査判定", "shock": "ショック判定", "bond": "絆判定", "skill": "スキル判定"}
RULE_OF = {"investigation": "§7.1 調査判定", "shock": "§7.3 ショック判定", "bond": "§7.4 絆判定", "skill": "§7.9.3 スキル判定"}
