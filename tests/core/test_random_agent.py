from __future__ import annotations

import random

from agent.random_agent import RandomAgent, payload_from_schema
from agent.table import SeatSpec, Table
from engine.core import Decision, Option, Session, load_scenario

from .fake_system import ToyBid


def pick_decision(seq: int = 0) -> Decision:
    d = Decision(actor="gm", kind="k", prompt="", rule="r", options=[Option(x, x) for x in "abcdef"], pick=(0, 3))
    d.seq = seq
    return d


def test_deterministic_per_seed_seq_and_actor():
    a, b = RandomAgent(3), RandomAgent(3)
    answers = [a.answer_for(pick_decision(i)) for i in range(50)]
    assert answers == [b.answer_for(pick_decision(i)) for i in range(50)]
    assert answers != [RandomAgent(4).answer_for(pick_decision(i)) for i in range(50)]
    # no hidden state: asking again, or in another order, gives the same answers
    assert [a.answer_for(pick_decision(i)) for i in reversed(range(50))] == list(reversed(answers))


def test_subset_sizes_cover_the_bounds_and_are_legal():
    agent = RandomAgent(0)
    sizes = set()
    for i in range(200):
        d = pick_decision(i)
        ans = agent.answer_for(d)
        d.check(ans)
        sizes.add(len(ans))
    assert sizes == {0, 1, 2, 3}


def test_payloads_from_the_schema_are_valid():
    rng = random.Random(1)
    schema = ToyBid.model_json_schema()
    bids = [ToyBid.model_validate(payload_from_schema(schema, rng)) for _ in range(100)]
    assert len({b.amount for b in bids}) > 1, "the payloads should vary"


def test_payload_retries_against_the_cross_check():
    d = Decision(actor="npc1", kind="toy.bid", prompt="", rule="r", payload_model=ToyBid,
                 payload_check=lambda b: "too much" if b.amount > 2 else None)
    for seq in range(30):
        d.seq = seq
        answer = d.check(RandomAgent(5).answer_for(d))
        assert answer.payload is not None and answer.payload.amount <= 2


def test_payloads_are_fuzzed_first_and_samples_used_only_when_nothing_fuzzed_passes():
    # a payload the schema allows and the rules accept: fuzzed, not taken from the samples
    d = Decision(actor="npc1", kind="toy.bid", prompt="", rule="r", payload_model=ToyBid,
                 samples=[{"amount": 4, "word": "x"}])
    got = [RandomAgent(seed).answer_for(d) for seed in range(10)]
    assert len({str(g) for g in got}) > 1 and all(d.check(g) for g in got)
    # a cross-field rule no fuzzed payload meets: the decision's legal sample
    d = Decision(actor="npc1", kind="toy.bid", prompt="", rule="r", payload_model=ToyBid,
                 payload_check=lambda b: None if b.word == "合言葉" else "wrong word",
                 samples=[{"amount": 4, "word": "合言葉"}])
    assert RandomAgent(0).answer_for(d) == {"payload": {"amount": 4, "word": "合言葉"}}
    assert "samples" not in d.to_dict() and not d.context  # not a hint that prompts would show


def test_random_play_finishes_legally(toy_path):
    sc = load_scenario(toy_path)
    for seed in range(20):
        s = Session(sc, seed)
        t = Table(s, SeatSpec.parse(["all=random"]))
        t.run()
        assert s.is_over and t.fallbacks == 0 and s.illegal_answers == 0
