"""「A」's panels for a seat's view (``engine.core.panels``): the scene (goal, turn, time scale, progress, who
declares now), the table (each PC's cast, hero points, elements, acted/created/busy; the SDCs), and the sheet of
success elements with their categories and usage counts (one's own in the compact view; every PC's in the full
view), with this game's bans and the campaign's blacklist."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...core.panels import Panel
from .data import CAST_NAMES, CATEGORIES, MODE_NAMES

__all__ = ["panels"]

_HEADER = ("", "キャスト", "HP", "成功要素", "行動済み", "作成", "継続行動")
_SHEET = ("成功要素", "判定分野", "使用回数", "")


def _cats(cats: Any) -> str:
    return "・".join(CATEGORIES.get(str(c), str(c)) for c in cats or ())


def _scene(obs: Mapping[str, Any]) -> Panel | None:
    s = obs.get("scene")
    if not isinstance(s, Mapping):
        return None
    g = s.get("goal") or {}
    names = {cid: str(c.get("name", cid)) for cid, c in (obs.get("characters") or {}).items() if isinstance(c, Mapping)}
    progress = "達成" if s.get("achieved") else f"成功 {s.get('successes', 0)}"
    if g.get("mode") == "success_count":
        progress += f"/{g.get('required_successes', 1)}"
    rows = [
        ("シーン", f"{s.get('index', '')}「{s.get('title', '')}」"),
        ("目標", f"{g.get('text', '')}（{CATEGORIES.get(str(g.get('category')), '')}、難易度 {g.get('difficulty', '')}、"
                 f"{MODE_NAMES.get(str(g.get('mode')), '')}）"),
        ("ターン", f"{s.get('turn', 0)}/10（1ターン {s.get('turn_duration', '')}）"),
        ("進み具合", progress),
        ("宣言できる PC", "・".join(names.get(x, x) for x in s.get("declarers") or []) or "なし（SDC のみ）"),
    ]
    lines = [f"宣言: {names.get(d.get('pc'), d.get('pc'))}「{d.get('text', '')}」"
             + (f"（継続〜ターン {d['continued_until']}）" if d.get("continued_until") else "")
             for d in s.get("declarations") or []]
    if s.get("hazards"):
        lines.append("状況（逆成功要素）: " + "、".join(f"【{h.get('text')}】" for h in s["hazards"]))
    return Panel("シーン (scene)", rows=rows, lines=lines, covers=("scene",))


def _table(obs: Mapping[str, Any], compact: bool) -> Panel:
    rows: list[tuple[str, ...]] = []
    for cid, c in (obs.get("characters") or {}).items():
        if not isinstance(c, Mapping):
            continue
        els = c.get("elements") or []
        if c.get("kind") == "pc":
            rows.append((str(c.get("name", cid)), CAST_NAMES.get(str(c.get("cast")), "未定"), str(c.get("hp", 0)),
                         f"{len(els)}/20", "✓" if c.get("acted") else "", "✓" if c.get("created_this_turn") else "",
                         f"〜{c['busy_until']}" if c.get("busy_until") else ""))
        else:
            rows.append((str(c.get("name", cid)), "SDC", "-", str(len(els)), "", "", ""))
    lines: list[str] = []
    if obs.get("banned_this_game"):
        lines.append("このゲームで使用不可能: " + "".join(f"【{x}】" for x in obs["banned_this_game"]))
    if obs.get("blacklist"):
        lines.append("万能成功要素として抹消（登録不可）: " + "".join(f"【{x}】" for x in obs["blacklist"]))
    covers = ("characters", "banned_this_game", "blacklist", "system") if compact else ("banned_this_game",
                                                                                         "blacklist", "system")
    return Panel("卓 (characters)", _HEADER, rows, lines, covers=covers)


def _sheet(name: str, c: Mapping[str, Any], title: str) -> Panel:
    rows = [(f"【{e.get('name')}】", _cats(e.get("categories")), str(e.get("usage", 0)),
             "使用不可" if e.get("banned") else "") for e in c.get("elements") or [] if isinstance(e, Mapping)]
    lines: list[str] = []
    if c.get("background"):
        lines.append(f"設定: {c['background']}")
    for p in c.get("precedents") or []:
        lines.append(f"前例 {p.get('id')}: 「{p.get('action', '')}」（{CATEGORIES.get(str(p.get('category')), '')}、"
                     f"難易度 {p.get('difficulty')}）")
    if c.get("secret"):
        lines.append(f"秘密: {c['secret']}")
    return Panel(title, _SHEET, rows, lines, covers=("me",) if title.startswith("自分") else ())


def panels(obs: Mapping[str, Any], compact: bool) -> list[Panel]:
    """The scene and the table always; one's own sheet (compact), or every PC's sheet (full view)."""
    out: list[Panel] = []
    scene = _scene(obs)
    if scene is not None:
        out.append(scene)
    out.append(_table(obs, compact))
    me = obs.get("me")
    if isinstance(me, Mapping):
        out.append(_sheet(str(me.get("name", "")), me, f"自分 (me): {me.get('name', '')}"))
    if not compact:
        for cid, c in (obs.get("characters") or {}).items():
            if isinstance(c, Mapping) and c.get("kind") == "pc" and not (isinstance(me, Mapping) and me.get("id") == cid):
                out.append(_sheet(str(c.get("name", cid)), c, f"{c.get('name', cid)} の成功要素"))
    return out
