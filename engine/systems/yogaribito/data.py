"""夜狩り人 data tables (rules/yogaribito.md §2, §3, §7.11, §9, §11.4 class kits, §11.5 samples).

Japanese text is written exactly as in the spec (and, for class features, lifepath entries and XP criteria, as in
the source the spec quotes); ids are ASCII. Feats, items, enemies, the 痛打表 and bad statuses live in ``arms.py``.
Nothing here has rules logic beyond pure table look-ups (lifepath dice reading, XP cost formulas).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

__all__ = [
    "ABILITIES", "CHECK_ABILITIES", "ABILITY_NAMES", "ABILITY_INFO", "AbilityInfo", "RESOURCES", "HERO_POINTS",
    "HERO_BONUS", "HERO_BONUS_STATS", "FALLBACK_THRESHOLD", "FALLBACK_VALUES", "ROLLED_DICE", "KAGARIBI_MAX",
    "BULLETS_BASE", "STOCK_POINTS_BONUS", "ClassData", "CLASSES", "CLASS_IDS", "SUPERNATURAL_CLASSES",
    "PRIMARY_ABILITY", "ASSIGN_ORDER", "FEAT_COUNTS", "MAX_COMMON_SUBSTITUTIONS", "SlotInfo", "SLOTS",
    "LifepathEntry", "LIFEPATH_TABLES", "LIFEPATH_TABLE_NAMES", "LIFEPATH_KINDS", "FREE_ENTRY", "lifepath_entry",
    "lifepath_lookup", "KitItem", "CLASS_KITS", "SamplePC", "SAMPLE_PCS", "XPCriterion", "XP_CRITERIA",
    "OBJECTIVE_MIN_XP", "FEAT_XP_COST", "raise_cost", "raise_steps_cost", "gm_xp", "death_xp",
    "DEFAULT_PATRON", "PHASE_NAMES",
]


def _ro(d: Mapping) -> Mapping:  # type: ignore[type-arg]
    return MappingProxyType(dict(d))


# ======================================================================================================================
# §9.1 abilities and resources
# ======================================================================================================================
#: the six values rolled and assigned at creation (§3.1 step 1), in the spec's order
ABILITIES: tuple[str, ...] = ("mind", "tech", "body", "life", "soul", "luck")
#: abilities a check can use (§5.1) and the defense check chooses among (§5.2)
CHECK_ABILITIES: tuple[str, ...] = ("mind", "tech", "body")
#: hero points (§2 ヒーローポイント)
HERO_POINTS: tuple[str, ...] = ("kagaribi", "luck", "wealth")
#: resources with a current value that goes up and down in play (§4.1)
RESOURCES: tuple[str, ...] = ("life", "soul", "luck", "wealth", "kagaribi", "bullets")


@dataclass(frozen=True, slots=True)
class AbilityInfo:
    id: str
    name: str  # 【心】 ...
    reading: str
    meaning: str
    use: str


ABILITY_INFO: Mapping[str, AbilityInfo] = _ro({a.id: a for a in (
    AbilityInfo("mind", "【心】", "こころ", "will, magical aptitude",
                "magic attacks, negotiation/information, fear release"),
    AbilityInfo("tech", "【技】", "わざ", "technology, science, machines",
                "guns, information, purchase, stock points"),
    AbilityInfo("body", "【体】", "からだ", "athletics, martial arts",
                "melee, initiative, blockade contest, paralysis release"),
    AbilityInfo("life", "【命】", "いのち", "vitality, \"HP\"", "damage"),
    AbilityInfo("soul", "【魂】", "たましい", "mental strength / spiritual existence, \"MP\"",
                "feat costs, psychic focus check, awakening"),
    AbilityInfo("luck", "【運】", "うん", "luck", "post-roll help"),
    AbilityInfo("wealth", "【財】", "ざい", "wealth/assets/money", "social-check dice"),
    AbilityInfo("kagaribi", "【燎】", "かがりび", "the light of one's existence", "dice doubling"),
    AbilityInfo("bullets", "【弾】", "たま / だん", "Witch Hunter's ammunition", "pays Witch Hunter feat costs"),
)})
ABILITY_NAMES: Mapping[str, str] = _ro({k: v.name for k, v in ABILITY_INFO.items()})

# ======================================================================================================================
# §3.1 creation constants
# ======================================================================================================================
ROLLED_DICE = 6  # step 1: six d6
FALLBACK_THRESHOLD = 20  # sum(R) <= 20 → 1..6 (AMB-02)
FALLBACK_VALUES: tuple[int, ...] = (1, 2, 3, 4, 5, 6)
HERO_BONUS: tuple[int, ...] = (6, 3, 1)  # step 2
HERO_BONUS_STATS: tuple[str, ...] = ("life", "soul", "luck")  # fixed mode: life+6, soul+3, luck+1
KAGARIBI_MAX = 6  # step 7
BULLETS_BASE = 5  # Witch Hunter main (§9.2)
STOCK_POINTS_BONUS = 3  # stock points = tech + 3 (AMB-04)


# ======================================================================================================================
# §9.2 classes
# ======================================================================================================================
@dataclass(frozen=True, slots=True)
class ClassData:
    id: str
    name: str  # JP, as in the spec
    supernatural: bool
    #: modifiers to base values (mind/tech/body/life/soul; コモン: luck +1); zero entries included for the five
    modifiers: Mapping[str, int]
    feature: str  # 特徴, the source's text
    feature_en: str  # the spec's engine effect
    flavor: str  # the source's class description
    flavor_en: str
    needs_gm_approval: bool = False
    can_awaken: bool = True


def _mods(mind: int, tech: int, body: int, life: int, soul: int, **extra: int) -> Mapping[str, int]:
    return _ro({"mind": mind, "tech": tech, "body": body, "life": life, "soul": soul, **extra})


CLASSES: Mapping[str, ClassData] = _ro({c.id: c for c in (
    ClassData(
        "black_magic", "ブラックマジック", True, _mods(1, -1, 0, 0, 1),
        "魔に近しい領域、不浄な状況なら【心】判定の際のサイコロが＋１されます\n"
        "神聖な場所、神に祝福された状況では【心】判定の際のサイコロが－１されます",
        "mind checks +1 die in `unholy` situations (魔に近しい領域・不浄な状況); −1 in `holy` situations "
        "(神聖な場所・神に祝福された状況).",
        "いわゆる黒魔術です。\n古代から受け継がれた儀式、呪文、知識の集大成としての魔術の徒です。",
        "ancient ritual sorcery"),
    ClassData(
        "white_magic", "ホワイトマジック", True, _mods(1, 0, -1, 0, 1),
        "神聖な領域、神の加護がある状況なら【心】判定の際のサイコロが＋１されます\n"
        "不浄な領域、魔に汚された状況では【心】判定の際のサイコロが－１されます",
        "mind checks +1 in `holy` (神聖な領域・神の加護); −1 in `unholy` (不浄な領域・魔に汚された状況).",
        "いわゆる白魔術です。\n神聖なる神々から授かった威力、儀式、聖典の詠唱により齎される祝祷の使い手です。",
        "blessings of holy gods"),
    ClassData(
        "shamanic", "シャーマニック", True, _mods(1, -2, 1, 1, 0),
        "自身の崇める存在に近しい環境なら【心】判定の際のサイコロが＋１されます\n"
        "例：日-陽光がある　水-水辺　馬-平原、走り回れる環境　など\n"
        "思い浮かばない場合は「自然環境・野外」とすると良いでしょう\n"
        "自身の崇める存在の苦手とする状況では【心】判定の際のサイコロが－１されます\n"
        "例：日-夜間、陽光がない　水-水場が無い　馬-閉所　など\n"
        "思い浮かばない場合は「屋内・都市部」とすると良いでしょう",
        "mind checks +1 in an environment close to the revered being, −1 in one it dislikes. Patron examples: 日 sun "
        "— favored sunlight/day, disfavored night/no sun; 水 water — favored waterside, disfavored no water; 馬 horse — "
        "favored open plains, disfavored confined spaces; default patron: favored 自然環境・野外 (`nature`,`outdoors`), "
        "disfavored 屋内・都市部 (`indoors`,`urban`).",
        "いわゆる精霊術です。\n森羅万象に満ちている精霊の力を借りて術を行使します。神道なども此方になります。",
        "borrowing nature spirits (incl. Shinto)"),
    ClassData(
        "psychic", "サイキック", True, _mods(1, 1, -2, 1, 0),
        "戦闘や、精神集中が要される場面で【魂】判定を行います。\n"
        "成功するとその状況が終了するまで【心】判定の際のサイコロが＋１されます。\n"
        "失敗するとその状況が終了するまで【心】判定の際のサイコロが－１されます。",
        "In combat or any scene requiring concentration: a 魂 check; success → mind checks +1 until that situation "
        "ends; failure → −1 until it ends (§7.3.1).",
        "いわゆる超能力です。\n当人の持つ脳の力、意思の力だけで現実を捻じ曲げる異能の使い手です。",
        "pure brain/will power"),
    ClassData(
        "adept", "アデプト", False, _mods(-1, -1, 2, 1, 0),
        "【体】属性のダメージを常に＋１します。",
        "damage it deals with the 【体】 attribute always +1.",
        "いわゆる達人と呼ばれる人々です。\n古代から伝承された古武術、呼吸法や純粋な身体能力などで魔と戦う超人です。",
        "ancient martial arts/breathing techniques"),
    ClassData(
        "summoner", "サモナー", False, _mods(-2, 1, 1, -1, 2),
        "判定前に【魂】を１消費するごとに、その判定のサイコロを＋１します\n"
        "この特徴で【魂】が０になった場合、その時点で戦闘不能になります。\n"
        "覚醒中の場合、契約した対象に全てを奪われて死亡します。",
        "before a check, each 1 soul spent → +1 die to that check. If this brings soul to 0 → 戦闘不能 at once; if "
        "awakened → dies (its contractor takes everything).",
        "いわゆる召喚師です。\n当人は異能を使えませんが、契約した様々な対象に代償を捧げることで異能を行使します。",
        "powerless person paying contracted beings"),
    ClassData(
        "witch_hunter", "ウィッチハンター", False, _mods(-2, 2, 0, 1, 0),
        "【弾】の能力値を新たに得ます。【弾】の原点は５になります。\n"
        "【弾】はウィッチハンターの特技を使う時、【命】【魂】【財】のかわりに消費できます。\n"
        "【弾】は他の能力値同様、セッション終了時に５まで回復します。",
        "gains 【弾】 (base 5). When using Witch Hunter feats, bullets may be spent instead of life/soul/wealth "
        "(1 for 1). Bullets recover to base at session end.",
        "覚悟と知識のみを武器に魔のものに立ち向かう常人です。\n異能の力を使う事はできませんが、だからこそ手段を選ぶこともありません。",
        "ordinary human armed with resolve and knowledge"),
    ClassData(
        "night_walker", "ナイトウォーカー", False, _mods(1, -2, 1, 1, 0),
        "日中はあらゆる判定のダイスが－１されます。\n"
        "夜間はあらゆる判定のダイスが＋１されます。\n"
        "また、あなたが受ける【心】属性ダメージは常に＋１されます。",
        "all checks −1 die in daytime, +1 at night; 【心】-attribute damage it receives +1.",
        "吸血鬼や人狼など、夜の闇に潜む人外の存在です。\n一般社会に溶け込んで暮らしていますが、本質的には人ならざるものです。",
        "vampires, werewolves and other night beings living in society"),
    ClassData(
        "celestial", "セレスチャル", False, _mods(1, -2, 1, 0, 1),
        "日中はあらゆる判定のダイスが＋１されます。\n"
        "夜間はあらゆる判定のダイスが－１されます。\n"
        "また、あなたが受ける【心】属性ダメージは常に－１されます。",
        "all checks +1 in daytime, −1 at night; 【心】-attribute damage it receives −1 (min 0).",
        "神、天使、精霊、竜、エルフなど、そうした神秘的な存在です。\n人を害するものではありませんが、完全に人の心を理解しているとは限りません。",
        "gods, angels, spirits, dragons, elves"),
    ClassData(
        "arachne", "アラクネ", False, _mods(2, -2, 0, 2, -1),
        "判定前に【命】を１消費するごとに、判定時のサイコロを＋１します。\n"
        "この特徴で【命】が０になった場合、その時点で戦闘不能になります。\n"
        "覚醒中にこの能力を使った場合、完全に蟲に成り果て、シナリオ終了時にPCとしては死亡します。\n"
        "また、あなたが受ける【心】属性ダメージは常に＋１されます。",
        "before a check, each 1 life spent → +1 die. If this brings life to 0 → 戦闘不能 at once. If used while "
        "awakened → `doomed` (fully becomes a bug; dies as a PC at scenario end). 【心】-attribute damage it receives +1.",
        "異界の蟲にその魂を喰われ、半分魔のものと化した存在です。\n異能の力を揮えますが、引き換えに自分の人間としての自覚が摩耗していきます。",
        "soul eaten by an otherworldly insect, half-demon, humanity eroding"),
    ClassData(
        "common", "コモン", False, _mods(0, 0, 0, 0, 0, luck=1),
        "あなたの【運】を＋１します\nあなたは覚醒することができません。",
        "luck +1 (base); cannot awaken. GM approval required.",
        "一般人、何も知らない無知な存在、哀れな被害者です。\n"
        "もしかしたら何かの力に目覚めているかもしれませんが、その感覚は抜けきっていません。",
        "ordinary person/victim",
        needs_gm_approval=True, can_awaken=False),
)})
CLASS_IDS: tuple[str, ...] = tuple(CLASSES)
SUPERNATURAL_CLASSES: frozenset[str] = frozenset(c.id for c in CLASSES.values() if c.supernatural)

#: D02's "primary ability of the intended main class"
PRIMARY_ABILITY: Mapping[str, str] = _ro({
    "black_magic": "mind", "white_magic": "mind", "shamanic": "mind", "psychic": "mind", "night_walker": "mind",
    "celestial": "mind", "arachne": "mind", "adept": "body", "summoner": "body", "common": "body",
    "witch_hunter": "tech",
})
#: D02 default: after the primary ability, "life, soul, body, tech, mind (skipping the primary), luck last"
ASSIGN_ORDER: tuple[str, ...] = ("life", "soul", "body", "tech", "mind", "luck")

#: shamanic default patron (D08, §9.2)
DEFAULT_PATRON: Mapping[str, object] = _ro({
    "name": "nature", "favored_tags": ("nature", "outdoors"), "disfavored_tags": ("indoors", "urban"),
})

# ======================================================================================================================
# §9.3 feat acquisition counts
# ======================================================================================================================
#: key "different" = main ≠ sub, "same" = main = sub; values: picks from the main list and the sub list
FEAT_COUNTS: Mapping[str, Mapping[str, int]] = _ro({
    "different": _ro({"main": 2, "sub": 1, "total": 3}),
    "same": _ro({"main": 4, "sub": 0, "total": 4}),
})
#: at most one main pick may be replaced by a common feat (AMB-46)
MAX_COMMON_SUBSTITUTIONS = 1


# ======================================================================================================================
# §9.4 equipment slots
# ======================================================================================================================
@dataclass(frozen=True, slots=True)
class SlotInfo:
    id: str
    name: str
    kagaribi_cost: int = 1


SLOTS: Mapping[str, SlotInfo] = _ro({s.id: s for s in (
    SlotInfo("right_hand", "右手"), SlotInfo("left_hand", "左手"), SlotInfo("armor", "防具"),
    SlotInfo("accessory", "アクセサリー"),
)})

# ======================================================================================================================
# §9.5 lifepath tables (ordered two dice: first = row, second 1–3 / 4–6; "7・7-9 任意" only by choice)
# ======================================================================================================================
LIFEPATH_KINDS: tuple[str, ...] = ("origin", "purpose", "encounter")
LIFEPATH_TABLE_NAMES: Mapping[str, str] = _ro({"origin": "出自", "purpose": "目的", "encounter": "邂逅"})
FREE_ENTRY = "free"


@dataclass(frozen=True, slots=True)
class LifepathEntry:
    id: str
    name: str  # JP
    roll: str  # "1・1-3" (as written in the spec)
    row: int | None  # first die (None: 任意, not rollable)
    low: bool | None  # second die 1–3 (True) or 4–6 (False); None: 任意
    text: str  # the source's entry text
    meaning: str  # the spec's English gloss
    #: 邂逅 only: the two NPCs (id, written name), in the order written
    npcs: tuple[tuple[str, str], ...] = field(default=())

    @property
    def rollable(self) -> bool:
        return self.row is not None

    def npc_name(self, npc_id: str) -> str | None:
        return next((n for i, n in self.npcs if i == npc_id), None)


def _lp(roll: str, eid: str, name: str, text: str, meaning: str,
        npcs: tuple[tuple[str, str], ...] = ()) -> LifepathEntry:
    first, _, second = roll.partition("・")
    if first == "7":
        return LifepathEntry(eid, name, roll, None, None, text, meaning, npcs)
    return LifepathEntry(eid, name, roll, int(first), second == "1-3", text, meaning, npcs)


LIFEPATH_TABLES: Mapping[str, tuple[LifepathEntry, ...]] = _ro({
    "origin": (
        _lp("1・1-3", "reincarnation", "転生", "あなたは前世の記憶をもって生まれた。今生での戦いも宿命なのか。",
            "born with memories of a previous life; is this battle fate too?"),
        _lp("1・4-6", "wealthy", "富豪", "あなたは資産家のもとに生まれた。おかげで、生活に困ったことはない。",
            "born to a rich family; never wanted for anything"),
        _lp("2・1-3", "cult_born", "邪教", "あなたは邪神信奉者のもとに生まれた。おぞましい過去は思い出したくもない。",
            "born to evil-god worshippers; a past you'd rather forget"),
        _lp("2・4-6", "orphan", "孤児", "あなたは天涯孤独だ。捨てられたのか、失ったのか。あなたの身近に愛は無い。",
            "alone in the world, abandoned or bereaved; no love nearby"),
        _lp("3・1-3", "experiment", "実験", "あなたは実験によって造られし命だ。造られた目的を果たさねば。",
            "a life created by experiment; must fulfil the purpose you were made for"),
        _lp("3・4-6", "clan", "一族", "あなたは何らかの使命や伝統を受け継いだ一族の末裔だ。",
            "descendant of a clan that inherited a mission or tradition"),
        _lp("4・1-3", "scholar", "学者", "あなたは学者の下に生まれた。あなたの知識と好奇心は両親譲りだ。",
            "born to scholars; knowledge and curiosity from your parents"),
        _lp("4・4-6", "mixed_blood", "異種", "あなたは異類婚姻譚によって生を受けた。両親に愛があったのかはわからない。",
            "born of a union between a human and an otherworldly being (異類婚姻譚)"),
        _lp("5・1-3", "cursed_line", "呪詛", "あなたの一族は呪いを受けている。あなたにもそれは受け継がれた。",
            "your family is cursed and you inherited it"),
        _lp("5・4-6", "ordinary", "平凡", "あなたは平凡な生まれで、平凡に育った。絵に描いたように凡庸な人物だ。",
            "ordinary birth and upbringing; picture-perfect mediocrity"),
        _lp("6・1-3", "androgyne", "両性", "あなたは生まれながらに男女陰陽を兼ね備えた、神に近しい存在だ。",
            "born with both male and female (yin-yang) natures, close to the divine"),
        _lp("6・4-6", "idol", "偶像", "あなたは幼い頃から人心を収攬している。宗教的にか、芸能界でかはともかく。",
            "has drawn people's hearts since childhood (religiously or in showbiz)"),
        _lp("7・7-9", FREE_ENTRY, "任意", "あなたの生まれは任意に決めて良い。", "choose freely (not rollable)"),
    ),
    "purpose": (
        _lp("1・1-3", "accident", "偶然", "あなたが戦うのはたまたま巻き込まれたからだ。",
            "you fight because you happened to get involved"),
        _lp("1・4-6", "mission", "使命", "あなたは使命に殉じている。たとえ死んでもそれがあなたの望みだ。",
            "devoted to a mission, even unto death"),
        _lp("2・1-3", "reward", "報酬", "あなたは現金をはじめとする、戦いの正当な対価のために戦っている。",
            "fighting for just compensation, money first"),
        _lp("2・4-6", "revenge", "復讐", "あなたの望みは復讐だ。夜を往くもの殺すべし。慈悲はない。",
            "revenge: death to those who walk the night, no mercy"),
        _lp("3・1-3", "faith", "信仰", "あなたの戦いは信仰によって立つものだ。世に平穏のあらんことを。",
            "your fight stands on faith; peace upon the world"),
        _lp("3・4-6", "ambition", "野望", "あなたにとって戦いは、さらなる望みを叶えるための踏み台に過ぎない。",
            "fighting is a stepping stone to greater desires"),
        _lp("4・1-3", "training", "修行", "あなたにとって戦いは修行だ。少しずつ強くなる。それが良いのだ。",
            "fighting is training; getting stronger bit by bit"),
        _lp("4・4-6", "fate", "因縁", "あなたは宿命と因縁、運命的に戦い続けるさだめを背負っている。",
            "bound by destiny and karma to keep fighting"),
        _lp("5・1-3", "survival", "生存", "あなたはただ生きるために戦っている。あなたは生き延びる事ができるか？",
            "you fight just to live"),
        _lp("5・4-6", "fame", "名声", "あなたは名誉栄達、その名を輝かしめんがために戦いに身を投じた。",
            "fighting for honour and advancement"),
        _lp("6・1-3", "daily_life", "日常", "あなたは大切な日々を守るために戦っている。",
            "fighting to protect precious everyday days"),
        _lp("6・4-6", "loss", "喪失", "あなたは大切なものを失った。戦うのは、それを取り戻すためだ。",
            "you lost something precious and fight to get it back"),
        _lp("7・7-9", FREE_ENTRY, "任意", "あなたが戦う理由はあなた自身が自由に決めて良い。",
            "choose freely (not rollable)"),
    ),
    "encounter": (
        _lp("1・1-3", "pure_love", "純愛", "彼はあなたに対して純粋な愛情を抱いている。", "they love you purely",
            (("kayahara_eri", "茅原絵里"), ("hazama_shinji", "羽佐間真司"))),
        _lp("1・4-6", "loyalty", "忠誠", "彼はあなたを忠実な部下だと感じている。",
            "they see you as a loyal subordinate",
            (("tachibana_sara", "橘沙羅"), ("bernard_gui", "ベルナール・ギー"))),
        _lp("2・1-3", "friendship", "友情", "彼はあなたを気のおけない友人だと思っている。",
            "a friend you can be at ease with",
            (("kurosu_iori", "黒須伊織"), ("toriumi_shota", "鳥海翔太"))),
        _lp("2・4-6", "debt", "貸借", "彼はあなたに貸し、あるいは借りがある。", "one owes the other",
            (("penelope_moorhead", "ペネロープ・ムーアヘッド"), ("kamo_atsunobu", "賀茂篤信"))),
        _lp("3・1-3", "obsession", "執着", "彼はあなたに対して並々ならぬ関心を抱いている。",
            "extraordinary interest in you",
            (("otomo_wakana", "大友若菜"), ("kamo_soma", "賀茂相馬"))),
        _lp("3・4-6", "business", "取引", "彼とあなたは業務上の良き商売相手だ。", "good business partners",
            (("santo_rion", "山東リオン"), ("berthold_the_black", "黒のベルトルト"))),
        _lp("4・1-3", "trust", "信頼", "彼はあなたを心から信頼してくれている。", "trusts you from the heart",
            (("ran_rinrin", "蘭凛鈴"), ("kiba_yasushi", "木場康"))),
        _lp("4・4-6", "patronage", "庇護", "彼はあなたを庇護し、導こうとしてくれている。",
            "protects and guides you",
            (("uchihara_teruko", "内原輝子"), ("john_callahan", "ジョン・キャラハン"))),
        _lp("5・1-3", "family", "家族", "彼はあなたを大切な身内だと思ってくれている。",
            "thinks of you as precious family",
            (("amamiya_yoru", "天宮夜"), ("katagiri_ippei", "片桐一平"))),
        _lp("5・4-6", "coincidence", "偶然", "彼とあなたはどうしてか良く出会う腐れ縁だ。",
            "you keep running into each other (腐れ縁)",
            (("sendo_shinobu", "千堂忍"), ("isono_hiroshi", "磯野広"))),
        _lp("6・1-3", "nemesis", "宿敵", "彼はあなたといずれ決着をつけねばと思っている。",
            "must settle things with you someday",
            (("kuro_haha", "黒母"), ("father_nai", "ナイ神父"))),
        _lp("6・4-6", "exploitation", "利用", "彼はあなたを利用しようと目論んでいる。", "plans to use you",
            (("shiranui_kengyo", "不知火検校"), ("zirnitra", "ツィルニトラ"))),
        _lp("7・7-9", FREE_ENTRY, "任意", "", "choose whom and what relationship freely"),
    ),
})


def lifepath_entry(kind: str, first: int, second: int) -> LifepathEntry:
    """§3.1 step 8: the entry for an ordered pair of d6 (first = row, second 1–3 / 4–6). Never 任意."""
    if not (1 <= first <= 6 and 1 <= second <= 6):
        raise ValueError(f"lifepath dice must be d6 faces, got ({first}, {second})")
    low = second <= 3
    for e in LIFEPATH_TABLES[kind]:
        if e.row == first and e.low == low:
            return e
    raise KeyError(f"{kind}: no entry for ({first}, {second})")


def lifepath_lookup(kind: str, entry_id: str) -> LifepathEntry | None:
    return next((e for e in LIFEPATH_TABLES[kind] if e.id == entry_id), None)


# ======================================================================================================================
# §11.4 class kits (D10 default; priority order, trimmed from the end). slot: where a slot item goes ("right_hand"
# for a two-handed item, which occupies both hands); None = carried (consumables)
# ======================================================================================================================
@dataclass(frozen=True, slots=True)
class KitItem:
    item: str
    slot: str | None


_MAGIC_KIT = (KitItem("talisman", "right_hand"), KitItem("warded_coat", "armor"), KitItem("revitalizer", None))
_BEAST_KIT = (KitItem("knife", "right_hand"), KitItem("stab_vest", "armor"), KitItem("revitalizer", None))
CLASS_KITS: Mapping[str, tuple[KitItem, ...]] = _ro({
    "black_magic": _MAGIC_KIT, "white_magic": _MAGIC_KIT, "shamanic": _MAGIC_KIT, "psychic": _MAGIC_KIT,
    "celestial": _MAGIC_KIT,
    "adept": (KitItem("katana", "right_hand"), KitItem("stab_vest", "armor"), KitItem("revitalizer", None)),
    "summoner": (KitItem("knife", "right_hand"), KitItem("stab_vest", "armor"), KitItem("revitalizer", None),
                 KitItem("amplifier", None)),
    "witch_hunter": (KitItem("handgun", "right_hand"), KitItem("knife", "left_hand"), KitItem("stab_vest", "armor"),
                     KitItem("revitalizer", None)),
    "night_walker": _BEAST_KIT, "arachne": _BEAST_KIT,
    "common": (KitItem("knife", "right_hand"), KitItem("smartphone", "accessory"), KitItem("revitalizer", None)),
})


# ======================================================================================================================
# §11.5 sample PCs (クイックプレイ)
# ======================================================================================================================
@dataclass(frozen=True, slots=True)
class SamplePC:
    id: str
    name: str
    name_en: str
    main_class: str
    sub_class: str
    dice: tuple[int, ...]  # the creation roll as rolled
    fallback: bool  # sum ≤ 20 → 1..6
    assignment: Mapping[str, int]  # pre-bonus, pre-class values
    hero_bonus: Mapping[str, int]
    feats: tuple[str, ...]
    items: tuple[KitItem, ...]
    #: final values: mind tech body life soul luck wealth kagaribi (bullets for witch hunters)
    final: Mapping[str, int]
    stock_points: int
    defense_pool: int
    patron: Mapping[str, object] | None = None


SAMPLE_PCS: Mapping[str, SamplePC] = _ro({s.id: s for s in (
    SamplePC(
        "sample_midou_jin", "御堂迅", "Midō Jin", "witch_hunter", "adept",
        (6, 4, 4, 3, 2, 5), False,
        _ro({"mind": 2, "tech": 5, "body": 4, "life": 6, "soul": 3, "luck": 4}),
        _ro({"life": 6, "soul": 3, "luck": 1}),
        ("silver_bullet", "occult_lore", "diamond_body"),
        (KitItem("handgun", "right_hand"), KitItem("knife", "left_hand"), KitItem("stab_vest", "armor"),
         KitItem("revitalizer", None)),
        _ro({"mind": 1, "tech": 7, "body": 4, "life": 13, "soul": 6, "luck": 5, "wealth": 4, "kagaribi": 3,
             "bullets": 5}),
        10, 7),
    SamplePC(
        "sample_shirasagi_mio", "白鷺澪", "Shirasagi Mio", "white_magic", "white_magic",
        (3, 2, 4, 1, 5, 3), True,
        _ro({"mind": 6, "tech": 3, "body": 2, "life": 4, "soul": 5, "luck": 1}),
        _ro({"life": 6, "soul": 3, "luck": 1}),
        ("healing_prayer", "holy_light", "blessing", "curse_bullet"),
        (KitItem("school_uniform", "armor"), KitItem("kashima_charm", "accessory"), KitItem("amplifier", None)),
        _ro({"mind": 7, "tech": 3, "body": 1, "life": 10, "soul": 9, "luck": 2, "wealth": 2, "kagaribi": 4}),
        6, 7),
)})


# ======================================================================================================================
# §7.11 XP
# ======================================================================================================================
@dataclass(frozen=True, slots=True)
class XPCriterion:
    id: str
    name: str  # the source's wording
    label: str  # the spec's
    xp: int


#: D50: the four 0/1 criteria (the objective is separate: 0, or OBJECTIVE_MIN_XP or more)
XP_CRITERIA: tuple[XPCriterion, ...] = (
    XPCriterion("active", "セッション中に活躍した", "was active in the session (活躍した)", 1),
    XPCriterion("helped_pc", "セッション中に他のPCを助けた", "helped another PC", 1),
    XPCriterion("helped_session", "セッションの進行を助けた", "helped the session run smoothly", 1),
    XPCriterion("scheduling", "スケジュールを調整したりセッション開催に協力してくれた",
                "helped schedule / host the session", 1),
)
OBJECTIVE_MIN_XP = 5  # 「シナリオの目的を達成した：５～」
#: §7.11.2 feat costs by list; a main = sub list costs "main"
FEAT_XP_COST: Mapping[str, int] = _ro({"main": 5, "sub": 10, "common": 5, "sn_common": 5})
DEATH_XP_NUM, DEATH_XP_DEN = 4, 5  # 八割 (80 %), rounded up


def raise_cost(base: int, raise_from_zero_cost: int = 2) -> int:
    """§7.11.2 / AMB-39: raising an ability by 1 costs 2 × its current base (base 0 → ``raise_from_zero_cost``)."""
    return 2 * base if base > 0 else raise_from_zero_cost


def raise_steps_cost(base: int, steps: int, raise_from_zero_cost: int = 2) -> int:
    """Cost of ``steps`` successive raises starting from ``base``."""
    return sum(raise_cost(base + k, raise_from_zero_cost) for k in range(steps))


def gm_xp(player_xp: list[int]) -> int:
    """§7.11.1 / AMB-42: N ≥ 2 → ceil(Σ / (N − 1)); N = 1 → that player's XP + 1; no players → 0."""
    n = len(player_xp)
    if n == 0:
        return 0
    if n == 1:
        return player_xp[0] + 1
    return math.ceil(sum(player_xp) / (n - 1))


def death_xp(xp_spent: int) -> int:
    """§7.11.4: ceil(0.8 × xp_spent), in integers (10 → 8, 23 → 19)."""
    return -(-xp_spent * DEATH_XP_NUM // DEATH_XP_DEN)


#: phase names (§9.8), for prompts
PHASE_NAMES: Mapping[str, str] = _ro({
    "preplay": "プリプレイ", "opening": "オープニングフェイズ", "middle": "ミドルフェイズ",
    "climax": "クライマックスフェイズ", "ending": "エンディングフェイズ", "afterplay": "アフタープレイ",
})
