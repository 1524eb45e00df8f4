"""Prompts for LLM seats: jinja2 templates from ``prompts/`` filled only from what the deciding actor may know.

Templates are plain files (``prompts/<system>/<role>.md.j2`` for the roles gm, npc, curse and pc, the system's
``rules.md`` summary and the shared ``prompts/common/*.md.j2``), so designers and researchers edit and version
them without touching code. A role template has two blocks, ``system`` and ``user``: the two messages of the
conversation. Every rendered prompt carries its template id (the path under ``prompts/``) and the sha256 of the
template sources it used; the LLM agent writes both into each logged model call (Inspect's ``prompt_template``).

What goes in (and nothing else): the actor's observation (``decision.observation``, already filtered by the
engine), the decision (kind, rule, prompt, options, bounds, payload schema, context), the rules summary, the
scenario's public setting, and the recent transcript that this actor could have seen, cut to a token budget. The
transcript filter mirrors the observation rules: narration and public events for everyone, an actor's own answers,
other actors' spoken lines, never another actor's private data; the GM sees everything.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2
import jinja2.meta
from pydantic import BaseModel

from engine.core.decision import Decision, plain
from engine.core.events import AnswerEvent, CheckEvent, InfoEvent, NarrationEvent, StateEvent
from engine.resources import resource_dir

__all__ = [
    "ROLES",
    "LANGUAGES",
    "PromptLibrary",
    "RenderedPrompt",
    "PromptError",
    "approx_tokens",
    "recent_transcript",
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
_GM_ONLY_TOPICS = frozenset({"scene_skipped"})  # names scenes the players never saw
#: another character's fields that its snapshot shows to everyone (engine/systems/bloodberry/state.py Char.snap,
#: engine/systems/yogaribito/state.py Character.snap)
_PUBLIC_CHAR_FIELDS = frozenset({
    "passion", "grace", "maturity", "doubt", "malice", "anxiety", "abilities", "willpower", "status", "skill", "sheet",
    "has_key", "foam_bonus", "no_relation_until", "absent_sessions", "hosted_by",
    # 夜狩り人
    "mind", "tech", "body", "life", "soul", "luck", "wealth", "kagaribi", "bullets", "base", "items", "feats",
    "statuses", "awakened", "incapacitated", "dead", "doomed", "flying", "legs_broken", "blockading", "psychic_focus",
    "in_scene", "delaying", "slots_usable", "sealed_item",
})
_PUBLIC_TABLE_PATHS = frozenset({"clock", "clues", "camp"})


class PromptError(RuntimeError):
    """A template is missing or does not render (a designer's error: it names the file)."""


def approx_tokens(text: str) -> int:
    """Token estimate for Japanese-heavy text: about two characters per token."""
    return math.ceil(len(text) / 2)


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
    def role_template_id(self, system: str, role: str) -> str:
        if role not in ROLES:
            raise PromptError(f"unknown prompt role {role!r}; known: {', '.join(ROLES)}")
        return f"{system}/{role}.md.j2"

    def text(self, template_id: str) -> tuple[str, str]:
        """A plain (non-template) file such as ``bloodberry/rules.md``: (text, sha256)."""
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
def decision_fields(decision: Decision, schema: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The decision as template fields: kind, rule, prompt, options (id + label), bounds, payload schema, context."""
    if decision.payload_model is not None:
        shape = "payload"
    elif decision.pick is not None:
        shape = "many"
    else:
        shape = "one"
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
        "options": [{"id": o.id, "label": o.label} for o in decision.options or ()],
        "pick": list(decision.pick) if decision.pick is not None else None,
        "payload_schema_json": _j(payload_schema) if payload_schema is not None else "",
        "context": plain(decision.context),
        "context_json": _j(plain(decision.context)) if decision.context else "",
        "speech": decision.speech,
    }


# -- the transcript ------------------------------------------------------------------------------------------------
_WORDS = {
    "ja": {"check": "判定", "success": "成功", "failure": "失敗", "ach": "達成値", "you": "あなた", "said": "発言",
           "declare": "宣言", "chose": "選択"},
    "en": {"check": "check", "success": "success", "failure": "failure", "ach": "achievement", "you": "you",
           "said": "says", "declare": "declares", "chose": "chose"},
}


def _cut(text: str, limit: int = _LINE_MAX) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _state_visible(path: str, actor: str, kinds: Mapping[str, str]) -> bool:
    """Whether a non-GM ``actor`` may see a state change (mirrors ``observation``: whitelist, unknown = hidden)."""
    head, _, rest = path.partition(".")
    if head in _PUBLIC_TABLE_PATHS:
        return True
    if head == "relation":
        pair = rest.split(".", 1)[0].split("|")
        return actor in pair or (len(pair) == 2 and all(kinds.get(p) == "pc" for p in pair))
    if head in kinds:
        if head == actor:
            return True
        field_name = re.split(r"[.\[]", rest, maxsplit=1)[0]
        return field_name in _PUBLIC_CHAR_FIELDS
    return False  # flags, 破魔 bookkeeping and anything new: GM only until someone decides otherwise


def _answer_summary(ev: AnswerEvent) -> str:
    if ev.label:
        return ev.label
    a = ev.answer
    if "payload" in a:
        return _j(a["payload"])
    if "choices" in a:
        return ", ".join(map(str, a["choices"])) or "—"
    return str(a.get("choice", ""))


def _line(ev: BaseModel, actor: str, gm: bool, names: Mapping[str, str], kinds: Mapping[str, str], w: Mapping[str, str]) -> str | None:
    def name(who: str) -> str:
        return "GM" if who == "gm" else names.get(who, who)

    if isinstance(ev, NarrationEvent):
        if ev.source in ("player", "declare"):
            return f"{name(ev.actor)}（{w['declare']}）: {_cut(ev.text)}"
        return f"{name(ev.actor)}: {_cut(ev.text)}"
    if isinstance(ev, AnswerEvent):
        spoken = ev.answer.get("text")
        said = f"「{_cut(spoken, 300)}」" if isinstance(spoken, str) and spoken else ""
        if gm or ev.actor == actor:
            who = w["you"] if ev.actor == actor else name(ev.actor)
            return f"[{ev.kind}] {who} {w['chose']}: {_cut(_answer_summary(ev), 200)}" + (f" {said}" if said else "")
        return f"{name(ev.actor)} {w['said']}: {said}" if said else None
    if isinstance(ev, StateEvent):
        if not gm and not _state_visible(ev.path, actor, kinds):
            return None
        return f"[state] {ev.path}: {_cut(_j(ev.old), 120)} → {_cut(_j(ev.new), 120)}"
    if isinstance(ev, CheckEvent):
        rollers = ev.data.get("rollers") or []
        parts = []
        for r in rollers if isinstance(rollers, list) else []:
            if not isinstance(r, Mapping):
                continue
            thr = r.get("threshold")
            res = w["success"] if r.get("success") else w["failure"]
            parts.append(f"{name(str(r.get('who', '?')))} {w['ach']} {r.get('ach', '?')}" + (f"/{thr}" if thr is not None else "") + f" {res}")
        return f"[{w['check']}] {_cut(str(ev.data.get('label', ev.check)), 120)}: " + "; ".join(parts)
    if isinstance(ev, InfoEvent):
        if ev.topic in _AGENT_TOPICS or (not gm and ev.topic in _GM_ONLY_TOPICS):
            return None
        return f"[{ev.topic}] {_cut(ev.text)}"
    return None  # rolls (summed up by checks), decisions, phases, model calls, header, end


def recent_transcript(
    events: Sequence[BaseModel],
    actor: str,
    observation: Mapping[str, Any],
    budget_tokens: int,
    *,
    language: str = "ja",
    count_tokens: Callable[[str], int] | None = None,
) -> list[str]:
    """The newest transcript lines ``actor`` could have seen, oldest first, within ``budget_tokens`` (counted with
    ``count_tokens``, default ``approx_tokens``)."""
    count = count_tokens or approx_tokens
    gm = actor == "gm"
    chars = observation.get("characters") or {}
    names = {cid: str(c.get("name", cid)) for cid, c in chars.items()} if isinstance(chars, Mapping) else {}
    kinds = {cid: str(c.get("kind", "")) for cid, c in chars.items()} if isinstance(chars, Mapping) else {}
    w = _WORDS.get(language, _WORDS["en"])
    scenario = observation.get("scenario") or {}
    setting = scenario.get("setting") if isinstance(scenario, Mapping) else None
    out: list[str] = []
    used = 0
    for ev in reversed(events):
        if setting and isinstance(ev, NarrationEvent) and ev.text == setting:
            continue  # the setting is in the system message already
        line = _line(ev, actor, gm, names, kinds, w)
        if line is None:
            continue
        cost = count(line) + 1  # the line break and list marker
        if used + cost > budget_tokens:
            break
        out.append(line)
        used += cost
    out.reverse()
    return out


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


_COMPACT_CUT = {"setting": 200, "summary": 150, "gm_notes": 500, "scene_secret": 150}


def _short_name(name: Any) -> str:
    """七瀬 葵（ななせ あおい） -> 七瀬 葵: the reading adds nothing for a model."""
    return str(name).split("（", 1)[0].split("(", 1)[0].strip() or str(name)


def _compact_observation(obs: Mapping[str, Any]) -> dict[str, Any]:
    """The observation without long texts and bookkeeping, for small context windows."""
    def char(c: Any, mine: bool) -> Any:
        if not isinstance(c, Mapping):
            return c
        if "current" in c:  # 夜狩り人: values current/base, statuses and what is true of the character
            cur, base = c.get("current") or {}, c.get("base") or {}
            out_y: dict[str, Any] = {"name": _short_name(c.get("name", "")), "side": c.get("side")}
            out_y["values"] = {k: (f"{v}/{base[k]}" if k in ("life", "soul") and k in base else v)
                               for k, v in cur.items()}
            if c.get("statuses"):
                out_y["statuses"] = list(c["statuses"])
            flags = [k for k in ("dead", "incapacitated", "awakened", "flying", "legs_broken") if c.get(k)]
            if flags:
                out_y["flags"] = flags
            if mine:
                out_y["class"] = [c.get("main_class"), c.get("sub_class")]
                out_y["feats"] = list(c.get("feats") or [])
                out_y["items"] = [i.get("item") if isinstance(i, Mapping) else i for i in c.get("items") or []]
            return out_y
        out: dict[str, Any] = {"name": _short_name(c.get("name", "")), "status": c.get("status"),
                               "abilities": c.get("abilities")}
        if c.get("kind") == "curse":
            out["kind"] = "curse"
        if mine:
            out.update({k: c[k] for k in ("willpower", "skills", "emotions") if k in c})
            out["victory"] = [v.get("text") for v in c.get("victory") or [] if isinstance(v, Mapping)]
            if c.get("profile"):
                out["profile"] = _cut(str(c["profile"]), 120)
        return out

    out: dict[str, Any] = {k: v for k, v in obs.items() if k in ("scenario", "phase", "camp_strength")}
    bf = obs.get("battlefield")
    if isinstance(bf, Mapping):
        out["battlefield"] = {k: bf[k] for k in ("engagements", "round", "order") if k in bf}
    gm_part = obs.get("gm")
    if isinstance(gm_part, Mapping):
        out["gm"] = {k: gm_part[k] for k in ("gm_notes", "scene_secret", "flags") if k in gm_part}
    chars = obs.get("characters")
    if isinstance(chars, Mapping):
        out["characters"] = {cid: char(c, False) for cid, c in chars.items()
                             if not isinstance(c, Mapping) or c.get("status") not in ("vanished", "absent")}
    rels = obs.get("relations")
    if isinstance(rels, list):
        out["relations"] = {"|".join(r["between"]): r.get("strength") for r in rels if isinstance(r, Mapping) and "between" in r}
    scene = obs.get("scene")
    if isinstance(scene, Mapping):
        out["scene"] = {k: scene[k] for k in ("title", "participants", "scene_actors", "npcs", "present", "time_of_day",
                                              "tags") if k in scene}
    if obs.get("clues"):
        out["clues"] = [_cut(str(c), 60) for c in obs["clues"][-3:]]
    if "me" in obs:
        out["me"] = char(obs["me"], True)
    return out


def build_prompt(
    decision: Decision,
    events: Iterable[BaseModel],
    *,
    system: str,
    role: str,
    schema: Mapping[str, Any],
    speaks: bool,
    language: str = "ja",
    budget_tokens: int = 3000,
    library: PromptLibrary | None = None,
    observation: Mapping[str, Any] | None = None,
    max_prompt_tokens: int | None = None,
    count_tokens: Callable[[str], int] | None = None,
) -> RenderedPrompt:
    """Render the two messages (system, user) for ``decision`` as seen by its actor.

    ``budget_tokens`` bounds the recent transcript. ``max_prompt_tokens`` (for small context windows) bounds the
    whole prompt: when it is exceeded the prompt is compacted (no rules summary, long texts cut, a lean
    observation) and the transcript gets only the room that is left. Tokens are counted with ``count_tokens``:
    by default ``approx_tokens`` (an estimate); ``--llm local`` passes the served model's own tokenizer.
    """
    count = count_tokens or approx_tokens
    lib = library or default_library()
    if language not in LANGUAGES:
        raise PromptError(f"unknown narration language {language!r}; known: {', '.join(LANGUAGES)}")
    obs = observation if observation is not None else decision.observation
    template_id = lib.role_template_id(system, role)
    rules_id = lib.rules_id(system, language)
    rules, rules_hash = lib.text(rules_id)
    evs = events if isinstance(events, Sequence) else list(events)
    base: dict[str, Any] = {
        "language": language,
        "role": role,
        "actor": decision.actor,
        "rules": rules,
        "compact": False,
        "decision": decision_fields(decision, schema),
        "schema_json": _j(schema),
        "speaks": speaks,
        "say_max": int(schema.get("properties", {}).get("say", {}).get("maxLength", 300)),
    }

    def render(fields: dict[str, Any], transcript: list[str]) -> tuple[list[str], dict[str, str]]:
        return lib.render(template_id, {**fields, "transcript": transcript})

    def size(texts: list[str]) -> int:
        return sum(count(t) for t in texts)

    fields = {**base, **_observation_fields(obs)}
    transcript = recent_transcript(evs, decision.actor, obs, budget_tokens, language=language, count_tokens=count)
    texts, hashes = render(fields, transcript)
    compacted = False
    if max_prompt_tokens is not None and size(texts) > max_prompt_tokens:
        compacted = True
        fields = {**base, "rules": "", "compact": True, **_observation_fields(_compact_observation(obs))}
        for key, limit in _COMPACT_CUT.items():
            fields[key] = _cut(fields[key], limit) if fields[key] else ""
        d = dict(base["decision"])
        d["context_json"] = _cut(d["context_json"], 300) if d["context_json"] else ""
        fields["decision"] = d
        fixed = size(render(fields, [])[0])
        room = max(0, min(budget_tokens, max_prompt_tokens - fixed))
        transcript = recent_transcript(evs, decision.actor, obs, room, language=language, count_tokens=count)
        texts, hashes = render(fields, transcript)
    if not compacted:
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
    )
