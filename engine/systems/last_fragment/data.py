"""ラストフラグメント's data tables (rules/last_fragment.md §9): Japanese text as written, ASCII ids.

Every table here is a default a scenario may override through its config (``ability_rows``, ``abnormality_list``)
or its own ``skills``."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["RESULT", "RESULT_NAMES", "FUMBLE_TABLE", "BOND_TABLE", "BOND_NAMES", "BOND_POWERS", "ENDINGS",
           "SkillDef", "SKILLS", "ABILITY_ROWS", "ABNORMALITIES", "CATEGORY_NAMES", "SCENE_TYPE_NAMES",
           "SKILL_ORDER", "ATTACK_ORDER", "abnormality_table"]

#: §9.1 highest die → result
RESULT = {1: "fumble", 2: "failure", 3: "success", 4: "critical"}
RESULT_NAMES = {"fumble": "ファンブル", "failure": "失敗", "success": "成功", "critical": "クリティカル",
                "auto_fail": "自動失敗", "auto_success": "自動成功（アイテム）"}

#: §9.2 ファンブル表 (1D4)
FUMBLE_TABLE = {
    1: ("lose_hp_5", "HPを5ポイント失う"),
    2: ("gain_abnormality", "異常性を1つ獲得"),
    3: ("lose_item", "アイテムを1つ選択し、失う"),
    4: ("lose_token", "トークンを1つ失う"),
}

#: §9.3 絆表: row → ((+ id, 名称), (− id, 名称))
BOND_TABLE = {
    1: (("shinai", "親愛"), ("keno", "嫌悪")),
    2: (("renbo", "恋慕"), ("kyouai", "狂愛")),
    3: (("shoukei", "憧憬"), ("shitto", "嫉妬")),
    4: (("sonkei", "尊敬"), ("bubetsu", "侮蔑")),
    5: (("shinrai", "信頼"), ("giwaku", "疑惑")),
    6: (("doui", "同意"), ("kakui", "隔意")),
    7: (("chuusei", "忠誠"), ("reizoku", "隷属")),
    8: (("higo", "庇護"), ("futan", "負担")),
    9: (("kouki", "好奇"), ("keikai", "警戒")),
    10: (("anshin", "安心"), ("kyoui", "脅威")),
}
#: bond type id → (row, sign, 名称)
BOND_NAMES = {t[0]: (row, sign, t[1]) for row, pair in BOND_TABLE.items() for sign, t in zip("+-", pair)}

#: §9.4 絆の力
BOND_POWERS = {
    "bp_revive": ("①", "行動不能を解除しHP1で復帰"),
    "bp_double": ("②", "次に使用する攻撃スキルのダメージ2倍"),
    "bp_cleanse": ("③", "自分の異常性を1つ（最も高いレベル）取り除く"),
}

#: §9.5
ENDINGS = {"survive": "生還", "death": "死亡", "missing": "失踪"}

CATEGORY_NAMES = {"nouryoku": "能力", "chishiki": "知識", "inou": "異能"}
SCENE_TYPE_NAMES = {"daily": "日常", "nondaily": "非日常"}

#: §9.7 ability rows (能力, 知識, 異能): (id, 名称) each
ABILITY_ROWS: tuple[tuple[tuple[str, str], tuple[str, str], tuple[str, str]], ...] = (
    (("suiri", "推理"), ("sugaku", "数学"), ("keter", "ケテル")),
    (("kansatsu", "観察"), ("kagaku", "科学"), ("chokmah", "コクマー")),
    (("undou", "運動"), ("igaku", "医学"), ("binah", "ビナー")),
    (("wajutsu", "話術"), ("shinri", "心理"), ("chesed", "ケセド")),
    (("onmitsu", "隠密"), ("rekishi", "歴史"), ("geburah", "ゲブラー")),
    (("geijutsu", "芸術"), ("bungaku", "文学"), ("tiphareth", "ティファレト")),
    (("gijutsu", "技術"), ("kougaku", "工学"), ("netzach", "ネツァク")),
    (("chokkan", "直感"), ("okaruto", "オカルト"), ("hod", "ホド")),
    (("seishin", "精神"), ("shuukyou", "宗教"), ("yesod", "イェソド")),
    (("seizon", "生存"), ("chiri", "地理"), ("malkuth", "マルクト")),
)


@dataclass(frozen=True)
class SkillDef:
    """§9.6 a skill: designated ability, timing, SP cost, kind (attack/heal/revive/bond/cleanse) and its numbers."""

    id: str
    name: str
    ability: str
    sp_cost: int
    kind: str  # attack | heal | revive | bond | cleanse
    dice: str = ""  # damage/heal/revive HP: "1D4+1"; revive base HP "1"
    extra: str = ""  # critical extra: "+1D4" damage, "+2" heal, revive "1D4+1" instead, cleanse heal "1D4"
    timing: str = "tsuujou"
    self_allowed: bool = False
    effect_text: str = ""
    extra_text: str = "なし"


SKILLS: dict[str, SkillDef] = {s.id: s for s in (
    SkillDef("tsuujou_kougeki", "通常攻撃", "suiri", 5, "attack", "1D4", "", effect_text="対: 1D4ダメージ"),
    SkillDef("kyougeki", "強撃", "undou", 5, "attack", "1D4+1", "1D4", effect_text="対: 1D4+1ダメージ",
             extra_text="+1D4ダメージ"),
    SkillDef("reiha", "霊波", "keter", 7, "attack", "2D4", "1D4", effect_text="対: 2D4ダメージ", extra_text="+1D4ダメージ"),
    SkillDef("teate", "手当", "igaku", 3, "heal", "1D4", "2", self_allowed=True, effect_text="対: 1D4回復",
             extra_text="+2回復"),
    SkillDef("sosei", "蘇生", "igaku", 8, "revive", "1", "1D4+1", effect_text="対（行動不能）: 復帰しHP1",
             extra_text="HP1D4+1で復帰"),
    SkillDef("enmusubi", "縁結び", "wajutsu", 4, "bond", effect_text="対: 自分→対象の絆を得る",
             extra_text="対象→自分の絆も"),
    SkillDef("chinsei", "鎮静", "shinri", 6, "cleanse", "", "1D4", self_allowed=True,
             effect_text="対: 最も高いレベルの異常性を1つ取り除く", extra_text="1D4回復"),
)}

#: §8 cc_skill_choice / growth_skill_learn order
SKILL_ORDER = ("teate", "kyougeki", "sosei", "enmusubi", "chinsei", "reiha")
#: §8 combat_action attack order
ATTACK_ORDER = ("reiha", "kyougeki", "tsuujou_kougeki")

#: §9.8 異常性の一覧: (level, face) → (id, 名称, drawback, dart)
ABNORMALITIES: dict[tuple[int, int], tuple[str, str, str, str]] = {
    (1, 1): ("abn_l1_1", "耳鳴り", "narrative", "dmg(1D4)"),
    (1, 2): ("abn_l1_2", "既視感", "narrative", "dice(+1)"),
    (1, 3): ("abn_l1_3", "冷たい指先", "narrative", "heal(1D4)"),
    (1, 4): ("abn_l1_4", "影の揺らぎ", "narrative", "sp(+2)"),
    (2, 1): ("abn_l2_1", "幻聴", "narrative", "dmg(1D4+1)"),
    (2, 2): ("abn_l2_2", "記憶の欠落", "narrative", "dice(+2)"),
    (2, 3): ("abn_l2_3", "鏡像のずれ", "narrative", "heal(1D4+1)"),
    (2, 4): ("abn_l2_4", "異物感", "narrative", "sp(+3)"),
    (3, 1): ("abn_l3_1", "幻視", "penalty(chishiki)", "dmg(2D4)"),
    (3, 2): ("abn_l3_2", "時間感覚の喪失", "penalty(nouryoku)", "dice(+2)"),
    (3, 3): ("abn_l3_3", "名前の揺らぎ", "penalty(chishiki)", "heal(2D4)"),
    (3, 4): ("abn_l3_4", "異界の匂い", "penalty(nouryoku)", "sp(+4)"),
    (4, 1): ("abn_l4_1", "存在の希薄化", "scene_hp_1", "dmg(2D4+2)"),
    (4, 2): ("abn_l4_2", "他者の声", "penalty_daily", "dmg(2D4+2)"),
    (4, 3): ("abn_l4_3", "身体の変容", "scene_hp_1", "heal(2D4+2)"),
    (4, 4): ("abn_l4_4", "境界の溶解", "penalty_daily", "dice(+3)"),
    (5, 1): ("abn_l5_1", "非日常への同化", "no_token", "dmg(3D4)"),
    (5, 2): ("abn_l5_2", "名の喪失", "no_token", "dmg(3D4)"),
    (5, 3): ("abn_l5_3", "異形化", "scene_hp_1", "heal(3D4)"),
    (5, 4): ("abn_l5_4", "帰り道の消失", "penalty_all", "dice(+4)"),
}


def abnormality_table(custom: list | None = None) -> dict[str, dict]:
    """Abnormality id → {id, name, level, face, drawback, dart}: the house list, or the config's list."""
    if custom:
        return {a["id"]: dict(a) for a in custom}
    return {v[0]: {"id": v[0], "name": v[1], "level": lv, "face": face, "drawback": v[2], "dart": v[3]}
            for (lv, face), v in ABNORMALITIES.items()}
