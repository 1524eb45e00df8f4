"""A human at the terminal: the state they may see, the question, numbered options, free text where asked.

Everything shown comes from the decision (its observation is exactly what this actor may know), so a human seat
cannot see more than an AI seat would. Input and output are injectable (``rich.Console(file=...)`` and an input
function) so that tests can play through it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from rich.console import Console, Group, RenderableType
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table
from rich.text import Text
from rich.tree import Tree

from engine.core.decision import IllegalAnswer
from engine.core.events import NarrationEvent

if TYPE_CHECKING:
    from engine.core.decision import Decision
    from engine.core.session import Session

__all__ = ["HumanAgent", "QuitAndSave", "render_observation", "LABELS"]

#: Japanese game terms shown next to the ASCII keys of observations
LABELS = {
    "me": "自分",
    "characters": "キャラクター",
    "relations": "関係",
    "emotions": "感情",
    "scene": "シーン",
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
_FIRST = ("me", "characters", "relations", "scene")
HELP = (
    "Answer with the number (or id) of an option; for several, separate them with spaces or commas.\n"
    "Commands: help (this text), state (show what you know), log (recent narration), quit (save and stop)."
)


class QuitAndSave(Exception):
    """The player asked to stop; the log is already on disk, so the session can be resumed later."""


def _label(key: Any) -> str:
    k = str(key)
    ja = LABELS.get(k)
    return f"{ja} ({k})" if ja else k


def _scalar(v: Any) -> bool:
    return v is None or isinstance(v, (str, int, float, bool))


def _compact(v: Any) -> str:
    if _scalar(v):
        return "" if v is None else str(v)
    if isinstance(v, Mapping):
        return ", ".join(f"{LABELS.get(str(k), k)} {_compact(x)}" for k, x in v.items())
    if isinstance(v, (list, tuple)):
        return ", ".join(_compact(x) for x in v)
    return str(v)


_LONG = 40  # characters: longer texts are left out of compact views (use `state` for everything)
_MAX_COLS = 8


def _small(v: Any, compact: bool) -> bool:
    """Fits in one table cell: a scalar (short in compact views), a list of scalars, or a flat mapping."""
    if isinstance(v, str):
        return not compact or len(v) <= _LONG
    if _scalar(v):
        return True
    if isinstance(v, (list, tuple)):
        return all(_scalar(x) and not (compact and isinstance(x, str) and len(x) > _LONG) for x in v)
    if isinstance(v, Mapping):
        return all(_scalar(x) and _small(x, compact) for x in v.values())
    return False


def _records_table(rows: Sequence[tuple[str | None, Mapping[str, Any]]], compact: bool) -> Table:
    cols: list[str] = []
    for _, row in rows:
        for k in row:
            if k in cols or not all(_small(r.get(k), compact) for _, r in rows):
                continue
            if all(r.get(k) == key for key, r in rows):  # the id again
                continue
            if compact and all(r.get(k) in (None, "", [], {}) for _, r in rows):
                continue
            cols.append(k)
    if compact:
        cols = cols[:_MAX_COLS]
    keyed = any(key is not None for key, _ in rows)
    t = Table(show_header=True, header_style="bold", box=None, padding=(0, 1))
    if keyed:
        t.add_column("")
    for c in cols:
        t.add_column(escape(_label(c)))
    for key, row in rows:
        cells = [escape(_compact(row.get(c))) for c in cols]
        t.add_row(*([escape(str(key))] if keyed else []), *cells)
    return t


def _renderable(value: Any, compact: bool = False) -> RenderableType | None:
    """A rich view of any observation value; in compact views long texts and deep structures are left out."""
    if _scalar(value):
        return Text(_compact(value))
    if isinstance(value, Mapping):
        if value and all(isinstance(v, Mapping) for v in value.values()):  # id -> record: one row each
            return _records_table([(str(k), v) for k, v in value.items()], compact)
        grid = Table.grid(padding=(0, 2))
        grid.add_column(style="bold", no_wrap=True)
        grid.add_column()
        nested: list[tuple[str, Any]] = []
        for k, v in value.items():
            if _small(v, compact):
                grid.add_row(escape(_label(k)), escape(_compact(v)))
            elif not compact or (isinstance(v, (list, tuple)) and v and all(isinstance(x, Mapping) for x in v)):
                nested.append((k, v))
        if not nested:
            return grid
        tree = Tree(grid, guide_style="dim")
        for k, v in nested:
            sub = _renderable(v, compact)
            if sub is not None:
                tree.add(Group(Text(_label(k), style="bold"), sub))
        return tree
    if isinstance(value, (list, tuple)):
        if value and all(isinstance(x, Mapping) for x in value):
            return _records_table([(None, x) for x in value], compact)
        if all(_scalar(x) for x in value):
            return Text(_compact(value))
        if compact:
            return None
        tree = Tree("", guide_style="dim")
        for x in value:
            sub = _renderable(x, compact)
            if sub is not None:
                tree.add(sub)
        return tree
    return Text(str(value))


def _slot_text(slot: Mapping[str, Any]) -> str:
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
    return "".join(parts) or "any"


def _cards_view(cards: Mapping[str, Any]) -> RenderableType:
    """Round progression: my hand, the public discard pile, the order and the rounds (§7.4)."""
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column()
    if "my_hand" in cards:
        grid.add_row("手札 (my hand)", escape(" ".join(cards["my_hand"])))
    for actor, hand in (cards.get("hands") or {}).items():  # the GM sees every hand
        grid.add_row(f"手札 {escape(actor)}", escape(" ".join(hand)))
    discard = list(cards.get("discard") or [])
    grid.add_row("捨て札 (discard)", escape(" ".join(discard[-12:])) + (f" (+{len(discard) - 12})" if len(discard) > 12 else ""))
    grid.add_row("山札 (deck)", str(cards.get("deck", "")))
    order = cards.get("order") or []
    revealed = cards.get("revealed") or {}
    grid.add_row("順番 (order)", escape(" → ".join(f"{a}({revealed.get(a, '')})" for a in order)))
    grid.add_row("ラウンド (rounds)", escape(_compact(cards.get("rounds") or {})))
    return grid


def _camp_title(cid: str, camp: Mapping[str, Any], chars: Mapping[str, Any]) -> str:
    """A camp by its members' names, as the engine's prompts name it (``bloodberry.flagmap.camp_title``)."""
    from engine.systems.bloodberry.flagmap import camp_title

    members = camp.get("members") or []
    return camp_title([str((chars.get(m) or {}).get("name", m)) for m in members]) if members else f"陣営 {cid}"


def _flag_map_view(fm: Mapping[str, Any], chars: Mapping[str, Any] | None = None) -> RenderableType:
    """The flag map: the clock, every place with its condition and flag, each camp's layout, hand and position."""
    minutes = int(fm.get("clock_minutes", 0))
    head = Text(f"{fm.get('title', '')}  時刻 {minutes // 60}:{minutes % 60:02d}  (unit {fm.get('unit', 0)}, 山札 {fm.get('deck', 0)})")
    camps = fm.get("camps") or {}
    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    table.add_column("場所 (place)")
    table.add_column("成立条件 (condition)")
    table.add_column("フラグ (flag)")
    chars = chars or {}
    for cid, camp in camps.items():
        table.add_column(_camp_title(cid, camp, chars))
    flags = fm.get("flags") or {}
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
            cells.append(escape(fill + mark + here + (f" [{' '.join(subs)}]" if subs else "")))
        gate = " 🔒" if place.get("gated") else ""
        table.add_row(escape(place.get("name", pid) + gate), escape(" ".join(_slot_text(x) for x in place.get("condition", []))),
                      escape(ftext), *cells)
    hands = Table.grid(padding=(0, 2))
    hands.add_column(style="bold", no_wrap=True)
    hands.add_column()
    for cid, camp in camps.items():
        if "hand" in camp:
            hands.add_row(f"{escape(_camp_title(cid, camp, chars))} の手札", escape(" ".join(camp["hand"])))
        else:
            hands.add_row(f"{escape(_camp_title(cid, camp, chars))} の手札", f"{camp.get('hand_size', 0)} 枚")
    discard = list(fm.get("discard") or [])
    hands.add_row("捨て札 (discard)", escape(" ".join(discard[-12:])))
    return Group(head, table, hands)


_YG_STATUS = {"weapon_sealed": "武器封じ", "magic_sealed": "魔封", "poison": "毒", "curse": "呪詛", "brand": "刻印",
              "bound": "束縛", "paralysis": "麻痺", "fear": "恐怖"}


def _yg_flags(c: Mapping[str, Any]) -> str:
    bits = [_YG_STATUS.get(s, s) for s in (c.get("statuses") or {})]
    for key, label in (("dead", "死亡"), ("incapacitated", "戦闘不能"), ("awakened", "覚醒"), ("doomed", "蟲化"),
                       ("flying", "飛行"), ("legs_broken", "脚部損傷"), ("delaying", "遅延")):
        if c.get(key):
            bits.append(label)
    if c.get("blockading"):
        bits.append(f"封鎖 {c['blockading']}")
    if c.get("psychic_focus"):
        bits.append(f"集中 {c['psychic_focus']:+d}")
    return " ".join(bits)


def _yg_names() -> tuple[Mapping[str, Any], Mapping[str, Any], Mapping[str, Any]]:
    from engine.systems.yogaribito.arms import FEATS, ITEMS
    from engine.systems.yogaribito.data import CLASSES

    return CLASSES, FEATS, ITEMS


def _yg_me(me: Mapping[str, Any]) -> RenderableType:
    """My sheet in a few lines: classes, feats, items and where they are, lifepath."""
    classes, feats, items = _yg_names()
    slot_jp = {"right_hand": "右手", "left_hand": "左手", "armor": "防具", "accessory": "アクセサリー"}
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column()
    cls = [classes[c].name if c in classes else str(c) for c in (me.get("main_class"), me.get("sub_class")) if c]
    if cls:
        grid.add_row("クラス", escape(" / ".join(cls)))
    if me.get("feats"):
        grid.add_row("特技", escape("、".join(feats[f].name if f in feats else str(f) for f in me["feats"])))
    held = []
    for it in me.get("items") or []:
        name = items[it["item"]].name if it.get("item") in items else str(it.get("item"))
        where = slot_jp.get(it.get("slot") or "", "")
        uses = f"×{it['uses_left']}" if it.get("uses_left") else ""
        held.append(f"{name}{uses}" + (f"（{where}）" if where else ""))
    if held:
        grid.add_row("アイテム", escape("、".join(held)))
    if me.get("effects"):
        grid.add_row("効果", escape("、".join(_yg_effect(e, feats) for e in me["effects"])))
    if me.get("secret"):
        grid.add_row("秘密", escape(str(me["secret"])))
    return grid


#: how long a 夜狩り人 effect lasts (``until``), as the terminal shows it
_YG_UNTIL = {"turn": "手番終了まで", "round": "ラウンド終了まで", "scene": "シーン終了まで", "combat": "戦闘終了まで"}


def _yg_effect(e: Mapping[str, Any], feats: Mapping[str, Any]) -> str:
    """A pending effect in Japanese: the feat that made it (《祝福》), or 飛行 for a flying start, and how long it lasts."""
    eid = str(e.get("id"))
    name = feats[eid].name if eid in feats else ("飛行（戦闘開始時の配置）" if eid == "layout_flying" else eid)
    until = _YG_UNTIL.get(str(e.get("until")), "")
    return f"{name}（{until}）" if until else name


def _yogaribito_view(obs: Mapping[str, Any]) -> RenderableType:
    """夜狩り人: every character in view with its values (命/魂 current/base, hero points, statuses), the
    battlefield's engagements and this round's action order."""
    chars: Mapping[str, Any] = obs.get("characters") or {}
    bf = obs.get("battlefield") or None
    where: dict[str, str] = {}
    if isinstance(bf, Mapping):
        for eid, members in (bf.get("engagements") or {}).items():
            for m in members:
                where[m] = eid
    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    for col in ("", "クラス", "心/技/体", "命", "魂", "燎", "運", "財", "弾", "エンゲージ", "状態"):
        table.add_column(col)
    for cid, c in chars.items():
        if not isinstance(c, Mapping):
            continue
        cur, base = c.get("current") or {}, c.get("base") or {}

        def pair(stat: str, cur: Mapping[str, Any] = cur, base: Mapping[str, Any] = base) -> str:
            return f"{cur.get(stat, 0)}/{base.get(stat, 0)}" if stat in base else "-"

        classes = _yg_names()[0]
        cls = "/".join(classes[x].name if x in classes else str(x) for x in (c.get("main_class"), c.get("sub_class"))
                       if x) or {"enemy": "エネミー", "npc": "NPC"}.get(str(c.get("kind")), "")
        table.add_row(escape(str(c.get("name", cid))), escape(str(cls)),
                      f"{cur.get('mind', 0)}/{cur.get('tech', 0)}/{cur.get('body', 0)}", pair("life"), pair("soul"),
                      str(cur.get("kagaribi", "-")), str(cur.get("luck", "-")), str(cur.get("wealth", "-")),
                      str(cur["bullets"]) if "bullets" in cur else "-", where.get(cid, ""), escape(_yg_flags(c)))
    parts: list[RenderableType] = [table]
    if isinstance(bf, Mapping):
        names = {cid: str(c.get("name", cid)) for cid, c in chars.items() if isinstance(c, Mapping)}
        engs = "  ".join(f"[{eid}] " + "・".join(names.get(m, m) for m in members)
                         for eid, members in (bf.get("engagements") or {}).items())
        parts.append(Text(f"ラウンド {bf.get('round', 0)}  " + engs))
        order = bf.get("order") or []
        acted = set(bf.get("acted") or [])
        if order:
            parts.append(Text("行動順: " + " → ".join(("✓" if a in acted else "") + names.get(a, a) for a in order)))
    return Group(*parts)


def render_observation(obs: Mapping[str, Any], title: str = "", *, compact: bool = False) -> RenderableType:
    """A panel of what the actor knows: the usual sections first (me, characters, relations, scene), then the rest.

    ``compact`` (shown before each decision) keeps to one screen: short fields, one row per character;
    the full view (the ``state`` command) shows everything.
    """
    special = {"cards": "ラウンド進行 (cards)", "flag_map": "フラグマップ (flag map)"}
    skip: set[str] = set(special)
    parts: list[RenderableType] = []
    if obs.get("system") == "yogaribito":
        parts.append(Text("キャラクター・戦場 (characters, battlefield)", style="bold underline"))
        parts.append(_yogaribito_view(obs))
        skip |= {"characters", "battlefield", "system"} if compact else {"battlefield", "system"}
        if compact and isinstance(obs.get("me"), Mapping):
            parts.append(Text("自分 (me)", style="bold underline"))
            parts.append(_yg_me(obs["me"]))
            skip.add("me")
    keys = [k for k in _FIRST if k in obs and k not in skip] + [k for k in obs if k not in _FIRST and k not in skip]
    for k, label in special.items():
        if isinstance(obs.get(k), Mapping):
            parts.append(Text(label, style="bold underline"))
            parts.append(_cards_view(obs[k]) if k == "cards" else _flag_map_view(obs[k], obs.get("characters") or {}))
    flat = {k: obs[k] for k in keys if _small(obs[k], compact) and obs[k] not in (None, "", [], {})}
    if flat:
        parts.append(_renderable(flat, compact) or Text(""))
    for k in keys:
        v = obs[k]
        if v is None or v == [] or v == {} or k in flat or _small(v, compact):
            continue
        body = _renderable(v, compact)
        if body is None:
            continue
        parts.append(Text(_label(k), style="bold underline"))
        parts.append(body)
    if not parts:
        parts.append(Text("(nothing to show)", style="dim"))
    return Panel(Group(*parts), title=escape(title) if title else None, border_style="cyan")


class HumanAgent:
    """Terminal player; see the module docstring. ``quit`` raises ``QuitAndSave``."""

    name = "human"

    def __init__(
        self,
        console: Console | None = None,
        input_fn: Callable[[str], str] | None = None,
        *,
        show_state: bool = True,
        recent: int = 8,
    ):
        self.console = console or Console(emoji=False)  # ids such as swap:knife:right_hand are not emoji codes
        #: with an injected input function the prompts and answers are echoed, so the output reads like a session
        self._echo = input_fn is not None
        self._input = input_fn or (lambda prompt: self.console.input(Text(prompt)))
        self.show_state = show_state
        self._last_obs: dict[str, Any] = {}  # display only: what was last shown to each actor
        self.recent = recent

    # -- input -----------------------------------------------------------------------------------------------
    def _ask(self, prompt: str, decision: Decision, session: Session | None) -> str:
        """One line of input; commands are handled here and never reach the caller."""
        while True:
            try:
                line = self._input(prompt)
            except EOFError:
                raise QuitAndSave("end of input") from None
            if self._echo:
                self.console.print(prompt + line, markup=False, highlight=False)
            cmd = line.strip()
            low = cmd.lower()
            if low in ("help", "?"):
                self.console.print(HELP, markup=False)
            elif low == "state":
                self._state(decision)
            elif low == "log":
                self._log(session)
            elif low in ("quit", "exit"):
                raise QuitAndSave("the player quit")
            else:
                return cmd

    def notify_illegal(self, error: IllegalAnswer) -> None:
        self.console.print(f"[red]not allowed:[/] {escape(error.problem)}")

    # -- display ---------------------------------------------------------------------------------------------
    def _state(self, decision: Decision, compact: bool = False) -> None:
        self.console.print(render_observation(decision.observation, title=f"{decision.actor}", compact=compact))

    def _log(self, session: Session | None) -> None:
        if session is None:
            return
        lines = [e for e in session.events if isinstance(e, NarrationEvent)][-self.recent :]
        if not lines:
            self.console.print("(no narration yet)", style="dim")
        for e in lines:
            self.console.print(f"[bold]{escape(e.actor)}[/]: {escape(e.text)}")

    def _show(self, decision: Decision) -> None:
        if self.show_state:
            obs = decision.observation
            if obs != self._last_obs.get(decision.actor):
                self._state(decision, compact=True)
                self._last_obs[decision.actor] = obs
            else:
                self.console.print("[dim](state unchanged; type `state` to see it)[/]")
        head = f"[bold]{escape(decision.actor)}[/] — {escape(decision.kind)} [dim]({escape(decision.rule)})[/]"
        self.console.print(Panel(Text(decision.prompt), title=head, title_align="left", border_style="magenta"),
                           soft_wrap=False)  # wrap long prompts inside the panel (the CLI console soft-wraps)
        if decision.options is not None:
            for i, o in enumerate(decision.options, 1):
                self.console.print(f"  [bold]{i}[/]. {escape(o.label)} [dim]\\[{escape(o.id)}][/]")
            if decision.pick is not None:
                lo, hi = decision.pick
                self.console.print(f"  choose {lo} to {hi}, separated by spaces or commas" + (" (Enter for none)" if lo == 0 else ""))

    # -- acting ----------------------------------------------------------------------------------------------
    def act(self, decision: Decision, session: Session | None = None) -> Any:
        self._show(decision)
        while True:
            if decision.payload_model is not None:
                answer: dict[str, Any] = {"payload": self._payload(decision, session)}
            else:
                picked = self._options(decision, session)
                answer = {"choice": picked} if decision.pick is None else {"choices": picked}
            if decision.speech:
                text = self._ask("say something (Enter to skip)> ", decision, session)
                if text:
                    answer["text"] = text
            try:
                decision.check(answer)
            except IllegalAnswer as e:
                self.notify_illegal(e)
                continue
            return answer

    def _resolve_option(self, token: str, decision: Decision) -> str | None:
        ids = decision.option_ids
        if token.isdigit() and 1 <= int(token) <= len(ids):
            return ids[int(token) - 1]
        if token in ids:
            return token
        return None

    def _options(self, decision: Decision, session: Session | None) -> Any:
        while True:
            line = self._ask("> ", decision, session)
            if decision.pick is None:
                oid = self._resolve_option(line, decision)
                if oid is None:
                    self.console.print(f"type a number 1-{len(decision.option_ids)} (or help)")
                    continue
                return oid
            tokens = [t for t in line.replace(",", " ").split() if t]
            picked = [self._resolve_option(t, decision) for t in tokens]
            if any(p is None for p in picked):
                bad = [t for t, p in zip(tokens, picked, strict=True) if p is None]
                self.console.print(f"unknown option(s): {escape(' '.join(bad))}")
                continue
            return picked

    def _payload(self, decision: Decision, session: Session | None) -> dict[str, Any]:
        schema = decision.payload_schema() or {}
        props: dict[str, Any] = schema.get("properties", {})
        required = set(schema.get("required", ()))
        self.console.print("[dim]answer field by field, or paste the whole answer as JSON {...}[/]")
        out: dict[str, Any] = {}
        for i, (name, sub) in enumerate(props.items()):
            sub = _resolve(sub, schema)
            while True:
                line = self._ask(f"{_field_prompt(name, sub, name in required, schema)}> ", decision, session)
                if i == 0 and line.startswith("{"):
                    try:
                        whole = json.loads(line)
                    except json.JSONDecodeError as e:
                        self.console.print(f"not JSON: {escape(str(e))}")
                        continue
                    return whole if isinstance(whole, dict) else {"value": whole}
                if line == "":
                    if name in required and "default" not in sub:
                        self.console.print("this field is required")
                        continue
                    break
                try:
                    out[name] = _parse_field(line, sub, schema)
                except ValueError as e:
                    self.console.print(escape(str(e)))
                    continue
                break
        return out


def _resolve(sub: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in sub:
        node: Any = root
        for part in sub["$ref"][2:].split("/"):
            node = node[part]
        sub = {**node, **{k: v for k, v in sub.items() if k != "$ref"}}
    if "anyOf" in sub:  # Optional[X]: show X
        non_null = [_resolve(x, root) for x in sub["anyOf"] if x.get("type") != "null"]
        if len(non_null) == 1:
            sub = {**non_null[0], **{k: v for k, v in sub.items() if k != "anyOf"}}
    return sub


def _object_shape(obj: dict[str, Any], root: dict[str, Any]) -> str:
    """{"item": knife|katana|…, "slot": right_hand|…} — what one element of a list of objects looks like."""
    parts = []
    for key, prop in (obj.get("properties") or {}).items():
        prop = _resolve(prop, root)
        enum = prop.get("enum") or next((a.get("enum") for a in prop.get("anyOf", []) if a.get("enum")), None)
        parts.append(f'"{key}": ' + ("|".join(map(str, enum)) if enum else prop.get("type", "value")))
    return "{" + ", ".join(parts) + "}"


def _field_prompt(name: str, sub: dict[str, Any], required: bool, root: dict[str, Any] | None = None) -> str:
    bits = [name]
    if sub.get("description"):
        bits.append(f"— {sub['description']}")
    items: dict[str, Any] = sub["items"] if isinstance(sub.get("items"), dict) else {}
    if "enum" in sub:
        bits.append("[" + " / ".join(f"{i}:{v}" for i, v in enumerate(sub["enum"], 1)) + "]")
    elif sub.get("type") == "array" and root is not None and _resolve(items, root).get("type") == "object":
        bits.append("(a JSON list of " + _object_shape(_resolve(items, root), root) + ")")
    elif sub.get("type") == "array" and "enum" in items:
        lo, hi = sub.get("minItems", 0), sub.get("maxItems")
        count = f"{lo}..{hi if hi is not None else ''}"
        bits.append(f"({count} of, separated by commas) [" +
                    " / ".join(f"{i}:{v}" for i, v in enumerate(items["enum"], 1)) + "]")
    else:
        t = sub.get("type", "value")
        lo, hi = sub.get("minimum", sub.get("minLength")), sub.get("maximum", sub.get("maxLength"))
        rng = f" {lo if lo is not None else ''}..{hi if hi is not None else ''}" if lo is not None or hi is not None else ""
        bits.append(f"({t}{rng})")
    if "default" in sub:
        bits.append(f"default {sub['default']}")
    elif not required:
        bits.append("optional")
    return " ".join(str(b) for b in bits) + " "


def _parse_field(line: str, sub: dict[str, Any], root: dict[str, Any]) -> Any:
    if "enum" in sub:
        values: Sequence[Any] = sub["enum"]
        if line.isdigit() and 1 <= int(line) <= len(values):
            return values[int(line) - 1]
        for v in values:
            if str(v) == line:
                return v
        raise ValueError(f"choose one of: {', '.join(map(str, values))}")
    t = sub.get("type")
    if t in ("integer", "number"):
        try:
            num: float = int(line) if t == "integer" else float(line)
        except ValueError:
            raise ValueError(f"{line!r} is not a {'whole ' if t == 'integer' else ''}number") from None
        _check_bounds(num, sub)
        return num
    if t == "boolean":
        low = line.lower()
        if low in ("y", "yes", "true", "1", "はい"):
            return True
        if low in ("n", "no", "false", "0", "いいえ"):
            return False
        raise ValueError("answer y or n")
    if t == "array":
        if line.startswith("["):
            return json.loads(line)
        item = _resolve(sub.get("items", {}), root)
        return [_parse_field(x.strip(), item, root) for x in line.split(",") if x.strip()]
    if t == "string":
        lo, hi = sub.get("minLength"), sub.get("maxLength")
        if (lo is not None and len(line) < lo) or (hi is not None and len(line) > hi):
            raise ValueError(f"write {lo or 0} to {hi if hi is not None else 'any number of'} characters")
        return line
    try:
        return json.loads(line)
    except json.JSONDecodeError:
        return line


def _check_bounds(num: float, sub: dict[str, Any]) -> None:
    lo, hi = sub.get("minimum"), sub.get("maximum")
    if lo is not None and num < lo:
        raise ValueError(f"{num} is too small: at least {lo}")
    if hi is not None and num > hi:
        raise ValueError(f"{num} is too big: at most {hi}")
    if "exclusiveMinimum" in sub and num <= sub["exclusiveMinimum"]:
        raise ValueError(f"{num} is too small: more than {sub['exclusiveMinimum']}")
    if "exclusiveMaximum" in sub and num >= sub["exclusiveMaximum"]:
        raise ValueError(f"{num} is too big: less than {sub['exclusiveMaximum']}")
