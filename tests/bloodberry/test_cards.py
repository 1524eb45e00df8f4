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


def _reference_roles(hand, face=None, ace=1):
    """§9.9 as written, through ``card_value`` (the reference the inlined ``roles_of`` must equal)."""
    from engine.systems.bloodberry.cards import card_value

    if len(hand) != 3:
        return []
    a, b, c = hand
    va, vb, vc = (card_value(x, face, ace) for x in hand)
    same = a.red == b.red == c.red
    out = []
    if None not in (va, vb, vc):
        nums = sorted((va, vb, vc))
        if va + vb + vc >= 25:
            out.append("sum_high")
        if va + vb + vc <= 10:
            out.append("sum_low")
        if same and nums[1] == nums[0] + 1 and nums[2] == nums[1] + 1:
            out.append("colour_run")
        if same and nums[0] == nums[1] == nums[2]:
            out.append("colour_set")
    if a.face and b.face and c.face and same and a.rank == b.rank == c.rank:
        out.append("face_colour_set")
    if a.rank == b.rank == c.rank == "Q":
        out.append("three_queens")
    return out


@pytest.mark.parametrize("face,ace", [(None, 1), (0, 1), (10, 1), (None, 11), (11, 14)])
def test_roles_of_every_hand_of_one_deck_under_each_option(face, ace):
    from itertools import combinations

    for hand in combinations(full_shoe()[:52], 3):
        assert roles_of(hand, face, ace) == _reference_roles(hand, face, ace), hand


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 103), min_size=4, max_size=4, unique=True), st.sampled_from([None, 0, 10]),
       st.sampled_from([1, 11]), st.integers(0, 3))
def test_roles_with_is_the_roles_of_each_take(picks, face, ace, size):
    """A change window's takes (§7.4): card i of the hand replaced by the placed card, roles read once per card."""
    from engine.systems.bloodberry.cards import roles_with

    shoe = full_shoe()
    *rest, placed = [shoe[i] for i in picks]
    hand = rest[:size] if size < 3 else rest
    assert roles_with(hand, placed, face, ace) == [
        _reference_roles([h for h in hand if h is not c] + [placed], face, ace) for c in hand]


def test_a_flag_map_slot_accepts_the_cards_slot_accepts_says():
    from engine.systems.bloodberry.cards import accepted_codes, slot_accepts
    from engine.systems.bloodberry.scenario import SlotData

    slots = [{}, {"suit": "♦"}, {"colour": "red", "min": 5}, {"rank": "Q"}, {"face": True}, {"max": 3},
             {"suit": "♠", "face": False, "max": 9}, {"face": True, "min": 1}]
    for spec in slots:
        for face in (None, 10):
            want = {c.code for c in full_shoe() if slot_accepts(spec, c, face)}
            assert accepted_codes(spec, face) == want, (spec, face)
            assert accepted_codes(SlotData(**spec), face) == want  # the scenario's model reads the same
