"""What every 「A」 rules mixin shares (rules/a_game.md): one way to ask, logged state changes, names.

``AGame`` (game.py) = ``GameBase`` + ``ElementsMixin`` (elements.py, §7.7, §7.11) + ``ChecksMixin`` (checks.py, §5,
§7.1–§7.4, §7.9) + ``HeroMixin`` (hero.py, §5.8, §7.8) + ``ScenesMixin`` (scenes.py, §6, §7.5, §7.6, §7.10). Every
decision goes through the helpers below (the core's ``engine.core.ask``), every die through ``self.ctx.dice`` and
every change of the table through the logged setters, so that a log replays exactly.
"""

from __future__ import annotations

from collections.abc import Generator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from ...core import ask
from ...core.decision import Answer, Decision, Label
from .config import AGameConfig
from .data import CAST_NAMES, CATEGORIES
from .names import bracketed, normalize
from .scenario import AGameScenario
from .state import Character, Element, Table

if TYPE_CHECKING:
    from ...core.machine import FlowState
    from ...core.session import GameContext

__all__ = ["Gen", "GameBase", "approve", "cat_name", "cats_text"]

Gen = Generator[Any, Any, Any]


def cat_name(cat: str) -> str:
    """A check category as the table reads it: 戦闘."""
    return CATEGORIES.get(cat, cat)


def cats_text(cats: Sequence[str]) -> str:
    return "・".join(cat_name(c) for c in cats)


def approve(ctx: GameContext, gm: str, kind: str, subject: str, prompt: str, rule: str, reasons: Mapping[str, str], *,
            context: Mapping[str, Any] | None = None, forbid: str | None = None, data: Mapping[str, Any] | None = None,
            approve_label: str = "承認する") -> Gen:
    """An SD ruling (``engine.core.ask.approve``: ``approve`` / ``reject:<code>``, recorded as a ruling event). With
    ``forbid`` the engine knows approving would break a rule (§3.2: a name longer than element_max_len, a
    meaningless one): ``approve`` is refused with that reason and the SD picks the code to reject with."""
    if forbid is None:
        verdict = yield from ask.approve(ctx, gm, kind, subject, prompt, rule, reasons, context=context, data=data,
                                         approve_label=approve_label)
        return verdict
    pairs: list[tuple[str, Label]] = [(f"{ask.REJECT}:{code}", label) for code, label in reasons.items()]
    ans = yield Decision(gm, kind, prompt, rule, options=ask.options(pairs), context=context or {},
                         refused={ask.APPROVE: forbid}, speech=True)
    code = ans.choice.split(":", 1)[1]
    rid = ctx.ruling(gm, kind, subject, "reject", code, text=reasons[code], rule=rule, **dict(data or {}))
    return ask.Verdict(False, code, rid, ans.note)


class GameBase:
    ctx: GameContext
    cfg: AGameConfig
    sc: AGameScenario
    t: Table
    check_m: FlowState

    # -- decisions (the core's one way to ask) -------------------------------------------------------------------
    def choose(self, actor: str, kind: str, prompt: str, rule: str, pairs: Sequence[tuple[str, Label]],
               context: Mapping[str, Any] | None = None, refused: Mapping[str, str] | None = None,
               always_ask: bool = False, speech: bool = False, notes: Mapping[str, str] | None = None,
               answer: bool = False) -> Gen:
        """One of ``pairs``; a single legal option is not asked unless ``always_ask`` (or it requires a note)."""
        return ask.choose(actor, kind, prompt, rule, pairs, context=context, refused=refused, always_ask=always_ask,
                          speech=speech, notes=notes, answer=answer, ctx=self.ctx)

    def choose_many(self, actor: str, kind: str, prompt: str, rule: str, pairs: Sequence[tuple[str, Label]],
                    lo: int, hi: int, context: Mapping[str, Any] | None = None,
                    refused: Mapping[str, str] | None = None, notes: Mapping[str, str] | None = None,
                    speech: bool = False) -> Gen:
        """``lo``..``hi`` of ``pairs``; returns the ``Answer`` (its ``choices`` in option order, its ``note``)."""
        if not notes:
            auto = ask.standing_answer(self.ctx, actor, kind, rule, pairs, (lo, hi), context)
            if auto is not None:
                return auto
        ans = yield Decision(actor, kind, prompt, rule, options=ask.options(pairs), pick=(lo, hi),
                             context=context if context is not None else {}, refused=refused, notes=notes,
                             speech=speech)
        return ans if isinstance(ans, Answer) else Answer(choices=tuple(ans or ()))

    def ask_payload(self, actor: str, kind: str, prompt: str, rule: str, model: type[BaseModel], check: Any = None,
                    context: Mapping[str, Any] | None = None, samples: Sequence[Any] | None = None) -> Gen:
        return ask.ask_payload(actor, kind, prompt, rule, model, check, context=context, samples=samples)

    # -- names -------------------------------------------------------------------------------------------------
    def who(self, cid: str) -> str:
        if cid == "gm":
            return "SD"
        c = self.t.chars.get(cid)
        return c.name if c is not None else cid

    def cast_of(self, c: Character) -> str:
        return CAST_NAMES.get(c.cast or "", "SDC") if c.is_pc else "SDC"

    # -- logged state changes ----------------------------------------------------------------------------------
    def set_attr(self, c: Character, attr: str, new: Any, rule: str, cause: str = "") -> None:
        old = getattr(c, attr)
        if new != old:
            setattr(c, attr, new)
            self.ctx.state(f"{c.id}.{attr}", old, new, rule, cause)

    def set_hp(self, c: Character, new: int, rule: str, cause: str = "") -> None:
        self.set_attr(c, "hp", max(0, new), rule, cause)

    def add_element(self, c: Character, name: str, categories: Sequence[str], where: str, rule: str,
                    eid: str | None = None, order: int | None = None) -> Element:
        if eid is None:
            eid = f"e{c.next_element}"
        num = int(eid[1:]) if eid[1:].isdigit() else 0
        c.next_element = max(c.next_element, num + 1)
        if order is None:
            self.t.element_counter += 1
            order = self.t.element_counter
        else:
            self.t.element_counter = max(self.t.element_counter, order)
        el = Element(id=eid, name=name, key=normalize(name), categories=list(categories), order=order,
                     registered_at=where)
        c.elements.append(el)
        self.ctx.state(f"{c.id}.elements.{el.id}", None, {"name": name, "categories": list(categories)}, rule, where)
        return el

    def remove_element(self, c: Character, el: Element, rule: str, cause: str) -> None:
        c.elements.remove(el)
        self.ctx.state(f"{c.id}.elements.{el.id}", {"name": el.name, "categories": list(el.categories)}, None, rule,
                       cause)

    def count_use(self, c: Character, el: Element, category: str, rule: str) -> None:
        """§5.9: usage +1 (once per check), and the check's category joins the element's set U (D31)."""
        old = el.usage
        el.usage += 1
        if category not in el.used_in:
            el.used_in = sorted([*el.used_in, category])
        self.ctx.state(f"{c.id}.usage.{el.name}", old, el.usage, rule, category)

    # -- what is usable ------------------------------------------------------------------------------------------
    def usable(self, c: Character, el: Element) -> bool:
        """§5.1: active and not banned this game (a banned name is unusable by every PL, §7.11)."""
        return el.key not in self.t.banned

    def usable_elements(self, c: Character) -> list[Element]:
        return [e for e in c.elements if self.usable(c, e)]

    def el_label(self, el: Element, *, usage: bool = True) -> str:
        text = f"{bracketed(el.name)}（{cats_text(el.categories)}"
        return text + (f"、使用 {el.usage} 回）" if usage else "）")
