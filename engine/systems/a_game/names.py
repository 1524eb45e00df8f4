"""Success-element names (rules/a_game.md §9.9): normalization, similarity, meaningless names, universal words.

These are pure functions of the text, so that the engine's pre-checks (§7.7), the scenario validator (§3.2) and the
scripted SD (§9.9 heuristics) read a name the same way. Names are shown as written; only comparisons normalize.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from .data import UNIVERSAL_PARTS, UNIVERSAL_WORDS

__all__ = ["normalize", "similar", "meaningless", "universal", "length", "form_problem", "bracketed"]

_PAIRS = {"【": "】", "「": "」", "『": "』", "[": "]", "(": ")", "（": "）", "〈": "〉", "<": ">"}
_WS = re.compile(r"\s+")


@lru_cache(maxsize=8192)
def normalize(s: str) -> str:
    """§9.9: NFKC; no whitespace; one enclosing pair of brackets removed; ASCII lower case."""
    t = _WS.sub("", unicodedata.normalize("NFKC", s))
    if len(t) >= 2 and t[0] in _PAIRS and t[-1] == _PAIRS[t[0]]:
        t = t[1:-1]
    return "".join(ch.lower() if ch.isascii() else ch for ch in t)


def length(s: str) -> int:
    """Length in code points after normalization (§9.9)."""
    return len(normalize(s))


@lru_cache(maxsize=8192)
def similar(a: str, b: str) -> bool:
    """§9.9: equal, or one (of length ≥ 2) a substring of the other; both are normalized first."""
    a, b = normalize(a), normalize(b)
    return a == b or (len(a) >= 2 and a in b) or (len(b) >= 2 and b in a)


def _meaningful_char(ch: str) -> bool:
    o = ord(ch)
    return (0x3400 <= o <= 0x4DBF or 0x4E00 <= o <= 0x9FFF or 0x3041 <= o <= 0x309F or 0x30A0 <= o <= 0x30FF
            or "a" <= ch <= "z")


@lru_cache(maxsize=8192)
def meaningless(s: str) -> bool:
    """§9.9: no CJK ideograph, kana or a–z at all, or one character repeated three times or more."""
    t = normalize(s)
    if not any(_meaningful_char(ch) for ch in t):
        return True
    return len(t) >= 3 and len(set(t)) == 1


@lru_cache(maxsize=8192)
def universal(s: str) -> bool:
    """§9.9: a universal word (万能, 無敵, ... anywhere, or exactly 天才/奇跡/幸運/運): automatically omnipotent."""
    t = normalize(s)
    return any(p in t for p in UNIVERSAL_PARTS) or t in UNIVERSAL_WORDS


def bracketed(s: str) -> str:
    """A name as the rulebook writes it: 【空手】."""
    return f"【{s}】"


@lru_cache(maxsize=8192)
def form_problem(name: str, max_len: int) -> str | None:
    """§3.2 form rules of a name on a sheet: empty, a line break, longer than ``max_len``, meaningless."""
    if not normalize(name):
        return "empty name"
    if "\n" in name or "\r" in name:
        return "a line break in the name"
    if length(name) > max_len:
        return f"{length(name)} characters, at most {max_len} (too_long)"
    if meaningless(name):
        return "meaningless (no kanji, kana or letter, or one character repeated)"
    return None
