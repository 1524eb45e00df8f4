"""夜狩り人's panels for a seat's view (``engine.core.panels``): every character in view with its values (命/魂
current/base, 燎/運/財/弾, engagement, statuses), the battlefield's engagements and this round's action order, and
(compact view) one's own sheet in a few lines: classes, feats, items, pending effects, secret."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...core.panels import Panel

__all__ = ["panels", "STATUS_NAMES", "UNTIL_NAMES"]

#: statuses as the table reads them (§7.9)
STATUS_NAMES = {"weapon_sealed": "武器封じ", "magic_sealed": "魔封", "poison": "毒", "curse": "呪詛", "brand": "刻印",
                "bound": "束縛", "paralysis": "麻痺", "fear": "恐怖"}
#: how long an effect lasts (``until``)
UNTIL_NAMES = {"turn": "手番終了まで", "round": "ラウンド終了まで", "scene": "シーン終了まで", "combat": "戦闘終了まで"}
_FLAGS = (("dead", "死亡"), ("incapacitated", "戦闘不能"), ("awakened", "覚醒"), ("doomed", "蟲化"), ("flying", "飛行"),
          ("legs_broken", "脚部損傷"), ("delaying", "遅延"))
_SLOTS = {"right_hand": "右手", "left_hand": "左手", "armor": "防具", "accessory": "アクセサリー"}
_KINDS = {"enemy": "エネミー", "npc": "NPC"}
_HEADER = ("", "クラス", "心/技/体", "命", "魂", "燎", "運", "財", "弾", "エンゲージ", "状態")


def _names() -> tuple[Mapping[str, Any], Mapping[str, Any], Mapping[str, Any]]:
    from .arms import FEATS, ITEMS
    from .data import CLASSES

    return CLASSES, FEATS, ITEMS


def _flags(c: Mapping[str, Any]) -> str:
    bits = [STATUS_NAMES.get(s, s) for s in (c.get("statuses") or {})]
    bits += [label for key, label in _FLAGS if c.get(key)]
    if c.get("blockading"):
        bits.append(f"封鎖 {c['blockading']}")
    if c.get("psychic_focus"):
        bits.append(f"集中 {c['psychic_focus']:+d}")
    return " ".join(bits)


def _effect(e: Mapping[str, Any], feats: Mapping[str, Any]) -> str:
    """A pending effect: the feat that made it (《祝福》), or 飛行 for a flying start, and how long it lasts."""
    eid = str(e.get("id"))
    name = feats[eid].name if eid in feats else ("飛行（戦闘開始時の配置）" if eid == "layout_flying" else eid)
    until = UNTIL_NAMES.get(str(e.get("until")), "")
    return f"{name}（{until}）" if until else name


def _characters(obs: Mapping[str, Any], compact: bool) -> Panel:
    classes = _names()[0]
    chars: Mapping[str, Any] = obs.get("characters") or {}
    bf = obs.get("battlefield") or None
    where: dict[str, str] = {}
    if isinstance(bf, Mapping):
        for eid, members in (bf.get("engagements") or {}).items():
            for m in members:
                where[m] = eid
    rows: list[tuple[str, ...]] = []
    for cid, c in chars.items():
        if not isinstance(c, Mapping):
            continue
        cur, base = c.get("current") or {}, c.get("base") or {}

        def pair(stat: str, cur: Mapping[str, Any] = cur, base: Mapping[str, Any] = base) -> str:
            return f"{cur.get(stat, 0)}/{base.get(stat, 0)}" if stat in base else "-"

        cls = "/".join(classes[x].name if x in classes else str(x) for x in (c.get("main_class"), c.get("sub_class"))
                       if x) or _KINDS.get(str(c.get("kind")), "")
        rows.append((str(c.get("name", cid)), str(cls), f"{cur.get('mind', 0)}/{cur.get('tech', 0)}/{cur.get('body', 0)}",
                     pair("life"), pair("soul"), str(cur.get("kagaribi", "-")), str(cur.get("luck", "-")),
                     str(cur.get("wealth", "-")), str(cur["bullets"]) if "bullets" in cur else "-", where.get(cid, ""),
                     _flags(c)))
    lines: list[str] = []
    if isinstance(bf, Mapping):
        names = {cid: str(c.get("name", cid)) for cid, c in chars.items() if isinstance(c, Mapping)}
        engs = "  ".join(f"[{eid}] " + "・".join(names.get(m, m) for m in members)
                         for eid, members in (bf.get("engagements") or {}).items())
        lines.append(f"ラウンド {bf.get('round', 0)}  " + engs)
        order = bf.get("order") or []
        acted = set(bf.get("acted") or [])
        if order:
            lines.append("行動順: " + " → ".join(("✓" if a in acted else "") + names.get(a, a) for a in order))
    covers = ("characters", "battlefield", "system") if compact else ("battlefield", "system")
    return Panel("キャラクター・戦場 (characters, battlefield)", _HEADER, rows, lines, covers=covers)


def _me(me: Mapping[str, Any]) -> Panel:
    """One's own sheet in a few lines: classes, feats, items and where they are, effects, secret."""
    classes, feats, items = _names()
    rows: list[tuple[str, str]] = []
    cls = [classes[c].name if c in classes else str(c) for c in (me.get("main_class"), me.get("sub_class")) if c]
    if cls:
        rows.append(("クラス", " / ".join(cls)))
    if me.get("feats"):
        rows.append(("特技", "、".join(feats[f].name if f in feats else str(f) for f in me["feats"])))
    held = []
    for it in me.get("items") or []:
        name = items[it["item"]].name if it.get("item") in items else str(it.get("item"))
        where = _SLOTS.get(it.get("slot") or "", "")
        uses = f"×{it['uses_left']}" if it.get("uses_left") else ""
        held.append(f"{name}{uses}" + (f"（{where}）" if where else ""))
    if held:
        rows.append(("アイテム", "、".join(held)))
    if me.get("effects"):
        rows.append(("効果", "、".join(_effect(e, feats) for e in me["effects"])))
    if me.get("secret"):
        rows.append(("秘密", str(me["secret"])))
    return Panel("自分 (me)", rows=rows, covers=("me",))


def panels(obs: Mapping[str, Any], compact: bool) -> list[Panel]:
    """The characters and the battlefield always; one's own sheet in the compact view (the full view shows the
    whole sheet generically)."""
    out = [_characters(obs, compact)]
    if compact and isinstance(obs.get("me"), Mapping):
        out.append(_me(obs["me"]))
    return out
