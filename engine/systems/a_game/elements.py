"""The success-element registry of 「A」 (rules/a_game.md §4, §7.7, §7.11; D03, D04, D31–D35).

A PL creates an element by proposing a word or short phrase; the engine pre-checks it (§7.7: ``turn_limit``,
``cap``, ``duplicate``, ``banned``, ``blacklisted`` — no SD call) and the SD approves it or rejects it with a reason
code (``too_long``, ``meaningless``, ``setting_conflict``, ``omnipotent``, ``other``), recorded as a ruling. At
creation, between scenes and after the game there is no per-turn limit; during a scene one element per PL per turn
(``registration_limit_scope``). At the scene end the SD reviews elements for omnipotence (30 % of its anticipated
checks, D31): deleted and blacklisted for the campaign. At the game end each PL's most used element is banned for
everyone in the next game (§7.11), and PLs may un-realize elements with a change of setting (D34/D35).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cached_property, partial
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ...core.decision import Label
from .base import GameBase, Gen, approve, cat_name, cats_text
from .data import (
    CATEGORY_IDS,
    ELEMENT_REASONS,
    PRECHECK_REASONS,
    SAMPLE_ELEMENTS,
    UNREALIZE_REASONS,
)
from .names import bracketed, form_problem, length, meaningless, normalize, similar, universal
from .scenario import Category
from .state import Character, Element

__all__ = ["ElementsMixin", "NewElement", "MAX_PROPOSALS_PER_WINDOW"]

#: HOUSE safety cap: proposals one PL may make in one free registration window (a fuzzer would never stop)
MAX_PROPOSALS_PER_WINDOW = 30


class NewElement(BaseModel):
    """D03/D32: a new success element, as the PL writes it (empty name: propose nothing after all)."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field("", max_length=60, description="成功要素: 1単語か短いセンテンス（15文字まで。空欄ならやめる）")
    categories: list[Category] = Field(default_factory=list, max_length=10,
                                       description="役立つ判定分野（1〜10個）: " + ", ".join(CATEGORY_IDS))


class ElementsMixin(GameBase):
    #: PC → the normalized names the SD refused this game (D04); their suggestions are not offered again
    refused_names: dict[str, set[str]]

    # -- windows and limits (§4, §7.7, A1, A2) -------------------------------------------------------------------
    def where(self, window: str) -> str:
        g = self.t.game_no
        s = self.t.scene
        if window == "scene" and s is not None:
            return f"g{g}:s{s.index}:t{max(1, s.turn)}"
        if window == "between" and s is not None:
            return f"g{g}:between{s.index}"
        return f"g{g}:{window}"

    def limited(self, window: str) -> bool:
        """Only scene turns (and the briefing, counted as turn 1, A2) limit registrations."""
        return window == "scene"

    def created_now(self, c: Character) -> bool:
        if self.cfg.registration_limit_scope == "table_turn":
            return self.t.table_created_this_turn >= 1
        player = c.player or c.id
        return any(o.created_this_turn >= 1 for o in self.t.pcs() if (o.player or o.id) == player)

    def registration_block(self, c: Character, window: str) -> str | None:
        """``turn_limit`` or ``cap`` (§7.7) when ``c`` may not register now, else None."""
        if self.limited(window) and self.created_now(c):
            return "turn_limit"
        if len(c.elements) >= self.cfg.max_elements:
            return "cap"
        return None

    def precheck(self, c: Character, name: str) -> str | None:
        """``duplicate``, ``banned`` or ``blacklisted`` (§7.7), else None."""
        return self._precheck_key(c, normalize(name))

    def _precheck_key(self, c: Character, key: str, held: set[str] | None = None) -> str | None:
        """``precheck`` of a normalized name (``held``: the keys of ``c``'s elements, when the caller has them)."""
        if (key in held) if held is not None else (c.by_key(key) is not None):
            return "duplicate"
        if self.cfg.banned_name_blocks_registration and key in self.t.banned:
            return "banned"
        if any(similar(key, b) for b in self.t.blacklist):
            return "blacklisted"
        return None

    def reset_created(self, rule: str) -> None:
        for c in self.t.pcs():
            self.set_attr(c, "created_this_turn", 0, rule)
        if self.t.table_created_this_turn:
            self.ctx.state("table.created_this_turn", self.t.table_created_this_turn, 0, rule)
            self.t.table_created_this_turn = 0

    def _mark_created(self, c: Character, window: str) -> None:
        if self.limited(window):
            self.set_attr(c, "created_this_turn", c.created_this_turn + 1, "§4-1-2 1ターンに1つ (A1)")
            self.ctx.state("table.created_this_turn", self.t.table_created_this_turn,
                           self.t.table_created_this_turn + 1, "§4-1-2 (A1)")
            self.t.table_created_this_turn += 1

    # -- the SD's information (§9.9) -----------------------------------------------------------------------------
    def expected_categories(self) -> list[str]:
        """The SD's anticipated checks by category (§9.8); default: each category once."""
        return [e.category for e in self.sc.expected_checks] or list(CATEGORY_IDS)

    def omnipotent_share(self, cats: Sequence[str]) -> float:
        exp = self.expected_categories()
        return sum(1 for x in exp if x in cats) / len(exp)

    def suggestions(self) -> list[tuple[str, list[str]]]:
        if self.sc.element_suggestions:
            return [(e.name, list(e.categories)) for e in self.sc.element_suggestions]
        return [(n, list(c)) for n, c in SAMPLE_ELEMENTS]

    def _legal_suggestions(self, c: Character) -> list[tuple[int, str, list[str]]]:
        """The suggestions the PL may propose now: legal for the engine, and not already refused by the SD this game
        (a suggestion is a convenience; a refused one is not offered again)."""
        refused = self.refused_names.get(c.id, set())
        held = {e.key for e in c.elements}
        return [(i, name, cats) for i, name, cats, key in self._suggested
                if key not in refused and self._precheck_key(c, key, held) is None]

    @cached_property
    def _suggested(self) -> list[tuple[int, str, list[str], str]]:
        """The suggestions whose form is legal, with their index and normalized key: the scenario's and the
        config's, the same all session."""
        limit = self.cfg.element_max_len
        return [(i, name, cats, normalize(name)) for i, (name, cats) in enumerate(self.suggestions())
                if form_problem(name, limit) is None]

    # -- one polling point (D03 / D32) ---------------------------------------------------------------------------
    def registration_point(self, c: Character, window: str, *, category: str | None = None,
                           rule: str = "§4-1-2 D03") -> Gen:
        """The PL may propose one element now; returns ``none`` (declined), ``approved`` or the rejection code."""
        if self.registration_block(c, window) is not None:
            return "none"
        legal = self._legal_suggestions(c)
        pairs: list[tuple[str, Label]] = [("none", "作成しない")]
        pairs += [(f"suggest:{i}", partial(_suggest_label, name, cats)) for i, name, cats in legal]
        pairs.append(("new", "新しい成功要素を考えて提案する（自由記入）"))
        usable = self.usable_elements(c)
        context: dict[str, Any] = {
            "window": window, "held": len(c.elements), "max": self.cfg.max_elements,
            "held_categories": sorted({x for e in c.elements for x in e.categories}),
            "suggestions": {f"suggest:{i}": {"name": name, "categories": cats} for i, name, cats in legal},
            "check_category": category,
            "has_usable_of_category": bool(category) and any(category in e.categories for e in usable),
        }
        if window == "between":
            nxt = self.next_scene_category()
            context["next_goal_category"] = nxt
            context["has_usable_of_next"] = nxt is not None and any(nxt in e.categories for e in usable)
            prompt = f"シーンの間: {c.name} は成功要素を作成する?（制限なし・最大{self.cfg.max_elements}個）"
            ch = yield from self.choose(c.id, "pc.register_between_scenes", prompt, "§4-1-2 D32", pairs,
                                        context=context)
        else:
            limit = "このターン1つまで" if self.limited(window) else "制限なし"
            prompt = f"{c.name} は成功要素を作成する?（{limit}・最大{self.cfg.max_elements}個、保有 {len(c.elements)}）"
            ch = yield from self.choose(c.id, "pc.propose_element", prompt, rule, pairs, context=context)
        if ch == "none":
            return "none"
        if ch.startswith("suggest:"):
            name, cats = self.suggestions()[int(ch.split(":", 1)[1])]
        else:
            check = self._payload_check(c)
            prompt = "成功要素の名前（1単語か短いセンテンス）と、役立つ判定分野を書く（名前を空にするとやめる）"
            if window == "between":
                p = yield from self.ask_payload(c.id, "pc.register_between_scenes", prompt, "§4-1-1 D32", NewElement,
                                                check, context=context)
            else:
                p = yield from self.ask_payload(c.id, "pc.propose_element", prompt, "§4-1-1 D03", NewElement, check,
                                                context=context)
            assert isinstance(p, NewElement)
            if not p.name.strip():
                return "none"
            name, cats = p.name.strip(), list(p.categories)
        result = yield from self.submit_element(c, name, cats, window)
        return result

    def _payload_check(self, c: Character) -> Any:
        def check(p: BaseModel) -> str | None:
            assert isinstance(p, NewElement)
            name = p.name.strip()
            if not name:
                return None if not p.categories else "categories without a name: write the name (or leave both empty)"
            if "\n" in name or "\r" in name:
                return "a line break in the name (§3.2)"
            if not p.categories:
                return "give 1 to 10 categories (§9.7): " + ", ".join(CATEGORY_IDS)
            if len(set(p.categories)) != len(p.categories):
                return "a category is listed twice"
            code = self.precheck(c, name)
            if code is not None:
                return f"{code}: {bracketed(name)} — {PRECHECK_REASONS[code]} (§7.7)"
            return None

        return check

    def submit_element(self, c: Character, name: str, cats: Sequence[str], window: str) -> Gen:
        """§7.7 request: the engine's pre-checks, then the SD's approval (D04). Returns ``approved`` or the code."""
        code = self.registration_block(c, window) or self.precheck(c, name)
        if code is not None:
            self.ctx.info("element", f"{c.name} の {bracketed(name)} はエンジンが却下: {PRECHECK_REASONS[code]}",
                          pc=c.id, name=name, code=code)
            return code
        forbid = form_problem(name, self.cfg.element_max_len)
        context = {
            "pc": c.id, "name": name, "normalized": normalize(name), "length": length(name),
            "max_len": self.cfg.element_max_len, "categories": list(cats), "window": window, "cast": c.cast,
            "background": c.background, "elements": [{"name": e.name, "categories": list(e.categories)}
                                                     for e in c.elements],
            "count": len(c.elements), "meaningless": meaningless(name), "universal": universal(name),
            "world": self.sc.world.summary, "forbidden_keywords": list(self.sc.world.forbidden_keywords),
            "expected_checks": self.expected_categories(), "threshold": self.cfg.omnipotent_threshold,
            "share": round(self.omnipotent_share(cats), 4),
        }
        prompt = (f"{c.name}（{self.cast_of(c)}）が成功要素 {bracketed(name)}（{cats_text(cats)}）の登録を申請した。"
                  "設定的に問題なければ承認する。却下するなら理由を選ぶ")
        verdict = yield from approve(self.ctx, "gm", "sd.approve_element", bracketed(name), prompt, "§7.7 D04",
                                     ELEMENT_REASONS, context=context,
                                     forbid=f"§3.2: {forbid}" if forbid else None,
                                     data={"pc": c.id, "categories": list(cats), "window": window})
        if not verdict.approved:
            assert verdict.reason is not None
            why = self._refusal_facts(verdict.reason, name, cats, context)
            if why:
                self.ctx.info("element", f"{bracketed(name)} の却下: {why}", pc=c.id, name=name, code=verdict.reason)
            self.refused_names.setdefault(c.id, set()).add(normalize(name))
            if verdict.reason == "omnipotent" and self.cfg.omnipotent_rejection_blacklists:
                self._blacklist(normalize(name), "§4-1-6 A15 omnipotent_rejection_blacklists")
            return verdict.reason
        self.add_element(c, name, cats, self.where(window), "§4-1-1 D04")
        self._mark_created(c, window)
        return "approved"


    def _refusal_facts(self, code: str, name: str, cats: Sequence[str], context: Mapping[str, Any]) -> str:
        """The facts of the rules behind the SD's reason (§7.7, §9.9), for the player who proposed the element; the
        SD's judgement is the ruling, these are what the rules measure (empty when they measure nothing)."""
        if code == "too_long":
            return f"{context['length']}文字（成功要素は{context['max_len']}文字まで）"
        if code == "setting_conflict":
            words = [k for k in context["forbidden_keywords"] if normalize(k) and normalize(k) in context["normalized"]]
            return f"この世界にない言葉（{'、'.join(words)}）を含む" if words else ""
        if code == "omnipotent":
            if context["universal"]:
                return "万能を表す言葉を含む（§9.9）"
            if context["share"] >= context["threshold"]:
                return (f"判定分野 {cats_text(cats)} は、このシナリオで想定される判定の"
                        f"{round(context['threshold'] * 100)}%以上に使える（万能成功要素の目安）")
        return ""
    def free_window(self, c: Character, window: str, rule: str) -> Gen:
        """A registration window without a per-turn limit (creation, between scenes, after the game; cap 20)."""
        for _ in range(MAX_PROPOSALS_PER_WINDOW):
            result = yield from self.registration_point(c, window, rule=rule)
            if result == "none" or self.registration_block(c, window) is not None:
                return

    def next_scene_category(self) -> str | None:
        s = self.t.scene
        idx = (s.index if s is not None else 0)  # scene index is 1-based; the next scene is scenes[index]
        scenes = self.sc.scenes[: self.cfg.scenes_per_game]
        return scenes[idx].goal.category if idx < len(scenes) else None

    def _blacklist(self, key: str, rule: str) -> None:
        if key not in self.t.blacklist:
            old = list(self.t.blacklist)
            self.t.blacklist.append(key)
            self.ctx.state("table.blacklist", old, list(self.t.blacklist), rule)

    # -- omnipotent review at the scene end (D31) ------------------------------------------------------------------
    def omnipotent_review(self) -> Gen:
        """§4-1-6, A15: the SD deletes elements it judges omnipotent; their names are blacklisted for the campaign."""
        entries = [(c, e) for c in self.t.pcs() for e in c.elements]
        if not entries:
            return
        pairs: list[tuple[str, Label]] = [(f"{c.id}:{e.id}", partial(_review_label, c.name, e.name, e.categories, e.usage,
                                                                     e.used_in)) for c, e in entries]
        context = {"elements": {f"{c.id}:{e.id}": {"name": e.name, "categories": list(e.categories),
                                                  "used_in": list(e.used_in), "usage": e.usage}
                                for c, e in entries},
                   "expected_checks": self.expected_categories(), "threshold": self.cfg.omnipotent_threshold}
        ans = yield from self.choose_many("gm", "sd.omnipotent_review",
                                          "シーン終了: 万能と認める成功要素（想定判定の30%以上に使える）を抹消する", "§4-1-6 D31",
                                          pairs, 0, len(pairs), context=context)
        for oid in ans.choices or ():
            cid, eid = oid.split(":", 1)
            c = self.t.chars[cid]
            el = c.element(eid)
            if el is None:
                continue  # deleted already: similar to one judged before it
            self._blacklist(el.key, "§4-1-6 以後同様の成功要素の登録は不可能")
            # every similar element on every sheet goes with it, so that no sheet holds a blacklisted name (§3.2)
            for other in self.t.pcs():
                for e in [x for x in other.elements if similar(x.key, el.key)]:
                    self.remove_element(other, e, "§4-1-6 D31", "omnipotent")
                    self.ctx.info("omnipotent",
                                  f"{other.name} の {bracketed(e.name)} は万能成功要素と判定され、登録を抹消された",
                                  pc=other.id, who=other.id, element=e.name)

    # -- the game end (§7.11, D33–D35) ---------------------------------------------------------------------------
    def compute_bans(self) -> Gen:
        """Each PL's most used element (ties per ``usage_ban_tie``) is banned for everyone in the next game."""
        bans: list[str] = []
        holders = list(self.t.pcs()) + (self.t.sdcs() if self.cfg.usage_ban_includes_sdc else [])
        for c in holders:
            m = max((e.usage for e in c.elements), default=0)
            if m == 0:
                continue
            tied = sorted((e for e in c.elements if e.usage == m), key=lambda e: e.order)
            chosen: list[Element] = tied
            if len(tied) > 1 and self.cfg.usage_ban_tie != "all":
                chooser = c.id if self.cfg.usage_ban_tie == "player_choice" and c.is_pc else "gm"
                pairs = [(e.id, f"{bracketed(e.name)}（使用 {e.usage} 回）") for e in tied]
                eid = yield from self.choose(chooser, "ban.choose_tie",
                                             f"{c.name} の最も使用回数の多い成功要素が並んだ: 次回のゲームで使用不可能にするものを選ぶ",
                                             "§4-1-3 D33", pairs, context={"pc": c.id, "tied": [e.id for e in tied]})
                chosen = [e for e in tied if e.id == eid]
            for e in chosen:
                if e.key not in bans:
                    bans.append(e.key)
                    self.ctx.info("usage_ban", f"{c.name} の {bracketed(e.name)}（{e.usage} 回）は次回のゲームで全PLが使用不可能",
                                  pc=c.id, who=c.id, element=e.name, usage=e.usage)
        self.ctx.state("table.bans_next_game", list(self.t.bans_next), list(bans), "§4-1-3 §7.11")
        self.t.bans_next = bans
        return bans

    def unrealize_window(self, c: Character, rule: str = "§4-1-5 D34") -> Gen:
        """D34/D35: the PL may delete own elements with a sufficient change of setting, the SD approving it."""
        if not c.elements:
            return
        pairs = [(e.id, self.el_label(e)) for e in c.elements]
        least = min(c.elements, key=lambda e: (e.usage, e.order))
        ans = yield from self.choose_many(
            c.id, "pc.propose_unrealize",
            f"{c.name}: アンリアライズ（削除）する成功要素を選ぶ。設定的変更を一言で（note）", rule, pairs, 0, len(pairs),
            context={"held": len(c.elements), "max": self.cfg.max_elements, "least_used": least.id,
                     "least_used_name": least.name}, notes={"*": "allowed"})
        chosen = [c.element(x) for x in ans.choices or ()]
        els = [e for e in chosen if e is not None]
        if not els:
            return
        statement = (ans.note or "").strip()
        names = "".join(bracketed(e.name) for e in els)
        verdict = yield from approve(
            self.ctx, "gm", "sd.approve_unrealize", names,
            f"{c.name} が {names} のアンリアライズを申請した。設定的変更:「{statement or '（なし）'}」。十分な変更なら承認する",
            "§4-1-5 D35", UNREALIZE_REASONS, context={"pc": c.id, "elements": [e.name for e in els],
                                                     "statement": statement, "length": len(statement)},
            data={"pc": c.id, "statement": statement})
        if not verdict.approved:
            return
        for e in els:
            self.remove_element(c, e, "§4-1-5 D35", "unrealize")
        if statement:
            self.set_attr(c, "background", (c.background + "\n" if c.background else "") + statement,
                          "§4-1-5 十分な設定的変更", "unrealize")

    def category_label(self, cat: str) -> str:
        return f"{cat_name(cat)}（{cat}）"


def _suggest_label(name: str, cats: Sequence[str]) -> str:
    return f"候補 {bracketed(name)}（{cats_text(cats)}）を提案する"


def _review_label(who: str, name: str, cats: Sequence[str], usage: int, used_in: Sequence[str]) -> str:
    return f"{who} の {bracketed(name)}（分野 {cats_text(cats)}、使用 {usage} 回、使った判定 {cats_text(used_in) or 'なし'}）"
