"""ラストフラグメント's panels for a seat's view (``engine.core.panels``): the scene (type, what discovery revealed, loose
items), the table (every character's HP, tokens, abnormality Lv, items, bonds; SP in the climax), one's own sheet
(abilities by row, skills, fragments held with their texts, the handouts). The full view (``state``) adds the
scenario, every character's sheet the seat may see, the investigations made and, for the GM, the fragments with
their holders, the unlock conditions, the handouts and the notes: nothing of the observation is left to the generic
key-by-key view."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...core.panels import Panel
from .data import BOND_POWERS

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
    if not compact and obs.get("attempts"):
        lines.append("調査済み: " + "、".join(str(a) for a in obs["attempts"]))
    return Panel("卓 (characters)", _HEADER, rows, lines, covers=("characters", "combat", "system", "attempts", "ability_names"))


def _abilities(c: Mapping[str, Any], names: Mapping[str, str]) -> list[tuple[str, ...]]:
    pairs = [(str(names.get(a, a)), str(lv)) for a, lv in (c.get("abilities") or {}).items()]
    return [tuple(x for pair in pairs[i : i + 3] for x in pair) + ("", "") * (3 - len(pairs[i : i + 3]))
            for i in range(0, len(pairs), 3)]


def _sheet_lines(c: Mapping[str, Any]) -> list[str]:
    lines = ["スキル: " + ("、".join(c.get("skills") or []) or "なし")]
    if c.get("title"):
        lines.insert(0, f"肩書: {c['title']}")
    for a in c.get("abnormalities") or []:
        lines.append(f"異常性: {a.get('name')}（Lv{a.get('level')}）" + ("（ダート使用済み）" if a.get("dart_used") else ""))
    for name, text in (c.get("item_notes") or {}).items():
        lines.append(f"アイテム「{name}」: {text}")
    if c.get("bond_powers_used"):
        lines.append("使用した絆の力: " + "、".join(BOND_POWERS.get(str(x), (str(x),))[0] for x in c["bond_powers_used"]))
    if "ap_unspent" in c:
        lines.append(f"未使用AP {c.get('ap_unspent', 0)}、スキル枠 {c.get('skill_slots', 0)}、"
                     f"パーソナルシーン {c.get('personal_scenes_used', 0)}回使用")
    if c.get("memories"):
        lines.append("思い出: " + "、".join(c["memories"]))
    if c.get("secret_ability"):
        lines.append(f"シークレットフラグメントの指定アビリティ: {c['secret_ability']}")
    if c.get("description"):
        lines.append(str(c["description"]))
    return lines


def _sheet(c: Mapping[str, Any], names: Mapping[str, str]) -> Panel:
    lines = _sheet_lines(c)
    for h in c.get("handouts") or []:
        lines.append(f"ハンドアウト: {h}")
    for f in c.get("fragments") or []:
        tag = "ラスト" if f.get("kind") == "last" else "シークレット" if f.get("secret") else ""
        lines.append(f"{tag}フラグメント「{f.get('name')}」: {f.get('text')}")
    return Panel(f"自分 (me): {c.get('name', '')}", ("アビリティ", "Lv") * 3, _abilities(c, names), lines,
                 covers=("me", "ability_names"))


KIND_NAMES = {"pc": "PC", "npc": "NPC", "enemy": "敵"}


def _other(c: Mapping[str, Any], names: Mapping[str, str]) -> Panel:
    lines = _sheet_lines(c)
    if c.get("items"):
        lines.insert(0, "アイテム: " + "、".join(c["items"]))
    return Panel(f"{c.get('name', '')}（{KIND_NAMES.get(str(c.get('kind')), c.get('kind'))}）", ("アビリティ", "Lv") * 3,
                 _abilities(c, names), lines, covers=("characters",))


def _scenario(obs: Mapping[str, Any]) -> Panel | None:
    sc = obs.get("scenario")
    if not isinstance(sc, Mapping):
        return None
    rows = [("フェイズ", PHASES.get(str(obs.get("phase")), str(obs.get("phase", "")))),
            ("セッション", str(obs.get("session_no", 1)))]
    lines = [str(x) for x in (sc.get("summary"), sc.get("setting")) if x]
    return Panel(f"シナリオ: {sc.get('title', '')}", rows=rows, lines=lines, covers=("scenario", "phase", "session_no"))


#: session phases (the machine's states) as a player reads them
PHASES = {"setup": "準備", "opening": "オープニングフェイズ", "scene_select": "メインフェイズ（シーンの選択）",
          "scene_enter": "メインフェイズ", "scene_play": "メインフェイズ", "personal_scene": "パーソナルシーン",
          "scene_end": "メインフェイズ", "climax_declaration": "クライマックスの宣言", "gm_stuck": "メインフェイズ（行き詰まり）",
          "climax_phase": "クライマックスフェイズ", "combat": "戦闘", "climax_aftermath": "クライマックス（戦闘の後）",
          "climax_end": "クライマックスフェイズ", "ending_phase": "エンディングフェイズ", "session_end": "セッション終了"}


def _gm(obs: Mapping[str, Any]) -> Panel | None:
    g = obs.get("gm")
    if not isinstance(g, Mapping):
        return None
    chars = obs.get("characters") or {}

    def who(x: str) -> str:
        return "語り部" if x == "gm" else str((chars.get(x) or {}).get("name", x))

    lines = [f"メモ: {g['gm_notes']}"] if g.get("gm_notes") else []
    for f in (g.get("fragments") or {}).values():
        holders = "、".join(who(h) for h in f.get("holders") or []) or "まだ誰も持っていない"
        tag = "ラスト" if f.get("kind") == "last" else "シークレット" if f.get("secret") else ""
        lines.append(f"{tag}フラグメント「{f.get('name')}」（{holders}）: {f.get('text')}")
    for sid, cond in (g.get("unlock") or {}).items():
        lines.append(f"解放条件 {sid}: {cond}")
    for pid, hs in (g.get("handouts") or {}).items():
        for h in hs if isinstance(hs, list) else [hs]:
            lines.append(f"ハンドアウト（{who(pid)}）: {h}")
    return Panel("語り部だけが知ること (gm)", lines=lines, covers=("gm",))


def panels(obs: Mapping[str, Any], compact: bool) -> list[Panel]:
    out: list[Panel] = []
    names = obs.get("ability_names") or {}
    if not compact:
        sc = _scenario(obs)
        if sc is not None:
            out.append(sc)
    scene = _scene(obs)
    if scene is not None:
        out.append(scene)
    out.append(_table(obs, compact))
    me = obs.get("me")
    if isinstance(me, Mapping):
        out.append(_sheet(me, names))
    if not compact:
        mine = me.get("id") if isinstance(me, Mapping) else None
        for cid, c in (obs.get("characters") or {}).items():
            if isinstance(c, Mapping) and cid != mine:
                out.append(_other(c, names))
        g = _gm(obs)
        if g is not None:
            out.append(g)
    return out
