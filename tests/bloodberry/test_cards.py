"""Playing cards (rules/bloodberry.md §7.4, §9.9, A25, G8): roles on the spec's hands, and shoe properties."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.core import Dice
from engine.systems.bloodberry.cards import Shoe, action_count, full_shoe, parse_card, roles_of


@pytest.mark.parametrize(
    "hand,face,roles,count",
    [
        (["9♥", "8♣", "8♦"], None, ["sum_high"], 1),  # EX13 Aoi: sum 25
        (["10♦", "4♣", "5♣"], None, [], 0),  # EX13 Beni: mixed colours
        (["7♠", "7♥", "J♦"], None, [], 0),  # EX13 Ningyo: a face card among numbers
        (["5♥", "6♦", "4♦"], None, ["colour_run"], 1),  # EX14 Beni via change
        (["9♠", "8♠", "7♠"], None, ["colour_run"], 1),  # EX14 Ningyo
        (["Q♥", "Q♠", "Q♦"], None, ["three_queens"], 3),  # EX15 (a)
        (["Q♥", "Q♦", "Q♥#2"], None, ["face_colour_set", "three_queens"], 3),  # EX15 (b): max, not 6
        (["K♣", "J♦", "5♠"], None, [], 0),  # EX15 (c)
        (["K♣", "J♦", "5♠"], 0, ["sum_low"], 1),  # EX15 (c) with face_card_numeric = 0
        (["A♠", "2♣", "3♠"], None, ["sum_low", "colour_run"], 1),  # EX15 (d)
        (["7♥", "7♦", "7♥#2"], None, ["colour_set"], 1),
        (["J♠", "J♣", "J♠#2"], None, ["face_colour_set"], 3),
        (["Q♠", "K♠", "A♠"], None, [], 0),  # no wrap
    ],
)
def test_roles(hand, face, roles, count):
    got = roles_of([parse_card(c) for c in hand], face)
    assert sorted(got) == sorted(roles)
    assert action_count(got) == count


def test_multiple_roles_sum_mode():
    got = roles_of([parse_card(c) for c in ["Q♥", "Q♦", "Q♥#2"]])
    assert action_count(got, "sum") == 6


def test_shoe_has_104_distinct_cards():
    cards = full_shoe()
    assert len(cards) == 104 and len({c.id for c in cards}) == 104
    assert Counter(c.code for c in cards)["Q♥"] == 2


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), draws=st.integers(1, 400))
def test_no_card_dealt_twice_between_reshuffles(seed, draws):
    shoe = Shoe(Dice(seed), "test")
    seen: set[str] = set()
    reshuffles = 0
    for _ in range(draws):
        c = shoe.draw()
        if shoe.reshuffles != reshuffles:
            reshuffles = shoe.reshuffles
            seen = set()
        assert c.id not in seen
        seen.add(c.id)
        shoe.discard.append(c)  # everything drawn goes back to the discard pile
    assert len(shoe.deck) + len(shoe.discard) == 104


def test_shuffle_is_logged_and_replayable():
    a, b = Dice(5), Dice(5)
    assert [c.id for c in Shoe(a, "x").deck] == [c.id for c in Shoe(b, "x").deck]
    assert a.rolls and all(r.purpose == "shuffle:x" for r in a.rolls)


def test_forced_order():
    shoe = Shoe(Dice(0), "x")
    shoe.put_on_top([parse_card("5♣"), parse_card("8♦")])
    assert [shoe.draw().code, shoe.draw().code] == ["5♣", "8♦"]


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), actors=st.sampled_from([["aoi", "beni"], ["aoi", "beni", "ningyo"], ["aoi", "beni", "chika", "dora", "ningyo"]]),
       mode=st.sampled_from(["reveal_keep", "discard_redraw"]), reset=st.sampled_from(["per_cycle", "per_own_round"]))
def test_round_progression_hands_never_exceed_their_size(seed, actors, mode, reset):
    """Through discards, draws, changes, role dumps and refills, no hand ever holds more than 3 cards (§7.4), every
    card exists once (hands + deck + discard pile = 104), and with per_cycle one change per actor per cycle (A27)."""
    from agent.random_agent import RandomAgent
    from engine.core import Session, load_scenario

    sc = load_scenario("engine/systems/bloodberry/examples/bloodberry_cast.yaml")
    s = Session(sc, seed=seed, config={"initiative_card_mode": mode, "change_limit_reset": reset},
                options={"procedure": {"round_progression": {"actors": actors, "cycles": 4}}})
    agent = RandomAgent(seed)
    while not s.is_over:
        rp = s.game.rp
        if rp is not None:
            assert all(len(h) <= 3 for h in rp.hands.values())
            ids = [c.id for h in rp.hands.values() for c in h] + [c.id for c in rp.shoe.deck] + [c.id for c in rp.shoe.discard]
            assert len(ids) == 104 and len(set(ids)) == 104
        s.answer(agent.act(s.view()), policy="random")
    if reset == "per_cycle":
        changes = [e for e in s.events if getattr(e, "topic", None) == "change"]
        assert len(changes) <= len(actors) * 4


def test_a_card_is_one_immutable_object():
    """Equal cards are the same object (a discard pile is searched by identity), copies and pickles included; a card
    cannot be changed; its derived facts are those of its rank and suit."""
    import copy
    import pickle

    q = parse_card("Q♥#2")
    assert q is parse_card("qh#2") and q == parse_card("Q♥#2") and q != parse_card("Q♥")
    assert copy.deepcopy(q) is q and pickle.loads(pickle.dumps(q)) is q
    with pytest.raises(AttributeError):
        q.rank = "K"  # type: ignore[misc]
    assert (q.code, q.id, q.red, q.face, q.number) == ("Q♥", "Q♥#2", True, True, None)
    ten = parse_card("10♠")
    assert (ten.code, ten.red, ten.face, ten.number) == ("10♠", False, False, 10)
    assert parse_card("A♦").number == 1 and sorted([q, ten]) == [ten, q]  # ("10" < "Q")
    assert len(set(full_shoe())) == 104 and all(c is parse_card(c.id) for c in full_shoe())
