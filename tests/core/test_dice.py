from __future__ import annotations

import pytest

from engine.core import Dice, DiceScriptError


def test_same_seed_same_faces():
    a, b = Dice(42), Dice(42)
    assert [a.d6("x") for _ in range(50)] == [b.d6("x") for _ in range(50)]
    assert Dice(43).pool(50, "x") != Dice(42).pool(50, "x")


def test_forced_faces_come_first_and_do_not_consume_the_stream():
    plain = Dice(7)
    expected = [plain.d6("p") for _ in range(3)]
    forced = Dice(7, [6, "d6:1"])
    assert forced.d6("f") == 6 and forced.d6("f") == 1
    assert [forced.d6("p") for _ in range(3)] == expected
    assert [r.forced for r in forced.rolls] == [True, True, False, False, False]


def test_forced_face_must_fit_the_die():
    with pytest.raises(DiceScriptError, match="does not fit a d6"):
        Dice(0, [7]).d6("x")


def test_scripted_dice_wrong_size_and_running_out():
    d = Dice.scripted(["d6:3", (4, 2)])
    assert d.d6("a") == 3
    with pytest.raises(DiceScriptError, match="next face is for a d4"):
        d.d6("b")
    assert d.roll(4, "c") == 2
    with pytest.raises(DiceScriptError, match="ran out"):
        d.d6("d")


def test_listener_sees_every_roll_with_its_purpose():
    seen = []
    d = Dice(1)
    d.listen(seen.append)
    d.pool(3, "判定")
    assert [(r.purpose, r.sides) for r in seen] == [("判定", 6)] * 3
