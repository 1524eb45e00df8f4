"""A32 card bid (``flagmap_camp_order: card_bid``): the camps lay their cards face down at once. The camp that bids
second — the GM seat, for the rival camp — must not see the first camp's card, nor its hand shrink, before the
reveal (it did: the card left the first camp's hand in the GM's observation, and that removal was never logged)."""

from __future__ import annotations

import json

from agent.scripted import ScriptedAgent
from engine.core import Session, load_scenario
from engine.core.events import RevealEvent, StateEvent

SCENARIO = "scenarios/bloodberry/salt_festival.yaml"
CONFIG = {"flagmap_camp_order": "card_bid"}


def _to_bid(seed: int = 0) -> Session:
    s = Session(load_scenario(SCENARIO), seed, config=CONFIG)
    agent = ScriptedAgent()
    while s.pending.kind != "fm.bid":
        s.answer(agent.act(s.view()))
    return s


def _view(s: Session, actor: str) -> tuple[str, str, str]:
    d = next(m for m in s.pending_all() if m.actor == actor)
    v = s.view(d)
    return (json.dumps(v.observation, ensure_ascii=False, sort_keys=True),
            json.dumps([e.model_dump(mode="json") for e in v.transcript()], ensure_ascii=False),
            json.dumps(d.to_dict(), ensure_ascii=False))


def test_the_rival_camp_bids_without_seeing_the_first_camps_card():
    s = _to_bid()
    members = s.pending_all()
    assert len(members) == 2 and members[1].actor == "gm", [m.actor for m in members]
    pc = members[0]
    before = _view(s, "gm")
    card = pc.option_ids[-1]
    s.answer(card, seq=pc.seq)
    after = _view(s, "gm")
    assert after == before, "the GM seat's view changed when the PC camp laid its card"
    assert s.pending_all() == [members[1]]
    s.answer(members[1].option_ids[0], seq=members[1].seq)
    reveal = [e for e in s.events if isinstance(e, RevealEvent)]
    assert len(reveal) == 1 and reveal[0].answers[pc.actor] == {"choice": card} and reveal[0].to is None
    # the bid cards leave the hands after the reveal, and that is logged (each camp's hand to its members)
    hands = [e for e in s.events if isinstance(e, StateEvent) and e.path.endswith(".hand") and e.cause == "bid"]
    assert len(hands) == 2 and all(e.to and "gm" in e.to for e in hands)


def test_either_answer_order_gives_the_same_session():
    logs = []
    for order in ((0, 1), (1, 0)):
        s = _to_bid(3)
        members = s.pending_all()
        for i in order:
            s.answer(ScriptedAgent().act(s.view(members[i])), seq=members[i].seq)
        while not s.is_over:
            s.answer(ScriptedAgent().act(s.view()))
        logs.append([e.model_dump_json() for e in s.events if e.type not in ("answer", "decision")])
    assert logs[0] == logs[1]


def test_the_draws_of_a_shuffle_are_the_gms_only():
    """A shuffle's draws tell the order of a hidden deck: they are logged for the GM, and no player's transcript
    has them."""
    from engine.core.events import RollEvent

    s = _to_bid()
    shuffles = [e for e in s.events if isinstance(e, RollEvent) and "shuffle" in e.purpose]
    assert shuffles and all(e.to == ["gm"] for e in shuffles)
    for actor in s.game.actors():
        if actor != "gm":
            assert not [e for e in s.transcript(actor) if isinstance(e, RollEvent) and "shuffle" in e.purpose]
