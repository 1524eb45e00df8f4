from __future__ import annotations

import io

import pytest
from rich.console import Console

from agent.human import HumanAgent, QuitAndSave, render_observation
from agent.scripted import ScriptedAgent
from agent.table import SeatSpec, Table
from engine.core import IllegalAnswer, Session, load_scenario


def human(lines, lang="en"):
    """A person typing ``lines``; the English interface (``lang``), whose words these tests read."""
    it = iter(lines)
    out = io.StringIO()

    def read(prompt):
        try:
            return next(it)
        except StopIteration:
            raise EOFError from None

    return HumanAgent(Console(file=out, width=100), read, lang=lang), out


def start(toy_path, seed=1):
    return Session(load_scenario(toy_path), seed)


def ask(agent, s):
    """The table's loop for a person: ask, and after a refusal tell them why and ask again."""
    while True:
        ans = agent.act(s.view())
        try:
            s.pending.check(ans)
        except IllegalAnswer as e:
            agent.notify_illegal(e)
            continue
        return ans


def test_choose_by_number_and_commands(toy_path):
    s = start(toy_path)
    agent, out = human(["help", "state", "log", "7", "2"])
    assert ask(agent, s) == {"choice": "right"}
    text = out.getvalue()
    assert "Commands:" in text and "人形たちが目を覚ます。" in text  # help, log
    assert "type a number 1-3" in text
    assert "左の扉" in text and "[left]" in text


def test_pick_with_speech_and_refusal(toy_path):
    s = start(toy_path)
    s.answer("left")
    agent, out = human(["1 2 3", "こんにちは", "1,3", "鏡を持っていく"])
    assert s.pending.kind == "toy.pick"
    ans = ask(agent, s)
    assert ans == {"choices": ["x", "z"], "text": "鏡を持っていく"}
    assert "must pick 1..2" in out.getvalue()
    s.answer(ans)


def test_payload_field_by_field(toy_path):
    s = start(toy_path)
    s.answer("left")
    s.answer(["x"])
    agent, out = human(["九", "9", "2", "はい", "2"])
    ans = ask(agent, s)
    # 九 is not a number, 9 is out of the field's bounds: both asked again at once
    assert ans == {"payload": {"amount": 2, "word": "はい", "mood": "angry"}}
    text = out.getvalue()
    assert "not a whole number" in text and "amount" in text and "at most 6" in text


def test_payload_refused_by_the_rules_is_asked_again(toy_path):
    s = start(toy_path)
    s.answer("left")
    s.answer(["x"])
    # in round 1 the rules allow at most round + 3 = 4 (a cross-field check only the engine knows)
    agent, out = human(["5", "はい", "", "4", "はい", ""])
    assert ask(agent, s) == {"payload": {"amount": 4, "word": "はい"}}
    assert "amount 5 exceeds 4" in out.getvalue()


def test_payload_as_json(toy_path):
    s = start(toy_path)
    s.answer("left")
    s.answer(["x"])
    agent, _ = human(['{"amount": 1, "word": "いいえ"}'])
    assert ask(agent, s) == {"payload": {"amount": 1, "word": "いいえ"}}


def test_quit_and_end_of_input(toy_path):
    s = start(toy_path)
    agent, _ = human(["quit"])
    with pytest.raises(QuitAndSave):
        ask(agent, s)
    agent, _ = human([])
    with pytest.raises(QuitAndSave):
        ask(agent, s)


def test_human_seat_at_a_table(toy_path):
    s = start(toy_path)
    agent, out = human(["1", "", "1", "2", "1", "", "1", "3", "1"])
    seats = SeatSpec.default()
    table = Table(s, seats, lambda policy, actor: agent if policy == "human" else ScriptedAgent())
    table.run()
    assert s.is_over
    answers = [e for e in s.events if e.type == "answer" and e.actor == "aoi"]
    assert [a.policy for a in answers] == ["human"] * 3


def test_observation_panel_shows_japanese_labels():
    """The keys every observation has are named by the terminal, a system's own keys by the system's labels."""
    from engine.core.registry import get_system

    obs = {"me": {"name": "葵", "abilities": {"passion": 3, "grace": 2, "maturity": 2}, "willpower": 1},
           "characters": {"beni": {"name": "紅", "willpower": 0}},
           "relations": [{"between": ["aoi", "beni"], "strength": 1, "emotions": ["友情"]}]}
    out = io.StringIO()
    Console(file=out, width=100).print(render_observation(obs, compact=True, labels=get_system("bloodberry").labels))
    text = out.getvalue()
    for word in ("気力", "情熱 3", "関係", "友情", "紅", "葵", "キャラクター (characters)", "自分 (me)"):
        assert word in text
    out = io.StringIO()
    Console(file=out, width=100).print(render_observation(obs, compact=True))  # no system: the keys as they are
    text = out.getvalue()
    assert "自分 (me)" in text and "passion 3" in text and "情熱" not in text


def test_the_flag_map_panel_names_camps_by_their_members():
    from engine.systems.bloodberry.panels import panels

    fm = {"title": "対峙", "clock_minutes": 600, "unit": 30, "deck": 20, "places": {}, "flags": {},
          "camps": {"rivals": {"members": ["reina", "iori"], "hand_size": 3, "layout": {}}}}
    chars = {"reina": {"name": "大明門 玲奈（だいみょうもん れいな）"}, "iori": {"name": "塩田 伊織"}}
    out = io.StringIO()
    obs = {"flag_map": fm, "characters": chars}
    Console(file=out, width=120).print(render_observation(obs, compact=True, panels=panels))
    text = out.getvalue()
    assert "陣営（大明門 玲奈・塩田 伊織）" in text and "rivals" not in text
    assert "フラグマップ (flag map)" in text and "時刻 10:00" in text and "3 枚" in text


def test_panels_are_drawn_generically_and_cover_their_keys():
    """A system's panels are plain data: a titled table, label/value rows, lines; the keys they cover are left
    out of the generic rest, and their cells are text, never rich markup."""
    from engine.core.panels import Panel

    def panels(obs, compact):
        return [Panel("表 (table)", ("", "命"), [("[bold]葵[/]", "3/5")], ["行動順: 葵"], covers=("people",)),
                Panel("", rows=[("秘密", "内緒")] if compact else [], covers=("me",) if compact else ())]

    obs = {"people": {"aoi": {"name": "葵"}}, "me": {"name": "葵", "note": "メモ"}, "round": 2}
    out = io.StringIO()
    Console(file=out, width=100).print(render_observation(obs, compact=True, panels=panels))
    text = out.getvalue()
    assert "表 (table)" in text and "[bold]葵[/]" in text and "3/5" in text and "行動順: 葵" in text
    assert "秘密" in text and "people" not in text and "メモ" not in text and "round" in text
    out = io.StringIO()
    Console(file=out, width=100).print(render_observation(obs, panels=panels(obs, False)))  # panels already made
    text = out.getvalue()
    assert "秘密" not in text and "メモ" in text and "people" not in text
