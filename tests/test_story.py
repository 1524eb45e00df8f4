"""The story layer (``engine.core.story``) on real seeded sessions of every built system's sample scenarios: a GM ruling,
a clue or information, a relation or resource change and the ending are narrated to the seats that may see them and
not to the others; shared logs (``trpg replay --format story``) render what one seat saw."""

from __future__ import annotations

import functools

import pytest

from agent.scripted import ScriptedAgent
from engine.core import Session, load_scenario
from engine.core.events import StateEvent
from engine.core.registry import get_system, systems
from engine.core.story import StoryHooks, Storyteller, names_for
from engine.core.story_log import render_story
from engine.core.visibility import GM, seat_transcript

BUILT = ("bloodberry", "yogaribito", "a_game", "last_fragment")


@functools.cache
def played(system: str, stem: str, seed: int = 7) -> Session:
    info = get_system(system)
    path = next(p for p in info.sample_scenarios if p.stem == stem)
    s = Session(load_scenario(path), seed)
    agent = ScriptedAgent()
    while s.pending is not None:
        s.answer(agent.act(s.view()))
    return s


def story(s: Session, actor: str) -> list:
    teller = Storyteller(s.system, "ja")
    teller.learn(s.observation(actor))
    return teller.items(s.transcript(actor))


def pcs(s: Session) -> list[str]:
    return [a for a in s.game.actors() if s.actor_role(a) == "pc"]


def texts(items, kind=None) -> list[str]:
    return [i.text for i in items if kind is None or i.kind == kind]


def whole(items) -> str:
    return "\n".join(f"{i.speaker} {i.text} " + " ".join(i.lines) for i in items)


def test_every_built_system_supplies_story_hooks():
    for sid in BUILT:
        assert isinstance(get_system(sid).story, StoryHooks), sid


def test_bloodberry_story_per_seat():
    s = played("bloodberry", "inoiri_dolls")
    gm, aoi, beni = story(s, GM), story(s, "aoi"), story(s, "beni")
    for items in (aoi, beni):
        # a GM ruling given as a public decision, with its subject
        assert "シーンアクターの申告: 認める" in texts(items, "ruling")
        # clues as they are learned, in full
        assert any(t.startswith("手がかり: 藁雛は居入港の浜の葦で編まれ") for t in texts(items, "clue"))
        # a relation change in words, by name
        assert "七瀬 葵と御堂 紅の関係が 0 → 1" in texts(items, "change")
        assert any("の気力 1 → 2" in t for t in texts(items, "change"))
        # dice lines: abilities, pool, faces, 達成値 against 目標値, a reroll with the new faces
        dice = [line for i in items if i.kind == "dice" for line in i.lines]
        assert "大鷺 ドラ（情熱+大人）: 4個 [3 2 4 6] → 達成値 1 / 目標値 1 成功" in dice
        assert any("振り直し（明日への願い）" in line for line in dice)
        # the ending: what happened to each PC, a rival's victory not read as a win
        end = next(i for i in items if i.kind == "ending")
        assert end.lines[0] == "呪いに勝利した"
        assert any(line.startswith("七瀬 葵: 健在、勝利条件 1/1 達成") for line in end.lines)
        assert len(end.lines) == 1 + len(pcs(s))
    # aoi's victory condition is hers (and the GM's): narrated to her, not to beni
    secret = "七瀬 葵の勝利条件: 雛子が自分自身の答えを見つけ"
    assert any(t.startswith(secret) for t in texts(aoi, "clue"))
    assert any(t.startswith(secret) for t in texts(gm, "clue"))
    assert not any(t.startswith(secret) for t in texts(beni))
    assert next(i for i in aoi if i.text.startswith(secret)).private


def test_yogaribito_story_per_seat():
    s = played("yogaribito", "night_of_the_count")
    for actor in [GM, *pcs(s)]:
        items = story(s, actor)
        # the GM's rulings given as public decisions: which ability a check uses, whether a scene is played
        assert "判定に使う能力値: 【心】（白鷺澪 7）" in texts(items, "ruling"), actor
        assert "シーン: 「決戦前夜」を行う" in texts(items, "ruling")
        assert "「失踪事件」: 失踪者は皆、夜の港で最後に目撃されている。" in texts(items, "clue")
        assert "白鷺澪の【運】 2 → 1" in texts(items, "change")
        assert any(t.startswith("オープニングフェイズ「") for t in texts(items, "heading"))
        dice = [line for i in items if i.kind == "dice" for line in i.lines]
        assert "白鷺澪: 4個 [3 5 4 6] → 達成値 2 / 目標値 2 成功" in dice
        end = next(i for i in items if i.kind == "ending")
        assert end.lines[:3] == ("シナリオの目的を達成した", "御堂迅: 生還", "白鷺澪: 生還")


def test_a_game_story_per_seat():
    s = played("a_game", "hikari_no_ato")
    for actor in [GM, *pcs(s)]:
        items = story(s, actor)
        assert "矢神の成功要素【民俗学】: 承認" in texts(items, "ruling"), actor
        assert "シーンの目標を達成した: 地下の石碑を読み解き、封印の結び直し方を知る" in texts(items, "clue")
        assert "矢神のヒーローポイント 0 → 1" in texts(items, "change")
        assert "シーン1「地下の石碑」" in texts(items, "heading")
        end = next(i for i in items if i.kind == "ending")
        assert end.lines[0] == "すべてのシーンの目標を達成した"
        assert any(line.startswith("矢神: 使った成功要素 【民俗学】") for line in end.lines)


def test_last_fragment_story_per_seat():
    s = played("last_fragment", "shuuden_no_mukou")
    seats = {actor: story(s, actor) for actor in [GM, *pcs(s)]}
    # every seat: the GM's approval of an item (public), a resource change in words, the ending with each PC's fate
    fate = ("クライマックスの勝者: 早瀬 湊", "早瀬 湊: 生還", "雨宮 栞: 生還", "神崎 朔: 生還")
    assert all("古いライター: 承認" in texts(items, "ruling") for items in seats.values())
    assert all("早瀬 湊のトークン: 0 → 1" in texts(items, "change") for items in seats.values())
    assert all(next(i for i in items if i.kind == "ending").lines == fate for items in seats.values())
    mine, shiori, saku = story(s, "minato"), story(s, "shiori"), story(s, "saku")
    # a fragment found is whispered to its finder alone (and the GM); shared, it reaches whom it was shared with
    found = "フラグメント「行先表示」（「電光掲示板」の調査）"
    assert [i.private for i in mine if i.text.startswith(found)] == [True]
    assert not [i for i in shiori if i.text.startswith(found)]
    assert [i.private for i in saku if i.text.startswith("フラグメント「行先表示」（早瀬 湊 からの共有）")] == [True]
    assert any(i.text.startswith(found) for i in story(s, GM))
    # a secret fragment of a handout stays with its PC
    secret = "【シークレットフラグメント】フラグメント「忘れていた約束」（ハンドアウト）"
    assert any(i.text.startswith(secret) and i.private for i in mine)
    assert not any(i.text.startswith(secret) for i in [*shiori, *saku])


@pytest.mark.parametrize("system,stem", [(i.id, p.stem) for i in systems() if i.id in BUILT for p in i.sample_scenarios])
def test_story_items_reach_only_the_seats_that_may_see_their_events(system, stem):
    """Each item of the GM's story comes from one event; a seat outside that event's audience never gets an item of
    it, a seat inside gets it; and no secret is in the story (or its shared log) of a seat outside its holders."""
    s = played(system, stem)
    events = s.events
    gm_seen = seat_transcript(events, GM)
    for actor in pcs(s):
        teller, mine = Storyteller(s.system, "ja"), Storyteller(s.system, "ja")
        expected: list[tuple[str, str]] = []
        for e in gm_seen:
            made = teller.items([e])
            to = getattr(e, "to", None)
            if to is not None and actor not in to:
                continue
            expected += [(i.kind, i.text) for i in made]
        got = [(i.kind, i.text) for i in mine.items(seat_transcript(events, actor))]
        # what the seat sees whole is narrated to it, in order (speech it overhears comes on top)
        it = iter(got)
        missing = [x for x in expected if x not in it]
        assert not missing, (actor, missing[:3])
        # what the seat may not see is not narrated to it (unless the same words came from an event it saw)
        hidden = [(i.kind, i.text) for e in gm_seen if getattr(e, "to", None) is not None and actor not in e.to
                  for i in Storyteller(s.system, "ja").items([e]) if i.kind not in ("speech", "narration")]
        for x in hidden:
            assert x not in got or x in expected, (actor, x)
    for secret in s.game.secrets():
        for actor in pcs(s):
            if actor in secret.holders:
                continue
            seat = names_for(s.system, s.observation(actor))
            text = render_story(events, s.system, seat=actor, names=seat)
            assert secret.text not in whole(story(s, actor)), (actor, secret.text[:40])
            assert secret.text not in text, (actor, secret.text[:40])


def test_a_private_event_is_narrated_to_its_audience_only():
    """ブラッドベリー's victory conditions are told to their PC (and the GM); the items say they are private."""
    s = played("bloodberry", "inoiri_dolls")
    victories = [e for e in s.events if isinstance(e, StateEvent) and e.path.endswith(".victory") and e.new]
    assert victories
    for e in victories:
        owner = e.path.split(".")[0]
        for actor in [GM, *pcs(s)]:
            told = [i for i in story(s, actor) if i.kind == "clue" and str(e.new) in i.text]
            assert bool(told) == (actor in e.to), (owner, actor)
            assert all(i.private for i in told)


def test_story_log_markdown_and_html():
    s = played("bloodberry", "inoiri_dolls")
    names = names_for(s.system, s.observation("aoi"))
    md = render_story(s.events, s.system, "md", seat="aoi", names=names, title="流されなかった雛")
    assert md.startswith("# 流されなかった雛\n")
    assert "七瀬 葵 の見たセッション" in md and "## シーン「枕元の雛」" in md and "🎲 **" in md
    assert "## エンディング" in md and "- 呪いに勝利した" in md
    html = render_story(s.events, s.system, "html", seat=None, names=names_for(s.system, s.observation(GM)))
    assert html.startswith("<!DOCTYPE html>") and "GM の見たセッション" in html and 'class="msg dice' in html
    assert "<script" not in html and "http" not in html.split("<body>")[1]


@pytest.mark.parametrize("system", ["bloodberry", "last_fragment"])  # 夜狩り人 and 「A」 keep the sheet's name
def test_a_pc_named_at_the_table_is_called_by_its_name(system):
    """With --create a PC is called by a placeholder (its id) until its profile is given; the storyteller learns each
    observation's names and the latest wins, so the terminal's 「… の判断」 and the story name the PC as built."""
    info = get_system(system)
    s = Session(load_scenario(info.sample_scenarios[0]), 3, options={"create_pcs": True})
    agent = ScriptedAgent()
    pc = next(a for a in s.game.actors() if s.actor_role(a) == "pc")
    teller = Storyteller(s.system, "ja")
    teller.learn(s.observation(pc))
    before = teller.name(pc)
    for _ in range(2000):
        if s.pending is None or names_for(s.system, s.observation(pc)).get(pc, before) != before:
            break
        s.answer(agent.act(s.view()))
    after = names_for(s.system, s.observation(pc)).get(pc)
    assert after and after != before, "the PC's profile gives it a name"
    teller.learn(s.observation(pc))
    assert teller.name(pc) == after
