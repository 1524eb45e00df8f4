"""Playing cards for ラウンド進行 and フラグマップ (rules/bloodberry.md §7.4, §7.6, §9.9, A25–A28, G8).

A shoe of two standard 52-card decks (104 cards, no jokers), shuffled through the session's ``Dice`` so that every
shuffle is logged and replayable. Two decks mean two identical cards can exist: a card is identified by its
``code`` plus a copy number (``"Q♥#2"``), so that hands, piles and logs stay unambiguous.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ...core.dice import Dice

__all__ = ["Card", "Shoe", "RANKS", "SUITS", "parse_card", "card_value", "roles_of", "roles_with", "action_count", "ROLE_NAMES",
           "ROLE_ACTIONS", "slot_accepts", "accepted_codes", "card_info", "numbered", "card_names"]

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = ("♠", "♣", "♥", "♦")
RED = frozenset("♥♦")
SUIT_ALIASES = {"s": "♠", "c": "♣", "h": "♥", "d": "♦", "♠": "♠", "♣": "♣", "♥": "♥", "♦": "♦"}

ROLE_NAMES = {
    "sum_high": "三枚の合計が２５以上",
    "sum_low": "三枚の合計が１０以下",
    "colour_run": "三枚とも同じ色のスートの数並び",
    "colour_set": "三枚とも同じ色のスートの同じ数",
    "face_colour_set": "三枚が同じ色のスートの同じ絵札",
    "three_queens": "三枚が女王である",
}
ROLE_ACTIONS = {"sum_high": 1, "sum_low": 1, "colour_run": 1, "colour_set": 1, "face_colour_set": 3, "three_queens": 3}


class Card:
    """One card of the shoe: rank, suit and which of the two decks (``copy``). Immutable, and one object per card:
    ``Card("Q", "♥", 2)`` is always the same object, so cards compare by identity at C speed (a discard pile is
    searched at every change window) and the derived facts (``code``, ``id``, ``red``, ``face``) are read, not
    made. Copies and pickles give back the same object."""

    __slots__ = ("rank", "suit", "copy", "code", "id", "red", "face", "number")
    rank: str
    suit: str
    copy: int
    code: str
    id: str
    red: bool
    face: bool
    #: the face value of A and 2–10 (A = 1), None for J/Q/K (``card_value`` applies the table's options)
    number: int | None

    def __new__(cls, rank: str, suit: str, copy: int = 1) -> Card:
        key = (rank, suit, copy)
        card = _CARDS.get(key)
        if card is None:
            card = object.__new__(cls)
            put = object.__setattr__
            put(card, "rank", rank)
            put(card, "suit", suit)
            put(card, "copy", copy)
            code = f"{rank}{suit}"
            put(card, "code", code)
            put(card, "id", f"{code}#{copy}")
            put(card, "red", suit in RED)
            put(card, "face", rank in ("J", "Q", "K"))
            put(card, "number", 1 if rank == "A" else int(rank) if rank.isdigit() else None)
            _CARDS[key] = card
        return card

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"a card is immutable: cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"a card is immutable: cannot delete {name!r}")

    def __reduce__(self) -> tuple[Any, ...]:
        return (Card, (self.rank, self.suit, self.copy))

    def __copy__(self) -> Card:
        return self

    def __deepcopy__(self, memo: Any) -> Card:
        return self

    def _key(self) -> tuple[str, str, int]:
        return (self.rank, self.suit, self.copy)

    def __lt__(self, other: Card) -> bool:
        return self._key() < other._key()

    def __le__(self, other: Card) -> bool:
        return self._key() <= other._key()

    def __gt__(self, other: Card) -> bool:
        return self._key() > other._key()

    def __ge__(self, other: Card) -> bool:
        return self._key() >= other._key()

    def __repr__(self) -> str:
        return f"Card(rank={self.rank!r}, suit={self.suit!r}, copy={self.copy!r})"

    def __str__(self) -> str:
        return self.code


#: every card made so far, by (rank, suit, copy): one object per card
_CARDS: dict[tuple[str, str, int], Card] = {}


def parse_card(text: str) -> Card:
    """``"Q♥"``, ``"10♦#2"``, ``"qh"`` → Card."""
    t = text.strip()
    copy = 1
    if "#" in t:
        t, _, c = t.partition("#")
        copy = int(c)
    suit = SUIT_ALIASES.get(t[-1].lower()) or SUIT_ALIASES.get(t[-1])
    rank = t[:-1].upper()
    if suit is None or rank not in RANKS or copy not in (1, 2):
        raise ValueError(f"not a card: {text!r} (rank A,2..10,J,Q,K + suit ♠♣♥♦ or s/c/h/d, optional #1/#2)")
    return Card(rank, suit, copy)


def card_value(card: Card, face_card_numeric: int | None = None, ace_value: int = 1) -> int | None:
    """A = 1, 2–10 face value, J/Q/K no number (A25: ``face_card_numeric`` null) or the configured number."""
    if card.face:
        return face_card_numeric
    if card.rank == "A":
        return ace_value
    return card.number


def roles_of(hand: Sequence[Card], face_card_numeric: int | None = None, ace_value: int = 1) -> list[str]:
    """Every role (§9.9) a hand of exactly three cards matches."""
    if len(hand) != 3:
        return []
    a, b, c = hand
    # card_value, inlined (a change window tries three hands for each polled actor)
    return _roles_of_values(a, b, c, face_card_numeric if a.face else ace_value if a.number == 1 else a.number,
                            face_card_numeric if b.face else ace_value if b.number == 1 else b.number,
                            face_card_numeric if c.face else ace_value if c.number == 1 else c.number)


def _roles_of_values(a: Card, b: Card, c: Card, va: int | None, vb: int | None, vc: int | None) -> list[str]:
    """``roles_of`` of the hand a, b, c whose values (``card_value`` with the table's options) are va, vb, vc."""
    same_colour = a.red == b.red == c.red
    out = []
    if va is not None and vb is not None and vc is not None:
        total = va + vb + vc
        if total >= 25:
            out.append("sum_high")
        if total <= 10:
            out.append("sum_low")
        if same_colour:
            lo, mid, hi = sorted((va, vb, vc))
            if mid == lo + 1 and hi == mid + 1:
                out.append("colour_run")
            if lo == hi:
                out.append("colour_set")
    if same_colour and a.face and b.face and c.face and a.rank == b.rank == c.rank:
        out.append("face_colour_set")
    if a.rank == "Q" and b.rank == "Q" and c.rank == "Q":
        out.append("three_queens")
    return out


def roles_with(hand: Sequence[Card], card: Card, face_card_numeric: int | None = None,
               ace_value: int = 1) -> list[list[str]]:
    """For each card of a three-card hand, the roles of the hand where ``card`` takes its place (a change window's
    takes, §7.4): ``roles_of`` of the three hands, with each card's value read once."""
    if len(hand) != 3:  # a role is a hand of three cards (roles_of)
        return [[] for _ in hand]
    h0, h1, h2 = hand
    v0, v1, v2, vx = [face_card_numeric if h.face else ace_value if h.number == 1 else h.number
                      for h in (h0, h1, h2, card)]
    return [_roles_of_values(h1, h2, card, v1, v2, vx), _roles_of_values(h0, h2, card, v0, v2, vx),
            _roles_of_values(h0, h1, card, v0, v1, vx)]


def action_count(roles: Iterable[str], mode: str = "max") -> int:
    """Several matching roles: the highest count (HOUSE ``multiple_roles = max``) or their sum."""
    counts = [ROLE_ACTIONS[r] for r in roles]
    if not counts:
        return 0
    return max(counts) if mode == "max" else sum(counts)


def card_info(card: Card, face_card_numeric: int | None = None, ace_value: int = 1) -> dict[str, Any]:
    """What an agent needs to know of one card (decision contexts of rp.* and fm.*)."""
    return {"id": card.id, "code": card.code, "value": card_value(card, face_card_numeric, ace_value), "suit": card.suit,
            "rank": card.rank, "red": card.red, "face": card.face}


def numbered(texts: Sequence[str], counter: str = "つ目") -> list[str]:
    """Option texts a player can tell apart: a text that occurs more than once gets its ordinal among its equals
    (「5♦（1枚目）」「5♦（2枚目）」, 「みんなで無事に帰る（2つ目）」); a text that occurs once stays as it is."""
    if len(set(texts)) == len(texts):
        return list(texts)
    counts = Counter(texts)
    seen: Counter[str] = Counter()
    out = []
    for t in texts:
        if counts[t] > 1:
            seen[t] += 1
            out.append(f"{t}（{seen[t]}{counter}）")
        else:
            out.append(t)
    return out


def card_names(cards: Sequence[Card]) -> dict[str, str]:
    """Card id → the card as a player names it among ``cards`` (a hand): its code, and where two copies of one
    card lie together (two decks in the shoe) which of them in the hand's order: 「5♦（1枚目）」「5♦（2枚目）」."""
    return {c.id: n for c, n in zip(cards, numbered([c.code for c in cards], "枚目"))}


def slot_accepts(slot: dict[str, Any], card: Card, face_card_numeric: int | None = None) -> bool:
    """A flag-map condition slot (§7.6): any of suit, colour (red/black), rank, min/max numeric value, face."""
    if "suit" in slot and SUIT_ALIASES.get(str(slot["suit"]).lower(), slot["suit"]) != card.suit:
        return False
    if "colour" in slot and (slot["colour"] == "red") != card.red:
        return False
    if "rank" in slot and str(slot["rank"]).upper() != card.rank:
        return False
    if "face" in slot and bool(slot["face"]) != card.face:
        return False
    v = card_value(card, face_card_numeric)
    if "min" in slot and (v is None or v < int(slot["min"])):
        return False
    if "max" in slot and (v is None or v > int(slot["max"])):
        return False
    return True


def full_shoe() -> list[Card]:
    """The 104 cards of two decks, in deck order (a new list of the same card objects)."""
    return list(_FULL_SHOE)


_FULL_SHOE = tuple(Card(r, s, copy) for copy in (1, 2) for s in SUITS for r in RANKS)


class Shoe:
    """Draw pile and discard pile of one procedure (G8: each procedure uses its own freshly shuffled shoe)."""

    def __init__(self, dice: Dice, purpose: str, order: Sequence[Card] | None = None):
        self.dice = dice
        self.purpose = purpose
        # the top of the deck is the END of the list (pop is O(1))
        self.deck: list[Card] = list(reversed(order)) if order is not None else dice.shuffle(full_shoe(), f"shuffle:{purpose}")
        self.discard: list[Card] = []
        self.reshuffles = 0

    @property
    def can_draw(self) -> bool:
        """Whether a card is left to draw (in the deck, or in the discard pile to reshuffle)."""
        return bool(self.deck or self.discard)

    def draw(self) -> Card:
        if not self.deck:
            if not self.discard:
                raise RuntimeError("no card left in the deck or the discard pile")
            # G8: shuffle the discard pile into a new deck
            self.deck = self.dice.shuffle(self.discard, f"reshuffle:{self.purpose}")
            self.discard = []
            self.reshuffles += 1
        return self.deck.pop()

    def put_on_top(self, cards: Sequence[Card]) -> None:
        """Forced deck order for examples and designers: ``cards[0]`` is drawn first."""
        self.deck.extend(reversed(list(cards)))

    def snap(self) -> dict[str, Any]:
        return {"deck": len(self.deck), "discard": [c.code for c in self.discard], "reshuffles": self.reshuffles}


@functools.lru_cache(maxsize=1024)
def _accepted(fields: tuple[tuple[str, Any], ...], face_card_numeric: int | None) -> frozenset[str]:
    slot = dict(fields)
    return frozenset(c.code for c in _FULL_SHOE[:52] if slot_accepts(slot, c, face_card_numeric))  # one deck


def accepted_codes(slot: Mapping[str, Any] | Any, face_card_numeric: int | None = None) -> frozenset[str]:
    """The codes of the cards a flag-map condition slot accepts (``slot_accepts`` over the 52 cards): a slot is then
    tested with one set lookup. ``slot``: a mapping, or a pydantic model of the slot (``scenario.SlotData``; its
    None fields are left out).
    A pure function of the slot's fields, kept per distinct slot (a batch plays the same map thousands of times)."""
    items = slot.items() if isinstance(slot, Mapping) else ((k, getattr(slot, k)) for k in type(slot).model_fields)
    return _accepted(tuple((k, v) for k, v in items if v is not None), face_card_numeric)

