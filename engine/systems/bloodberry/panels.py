"""ブラッドベリー's panels for a seat's view (``engine.core.panels``): the round progression (one's hand, the
discard pile, the order and the rounds, §7.4) and the flag map (the clock, every place with its condition and
flag, each camp's layout, hand and position, §7.6), whenever the observation has them; and the observation's keys
in the game's terms (``LABELS``, the system's ``SystemInfo.labels``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...core.panels import Panel

__all__ = ["panels", "LABELS"]

#: the game's terms for the keys of an observation (shown next to the key)
LABELS = {
    "relations": "関係",
    "emotions": "感情",
    "abilities": "能力値",
    "passion": "情熱",
    "grace": "気品",
    "maturity": "大人",
    "willpower": "気力",
    "kiryoku": "気力",
    "skills": "特技",
    "basic_skills": "基本特技",
    "class_skills": "クラス特技",
    "sublimated": "昇華",
    "strength": "強度",
    "curses": "呪い",
    "hand": "手札",
    "victory_conditions": "勝利条件",
}
_DISCARD_SHOWN = 12


def _flat(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, Mapping):
        return ", ".join(f"{LABELS.get(str(k), k)} {_flat(x)}" for k, x in v.items())
    if isinstance(v, (list, tuple)):
        return ", ".join(_flat(x) for x in v)
    return str(v)


def _slot_text(slot: Mapping[str, Any]) -> str:
    """A place's condition slot: suit or colour, rank, face or number card, range of values."""
    parts = []
    if "suit" in slot:
        parts.append(str(slot["suit"]))
    if "colour" in slot:
        parts.append("赤" if slot["colour"] == "red" else "黒")
    if "rank" in slot:
        parts.append(str(slot["rank"]))
    if slot.get("face") is True:
        parts.append("絵札")
    if slot.get("face") is False:
        parts.append("数字")
    if "min" in slot and "max" in slot:
        parts.append(f"{slot['min']}–{slot['max']}")
    elif "min" in slot:
        parts.append(f"≥{slot['min']}")
    elif "max" in slot:
        parts.append(f"≤{slot['max']}")
    return "".join(parts) or "なんでも"


def _cards(cards: Mapping[str, Any], chars: Mapping[str, Any]) -> Panel:
    """Round progression: my hand (the GM: every hand), the public discard pile, the order and the rounds, the
    characters by name."""
    def name(cid: Any) -> str:
        c = chars.get(str(cid))
        return str(c.get("name", cid)) if isinstance(c, Mapping) else str(cid)

    rows: list[tuple[str, str]] = []
    if "my_hand" in cards:
        rows.append(("手札 (my hand)", " ".join(cards["my_hand"])))
    for actor, hand in (cards.get("hands") or {}).items():
        rows.append((f"手札 {name(actor)}", " ".join(hand)))
    discard = list(cards.get("discard") or [])
    more = f" (+{len(discard) - _DISCARD_SHOWN})" if len(discard) > _DISCARD_SHOWN else ""
    rows.append(("捨て札 (discard)", " ".join(discard[-_DISCARD_SHOWN:]) + more))
    rows.append(("山札 (deck)", str(cards.get("deck", ""))))
    order = cards.get("order") or []
    revealed = cards.get("revealed") or {}
    rows.append(("順番 (order)", " → ".join(f"{name(a)}({revealed.get(a, '')})" for a in order)))
    rounds = cards.get("rounds") or {}
    rows.append(("ラウンド (rounds)", "、".join(f"{name(k)} {_flat(v)}" for k, v in rounds.items())
                 if isinstance(rounds, Mapping) else _flat(rounds)))
    return Panel("ラウンド進行 (cards)", rows=rows, covers=("cards",))


def _camp_title(cid: str, camp: Mapping[str, Any], chars: Mapping[str, Any]) -> str:
    """A camp by its members' names, as the prompts name it (``flagmap.camp_title``)."""
    from .flagmap import camp_title

    members = camp.get("members") or []
    return camp_title([str((chars.get(m) or {}).get("name", m)) for m in members]) if members else f"陣営 {cid}"


def _flag_map(fm: Mapping[str, Any], chars: Mapping[str, Any]) -> list[Panel]:
    """The clock; every place with its condition, its flag and each camp's fragments there (成立: established,
    ★: the camp is there); each camp's hand (its own camp's cards, the others' count) and the discard pile."""
    minutes = int(fm.get("clock_minutes", 0))
    head = f"{fm.get('title', '')}  時刻 {minutes // 60}:{minutes % 60:02d}  （単位 {fm.get('unit', 0)}分、山札 {fm.get('deck', 0)}）"
    camps: Mapping[str, Any] = fm.get("camps") or {}
    titles = {cid: _camp_title(cid, camp, chars) for cid, camp in camps.items()}
    header = ("場所 (place)", "成立条件 (condition)", "フラグ (flag)", *titles.values())
    flags = fm.get("flags") or {}
    rows: list[tuple[str, ...]] = []
    for pid, place in (fm.get("places") or {}).items():
        flag = place.get("flag")
        ftext = ""
        if flag:
            f = flags.get(flag, {})
            ftext = f"{f.get('name', flag)}{'(終)' if f.get('kind') == 'end' else ''}{' ✔' if f.get('raised') else ''}"
        cells = []
        for camp in camps.values():
            slots = (camp.get("layout") or {}).get(pid, [])
            fill = " ".join(c or "_" for c in slots)
            mark = " 成立" if pid in (camp.get("established") or []) else ""
            here = " ★" if camp.get("location") == pid else ""
            subs = (camp.get("subevents") or {}).get(pid)
            cells.append(fill + mark + here + (f" [{' '.join(subs)}]" if subs else ""))
        gate = " 🔒" if place.get("gated") else ""
        rows.append((place.get("name", pid) + gate, " ".join(_slot_text(x) for x in place.get("condition", [])), ftext,
                     *cells))
    hands: list[tuple[str, str]] = []
    for cid, camp in camps.items():
        shown = " ".join(camp["hand"]) if "hand" in camp else f"{camp.get('hand_size', 0)} 枚"
        hands.append((f"{titles[cid]} の手札", shown))
    hands.append(("捨て札 (discard)", " ".join(list(fm.get("discard") or [])[-_DISCARD_SHOWN:])))
    return [Panel("フラグマップ (flag map)", lines=(head,), covers=("flag_map",)), Panel("", header, rows),
            Panel("", rows=hands)]


def panels(obs: Mapping[str, Any], compact: bool) -> list[Panel]:
    """The round progression and the flag map while they are on (the same in the compact and the full view); the
    sheets, relations and scene are shown generically."""
    out: list[Panel] = []
    if isinstance(obs.get("cards"), Mapping):
        out.append(_cards(obs["cards"], obs.get("characters") or {}))
    if isinstance(obs.get("flag_map"), Mapping):
        out += _flag_map(obs["flag_map"], obs.get("characters") or {})
    return out
