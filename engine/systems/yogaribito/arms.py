"""夜狩り人 data: feats (rules/yogaribito.md §11.3), items (§11.4), enemies (§11.7), 痛打表 (§7.6), bad statuses (§7.9).

The rulebook contains none of the feat, item and enemy data: everything in FEATS, ITEMS, NATURAL_WEAPONS and ENEMIES
is the spec's **[HOUSE]** data set (§11.1), written here as frozen dataclasses in table order. Japanese text is as
written in the spec. Effects are structured fields that the rules code (checks.py, combat.py) reads; ``effect`` is the
spec's (English) effect text, kept for reference; ``FeatData.effect_jp`` is its faithful Japanese translation, the
text players see in labels and prompts (the project rule: game text in Japanese, code ids in ASCII).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "Formula", "CheckBonus", "DamageMod", "FeatData", "ItemData", "EnemyData", "CritRow", "StatusData",
    "FEATS", "ITEMS", "NATURAL_WEAPONS", "ENEMIES", "CRIT_TABLE", "BAD_STATUSES", "STATUS_NAMES",
    "SN_CLASSES", "FEAT_LISTS", "TIMINGS", "AUTO_TRIGGERS", "CHECK_TRIGGERS", "OTHER_TRIGGERS",
    "feats_of_list", "class_list_id", "lists_of_class", "is_supernatural_feat", "item_data", "weapon_data",
]


# ---------------------------------------------------------------------------------------------------------------
# formulas
# ---------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Formula:
    """``dice`` dice of ``sides`` (6, or 3 = ceil(d6/2), §0.4) plus ``plus``. A fixed 2 is ``Formula(0, 6, 2)``."""

    dice: int
    sides: int = 6
    plus: int = 0

    def __post_init__(self) -> None:
        if self.sides not in (3, 6):
            raise ValueError(f"Formula sides must be 3 or 6, not {self.sides}")
        if self.dice < 0:
            raise ValueError("Formula dice must be >= 0")

    def __str__(self) -> str:
        if self.dice == 0:
            return str(self.plus)
        s = f"{self.dice}D{self.sides}"
        if self.plus > 0:
            s += f"+{self.plus}"
        elif self.plus < 0:
            s += str(self.plus)
        return s

    @property
    def minimum(self) -> int:
        return self.dice + self.plus

    @property
    def maximum(self) -> int:
        return self.dice * self.sides + self.plus


# ---------------------------------------------------------------------------------------------------------------
# structured effects
# ---------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class CheckBonus:
    """A constant bonus to check dice (§5.3 "feats / items"), inside the defense floor.

    ``kinds``: check kinds it applies to (§5.1). ``condition``: None (always) | ``"day"`` | ``"night"`` |
    ``"patron_favored"`` (a patron-favored tag is present) | ``"tag:<env tag>"`` | ``"vs_mind_attack"`` (the attack
    being defended against has the mind attribute).
    """

    kinds: tuple[str, ...]
    dice: int
    condition: str | None = None


@dataclass(frozen=True, slots=True)
class DamageMod:
    """A constant damage modifier. ``direction``: ``dealt`` (outgoing) | ``received`` (incoming).
    ``attribute``: the damage attribute it applies to (None = any attribute, including none).
    ``condition``: None | ``"unholy"`` (scene tag) | ``"night"`` | ``"day"``."""

    direction: str
    amount: int
    attribute: str | None = None
    condition: str | None = None


# ---------------------------------------------------------------------------------------------------------------
# feats (§11.2, §11.3)
# ---------------------------------------------------------------------------------------------------------------
SN_CLASSES = ("black_magic", "white_magic", "shamanic", "psychic")
#: feat list ids: the 10 class ids, the コモン class list, the common feats, the supernatural common feats
FEAT_LISTS = ("common", "sn_common", "black_magic", "white_magic", "shamanic", "psychic", "adept", "summoner",
              "witch_hunter", "night_walker", "celestial", "arachne", "class:common")
TIMINGS = ("constant", "setup", "minor", "major", "auto")
#: auto triggers asked at step A of a check (D25)
CHECK_TRIGGERS = ("before_own_defense", "before_defense_in_engagement", "before_own_check")
#: auto triggers asked elsewhere (D60)
OTHER_TRIGGERS = ("after_damage_to_self_determined", "own_turn_start")
AUTO_TRIGGERS = CHECK_TRIGGERS + OTHER_TRIGGERS


@dataclass(frozen=True, slots=True)
class FeatData:
    id: str
    name: str
    list: str  # class id | "common" | "sn_common" | "class:common"
    timing: str  # constant | setup | minor | major | auto
    effect: str  # the spec's effect text (English, reference only: never shown to players)
    effect_jp: str  # the same effect in Japanese, with the rulebook's terms: what labels and prompts show
    trigger: str | None = None  # auto feats: one of AUTO_TRIGGERS
    trigger_kinds: tuple[str, ...] = ()  # before_own_check: the check kinds that trigger it
    #: before_own_check on "hit": only when at least one target carries this tag (occult_lore)
    trigger_target_tag: str | None = None
    #: own_turn_start: only while the character has one of these statuses (desperate_courage)
    trigger_statuses: tuple[str, ...] = ()
    cost: dict[str, int] = field(default_factory=dict)
    check: str | None = None  # check ability (attack feats)
    range: str | None = None  # close | ranged | scene
    target: str = "self"  # self | single | area | own_engagement | defender
    target_self_ok: bool = False  # single-target support feats that may target the user
    target_not_awakened: bool = False  # healing feats: the target may not be awakened (no recovery, §7.8)
    limit: str | None = None  # round | scene | scenario | None
    requires_main: bool = False
    attack: bool = False
    damage: Formula | None = None
    no_damage: bool = False
    attribute: str | None = None  # damage attribute (= check ability for house attacks, AMB-24)
    damage_stat: str = "life"  # every house attack hits life (§11.2)
    # --- effects -------------------------------------------------------------------------------------------------
    on_hit_status: str | None = None  # status inflicted on hit (inflicter = the attacker)
    bonus_vs_tag: tuple[str, int] | None = None  # (tag, +damage) vs targets carrying the tag (holy_light)
    drain: bool = False  # blood_drain: heal ceil(damage dealt / 2) life after applying the damage
    bonus_dice: int = 0  # auto/setup check bonuses: dice added to the triggering (or next) check
    ignore_consecutive: bool = False  # mental_barrier
    check_bonuses: tuple[CheckBonus, ...] = ()  # constant check bonuses
    damage_mods: tuple[DamageMod, ...] = ()  # constant damage modifiers
    damage_reduction_auto: int = 0  # guardian_spirit: −n to the determined damage
    next_attack_damage: int = 0  # all_out_attack: +n damage to the next attack this turn
    next_attack_dice: Formula | None = None  # silver_bullet: bonus damage dice to the next attack this turn
    next_attack_category: str | None = None  # ... only with a weapon of this category
    heal: Formula | None = None  # healing feats: amount
    heal_stat: str = "life"
    removes_statuses: tuple[str, ...] = ()  # statuses removed by the effect (field_dressing: poison)
    grants_flying: str | None = None  # "round" | "scene": flying until the end of it
    blockade: bool = False  # ward: you blockade your engagement until the end of the round
    move_leaves_engagement: bool = False  # gale_step
    summoner_first_die: int = 0  # offering: the first soul spent with the Summoner feature gives this many dice

    #: feats of a supernatural class list or of the SN common list (blocked by 魔封 unless constant); derived from
    #: ``list`` when the feat is made (read for every feat of every combatant before each action)
    supernatural: bool = field(init=False, repr=False, compare=False)
    #: the class whose feat this is (for the Witch Hunter bullet payment, §5.7); None for common lists (derived)
    feat_class: str | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "supernatural", self.list in SN_CLASSES or self.list == "sn_common")
        fc = None if self.list in ("common", "sn_common") else ("common" if self.list == "class:common" else self.list)
        object.__setattr__(self, "feat_class", fc)


def _feat(**kw: Any) -> FeatData:
    return FeatData(**kw)


_F = Formula
_FEATS: list[FeatData] = [
    # --- common feats (共通特技) ---
    _feat(id="first_aid", name="《応急手当》", list="common", timing="major", range="close", target="single",
          target_self_ok=True, target_not_awakened=True, limit="scene", heal=_F(1, 3),
          effect="target life +1D3 (cap base)",
          effect_jp="対象の【命】を1D3点回復（原点まで）"),
    _feat(id="all_out_attack", name="《全力攻撃》", list="common", timing="minor", cost={"life": 1}, target="self",
          limit="round", next_attack_damage=2, effect="your next attack this turn: damage +2",
          effect_jp="この手番のあなたの次の攻撃のダメージ+2"),
    _feat(id="sixth_sense", name="《第六感》", list="common", timing="auto", trigger="before_own_defense",
          cost={"soul": 1}, target="self", limit="round", bonus_dice=1, effect="+1 die to that defense check",
          effect_jp="その防御判定のダイス+1個"),
    # --- supernatural common feats (スーパーナチュラル共通特技) ---
    _feat(id="curse_bullet", name="《呪弾》", list="sn_common", timing="major", cost={"soul": 1}, check="mind",
          range="ranged", target="single", attack=True, damage=_F(1), attribute="mind",
          effect="attack, damage 1D6 (mind)",
          effect_jp="攻撃。ダメージ1D6（【心】属性）"),
    _feat(id="spirit_sight", name="《霊視》", list="sn_common", timing="auto", trigger="before_own_check",
          trigger_kinds=("information",), cost={"soul": 1}, target="self", limit="scene", bonus_dice=2,
          effect="+2 dice",
          effect_jp="ダイス+2個"),
    _feat(id="ward", name="《結界》", list="sn_common", timing="setup", cost={"soul": 2}, target="own_engagement",
          limit="round", blockade=True,
          effect="you blockade your engagement until end of round (ends if you leave it or are 戦闘不能)",
          effect_jp="ラウンド終了まで、あなたのいるエンゲージを封鎖する（あなたがそのエンゲージを離れるか"
                    "戦闘不能になると終わる）"),
    # --- ブラックマジック ---
    _feat(id="dark_curse", name="《黒き呪詛》", list="black_magic", timing="major", cost={"soul": 2}, check="mind",
          range="scene", target="single", attack=True, damage=_F(0, 6, 2), attribute="mind", on_hit_status="curse",
          effect="attack, damage 2 (mind); on hit inflict 呪詛 (inflicter = you)",
          effect_jp="攻撃。ダメージ2（【心】属性）。命中した対象を呪詛にする（付与者はあなた）"),
    _feat(id="brand_of_malice", name="《魔の刻印》", list="black_magic", timing="major", cost={"soul": 1},
          check="mind", range="ranged", target="single", attack=True, no_damage=True, attribute="mind",
          on_hit_status="brand", effect="attack, no damage; on hit inflict 刻印 (inflicter = you)",
          effect_jp="攻撃。ダメージなし。命中した対象を刻印にする（付与者はあなた）"),
    _feat(id="unholy_pact", name="《魔との盟約》", list="black_magic", timing="constant", target="self",
          damage_mods=(DamageMod("dealt", 1, "mind", "unholy"),),
          effect="in `unholy` scenes, mind-attribute damage you deal +1",
          effect_jp="不浄なシーンでは、あなたが与える【心】属性のダメージ+1"),
    # --- ホワイトマジック ---
    _feat(id="healing_prayer", name="《癒しの祈り》", list="white_magic", timing="major", cost={"soul": 1},
          range="scene", target="single", target_self_ok=True, target_not_awakened=True, heal=_F(1),
          effect="target life +1D6 (cap base)",
          effect_jp="対象の【命】を1D6点回復（原点まで）"),
    _feat(id="holy_light", name="《聖なる光》", list="white_magic", timing="major", cost={"soul": 2}, check="mind",
          range="ranged", target="area", attack=True, damage=_F(1), attribute="mind",
          bonus_vs_tag=("unholy_being", 2),
          effect="attack, damage 1D6 (mind); +2 damage vs targets tagged `unholy_being`",
          effect_jp="攻撃。ダメージ1D6（【心】属性）。不浄な存在である対象にはダメージ+2"),
    _feat(id="blessing", name="《祝福》", list="white_magic", timing="setup", cost={"soul": 1}, range="scene",
          target="single", target_self_ok=True, limit="round", bonus_dice=1,
          effect="the target's next check this round +1 die",
          effect_jp="対象のこのラウンドの次の判定のダイス+1個"),
    # --- シャーマニック ---
    _feat(id="spirit_strike", name="《精霊撃》", list="shamanic", timing="major", cost={"soul": 1}, check="mind",
          range="ranged", target="single", attack=True, damage=_F(1, 6, 1), attribute="mind",
          effect="attack, damage 1D6+1 (mind)",
          effect_jp="攻撃。ダメージ1D6+1（【心】属性）"),
    _feat(id="spirit_guard", name="《精霊の守り》", list="shamanic", timing="auto",
          trigger="before_defense_in_engagement", cost={"soul": 1}, range="close", target="defender",
          limit="round", bonus_dice=1, effect="+1 die to that defense check",
          effect_jp="その防御判定のダイス+1個"),
    _feat(id="nature_communion", name="《自然との交感》", list="shamanic", timing="constant", target="self",
          check_bonuses=(CheckBonus(("information",), 1, "patron_favored"),),
          effect="information checks +1 die in scenes with a patron-favored tag",
          effect_jp="崇める存在が好む状況のあるシーンでは、情報収集判定のダイス+1個"),
    # --- サイキック ---
    _feat(id="telekinesis", name="《念動力》", list="psychic", timing="major", cost={"soul": 1}, check="mind",
          range="ranged", target="single", attack=True, damage=_F(1), attribute="mind",
          effect="attack, damage 1D6 (mind)",
          effect_jp="攻撃。ダメージ1D6（【心】属性）"),
    _feat(id="mental_barrier", name="《精神障壁》", list="psychic", timing="auto", trigger="before_own_defense",
          cost={"soul": 1}, target="self", limit="round", ignore_consecutive=True,
          effect="that defense check ignores 連続ターゲット補正",
          effect_jp="その防御判定は連続ターゲット補正を受けない"),
    _feat(id="mind_reading", name="《読心》", list="psychic", timing="auto", trigger="before_own_check",
          trigger_kinds=("negotiation", "information"), cost={"soul": 1}, target="self", limit="scene",
          bonus_dice=2, effect="+2 dice",
          effect_jp="ダイス+2個"),
    # --- アデプト ---
    _feat(id="iron_fist", name="《剛拳》", list="adept", timing="major", cost={"life": 1}, check="body",
          range="close", target="single", attack=True, damage=_F(1, 6, 1), attribute="body",
          effect="attack, damage 1D6+1 (body)",
          effect_jp="攻撃。ダメージ1D6+1（【体】属性）"),
    _feat(id="gale_step", name="《疾風》", list="adept", timing="minor", cost={"soul": 1}, target="self",
          limit="round", move_leaves_engagement=True,
          effect="this minor action is a move that may leave an engagement containing enemies (blockade still applies)",
          effect_jp="このマイナーアクションは移動で、敵のいるエンゲージからも出られる（封鎖は有効）"),
    _feat(id="diamond_body", name="《金剛身》", list="adept", timing="constant", target="self",
          damage_mods=(DamageMod("received", -1, "body"),), effect="body-attribute damage you receive −1",
          effect_jp="あなたが受ける【体】属性のダメージ−1"),
    # --- サモナー ---
    _feat(id="pact_beast", name="《契約獣の牙》", list="summoner", timing="major", cost={"soul": 2}, check="body",
          range="scene", target="single", attack=True, damage=_F(1, 6, 1), attribute="body",
          effect="attack, damage 1D6+1 (body)",
          effect_jp="攻撃。ダメージ1D6+1（【体】属性）"),
    _feat(id="offering", name="《供物》", list="summoner", timing="constant", target="self", requires_main=True,
          summoner_first_die=2,
          effect="in each check, the first soul spent with the Summoner feature gives +2 dice instead of +1",
          effect_jp="各判定で、サモナーの特徴で最初に使った【魂】1点はダイス+1個でなく+2個になる"),
    _feat(id="guardian_spirit", name="《守護霊》", list="summoner", timing="auto",
          trigger="after_damage_to_self_determined", cost={"soul": 1}, target="self", limit="round",
          damage_reduction_auto=2, effect="that damage −2 (min 0)",
          effect_jp="そのダメージ−2（最低0）"),
    # --- ウィッチハンター ---
    _feat(id="silver_bullet", name="《銀の弾丸》", list="witch_hunter", timing="minor", cost={"wealth": 1},
          target="self", limit="round", next_attack_dice=_F(1), next_attack_category="firearm",
          effect="your next attack this turn with a `firearm` weapon: +1D6 damage (bonus die)",
          effect_jp="この手番のあなたの次の銃器による攻撃のダメージ+1D6（ボーナスダイス）"),
    _feat(id="occult_lore", name="《対魔知識》", list="witch_hunter", timing="auto", trigger="before_own_check",
          trigger_kinds=("information", "hit"), trigger_target_tag="supernatural_being", cost={"soul": 1},
          target="self", limit="scene", bonus_dice=2,
          effect="+2 dice (information, or hit with ≥1 target tagged `supernatural_being`)",
          effect_jp="情報収集判定、または超常の存在である対象が1体以上いる命中判定のダイス+2個"),
    _feat(id="field_dressing", name="《野戦治療》", list="witch_hunter", timing="major", cost={"wealth": 1},
          range="close", target="single", target_self_ok=True, target_not_awakened=True, heal=_F(1, 3, 1),
          removes_statuses=("poison",), effect="life +1D3+1 (cap base) and remove 毒",
          effect_jp="【命】を1D3+1点回復（原点まで）し、毒を解除する"),
    # --- ナイトウォーカー ---
    _feat(id="blood_drain", name="《吸血》", list="night_walker", timing="major", cost={"soul": 1}, check="body",
          range="close", target="single", attack=True, damage=_F(1), attribute="body", drain=True,
          effect="attack, damage 1D6 (body); after applying it you recover life = ceil(damage dealt / 2) "
                 "(cap base; not while awakened)",
          effect_jp="攻撃。ダメージ1D6（【体】属性）。ダメージの適用後、与えたダメージの半分（端数切り上げ）だけ"
                    "【命】を回復する（原点まで。覚醒中は回復しない）"),
    _feat(id="mist_form", name="《霧化》", list="night_walker", timing="setup", cost={"soul": 2}, target="self",
          limit="round", grants_flying="round", effect="you are flying until end of round",
          effect_jp="ラウンド終了まで飛行状態になる"),
    _feat(id="night_predator", name="《夜の狩人》", list="night_walker", timing="constant", target="self",
          damage_mods=(DamageMod("dealt", 1, None, "night"),), effect="at night, damage you deal +1",
          effect_jp="夜間は、あなたが与えるダメージ+1"),
    # --- セレスチャル ---
    _feat(id="heavenly_judgment", name="《天の裁き》", list="celestial", timing="major", cost={"soul": 2},
          check="mind", range="scene", target="single", attack=True, damage=_F(1, 6, 1), attribute="mind",
          effect="attack, damage 1D6+1 (mind)",
          effect_jp="攻撃。ダメージ1D6+1（【心】属性）"),
    _feat(id="radiant_wings", name="《光の翼》", list="celestial", timing="minor", cost={"soul": 1}, target="self",
          limit="scene", grants_flying="scene", effect="you are flying until end of scene (ends at combat end)",
          effect_jp="シーン終了まで飛行状態になる（戦闘終了時に終わる）"),
    _feat(id="halo", name="《光輪》", list="celestial", timing="constant", target="self",
          check_bonuses=(CheckBonus(("defense",), 1, "day"),), effect="in daytime your defense checks +1 die",
          effect_jp="日中は、あなたの防御判定のダイス+1個"),
    # --- アラクネ ---
    _feat(id="venom_fang", name="《蟲毒の牙》", list="arachne", timing="major", cost={"life": 1}, check="body",
          range="close", target="single", attack=True, damage=_F(1), attribute="body", on_hit_status="poison",
          effect="attack, damage 1D6 (body); on hit inflict 毒",
          effect_jp="攻撃。ダメージ1D6（【体】属性）。命中した対象を毒にする"),
    _feat(id="silk_bind", name="《縛糸》", list="arachne", timing="major", cost={"life": 1}, check="mind",
          range="ranged", target="single", attack=True, no_damage=True, attribute="mind", on_hit_status="bound",
          effect="attack, no damage; on hit inflict 束縛",
          effect_jp="攻撃。ダメージなし。命中した対象を束縛にする"),
    _feat(id="chitin", name="《甲殻》", list="arachne", timing="constant", target="self",
          damage_mods=(DamageMod("received", -1, "body"),), effect="body-attribute damage you receive −1",
          effect_jp="あなたが受ける【体】属性のダメージ−1"),
    # --- コモン (class list) ---
    _feat(id="run_away", name="《逃げ足》", list="class:common", timing="constant", target="self",
          check_bonuses=(CheckBonus(("blockade_contest",), 2),), effect="+2 dice in your blockade contests",
          effect_jp="あなたの封鎖の対決のダイス+2個"),
    _feat(id="ordinary_intuition", name="《日常の勘》", list="class:common", timing="constant", target="self",
          check_bonuses=(CheckBonus(("entry", "information"), 1),),
          effect="+1 die on entry checks and information checks",
          effect_jp="登場判定と情報収集判定のダイス+1個"),
    _feat(id="desperate_courage", name="《必死の勇気》", list="class:common", timing="auto", trigger="own_turn_start",
          trigger_statuses=("paralysis", "fear"), target="self", limit="scenario",
          removes_statuses=("paralysis", "fear"), effect="remove that status; then act normally",
          effect_jp="その状態（麻痺・恐怖）を解除し、そのあと通常どおり行動する"),
]
FEATS: dict[str, FeatData] = {f.id: f for f in _FEATS}


def class_list_id(class_id: str) -> str:
    """The feat list of a class: the コモン class list is ``class:common`` (the ``common`` list is 共通特技)."""
    return "class:common" if class_id == "common" else class_id


def feats_of_list(list_id: str) -> list[FeatData]:
    """Feats of one list in table order (``common`` = 共通特技, ``class:common`` = the コモン class list)."""
    return [f for f in FEATS.values() if f.list == list_id]


def lists_of_class(class_id: str) -> tuple[str, ...]:
    """The lists a class picks from as its own: its list, plus ``sn_common`` for a supernatural class (§3.1 step 5)."""
    own = class_list_id(class_id)
    return (own, "sn_common") if class_id in SN_CLASSES else (own,)


def is_supernatural_feat(feat_id: str) -> bool:
    return FEATS[feat_id].supernatural


# ---------------------------------------------------------------------------------------------------------------
# items (§11.4)
# ---------------------------------------------------------------------------------------------------------------
SLOT_KINDS = ("none", "one_hand", "two_hands", "armor", "accessory")


@dataclass(frozen=True, slots=True)
class ItemData:
    id: str
    name: str
    type: str  # weapon | armor | accessory | consumable | natural_weapon
    slots: str  # none | one_hand | two_hands | armor | accessory
    effect: str = "—"
    check: str | None = None
    range: str | None = None
    target: str | None = None
    damage: Formula | None = None
    attribute: str | None = None
    categories: tuple[str, ...] = ()
    stock: int | None = None  # stock cost (None: cannot be stocked)
    purchase: int | None = None  # purchase target (None: cannot be bought)
    needs_hand: bool = False  # unarmed / claws: usable only with a usable hand
    #: natural weapons: usable only when this other weapon cannot be used (ghoul bite ← claws)
    only_if_unusable: str | None = None
    check_bonuses: tuple[CheckBonus, ...] = ()
    damage_mods: tuple[DamageMod, ...] = ()
    # consumables
    consumable_stat: str | None = None  # life | soul
    consumable_amount: Formula | None = None
    uses: int | None = None  # consumables: 1 use
    use_self_timing: str | None = None  # minor
    use_other_timing: str | None = None  # major (same engagement, AMB-47)

    #: derived from ``type`` / ``slots`` when the item is made (read for every item before each action)
    is_weapon: bool = field(init=False, repr=False, compare=False)
    slot_count: int = field(init=False, repr=False, compare=False)
    consumable: bool = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "is_weapon", self.type in ("weapon", "natural_weapon"))
        object.__setattr__(self, "slot_count",
                           {"none": 0, "one_hand": 1, "two_hands": 2, "armor": 1, "accessory": 1}[self.slots])
        object.__setattr__(self, "consumable", self.type == "consumable")


_ITEMS: list[ItemData] = [
    ItemData(id="unarmed", name="素手", type="weapon", slots="none", check="body", range="close", target="single",
             damage=_F(0, 6, 1), attribute="body", needs_hand=True, effect="always available"),
    ItemData(id="knife", name="ナイフ", type="weapon", slots="one_hand", check="body", range="close",
             target="single", damage=_F(0, 6, 2), attribute="body", categories=("normal",), stock=1, purchase=1),
    ItemData(id="katana", name="日本刀", type="weapon", slots="two_hands", check="body", range="close",
             target="single", damage=_F(1, 6, 1), attribute="body", categories=("normal",), stock=3, purchase=3),
    ItemData(id="handgun", name="拳銃", type="weapon", slots="one_hand", check="tech", range="ranged",
             target="single", damage=_F(1), attribute="tech", categories=("illegal", "firearm"), stock=2,
             purchase=3),
    ItemData(id="shotgun", name="散弾銃", type="weapon", slots="two_hands", check="tech", range="ranged",
             target="area", damage=_F(1), attribute="tech", categories=("illegal", "firearm"), stock=4, purchase=4),
    ItemData(id="talisman", name="呪符", type="weapon", slots="one_hand", check="mind", range="ranged",
             target="single", damage=_F(1, 3, 1), attribute="mind", categories=("occult",), stock=2, purchase=3),
    ItemData(id="school_uniform", name="学生服", type="armor", slots="armor", categories=("normal",), stock=1,
             purchase=1, check_bonuses=(CheckBonus(("negotiation", "information"), 1, "tag:school"),),
             effect="+1 die on negotiation/information checks in scenes tagged `school`; no combat effect"),
    ItemData(id="stab_vest", name="防刃ベスト", type="armor", slots="armor", categories=("normal",), stock=2,
             purchase=3, damage_mods=(DamageMod("received", -1, "body"),),
             effect="body-attribute damage received −1"),
    ItemData(id="warded_coat", name="護符縫いのコート", type="armor", slots="armor", categories=("occult",), stock=2,
             purchase=3, damage_mods=(DamageMod("received", -1, "mind"),),
             effect="mind-attribute damage received −1"),
    ItemData(id="kashima_charm", name="鹿島神のおまもり", type="accessory", slots="accessory", categories=("occult",),
             stock=2, purchase=3, check_bonuses=(CheckBonus(("defense",), 1, "vs_mind_attack"),),
             effect="+1 die on defense checks against mind-attribute attacks"),
    ItemData(id="smartphone", name="情報端末", type="accessory", slots="accessory", categories=("normal",), stock=1,
             purchase=1, check_bonuses=(CheckBonus(("information",), 1),), effect="+1 die on information checks"),
    ItemData(id="revitalizer", name="賦活剤", type="consumable", slots="none", range="close", target="single",
             categories=("drug",), stock=1, purchase=2, consumable_stat="life", consumable_amount=_F(1), uses=1,
             use_self_timing="minor", use_other_timing="major",
             effect="life +1D6 (cap base); one use; self = minor, other = major"),
    ItemData(id="amplifier", name="増幅剤", type="consumable", slots="none", range="close", target="single",
             categories=("drug",), stock=1, purchase=2, consumable_stat="soul", consumable_amount=_F(1, 3), uses=1,
             use_self_timing="minor", use_other_timing="major",
             effect="soul +1D3 (cap base); one use; self = minor, other = major"),
]
ITEMS: dict[str, ItemData] = {i.id: i for i in _ITEMS}

#: enemy natural weapons (§11.7 ghoul): not items anyone can own, stock or buy
NATURAL_WEAPONS: dict[str, ItemData] = {i.id: i for i in [
    ItemData(id="ghoul_claws", name="《爪》", type="natural_weapon", slots="none", check="body", range="close",
             target="single", damage=_F(1), attribute="body", needs_hand=True,
             effect="claws: body, close, single, 1D6 (body), needs a usable hand"),
    ItemData(id="ghoul_bite", name="《噛みつき》", type="natural_weapon", slots="none", check="body", range="close",
             target="single", damage=_F(0, 6, 2), attribute="body", only_if_unusable="ghoul_claws",
             effect="bite (when the claws cannot be used): body, close, single, 2 (body)"),
]}


#: items and natural weapons by id (an item id wins over a natural weapon's)
_ALL_ITEMS: dict[str, ItemData] = {**NATURAL_WEAPONS, **ITEMS}


def item_data(item_id: str) -> ItemData:
    """An item or a natural weapon by id."""
    return _ALL_ITEMS[item_id]


def weapon_data(item_id: str) -> ItemData | None:
    d = ITEMS.get(item_id) or NATURAL_WEAPONS.get(item_id)
    return d if d is not None and d.is_weapon else None


# ---------------------------------------------------------------------------------------------------------------
# enemies (§11.7)
# ---------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class EnemyData:
    id: str
    name: str
    abilities: dict[str, int]  # mind, tech, body, life, soul, luck (燎 0, 財 0)
    parts: tuple[str, ...]  # slots it has + "legs"
    tags: tuple[str, ...]
    awaken: bool  # GM-designated awaken eligibility
    feats: tuple[str, ...] = ()
    items: tuple[tuple[str, str | None], ...] = ()  # (item id, slot)
    natural_weapons: tuple[str, ...] = ()
    unarmed: bool = True  # may attack with 素手 (needs a usable hand)
    class_feature: str | None = None  # a class whose main-class feature it has (vampire: night_walker)
    boss: bool = False
    defense: dict[str, int] = field(default_factory=dict)  # spec's defense pool: {"base": n, "night": n, "day": n}
    attacks: str = ""  # the spec's attacks/feats text (English, reference only)
    attacks_jp: str = ""  # the same in Japanese: the enemy's profile, which players see
    policy: str = ""  # §11.7 default enemy policy notes

    @property
    def slots(self) -> tuple[str, ...]:
        return tuple(p for p in self.parts if p != "legs")

    @property
    def has_legs(self) -> bool:
        return "legs" in self.parts


_GENERIC_POLICY = ("move to the engagement with the most PCs (as D34) if its best attack is close and no PC is in its "
                   "own engagement; attack the PC with the lowest current life")
_ENEMIES: list[EnemyData] = [
    EnemyData(id="ghoul", name="屍鬼",
              abilities={"mind": 1, "tech": 1, "body": 3, "life": 6, "soul": 2, "luck": 0},
              parts=("right_hand", "left_hand", "legs"), tags=("unholy_being", "supernatural_being"), awaken=False,
              natural_weapons=("ghoul_claws", "ghoul_bite"), unarmed=False, defense={"base": 3},
              attacks="《爪》 claws: body, close, single, 1D6 (body), needs a usable hand; otherwise 《噛みつき》 bite: "
                      "body, close, single, 2 (body)",
              attacks_jp="《爪》: 【体】で命中判定、射程は至近、対象は単体、ダメージ1D6（【体】属性）、使える手が必要。"
                         "使えなければ《噛みつき》: 【体】で命中判定、射程は至近、対象は単体、ダメージ2（【体】属性）",
              policy=_GENERIC_POLICY),
    EnemyData(id="cult_sorcerer", name="邪教の術師",
              abilities={"mind": 4, "tech": 2, "body": 2, "life": 7, "soul": 6, "luck": 1},
              parts=("right_hand", "left_hand", "armor", "accessory", "legs"), tags=("human",), awaken=False,
              feats=("curse_bullet", "brand_of_malice"), items=(("knife", "right_hand"),), defense={"base": 4},
              attacks="curse_bullet, brand_of_malice; knife (right hand)",
              attacks_jp="特技《呪弾》《魔の刻印》。ナイフ（右手）",
              policy=_GENERIC_POLICY + "; uses brand_of_malice first on the PC with most supernatural feats, then "
                                       "curse_bullet"),
    EnemyData(id="vampire_count", name="夜の伯爵",
              abilities={"mind": 4, "tech": 2, "body": 5, "life": 15, "soul": 8, "luck": 1},
              parts=("right_hand", "left_hand", "armor", "accessory", "legs"),
              tags=("unholy_being", "supernatural_being"), awaken=True,
              feats=("blood_drain", "mist_form", "night_predator"), class_feature="night_walker", boss=True,
              defense={"base": 5, "night": 6, "day": 4},
              attacks="has the ナイトウォーカー class feature (day −1 / night +1 all checks; mind damage received +1); "
                      "feats blood_drain, mist_form, night_predator; unarmed",
              attacks_jp="ナイトウォーカーの特徴を持つ（日中は全判定のダイス−1個、夜間は+1個。受ける【心】属性の"
                         "ダメージ+1）。特技《吸血》《霧化》《夜の狩人》。素手",
              policy=_GENERIC_POLICY + "; uses mist_form in setup when engaged with two or more PCs"),
]
ENEMIES: dict[str, EnemyData] = {e.id: e for e in _ENEMIES}


# ---------------------------------------------------------------------------------------------------------------
# 痛打表 (§7.6)
# ---------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class CritRow:
    row: int
    name: str
    part: str | None  # None (row 1) | hand | legs | armor | accessory | instant (row 6)
    effect: str


CRIT_TABLE: dict[int, CritRow] = {r.row: r for r in [
    CritRow(1, "うあああぁあッ！？", None, "In the damage phase, damage +1 (to life)."),
    CritRow(2, "う、腕が……！？", "hand",
            "The attacker chooses the target's right or left hand (D42; must pick a usable one if any); that slot "
            "becomes unusable (its item cannot be used; a two-handed item needs both hands). If both hands are "
            "already unusable, or the target has no hand slots: damage +1 (life) instead. Recovers at combat end."),
    CritRow(3, "足が……足がぁッ！？", "legs",
            "Legs broken: from now on every movement requires the major action, and defense pools get −3 (floor 1). "
            "If the legs are already broken or the target has no legs: damage +1 (life) instead. Recovers at "
            "combat end."),
    CritRow(4, "お゛ぅっ……ごォッ！？　お腹、があ……ッ！？", "armor",
            "The armor slot becomes unusable (its item's effects stop). If already unusable or the target has no "
            "armor slot: damage +1 (life) instead. Recovers at combat end."),
    CritRow(5, "うあ、ぁ……もう、……だめ……っ", "accessory",
            "The accessory slot becomes unusable. If already unusable or no accessory slot: damage +1 (life) "
            "instead. Recovers at combat end."),
    CritRow(6, "ひぎゃあッ！？", "instant",
            "The target's life becomes 0 immediately and it is 戦闘不能; if it is awakened it dies. Normal damage "
            "processing is skipped for this target. The GM may replace this effect (D57)."),
]}


# ---------------------------------------------------------------------------------------------------------------
# bad statuses (§7.9)
# ---------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class StatusData:
    id: str
    name: str
    effect: str
    removable_by_major: bool = False  # one own major action removes it (§7.3.3, AMB-30)
    release_ability: str | None = None  # 麻痺/恐怖: the release check ability
    ends_with_inflicter: bool = False  # 呪詛/刻印: ends when all inflicters are 戦闘不能/死亡 or release it (D45)
    flag: bool = False  # 戦闘不能/死亡 are character flags, not entries of Character.statuses


BAD_STATUSES: dict[str, StatusData] = {s.id: s for s in [
    StatusData("incapacitated", "戦闘不能", "no actions at all (no minor, major, checks, defense).", flag=True),
    StatusData("dead", "死亡", "no actions; does not come back.", flag=True),
    StatusData("weapon_sealed", "武器封じ", "the specified equipment item cannot be used.", removable_by_major=True),
    StatusData("magic_sealed", "魔封",
               "feats of supernatural classes (incl. SN common feats) cannot be used, except constant-timing ones.",
               removable_by_major=True),
    StatusData("poison", "毒", "at own cleanup: 1 life damage.", removable_by_major=True),
    StatusData("curse", "呪詛", "at own cleanup: 1 soul damage.", ends_with_inflicter=True),
    StatusData("brand", "刻印", "every feat cost +1 soul.", ends_with_inflicter=True),
    StatusData("bound", "束縛", "no movement; defense checks rolled twice, lower result adopted.",
               removable_by_major=True),
    StatusData("paralysis", "麻痺",
               "no action except, once per round on its turn, a 体 release check as its major action (success → "
               "removed). Cannot defend.", release_ability="body"),
    StatusData("fear", "恐怖", "as paralysis but the release check uses 心.", release_ability="mind"),
]}
STATUS_NAMES: dict[str, str] = {k: v.name for k, v in BAD_STATUSES.items()}
