"""The story layer's generic fallbacks: a system without story hooks (the toy) still tells its story."""

from __future__ import annotations

from agent.scripted import ScriptedAgent
from engine.core import Session, load_scenario
from engine.core.events import CheckEvent, CheckRoll, StateEvent
from engine.core.story import generic_dice_lines, generic_state, story_of
from engine.core.visibility import GM


def test_a_system_without_hooks_gets_the_generic_story(toy_path):
    s = Session(load_scenario(toy_path), 1)
    agent = ScriptedAgent()
    while s.pending is not None:
        s.answer(agent.act(s.view()))
    items = story_of(s.transcript(GM), None)
    assert any(i.kind == "narration" and i.speaker == "GM" for i in items)
    assert items[-1].kind == "ending" and items[-1].lines


def test_generic_dice_line_and_state_words():
    names = {"aoi": "七瀬 葵"}.get
    e = CheckEvent(id="k1", check="judge", rule="§5", label="南京錠を開ける",
                   rolls=[CheckRoll(who="aoi", pool=4, faces=[1, 1, 5, 1], ach=1, target=1, success=True)])
    assert generic_dice_lines(e, lambda i: names(i, i)) == ["七瀬 葵: 4個 [1 1 5 1] → 達成値 1 / 目標値 1 成功"]
    assert generic_dice_lines(e, lambda i: names(i, i), "en") == [
        "七瀬 葵: 4 dice [1 1 5 1] → achievement 1 / target 1 success"]
    st = StateEvent(path="aoi.willpower", old=1, new=2)
    assert generic_state(st, lambda i: names(i, i), {"willpower": "気力"}) == "七瀬 葵の気力: 1 → 2"
    assert generic_state(st, lambda i: names(i, i), {}) is None  # a path the system does not name: bookkeeping
