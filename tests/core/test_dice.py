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


@pytest.mark.parametrize("face", ["d6:3", (6, 3), [6, 3]])
def test_a_sized_forced_face_waits_for_a_die_of_its_size(face):
    plain = Dice(7)
    stream = [plain.roll(4, "p"), plain.d6("p"), plain.roll(4, "p")]
    d = Dice(7, [face])
    assert d.roll(4, "other size") == stream[0]  # from the seeded stream, the d6 face stays queued
    assert d.forced_left == 1
    assert d.d6("its size") == 3 and d.forced_left == 0
    assert [d.d6("p"), d.roll(4, "p")] == stream[1:]  # the forced face did not consume the stream
    assert [(r.sides, r.forced) for r in d.rolls] == [(4, False), (6, True), (6, False), (4, False)]


def test_only_the_head_of_the_forced_queue_is_considered():
    plain = Dice(3)
    stream = [plain.roll(4, "p") for _ in range(2)]
    d = Dice(3, ["d6:5", "d4:2", 1])
    # the head is for a d6: d4s draw from the stream (a d6 face of 5 does not have to fit them), even though a d4
    # face is queued behind it
    assert [d.roll(4, "a"), d.roll(4, "b")] == stream and d.forced_left == 3
    assert d.d6("c") == 5
    assert d.roll(4, "d") == 2
    assert d.roll(8, "e") == 1  # a face without a size is taken by the next die, whatever its size
    assert [r.forced for r in d.rolls] == [False, False, True, True, True]


def test_a_sized_forced_face_of_the_right_size_must_still_fit():
    with pytest.raises(DiceScriptError, match="does not fit a d4"):
        Dice(0, ["d4:5"]).roll(4, "x")


def test_a_free_running_shuffle_draws_and_logs_as_roll_by_roll():
    """``Dice.shuffle`` inlines ``roll`` when no face is forced: the same order, the same logged rolls (secret or
    not), heard by the listener one by one; with forced faces it goes roll by roll."""
    from engine.core.dice import Dice, Roll

    for secret in (True, False):
        fast, slow = Dice(11), Dice(11)
        heard: list[Roll] = []
        fast.listen(heard.append)
        got = fast.shuffle(list(range(30)), "shuffle:x", secret=secret)
        out = list(range(30))
        for i in range(len(out) - 1, 0, -1):
            j = slow.roll(i + 1, "shuffle:x", secret=secret) - 1
            out[i], out[j] = out[j], out[i]
        assert got == out and fast.rolls == slow.rolls == heard
    forced = Dice(3, [2, 1])
    forced.shuffle([0, 1, 2], "s")
    assert [r.forced for r in forced.rolls] == [True, True]
