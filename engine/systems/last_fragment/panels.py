"""ラストフラグメント's panels for a seat's view (``engine.core.panels``): the scene (type, what discovery revealed, loose
items), the table (every character's HP, tokens, abnormality Lv, items, bonds; SP in the climax), one's own sheet
(abilities by row, skills, fragments held with their texts, the handout)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...core.panels import Panel

__all__ = ["panels"]

_HEADER = ("", "HP", "トークン", "異常性Lv", "アイテム", "絆", "状態")


def _scene(obs: Mapping[str, Any]) -> Panel | None:
    s = obs.get("scene")
    if not isinstance(s, Mapping):
        return None
    rows = [("シーン", f"「{s.get('name', '')}」（{s.get('type', '')}）"),
            ("発見されたもの", "、".join(str(r.get("name")) for r in s.get("revealed") or []) or "なし")]
    if s.get("loose_items"):
        rows.append(("落ちているアイテム", "、".join(s["loose_items"])))
    if s.get("absent"):
        rows.append(("登場していない PC", "、".join(s["absent"])))
    lines = [str(s["description"])] if s.get("description") else []
    if obs.get("visited"):
        lines.append("訪れたシーン: " + "→".join(obs["visited"]))
    return Panel("シーン (scene)", rows=rows, lines=lines, covers=("scene", "visited"))


def _table(obs: Mapping[str, Any], compact: bool) -> Panel:
    rows: list[tuple[str, ...]] = []
    for cid, c in (obs.get("characters") or {}).items():
        if not isinstance(c, Mapping):
            continue
        state = []
        if c.get("incapacitated"):
            state.append("行動不能")
        if c.get("withdrawn"):
            state.append("離脱")
        if "sp" in c:
            state.append(f"SP {c.get('sp_left', 0)}/{c.get('sp', 0)}")
        rows.append((str(c.get("name", cid)), f"{c.get('hp', 0)}/{c.get('max_hp', 0)}", str(c.get("tokens", 0)),
                     str(c.get("abnormality_level", 0)), "、".join(c.get("items") or []) or "-",
                     "、".join(f"{k}: {v}" for k, v in (c.get("bonds") or {}).items()) or "-", " ".join(state)))
    lines: list[str] = []
    cb = obs.get("combat")
    if isinstance(cb, Mapping):
        winner = cb.get("winner")
        who = (obs.get("characters") or {}).get(winner) or {}
        lines.append(f"戦闘: ラウンド {cb.get('round', 0)}" + (f"、勝者 {who.get('name', winner)}" if winner else ""))
    covers = ("characters", "combat", "system", "attempts") if compact else ("combat", "system", "attempts")
    return Panel("卓 (characters)", _HEADER, rows, lines, covers=covers)


def _sheet(c: Mapping[str, Any], names: Mapping[str, str]) -> Panel:
    pairs = [(str(names.get(a, a)), str(lv)) for a, lv in (c.get("abilities") or {}).items()]
    rows = [tuple(x for pair in pairs[i : i + 3] for x in pair) + ("", "") * (3 - len(pairs[i : i + 3]))
            for i in range(0, len(pairs), 3)]
    lines = ["スキル: " + "、".join(c.get("skills") or [])]
    for a in c.get("abnormalities") or []:
        lines.append(f"異常性: {a.get('name')}（Lv{a.get('level')}）" + ("（ダート使用済み）" if a.get("dart_used") else ""))
    for name, text in (c.get("item_notes") or {}).items():
        lines.append(f"アイテム「{name}」: {text}")
    for h in c.get("handouts") or []:
        lines.append(f"ハンドアウト: {h}")
    for f in c.get("fragments") or []:
        tag = "ラスト" if f.get("kind") == "last" else "シークレット" if f.get("secret") else ""
        lines.append(f"{tag}フラグメント「{f.get('name')}」: {f.get('text')}")
    return Panel(f"自分 (me): {c.get('name', '')}", ("アビリティ", "Lv") * 3, rows, lines, covers=("me", "ability_names"))


def panels(obs: Mapping[str, Any], compact: bool) -> list[Panel]:
    out: list[Panel] = []
    scene = _scene(obs)
    if scene is not None:
        out.append(scene)
    out.append(_table(obs, compact))
    me = obs.get("me")
    if isinstance(me, Mapping):
        out.append(_sheet(me, obs.get("ability_names") or {}))
    return out
