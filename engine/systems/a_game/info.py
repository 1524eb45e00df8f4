"""「A」's ``SystemInfo`` (rules/a_game.md): what the rest of the program knows of the system."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...core.registry import SystemInfo, register_system
from .config import AGameConfig
from .decisions import DECISIONS
from .flow import MACHINES
from .invariants import invariants
from .panels import panels as _panels
from .story import STORY
from .prompt_view import compact_observation
from .report import REPORT
from .scenario import AGameScenario

__all__ = ["INFO", "VERSION"]

VERSION = "0.1.3"
_HERE = Path(__file__).resolve().parent
_ROOT = _HERE.parents[2]


def _scenarios() -> Path:
    from ...resources import resource_dir

    try:
        return resource_dir("scenarios") / "a_game"
    except FileNotFoundError:
        return _ROOT / "scenarios" / "a_game"


def _new_game(ctx: Any) -> Any:
    from .game import AGame

    return AGame(ctx)


LABELS = {
    "elements": "成功要素", "usage": "使用回数", "categories": "判定分野", "cast": "キャスト", "hp": "ヒーローポイント",
    "background": "設定", "acted": "行動済み", "created_this_turn": "このターンの作成", "busy_until": "継続行動の終わり",
    "precedents": "前例", "banned_this_game": "このゲームで使用不可能", "blacklist": "万能成功要素（抹消）",
    "facts": "設定（事実）", "checks": "判定の記録", "scenes_done": "終わったシーン", "game_no": "ゲーム",
    "scene": "シーン", "goal": "目標", "turn": "ターン", "turn_duration": "時間スケール", "declarers": "宣言できる PC",
    "declarations": "行動宣言", "hazards": "状況（逆成功要素）", "advantage_hints": "有利な状況（一時成功要素）",
    "difficulty": "難易度", "result": "結果", "successes": "目標への成功", "achieved": "達成",
}

INFO = register_system(
    SystemInfo(
        id="a_game",
        name="「A」",
        version=VERSION,
        capabilities=frozenset({"casts", "checks", "free_text_elements", "gm_approvals", "cooperation_polling",
                                "opposed_checks", "continued_actions", "passive_checks", "hero_points", "retcon",
                                "precedents", "usage_bans", "campaigns", "creation"}),
        scenario_model=AGameScenario,
        new_game=_new_game,
        machines=MACHINES,
        config_model=AGameConfig,
        spec="a_game.md",
        sample_scenarios=tuple(_scenarios() / f"{p}.yaml" for p in ("yomichi_no_hikari", "hikari_no_ato")),
        # the worked examples ship inside the package (examples/), so that `trpg examples` works in any install
        examples=tuple(_HERE / "examples" / f"a_game_{p}.yaml" for p in ("checks", "elements", "flow")),
        description="数値のないキャスト制TRPG: 成功要素の数だけ D6 を振り、難易度の倍で成功。10ターンでシーンの目標を。",
        decision_table=DECISIONS,
        prompt_roles=("gm", "pc", "npc"),
        compact_observation=compact_observation,
        panels=_panels,
        report=REPORT,
        labels=LABELS,
        story=STORY,
        invariants=invariants,
    )
)
