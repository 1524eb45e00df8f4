"""What every 夜狩り人 rules mixin shares: decisions, dice, logged state changes (rules/yogaribito.md §0.4).

``YogaribitoGame`` (game.py) = ``GameBase`` + ``ChecksMixin`` (checks.py) + ``CombatMixin`` (combat.py) +
``CreationMixin`` (creation.py) + ``AfterplayMixin`` (afterplay.py). Mixins talk to each other only through the
methods documented on them; all of them use the helpers below, so that every decision, die and state change goes
through one door.
"""

from __future__ import annotations

import math
from collections.abc import Generator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from ...core import ask
from ...core.decision import Answer, Decision, Label
from .config import YogaribitoConfig
from .state import Character, Table

if TYPE_CHECKING:
    from ...core.session import GameContext

__all__ = ["Gen", "GameBase", "opts"]

Gen = Generator[Decision, Answer, Any]


opts = ask.options  # the options of a decision from (id, label) pairs (made when someone reads them)


class GameBase:
    ctx: GameContext
    cfg: YogaribitoConfig
    t: Table

    # -- decisions (the core's one way to ask, ``engine.core.ask``) ----------------------------------------------
    def choose(self, actor: str, kind: str, prompt: str, rule: str, pairs: Sequence[tuple[str, Label]],
               context: Mapping[str, Any] | None = None, refused: dict[str, str] | None = None,
               always_ask: bool = False, speech: bool = False) -> Gen:
        """Ask ``actor`` for one of ``pairs`` (id, label; a label may be a function that makes it, see ``Label``). A
        single legal option is not asked unless ``always_ask``."""
        return ask.choose(actor, kind, prompt, rule, pairs, context=context, refused=refused, always_ask=always_ask,
                          speech=speech, ctx=self.ctx)

    def choose_many(self, actor: str, kind: str, prompt: str, rule: str, pairs: Sequence[tuple[str, str]],
                    lo: int, hi: int, context: Mapping[str, Any] | None = None) -> Gen:
        return ask.choose_many(actor, kind, prompt, rule, pairs, lo, hi, context=context, ctx=self.ctx)

    def ask_payload(self, actor: str, kind: str, prompt: str, rule: str, model: type[BaseModel], check: Any = None,
                    context: dict[str, Any] | None = None, samples: Sequence[Any] | None = None) -> Gen:
        return ask.ask_payload(actor, kind, prompt, rule, model, check, context=context, samples=samples)

    def kept(self, name: str) -> dict[Any, Any]:
        """A dict of this game for values kept between questions (``DESIGN.md``, "Derived values kept between
        questions"), made on first use: the mixins also run without ``YogaribitoGame.__init__`` (unit tests)."""
        key = "_kept_" + name  # never the name of a method or attribute of the game
        d = self.__dict__.get(key)
        if d is None:
            d = self.__dict__[key] = {}
        return d

    def controller(self, c: Character | str) -> str:
        """The actor who decides for a character: the character itself. A PC's actor is its player's seat; an NPC's
        or enemy's actor has the role ``npc`` and is played by the GM's policy unless a seat names it
        (``--seat npcs=llm``, ``--seat count=human``), as the spec's "GM also answers for NPCs/enemies"."""
        ch = self.t.chars[c] if isinstance(c, str) else c
        return ch.id

    # -- dice --------------------------------------------------------------------------------------------------
    def d6(self, purpose: str) -> int:
        return self.ctx.dice.d6(purpose)

    def dice(self, n: int, purpose: str) -> list[int]:
        return self.ctx.dice.pool(n, purpose) if n > 0 else []

    def d3(self, purpose: str) -> int:
        """§0.4: 1D3 consumes one d6 value v and yields ceil(v/2)."""
        return math.ceil(self.ctx.dice.d6(purpose) / 2)

    def formula(self, f: Any, purpose: str) -> int:
        """Roll a damage/heal formula (``arms.Formula``: n dice of 6 or 3 sides + plus)."""
        total = f.plus
        for _ in range(f.dice):
            total += self.d3(purpose) if f.sides == 3 else self.d6(purpose)
        return total

    # -- logged state changes ----------------------------------------------------------------------------------
    def set_current(self, c: Character, stat: str, new: int, rule: str, cause: str = "") -> None:
        old = c.current.get(stat, 0)
        if new != old:
            c.current[stat] = new
            self.ctx.state(f"{c.id}.{stat}", old, new, rule, cause)

    def set_base(self, c: Character, stat: str, new: int, rule: str, cause: str = "") -> None:
        old = c.base.get(stat, 0)
        if new != old:
            c.base[stat] = new
            self.ctx.state(f"{c.id}.base.{stat}", old, new, rule, cause)

    def set_flag(self, c: Character, attr: str, new: Any, rule: str, cause: str = "") -> None:
        """A character attribute (awakened, incapacitated, dead, flying, legs_broken, ...)."""
        old = getattr(c, attr)
        if new != old:
            setattr(c, attr, new)
            self.ctx.state(f"{c.id}.{attr}", _plain(old), _plain(new), rule, cause)


def _plain(v: Any) -> Any:
    if isinstance(v, (list, tuple)):
        return list(v)
    if isinstance(v, dict):
        return dict(v)
    return v
