"""Data tables of rules/bloodberry.md §9 (complete). Japanese text exactly as in the spec; ids in ASCII."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "ABILITIES", "ABILITY_NAMES", "RELATION_TYPES", "RELATION_TYPE_NAMES", "RELATION_BASE", "CURSE_TYPES",
    "CURSE_TYPE_NAMES", "CURSE_ABILITY", "CURSE_STAT_NAMES", "BasicSkill", "BASIC_SKILLS", "SKILL_ORDER",
    "CLASSES", "CLASS_NAMES", "CLASS_SKILLS", "CLASS_SKILL_NAMES", "RACE_SKILLS", "RACE_SKILL_NAMES",
    "RELATION_TABLE", "EMOTION_TABLE", "CURSE_TABLE", "ABILITY_COMBOS", "WORLD_PLACES", "CLASS_FLAVOUR",
]

ABILITIES = ("passion", "grace", "maturity")
ABILITY_NAMES = {"passion": "情熱", "grace": "気品", "maturity": "大人"}

RELATION_TYPES = ("inquiry", "banter", "seduction")
RELATION_TYPE_NAMES = {"inquiry": "探究", "banter": "遊話", "seduction": "誘惑"}
RELATION_BASE = {"inquiry": "passion", "banter": "grace", "seduction": "maturity"}  # §5.4

CURSE_TYPES = ("doubt", "malice", "anxiety")
CURSE_TYPE_NAMES = {"doubt": "疑問", "malice": "悪意", "anxiety": "不安"}
CURSE_ABILITY = {"doubt": "passion", "malice": "grace", "anxiety": "maturity"}  # §5.5 (A3: 不安 → 大人)
#: a formed curse rolls its stat where a PC would roll the corresponding ability (§4.2)
CURSE_STAT_NAMES = CURSE_TYPE_NAMES


@dataclass(frozen=True, slots=True)
class BasicSkill:
    id: str
    name: str
    cls: str
    affirm: str
    weakness: str
    sub_ability: str
    description: str
    effect_text: str


# §9.1, in sheet order (the order matters for scripted defaults)
BASIC_SKILLS: dict[str, BasicSkill] = {s.id: s for s in (
    BasicSkill("ganbariya", "頑張り屋", "seeker", "inquiry", "doubt", "passion",
               "あなたは頑張り屋だ。万事に対してとは限らず、大切な一つをあきらめないのかもしれない。", "[情熱]・関係が[１]の相手を[２]に変更する。"),
    BasicSkill("ecchi", "えっち", "moon_witch", "seduction", "malice", "passion",
               "あなたの心はエロい。", "[情熱]・誘惑か不安の受動時に使用。自分の判定ダイスを（＋[情熱]）する。"),
    BasicSkill("kataomoi", "片思い", "seeker", "inquiry", "anxiety", "passion",
               "あなたの恋は片思いだ。まだ、あるいは、また。", "[情熱]・遊話の能動時に使用。自分の判定ダイスを（＋[大人]）する。"),
    BasicSkill("chukoku_buster", "忠告バスター", "moon_witch", "inquiry", "malice", "passion",
               "あなたはモーニングスターやカメラ、消火器など武器の扱いに長け、持つと狂戦士になる。", "[情熱]・誘惑の判定後に使用。その判定の結果を打ち消す。"),
    BasicSkill("byojaku", "病弱", "old_reader", "inquiry", "anxiety", "passion",
               "あなたは身体的に障害がある。", "[情熱]・[情熱]を２回復する。"),
    BasicSkill("yasegaman", "やせ我慢", "seeker", "banter", "doubt", "grace",
               "あなたは忍耐強い。", "[気品]・探究の能動時に使用。自分の判定ダイスを（＋[情熱]）する。"),
    BasicSkill("ijiwaru", "いじわる", "old_reader", "seduction", "doubt", "grace",
               "あなたはいじわるだ。好ましく思う相手ほど、特に。", "[気品]・遊話か悪意の受動時に使用。自分の判定ダイスを（＋[気品]）する。"),
    BasicSkill("ookami_san", "狼さん", "moon_witch", "banter", "anxiety", "grace",
               "あなたはあちこちの女の子に手をつけている。", "[気品]・誘惑の能動時に使用。判定ダイスを(＋能動側の[大人])する。"),
    BasicSkill("bannou", "万能", "moon_witch", "inquiry", "anxiety", "grace",
               "あなたは天使か悪魔のような人間と思われている。", "[気品]・誘惑の能動時に使用。受動側の判定の基準を[情熱][情熱]に変更する。"),
    BasicSkill("majo", "魔女", "old_reader", "seduction", "malice", "grace",
               "あなたは魔女と呼ばれるような変わり者だ。", "[気品]・遊話の能動時に使用。判定ダイスを（＋[気力]）する。"),
    BasicSkill("maguro", "まぐろ", "seeker", "inquiry", "doubt", "maturity",
               "あなたは鋭敏な感覚を持っている。", "[大人]・誘惑か不安の受動時に使用。自分の判定の基準を[情熱][大人]に変更する。"),
    BasicSkill("jidaraku", "自堕落", "old_reader", "banter", "malice", "maturity",
               "あなたは尽くしたい他人がいないとダメな人間だ。", "[大人]・判定前に使用。自身以外の対象一人を選択し、その判定ダイスに（＋2D）する。"),
    BasicSkill("yubiwa", "指輪", "moon_witch", "seduction", "malice", "maturity",
               "あなたは指輪をはめている。それは誰かとの、社会的な深い関係を暗示するものだ。", "[大人]・判定前に使用。自分の判定ダイスを(+2D)する。"),
    BasicSkill("kyoshi", "教師", "old_reader", "seduction", "anxiety", "maturity",
               "あなたが生徒の未来を守り、教え導く立場にある人間だ。", "[大人]・関係判定の受動時に使用。能動側の達成値を１減少する。"),
    BasicSkill("bokyaku", "忘却", "old_reader", "inquiry", "doubt", "maturity",
               "あなたは忘れていることがある。", "[大人]・他者の昇華の効果を一つ打ち消す。ただしこの効果を打ち消す場合は打ち消せない。"),
)}
SKILL_ORDER = {sid: i for i, sid in enumerate(BASIC_SKILLS)}

CLASSES = ("seeker", "moon_witch", "old_reader")
CLASS_NAMES = {"seeker": "探索者", "moon_witch": "月の魔女", "old_reader": "古読み"}
CLASS_FLAVOUR = {
    "seeker": "あなたは望みがある。／あなたは何かを探している。",
    "moon_witch": "あなたは待っている。／あなたは何かのためここにいる。",
    "old_reader": "あなたは終わりを探している。／あなたは永遠を祈っている。",
}
# §9.2, in list order (cc.fairy_drop default: the third)
CLASS_SKILLS = {
    "seeker": ("into_distant_dream", "wish_for_tomorrow", "words"),
    "moon_witch": ("afterimage_of_past", "spare_key", "time_stop"),
    "old_reader": ("foam_on_stagnant_water", "exorcism", "total_domination"),
}
CLASS_SKILL_NAMES = {
    "into_distant_dream": "遠き夢の中へ", "wish_for_tomorrow": "明日への願い", "words": "言葉",
    "afterimage_of_past": "過去の残像", "spare_key": "合い鍵", "time_stop": "時間",
    "foam_on_stagnant_water": "淀みに浮かぶ泡沫の", "exorcism": "破魔", "total_domination": "完全支配",
}
RACE_SKILLS = ("fairy_curse", "fairy_guardian")
RACE_SKILL_NAMES = {"fairy_curse": "妖精の呪い", "fairy_guardian": "守護"}

# §9.6 (1D6)
RELATION_TABLE = (
    ("twins", "《双子》", "私達は血の繋がった姉妹であり、双子である。"),
    ("master_servant", "《主従》", "私達は逃れがたい強い主従関係にある。"),
    ("kusare_en", "《腐縁》", "私達は理不尽さを感じるほど昔から一緒にいる。"),
    ("burn", "《火傷》", "私達は同じ喪失感、激しい痛みの中にいる。"),
    ("guilt", "《罪悪》", "私達は自分達だけが知る、同じ罪を犯した。"),
    ("old_love", "《旧縁》", "私達は昔、命を賭けて愛し合った。"),
)

# §9.7 (entries 1..12)
EMOTION_TABLE = (
    ("satsui", "《殺意》", "自分だけが殺していい存在だと思っている。"),
    ("akui", "《悪意》", "陥れることがたった一つの生き甲斐だ。"),
    ("kokai", "《後悔》", "知らなければ良かったのにと考えている。"),
    ("gimu", "《義務》", "愛さなくてはならない。"),
    ("tsuikyu", "《追求》", "すべて知りたい。"),
    ("fukuju", "《服従》", "主と仰ぎ、命令に服従したい。"),
    ("sorani", "《空似》", "別の誰かを思い出す。"),
    ("izon", "《依存》", "離れることができず、依存し続けている。"),
    ("shoso", "《焦燥》", "何故か胸が熱くなり、いつも不思議に思う。"),
    ("shugo", "《守護》", "守りたい。"),
    ("aiyoku", "《愛欲》", "他の人などいらないほど、誰より愛している。"),
    ("eien", "《永遠》", "いつまでも一緒にいたい。"),
)

# §9.8 (copy 2, 18 rows): id -> text
CURSE_TABLE = {
    "c12_1": "誰かによく似ている。あなたはその誰かに間違われやすい。",
    "c12_2": "ある他人を強く思い続けている。あなたは言葉にしないと伝わらないことに気づかない。",
    "c12_3": "人身御供の儀式に呪われている。呪いはあなたを永遠繰り返す儀式へ引き寄せる。",
    "c12_4": "ある場所に縛り続けられている。あなたはそこから抜け出せない。",
    "c12_5": "他人の悲しみや怒りの感情を食べなくては生きていけない。あなたは人ではなく、悪魔なのだ。",
    "c12_6": "物事に無気力だ。あなたの心は冷めている。",
    "c34_1": "かつて起きた事件、あるいは今起きている事件の真犯人だ。あなたは救いを求めている。",
    "c34_2": "女運がない。あなたは嫌われるわけではないが、いつも間が悪いのだ。",
    "c34_3": "酒癖が悪い。あなたは気づかぬ内にクレジットカードを使うし後輩に口を聞いて貰えなくなっている。",
    "c34_4": "規則に捕らわれている。あなたは規則の外の綺麗なものを、素直に綺麗と判断できない。",
    "c34_5": "人形に依存している。あなたは理由は分からないが、人形にひどく魅せられているのだ。",
    "c34_6": "ヘビーだ。あなたには体重計を余計に動かす呪いがある。日々の努力だけがその呪いを解くのだ。",
    "c56_1": "成長が止まっている。あなたは過去に傷つき、以来、その時の姿のままだ。",
    "c56_2": "偽物だ。あなたは憧れている者がおり、そのフェイクとして行動している。",
    "c56_3": "本当には存在していない。あなたは夢を見ている。自分の夢とは限らないけれど。",
    "c56_4": "責任に縛られている。あなたは自分の立場に、自分の居場所や行動を束縛されているのだ。",
    "c56_5": "子どもの自分を拒絶する。あなたは成長を楽しむより、それが早く過ぎ去ることを願っている。",
    "c56_6": "取り柄がない。あなたは欲しい取り柄があるわけではないが、ないことに劣等感を抱いている。",
}

# §9.5
ABILITY_COMBOS = (
    (("passion", "passion"), "（いくよ）", "運動、腕力・脚力、体力"),
    (("passion", "grace"), "（うふふ）", "威圧・説得、魅了"),
    (("passion", "maturity"), "（任せて）", "芸術・技術、運転などの専門技能"),
    (("grace", "grace"), "（にやり）", "体裁を保つ、演技、隠れる"),
    (("grace", "maturity"), "（きらん）", "社交、礼儀作法、信用"),
    (("maturity", "maturity"), "（どどん）", "財力、大人の知識（表も裏も）"),
)

# §9.10 (GM-prompt facts, kept short)
WORLD_PLACES = {
    "inoiri_town": ("居入町", "千葉県の海沿いの町。古い漁師町で、西の港側は開けた低地。東の海を除いて山に囲まれている。"),
    "itogawa_station": ("糸川駅", "町の中心にある主要駅。"),
    "itogawa_river": ("糸川", "東の海から西に向かって一本伸びる長い川。"),
    "inoiri_shotengai": ("居入町商店街", "駅から東へ一本の商店街。みつあみ屋、らんすう、ロールなど。"),
    "ayame_shotengai": ("あやめ商店街", "駅の西、住宅街の近く。橋の両側に店が並ぶ。西瓜堂がある。"),
    "hagurumado": ("「歯車堂」", "最大の人形工房。糸川沿いの三階建ての倉庫、広い地下に江戸時代からの人形が数百体。"),
    "inoiri_port": ("居入港", "町の西の港。朝六時から七時の魚市場。端の洞窟は子供の遊び場、危険な所はしめ縄で閉鎖。人魚伝説。"),
    "daimyomon_saltworks": ("大明門製塩工場地帯", "北の製塩工場地帯。室町時代から静海神社へ塩を奉納した記録。"),
    "seikai_shrine": ("「静海神社」", "製塩工場地帯の海に近い神社。"),
    "hananoen": ("遊園地「花乃園」", "いつも閉園の噂がある遊園地。"),
    "sanno_shrine": ("「山王神社」", "北の山の近くの神社。"),
    "yakumo_forest": ("八雲森林", "南の大きな森。祭りの集まる場所。"),
    "mizukumo_shrine": ("「水雲神社」", "八雲森林の小さな神社。春と秋に山の祭り。"),
}
