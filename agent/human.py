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
    from engine.core.panels import Panel as ViewPanel
    from engine.core.seat import SeatView

__all__ = ["HumanAgent", "QuitAndSave", "render_observation", "LABELS"]

#: the terms for the keys every observation has, shown next to the ASCII keys; a system adds its own
#: (``SystemInfo.labels``)
LABELS: Mapping[str, str] = {
    "me": "自分",
    "characters": "キャラクター",
    "scene": "シーン",
}
_FIRST = ("me", "characters", "relations", "scene")
HELP = (
    "Answer with the number (or id) of an option; for several, separate them with spaces or commas.\n"
    "Commands: help (this text), state (show what you know), log (recent narration), quit (save and stop)."
)


class QuitAndSave(Exception):
    """The player asked to stop; the log is already on disk, so the session can be resumed later."""


def _label(key: Any, labels: Mapping[str, str] = LABELS) -> str:
    k = str(key)
    ja = labels.get(k)
    return f"{ja} ({k})" if ja else k


def _scalar(v: Any) -> bool:
    return v is None or isinstance(v, (str, int, float, bool))


def _compact(v: Any, labels: Mapping[str, str] = LABELS) -> str:
    if _scalar(v):
        return "" if v is None else str(v)
    if isinstance(v, Mapping):
        return ", ".join(f"{labels.get(str(k), k)} {_compact(x, labels)}" for k, x in v.items())
    if isinstance(v, (list, tuple)):
        return ", ".join(_compact(x, labels) for x in v)
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


def _records_table(rows: Sequence[tuple[str | None, Mapping[str, Any]]], compact: bool,
                   labels: Mapping[str, str] = LABELS) -> Table:
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
        t.add_column(escape(_label(c, labels)))
    for key, row in rows:
        cells = [escape(_compact(row.get(c), labels)) for c in cols]
        t.add_row(*([escape(str(key))] if keyed else []), *cells)
    return t


def _renderable(value: Any, compact: bool = False, labels: Mapping[str, str] = LABELS) -> RenderableType | None:
    """A rich view of any observation value; in compact views long texts and deep structures are left out."""
    if _scalar(value):
        return Text(_compact(value, labels))
    if isinstance(value, Mapping):
        if value and all(isinstance(v, Mapping) for v in value.values()):  # id -> record: one row each
            return _records_table([(str(k), v) for k, v in value.items()], compact, labels)
        grid = Table.grid(padding=(0, 2))
        grid.add_column(style="bold", no_wrap=True)
        grid.add_column()
        nested: list[tuple[str, Any]] = []
        for k, v in value.items():
            if _small(v, compact):
                grid.add_row(escape(_label(k, labels)), escape(_compact(v, labels)))
            elif not compact or (isinstance(v, (list, tuple)) and v and all(isinstance(x, Mapping) for x in v)):
                nested.append((k, v))
        if not nested:
            return grid
        tree = Tree(grid, guide_style="dim")
        for k, v in nested:
            sub = _renderable(v, compact, labels)
            if sub is not None:
                tree.add(Group(Text(_label(k, labels), style="bold"), sub))
        return tree
    if isinstance(value, (list, tuple)):
        if value and all(isinstance(x, Mapping) for x in value):
            return _records_table([(None, x) for x in value], compact, labels)
        if all(_scalar(x) for x in value):
            return Text(_compact(value, labels))
        if compact:
            return None
        tree = Tree("", guide_style="dim")
        for x in value:
            sub = _renderable(x, compact, labels)
            if sub is not None:
                tree.add(sub)
        return tree
    return Text(str(value))


def _panel_view(panel: ViewPanel) -> list[RenderableType]:
    """A system's panel (``engine.core.panels``): its title, a table (or label/value lines without a header), its
    lines. Cells are plain text, never markup."""
    out: list[RenderableType] = []
    if panel.title:
        out.append(Text(panel.title, style="bold underline"))
    if panel.header:
        table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
        for h in panel.header:
            table.add_column(Text(str(h)))
        for row in panel.rows:
            table.add_row(*(Text(str(c)) for c in row))
        out.append(table)
    elif panel.rows:
        grid = Table.grid(padding=(0, 2))
        grid.add_column(style="bold", no_wrap=True)
        for _ in range(max(len(r) for r in panel.rows) - 1):
            grid.add_column()
        for row in panel.rows:
            grid.add_row(*(Text(str(c)) for c in row))
        out.append(grid)
    out.extend(Text(str(line)) for line in panel.lines)
    return out


#: a system's panels (``SystemInfo.panels``: observation, compact → panels) or panels already made
Panels = Callable[[Mapping[str, Any], bool], Sequence["ViewPanel"]] | Sequence["ViewPanel"]


def render_observation(obs: Mapping[str, Any], title: str = "", *, compact: bool = False,
                       panels: Panels | None = None, labels: Mapping[str, str] | None = None) -> RenderableType:
    """A panel of what the actor knows: the system's panels first (``panels``: its ``SystemInfo.panels``), then
    the rest of the observation key by key, the usual sections first (me, characters, relations, scene) and the
    keys the panels cover left out. ``labels``: the system's terms for observation keys (``SystemInfo.labels``).

    ``compact`` (shown before each decision) keeps to one screen: short fields, one row per character;
    the full view (the ``state`` command) shows everything.
    """
    names: Mapping[str, str] = {**LABELS, **labels} if labels else LABELS
    made = (panels(obs, compact) if callable(panels) else panels) or ()
    skip: set[str] = set()
    parts: list[RenderableType] = []
    for p in made:
        parts += _panel_view(p)
        skip.update(p.covers)
    keys = [k for k in _FIRST if k in obs and k not in skip] + [k for k in obs if k not in _FIRST and k not in skip]
    flat = {k: obs[k] for k in keys if _small(obs[k], compact) and obs[k] not in (None, "", [], {})}
    if flat:
        parts.append(_renderable(flat, compact, names) or Text(""))
    for k in keys:
        v = obs[k]
        if v is None or v == [] or v == {} or k in flat or _small(v, compact):
            continue
        body = _renderable(v, compact, names)
        if body is None:
            continue
        parts.append(Text(_label(k, names), style="bold underline"))
        parts.append(body)
    if not parts:
        parts.append(Text("(nothing to show)", style="dim"))
    return Panel(Group(*parts), title=escape(title) if title else None, border_style="cyan")


class HumanAgent:
    """Terminal player; see the module docstring. ``quit`` raises ``QuitAndSave``."""

    name = "human"
    #: a person is asked again until the answer is legal (the table's illegal-answer policy reads this)
    retries = None

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
        self._shown: Any = None  # the decision last shown (a re-ask after a refusal does not show it again)
        self.recent = recent

    # -- input -----------------------------------------------------------------------------------------------
    def _ask(self, prompt: str, decision: Decision, session: SeatView | None) -> str:
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
                self._state(decision, view=session)
            elif low == "log":
                self._log(session)
            elif low in ("quit", "exit"):
                raise QuitAndSave("the player quit")
            else:
                return cmd

    def notify_illegal(self, error: IllegalAnswer) -> None:
        self.console.print(f"[red]not allowed:[/] {escape(error.problem)}")

    # -- display ---------------------------------------------------------------------------------------------
    def _state(self, decision: Decision, compact: bool = False, view: SeatView | None = None) -> None:
        """What the actor knows, with the system's panels and terms (from the seat view's ``SystemInfo``)."""
        system = view.system if view is not None else None
        self.console.print(render_observation(decision.observation, title=f"{decision.actor}", compact=compact,
                                              panels=getattr(system, "panels", None),
                                              labels=getattr(system, "labels", None)))

    def _log(self, view: SeatView | None) -> None:
        if view is None:
            return
        lines = [e for e in view.transcript() if isinstance(e, NarrationEvent)][-self.recent :]
        if not lines:
            self.console.print("(no narration yet)", style="dim")
        for e in lines:
            self.console.print(f"[bold]{escape(e.actor)}[/]: {escape(e.text)}")

    def _show(self, decision: Decision, view: SeatView | None = None) -> None:
        if self.show_state:
            obs = decision.observation
            if obs != self._last_obs.get(decision.actor):
                self._state(decision, compact=True, view=view)
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
    def act(self, view: SeatView) -> Any:
        """Ask the person; what they type is handed to the table as is (the table refuses an illegal answer with
        the engine's message, shown by ``notify_illegal``, and asks again)."""
        decision = view.decision
        session = view
        if self._shown is not decision:
            self._show(decision, view)
            self._shown = decision
        if decision.payload_model is not None:
            answer: dict[str, Any] = {"payload": self._payload(decision, session)}
        else:
            picked = self._options(decision, session)
            answer = {"choice": picked} if decision.pick is None else {"choices": picked}
        if decision.notes:
            notes = decision.notes
            mode = notes.get(str(answer.get("choice"))) or notes.get("*")
            if mode:
                note = self._ask("理由・宣言を一言> " if mode == "required" else "理由・宣言を一言（Enter で省略）> ",
                                 decision, session)
                if note:
                    answer["note"] = note
        if decision.speech:
            text = self._ask("say something (Enter to skip)> ", decision, session)
            if text:
                answer["text"] = text
        return answer

    def _resolve_option(self, token: str, decision: Decision) -> str | None:
        ids = decision.option_ids
        if token.isdigit() and 1 <= int(token) <= len(ids):
            return ids[int(token) - 1]
        if token in ids:
            return token
        return None

    def _options(self, decision: Decision, session: SeatView | None) -> Any:
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

    def _payload(self, decision: Decision, session: SeatView | None) -> dict[str, Any]:
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
