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
from engine.core.story import Storyteller

from .present.terminal import panel_parts, render_item, render_sheet, sheet_text
from .present.words import interface_words, no_field

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
HELP = interface_words("en")["help"]


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
    """A system's panel drawn for the full view (``agent.present.terminal.panel_parts``)."""
    return panel_parts(panel)


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
        parts.append(Text("(nothing to show)", style="dim"))  # the full view names observation keys (debug view)
    return Panel(Group(*parts), title=escape(title) if title else None, border_style="cyan")


class HumanAgent:
    """Terminal player; see the module docstring. ``quit`` raises ``QuitAndSave``.

    Before each decision the story the seat saw since its last one scrolls by (``engine.core.story``, read from the
    seat view's transcript), then the compact sheet when it changed, then the question with the numbers at stake and
    the options by label. Code ids and rule references appear only when the player asks for ``help``; every message
    is in ``lang`` (ja by default, en)."""

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
        lang: str = "ja",
        resumed: bool = False,
    ):
        self.console = console or Console(emoji=False)  # ids such as swap:knife:right_hand are not emoji codes
        #: with an injected input function the prompts and answers are echoed, so the output reads like a session
        self._echo = input_fn is not None
        self._input = input_fn or (lambda prompt: self.console.input(Text(prompt)))
        self.show_state = show_state
        self.lang = lang
        self.words = interface_words(lang)
        #: a resumed session shows only the last ``recent`` story items of its past
        self.resumed = resumed
        self._sheets: dict[str, str] = {}  # display only: the sheet last shown to each actor
        self._shown: Any = None  # the decision last shown (a re-ask after a refusal does not show it again)
        self.recent = recent
        #: per actor: its storyteller and how far into the log its story has been shown
        self._story: dict[str, list[Any]] = {}
        self._told = False  # whether story items were shown before the decision being asked

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
            if low in ("help", "?", "ヘルプ"):
                self._help(decision)
            elif low == "state":
                self._state(decision, view=session)
            elif low == "log":
                self._log(session)
            elif low in ("standing", "常時", "常時応答"):
                self._standing(session)
            elif low in ("quit", "exit"):
                raise QuitAndSave("the player quit")
            else:
                return cmd

    def _standing(self, view: SeatView | None) -> None:
        """Show this seat's standing answers and let the person change one (logged by the engine)."""
        if view is None:
            return
        w = self.words
        menu = view.standing_menu()
        if not menu:
            self.console.print(Text(w["standing_none"], style="dim"))
            return
        while True:
            self.console.print(Text(w["standing_title"].format(name=self._name(view.actor)), style="bold"))
            for i, (spec, vocab, now) in enumerate(menu, 1):
                said = next((sa.label for sa in vocab if sa.id == now), w["standing_ask"])
                self.console.print(Text(w["standing_row"].format(n=i, title=spec.title, answer=said)))
            line = self._input(w["standing_pick_window"]).strip()
            if self._echo:
                self.console.print(w["standing_pick_window"] + line, markup=False, highlight=False)
            if not line.isdigit() or not 1 <= int(line) <= len(menu):
                return
            spec, vocab, now = menu[int(line) - 1]
            choices: list[tuple[str | None, str]] = [(None, w["standing_ask"])] + [(sa.id, sa.label) for sa in vocab]
            for i, (sid, label) in enumerate(choices):
                mark = " ←" if sid == now else ""
                self.console.print(Text(f"  {i}. {label}{mark}"))
            pick = self._input(w["standing_pick_answer"].format(title=spec.title)).strip()
            if self._echo:
                self.console.print(w["standing_pick_answer"].format(title=spec.title) + pick, markup=False, highlight=False)
            if pick.isdigit() and 0 <= int(pick) < len(choices):
                sid, label = choices[int(pick)]
                view.set_standing(spec.kind, sid)
                self.console.print(Text(w["standing_set"].format(title=spec.title, answer=label), style="green"))
            menu = view.standing_menu()

    def _help(self, decision: Decision) -> None:
        w = self.words
        self.console.print(Text(w["help"]))
        self.console.print(Text(w["help_decision"].format(kind=decision.kind, rule=decision.rule), style="dim"))
        for i, o in enumerate(decision.options or (), 1):
            self.console.print(Text(w["help_option"].format(n=i, label=o.label, id=o.id), style="dim"))

    def notify_illegal(self, error: IllegalAnswer) -> None:
        t = Text(self.words["refused"].format(problem=error.problem))
        t.stylize("red", 0, len(self.words["refused"].split("{")[0]))
        self.console.print(t)

    # -- the story -------------------------------------------------------------------------------------------
    def _teller(self, view: SeatView) -> list[Any]:
        st = self._story.get(view.actor)
        if st is None:
            st = self._story[view.actor] = [Storyteller(view.system, self.lang), 0]
        st[0].learn(view.observation)
        return st

    def _tell(self, view: SeatView) -> None:
        """The story items this seat saw since its last decision (all of them on its first, the last ``recent``
        of a resumed session's past)."""
        st = self._teller(view)
        first = st[1] == 0
        items = st[0].items(view.transcript(st[1]))
        st[1] = view.log_length
        if first and self.resumed:
            items = items[-self.recent :]
        for it in items:
            self.console.print(render_item(it, self.lang))
        self._told = bool(items)

    def finish(self, transcript: Callable[[str, int], Sequence[Any]]) -> None:
        """Show each seat the story since its last decision (the ending): ``transcript(actor, start)`` is the
        session's seat transcript (``Session.transcript``)."""
        for actor, st in self._story.items():
            events = transcript(actor, st[1])
            st[1] += len(events)  # only a lower bound; the session is over
            for it in st[0].items(events):
                self.console.print(render_item(it, self.lang))

    # -- display ---------------------------------------------------------------------------------------------
    def _name(self, actor: str) -> str:
        st = self._story.get(actor)
        return st[0].name(actor) if st is not None else actor

    def _state(self, decision: Decision, compact: bool = False, view: SeatView | None = None) -> None:
        """What the actor knows, with the system's panels and terms (from the seat view's ``SystemInfo``)."""
        system = view.system if view is not None else None
        title = self.words["state_title"].format(name=self._name(decision.actor))
        # soft_wrap off for the frame: the CLI's console soft-wraps story lines, which would crop a panel's lines
        self.console.print(render_observation(decision.observation, title=title, compact=compact,
                                              panels=getattr(system, "panels", None),
                                              labels=getattr(system, "labels", None)), soft_wrap=False)

    def _log(self, view: SeatView | None) -> None:
        if view is None:
            return
        teller = Storyteller(view.system, self.lang)
        teller.learn(view.observation)
        lines = [it for it in teller.items(view.transcript()) if it.kind in ("narration", "speech")][-self.recent :]
        if not lines:
            self.console.print(Text(self.words["no_narration"], style="dim"))
        for it in lines:
            self.console.print(render_item(it, self.lang))

    def _sheet(self, decision: Decision, view: SeatView | None) -> None:
        st = self._story.get(decision.actor)
        if st is None:
            return
        panels = st[0].sheet(decision.observation)
        key = sheet_text(self.console, panels)
        if key == self._sheets.get(decision.actor):
            if self._told:  # something happened, and none of it shows on the sheet
                self.console.print(Text(self.words["unchanged"], style="dim"))
            return
        self._sheets[decision.actor] = key
        drawn = render_sheet(self.console, panels, self._name(decision.actor))
        if drawn is not None:
            self.console.print(drawn)

    def _show(self, decision: Decision, view: SeatView | None = None) -> None:
        w = self.words
        if self.show_state:
            self._sheet(decision, view)
        st = self._story.get(decision.actor)
        # a prompt or label may name the answer's note field for model seats; a person is asked for the note below
        prompt = no_field(decision.prompt)
        body = [Text(prompt)]
        if st is not None:
            body += [Text(line, style="bold yellow") for line in st[0].decision_lines(decision)]
        head = Text(w["turn"].format(name=self._name(decision.actor)), style="bold")
        self.console.print(Panel(Group(*body), title=head, title_align="left", border_style="magenta"),
                           soft_wrap=False)  # wrap long prompts inside the panel (the CLI console soft-wraps)
        if decision.options is not None:
            for i, o in enumerate(decision.options, 1):
                t = Text(f"  {i}. ", style="bold")
                t.append(no_field(o.label))
                self.console.print(t)
            if decision.pick is not None:
                lo, hi = decision.pick
                self.console.print(Text("  " + w["choose_range"].format(lo=lo, hi=hi)
                                        + (w["choose_range_none"] if lo == 0 else ""), style="dim"))

    # -- acting ----------------------------------------------------------------------------------------------
    def act(self, view: SeatView) -> Any:
        """Ask the person; what they type is handed to the table as is (the table refuses an illegal answer with
        the engine's message, shown by ``notify_illegal``, and asks again)."""
        decision = view.decision
        session = view
        w = self.words
        if self._shown is not decision:
            self._tell(view)
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
                note = self._ask(w["note_required"] if mode == "required" else w["note_optional"], decision, session)
                if note:
                    answer["note"] = note
        if decision.speech:
            text = self._ask(w["speech"], decision, session)
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
        w = self.words
        while True:
            line = self._ask(w["prompt"], decision, session)
            if decision.pick is None:
                oid = self._resolve_option(line, decision)
                if oid is None:
                    self.console.print(Text(w["type_number"].format(n=len(decision.option_ids))))
                    continue
                return oid
            tokens = [t for t in line.replace(",", " ").replace("、", " ").split() if t]
            picked = [self._resolve_option(t, decision) for t in tokens]
            if any(p is None for p in picked):
                bad = [t for t, p in zip(tokens, picked, strict=True) if p is None]
                self.console.print(Text(w["unknown_options"].format(bad=" ".join(bad))))
                continue
            return picked

    def _payload(self, decision: Decision, session: SeatView | None) -> dict[str, Any]:
        w = self.words
        schema = decision.payload_schema() or {}
        props: dict[str, Any] = schema.get("properties", {})
        required = set(schema.get("required", ()))
        self.console.print(Text(w["payload_intro"], style="dim"))
        st = self._story.get(decision.actor)
        terms: Mapping[str, str] = st[0].hooks.terms if st is not None else {}
        out: dict[str, Any] = {}
        for i, (name, sub) in enumerate(props.items()):
            sub = _resolve(sub, schema)
            while True:
                line = self._ask(f"{_field_prompt(name, sub, name in required, schema, w, terms, self.lang != 'ja')}> ",
                                 decision, session)
                if i == 0 and line.startswith("{"):
                    try:
                        whole = json.loads(line)
                    except json.JSONDecodeError as e:
                        self.console.print(Text(w["not_json"].format(error=e)))
                        continue
                    return whole if isinstance(whole, dict) else {"value": whole}
                if line == "":
                    if name in required and "default" not in sub:
                        self.console.print(Text(w["required_field"]))
                        continue
                    break
                try:
                    out[name] = _parse_field(line, sub, schema, w, terms)
                except ValueError as e:
                    self.console.print(Text(str(e)))
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


def _field_prompt(name: str, sub: dict[str, Any], required: bool, root: dict[str, Any] | None = None,
                  w: Mapping[str, str] | None = None, terms: Mapping[str, str] | None = None,
                  show_name: bool = True) -> str:
    """A form field's prompt. ``terms``: the game's words for enum values (``StoryHooks.terms``); ``show_name``:
    whether the field's code name leads (not in a Japanese session when the field has a description)."""
    w = w or interface_words("en")
    terms = terms or {}
    bits = [name]
    if sub.get("title") and sub["title"] != name.replace("_", " ").title():
        bits = [str(sub["title"])]
    if sub.get("description"):
        if show_name:
            bits.append(f"— {sub['description']}")
        else:
            bits = [str(sub["description"])]
    items: dict[str, Any] = sub["items"] if isinstance(sub.get("items"), dict) else {}
    if "enum" in sub:
        bits.append("[" + " / ".join(f"{i}:{terms.get(str(v), v)}" for i, v in enumerate(sub["enum"], 1)) + "]")
    elif sub.get("type") == "array" and root is not None and _resolve(items, root).get("type") == "object":
        bits.append(w["field_json_list"].format(shape=_object_shape(_resolve(items, root), root)))
    elif sub.get("type") == "array" and "enum" in items:
        lo, hi = sub.get("minItems", 0), sub.get("maxItems")
        bits.append(w["field_list"].format(lo=lo, hi=hi if hi is not None else "") + " [" +
                    " / ".join(f"{i}:{terms.get(str(v), v)}" for i, v in enumerate(items["enum"], 1)) + "]")
    else:
        t = sub.get("type", "value")
        lo, hi = sub.get("minimum", sub.get("minLength")), sub.get("maximum", sub.get("maxLength"))
        key = "field_text" if t == "string" else "field_number" if t in ("integer", "number") else "field_any"
        if lo is not None or hi is not None:
            bits.append(w[key].format(lo="" if lo is None else lo, hi="" if hi is None else hi))
    if "default" in sub:
        if sub["default"] not in ("", None, [], {}):
            bits.append(w["field_default"].format(value=terms.get(str(sub["default"]), sub["default"])))
    elif not required:
        bits.append(w["field_optional"])
    return " ".join(str(b) for b in bits if b) + " "


def _parse_field(line: str, sub: dict[str, Any], root: dict[str, Any], w: Mapping[str, str] | None = None,
                 terms: Mapping[str, str] | None = None) -> Any:
    w = w or interface_words("en")
    terms = terms or {}
    if "enum" in sub:
        values: Sequence[Any] = sub["enum"]
        if line.isdigit() and 1 <= int(line) <= len(values):
            return values[int(line) - 1]
        for v in values:
            if str(v) == line or terms.get(str(v)) == line:
                return v
        raise ValueError(w["err_choose"].format(values=", ".join(terms.get(str(v), str(v)) for v in values)))
    t = sub.get("type")
    if t in ("integer", "number"):
        try:
            num: float = int(line) if t == "integer" else float(line)
        except ValueError:
            raise ValueError(w["err_not_whole" if t == "integer" else "err_not_number"].format(line=line)) from None
        _check_bounds(num, sub, w)
        return num
    if t == "boolean":
        low = line.lower()
        if low in ("y", "yes", "true", "1", "はい"):
            return True
        if low in ("n", "no", "false", "0", "いいえ"):
            return False
        raise ValueError(w["err_yes_no"])
    if t == "array":
        if line.startswith("["):
            return json.loads(line)
        item = _resolve(sub.get("items", {}), root)
        return [_parse_field(x.strip(), item, root, w, terms) for x in line.replace("、", ",").split(",") if x.strip()]
    if t == "string":
        lo, hi = sub.get("minLength"), sub.get("maxLength")
        if (lo is not None and len(line) < lo) or (hi is not None and len(line) > hi):
            raise ValueError(w["err_length"].format(lo=lo or 0, hi=hi if hi is not None else ""))
        return line
    try:
        return json.loads(line)
    except json.JSONDecodeError:
        return line


def _check_bounds(num: float, sub: dict[str, Any], w: Mapping[str, str] | None = None) -> None:
    w = w or interface_words("en")
    lo, hi = sub.get("minimum"), sub.get("maximum")
    if lo is not None and num < lo:
        raise ValueError(w["err_small"].format(num=num, lo=lo))
    if hi is not None and num > hi:
        raise ValueError(w["err_big"].format(num=num, hi=hi))
    if "exclusiveMinimum" in sub and num <= sub["exclusiveMinimum"]:
        raise ValueError(w["err_small_ex"].format(num=num, lo=sub["exclusiveMinimum"]))
    if "exclusiveMaximum" in sub and num >= sub["exclusiveMaximum"]:
        raise ValueError(w["err_big_ex"].format(num=num, hi=sub["exclusiveMaximum"]))
