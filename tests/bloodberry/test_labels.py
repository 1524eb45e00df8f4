"""Option labels within one decision are unique: a player choosing from a list must be able to tell the options apart.

Duplicates came from two copies of one card in a hand (the shoe holds two decks: 「5♦ を…へ」 twice) and from two
victory conditions with the same text. Such options now carry their ordinal among their equals — 「5♦（1枚目）」
「5♦（2枚目）」, 「みんなで無事に帰る（2つ目）」 — and only where needed. The sessions below (both sample scenarios,
random and scripted agents, card bids, character creation) are known to meet every such case; the last test checks
that they still do, so that the uniqueness test keeps testing something.
"""

from __future__ import annotations

import inspect
import re
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from agent.random_agent import RandomAgent
from agent.scripted import ScriptedAgent
from engine.core import IllegalAnswer, Session, load_scenario
from engine.systems.bloodberry.cards import card_names, numbered, parse_card

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "scenarios" / "bloodberry"

BID = {"flagmap_camp_order": "card_bid"}
#: (case id, scenario, config, options, agent, seeds). Agents: random, scripted, or mixed — random choices and the
#: scripted policy's free texts (names, victory conditions: a player who writes the same wish twice). salt_festival
#: cannot be played with create_pcs (its flag-map camps name the premade PCs): creation is played with inoiri_dolls.
CASES: list[tuple[str, str, dict[str, Any], dict[str, Any], str, tuple[int, ...]]] = [
    ("inoiri-random", "inoiri_dolls", {}, {}, "random", tuple(range(20))),
    ("inoiri-scripted", "inoiri_dolls", {}, {}, "scripted", tuple(range(3))),
    ("inoiri-create-bid-mixed", "inoiri_dolls", {**BID, "initiative_card_mode": "discard_redraw"}, {"create_pcs": True},
     "mixed", tuple(range(20))),
    ("inoiri-create-scripted", "inoiri_dolls", {}, {"create_pcs": True}, "scripted", tuple(range(3))),
    ("salt-random", "salt_festival", {}, {}, "random", (*range(8), 16)),
    ("salt-scripted", "salt_festival", {}, {}, "scripted", tuple(range(3))),
    ("salt-bid-mixed", "salt_festival", {**BID, "change_window_timing": "after_draw", "subevent_card_consumed": False}, {},
     "mixed", (*range(8), 20)),
    ("salt-bid-scripted", "salt_festival", BID, {}, "scripted", tuple(range(3))),
]

#: the decision kinds where equal labels were found; every one must still be met by the sessions above
KINDS = ("rp.initiative", "rp.discard", "rp.change", "fm.bid", "fm.place", "fm.subevent", "bs.victory", "end.victory_eval")
#: the ordinal added to tell equal options apart
ORDINAL = re.compile(r"（\d+(?:枚目|つ目)）")


def _act(agent: Any, d: Any, s: Session) -> Any:
    """The agent's answer, whichever agent protocol is in force (``act(view)`` or the older ``act(decision, session)``)."""
    if len(inspect.signature(agent.act).parameters) == 1:
        return agent.act(s.view(d))
    return agent.act(d, s)


def _answer(agent: Any, d: Any, s: Session) -> None:
    """Answer as a table does: the agent's answer; if the rules refuse it (a fuzzed payload), the scripted policy's;
    if even that is refused, the first option / the payload model's defaults."""
    try:
        s.answer(_act(agent, d, s))
        return
    except IllegalAnswer:
        pass
    try:
        s.answer(_act(ScriptedAgent(), d, s))
    except IllegalAnswer:
        if d.payload_model is not None:
            s.answer({"payload": d.payload_model().model_dump(mode="json")})
        else:
            s.answer(d.option_ids[0] if d.pick is None else d.option_ids[: d.pick[0]])


@cache
def _scenario(name: str) -> Any:
    return load_scenario(SAMPLES / f"{name}.yaml")


@cache
def _play(case: str) -> tuple[list[str], frozenset[str]]:
    """Play a case's sessions: every decision whose labels repeat, and the kinds where options were told apart."""
    _, name, config, options, policy, seeds = next(c for c in CASES if c[0] == case)
    problems: list[str] = []
    told_apart: set[str] = set()
    for seed in seeds:
        scripted = ScriptedAgent()
        agent = scripted if policy == "scripted" else RandomAgent(seed)
        s = Session(_scenario(name), seed=seed, config=config, options=options, keep_events=False)
        n = 0
        while (d := s.pending) is not None:
            labels = [o.label for o in d.options or ()]
            if len(set(labels)) != len(labels):
                twice = sorted(lab for lab, k in Counter(labels).items() if k > 1)
                problems.append(f"seed {seed} #{d.seq} {d.kind} ({d.actor}): {twice}")
            bare = [ORDINAL.sub("", lab) for lab in labels]
            if len(set(bare)) != len(bare):
                told_apart.add(d.kind)
            problems += [f"seed {seed} #{d.seq} {d.kind}: a card id in {lab!r}" for lab in labels if re.search(r"#\d", lab)]
            _answer(scripted if policy == "mixed" and d.payload_model is not None else agent, d, s)
            n += 1
            assert n < 20_000, f"{case} seed {seed}: the session does not end"
    return problems, frozenset(told_apart)


@pytest.mark.parametrize("case", [c[0] for c in CASES])
def test_option_labels_are_unique(case: str) -> None:
    problems, _ = _play(case)
    assert not problems, f"{len(problems)} decisions with options a player cannot tell apart:\n" + "\n".join(problems[:30])


def test_the_sessions_meet_every_kind_of_equal_options() -> None:
    """The cases above still meet two equal cards in a hand / two equal victory conditions in every kind."""
    met = set().union(*(_play(c[0])[1] for c in CASES))
    assert set(KINDS) <= met, f"no session met equal options in {sorted(set(KINDS) - met)}: pick other seeds"


def test_numbered() -> None:
    assert numbered(["a", "b"]) == ["a", "b"]
    assert numbered(["みんなで無事に帰る", "みんなで無事に帰る"]) == ["みんなで無事に帰る（1つ目）", "みんなで無事に帰る（2つ目）"]
    assert numbered(["x", "y", "x"], "枚目") == ["x（1枚目）", "y", "x（2枚目）"]
    assert numbered([]) == []


def test_card_names_in_hand_order() -> None:
    hand = [parse_card(x) for x in ("5♦#2", "3♥", "5♦#1")]
    assert card_names(hand) == {"5♦#2": "5♦（1枚目）", "3♥#1": "3♥", "5♦#1": "5♦（2枚目）"}
    assert list(card_names([parse_card("Q♥"), parse_card("Q♦")]).values()) == ["Q♥", "Q♦"]
