"""ブラッドベリー rules that a mutation pass (scripts/mutate_rules.py, seed 13; docs/mutation.md) could change with
every test still passing. Each test names the mutant it kills and the section of rules/bloodberry.md it pins."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from engine.core import Session, load_scenario
from engine.systems.bloodberry.cards import action_count, parse_card, roles_of

from . import ROOT, run_example

CAST = ROOT / "engine" / "systems" / "bloodberry" / "examples" / "bloodberry_cast.yaml"

# EX5's relation check (bloodberry.yaml): Aoi → Beni 探究, second basis 気品; Aoi rolls 8 dice, Beni 4
AOI_4_BENI_0 = [6, 5, 5, 6, 1, 2, 3, 4, 1, 2, 3, 4]
AOI_3_BENI_1 = [6, 1, 5, 2, 3, 5, 4, 1, 5, 2, 3, 1]  # EX5's own dice


def bb(case: dict[str, Any]) -> None:
    run_example("bloodberry", "bloodberry_cast.yaml", case)


@contextmanager
def deadline(seconds: float = 5.0) -> Iterator[None]:
    """Fail (TimeoutError) instead of hanging when a rule's loop never ends (a mutant of it)."""
    def boom(*_: object) -> None:
        raise TimeoutError(f"not done within {seconds} s")

    old = signal.signal(signal.SIGALRM, boom)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _rc(active: str = "aoi", passive: str = "beni", rtype: str = "inquiry") -> dict[str, Any]:
    return {"relation_check": {"active": active, "passive": passive, "type": rtype}}


# ---------------------------------------------------------------------------------------------------------------------
# §5.4 relation check
# ---------------------------------------------------------------------------------------------------------------------
def test_a11_an_active_success_at_strength_3_changes_nothing():
    """§10 A11 (relation_check_at_max_allowed = true): at strength 3 an active success does nothing — no strength
    beyond the cap, no sublimation. Kills game.py:1219:17:cmp:0 (`s >= 3` → `s > 3`)."""
    bb({"id": "A11", "config": {"relation_check_at_max_allowed": True},
        "setup": {"in_between": True, "relations": {"aoi|beni": 3}},
        "procedure": _rc(), "dice": AOI_4_BENI_0,
        "answers": [{"kind": "j.second_basis", "actor": "aoi", "answer": "grace"}],
        "expect": {"result": "active",
                   "state": {"table.relations.aoi|beni.strength": 3,
                             "table.chars.aoi.abilities": {"passion": 3, "grace": 2, "maturity": 2},
                             "table.chars.beni.abilities": {"passion": 2, "grace": 3, "maturity": 2}},
                   "asked": [{"kind": "rc.sublimate", "times": 0}]}})


# EX6's check (bloodberry.yaml): Beni → Aoi 誘惑 at strength 1, a tie → the passive (Aoi) succeeds
EX6_DICE = [5, 6, 1, 2, 3, 4, 2, 1, 6, 5, 2, 3]
EX6_SETUP = {"in_between": True, "relations": {"aoi|beni": 1},
             "chars": {"aoi": {"abilities": {"passion": 4}, "sublimated": ["ganbariya"]},
                       "beni": {"abilities": {"maturity": 3}, "sublimated": ["kyoshi"]}}}


def test_passive_lower_lowers_the_strength_by_one():
    """§5.4 P success: LOWER → s := max(0, s − 1). Kills game.py:1272:12:stmtdel:0 (the LOWER does nothing)."""
    bb({"id": "LOWER", "setup": EX6_SETUP, "procedure": _rc("beni", "aoi", "seduction"), "dice": EX6_DICE,
        "answers": [{"kind": "j.second_basis", "actor": "beni", "answer": "grace"},
                    {"kind": "rc.passive_choice", "actor": "aoi", "answer": "lower"}],
        "expect": {"result": "passive", "state": {"table.relations.aoi|beni.strength": 0,
                                                  "table.chars.aoi.willpower": 1}}})


def test_passive_raise_each_mode_needs_s_plus_1_on_each_side_and_no_more():
    """§10 A9 passive_raise_count_mode = each: RAISE needs both sides to have ≥ s + 1 sublimated skills (here
    1 ≥ 0 + 1 each, at strength 0) and is refused when one side has fewer. Kills game.py:1253:55:cmp:0 (`>=` → `>`
    on the passive side's count)."""
    setup = {"in_between": True, "relations": {"aoi|beni": 0},
             "chars": {"aoi": {"abilities": {"passion": 4}, "sublimated": ["ganbariya"]},
                       "beni": {"abilities": {"maturity": 3}, "sublimated": ["kyoshi"]}}}
    bb({"id": "RAISE-each", "config": {"passive_raise_count_mode": "each"}, "setup": setup,
        "procedure": _rc("beni", "aoi", "seduction"), "dice": [5, 1, 1, 2, 3, 4, 2, 1, 5, 2, 2, 3],
        "answers": [{"kind": "j.second_basis", "actor": "beni", "answer": "grace"},
                    {"kind": "rc.passive_choice", "actor": "aoi", "answer": "raise"}],
        "expect": {"result": "passive", "state": {"table.relations.aoi|beni.strength": 1}}})
    lonely = {**setup, "chars": {**setup["chars"], "beni": {"abilities": {"maturity": 2}}}}
    bb({"id": "RAISE-each-refused", "config": {"passive_raise_count_mode": "each"}, "setup": lonely,
        "procedure": _rc("beni", "aoi", "seduction"), "dice": [5, 1, 1, 2, 3, 4, 2, 1, 5, 2, 2, 3],
        "answers": [{"kind": "j.second_basis", "actor": "beni", "answer": "grace"},
                    {"kind": "rc.passive_choice", "actor": "aoi", "answer": "lower"}],
        "illegal": [{"kind": "rc.passive_choice", "actor": "aoi", "answer": "raise"}],
        "expect": {"result": "passive", "state": {"table.relations.aoi|beni.strength": 0}}})


# ---------------------------------------------------------------------------------------------------------------------
# §5.3.2 grant, §10 A4
# ---------------------------------------------------------------------------------------------------------------------
def test_no_grant_window_when_judge_grant_enabled_is_false():
    """§10 A4 judge_grant_enabled: with the grant on (default) the top success of an opposed check is asked whether
    to grant success to the lower side (j.grant); with it off nobody is. Kills judge.py:449:11:boolop:0."""
    base = {"setup": {"in_between": True}, "procedure": _rc(), "dice": AOI_3_BENI_1,
            "answers": [{"kind": "j.second_basis", "actor": "aoi", "answer": "grace"},
                        {"kind": "rc.sublimate", "actor": "aoi", "answer": "ganbariya"},
                        {"kind": "rc.sublimate", "actor": "beni", "answer": "kyoshi"}]}
    bb({**base, "id": "GRANT-on", "expect": {"result": "active", "asked": [{"kind": "j.grant", "times": 1}]}})
    bb({**base, "id": "GRANT-off", "config": {"judge_grant_enabled": False},
        "expect": {"result": "active", "asked": [{"kind": "j.grant", "times": 0}]}})


# ---------------------------------------------------------------------------------------------------------------------
# §6 SESSION_END absence, §10 A15
# ---------------------------------------------------------------------------------------------------------------------
def test_absence_miss_n_minus_1_returns_in_the_nth_session():
    """§10 A15 absence_mode = miss_n_minus_1: a PC with an ability at 0 misses (1D6 − 1) sessions, never fewer than
    0 (a 1 misses none). Kills game.py:1750:87:arith:0 (n + 1) and game.py:1750:84:const:0 (floor 1)."""
    for face, missed in ((3, 2), (1, "<absent>")):  # (the snapshot shows absent_sessions only when nonzero)
        bb({"id": f"A15-{face}", "config": {"absence_mode": "miss_n_minus_1"},
            "setup": {"chars": {"aoi": {"abilities": {"grace": 0}, "full": {"grace": 2}, "status": "dropped"}}},
            "procedure": {"session_end": {}}, "dice": [face],
            "expect": {"state": {"table.chars.aoi.absent_sessions": missed}}})


# ---------------------------------------------------------------------------------------------------------------------
# §9.2 完全支配, A19 淀みに浮かぶ泡沫の, §9.9 roles, §9.8 curse table, §9.2 過去の残像
# ---------------------------------------------------------------------------------------------------------------------
def test_total_domination_can_crush_an_object_outside_confrontation_only():
    """§9.2 完全支配 (古読み): the target is one character, or an object/structure ("anything within hand's reach is
    crushed"), outside confrontation. Kills game.py:913:16:stmtdel:0 (the object option never offered)."""
    s = Session(load_scenario(CAST), 0)
    g = s.game
    c = g.t.chars["aoi"]
    c.class_skills = [*c.class_skills, "total_domination"]
    outside = dict(g._skill_options(c, in_cf=False))
    inside = dict(g._skill_options(c, in_cf=True))
    assert "skill:domination_object" in outside
    assert "skill:domination_object" not in inside


def test_the_foam_bonus_counts_in_the_ability_used_for_checks():
    """§10 A19 淀みに浮かぶ泡沫の: on success against a person the owner raises one ability by 1; the bonus is part of
    the ability's value in checks. Kills state.py:101:15:arith:0 (the bonus subtracted)."""
    s = Session(load_scenario(CAST), 0)
    c = s.game.t.chars["aoi"]
    before = c.value("grace")
    c.foam_bonus = {"grace": 1}
    assert c.value("grace") == before + 1
    assert c.value("passion") == c.ab["passion"]


def test_several_roles_give_the_highest_action_count():
    """§9.9 HOUSE multiple_roles = max: a hand matching several roles acts as often as its best role (with
    face_card_numeric 12, Q♥ Q♦ Q♥ is 三枚が女王 (3) and also same colour and number and sum ≥ 25 (1 each)); sum adds
    them. Kills cards.py:116:11:minmax:0."""
    hand = [parse_card(x) for x in ("Q♥", "Q♦", "Q♥#2")]
    roles = roles_of(hand, face_card_numeric=12)
    assert "three_queens" in roles and "colour_set" in roles, roles
    assert action_count(roles, "max") == 3
    assert action_count(roles, "sum") == sum(3 if r in ("three_queens", "face_colour_set") else 1 for r in roles)


def test_the_curse_table_first_die_5_and_6_read_group_56():
    """§9.8 呪い表: first d6 1–2 → "12", 3–4 → "34", 5–6 → "56"; second d6 → row: (4, 2) → 34・2, (5, 2) → 56・2.
    Kills creation.py:68:54:const:0 (`first <= 5` for group 34)."""
    for dice, row in (([4, 2], "c34_2"), ([5, 2], "c56_2"), ([6, 6], "c56_6")):
        bb({"id": f"CURSE-{dice[0]}{dice[1]}", "procedure": {"table_roll": {"table": "curse"}}, "dice": dice,
            "expect": {"result": row}})


def test_a_failed_afterimage_reproduces_no_past_event():
    """§9.2 過去の残像 (with the tools at hand): 気品+大人, difficulty 3; only a success reproduces the scene's past
    event (as AFTERIMAGE in bloodberry_skills.yaml, here 5 dice → 2 < 3). Kills game.py:1025:15:boolop:0."""
    bb({"id": "AFTERIMAGE-fail", "procedure": {"pc_turn": {"pc": "beni", "scene": "atelier_scene"}},
        "dice": [5, 6, 1, 1, 2],
        "answers": [{"kind": "pc.declare", "actor": "beni", "answer": "skill:afterimage_of_past"}],
        "expect": {"result": {"flags": [], "clues": []},
                   "events": [{"type": "check", "check": "skill",
                               "data": {"rollers": [{"who": "beni", "pool": 5, "ach": 2, "success": False}]}}]}})


# ---------------------------------------------------------------------------------------------------------------------
# second pass (docs/mutation.md, 2026-12-02): ids at b70687f
# ---------------------------------------------------------------------------------------------------------------------
def test_emotion_roll_mode_d12_rolls_one_d12():
    """§5.8, §10 A13 emotion_roll_mode = d12: the 感情表 is read with one d12 (entry = the face: 5 → 《追求》). Kills
    creation.py:61:26:const:0 (a d13)."""
    bb({"id": "EMOTION-d12", "config": {"emotion_roll_mode": "d12"}, "procedure": {"table_roll": {"table": "emotion"}},
        "dice": ["d12:5"], "expect": {"result": "tsuikyu", "events": [{"type": "roll", "sides": 12}]}})


def test_camp_cap_pcs_current_counts_the_active_pcs_of_the_camp():
    """§7.5, §10 A29 camp_cap_basis = pcs_current: the camp cap is the number of the camp's PCs in play now (each
    counts once; a dropped PC no more). Kills game.py:1481:23:const:0 (each PC counted twice)."""
    s = Session(load_scenario(CAST), 0, config={"camp_cap_basis": "pcs_current"})
    g = s.game
    g.t.camps = {"pcs": ["aoi", "beni", "chika"]}
    assert g.camp_cap("pcs") == 3
    g.t.chars["chika"].status = "dropped"
    assert g.camp_cap("pcs") == 2


def test_a_dropped_camp_member_takes_no_confrontation_turn():
    """§7.5, §6 (a PC whose ability fell to 0 drops out of play; only a dead one may still use skills, A21): a dropped
    camp member gets no confrontation turn — Beni is not even offered her class skill 時間 (it would be, were she
    dead). Kills game.py:1460:11:boolop:0 (`camp is None and …`: the dropped member gets a turn)."""
    s = Session(load_scenario(CAST), 0)
    g = s.game
    c = g.t.chars["beni"]
    g.cf_camp_of = {"aoi": "pcs", "beni": "pcs"}
    g.participants = ["aoi", "beni"]
    g.cf_camp = "pcs"
    for status, turn in (("dropped", False), ("dead", True)):
        c.status = status
        asked = next(g._cf_actor_turn(c, None, None), None)
        assert (asked is not None) == turn, (status, asked)
        if turn:
            assert asked.kind == "pc.cf_action" and "skill:time_stop" in asked.option_ids, asked


def test_fairy_curse_user_mode_only_a_fairy_offers_on_its_own_check():
    """§9.3 妖精の呪い, §10 A22 fairy_curse_reroll_owner = user: the fairy rerolls its own check, paid by a consenting
    other character; a roller without 妖精の呪い (the human Aoi) is offered nothing. Kills judge.py:376:20:boolop:0
    (any PC offers) and judge.py:377:16:retbool:0 (a non-fairy's check reports a reroll that never happens)."""
    base = {"config": {"fairy_curse_reroll_owner": "user"},
            "setup": {"participants": ["aoi", "chika"], "chars": {"aoi": {"willpower": 0}, "chika": {"willpower": 0}}}}
    with deadline():
        bb({**base, "id": "FAIRY-human", "procedure": {"basic": {"pc": "aoi", "bases": ["passion", "maturity"]}},
            "dice": [1, 1, 1, 1, 1],
            "expect": {"asked": [{"kind": "j.fairy_offer", "times": 0}]}})
    bb({**base, "id": "FAIRY-own", "procedure": {"basic": {"pc": "chika", "bases": ["passion", "maturity"]}},
        "dice": [1, 1, 1, 1, 1],
        "expect": {"asked": [{"kind": "j.fairy_offer", "actor": "chika", "times": 1}]}})


def test_between_scenes_a_single_legal_relation_check_is_still_offered():
    """§7.7 BS_3b: between scenes each PC may make one relation check; when only one is legal (Aoi: the only PC
    left is Dora, 探究 and 冗談 blocked by 破魔) it is still offered (skip or that one). Kills
    game.py:1702:25:const:0 (`len(pairs) == 2` → return)."""
    bb({"id": "BS-one", "procedure": {"between_scenes": {}},
        "setup": {"chars": {"beni": {"status": "dropped"}, "chika": {"status": "dropped"}},
                  "hama": {"beni|aoi": "inquiry", "chika|aoi": "banter"}},
        "expect": {"asked": [{"kind": "bs.relation", "actor": "aoi", "times": 1}]}})


def _drive(gen: Any, answers: dict[str, list[str]]) -> list[Any]:
    """Run a rules generator to its end: the listed answers of a decision kind in order, else `pass` where offered,
    else the first option. Returns the decisions asked."""
    from engine.core.decision import Answer

    asked: list[Any] = []
    queues = {k: list(v) for k, v in answers.items()}
    ans = None
    with deadline():
        while True:
            try:
                d = next(gen) if ans is None else gen.send(Answer(choice=ans))
            except StopIteration:
                return asked
            asked.append(d)
            q = queues.get(d.kind)
            ans = q.pop(0) if q else ("pass" if "pass" in d.option_ids else d.option_ids[0])


def test_the_gm_entry_ruling_deny_keeps_the_pc_out_and_allow_lets_it_in():
    """§5.7 登場: a PC outside the scene may ask to enter; the GM rules: allow (enters), deny (stays out) or an entry
    check. Kills game.py:748:15:cmp:0 (deny and allow swapped)."""
    for ruling, entered in (("deny", False), ("allow", True)):
        g = Session(load_scenario(CAST), 0).game
        g.participants = ["aoi", "beni", "chika"]
        asked = _drive(g._entry_requests(g.sc.scenes[0]),
                       {"pc.entry_request": ["request"], "gm.entry_ruling": [ruling]})
        assert [d.kind for d in asked] == ["pc.entry_request", "gm.entry_ruling"]
        assert ("dora" in g.participants) == entered, (ruling, g.participants)


def test_normal_order_gives_a_turn_only_to_participating_pcs_that_can_act():
    """§7.1 normal order: the scene-actor PCs, then the other participating PCs, each one turn; a PC that does not
    take part in the scene (Chika, a scene actor who is not in it) or cannot act (Beni, dropped) gets none. Kills
    game.py:841:27:boolop:0 (`not can_act and not participating`)."""
    g = Session(load_scenario(CAST), 0).game
    scene = g.sc.scenes[0]
    g.scene = scene
    g.phase.fire("open_scene")
    g.scene_actors = ["aoi", "chika"]
    g.participants = ["aoi", "beni", "dora"]
    g.t.chars["beni"].status = "dropped"
    asked = _drive(g._turns(scene), {"gm.adopt_rounds": ["normal_order"], "gm.end_scene": ["end_scene"]})
    assert [d.actor for d in asked if d.kind == "pc.declare"] == ["aoi", "dora"]


def test_the_gm_ending_choice_goes_to_the_ending_at_once():
    """§6: from a scene the GM may go to the ENDING (gm.end_scene `ending`): no further scene is played (here
    second_scene, the only other scene a whole session of this scenario plays). Kills game.py:440:15:boolop:0 (the
    ending only when also no PC is in play and the confrontation lost)."""
    bb({"id": "TO-ENDING", "dice": [], "answers": [{"kind": "gm.end_scene", "answer": "ending"}],
        "expect": {"asked": [{"kind": "gm.end_scene", "times": 1}]}})


def test_a_scene_events_curse_check_of_a_named_type_runs_unless_hama_blocks_it():
    """§8 scene events (curse_check of a formed curse with its type), §10 A20 破魔: 人形の呪い's 悪意 check (difficulty =
    its 悪意 3) is put to the GM for Aoi; while Aoi's 破魔 blocks that check of the curse it does not happen. Kills
    game.py:792:43:cmp:0 (a usable type treated as blocked)."""
    from engine.systems.bloodberry.scenario import CurseCheckEvent, SceneEvent

    ev = SceneEvent(curse_check=CurseCheckEvent(curse="ningyo", type="malice", target="aoi"))
    for hama, asked_n in (({}, 1), ({("aoi", "ningyo"): "malice"}, 0)):
        g = Session(load_scenario(CAST), 0).game
        g.participants = ["aoi"]
        g.t.hama.update(hama)
        asked = _drive(g._scene_event(g.sc.scenes[0], ev), {"gm.curse_event": ["skip"]})
        checks = [d for d in asked if d.kind == "gm.curse_event"]
        assert len(checks) == asked_n, (hama, asked)
        if checks:
            assert checks[0].context["type"] == "malice" and checks[0].context["difficulty"] == 3


def test_confrontation_camps_hold_only_their_participating_active_pcs():
    """§7.5 camps (scenario-defined, here two PC camps): a camp's PC members are those of its list that take part in
    the scene and are active (Chika, listed but not in the scene, is in no camp); each stays in its own camp, and the
    cap counts them (A29). Kills game.py:1357:61:cmp:0 (`m not in active_pcs`)."""
    from engine.systems.bloodberry.scenario import Camp, Confrontation, SceneData

    g = Session(load_scenario(CAST), 0).game
    cf = Confrontation(curses=["ningyo"], camps=[Camp(id="a", members=["aoi"]), Camp(id="b", members=["beni", "chika"])])
    scene = SceneData(id="example", title="対峙", confrontation=cf, participants=["aoi", "beni"])
    g.scene = scene
    g.participants = ["aoi", "beni"]
    for trigger in ("frame", "entries", "run_events", "confront"):
        g.scene_m.fire(trigger)
    first = next(g._confrontation(scene))
    assert first.kind == "gm.confrontation_setup"
    assert g.cf_camps == {"a": ["aoi"], "b": ["beni"]}
    assert g.t.camp_cap == {"a": 1, "b": 1}


def test_a_consumed_sub_event_card_goes_to_the_discard_pile():
    """§7.6 sub-events (subevent_card_consumed = true, A36), G8: a sub-event card that triggers is consumed into the
    discard pile (which is reshuffled into a new deck when the deck runs out): EX18's 9♣ on 資料室 is there after the
    move. Kills flagmap.py:343:16:stmtdel:0 (the card vanishes)."""
    import yaml

    from engine.core.examples import _no_answer

    doc = yaml.safe_load((ROOT / "engine" / "systems" / "bloodberry" / "examples" / "bloodberry.yaml").read_text())
    ex18 = next(c for c in doc["cases"] if c["id"] == "EX18")
    s = Session(load_scenario(CAST), 0, options={"procedure": ex18["procedure"]})
    answers = list(ex18["answers"])
    seen = False
    with deadline():
        while not s.is_over:
            d = s.pending
            if s.game.fm is not None and "9♣" in [c.code for c in s.game.fm.shoe.discard]:
                seen = True
            head = answers[0] if answers else None
            if head is not None and head["kind"] == d.kind and head.get("actor", d.actor) == d.actor:
                s.answer(answers.pop(0)["answer"])
            else:
                s.answer(_no_answer(d))
    assert seen, "the consumed 9♣ never reached the discard pile"
