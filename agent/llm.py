"""LLM-backed seats: a model answers the engine's decisions through one structured-output exchange per decision.

Per decision the agent renders the role's prompt (``agent.prompting``), sends it with a hand-built reply schema
(an object envelope: ``choice`` / ``choices`` / ``payload`` plus an optional ``say``; plain JSON Schema, no
``oneOf``, so OpenAI strict mode, vLLM, Ollama and llama.cpp all take it), parses the reply leniently and lets the
engine judge it with ``Decision.check``. A refused or unreadable reply is re-asked with the engine's exact message
(pydantic-ai's output retries), at most ``max_reasks`` times; then the scripted policy answers and a ``fallback``
notice is logged. A transport failure (``ModelError``) falls back at once. Every exchange is logged as a
``model_call`` event before the answer reaches the session, so a log shows what the model saw and said, and replay
re-inserts those events untouched.

Some decisions never reach the model:

- a decision with exactly one legal option and nothing to say (the answer is forced; logged with policy ``forced``);
- the system's mechanical reaction windows (``SystemInfo.reaction_kinds``: reroll, concede, ...) when the agent
  is built with ``reactions="scripted"``; the scripted policy answers them (policy ``scripted``);
- every decision while the circuit breaker is open: after ``breaker_threshold`` consecutive transport failures
  the endpoint is left alone for ``breaker_cooldown`` seconds (the scripted policy answers, one warning), then one
  call probes it again. An unreachable endpoint thus costs a few seconds per session, not its retry budget per
  decision.
"""

from __future__ import annotations

import json
import re
import statistics
import sys
import time
import weakref
from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from engine.core.decision import NOTE_MAX, Answer, Decision, IllegalAnswer
from engine.core.events import ModelCallEvent
from engine.core.standing import DEFAULT, declared_kinds

from .models.base import Model, ModelError, ModelReply, ModelRequest, OutputMode
from .prompting import PromptLibrary, RenderedPrompt, approx_tokens, build_prompt, default_library
from .table import GiveUp

if TYPE_CHECKING:
    from engine.core.seat import SeatView

__all__ = [
    "REACTIONS",
    "LLMAgent",
    "RenderOnly",
    "PolicyAnswer",
    "ParsedReply",
    "reply_schema",
    "strict_schema",
    "parse_reply",
    "speaks",
    "role_for",
    "format_summary",
    "CircuitBreaker",
    "SAY_MAX",
]

#: who answers the mechanical reaction windows of an LLM seat (``LLMAgent(reactions=...)``, ``--llm-reactions``)
REACTIONS = ("standing", "scripted", "llm")

#: longest "say" text (speech / narration) a model may attach to an answer
SAY_MAX = 300
_REASK_TEMPLATE = "common/reask.md.j2"
_CHOICE_ALIASES = ("choice", "answer", "option", "id", "option_id")


@dataclass(frozen=True, slots=True)
class PolicyAnswer(Answer):  # noqa: D101
    """An answer that names the policy that produced it: the table logs ``policy`` instead of the agent's name
    (the scripted policy's answer after an LLM fallback is logged as ``scripted``)."""

    policy: str = ""


# -- the reply schema ------------------------------------------------------------------------------------------------
def speaks(decision: Decision, role: str, spec: Any = None) -> bool:
    """Whether the reply may carry ``say``: the GM always; others when the decision asks for speech or the system's
    decision table expects it (``DecisionSpec.speech``: a declaration)."""
    return role == "gm" or decision.speech or bool(getattr(spec, "speech", False))


_ALTERNATION = re.compile(r"^\^?\(?((?:[A-Za-z0-9_\-]+\|)+[A-Za-z0-9_\-]+)\)?\$?$")


def strict_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """A pydantic JSON schema made portable: ``$defs`` inlined, no ``default``/``title``, every property required
    and no extra ones (OpenAI strict mode), tuples as fixed-length arrays, ``^(a|b)$`` patterns as enums."""
    defs = dict(schema.get("$defs", {}))

    def walk(node: Any) -> Any:
        if isinstance(node, list):
            return [walk(x) for x in node]
        if not isinstance(node, Mapping):
            return node
        if "$ref" in node:
            name = str(node["$ref"]).rsplit("/", 1)[-1]
            merged = {**defs.get(name, {}), **{k: v for k, v in node.items() if k != "$ref"}}
            return walk(merged)
        out: dict[str, Any] = {}
        for k, v in node.items():
            if k in ("$defs", "default", "title"):
                continue
            out[k] = walk(v)
        if "prefixItems" in out:
            items = out.pop("prefixItems")
            uniq = [json.loads(s) for s in dict.fromkeys(json.dumps(i, sort_keys=True) for i in items)]
            out["items"] = uniq[0] if len(uniq) == 1 else {"anyOf": uniq}
            out.setdefault("minItems", len(items))
            out.setdefault("maxItems", len(items))
        pattern = out.get("pattern")
        if out.get("type") == "string" and isinstance(pattern, str):
            m = _ALTERNATION.match(pattern)
            if m:
                out.pop("pattern")
                out["enum"] = m.group(1).split("|")
        if out.get("type") == "object" and "properties" in out:
            out["required"] = list(out["properties"])
            out["additionalProperties"] = False
        return out

    result = walk(schema)
    assert isinstance(result, dict)
    return result


def reply_schema(decision: Decision, *, say: bool) -> dict[str, Any]:
    """The reply envelope for ``decision``: ``choice`` (pick one), ``choices`` (pick many) or ``payload``, and
    ``say`` (string or null) when the role speaks."""
    props: dict[str, Any] = {}
    if decision.payload_model is not None:
        props["payload"] = strict_schema(decision.payload_model.model_json_schema())
    elif decision.pick is not None:
        lo, hi = decision.pick
        props["choices"] = {"type": "array", "items": {"type": "string", "enum": decision.option_ids},
                            "minItems": lo, "maxItems": hi}
    else:
        props["choice"] = {"type": "string", "enum": decision.option_ids}
    if say:
        props["say"] = {"type": ["string", "null"], "maxLength": SAY_MAX,
                        "description": "speech or narration shown to the table; never changes the rules"}
    if decision.notes and decision.payload_model is None:  # options that carry game-relevant words (Answer.note)
        props["note"] = {"type": ["string", "null"], "maxLength": NOTE_MAX,
                         "description": "the words the chosen option carries (a declaration, a reason), or null"}
    return {"type": "object", "properties": props, "required": list(props), "additionalProperties": False}


# -- lenient parsing -----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ParsedReply:
    #: the envelope handed to ``Decision.check`` (None when the reply could not be read)
    answer: dict[str, Any] | None
    #: what the reply decoded to (for the log)
    value: Any = None
    #: why the reply could not be read
    problem: str | None = None


_FENCE = re.compile(r"```[A-Za-z0-9_-]*\s*\n?(.*?)```", re.S)
_NOTHING = object()


def _first_json(text: str) -> Any:
    """The whole text as JSON, else the first JSON object in it; raw newlines inside strings are tolerated."""
    dec = json.JSONDecoder(strict=False)
    try:
        return dec.decode(text)
    except ValueError:
        pass
    start = text.find("{")
    while start != -1:
        try:
            value, _ = dec.raw_decode(text, start)
            return value
        except ValueError:
            start = text.find("{", start + 1)
    return _NOTHING


def _resolve(token: Any, decision: Decision) -> Any:
    """An option id as given, or the id of an option whose label (or id, ignoring case) matches."""
    if not isinstance(token, str):
        if isinstance(token, Mapping) and isinstance(token.get("id"), str):
            return token["id"]
        return token
    t = token.strip().strip("`'\"「」").strip()
    ids = decision.option_ids
    if t in ids:
        return t
    for o in decision.options or ():
        if o.label.strip() == t:
            return o.id
    low = t.lower().rstrip(".")
    for oid in ids:
        if oid.lower() == low:
            return oid
    return token


def _say(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    text = value.strip()
    return text[:SAY_MAX] if text else None


_CHOICE_FIELD = re.compile(r'"choice"\s*:\s*"((?:[^"\\]|\\.)*)"')
_CHOICES_FIELD = re.compile(r'"choices"\s*:\s*\[([^\]]*)\]')


def _salvage(text: str, decision: Decision) -> dict[str, Any] | None:
    """A broken object (cut off by the token limit, or prose inside a string) whose ``choice``/``choices`` field is
    still whole: keep the listed ids, drop the rest (the "say" is lost)."""
    if decision.payload_model is not None:
        return None
    if decision.pick is None:
        m = _CHOICE_FIELD.search(text)
        if m:
            oid = _resolve(m.group(1), decision)
            if oid in decision.option_ids:
                return {"choice": oid}
        return None
    m = _CHOICES_FIELD.search(text)
    if m:
        try:
            items = json.loads(f"[{m.group(1)}]")
        except ValueError:
            return None
        ids = [_resolve(x, decision) for x in items]
        if all(x in decision.option_ids for x in ids):
            return {"choices": ids}
    return None


def parse_reply(text: str | None, decision: Decision, *, say: bool) -> ParsedReply:
    """Read a model's reply as an answer envelope, leniently: code fences stripped, the first JSON object taken,
    raw newlines in strings tolerated, a bare option id or option label accepted, the ``choice`` of an object cut
    off by the token limit kept. Legality is not judged here."""
    raw = (text or "").strip()
    if not raw:
        return ParsedReply(None, None, "the reply was empty; reply with one JSON object")
    fenced = _FENCE.search(raw)
    body = fenced.group(1).strip() if fenced else raw
    value = _first_json(body)
    if value is _NOTHING and fenced:
        value = _first_json(raw)
    if value is _NOTHING:
        salvaged = _salvage(raw, decision)
        if salvaged is not None:
            return ParsedReply(salvaged, None)
        if decision.payload_model is None:
            token = body.strip().strip("`").strip()
            if decision.pick is None:
                resolved = _resolve(token, decision)
                if resolved in decision.option_ids:
                    return ParsedReply({"choice": resolved}, token)
            else:
                parts = [_resolve(p, decision) for p in re.split(r"[,\s]+", token) if p]
                if parts and all(p in decision.option_ids for p in parts):
                    return ParsedReply({"choices": parts}, token)
        return ParsedReply(None, None, f"the reply is not JSON: {raw[:120]!r}; reply with one JSON object matching the schema")
    envelope: dict[str, Any] = {}
    spoken: str | None = None
    if decision.payload_model is not None:
        if isinstance(value, Mapping):
            spoken = _say(value.get("say"))
            payload = value.get("payload", _NOTHING)
            if payload is _NOTHING:  # the payload itself, without the envelope
                payload = {k: v for k, v in value.items() if k != "say"}
            if isinstance(payload, str):
                decoded = _first_json(payload)
                payload = decoded if decoded is not _NOTHING else payload
            envelope["payload"] = payload
        else:
            envelope["payload"] = value
    elif decision.pick is None:
        if isinstance(value, Mapping):
            spoken = _say(value.get("say", value.get("text")))
            choice: Any = next((value[k] for k in _CHOICE_ALIASES if k in value), value.get("choices", value))
            if isinstance(choice, list) and len(choice) == 1:
                choice = choice[0]
        else:
            choice = value
        envelope["choice"] = _resolve(choice, decision)
    else:
        if isinstance(value, Mapping):
            spoken = _say(value.get("say", value.get("text")))
            picked: Any = value.get("choices", value.get("choice", value))
        else:
            picked = value
        if isinstance(picked, str):
            picked = [picked]
        envelope["choices"] = [_resolve(x, decision) for x in picked] if isinstance(picked, list) else picked
    if say and spoken:
        envelope["text"] = spoken
    note = _note(value, decision, envelope)
    if note is not None:
        envelope["note"] = note
    return ParsedReply(envelope, value)


def _note(value: Any, decision: Decision, envelope: Mapping[str, Any]) -> str | None:
    """The reply's ``note`` when the chosen option takes one (``Decision.notes``), else None (a note an option does
    not take is dropped, not refused: the words are the model's, the choice is what counts)."""
    notes = decision.notes
    if not notes or decision.payload_model is not None or not isinstance(value, Mapping):
        return None
    text = value.get("note")
    if not isinstance(text, str) or not text.strip():
        return None
    choice = envelope.get("choice")
    mode = notes.get(choice) if isinstance(choice, str) else None
    if not (mode or notes.get("*")):
        return None
    return text.strip()[:NOTE_MAX]


# -- roles ---------------------------------------------------------------------------------------------------------
RoleOf = Callable[[str], str | None] | Mapping[str, str]


def role_for(view: SeatView, role_of: RoleOf | None = None) -> str:
    """The template role of the deciding actor: ``role_of``'s answer if any, else the engine's prompt role for the
    seat (gm, pc, npc, or one a system adds, such as ブラッドベリー's curse)."""
    actor = view.decision.actor
    if role_of is not None:
        given = role_of.get(actor) if isinstance(role_of, Mapping) else role_of(actor)
        if given:
            return given
    return view.prompt_role


# -- the circuit breaker -------------------------------------------------------------------------------------------
class CircuitBreaker:
    """Closed → open after ``threshold`` consecutive transport failures; open for ``cooldown`` seconds (calls are
    refused at once); then half-open: the next call is let through as a probe, and its outcome closes or re-opens
    the circuit. ``clock`` is injectable for tests. Wall-clock time never enters the game state: only which
    policy answered (logged) depends on it, as it does on the model's replies."""

    def __init__(self, threshold: int = 3, cooldown: float = 60.0, clock: Callable[[], float] = time.monotonic):
        if threshold < 1 or cooldown < 0:
            raise ValueError(f"breaker threshold must be >= 1 and cooldown >= 0, got {threshold}, {cooldown}")
        self.threshold = threshold
        self.cooldown = float(cooldown)
        self.clock = clock
        self.failures = 0  # consecutive
        self.opened_at: float | None = None
        self.trips = 0

    @property
    def is_open(self) -> bool:
        return self.opened_at is not None

    def allows(self) -> bool:
        """Whether a call may go out now (closed, or open long enough for a probe)."""
        return self.opened_at is None or self.clock() - self.opened_at >= self.cooldown

    def success(self) -> None:
        self.failures = 0
        self.opened_at = None

    def failure(self) -> bool:
        """Count a transport failure; True when this failure (re)opens the circuit."""
        self.failures += 1
        if self.opened_at is not None or self.failures >= self.threshold:
            self.opened_at = self.clock()
            self.trips += 1
            return True
        return False


# -- the agent -----------------------------------------------------------------------------------------------------
class _Exchange:
    """One decision's conversation with the model: first ask, re-asks, verdict. Shared by act and act_async."""

    def __init__(self, agent: LLMAgent, view: SeatView):
        self.agent = agent
        self.view = view
        self.decision = decision = view.decision
        self.role = role_for(view, agent.role_of)
        self.say = speaks(decision, self.role, view.spec)
        self.schema = reply_schema(decision, say=self.say)
        self.prompt: RenderedPrompt = build_prompt(
            decision, view.transcript(), system=view.system.id, role=self.role, schema=self.schema, speaks=self.say,
            language=agent.language, budget_tokens=agent.budget_tokens, library=agent.library,
            max_prompt_tokens=agent.max_prompt_tokens, count_tokens=agent.count_tokens,
            compact_observation=getattr(view.system, "compact_observation", None),
            roles=getattr(view.system, "prompt_roles", None) or ("gm", "pc", "npc"),
            window_tokens=agent.window_tokens, full_observation=agent.full_observation,
        )
        self.messages: list[dict[str, str]] = list(self.prompt.messages)
        self.templates = dict(self.prompt.templates)
        self.index = 0  # 0 = first ask, then re-asks
        self.answer: Answer | None = None
        self.last_problem = ""
        self.reason = ""
        #: the calls a resumed log already holds for this decision (cut after them, before the answer): their
        #: replies are taken again, in order, while the requests are the same, and not logged twice
        logged = getattr(view, "logged_calls", None)
        self._logged: list[dict[str, Any]] = [e.data for e in logged()] if logged is not None else []
        self._replaying = False

    def request(self) -> ModelRequest | None:
        if self.answer is not None or self.reason:
            return None
        name = re.sub(r"[^A-Za-z0-9_-]", "_", self.decision.kind) or "answer"
        return ModelRequest(messages=[dict(m) for m in self.messages], schema=self.schema, schema_name=name,
                            mode=self.agent.mode, temperature=self.agent.temperature, max_tokens=self.agent.max_tokens,
                            seed=self.view.seed)

    def replay(self, request: ModelRequest) -> bool:
        """Answer ``request`` from the log (a resumed session's call that was already made); False if none fits."""
        if not self._logged or self._logged[0].get("messages") != request.messages:
            self._logged = []
            return False
        data = self._logged.pop(0)
        self._replaying = True
        try:
            reply_text = data.get("reply")
            if reply_text is None:
                kind, _, message = str(data.get("error") or "transport: (logged failure)").partition(": ")
                self.failed(request, ModelError(message, retries=int(data.get("retries") or 0),
                                                kind=kind if kind in ("transport", "model_error") else "transport"))
            else:
                tokens = data.get("tokens") or {}
                estimated = bool(tokens.get("estimated"))
                self.got(request, ModelReply(text=str(reply_text), model=str(data.get("model") or ""),
                                             prompt_tokens=None if estimated else tokens.get("prompt"),
                                             completion_tokens=None if estimated else tokens.get("completion"),
                                             cached_tokens=tokens.get("cached"),
                                             retries=int(data.get("retries") or 0)))
        finally:
            self._replaying = False
        return True

    def _record(self, request: ModelRequest, reply: ModelReply | None, parsed: Any, error: str | None,
                retries: int = 0) -> None:
        a = self.agent
        prompt_text = "".join(m["content"] for m in request.messages)
        pt = reply.prompt_tokens if reply is not None else None
        ct = reply.completion_tokens if reply is not None else None
        estimated = pt is None or ct is None
        if pt is None:
            pt = approx_tokens(prompt_text)
        if ct is None:
            ct = approx_tokens(reply.text) if reply is not None else 0
        # the latency is the agent's own number (its summary's median), never the log's: a log has no clock, so
        # a resumed or replayed LLM session is byte for byte the uninterrupted one
        latency = round(float(reply.latency_s), 4) if reply is not None else 0.0
        a.calls += 1
        if reply is not None:  # the medians describe answered calls
            a.prompt_tokens.append(pt)
            a.completion_tokens.append(ct)
            a.latencies.append(latency)
        tokens: dict[str, Any] = {"prompt": pt, "completion": ct}
        if estimated:
            tokens["estimated"] = True
        if reply is not None and reply.cached_tokens is not None:  # only where the endpoint reports its cache
            tokens["cached"] = reply.cached_tokens
            a.cached_tokens += reply.cached_tokens
        data: dict[str, Any] = {
            "model": (reply.model if reply is not None and reply.model else a.model.name),
            "mode": request.mode,
            "template_id": self.prompt.template_id,
            "template_hash": self.prompt.template_hash,
            "templates": dict(self.templates),
            **({"compacted": True} if self.prompt.compacted else {}),
            **({"fitted": True} if self.prompt.fitted else {}),
            "messages": request.messages,
            "reply": reply.text if reply is not None else None,
            "parsed": parsed,
            "tokens": tokens,
            "retries": reply.retries if reply is not None else retries,
            "reask_index": self.index,
            "error": error,
        }
        if self._replaying:  # the call is in the log already
            return
        self.view.note(ModelCallEvent(seq=self.decision.seq, actor=self.decision.actor, kind=self.decision.kind,
                                      data=_jsonable(data)))

    def failed(self, request: ModelRequest, error: ModelError) -> None:
        """The model failed (transport, refused request, unreadable response): log the call, warn once per session,
        fall back at once."""
        self.agent.errors += 1
        self._record(request, None, None, f"{error.kind}: {error}", retries=error.retries)
        self.agent._warn_failure(self.view, error)
        if error.kind == "transport" and self.agent.breaker is not None and self.agent.breaker.failure():
            self.agent._warn_open(error)
        self.reason = "transport" if error.kind == "transport" else "model_error"
        self.last_problem = str(error)

    def got(self, request: ModelRequest, reply: ModelReply) -> None:
        a = self.agent
        if a.breaker is not None:
            a.breaker.success()
        parsed = parse_reply(reply.text, self.decision, say=self.say)
        problem = parsed.problem
        if parsed.answer is not None:
            try:
                self.answer = self.decision.check(parsed.answer)
            except IllegalAnswer as e:
                problem = str(e)  # the engine's exact message goes back to the model
                a.illegal += 1
        else:
            a.invalid += 1
        self._record(request, reply, parsed.answer if parsed.answer is not None else parsed.value, problem)
        if self.answer is not None:
            return
        assert problem is not None
        self.last_problem = problem
        if self.index >= a.max_reasks:
            self.reason = "illegal" if parsed.answer is not None else "invalid"
            return
        if self.index == 0:
            a.reasked_decisions += 1
        a.reasks += 1
        self.index += 1
        reask, reask_hash = a.library.render_text(_REASK_TEMPLATE, {"language": a.language, "problem": problem})
        self.templates[_REASK_TEMPLATE] = reask_hash
        self.messages += [{"role": "assistant", "content": reply.text or ""}, {"role": "user", "content": reask}]

    def result(self) -> Any:
        a = self.agent
        a.decisions += 1
        a.asked += 1
        if self.answer is not None:
            return self.answer
        return a._fall_back(self.view, self.reason or "invalid", self.last_problem, self.index + 1)


def _jsonable(value: Any) -> Any:
    """JSON-safe copy (pydantic models and tuples from parsed payloads), so the event serialises and replays."""
    return json.loads(json.dumps(value, ensure_ascii=False, default=str))


class LLMAgent:
    """An agent backed by a ``Model`` (see the module docstring). One instance may serve many seats and sessions;
    its counters add up over all of them."""

    def __init__(
        self,
        model: Model,
        *,
        role_of: RoleOf | None = None,
        language: str = "ja",
        mode: OutputMode = "json_schema",
        max_reasks: int = 2,
        budget_tokens: int = 1000,
        name: str | None = None,
        library: PromptLibrary | None = None,
        temperature: float = 0.0,
        max_tokens: int = 512,
        base_url: str | None = None,
        fallback: Any = None,
        max_prompt_tokens: int | None = None,
        window_tokens: int | None = None,
        reactions: str = "standing",
        reaction_kinds: Collection[str] | None = None,
        breaker: CircuitBreaker | None = None,
        count_tokens: Callable[[str], int] | None = None,
        full_observation: bool = False,
    ):
        if reactions not in REACTIONS:
            raise ValueError(f"reactions must be one of {', '.join(REACTIONS)}, got {reactions!r}")
        self.model = model
        self.name = name or f"llm:{model.name}"
        self.role_of = role_of
        self.language = language
        self.mode = mode
        self.max_reasks = max_reasks
        self.budget_tokens = budget_tokens
        #: small context windows: compact prompts estimated above this many tokens (see agent.prompting.build_prompt)
        self.max_prompt_tokens = max_prompt_tokens
        #: what the model's context window holds for a prompt: a longer one is cut to fit (agent.prompting)
        self.window_tokens = window_tokens
        #: how prompt sizes are counted for the budgets above: by default the model's own tokenizer where
        #: ``agent.tokens`` knows it (OpenAI's models, the ``tokens`` extra), else ``approx_tokens``; ``--llm local``
        #: passes the served model's (``agent.local_llm.token_counter``)
        if count_tokens is None:
            from .tokens import model_counter

            model_id = getattr(model, "model", None)  # OpenAIModel: the model the endpoint is asked for
            found = model_counter(str(model_id if isinstance(model_id, str) else getattr(model, "name", "") or ""))
            count_tokens = found[0] if found else None
        self.count_tokens = count_tokens
        #: the whole observation in the prompt instead of the system's lean one (the actor's sheet and the GM's
        #: part are in full either way)
        self.full_observation = full_observation
        self.library = library or default_library()
        self.temperature = temperature
        self.max_tokens = max_tokens
        endpoint = getattr(model, "endpoint", None)  # OpenAIModel: the URL without credentials
        self.base_url = base_url or (endpoint if isinstance(endpoint, str) else None) or getattr(model, "base_url", None)
        if fallback is None:
            from .scripted import ScriptedAgent

            fallback = ScriptedAgent()
        self.fallback = fallback
        #: who answers the system's mechanical reaction windows: "standing" (default): the seat declares the
        #: system's default standing answers, so the engine resolves them and never asks; "scripted": they are asked
        #: and answered by the fallback policy without a call; "llm": the model is asked
        self.reactions = reactions
        #: overrides the system's ``reaction_kinds`` (None: ask the session's system)
        self.reaction_kinds = frozenset(reaction_kinds) if reaction_kinds is not None else None
        self.breaker = breaker if breaker is not None else CircuitBreaker()
        # counters (summary() turns them into rates)
        self.decisions = 0
        self.asked = 0  # decisions sent to the model (or that would have been, had the circuit been closed)
        self.forced = 0  # one legal option, nothing to say: answered without a call
        self.delegated = 0  # reaction windows answered by the scripted policy
        self.short_circuited = 0  # fallbacks without a call while the circuit was open
        self.calls = 0
        self.reasks = 0
        self.reasked_decisions = 0
        self.fallbacks = 0
        self.illegal = 0
        self.invalid = 0
        self.errors = 0
        self.prompt_tokens: list[int] = []
        self.completion_tokens: list[int] = []
        #: prompt tokens the endpoint served from its prompt cache (0 where it does not say)
        self.cached_tokens = 0
        self.latencies: list[float] = []
        self._warned: weakref.WeakSet[Any] = weakref.WeakSet()

    # -- answering -------------------------------------------------------------------------------------------------
    def _without_call(self, view: SeatView) -> Any:
        """The answer when no call is due (forced, delegated reaction, open circuit), else None."""
        decision = view.decision
        if decision.options is not None and len(decision.options) == 1 and decision.pick is None \
                and decision.payload_model is None and not decision.notes \
                and not speaks(decision, role_for(view, self.role_of), view.spec):
            self.decisions += 1
            self.forced += 1
            return PolicyAnswer(choice=decision.option_ids[0], policy="forced")
        if self.reactions != "llm":  # "standing": a window without a standing answer (none in its vocabulary)
            if self.reaction_kinds is not None:
                reaction = decision.kind in self.reaction_kinds
            else:
                reaction = bool(getattr(view.spec, "reaction", False)) \
                    or decision.kind in getattr(view.system, "reaction_kinds", frozenset())
            if reaction:
                self.decisions += 1
                self.delegated += 1
                return self._delegate(view)
        if self.breaker is not None and not self.breaker.allows():
            self.decisions += 1
            self.asked += 1
            self.short_circuited += 1
            return self._fall_back(view, "circuit_open", f"{self.breaker.failures} consecutive transport failures", 0)
        return None

    def standing_answers(self, system: Any, actor: str, role: str) -> dict[str, str]:
        """With ``reactions="standing"``: the default standing answer of every reaction window of the seat (or of
        ``reaction_kinds``) whose vocabulary has one; the engine then resolves them without asking."""
        if self.reactions != "standing":
            return {}
        return declared_kinds(system.decision_table, role, DEFAULT, self.reaction_kinds)

    def _delegate(self, view: SeatView) -> Any:
        """The scripted policy's answer, named as such (the table judges it like any other)."""
        raw = self.fallback.act(view)
        policy = str(getattr(self.fallback, "name", "scripted"))
        try:
            ans = view.decision.check(raw)
        except IllegalAnswer:
            return raw
        return PolicyAnswer(choice=ans.choice, choices=ans.choices, payload=ans.payload, text=ans.text, note=ans.note,
                            policy=policy)

    def act(self, view: SeatView) -> Any:
        pre = self._without_call(view)
        if pre is not None:
            return pre
        ex = _Exchange(self, view)
        while (req := ex.request()) is not None:
            if ex.replay(req):
                continue
            try:
                reply = self.model.generate(req)
            except ModelError as e:
                ex.failed(req, e)
            else:
                ex.got(req, reply)
        return ex.result()

    async def act_async(self, view: SeatView) -> Any:
        pre = self._without_call(view)
        if pre is not None:
            return pre
        ex = _Exchange(self, view)
        while (req := ex.request()) is not None:
            if ex.replay(req):
                continue
            try:
                reply = await self.model.agenerate(req)
            except ModelError as e:
                ex.failed(req, e)
            else:
                ex.got(req, reply)
        return ex.result()

    def notify_illegal(self, error: IllegalAnswer) -> None:
        """The table's hook; answers are checked before they leave the agent, so this only counts."""
        self.illegal += 1

    def _fall_back(self, view: SeatView, reason: str, problem: str, asked: int) -> GiveUp:
        """No answer from the model: the table logs the notice and lets the scripted policy answer."""
        self.fallbacks += 1
        why = {"transport": "could not reach the model", "model_error": "got an error from the model",
               "circuit_open": "is not calling the model (circuit open after repeated transport failures)",
               "illegal": f"answered illegally {asked} times",
               "invalid": f"gave no readable answer {asked} times"}.get(reason, reason)
        return GiveUp(f"{self.name} {why} for {view.decision.kind}; the scripted policy answers",
                      {"reason": reason, "error": problem})

    def _warn_open(self, error: ModelError) -> None:
        b = self.breaker
        assert b is not None
        where = self.base_url or self.model.name
        print(f"LLM at {where}: {b.failures} transport failures in a row; scripted answers for the next "
              f"{b.cooldown:.0f} s, then one call tries again", file=sys.stderr)

    def _warn_failure(self, view: SeatView, error: ModelError) -> None:
        if view.key in self._warned:
            return
        self._warned.add(view.key)
        where = self.base_url or self.model.name
        if error.kind == "transport":
            print(f"LLM unreachable at {where}: falling back to scripted answers ({error})", file=sys.stderr)
        else:
            print(f"LLM at {where} failed a request ({error.kind}): falling back to scripted answers ({error})",
                  file=sys.stderr)

    # -- numbers ---------------------------------------------------------------------------------------------------
    @property
    def tokens(self) -> dict[str, int]:
        """Total prompt and completion tokens (as reported by the endpoint, else estimated)."""
        return {"prompt": sum(self.prompt_tokens), "completion": sum(self.completion_tokens)}

    def summary(self) -> dict[str, Any]:
        n = self.decisions

        def med(xs: list[int] | list[float]) -> float | None:
            return float(statistics.median(xs)) if xs else None

        return {
            "agent": self.name,
            "decisions": n,
            "calls": self.calls,
            "calls_per_decision": self.calls / n if n else 0.0,
            "asked": self.asked,
            "calls_per_asked": self.calls / self.asked if self.asked else 0.0,
            "forced": self.forced,
            "delegated": self.delegated,
            "short_circuited": self.short_circuited,
            "breaker_trips": self.breaker.trips if self.breaker is not None else 0,
            "reasks": self.reasks,
            # rates over the decisions the model was asked (forced and delegated ones had no chance to fail)
            "reask_rate": self.reasked_decisions / self.asked if self.asked else 0.0,
            "fallbacks": self.fallbacks,
            "fallback_rate": self.fallbacks / self.asked if self.asked else 0.0,
            "illegal": self.illegal,
            "invalid": self.invalid,
            "errors": self.errors,
            "tokens": self.tokens,
            "median_prompt_tokens": med(self.prompt_tokens),
            "median_completion_tokens": med(self.completion_tokens),
            "cached_prompt_tokens": self.cached_tokens,
            "median_latency_s": med(self.latencies),
        }


def format_summary(s: Mapping[str, Any]) -> str:
    """One line for the terminal."""

    def num(x: Any, fmt: str = "{:.0f}") -> str:
        return "-" if x is None else fmt.format(x)

    skipped = []
    if s.get("forced"):
        skipped.append(f"{s['forced']} forced")
    if s.get("delegated"):
        skipped.append(f"{s['delegated']} reactions to scripted")
    if s.get("short_circuited"):
        skipped.append(f"{s['short_circuited']} while the circuit was open")
    without = f" [{', '.join(skipped)}: no call]" if skipped else ""
    cached = s.get("cached_prompt_tokens") or 0
    total = (s.get("tokens") or {}).get("prompt") or 0
    cache = f" ({cached} of {total} prompt tokens from the endpoint's cache)" if cached else ""
    return (
        f"{s['agent']}: {s['calls']} calls for {s['decisions']} decisions ({s['calls_per_decision']:.2f} per decision, "
        f"{s.get('calls_per_asked', 0.0):.2f} per decision asked){without}; "
        f"median tokens {num(s['median_prompt_tokens'])} prompt / {num(s['median_completion_tokens'])} completion{cache}; "
        f"median latency {num(s['median_latency_s'], '{:.2f}')} s; re-ask rate {s['reask_rate']:.1%}; "
        f"fallback rate {s['fallback_rate']:.1%} ({s['fallbacks']} fallbacks)"
    )


class RenderOnly:
    """A model slot for an ``LLMAgent`` whose prompts are only rendered (``rendered_prompts``): calling it is an
    error, nothing is ever sent."""

    name = "none"

    def generate(self, request: Any) -> Any:
        raise RuntimeError("this LLM agent only renders prompts (RenderOnly): it calls no model")


def rendered_prompts(session: Any, agent: LLMAgent, fallback: Any, max_decisions: int) -> Iterator[_Exchange]:
    """Play ``session`` to the end (at most ``max_decisions``) with every seat answered by ``fallback``, and yield
    the exchange ``agent`` would open at each decision it would send to its model (not forced, not a reaction
    window its standing answers resolve, which are declared first) — the prompt rendered, nothing sent. For
    measuring and checking prompts on whole sessions without a model (``scripts/prompt_tokens.py``, the tests)."""
    declared = {}
    for actor in session.game.actors():
        mine = agent.standing_answers(session.system, actor, session.actor_role(actor))
        if mine:
            declared[actor] = mine
    if declared:
        session.declare_standing(declared)
    steps = 0
    while not session.is_over and steps < max_decisions:
        d = session.pending
        view = session.view(d)
        if agent._without_call(view) is None:
            yield _Exchange(agent, view)
        session.answer(fallback.act(session.view(d)), policy=fallback.name, seq=d.seq)
        steps += 1
