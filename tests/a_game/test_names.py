"""§9.9 names: normalization, similarity, meaningless names and universal words."""

from __future__ import annotations

from engine.systems.a_game.names import form_problem, length, meaningless, normalize, similar, universal


def test_normalize():
    assert normalize("【空手】") == "空手"
    assert normalize(" 空 手 ") == "空手"
    assert normalize("「ＡＢＣ」") == "abc"  # NFKC, one pair of brackets, ASCII lower case
    assert normalize("【【x】】") == "【x】"  # only one enclosing pair
    assert length("【とても長い名前の必殺技である流星脚】") == 17


def test_similar():
    assert similar("支配", "支配術") and similar("人心支配", "【支配】")
    assert not similar("支", "支配")  # one character is never a substring match
    assert similar("運", "運")  # equal


def test_meaningless():
    assert meaningless("【！？】") and meaningless("123") and meaningless("ああああ")
    assert not meaningless("空手") and not meaningless("abc") and not meaningless("ああ")


def test_universal_words():
    assert universal("何でも屋") and universal("万能の鍵") and universal("最強の拳") and universal("運")
    assert not universal("運転") and not universal("幸運の女神")  # 運/幸運 only as the whole name


def test_form_problem():
    assert form_problem("空手", 15) is None
    assert "too_long" in (form_problem("とても長い名前の必殺技である流星脚", 15) or "")
    assert form_problem("", 15) == "empty name"
    assert "line break" in (form_problem("空\n手", 15) or "")
