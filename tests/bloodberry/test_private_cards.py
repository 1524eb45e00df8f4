"""Hands are private (rules/bloodberry.md §7.4, §7.6): an observation shows a player only its own hand (or its
camp's shared hand); the discard pile is public; the GM sees every hand."""

from __future__ import annotations

import json

from agent.random_agent import RandomAgent
from engine.core import Session, load_scenario

CAST = load_scenario("engine/systems/bloodberry/examples/bloodberry_cast.yaml")


def _rp_session(seed: int) -> Session:
    return Session(CAST, seed=seed, options={"procedure": {"round_progression": {"actors": ["aoi", "beni", "ningyo"], "cycles": 3}}})


def test_round_progression_hands_are_private():
    s = _rp_session(3)
    agent = RandomAgent(3)
    checked = 0
    while not s.is_over:
        rp = s.game.rp
        if rp is not None and rp.order:
            hands = {a: [c.code for c in h] for a, h in rp.hands.items()}
            for actor in ("aoi", "beni"):
                cards = s.observation(actor)["cards"]
                assert cards["my_hand"] == hands[actor]
                assert "hands" not in cards
                assert cards["discard"] == [c.code for c in rp.shoe.discard]
                text = json.dumps({k: v for k, v in cards.items() if k != "discard"}, ensure_ascii=False)
                # another actor's hand appears only as a size
                assert json.dumps(cards["hand_sizes"]) in text
            assert s.observation("gm")["cards"]["hands"] == hands
            checked += 1
        s.answer(agent.act(s.view()), policy="random")
    assert checked > 5


def test_flag_map_camp_hands_are_private():
    data = {
        "id": "m", "title": "地図",
        "camps": [{"id": "a", "members": ["aoi"]}, {"id": "b", "members": ["beni"]}],
        "places": [{"id": "p1", "name": "一", "condition": [{"colour": "red"}, {"colour": "black"}], "flag": "f1"},
                   {"id": "p2", "name": "二", "condition": [{"min": 5}], "flag": "f2"}],
        "flags": [{"id": "f1", "name": "F1"}, {"id": "f2", "name": "F2", "kind": "end", "requires": ["f1"]}],
    }
    s = Session(CAST, seed=5, options={"procedure": {"flag_map": data}})
    agent = RandomAgent(5)
    checked = 0
    while not s.is_over:
        fm = s.game.fm
        if fm is not None and fm.camps:
            a, b = fm.camps[0], fm.camps[1]
            obs_a = s.observation(a.members[0])["flag_map"]["camps"]
            assert obs_a[a.id]["hand"] == [c.code for c in a.hand]
            assert "hand" not in obs_a[b.id] and obs_a[b.id]["hand_size"] == len(b.hand)
            gm = s.observation("gm")["flag_map"]["camps"]
            assert gm[b.id]["hand"] == [c.code for c in b.hand]
            checked += 1
        s.answer(agent.act(s.view()), policy="random")
    assert checked > 3
