"""ラストフラグメント's ``SystemInfo`` (rules/last_fragment.md): what the rest of the program knows of the system."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...core.registry import SystemInfo, register_system
from .config import LastFragmentConfig
from .decisions import DECISIONS
from .flow import MACHINES
from .invariants import invariants
from .panels import panels as _panels
from .prompt_view import compact_observation
from .report import REPORT
from .scenario import LastFragmentScenario

__all__ = ["INFO", "VERSION"]

VERSION = "0.2.3"
_HERE = Path(__file__).resolve().parent
_ROOT = _HERE.parents[2]


def _scenarios() -> Path:
    from ...resources import resource_dir

    try:
        return resource_dir("scenarios") / "last_fragment"
    except FileNotFoundError:
        return _ROOT / "scenarios" / "last_fragment"


def _new_game(ctx: Any) -> Any:
    from .game import LastFragmentGame

    return LastFragmentGame(ctx)


def _scenario_config(model: LastFragmentScenario) -> dict[str, Any]:
    """A scenario's rule flags are its ``config_overrides`` (Appendix B.1)."""
    return model.config_overrides


def _story() -> Any:
    from .story import STORY  # after LABELS (the story's words are the labels)

    return STORY


LABELS = {
    "hp": "HP", "max_hp": "最大HP", "tokens": "トークン", "abilities": "アビリティ", "skills": "スキル", "items": "アイテム",
    "abnormalities": "異常性", "abnormality_level": "異常性Lv", "bonds": "絆", "bond_powers_used": "使用した絆の力",
    "ap_unspent": "未使用AP", "skill_slots": "スキル枠", "memories": "思い出", "personal_scenes_used": "パーソナルシーン",
    "fragments": "フラグメント", "handouts": "ハンドアウト", "scene": "シーン", "revealed": "発見されたもの",
    "loose_items": "落ちているアイテム", "visited": "訪れたシーン", "incapacitated": "行動不能", "withdrawn": "離脱",
    "sp": "SP", "sp_left": "残りSP", "combat": "戦闘", "round": "ラウンド", "winner": "勝者", "losers": "敗者",
    "attempts": "調査済み", "session_no": "セッション", "title": "肩書", "seat": "席", "secret_ability": "秘密の指定アビリティ",
    "holds_last_fragment": "ラストフラグメントを所持", "cycle": "巡目",
    "absent": "登場していない PC", "item_notes": "アイテムの説明",
}

INFO = register_system(
    SystemInfo(
        id="last_fragment",
        name="ラストフラグメント",
        version=VERSION,
        capabilities=frozenset({"checks", "secret_fragments", "whispers", "scenes", "bonds", "combat",
                                "simultaneous_choices", "campaigns", "creation"}),
        scenario_model=LastFragmentScenario,
        new_game=_new_game,
        machines=MACHINES,
        config_model=LastFragmentConfig,
        spec="last_fragment.md",
        sample_scenarios=tuple(_scenarios() / f"{p}.yaml" for p in ("shuuden_no_mukou", "kaerimichi_no_eki")),
        # the worked examples ship inside the package (examples/), so that `trpg examples` works in any install
        examples=tuple(_HERE / "examples" / f"last_fragment_{p}.yaml" for p in ("checks", "main", "climax")),
        decision_table=DECISIONS,
        prompt_roles=("gm", "pc", "npc", "curse"),  # curse: an enemy's seat
        compact_observation=compact_observation,
        panels=_panels,
        report=REPORT,
        labels=LABELS,
        story=_story(),
        invariants=invariants,
        scenario_config=_scenario_config,
        description="d4 を能力値の数だけ振り最大の目で判定する探索ホラーTRPG: フラグメントを集め、ラストフラグメントを手にクライマックスへ。",
    )
)
