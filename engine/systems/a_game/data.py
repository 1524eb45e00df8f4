"""The data tables of rules/a_game.md §9: casts (§9.1), check steps (§9.2), modifiers and results (§9.3), the turn
chart (§9.4, HOUSE), the declaration order (§9.5, HOUSE), the difficulty guide (§9.6, HOUSE), check categories
(§9.7, HOUSE), sample success elements (§9.8, HOUSE) and the approval reason codes (§7.7, §9.9).

Japanese text is the rulebook's (seeds/001_f7ceeb7296cf6a6a.txt) where it has one; ids are the spec's ASCII ids."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "CastData", "CASTS", "CAST_NAMES", "CATEGORIES", "CATEGORY_IDS", "STEPS", "RESULT_NAMES", "HOUSE_CHART",
    "DIFFICULTY_GUIDE", "SAMPLE_ELEMENTS", "UNIVERSAL_PARTS", "UNIVERSAL_WORDS", "ELEMENT_REASONS",
    "PRECHECK_REASONS", "TEMPORARY_REASONS", "CONFIRM_REASONS", "COOPERATION_REASONS", "HP_B_REASONS",
    "UNREALIZE_REASONS", "EXPERT_MODIFIER", "MASCOT_MODIFIER", "MODE_NAMES", "TARGET_NAMES",
]


@dataclass(frozen=True)
class CastData:
    """§9.1, transcribed: the source's description, the mechanical effect and the role-play constraint."""

    id: str
    name: str
    description: str
    effect: str
    constraint: str


#: §9.1 (RULE): the seven casts of the source, the SD first
CASTS: dict[str, CastData] = {c.id: c for c in (
    CastData("sd", "セッションデザイナー（SD）", "いわゆるゲームマスターです。", "ゲームを進行し、すべての承認と SDC を担う", ""),
    CastData("protagonist", "主人公", "そのセッションにおいての主役です。もっとも出番が多く、決定的な局面で成功を収める能力を与えられる事があります。",
             "行動宣言できるターンが最も多い", "主人公らしく振舞わなければなりません。"),
    CastData("partner", "相棒", "主人公の相方で、準主役です。", "行動宣言できるターンが多い", "主人公を引き立てて下さい。"),
    CastData("expert", "専門家", "何らかの技術や知識に特化したキャラクターです。主人公や相棒への助言者です。出番は少ないですが判定にボーナスが入ります。",
             "自分の行動判定に一時成功要素【専門家修正】が一つ入る（協調成功判定の時には入らない）", "主人公や相棒への助言者として振舞う。"),
    CastData("companion", "仲間", "主人公の仲間です。", "なし",
             "他のPCに好意的であり、主人公や相棒より目立ってはいけないという以外は何の制約も無い気楽な役割です。"),
    CastData("mascot", "マスコット", "「かわいい」担当です。", "あらゆる判定に逆成功要素【おちゃめ】が一つ入る（協調成功判定の時には入らない）",
             "他のPCに好意的でさえあればいかなる責任も無く、自由に行動できます。"),
    CastData("guest", "ゲスト", "お客様です。サブマスターとしての働きをします。", "なし（サブマスターの働きは未定義）",
             "他のPCに好意的である必要はありません。"),
)}
CAST_NAMES: dict[str, str] = {k: c.name.split("（")[0] for k, c in CASTS.items()} | {"sdc": "SDC"}

#: §9.7 (HOUSE): the ten check categories
CATEGORIES: dict[str, str] = {
    "combat": "戦闘", "athletics": "運動", "perception": "知覚", "investigation": "調査", "knowledge": "知識",
    "technical": "技術", "social": "交渉", "stealth": "隠密", "willpower": "精神", "supernatural": "異能",
}
CATEGORY_IDS: tuple[str, ...] = tuple(CATEGORIES)

#: §9.2 (RULE): the steps of 行動判定
STEPS = {"difficulty": "0. 難易度の設定", "confirm_elements": "1. 成功要素の確定", "situational_modifiers": "2. 状況修正",
         "success_determination": "3. 成功判定", "hp_effect_step": "4. ヒーローポイント効果の判定"}
#: §9.3 (RULE): results
RESULT_NAMES = {"success": "成功", "intermediate": "中間判定", "failure": "失敗"}
EXPERT_MODIFIER = "専門家修正"
MASCOT_MODIFIER = "おちゃめ"

#: §9.4 (HOUSE DEFAULT, the source's figure is missing): cast → the turns with ○ (SDC: every turn)
HOUSE_CHART: dict[str, tuple[int, ...]] = {
    "guest": (2, 5, 7, 9),
    "mascot": (2, 3, 6, 9),
    "companion": (2, 4, 6, 8),
    "expert": (2, 5, 9),
    "partner": (1, 2, 4, 6, 8, 10),
    "protagonist": (1, 2, 4, 5, 7, 8, 10),
    "sdc": tuple(range(1, 11)),
}

#: §9.6 (HOUSE DEFAULT, the source's figure is missing): id → (label, difficulty, meaning)
DIFFICULTY_GUIDE: dict[str, tuple[str, int, str]] = {
    "very_easy": ("とても簡単", 1, "ふさわしい成功要素が一つあれば誰でも成功する"),
    "easy": ("簡単", 2, "準備のできたキャラクターには日常的"),
    "normal": ("普通", 3, "ふつうの行為（既定）"),
    "somewhat_hard": ("やや難しい", 4, "十分な準備が要る"),
    "hard": ("難しい", 5, "専門家か助けが要る"),
    "very_hard": ("とても難しい", 7, "協調成功判定が要る"),
    "extreme": ("至難", 10, "全員の力が要る"),
    "heroic": ("英雄的", 15, "英雄的な偉業。たいていヒーローポイントが要る"),
    "superhuman": ("超人的", 20, "人の域を超える"),
    "legendary": ("伝説的", 30, "伝説に残る"),
    "miraculous": ("奇跡的", 50, "奇跡"),
    "near_impossible": ("ほぼ不可能", 100, "最大"),
}

#: §9.8 (HOUSE DEFAULT): sample success elements for scripted PCs (name, categories); the first six are the source's
SAMPLE_ELEMENTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("感覚力", ("perception",)), ("空手", ("combat", "athletics")), ("槍", ("combat",)),
    ("剛力", ("combat", "athletics")), ("下命", ("social",)), ("暗示", ("social", "supernatural")),
    ("射撃", ("combat",)), ("跳躍", ("athletics",)), ("忍び足", ("stealth",)), ("変装", ("stealth", "social")),
    ("話術", ("social",)), ("威圧", ("social", "willpower")), ("聞き込み", ("investigation", "social")),
    ("人脈", ("social", "investigation")), ("体力", ("athletics", "willpower")), ("観察眼", ("perception", "investigation")),
    ("鋭い嗅覚", ("perception",)), ("考古学", ("knowledge",)), ("古文書解読", ("knowledge", "investigation")),
    ("医学", ("technical",)), ("機械いじり", ("technical",)), ("ハッキング", ("technical", "investigation")),
    ("運転", ("technical", "athletics")), ("不屈", ("willpower",)), ("度胸", ("willpower",)),
    ("霊感", ("supernatural", "perception")), ("魔術", ("supernatural",)), ("料理", ("technical",)),
    ("猫の身軽さ", ("athletics", "stealth")), ("郷土史", ("knowledge",)),
)

#: §9.9: universal words (automatic omnipotence): contained anywhere, or the whole name
UNIVERSAL_PARTS = ("万能", "全能", "何でも", "なんでも", "完璧", "無敵", "最強")
UNIVERSAL_WORDS = ("天才", "奇跡", "幸運", "運")

#: §7.7: the SD's reason codes for refusing a registration (D04), in the order offered
ELEMENT_REASONS: dict[str, str] = {
    "too_long": "長すぎる: too_long",
    "meaningless": "意味をなさない: meaningless",
    "setting_conflict": "設定に合わない: setting_conflict",
    "omnipotent": "万能すぎる: omnipotent",
    "other": "その他: other",
}
#: §7.7: the engine's pre-checks (no SD call), as the refusal messages name them
PRECHECK_REASONS: dict[str, str] = {
    "turn_limit": "このターンはもう成功要素を作成した（1ターンに1つ）: turn_limit",
    "cap": "成功要素はすでに最大の20個: cap",
    "duplicate": "同じ名前の成功要素がすでにシートにある: duplicate",
    "banned": "このゲームでは使用不可能な名前: banned",
    "blacklisted": "万能と判定され抹消された成功要素と同様: blacklisted",
}
#: D18 (temporaries), D16 (confirmation), D21 (cooperation), D10 (hero point B), D35 (un-realize)
TEMPORARY_REASONS: dict[str, str] = {"not_fitting": "状況に合わない: not_fitting", "other": "その他: other"}
CONFIRM_REASONS: dict[str, str] = {"not_applicable": "この判定には役立たない: not_applicable", "other": "その他: other"}
COOPERATION_REASONS: dict[str, str] = {"not_applicable": "この判定には役立たない: not_applicable",
                                       "bad_method": "協力の方法が不十分: bad_method", "other": "その他: other"}
HP_B_REASONS: dict[str, str] = {"immutable": "変えられない事実: immutable", "no_statement": "「実は〜だった」がない: no_statement",
                                "other": "その他: other"}
UNREALIZE_REASONS: dict[str, str] = {"insufficient_change": "設定的変更が不十分: insufficient_change",
                                     "other": "その他: other"}

#: §8 D05 goal modes (HOUSE, G5)
MODE_NAMES = {"single_check": "目標に向けた判定が1回成功すれば達成", "success_count": "目標に向けた判定の成功数",
              "gm_judgement": "SD の判断"}
#: D06 targets
TARGET_NAMES = {"goal": "シーンの目標", "other": "その他"}
