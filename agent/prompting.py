"""Prompts for LLM seats: jinja2 templates from ``prompts/`` filled only from what the deciding actor may know.

Templates are plain files (``prompts/<system>/<role>.md.j2`` for the roles gm, npc, curse and pc, the system's
``rules.md`` summary and the shared ``prompts/common/*.md.j2``), so designers and researchers edit and version
them without touching code. A role template has two blocks, ``system`` and ``user``: the two messages of the
conversation. Every rendered prompt carries its template id (the path under ``prompts/``) and the sha256 of the
template sources it used; the LLM agent writes both into each logged model call (Inspect's ``prompt_template``).

What goes in (and nothing else): the actor's observation (``decision.observation``, already filtered by the
engine), the decision (kind, rule, prompt, options, bounds, payload schema, context), the rules summary, the
scenario's public setting, and the recent transcript of the seat, cut to a token budget. The transcript is the
engine's (``SeatView.transcript``, ``engine.core.visibility``): this module only renders it and filters nothing.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2
import jinja2.meta
from pydantic import BaseModel

from engine.core.compact import compact_view
from engine.core.decision import Decision, shown_context
from engine.core.events import AnswerEvent, CheckEvent, InfoEvent, NarrationEvent, RevealEvent, RulingEvent, StateEvent
from engine.resources import resource_dir

__all__ = [
    "ROLES",
    "LANGUAGES",
    "PromptLibrary",
    "RenderedPrompt",
    "PromptError",
    "approx_tokens",
    "recent_transcript",
    "has_transcript_line",
    "MIN_TRANSCRIPT_TOKENS",
    "decision_fields",
    "build_prompt",
    "default_library",
]

#: the template roles: the GM, an NPC, a formed curse, a PC
ROLES = ("gm", "npc", "curse", "pc")
#: narration languages the templates know
LANGUAGES = ("ja", "en")
_LINE_MAX = 600  # characters of one transcript line (a long scene text is cut, the newest lines matter most)
_AGENT_TOPICS = frozenset({"fallback"})  # the table's own notices are not part of the fiction


class PromptError(RuntimeError):
    """A template is missing or does not render (a designer's error: it names the file)."""


#: what the estimate counts: an ASCII word, or a run of up to three digits (a token each, about)
_WORD = re.compile(r"[A-Za-z]+|[0-9]{1,3}")


def approx_tokens(text: str) -> int:
    """Token estimate for a hosted model's byte-pair vocabulary when its tokenizer is not at hand (``agent.tokens``
    has it for OpenAI's models with the ``tokens`` extra): 1.15 a token per ASCII word or run of up to three digits,
    0.84 per ASCII punctuation mark and 0.87 per other character (kana, kanji, 「」), fitted on 600 texts — the
    samples' default prompts in both languages (narration, JSON tables) and the prompt, scenario and doc files —
    against o200k_base (gpt-4o-mini's tokenizer): prompts within -11 % to +8 % of its count, prose within -23 % to
    +33 %. An estimate, rounded up."""
    words = len(_WORD.findall(text))
    punct = other = 0
    for ch in text:
        if ord(ch) >= 128:
            other += 1
        elif not ch.isalnum() and not ch.isspace():
            punct += 1
    return math.ceil(1.15 * words + 0.84 * punct + 0.87 * other)


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _j(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "), default=str)


@dataclass(frozen=True)
class RenderedPrompt:
    messages: list[dict[str, str]]
    template_id: str
    template_hash: str
    #: every template source used (role template, includes, rules summary): id -> sha256
    templates: dict[str, str]
    transcript_tokens: int = 0
    transcript_lines: int = 0
    #: the prompt was compacted to fit ``max_prompt_tokens``
    compacted: bool = False
    #: the compacted prompt was still too long for the model's window (``window_tokens``) and was cut further:
    #: no transcript, the sheets cut short, then the option labels shortened, then ids only
    fitted: bool = False


class _TrackingLoader(jinja2.FileSystemLoader):
    """A file loader that remembers the sha256 of every source it hands out (includes too)."""

    def __init__(self, root: Path):
        super().__init__(str(root), encoding="utf-8")
        self.hashes: dict[str, str] = {}

    def get_source(self, environment: jinja2.Environment, template: str) -> tuple[str, str, Callable[[], bool]]:
        source, filename, uptodate = super().get_source(environment, template)
        self.hashes[template] = _sha256(source)
        return source, filename, uptodate


class PromptLibrary:
    """The templates under one prompts directory (default: ``engine.resources.resource_dir("prompts")``)."""

    def __init__(self, root: str | Path | None = None):
        self.root = Path(root) if root is not None else resource_dir("prompts")
        self._loader = _TrackingLoader(self.root)
        self.env = jinja2.Environment(
            loader=self._loader,
            undefined=jinja2.StrictUndefined,
            autoescape=False,
            trim_blocks=True,
            lstrip_blocks=True,
            keep_trailing_newline=False,
        )
        self.env.filters["tojson"] = _j
        self._texts: dict[str, tuple[str, str]] = {}
        self._deps: dict[str, tuple[str, ...]] = {}

    # -- files ---------------------------------------------------------------------------------------------------
    def role_template_id(self, system: str, role: str, roles: Sequence[str] = ROLES) -> str:
        """``<system>/<role>.md.j2``; ``roles``: the system's prompt roles (``SystemInfo.prompt_roles``)."""
        if role not in roles:
            raise PromptError(f"unknown prompt role {role!r}; known: {', '.join(roles)}")
        return f"{system}/{role}.md.j2"

    def text(self, template_id: str) -> tuple[str, str]:
        """A plain (non-template) file such as ``<system>/rules.md``: (text, sha256)."""
        if template_id not in self._texts:
            p = self.root / template_id
            try:
                text = p.read_text(encoding="utf-8")
            except OSError as e:
                raise PromptError(f"prompt file {p} cannot be read ({e.strerror or e})") from None
            self._texts[template_id] = (text.strip(), _sha256(text))
        return self._texts[template_id]

    def rules_id(self, system: str, language: str) -> str:
        """``rules.<lang>.md`` when it exists, else ``rules.md`` (written in the system's own language)."""
        if language != "ja" and (self.root / system / f"rules.{language}.md").is_file():
            return f"{system}/rules.{language}.md"
        return f"{system}/rules.md"

    def template_hash(self, template_id: str) -> str:
        self.env.get_template(template_id)  # loads it (and records its hash)
        return self._loader.hashes[template_id]

    # -- rendering -----------------------------------------------------------------------------------------------
    def _render_block(self, template: jinja2.Template, block: str, fields: Mapping[str, Any]) -> str:
        fn = template.blocks.get(block)
        if fn is None:
            raise PromptError(f"prompt template {template.name} has no {{% block {block} %}}")
        return "".join(fn(template.new_context(dict(fields)))).strip()

    def render(self, template_id: str, fields: Mapping[str, Any], blocks: Sequence[str] = ("system", "user")) -> tuple[list[str], dict[str, str]]:
        """Render the named blocks; returns the texts and the hashes of every template source used."""
        try:
            template = self.env.get_template(template_id)
            texts = [self._render_block(template, b, fields) for b in blocks]
            used = self.dependencies(template_id)
        except jinja2.TemplateNotFound as e:
            raise PromptError(f"prompt template {e.name} not found under {self.root}") from None
        except jinja2.TemplateError as e:
            lineno = getattr(e, "lineno", None)
            where = f"{getattr(e, 'filename', None) or template_id}" + (f", line {lineno}" if lineno else "")
            raise PromptError(f"prompt template {where}: {e}") from None
        return texts, {t: self._loader.hashes[t] for t in used}

    def dependencies(self, template_id: str) -> tuple[str, ...]:
        """The template and every template it includes, extends or imports (static names), sorted."""
        deps = self._deps.get(template_id)
        if deps is None:
            seen: set[str] = set()
            stack = [template_id]
            while stack:
                t = stack.pop()
                if t in seen:
                    continue
                seen.add(t)
                source, _, _ = self._loader.get_source(self.env, t)
                stack += [r for r in jinja2.meta.find_referenced_templates(self.env.parse(source)) if r]
            deps = self._deps[template_id] = tuple(sorted(seen))
        return deps

    def render_text(self, template_id: str, fields: Mapping[str, Any]) -> tuple[str, str]:
        """A one-piece template (e.g. the re-ask message): (text, sha256)."""
        try:
            text = self.env.get_template(template_id).render(**fields).strip()
        except jinja2.TemplateNotFound as e:
            raise PromptError(f"prompt template {e.name} not found under {self.root}") from None
        except jinja2.TemplateError as e:
            raise PromptError(f"prompt template {template_id}: {e}") from None
        return text, self._loader.hashes[template_id]


_DEFAULT: PromptLibrary | None = None


def default_library() -> PromptLibrary:
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = PromptLibrary()
    return _DEFAULT


# -- the decision ----------------------------------------------------------------------------------------------------
def decision_fields(decision: Decision, schema: Mapping[str, Any] | None = None, language: str = "en") -> dict[str, Any]:
    """The decision as template fields: kind, rule, prompt, options (id + label; a long list's families grouped,
    ``shown_options``), bounds, payload schema, context."""
    if decision.payload_model is not None:
        shape = "payload"
    elif decision.pick is not None:
        shape = "many"
    else:
        shape = "one"
    shown = shown_context(decision.context)  # without what the observation says already
    payload_schema = (schema or {}).get("properties", {}).get("payload") if schema else None
    if payload_schema is None and decision.payload_model is not None:
        payload_schema = decision.payload_schema()
    return {
        "seq": decision.seq,
        "actor": decision.actor,
        "kind": decision.kind,
        "rule": decision.rule,
        "prompt": decision.prompt,
        "shape": shape,
        "options": shown_options([{"id": o.id, "label": o.label} for o in decision.options or ()], language),
        "pick": list(decision.pick) if decision.pick is not None else None,
        "payload_schema_json": _j(payload_schema) if payload_schema is not None else "",
        "context": shown,
        "context_json": _j(shown) if shown else "",
        "speech": decision.speech,
    }


#: a list longer than this is shown with its families of options grouped (``shown_options``)
LONG_OPTIONS = 32
#: where a label's common part may end (a grouped label is not cut inside a word or a name)
_LABEL_BOUNDARY = frozenset(" 　「」『』（）()[]【】:：;；、,。・/")


def shown_options(options: list[dict[str, str]], language: str = "en") -> list[dict[str, str]]:
    """A long option list (more than ``LONG_OPTIONS``) with each family shown once: options whose ids differ only
    in their last ``:`` part and whose labels differ only in one place (「フラグメント「F」を <…> に共有する」 for
    every character it could go to) become one line, id ``share:F:<…>``, label the common text with ``<…>`` and
    then each member's id part and its own words; consecutive families with the same members give them once, on
    the first of their lines. Every legal id can still be read off (the reply schema lists them all);
    ラストフラグメント's free action offers each fragment to each character, about 30 tokens an option. A shorter
    list, or an option of no family, is shown as it is."""
    if len(options) <= LONG_OPTIONS:
        return options
    families: dict[str, list[dict[str, str]]] = {}
    for o in options:
        head, sep, tail = o["id"].rpartition(":")
        families.setdefault(head + sep if sep and tail else "\0" + o["id"], []).append(o)
    lines: list[tuple[dict[str, str], str | None]] = []  # (line, its members' text for a family)
    for head, members in families.items():
        fam = _family(head, members) if len(members) >= 3 else None
        if fam is None:
            lines.extend((m, None) for m in members)
        else:
            lines.append(fam)
    out: list[dict[str, str]] = []
    i = 0
    while i < len(lines):
        line, parts = lines[i]
        j = i + 1
        while parts is not None and j < len(lines) and lines[j][1] == parts:
            j += 1
        if parts is None:
            out.append(line)
        else:
            more = j - i - 1
            same = ("" if not more else f"（下の {more} 行も同じ）" if language == "ja"
                    else f" (the same in the {more} lines below)")
            out.append({"id": line["id"], "label": f"{line['label']} — <…>: {parts}{same}"})
            out.extend(lines[k][0] for k in range(i + 1, j))
        i = j
    return out


def _family(head: str, members: list[dict[str, str]]) -> tuple[dict[str, str], str] | None:
    """A family's line (``head<…>``, the labels' common text around ``<…>``) and its members' text, or None when
    the labels do not differ in one place only, or have so little in common that the line is not a third shorter."""
    labels = [m["label"] for m in members]
    pre = os.path.commonprefix(labels)
    while pre and pre[-1] not in _LABEL_BOUNDARY:
        pre = pre[:-1]
    rest = [x[len(pre):] for x in labels]
    suf = os.path.commonprefix([x[::-1] for x in rest])[::-1]
    while suf and suf[0] not in _LABEL_BOUNDARY:
        suf = suf[1:]
    mids = [x[:len(x) - len(suf)] if suf else x for x in rest]
    if not (pre or suf) or not all(m.strip() for m in mids):
        return None
    parts = []
    for m, mid in zip(members, mids):
        tail, mid = m["id"][len(head):], mid.strip()
        parts.append(f"`{tail}`" if mid == tail else f"`{tail}` {mid}")
    text = " | ".join(parts)
    if 3 * (len(head) + len(pre) + len(suf) + len(text)) > 2 * sum(len(m["id"]) + len(m["label"]) for m in members):
        return None  # not a third shorter: the labels have little in common
    return {"id": f"{head}<…>", "label": f"{pre}<…>{suf}"}, text


# -- the transcript ------------------------------------------------------------------------------------------------
_WORDS = {
    "ja": {"check": "判定", "success": "成功", "failure": "失敗", "ach": "達成値", "you": "あなた", "said": "発言",
           "declare": "宣言", "chose": "選択", "ruling": "裁定", "approve": "承認", "reject": "却下",
           "reveal": "公開", "whisper": "あなたにだけ"},
    "en": {"check": "check", "success": "success", "failure": "failure", "ach": "achievement", "you": "you",
           "said": "says", "declare": "declares", "chose": "chose", "ruling": "ruling", "approve": "approved",
           "reject": "refused", "reveal": "revealed", "whisper": "to you only"},
}


def _cut(text: str, limit: int = _LINE_MAX) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _quoted(text: str, limit: int = _LINE_MAX) -> str:
    """Words a seat wrote (speech, a declaration), as one JSON string: its quotes and brackets escaped, on one line,
    so that nothing inside it can close the quote and pass for a transcript line (``[state] ...``)."""
    return json.dumps(_cut(text, limit), ensure_ascii=False)


def _answer_summary(ev: AnswerEvent) -> str:
    if ev.label:
        return ev.label
    a = ev.answer
    if "payload" in a:
        return _j(a["payload"])
    if "choices" in a:
        return ", ".join(map(str, a["choices"])) or "—"
    return str(a.get("choice", ""))


def _line(ev: BaseModel, actor: str, names: Mapping[str, str], w: Mapping[str, str]) -> str | None:
    """One transcript line of an event the seat may see (the engine already chose which)."""
    def name(who: str) -> str:
        return "GM" if who == "gm" else names.get(who, who)

    if isinstance(ev, NarrationEvent):
        if ev.source in ("player", "declare"):  # a seat's own words: quoted so they cannot pass for the transcript
            return f"{name(ev.actor)}（{w['declare']}）: {_quoted(ev.text)}"
        if ev.to is not None and actor != "gm":
            return f"{name(ev.actor)}（{w['whisper']}）: {_cut(ev.text)}"
        return f"{name(ev.actor)}: {_cut(ev.text)}"
    if isinstance(ev, AnswerEvent):
        spoken = ev.answer.get("text")
        said = _quoted(spoken, 300) if isinstance(spoken, str) and spoken else ""
        if not (set(ev.answer) - {"text"}):  # only what was said aloud reached this seat
            return f"{name(ev.actor)} {w['said']}: {said}" if said else None
        who = w["you"] if ev.actor == actor else name(ev.actor)
        note = ev.answer.get("note")
        extra = f"（{_cut(note, 200)}）" if isinstance(note, str) and note else ""
        return f"[{ev.kind}] {who} {w['chose']}: {_cut(_answer_summary(ev), 200)}{extra}" + (f" {said}" if said else "")
    if isinstance(ev, StateEvent):
        return f"[state] {ev.path}: {_cut(_j(ev.old), 120)} → {_cut(_j(ev.new), 120)}"
    if isinstance(ev, CheckEvent):
        parts = []
        for r in ev.rolls:
            res = w["success"] if r.success else w["failure"]
            ach = "?" if r.ach is None else r.ach
            parts.append(f"{name(r.who)} {w['ach']} {ach}" + (f"/{r.target}" if r.target is not None else "")
                         + (f" {res}" if r.success is not None else ""))
        if not parts and ev.result:
            parts.append(ev.result)
        return f"[{w['check']}] {_cut(ev.label or ev.check, 120)}" + (": " + "; ".join(parts) if parts else "")
    if isinstance(ev, RulingEvent):
        verdict = w["approve"] if ev.verdict == "approve" else w["reject"]
        why = f"（{ev.text or ev.reason}）" if ev.verdict == "reject" and (ev.text or ev.reason) else ""
        return f"[{w['ruling']}] {name(ev.by)}: {_cut(ev.subject, 120)} → {verdict}{why}"
    if isinstance(ev, RevealEvent):
        shown = "; ".join(f"{name(a)}: {ev.labels.get(a) or _j(x)}" for a, x in ev.answers.items())
        return f"[{w['reveal']}] {ev.kind}: {_cut(shown, 300)}"
    if isinstance(ev, InfoEvent):
        if ev.topic in _AGENT_TOPICS:
            return None
        return f"[{ev.topic}] {_cut(ev.text)}"
    return None  # rolls (summed up by checks), decisions, phases, model calls, header, end, voids


def _transcript_lines(events: Sequence[BaseModel], actor: str, observation: Mapping[str, Any],
                      language: str) -> Iterator[str]:
    """The lines of the seat's transcript ``events`` for ``actor``, newest first (the setting left out: the system
    message has it)."""
    chars = observation.get("characters") or {}
    names = {cid: str(c.get("name", cid)) for cid, c in chars.items()} if isinstance(chars, Mapping) else {}
    w = _WORDS.get(language, _WORDS["en"])
    scenario = observation.get("scenario") or {}
    setting = scenario.get("setting") if isinstance(scenario, Mapping) else None
    for ev in reversed(events):
        if setting and isinstance(ev, NarrationEvent) and ev.text == setting:
            continue
        line = _line(ev, actor, names, w)
        if line is not None:
            yield line


def recent_transcript(
    events: Sequence[BaseModel],
    actor: str,
    observation: Mapping[str, Any],
    budget_tokens: int,
    *,
    language: str = "ja",
    count_tokens: Callable[[str], int] | None = None,
) -> list[str]:
    """The newest lines of the seat's transcript ``events`` (already what ``actor`` may see), oldest first, within
    ``budget_tokens`` (counted with ``count_tokens``, default ``approx_tokens``)."""
    count = count_tokens or approx_tokens
    out: list[str] = []
    used = 0
    for line in _transcript_lines(events, actor, observation, language):
        cost = count(line) + 1  # the line break and list marker
        if used + cost > budget_tokens:
            break
        out.append(line)
        used += cost
    out.reverse()
    return out


def has_transcript_line(events: Sequence[BaseModel], actor: str, observation: Mapping[str, Any], *,
                        language: str = "ja") -> bool:
    """Whether ``recent_transcript`` would have any line for ``actor`` with an unbounded budget: an empty transcript
    then means lines were left out for the prompt's size, not that nothing has happened yet."""
    return next(_transcript_lines(events, actor, observation, language), None) is not None


# -- the whole prompt ----------------------------------------------------------------------------------------------
def _observation_fields(obs: Mapping[str, Any]) -> dict[str, Any]:
    scenario = obs.get("scenario") or {}
    gm_part = obs.get("gm") or {}
    me = obs.get("me")
    scene = obs.get("scene")
    state = {k: v for k, v in obs.items() if k not in ("scenario", "system", "gm", "me")}
    chars = state.get("characters")
    if isinstance(me, Mapping) and isinstance(chars, Mapping) and me.get("id") in chars:
        # the actor's own sheet is shown once, under "your character"
        state["characters"] = {k: v for k, v in chars.items() if k != me.get("id")}
    gm_rest = {k: v for k, v in gm_part.items() if k not in ("gm_notes", "scene_secret")} if isinstance(gm_part, Mapping) else {}
    return {
        "title": str(scenario.get("title", "")),
        "setting": str(scenario.get("setting", "") or ""),
        "summary": str(scenario.get("summary", "") or ""),
        "objective": str(scenario.get("objective", "") or ""),
        "scene": scene,
        "me": me,
        "me_json": _j(me) if me is not None else "",
        "state_json": _j(state),
        "gm_notes": str(gm_part.get("gm_notes", "") or "") if isinstance(gm_part, Mapping) else "",
        "scene_secret": str(gm_part.get("scene_secret", "") or "") if isinstance(gm_part, Mapping) else "",
        "gm_state_json": _j(gm_rest) if gm_rest else "",
    }


#: the system message's long texts when prompts are capped (``max_prompt_tokens``): cut the same way for every
#: decision, so that the message stays the same all session long
_PREFIX_CUT = {"setting": 200, "summary": 150, "gm_notes": 500}
#: the user message's long texts when a capped prompt is compacted
_COMPACT_CUT = {"scene_secret": 150}
#: the room a compacted prompt still gives the recent transcript when its other parts alone fill
#: ``max_prompt_tokens`` (within the model's window, when one is given): the seat sees at least the last few events
#: instead of none (the 3,100-token ブラッドベリー GM prompts of ``--llm local`` had no transcript at all)
MIN_TRANSCRIPT_TOKENS = 200
#: what is left of the user message's long fields when even the compacted prompt does not fit the model's window
#: (``window_tokens``)
_FIT_CUT = {"scene_secret": 80, "state_json": 600, "me_json": 900, "gm_state_json": 300}
#: and of the system message's, as the last step (the only one that changes the seat's stable prefix)
_FIT_CUT_PREFIX = {"setting": 80, "summary": 80, "gm_notes": 240}
#: the option labels' length in the steps after that (0: ids only, -1: ids grouped by their last part); the reply
#: schema lists every legal id (a structured-output server holds the reply to them), the prompt only explains them
_FIT_LABELS = (40, 12, 0, -1)


def _grouped(options: list[dict[str, str]]) -> list[dict[str, str]]:
    """Options whose ids differ only in their last ``:`` part, as one line each (``share:f_map:<…>`` with the
    parts listed), in the order of their first option; other options as ids alone."""
    groups: dict[str, list[str]] = {}
    for o in options:
        head, sep, tail = o["id"].rpartition(":")
        groups.setdefault(head + sep if sep else o["id"], []).append(tail if sep else "")
    out = []
    for head, tails in groups.items():
        if len(tails) > 1 and all(tails):
            out.append({"id": f"{head}<…>", "label": "<…> = " + " | ".join(tails)})
        else:
            out.extend({"id": head + t if t else head, "label": "…"} for t in tails)
    return out


def _generic_compact(obs: Mapping[str, Any]) -> dict[str, Any]:
    """A lean observation for a system that declares none (``SystemInfo.compact_observation``)."""
    def character(c: Mapping[str, Any], mine: bool) -> Any:
        return dict(c) if mine else {k: c[k] for k in ("name", "status") if k in c}

    return compact_view(obs, character)


def _lean(obs: Mapping[str, Any], compact: Callable[[Mapping[str, Any]], dict[str, Any]], keep: Sequence[str]) -> dict[str, Any]:
    """The system's lean observation of ``obs`` with the keys ``keep`` (the actor's own sheet, the GM's part) as they
    are in ``obs``."""
    lean = compact(obs)
    for key in keep:
        if key in obs:
            lean[key] = obs[key]
    return lean


def build_prompt(
    decision: Decision,
    events: Iterable[BaseModel],
    *,
    system: str,
    role: str,
    schema: Mapping[str, Any],
    speaks: bool,
    language: str = "ja",
    budget_tokens: int = 1000,
    library: PromptLibrary | None = None,
    observation: Mapping[str, Any] | None = None,
    max_prompt_tokens: int | None = None,
    count_tokens: Callable[[str], int] | None = None,
    compact_observation: Callable[[Mapping[str, Any]], dict[str, Any]] | None = None,
    roles: Sequence[str] = ROLES,
    window_tokens: int | None = None,
    full_observation: bool = False,
) -> RenderedPrompt:
    """Render the two messages (system, user) for ``decision`` as seen by its actor.

    The system message (the role's instructions, the rules summary, the scenario; for the GM its notes) is the same
    for every decision of a seat, all session long: a stable prefix, so that a provider's prompt cache holds it and
    only the user message (transcript, table, decision) is new per call. The table is the system's lean
    observation (``SystemInfo.compact_observation``, passed as ``compact_observation``) with the actor's own sheet
    and the GM's part in full; ``full_observation`` gives the whole observation instead.

    ``budget_tokens`` bounds the recent transcript. ``max_prompt_tokens`` (for small context windows) bounds the
    whole prompt: with it the system message is the compact one for every decision (no rules summary, long texts
    cut), and a prompt still over it is compacted (the lean sheet of the actor too, the context cut) with the
    transcript given the room that is left, but at least ``MIN_TRANSCRIPT_TOKENS`` (as far as the window holds
    them). A transcript left empty for the prompt's size says so, not that nothing has happened yet. Tokens are
    counted with ``count_tokens``: by default ``approx_tokens`` (an estimate); ``--llm local`` passes the served
    model's own tokenizer.

    ``window_tokens`` is what the model's context window holds for the prompt (the window less the reply): a
    prompt over it would be refused by the server, so when even the compacted prompt is longer it is cut further,
    step by step until it fits — no transcript and the sheets and state cut short, then option labels shortened,
    then option ids alone (the ids are what the answer must copy; the engine still checks it), and only as the last
    step the scenario texts of the system message. ``fitted`` says so.
    """
    count = count_tokens or approx_tokens
    lib = library or default_library()
    if language not in LANGUAGES:
        raise PromptError(f"unknown narration language {language!r}; known: {', '.join(LANGUAGES)}")
    obs = observation if observation is not None else decision.observation
    compact = compact_observation or _generic_compact
    template_id = lib.role_template_id(system, role, roles)
    rules_id = lib.rules_id(system, language)
    rules, rules_hash = lib.text(rules_id)
    evs = events if isinstance(events, Sequence) else list(events)
    capped = max_prompt_tokens is not None
    base: dict[str, Any] = {
        "language": language,
        "role": role,
        "actor": decision.actor,
        "rules": "" if capped else rules,
        "compact": capped,
        "decision": decision_fields(decision, schema, language),
        "schema_json": _j(schema),
        "speaks": speaks,
        "say_max": int(schema.get("properties", {}).get("say", {}).get("maxLength", 300)),
    }
    full = _observation_fields(obs)
    # the system message's fields, the same for every decision of the seat (``me`` is read there for the name and
    # who the character is; the sheet the user message shows is ``me_json``)
    prefix = {k: full[k] for k in ("title", "setting", "summary", "objective", "gm_notes", "me")}
    if capped:
        for key, limit in _PREFIX_CUT.items():
            prefix[key] = _cut(prefix[key], limit) if prefix[key] else ""

    def table(view: Mapping[str, Any]) -> dict[str, Any]:
        return {**base, **_observation_fields(view), **prefix}

    @functools.cache
    def any_line() -> bool:  # whether the seat has any transcript line at all (asked once, when one is left empty)
        return has_transcript_line(evs, decision.actor, obs, language=language)

    def left_out(transcript: list[str]) -> bool:
        return not transcript and any_line()

    def render(fields: dict[str, Any], transcript: list[str]) -> tuple[list[str], dict[str, str]]:
        # an empty transcript says whether nothing has happened yet or the lines were left out for the prompt's size
        return lib.render(template_id, {**fields, "transcript": transcript, "transcript_left_out": left_out(transcript)})

    def size(texts: list[str]) -> int:
        return sum(count(t) for t in texts)

    fields = table(obs if full_observation else _lean(obs, compact, ("me", "gm")))
    transcript = recent_transcript(evs, decision.actor, obs, budget_tokens, language=language, count_tokens=count)
    texts, hashes = render(fields, transcript)
    compacted = False
    if max_prompt_tokens is not None and size(texts) > max_prompt_tokens:
        compacted = True
        fields = table(compact(obs))
        for key, limit in _COMPACT_CUT.items():
            fields[key] = _cut(fields[key], limit) if fields[key] else ""
        d = dict(base["decision"])
        d["context_json"] = _cut(d["context_json"], 300) if d["context_json"] else ""
        fields["decision"] = d
        fixed = size(render(fields, [])[0])
        floor = MIN_TRANSCRIPT_TOKENS if window_tokens is None else max(0, min(MIN_TRANSCRIPT_TOKENS, window_tokens - fixed))
        room = max(0, min(budget_tokens, max(max_prompt_tokens - fixed, floor)))
        transcript = recent_transcript(evs, decision.actor, obs, room, language=language, count_tokens=count)
        texts, hashes = render(fields, transcript)
    fitted = False
    if window_tokens is not None and size(texts) > window_tokens:
        if not compacted:  # first the ordinary compaction, with the window as the bound
            return build_prompt(decision, evs, system=system, role=role, schema=schema, speaks=speaks,
                                language=language, budget_tokens=budget_tokens, library=lib, observation=obs,
                                max_prompt_tokens=window_tokens, count_tokens=count,
                                compact_observation=compact_observation, roles=roles, window_tokens=window_tokens,
                                full_observation=full_observation)
        fitted = True
        transcript = []
        for key, limit in _FIT_CUT.items():
            fields[key] = _cut(fields[key], limit) if fields[key] else ""
        texts, hashes = render(fields, transcript)
        options = fields["decision"]["options"]
        for limit in _FIT_LABELS:
            if size(texts) <= window_tokens or not options:
                break
            d = dict(fields["decision"])
            d["options"] = _grouped(options) if limit < 0 else \
                [{"id": o["id"], "label": _cut(o["label"], limit) if limit else "…"} for o in options]
            fields["decision"] = d
            texts, hashes = render(fields, transcript)
        if size(texts) > window_tokens:
            for key, limit in _FIT_CUT_PREFIX.items():
                fields[key] = _cut(fields[key], limit) if fields[key] else ""
            texts, hashes = render(fields, transcript)
    if not capped:
        hashes = {**hashes, rules_id: rules_hash}
    sys_text, user_text = texts
    return RenderedPrompt(
        messages=[{"role": "system", "content": sys_text}, {"role": "user", "content": user_text}],
        template_id=template_id,
        template_hash=hashes[template_id],
        templates=dict(sorted(hashes.items())),
        transcript_tokens=sum(count(x) + 1 for x in transcript),
        transcript_lines=len(transcript),
        compacted=compacted,
        fitted=fitted,
    )
