"""Shareable session logs: the story a seat saw (or the GM's whole story), as Markdown or one self-contained HTML page,
in the style of an online-session chat log (speaker, narration, dice lines). ``trpg replay LOG --format story``.

The events are the seat's transcript (``engine.core.visibility.seat_transcript``); the items are the presentation
layer's (``engine.core.story``); this module only lays them out. Japanese text is passed through untouched; HTML is
escaped by jinja2 and needs no network asset.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

import jinja2
from pydantic import BaseModel

from .events import HeaderEvent
from .story import StoryItem, Storyteller, names_for, words
from .visibility import GM, seat_transcript

if TYPE_CHECKING:
    from .registry import SystemInfo

__all__ = ["render_story", "story_items", "story_of_log"]

_MARK = {"dice": "🎲", "ruling": "⚖", "info": "▶", "clue": "🔑", "change": "・", "reveal": "▶"}

_HEAD = {
    "ja": {"seat": "{name} の見たセッション", "gm": "GM の見たセッション（すべて）", "seed": "シード", "secret": "（秘密）"},
    "en": {"seat": "the session as {name} saw it", "gm": "the GM's view (everything)", "seed": "seed", "secret": "(secret)"},
}


def story_items(events: Sequence[BaseModel], system: SystemInfo | None, *, seat: str | None = None, lang: str = "ja",
                names: Mapping[str, str] | None = None) -> list[StoryItem]:
    """The story items of a log's events as ``seat`` saw them (None: the GM, who sees everything)."""
    actor = seat or GM
    start = 1 if events and isinstance(events[0], HeaderEvent) else 0
    seen = seat_transcript(events, actor, start)
    return Storyteller(system, lang, dict(names or {})).items(seen)


def _md_quote(text: str) -> list[str]:
    return ["> " + line if line else ">" for line in text.splitlines() or [""]]


def _markdown(items: Sequence[StoryItem], title: str, subtitle: str, lang: str) -> str:
    secret = _HEAD.get(lang, _HEAD["ja"])["secret"]
    out = [f"# {title}", "", f"*{subtitle}*", ""]
    for it in items:
        tag = f" {secret}" if it.private else ""
        if it.kind == "heading":
            out += [f"## {it.text}", ""]
        elif it.kind == "narration":
            out += [f"**{it.speaker}**{tag}", ""] + _md_quote(it.text) + [""]
        elif it.kind == "speech":
            out += [f"**{it.speaker}**「{it.text}」", ""]
        elif it.kind == "ending":
            out += [f"## {it.text}", ""] + [f"- {line}" for line in it.lines] + [""]
        elif it.kind == "dice":
            head = f"{_MARK['dice']} **{it.text}**{tag}"
            if len(it.lines) == 1:
                out += [f"{head} — {it.lines[0]}", ""]
            else:
                out += [head] + [f"  - {line}" for line in it.lines] + [""]
        else:
            who = f"**{it.speaker}**: " if it.speaker else ""
            body = it.text.replace("\n", "  \n  ")
            mark = _MARK.get(it.kind, "▶")
            out += [f"{mark}{'' if it.kind == 'change' else ' '}{who}{body}{tag}", ""]
    return "\n".join(out).rstrip("\n") + "\n"


_HTML = jinja2.Environment(autoescape=True, trim_blocks=True, lstrip_blocks=True).from_string(
    """<!DOCTYPE html>
<html lang="{{ lang }}">
<head>
<meta charset="utf-8">
<title>{{ title }}</title>
<style>
body { font-family: "Hiragino Sans", "Noto Sans CJK JP", "Noto Sans JP", "Yu Gothic", system-ui, sans-serif; background: #f4f1ea; color: #222; margin: 0; }
main { max-width: 48em; margin: 0 auto; padding: 1em; }
h1 { font-size: 1.4em; margin-bottom: 0; }
.sub { color: #777; margin-bottom: 1.5em; }
h2 { font-size: 1.1em; margin: 1.6em 0 0.6em; padding: 0.3em 0.6em; background: #3b3153; color: #fff; border-radius: 4px; }
.msg { display: flex; gap: 0.8em; padding: 0.35em 0.6em; border-bottom: 1px solid #e4dfd4; background: #fff; }
.who { flex: 0 0 8em; font-weight: bold; color: #6a3b8a; overflow-wrap: anywhere; }
.text { flex: 1; white-space: pre-wrap; line-height: 1.6; }
.narration .who { color: #2b5d8a; }
.dice { background: #f6f6fb; font-size: 0.95em; }
.dice .who { color: #555; font-weight: normal; }
.dice ul, .ending ul { margin: 0.2em 0 0; padding-left: 1.2em; }
.ruling { background: #fbf5ea; }
.clue, .info, .reveal { background: #eef7f0; }
.change { background: #fafafa; color: #555; font-size: 0.92em; }
.private .text::after { content: " 🔒"; }
.ending { background: #fff8e8; }
</style>
</head>
<body><main>
<h1>{{ title }}</h1>
<div class="sub">{{ subtitle }}</div>
{% for it in items %}
{% if it.kind == "heading" %}
<h2>{{ it.text }}</h2>
{% elif it.kind == "ending" %}
<h2>{{ it.text }}</h2>
<div class="msg ending"><div class="who"></div><div class="text"><ul>{% for l in it.lines %}<li>{{ l }}</li>{% endfor %}</ul></div></div>
{% else %}
<div class="msg {{ it.kind }}{% if it.private %} private{% endif %}"><div class="who">{% if it.speaker %}{{ it.speaker }}{% else %}{{ marks.get(it.kind, "▶") }}{% endif %}</div><div class="text">{% if it.kind == "speech" %}「{{ it.text }}」{% else %}{{ it.text }}{% endif %}{% if it.lines %}<ul>{% for l in it.lines %}<li>{{ l }}</li>{% endfor %}</ul>{% endif %}</div></div>
{% endif %}
{% endfor %}
</main></body>
</html>
"""
)


def render_story(events: Sequence[BaseModel], system: SystemInfo | None, fmt: Literal["md", "html"] = "md", *,
                 seat: str | None = None, lang: str = "ja", names: Mapping[str, str] | None = None,
                 title: str = "") -> str:
    """The story of a log (header first) as ``seat`` saw it (None: the GM's full story), as Markdown or HTML."""
    items = story_items(events, system, seat=seat, lang=lang, names=names)
    head = _HEAD.get(lang, _HEAD["ja"])
    header = events[0] if events and isinstance(events[0], HeaderEvent) else None
    who = head["gm"] if seat in (None, GM) else head["seat"].format(name=(names or {}).get(seat, seat))
    sysname = getattr(system, "name", "") or (header.system if header else "")
    bits: list[Any] = [sysname, who]
    if header is not None:
        bits.append(f"{head['seed']} {header.seed}")
    subtitle = " · ".join(str(b) for b in bits if b)
    title = title or (header.scenario_id if header else words(lang)["end"])
    if fmt == "md":
        return _markdown(items, title, subtitle, lang)
    if fmt == "html":
        return _HTML.render(items=items, title=title, subtitle=subtitle, lang=lang, marks=_MARK)
    raise ValueError(f"unknown story format {fmt!r}; use md or html")


def story_of_log(path: str, events: Sequence[BaseModel], seat: str | None, fmt: Literal["md", "html"] = "html",
                 lang: str = "ja") -> str:
    """The story a seat saw (None: the GM's whole story) of the log at ``path`` (its ``events``, as ``read_log`` gave
    them): the session is replayed from the log for its system and the names the seat knows (its observation at the
    end). ``trpg replay --format story`` and the browser table's 物語 page. ValueError: no such seat."""
    from .replay import session_from_log

    session = session_from_log(path, for_resume=False)
    actor = seat or GM
    if actor != GM and actor not in session.game.actors():
        raise ValueError(f"no such actor in {path} (actors: {', '.join(session.game.actors())}, or gm)")
    names = names_for(session.system, session.observation(actor))
    title = str(getattr(session.scenario.model, "title", "") or session.scenario.id)
    return render_story(events, session.system, fmt, seat=seat, lang=lang, names=names, title=title)
