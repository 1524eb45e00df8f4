"""Readable transcripts (Markdown or self-contained HTML) rendered from a session's events.

The log is the source of truth; a transcript is a view of it for players and designers: phase changes become
headings, narration quotes, each decision shows who chose what, dice are grouped with the check they fed.
Japanese text is passed through untouched; HTML is escaped by jinja2 and needs no network asset.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

import jinja2
from pydantic import BaseModel

from .events import (
    AnswerEvent,
    AutoEvent,
    StandingEvent,
    CheckEvent,
    DecisionEvent,
    EndEvent,
    HeaderEvent,
    InfoEvent,
    ModelCallEvent,
    NarrationEvent,
    PhaseEvent,
    RevealEvent,
    RollEvent,
    RulingEvent,
    StateEvent,
    VoidEvent,
)
from .visibility import seat_transcript, voided_checks

__all__ = ["render_transcript"]


def _j(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _answer_text(answer: dict[str, Any]) -> str:
    if "choice" in answer:
        out = str(answer["choice"])
    elif "choices" in answer:
        out = ", ".join(map(str, answer["choices"])) or "(none)"
    elif "payload" in answer:
        out = _j(answer["payload"])
    else:
        out = _j(answer)
    return out


def _kv(d: dict[str, Any]) -> str:
    """Compact ``k=v`` list, leaving out empty and false values (check data carries many)."""
    return ", ".join(f"{k}={v if isinstance(v, str) else _j(v)}" for k, v in d.items() if v not in (None, False, [], {}, ""))


def _check_lines(data: dict[str, Any]) -> tuple[str, list[str]]:
    """A check's headline (its label, or its scalar data) and one line per participant-like record."""
    head = [str(data["label"])] if "label" in data else []
    flat: dict[str, Any] = {}
    details: list[str] = []
    for k, v in data.items():
        if k == "label":
            continue
        if isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            details += [_kv(x) for x in v]
        else:
            flat[k] = v
    if flat:
        head.append(_kv(flat))
    return " — ".join(x for x in head if x), details


@dataclass
class _Block:
    kind: str
    title: str = ""
    text: str = ""
    items: list[str] = field(default_factory=list)
    meta: str = ""
    level: int = 2


def _blocks(events: Iterable[BaseModel]) -> list[_Block]:
    out: list[_Block] = []
    rolls: list[RollEvent] = []
    machines: dict[str, int] = {}
    events = list(events)
    void = voided_checks(events)

    def roll_text(r: RollEvent) -> str:
        return f"d{r.sides} = {r.value}" + (" (forced)" if r.forced else "") + f" — {r.purpose}"

    def flush_rolls() -> None:
        if rolls:
            out.append(_Block("rolls", title="Dice", items=[roll_text(r) for r in rolls]))
            rolls.clear()

    for ev in events:
        if isinstance(ev, RollEvent):
            rolls.append(ev)
            continue
        if isinstance(ev, CheckEvent):
            if ev.id in void:  # retracted later (a void event): not part of what happened; the log keeps it
                rolls.clear()
                continue
            text, details = _check_lines({"label": ev.label, **ev.data} if ev.label else ev.data)
            items = [roll_text(r) for r in rolls] + details
            out.append(_Block("check", title=f"Check {ev.id} {ev.check}", meta=ev.rule, text=text, items=items))
            rolls.clear()
            continue
        flush_rolls()
        if isinstance(ev, HeaderEvent):
            items = [
                f"system: {ev.system} {ev.system_version}",
                f"scenario: {ev.scenario_id} v{ev.scenario_version} ({ev.scenario_path})",
                f"seed: {ev.seed}",
            ]
            if ev.seats:
                items.append("seats: " + ", ".join(f"{k}={v}" for k, v in ev.seats.items()))
            if ev.config:
                items.append(f"config: {_j(ev.config)}")
            if ev.options:
                items.append(f"options: {_j(ev.options)}")
            if ev.forced_dice:
                items.append(f"forced dice: {_j(ev.forced_dice)}")
            items.append(f"trpg-agents {ev.package_version}")
            out.append(_Block("header", title=f"{ev.scenario_id} — {ev.system}", items=items))
        elif isinstance(ev, PhaseEvent):
            # the first machine seen (the session flow) gives level-2 headings, inner machines deeper ones
            level = machines.setdefault(ev.machine, min(2 + len(machines), 4))
            out.append(_Block("phase", title=f"{ev.dst}", meta=f"{ev.machine}: {ev.src} → {ev.dst} ({ev.trigger})", level=level))
        elif isinstance(ev, NarrationEvent):
            out.append(_Block("narration", title=ev.actor, text=ev.text, meta=ev.source))
        elif isinstance(ev, DecisionEvent):
            if ev.options is not None:
                legal = ("pick " + "..".join(map(str, ev.pick)) + " of " if ev.pick else "one of ") + ", ".join(ev.options)
            elif ev.payload is not None:
                legal = f"payload {ev.payload}"
            else:
                legal = ""
            out.append(_Block("decision", title=f"#{ev.seq} {ev.actor}: {ev.kind}", text=ev.prompt, meta=ev.rule, items=[legal] if legal else []))
        elif isinstance(ev, AnswerEvent):
            spoken = ev.answer.get("text")
            out.append(
                _Block(
                    "answer",
                    title=f"#{ev.seq} {ev.actor} → {ev.label + ' [' + _answer_text(ev.answer) + ']' if ev.label else _answer_text(ev.answer)}",
                    text=spoken if isinstance(spoken, str) else "",
                    meta=ev.policy,
                )
            )
        elif isinstance(ev, AutoEvent):  # a window resolved by its actor's standing answer, not asked
            out.append(_Block("answer", title=f"{ev.actor} → {ev.label + ' [' + _answer_text(ev.answer) + ']' if ev.label else _answer_text(ev.answer)}",
                              meta=f"{ev.kind}, standing answer {ev.standing}"))
        elif isinstance(ev, StandingEvent):
            shown = "; ".join(f"{a}: " + ", ".join(f"{k} = {v if v is not None else '(dropped)'}" for k, v in kinds.items())
                              for a, kinds in ev.answers.items())
            out.append(_Block("info", title="standing answers", text=shown))
        elif isinstance(ev, StateEvent):
            why = ", ".join(x for x in (ev.rule, ev.cause) if x)
            out.append(_Block("state", title=ev.path, text=f"{_j(ev.old)} → {_j(ev.new)}", meta=why))
        elif isinstance(ev, InfoEvent):
            out.append(_Block("info", title=ev.topic, text=ev.text, meta=_j(ev.data) if ev.data else ""))
        elif isinstance(ev, ModelCallEvent):
            model = ev.data.get("model", "")
            out.append(_Block("model", title=f"#{ev.seq} {ev.actor}: model call", meta=str(model)))
        elif isinstance(ev, VoidEvent):
            out.append(_Block("info", title="void", text=f"check {ev.check} is void: {ev.reason}", meta=ev.rule))
        elif isinstance(ev, RulingEvent):
            verdict = "approved" if ev.verdict == "approve" else f"rejected ({ev.reason}: {ev.text})"
            out.append(_Block("info", title=f"ruling {ev.id}", text=f"{ev.by}: {ev.subject} — {verdict}", meta=ev.rule))
        elif isinstance(ev, RevealEvent):
            shown = "; ".join(f"{a}: {ev.labels.get(a) or _answer_text(x)}" for a, x in ev.answers.items())
            out.append(_Block("info", title=f"reveal {ev.kind}", text=shown, meta=ev.rule))
        elif isinstance(ev, EndEvent):
            out.append(_Block("end", title="End", items=[f"{k}: {_j(v)}" for k, v in ev.outcome.items()]))
        else:
            out.append(_Block("info", title=getattr(ev, "type", type(ev).__name__), text=ev.model_dump_json()))
    flush_rolls()
    return out


def _quote(text: str) -> str:
    return "\n".join("> " + line if line else ">" for line in text.splitlines() or [""])


def _md(blocks: list[_Block]) -> str:
    lines: list[str] = []
    for b in blocks:
        if b.kind == "header":
            lines += [f"# {b.title}", ""] + [f"- {i}" for i in b.items] + [""]
        elif b.kind == "phase":
            lines += [f"{'#' * b.level} {b.title}", "", f"*{b.meta}*", ""]
        elif b.kind == "narration":
            lines += [f"**{b.title}**:", "", _quote(b.text), ""]
        elif b.kind == "decision":
            lines += [f"**Decision {b.title}** ({b.meta}): {b.text}", ""] + [f"- legal: {i}" for i in b.items]
        elif b.kind == "answer":
            lines += [f"- answer {b.title}" + (f" *[{b.meta}]*" if b.meta else "")]
            if b.text:
                lines += ["", _quote(b.text)]
            lines += [""]
        elif b.kind == "rolls":
            lines += ["- dice: " + "; ".join(b.items), ""]
        elif b.kind == "check":
            lines += [f"- **{b.title}** ({b.meta}): {b.text}"] + [f"  - {i}" for i in b.items] + [""]
        elif b.kind == "state":
            lines += [f"- state `{b.title}`: {b.text}" + (f" ({b.meta})" if b.meta else ""), ""]
        elif b.kind == "info":
            lines += [f"- *{b.title}*: {b.text}" + (f" {b.meta}" if b.meta else ""), ""]
        elif b.kind == "model":
            lines += [f"- {b.title} {b.meta}".rstrip(), ""]
        elif b.kind == "end":
            lines += ["## End", ""] + [f"- {i}" for i in b.items] + [""]
    return "\n".join(lines).rstrip("\n") + "\n"


_HTML = jinja2.Environment(autoescape=True, trim_blocks=True, lstrip_blocks=True).from_string(
    """<!DOCTYPE html>
<html lang="ja">
<head>
<meta charset="utf-8">
<title>{{ title }}</title>
<style>
body { font-family: system-ui, "Hiragino Sans", "Noto Sans JP", sans-serif; max-width: 52em; margin: 2em auto; padding: 0 1em; line-height: 1.6; color: #222; }
h1, h2 { border-bottom: 1px solid #ccc; }
h3, h4 { margin-bottom: 0.2em; }
.meta { color: #777; font-size: 0.85em; }
blockquote { margin: 0.5em 0; padding: 0.3em 1em; border-left: 4px solid #b33; background: #faf6f6; white-space: pre-wrap; }
.decision { margin-top: 1em; padding: 0.4em 0.8em; background: #f3f5fa; border-radius: 4px; }
.answer { margin: 0.2em 0 0.8em 1.5em; }
.check, .rolls, .state, .info, .model { margin: 0.2em 0 0.2em 1.5em; font-size: 0.95em; }
code { background: #eee; padding: 0 0.2em; }
</style>
</head>
<body>
{% for b in blocks %}
{% if b.kind == "header" %}
<h1>{{ b.title }}</h1>
<ul>{% for i in b.items %}<li>{{ i }}</li>{% endfor %}</ul>
{% elif b.kind == "phase" %}
<h{{ b.level }}>{{ b.title }}</h{{ b.level }}>
<div class="meta">{{ b.meta }}</div>
{% elif b.kind == "narration" %}
<div><strong>{{ b.title }}</strong> <span class="meta">{{ b.meta }}</span><blockquote>{{ b.text }}</blockquote></div>
{% elif b.kind == "decision" %}
<div class="decision"><strong>Decision {{ b.title }}</strong> <span class="meta">{{ b.meta }}</span><br>{{ b.text }}{% for i in b.items %}<div class="meta">legal: {{ i }}</div>{% endfor %}</div>
{% elif b.kind == "answer" %}
<div class="answer">→ answer {{ b.title }} <span class="meta">{{ b.meta }}</span>{% if b.text %}<blockquote>{{ b.text }}</blockquote>{% endif %}</div>
{% elif b.kind == "rolls" %}
<div class="rolls">dice: {{ b.items | join("; ") }}</div>
{% elif b.kind == "check" %}
<div class="check"><strong>{{ b.title }}</strong> <span class="meta">{{ b.meta }}</span> {{ b.text }}{% if b.items %}<ul>{% for i in b.items %}<li>{{ i }}</li>{% endfor %}</ul>{% endif %}</div>
{% elif b.kind == "state" %}
<div class="state">state <code>{{ b.title }}</code>: {{ b.text }} <span class="meta">{{ b.meta }}</span></div>
{% elif b.kind == "info" %}
<div class="info"><em>{{ b.title }}</em>: {{ b.text }} <span class="meta">{{ b.meta }}</span></div>
{% elif b.kind == "model" %}
<div class="model">{{ b.title }} <span class="meta">{{ b.meta }}</span></div>
{% elif b.kind == "end" %}
<h2>End</h2>
<ul>{% for i in b.items %}<li>{{ i }}</li>{% endfor %}</ul>
{% endif %}
{% endfor %}
</body>
</html>
"""
)


def render_transcript(events: Iterable[BaseModel], fmt: Literal["md", "html"] = "md", *,
                      seat: str | None = None) -> str:
    """Render events (a log's, header first, or a live session's) as Markdown or standalone HTML: everything (the
    audit view), or what one seat saw (``seat``: an actor id; ``engine.core.visibility``). Voided checks are left
    out either way (the log keeps them)."""
    evs = list(events)
    if seat is not None:
        evs = evs[:1] + seat_transcript(evs, seat, 1) if evs and isinstance(evs[0], HeaderEvent) else seat_transcript(evs, seat)
    blocks = _blocks(evs)
    if fmt == "md":
        return _md(blocks)
    if fmt == "html":
        title = next((b.title for b in blocks if b.kind == "header"), "transcript")
        return _HTML.render(blocks=blocks, title=title)
    raise ValueError(f"unknown transcript format {fmt!r}; use md or html")
