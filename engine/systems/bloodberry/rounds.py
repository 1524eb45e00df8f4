"""ラウンド進行 round progression (rules/bloodberry.md §7.4, §9.9, A25–A28): turn actions come from card roles.

The GM adopts it for a stretch of play (the rest of a scene) or for a confrontation. Setup: a fresh shoe of 104
cards, 3 cards to each actor, initiative by one revealed card (kept in hand, HOUSE ``reveal_keep``; or
``discard_redraw``). Each cycle, in initiative order, an actor discards one card (a change window opens on it:
the others, in initiative order after the placer, may swap it into their hand once per cycle), draws one, and if
its three cards make a role it takes that many turn actions (after a change: only on itself or the placer), then
dumps its hand (no window) and draws three new cards (no role check on them, A28).
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from functools import partial
from typing import TYPE_CHECKING, Any

from ...core.ask import standing_answer
from ...core.decision import Answer, Decision, Label, LazyContext
from .cards import ROLE_NAMES, Card, Shoe, action_count, card_info, card_names, card_value, parse_card, roles_of, roles_with

if TYPE_CHECKING:
    from .game import BloodberryGame
    from .state import Char

__all__ = ["RoundProgression", "ActFn"]

Gen = Generator[Decision, Answer, Any]
#: performs ONE turn action of ``actor``; ``restrict`` = the only other character it may target (change), or None
ActFn = Callable[["Char", "str | None"], Gen]


def _take_label(card: Card, give: Card, hand: list[Card], roles: list[str]) -> str:
    """The label of a change window's option (``partial`` of this: made only when someone reads it, and a scripted
    seat reads the ids)."""
    text = f"{card.code} を取り {card_names(hand)[give.id]} を捨てる"
    return text + f" → {'/'.join(ROLE_NAMES[r] for r in roles)}" if roles else text


_CHANGE_RULE = "§7.4 CHANGE_WINDOW, A27"

#: the change window's context keys made when read (a scripted seat reads the roles each take completes, not the hand)
_CHANGE_THUNKS: dict[str, Callable[..., Any]] = {"hand": lambda prog, hand: prog._hand_ctx(hand)}


class RoundProgression:
    def __init__(self, game: BloodberryGame, actors: list[str], purpose: str, shoe: Shoe | None = None):
        self.g = game
        self.actors = list(actors)
        self.shoe = shoe if shoe is not None else Shoe(game.ctx.dice, purpose)
        self.hands: dict[str, list[Card]] = {a: [] for a in actors}
        self.order: list[str] = []
        self.revealed: dict[str, str] = {}
        self.changed: set[str] = set()
        self.rounds: dict[str, int] = {a: 0 for a in actors}
        self.stepping: str | None = None
        self.cycle_no = 0
        cfg = game.cfg
        self.face = cfg.face_card_numeric
        self.ace = cfg.ace_value

    # -- public view -------------------------------------------------------------------------------------------
    def view(self, actor: str) -> dict[str, Any]:
        """Hands are private: an actor sees its own hand; the GM sees every hand; the discard pile is public."""
        d: dict[str, Any] = {
            "order": list(self.order),
            "revealed": dict(self.revealed),
            "discard": [c.code for c in self.shoe.discard],
            "deck": len(self.shoe.deck),
            "hand_sizes": {a: len(h) for a, h in self.hands.items()},
            "rounds": dict(self.rounds),
            "cycle": self.cycle_no,
        }
        if actor == "gm":
            d["hands"] = {a: [c.code for c in h] for a, h in self.hands.items()}
        elif actor in self.hands:
            d["my_hand"] = [c.code for c in self.hands[actor]]
        return d

    def _value(self, c: Card) -> int:
        v = card_value(c, self.face, self.ace)
        return 0 if v is None else v

    def _card_opts(self, hand: list[Card]) -> list[tuple[str, str]]:
        names = card_names(hand)  # two copies of one card in a hand: 「5♦（1枚目）」「5♦（2枚目）」
        return [(c.id, names[c.id]) for c in hand]

    def _hand_ctx(self, hand: list[Card]) -> list[dict[str, Any]]:
        return [card_info(c, self.face, self.ace) for c in hand]

    def _log_hand(self, actor: str, why: str) -> None:
        # hands are private: the log keeps them (the GM's record), observations do not show them to others
        self.g.ctx.state(f"cards.{actor}.hand", None, [c.code for c in self.hands[actor]], "§7.4", why)

    def _in_play(self, a: str) -> bool:
        return self.g.t.chars[a].status in ("active",)

    # -- setup -------------------------------------------------------------------------------------------------
    def setup(self) -> Gen:
        g = self.g
        size = g.cfg.initial_hand_size
        for _ in range(size):
            for a in self.actors:
                self.hands[a].append(self.shoe.draw())
        for a in self.actors:
            self._log_hand(a, "deal")
        for a in self.actors:
            hand = self.hands[a]
            cid = yield from g.choose(a, "rp.initiative", "イニシアチブ: 公開するカードを選ぶ", "§7.4 RP_INITIATIVE, A26",
                                      self._card_opts(hand), context={"hand": self._hand_ctx(hand)})
            card = next(c for c in hand if c.id == cid)
            self.revealed[a] = card.code
            if g.cfg.initiative_card_mode == "discard_redraw":
                hand.remove(card)
                self.shoe.discard.append(card)
                hand.append(self.shoe.draw())
                self._log_hand(a, "initiative redraw")
        self.order_by_initiative()
        g.ctx.info("initiative", "イニシアチブの順番", order=list(self.order), revealed=dict(self.revealed))

    def order_by_initiative(self) -> None:
        """RP_INITIATIVE: revealed value descending (face cards 0); ties (HOUSE): PCs before NPCs, then PC number /
        the GM's order (the order the actors were listed in)."""
        pcs = {c.id: c.number for c in self.g.t.pcs()}

        def key(a: str) -> tuple[int, int, int]:
            v = self._value(parse_card(self.revealed[a]))
            return (-v, 0, pcs[a]) if a in pcs else (-v, 1, self.actors.index(a))

        self.order = sorted(self.actors, key=key)

    # -- a cycle -----------------------------------------------------------------------------------------------
    def cycle(self, act: ActFn, done: Callable[[], bool], max_steps: int | None = None) -> Gen:
        g = self.g
        self.cycle_no += 1
        if g.cfg.change_limit_reset == "per_cycle":
            self.changed = set()
        for step, x in enumerate(self.order):
            if done() or (max_steps is not None and step >= max_steps):
                return
            if not self._in_play(x):
                continue
            self.stepping = x
            hand = self.hands[x]
            cid = yield from g.choose(x, "rp.discard", f"捨て札にするカードを選ぶ (手札 {' '.join(c.code for c in hand)})",
                                      "§7.4 X_DISCARD", self._card_opts(hand), context={"hand": self._hand_ctx(hand)},
                                      always_ask=True)
            card = next(c for c in hand if c.id == cid)
            hand.remove(card)
            self.shoe.discard.append(card)
            g.ctx.info("discard", f"{g.t.chars[x].name} が {card.code} を捨てた", actor=x, card=card.code)
            if g.cfg.change_window_timing == "before_draw":
                yield from self._change_window(card, x, act, done)
            if done():
                self.stepping = None
                return
            drawn = self.shoe.draw()
            hand.append(drawn)
            self._log_hand(x, "draw")
            self.stepping = None
            yield from self._role_check(x, act, done, restrict=None)
            if g.cfg.change_window_timing == "after_draw" and not done():
                self.stepping = x
                yield from self._change_window(card, x, act, done)
                self.stepping = None

    def _change_window(self, card: Card, placer: str, act: ActFn, done: Callable[[], bool]) -> Gen:
        g = self.g
        if card not in self.shoe.discard:  # (a post-action dump may lie on it; it is still the card placed)
            return
        order = self.order
        i = order.index(placer)
        polled = order[i + 1:] + order[:i]
        face, ace = self.face, self.ace
        placer_char = g.t.chars[placer]
        prompt = f"チェンジ: {placer_char.name} の捨てた {card.code} を取る?"
        in_cf = g.cf_m.state == "cf_loop"
        changed, stepping, hands = self.changed, self.stepping, self.hands
        for y in polled:
            if y == placer or y in changed or y == stepping or not self._in_play(y):
                continue
            hand = hands[y]
            pairs: list[tuple[str, Label]] = [("pass", "見送る")]
            completes: dict[str, list[str]] = {}
            for c, rs in zip(hand, roles_with(hand, card, face, ace)):  # each take's hand and its roles
                oid = "take:" + c.id
                completes[oid] = rs
                pairs.append((oid, partial(_take_label, card, c, hand, rs)))
            context = LazyContext(_CHANGE_THUNKS, {"card": card.code, "placer": placer, "placer_kind": placer_char.kind,
                                                   "in_confrontation": in_cf, "completes": completes}, (self, hand))
            # every polled actor's window (hundreds a session): a standing answer resolves it here, without the
            # generator round trip of choose (which would resolve it the same way); one option is never asked or
            # resolved (choose returns it), and a standing answer that asks this time leaves it to choose
            auto = standing_answer(g.ctx, y, "rp.change", _CHANGE_RULE, pairs, None, context) if len(pairs) > 1 else None
            if auto is not None and auto.choice is not None:
                ch = auto.choice
            else:
                ch = yield from g.choose(y, "rp.change", prompt, _CHANGE_RULE, pairs, context=context)
            if ch == "pass":
                continue
            give_id = ch.split(":", 1)[1]
            give = next(c for c in hand if c.id == give_id)
            self.shoe.discard.remove(card)
            hand.remove(give)
            hand.append(card)
            self.shoe.discard.append(give)
            self.changed.add(y)
            g.ctx.info("change", f"{g.t.chars[y].name} が {card.code} を取り {give.code} を捨てた", actor=y, took=card.code, gave=give.code,
                       placer=placer)
            self._log_hand(y, "change")
            yield from self._role_check(y, act, done, restrict=placer)
            if not done():
                yield from self._change_window(give, y, act, done)  # the new discard opens its own window
            return

    def _role_check(self, z: str, act: ActFn, done: Callable[[], bool], restrict: str | None) -> Gen:
        g = self.g
        rs = roles_of(self.hands[z], self.face, self.ace)
        if not rs:
            return
        n = action_count(rs, g.cfg.multiple_roles)
        g.ctx.info("role", f"{g.t.chars[z].name}: {'/'.join(ROLE_NAMES[r] for r in rs)} → 行動回数 {n}", actor=z, roles=rs, actions=n,
                   hand=[c.code for c in self.hands[z]], restrict=restrict)
        for _ in range(n):
            if done() or not self._in_play(z):
                break
            yield from act(g.t.chars[z], restrict)
        # dump the hand (no change windows) and draw three (no role check on them, A28)
        self.shoe.discard.extend(self.hands[z])
        self.hands[z] = [self.shoe.draw() for _ in range(3)]
        self._log_hand(z, "refill")
        self.rounds[z] += 1
        g.ctx.state(f"cards.{z}.rounds", self.rounds[z] - 1, self.rounds[z], "§7.4 one round passes")
        if g.cfg.change_limit_reset == "per_own_round":
            self.changed.discard(z)
        if g.cfg.role_check_on_refresh:
            yield from self._role_check(z, act, done, restrict=None)
