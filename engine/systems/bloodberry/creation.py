"""Character creation キャラクター・メイキング (rules/bloodberry.md §3): the seven steps as decisions cc.*.

Steps run in the spec's order: 1 profile (every PC), 2 relation names around the ring (asked to the lower-numbered
PC of each pair), then per PC 3 abilities, 4 basic skills and class, 5 race, 6 personal curse, 7 emotions. Every
validation rule V1–V8 is enforced by the legal options and payload checks; the GM then approves each sheet.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from ...core.decision import Answer, Decision
from .data import (
    ABILITIES, ABILITY_NAMES, BASIC_SKILLS, CLASS_NAMES, CLASS_SKILL_NAMES, CLASS_SKILLS, CLASSES, CURSE_TABLE, CURSE_TYPE_NAMES,
    EMOTION_TABLE, RACE_SKILLS, RELATION_TABLE, RELATION_TYPE_NAMES,
)
from .state import SECOND, Char, SkillState, majority_classes, pair, rel_key, split_ref

if TYPE_CHECKING:
    from .game import BloodberryGame

__all__ = ["new_character_session", "create_pcs", "recreate_pc", "Profile", "AbilityPoints", "roll_emotion", "roll_curse", "roll_relation"]

Gen = Generator[Decision, Answer, Any]
MAX_REJECTIONS = 2  # HOUSE: a GM may send a sheet back at most twice, so creation always ends


class Profile(BaseModel):
    name: str = Field(min_length=1, max_length=40)
    profile: str = Field("", max_length=1000, description="設定: gender, age, curses disliked, wishes, joys, pains, someone important, view of curses")


class AbilityPoints(BaseModel):
    passion: int = Field(ge=0, le=4)
    grace: int = Field(ge=0, le=4)
    maturity: int = Field(ge=0, le=4)


class FreeText(BaseModel):
    text: str = Field(min_length=1, max_length=200)


def roll_relation(game: BloodberryGame, purpose: str) -> str:
    """関係表 1D6 (§5.8)."""
    return RELATION_TABLE[game.ctx.dice.d6(purpose) - 1][1]


def roll_emotion(game: BloodberryGame, purpose: str) -> str:
    """感情表 per emotion_roll_mode (§5.8, A13)."""
    mode = game.cfg.emotion_roll_mode
    dice = game.ctx.dice
    if mode == "half_d6":
        first, second = dice.d6(purpose), dice.d6(purpose)
        entry = second + (6 if first >= 4 else 0)
    elif mode == "2d6_sum":
        entry = dice.d6(purpose) + dice.d6(purpose)
    else:
        entry = dice.roll(12, purpose)
    return EMOTION_TABLE[entry - 1][0]


def roll_curse(game: BloodberryGame, purpose: str) -> str:
    """呪い表 1D3×1D6 (§5.8): first d6 1–2 → 12, 3–4 → 34, 5–6 → 56; second d6 → row."""
    first, second = game.ctx.dice.d6(purpose), game.ctx.dice.d6(purpose)
    group = "12" if first <= 2 else ("34" if first <= 4 else "56")
    return f"c{group}_{second}"


def _planned_class(number: int) -> str:
    return CLASSES[(number - 1) % 3]


def create_pcs(game: BloodberryGame) -> Gen:
    sc = game.sc
    n = int(game.ctx.options.get("pc_count") or max(sc.creation.min_pcs, min(len(sc.pcs), sc.creation.max_pcs)))
    if not sc.creation.allowed:
        raise ValueError(f"scenario {sc.id} does not allow character creation")
    # the scenario's PCs are built anew under their ids (its scenes, camps and relations name them: `--create`);
    # a count of PCs of one's own (option pc_count) gets pc1..pcN
    if "pc_count" not in game.ctx.options and len(sc.pcs) >= n:
        ids = [p.id for p in sc.pcs[:n]]
    else:
        ids = [f"pc{i}" for i in range(1, n + 1)]
    game.creating_ids = list(ids)
    # step 1: profiles
    for i, pid in enumerate(ids, 1):
        taken = {c.name.strip(): c.id for c in game.t.chars.values() if c.id != pid}
        default = f"PC{i}" if f"PC{i}" not in taken else pid

        def free(p: BaseModel, taken: dict[str, str] = taken) -> str | None:
            name = p.name.strip()  # type: ignore[attr-defined]
            if not name:
                return "name: empty (§3 step 1)"
            if name in taken:
                return f"name: {name!r} is taken; each character needs its own name (§3 step 1; HOUSE: the table tells characters apart by name)"
            return None

        p = yield from game.ask_payload(pid, "cc.profile", f"PC{i}: 名前と設定", "§3 step 1", Profile, free,
                                        context={"number": i},
                                        samples=[{"name": default, "profile": ""}])
        game.t.chars[pid] = Char(id=pid, name=p.name.strip(), kind="pc", number=i, profile=p.profile, willpower=1)
    # step 2: relation names around the ring, asked to the lower-numbered PC of each pair
    from .game import ring_partners

    double = n == 2 and game.cfg.two_pc_relations == "double"  # A34: PC1–PC2 and the closing PC2–PC1
    partners = ring_partners(ids, double)
    ring = [(ids[i], ids[(i + 1) % n]) for i in range(n if n > 2 or double else n - 1)]  # PC1–PC2, …, PCn–PC1 (§3)
    for i, (x, y) in enumerate(ring):
        k = rel_key(x, y + SECOND if double and i == 1 else y)
        asker = min(pair(x, y), key=lambda c: game.t.chars[c].number)
        name = yield from _relation_name(game, asker, k)
        game.t.rel(*k).name = name
        game.ctx.state(f"relation.{'|'.join(k)}.name", None, name, "§3 step 2")
    # steps 3–7 per PC
    for pid in ids:
        yield from _sheet(game, game.t.chars[pid], partners[pid])
    game._load_npcs()


def recreate_pc(game: BloodberryGame, c: Char) -> Gen:
    """The GM sent a sheet back: the PC redoes steps 3–7 (HOUSE: at most MAX_REJECTIONS times)."""
    game.rejections[c.id] = game.rejections.get(c.id, 0) + 1
    partners = game.ring()[c.id]
    c.skills, c.class_skills, c.race_skills, c.emotions, c.otherworldly = [], [], [], {}, False
    yield from _sheet(game, c, partners)


def _relation_name(game: BloodberryGame, asker: str, k: tuple[str, str]) -> Gen:
    a, b = (game.t.chars[split_ref(x)[0]].name for x in k)
    pairs = [("roll", "関係表を振る (1D6)")] + [(f"pick:{i}", f"{name} {text}") for i, (_id, name, text) in enumerate(RELATION_TABLE, 1)]
    pairs.append(("free", "自由に決める（自由記述）"))
    ch = yield from game.choose(asker, "cc.relation_name", f"{a} と {b} の関係", "§3 step 2, §9.6", pairs)
    if ch == "roll":
        return roll_relation(game, f"relation_table:{k[0]}|{k[1]}")
    if ch.startswith("pick:"):
        return RELATION_TABLE[int(ch[5:]) - 1][1]
    t = yield from game.ask_payload(asker, "cc.relation_name", "関係の名前", "§3 step 2", FreeText,
                                    samples=[{"text": "《幼馴染》"}])
    return t.text


def _sheet(game: BloodberryGame, c: Char, partners: list[str]) -> Gen:
    planned = _planned_class(c.number)

    # step 3: abilities (V1)
    def check_points(p: BaseModel) -> str | None:
        assert isinstance(p, AbilityPoints)
        total = p.passion + p.grace + p.maturity
        if total != 4:
            return f"distribute exactly 4 points over 1/1/1 (got {total}) (§3 step 3, V1)"
        return None

    pts = yield from game.ask_payload(
        c.id, "cc.abilities", f"{c.name}: 能力値に4点を配分する (情熱/気品/大人は1から)", "§3 step 3, V1", AbilityPoints, check_points,
        context={"planned_class": planned}, samples=[{"passion": 2, "grace": 1, "maturity": 1},
                                                                {"passion": 1, "grace": 2, "maturity": 1},
                                                                {"passion": 1, "grace": 1, "maturity": 2},
                                                                {"passion": 0, "grace": 2, "maturity": 2}],
    )
    c.ab = {a: 1 + getattr(pts, a) for a in ABILITIES}
    c.full = dict(c.ab)
    game.ctx.state(f"{c.id}.abilities", None, dict(c.ab), "§3 step 3")
    # step 4: basic skills (V2) and class (V3)
    skills = yield from game.choose_many(
        c.id, "cc.basic_skills", f"{c.name}: 基本特技を3つ選ぶ", "§3 step 4, V2",
        [(s.id, f"{s.name} ({CLASS_NAMES[s.cls]}; 肯定/弱点 {RELATION_TYPE_NAMES[s.affirm]}/{CURSE_TYPE_NAMES[s.weakness]}; 昇華 {ABILITY_NAMES[s.sub_ability]})")
         for s in BASIC_SKILLS.values()], 3, 3, context={"planned_class": planned},
    )
    c.skills = [SkillState(s) for s in skills]
    classes = majority_classes(skills)
    cls = yield from game.choose(c.id, "cc.class_tiebreak", f"{c.name}: クラスを選ぶ (1-1-1)", "§3 step 4, V3",
                                 [(k, CLASS_NAMES[k]) for k in classes], context={"skills": list(skills)})
    c.cls = cls
    cskills = list(CLASS_SKILLS[cls])
    # step 5: race (V5)
    subs = {BASIC_SKILLS[s].sub_ability for s in skills}
    race_pairs = [("human", "人間")]
    refused = None
    if len(subs) == 1:
        race_pairs.append(("fairy", "妖精"))
    else:
        refused = {"fairy": "a fairy needs 3 basic skills with the same sublimation ability (§3 step 5, V5)"}
    race = yield from game.choose(c.id, "cc.race", f"{c.name}: 種族", "§3 step 5, V5", race_pairs, refused=refused)
    c.race = race
    if race == "fairy":
        drop = yield from game.choose(c.id, "cc.fairy_drop", f"{c.name}: 妖精は クラス特技を一つ失う", "§3 step 5, V4",
                                      [(s, CLASS_SKILL_NAMES[s]) for s in cskills], always_ask=True)
        cskills = [s for s in cskills if s != drop]
        c.race_skills = list(RACE_SKILLS)
        c.otherworldly = True
    c.class_skills = cskills
    c.has_key = "spare_key" in cskills
    game.ctx.state(f"{c.id}.sheet", None, {"skills": list(skills), "class": cls, "race": race, "class_skills": cskills}, "§3 steps 4–5")
    # step 6: personal curse
    ch = yield from game.choose(c.id, "cc.curse", f"{c.name}: 呪い（任意）", "§3 step 6, §9.8",
                                [("none", "なし"), ("roll", "呪い表を振る (1D3×1D6)")] + [(f"pick:{k}", v) for k, v in CURSE_TABLE.items()]
                                + [("free", "自由に決める")])
    if ch == "roll":
        c.personal_curse = roll_curse(game, f"curse_table:{c.id}")
    elif ch.startswith("pick:"):
        c.personal_curse = ch[5:]
    elif ch == "free":
        t = yield from game.ask_payload(c.id, "cc.curse", "呪いの内容", "§3 step 6", FreeText, samples=[{"text": "月が怖い"}])
        c.personal_curse = t.text
    # step 7: emotions, 1–2 per relation (V7)
    c.emotions = {}
    for p in partners:
        emos: list[str] = []
        for slot in (1, 2):
            pairs = ([("none", "これで終わり")] if slot == 2 else []) + [("roll", "感情表を振る")] + [
                (f"pick:{e[0]}", f"{e[1]} {e[2]}") for e in EMOTION_TABLE] + [("free", "自由に決める")]
            ch = yield from game.choose(c.id, "cc.emotions", f"{c.name}: {game.rel_label(c.id, p)} への感情 ({slot}/2)", "§3 step 7, V7", pairs,
                                        context={"partner": p, "slot": slot})
            if ch == "none":
                break
            if ch == "roll":
                emos.append(roll_emotion(game, f"emotion_table:{c.id}>{p}"))
            elif ch.startswith("pick:"):
                emos.append(ch[5:])
            else:
                t = yield from game.ask_payload(c.id, "cc.emotions", "感情", "§3 step 7", FreeText, samples=[{"text": "憧れ"}])
                emos.append(t.text)
        c.emotions[p] = emos
    game.ctx.state(f"{c.id}.emotions", None, {k: list(v) for k, v in c.emotions.items()}, "§3 step 7")


def new_character_session(seed: int = 0) -> Any:
    """``trpg new-character bloodberry``: one PC through the seven steps (no ring yet: relations and emotions are
    made when the PCs meet at a table). The outcome's ``sheet`` is ready for a scenario file's ``pcs:``."""
    from ...core import Session, load_scenario
    from . import INFO

    return Session(load_scenario(INFO.sample_scenarios[0]), seed=seed, options={"procedure": {"creation": {"pc_count": 1}}})
