"""「A」's panels: the scene (goal, turn, time scale, progress, declarers), the table (casts, hero points, elements,
acted), one's own sheet with categories and usage counts; the terminal draws them without knowing the system."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from agent.human import render_observation
from agent.scripted import ScriptedAgent
from engine.core import Session, get_system, load_scenario

ROOT = Path(__file__).resolve().parents[2]


def test_panels_in_the_middle_of_a_scene():
    s = Session(load_scenario(ROOT / "scenarios" / "a_game" / "yomichi_no_hikari.yaml"), seed=2)
    agent = ScriptedAgent()
    while not (s.pending.kind == "ck.fixed" and s.game.t.scene is not None):
        s.answer(agent.act(s.view()), policy="scripted")
    info = get_system("a_game")
    obs = s.game.observation("yagami")
    scene, table, me = info.panels(obs, True)
    rows = dict(scene.rows)
    assert rows["シーン"].startswith("1「消えた若者たち」") and "難易度 6" in rows["目標"]
    assert rows["ターン"].startswith("1/10") and "30分" in rows["ターン"]
    assert table.header[:4] == ("", "キャスト", "HP", "成功要素")
    names = [r[0] for r in table.rows]
    assert "矢神" in names and "伯爵" in names
    assert table.rows[names.index("矢神")][1] == "主人公"
    assert me.header == ("成功要素", "判定分野", "使用回数", "") and me.rows[0][0] == "【空手】"
    assert me.rows[0][1] == "戦闘・運動"
    full = info.panels(obs, False)
    assert len(full) == 3 + 4  # every other PC's sheet in the full view
    buf = io.StringIO()
    Console(file=buf, width=200, color_system=None).print(render_observation(obs, "yagami", compact=True,
                                                                             panels=info.panels, labels=info.labels))
    text = buf.getvalue()
    for needle in ("シーン (scene)", "卓 (characters)", "自分 (me)", "【空手】", "主人公"):
        assert needle in text, needle
