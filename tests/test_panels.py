"""A system's panels (``SystemInfo.panels``, ``engine.core.panels``) from real sessions' observations, and the
terminal drawing them without knowing the system (ARCHITECTURE 11: a system is its own folders)."""

from __future__ import annotations

import io
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from agent.human import HumanAgent, render_observation
from agent.scripted import ScriptedAgent
from engine.core import Session, load_scenario
from engine.core.panels import Panel
from engine.core.registry import SystemInfo, get_system, systems

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = [(info.id, Path(p)) for info in systems() for p in info.sample_scenarios]


def draw(obs: dict[str, Any], info: SystemInfo, compact: bool) -> str:
    buf = io.StringIO()
    Console(file=buf, width=200, color_system=None).print(
        render_observation(obs, "seat", compact=compact, panels=info.panels, labels=info.labels))
    return buf.getvalue()


def play_until(path: Path, seed: int, stop: Callable[[dict[str, Any]], bool], limit: int = 2000) -> Session:
    """A scripted session played until the pending decision's observation meets ``stop``."""
    s = Session(load_scenario(path), seed)
    agent = ScriptedAgent()
    for _ in range(limit):
        if s.pending is None or stop(s.pending.observation):
            break
        s.answer(agent.act(s.view()), policy="scripted")
    assert not s.is_over, f"{path.name}: the session ended first"
    return s


@pytest.mark.parametrize(("system", "path"), SAMPLES, ids=[f"{s}-{p.stem}" for s, p in SAMPLES])
def test_every_sample_scenario_draws_its_panels_at_the_terminal(system: str, path: Path):
    """Over the first decisions of each sample scenario: the panels are plain text, each table row as wide as its
    header, and the terminal shows every panel's title and first cell."""
    info = get_system(system)
    assert info.panels is not None
    s = Session(load_scenario(path), 1)
    agent = ScriptedAgent()
    for n in range(80):
        if s.pending is None:
            break
        if n % 8 == 0:
            obs = s.pending.observation
            for compact in (True, False):
                made = info.panels(obs, compact)
                text = draw(obs, info, compact)
                for p in made:
                    assert isinstance(p, Panel)
                    cells = [*p.header, *(c for r in p.rows for c in r), *p.lines, *p.covers]
                    assert all(isinstance(c, str) for c in cells), p
                    assert all(len(r) == len(p.header) for r in p.rows) if p.header else True, p
                    if p.title:
                        assert p.title in text
                    if p.rows and p.rows[0][0]:
                        assert p.rows[0][0].split()[0] in text
        s.answer(agent.act(s.view()), policy="scripted")


@cache
def _yogaribito_in_combat() -> Session:
    path = ROOT / "scenarios" / "yogaribito" / "night_of_the_count.yaml"
    return play_until(path, 7, lambda o: bool((o.get("battlefield") or {}).get("order")))


def test_yogaribito_panels_show_the_characters_the_battlefield_and_my_sheet():
    s = _yogaribito_in_combat()
    info = s.system
    obs = s.game.observation("jin")
    chars, me = info.panels(obs, True)
    assert [h for h in chars.header if h in ("命", "魂", "燎", "運", "財", "弾")] == ["命", "魂", "燎", "運", "財", "弾"]
    names = [r[0] for r in chars.rows]
    assert "御堂迅" in names and "白鷺澪" in names
    jin = chars.rows[names.index("御堂迅")]
    life = obs["characters"]["jin"]
    assert jin[chars.header.index("命")] == f"{life['current']['life']}/{life['base']['life']}"
    assert any(line.startswith("ラウンド ") and "[E1]" in line for line in chars.lines)
    assert any(line.startswith("行動順: ") for line in chars.lines)
    assert set(chars.covers) == {"characters", "battlefield", "system"}
    assert me.title == "自分 (me)" and {"クラス", "特技", "アイテム"} <= {r[0] for r in me.rows}
    text = draw(obs, info, True)
    for needle in ("キャラクター・戦場", "御堂迅", "命", "エンゲージ", "行動順", "自分 (me)", "クラス", "特技"):
        assert needle in text, needle
    assert "キャラクター (characters)" not in text  # covered by the panel
    # the full view (`state`): the same table, and the sheets generically
    full = info.panels(obs, False)
    assert len(full) == 1 and "characters" not in full[0].covers
    text = draw(obs, info, False)
    assert "キャラクター・戦場" in text and "キャラクター (characters)" in text and "自分 (me)" in text


def test_a_human_seat_gets_the_panels_from_its_seat_view():
    """HumanAgent knows no system: the compact view before the decision and `state` both draw the panels of the
    seat view's ``SystemInfo``."""
    s = _yogaribito_in_combat()
    d = s.pending
    buf = io.StringIO()
    answers = iter(["state", "1"])
    agent = HumanAgent(Console(file=buf, width=200, color_system=None), lambda prompt: next(answers, ""))
    ans = agent.act(s.view())
    assert d.options is not None and ans.get("choice", (ans.get("choices") or [None])[0]) == d.option_ids[0]
    text = buf.getvalue()
    assert text.count("キャラクター・戦場") == 2, d.kind  # compact, then `state`
    assert "行動順" in text and "命" in text


def test_bloodberry_panels_show_the_flag_map_and_the_cards_with_the_characters_table():
    path = ROOT / "scenarios" / "bloodberry" / "salt_festival.yaml"
    info = get_system("bloodberry")
    s = play_until(path, 1, lambda o: isinstance(o.get("flag_map"), dict))
    obs = s.game.observation("nagisa")
    made = info.panels(obs, True)
    assert [p.title for p in made] == ["フラグマップ (flag map)", "", ""]
    head, places, hands = made
    assert "時刻" in head.lines[0] and head.covers == ("flag_map",)
    assert places.header[:3] == ("場所 (place)", "成立条件 (condition)", "フラグ (flag)")
    assert all(h.startswith("陣営（") for h in places.header[3:]) and len(places.header) > 3
    assert len(places.rows) == len(obs["flag_map"]["places"])
    assert [r[0] for r in hands.rows][-1] == "捨て札 (discard)"
    assert any(r[0].endswith("の手札") and "枚" not in r[1] for r in hands.rows)  # her own camp's cards
    text = draw(obs, info, True)
    for needle in ("フラグマップ (flag map)", "場所 (place)", "陣営（", "の手札",
                   # the characters table stays the terminal's generic one, in the system's terms
                   "キャラクター (characters)", "浜木綿 凪沙", "能力値 (abilities)", "情熱", "気力 (willpower)"):
        assert needle in text, needle
    assert "camps" not in text and "clock_minutes  " in text  # the raw flag map is covered, the rest is shown

    s = play_until(path, 1, lambda o: isinstance(o.get("cards"), dict))
    obs = s.game.observation("nagisa")
    cards = info.panels(obs, True)[0]
    assert cards.title == "ラウンド進行 (cards)" and cards.covers == ("cards",)
    rows = dict(cards.rows)
    assert rows["手札 (my hand)"] == " ".join(obs["cards"]["my_hand"]) and "山札 (deck)" in rows
    text = draw(obs, info, False)
    assert "ラウンド進行 (cards)" in text and "手札 (my hand)" in text and "順番 (order)" in text
    gm = info.panels(s.game.observation("gm"), True)[0]
    assert any(r[0].startswith("手札 ") and r[0] != "手札 (my hand)" for r in gm.rows)  # the GM sees every hand


def test_inoiri_dolls_without_cards_or_flag_map_has_no_panels():
    """ブラッドベリー's sheets, relations and scene are the terminal's generic views: no panel to cover them."""
    path = ROOT / "scenarios" / "bloodberry" / "inoiri_dolls.yaml"
    info = get_system("bloodberry")
    s = play_until(path, 1, lambda o: "me" in o)
    obs = s.pending.observation
    assert info.panels(obs, True) == [] and info.panels(obs, False) == []
    text = draw(obs, info, True)
    assert "キャラクター (characters)" in text and "関係 (relations)" in text
