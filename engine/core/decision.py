"""Decisions, answers and illegal answers: the whole surface between the engine and whoever sits at the table.

A ``Decision`` says who decides (``actor``), what (``kind``: the id from the system's decision table), under which
rule (``rule``: the spec section), and what is legal: a list of options with stable ids (pick one, or pick a
subset within bounds), or a typed payload (a pydantic model with its bounds, plus an optional cross-field check).
``Decision.check`` is the checked door for outside answers: it raises ``IllegalAnswer`` naming the decision, the
rule and what was legal, and it runs before any rule code sees the answer, so a refused answer changes nothing.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ValidationError
from pydantic_core import PydanticSerializationError

from .quote import brief, measure

__all__ = ["Option", "OptionList", "Label", "Window", "Decision", "Answer", "chosen", "IllegalAnswer", "LazyContext", "LazyMap", "plain",
           "Simultaneous", "StaleDecision", "NOTE_MAX", "SPEECH_MAX", "ANSWER_MAX_VALUES", "ANSWER_MAX_CHARS", "shown_context"]

#: longest game-relevant text (a reason, a declaration) an answer may carry with an option
NOTE_MAX = 400
#: the longest speech (``text``) an answer may carry: a few paragraphs; bounds what one answer adds to the log
SPEECH_MAX = 4_000
#: the most values and characters a payload answer may hold (creation sheets are a few hundred of each)
ANSWER_MAX_VALUES = 10_000
ANSWER_MAX_CHARS = 200_000


class StaleDecision(RuntimeError):
    """Lazy decision data (a context key, an option label, the observation) read after the decision was answered:
    the rules have moved on, so the value would describe the new state, not the one the decision was asked in."""


def _stale(what: str) -> StaleDecision:
    return StaleDecision(f"{what} read after the decision was answered (it would describe the new state); read it "
                         "before answering")


class LazyContext(Mapping[str, Any]):
    """A decision context whose keys are built on first read, each on its own (``thunks``: key → function), for
    contexts that cost more than the decision is worth when nobody reads them (a scripted combat answer reads two or
    three keys of the battlefield). ``extra`` keys are plain values. The rules are suspended at the decision while
    it is pending, so a key read later is the one of the moment it was asked. ``plain`` turns it, and any lazy
    mapping inside, into plain dicts (for JSON and prompts).

    ``args``: what every thunk is called with, so that one table of functions can serve every decision (``thunks``
    and a dict ``extra`` are kept, not copied: they must not change afterwards)."""

    __slots__ = ("_thunks", "_extra", "_data", "_args", "_live", "repeats")

    def __init__(self, thunks: Mapping[str, Callable[..., Any]], extra: Mapping[str, Any] | None = None,
                 args: tuple[Any, ...] = (), repeats: frozenset[str] = frozenset()):
        self._thunks = thunks
        self._extra = extra if type(extra) is dict else dict(extra) if extra else {}
        self._data: dict[str, Any] = {}
        self._args = args
        #: shared with the lazy maps its values hand out: ``[False]`` once the decision is answered (``close``)
        self._live = [True]
        #: keys that restate the actor's observation (the battlefield, every character): policies read them here,
        #: prompts leave them out (``shown_context``) since the observation is in the prompt already
        self.repeats = repeats

    def plus(self, **more: Any) -> LazyContext:
        """The same lazy context with more (cheap) keys."""
        return LazyContext(self._thunks, {**self._extra, **more}, self._args, self.repeats)

    def close(self) -> None:
        """The decision was answered: keys not built yet (here or in a lazy map handed out) now refuse to build."""
        self._live[0] = False

    def _build(self, key: str, thunk: Callable[..., Any]) -> Any:
        if not self._live[0]:
            raise _stale(f"decision context key {key!r}")
        v = self._data[key] = thunk(*self._args)
        if type(v) is LazyMap:
            v._live = self._live
        return v

    def __getitem__(self, key: str) -> Any:
        if key in self._extra:
            return self._extra[key]
        data = self._data
        if key in data:
            return data[key]
        return self._build(key, self._thunks[key])  # KeyError for an unknown key, as a dict

    def get(self, key: str, default: Any = None) -> Any:
        # the policies' way in (``c.get(...)`` dozens of times a decision): one lookup per layer, no dunder calls
        extra = self._extra
        if key in extra:
            return extra[key]
        data = self._data
        if key in data:
            return data[key]
        thunk = self._thunks.get(key)
        if thunk is None:
            return default
        return self._build(key, thunk)

    def __contains__(self, key: object) -> bool:
        return key in self._extra or key in self._thunks

    def __iter__(self) -> Any:
        return iter([*self._thunks, *(k for k in self._extra if k not in self._thunks)])

    def __len__(self) -> int:
        return len(self._thunks) + sum(1 for k in self._extra if k not in self._thunks)

    def __repr__(self) -> str:
        return f"LazyContext({len(self._data)}/{len(self._thunks)} built)"


class LazyMap(Mapping[str, Any]):
    """A mapping with known keys whose values are built on first read, one by one (``fn(key)``), in key order."""

    __slots__ = ("_keys", "_known", "_fn", "_data", "_live")

    def __init__(self, keys: Sequence[str], fn: Callable[[str], Any]):
        self._keys = list(keys)
        self._known = frozenset(self._keys)
        self._fn = fn
        self._data: dict[str, Any] = {}
        self._live = [True]  # replaced by the context's cell when a LazyContext hands this map out

    def _build(self, key: str) -> Any:
        if not self._live[0]:
            raise _stale(f"lazy value {key!r}")
        v = self._data[key] = self._fn(key)
        if type(v) is LazyMap:
            v._live = self._live
        return v

    def __getitem__(self, key: str) -> Any:
        data = self._data
        if key in data:
            return data[key]
        if key not in self._known:
            raise KeyError(key)
        return self._build(key)

    def get(self, key: str, default: Any = None) -> Any:
        data = self._data
        if key in data:
            return data[key]
        if key not in self._known:
            return default
        return self._build(key)

    def __contains__(self, key: object) -> bool:
        return key in self._known

    def __iter__(self) -> Any:
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)

    def __repr__(self) -> str:
        return f"LazyMap({len(self._data)}/{len(self._keys)} built)"


def shown_context(context: Mapping[str, Any]) -> dict[str, Any]:
    """A decision's context as a prompt or a person is shown it: plain data, without the keys that restate the
    observation (``LazyContext.repeats``)."""
    repeats: frozenset[str] = getattr(context, "repeats", frozenset())
    return {k: plain(context[k]) for k in context if k not in repeats}


def plain(x: Any) -> Any:
    """``x`` with every mapping (lazy ones built) a plain dict, at any depth; lists and tuples keep their type."""
    if isinstance(x, Mapping):
        return {k: plain(v) for k, v in x.items()}
    if isinstance(x, list):
        return [plain(v) for v in x]
    if isinstance(x, tuple):
        return tuple(plain(v) for v in x)
    return x


@dataclass(slots=True, eq=True)
class Option:
    """One legal option (a value object, never changed after it is made; not ``frozen`` for speed, like ``Roll``)."""

    id: str
    label: str
    data: Mapping[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"id": self.id, "label": self.label}
        if self.data:
            d["data"] = dict(self.data)
        return d


#: an option's label, or a function that makes it (called once, when the options are first read)
Label = str | Callable[[], str]


def _made(label: Label) -> str:
    return label if type(label) is str else label()  # type: ignore[operator]


class OptionList(Sequence[Option]):
    """A decision's options made from ``(id, label)`` pairs: the ``Option`` objects are built on first use (a
    scripted policy reads only the ids, and a batch run builds hundreds of decisions a session). A label may be a
    function that makes it (``Label``): the rules are suspended at the decision while it is pending, so it gives the
    label of the moment the decision was asked. Reads like a list of ``Option`` and compares equal to one with the
    same options."""

    __slots__ = ("_pairs", "_built", "_live")

    def __init__(self, pairs: Sequence[tuple[str, Label]]):
        self._pairs = tuple(pairs)
        self._built: list[Option] | None = None
        self._live = True

    def close(self) -> None:
        """The decision was answered: labels not made yet (functions of the table) now refuse to be made."""
        self._live = False

    def _list(self) -> list[Option]:
        built = self._built
        if built is None:
            if not self._live:
                raise _stale("option labels")
            built = self._built = [Option(i, _made(label)) for i, label in self._pairs]
        return built

    def ids(self) -> list[str]:
        return [p[0] for p in self._pairs]

    def label_of(self, oid: str) -> str:
        """The label of one option, without making the others (the log names the chosen option only)."""
        built = self._built
        if built is not None:
            for o in built:
                if o.id == oid:
                    return o.label
            raise KeyError(oid)
        for i, label in self._pairs:
            if i == oid:
                if type(label) is not str and not self._live:
                    raise _stale(f"the label of option {oid!r}")
                return _made(label)
        raise KeyError(oid)

    def __getitem__(self, i: Any) -> Any:
        return self._list()[i]

    def __len__(self) -> int:
        return len(self._pairs)

    def __iter__(self) -> Any:
        return iter(self._list())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, OptionList):
            return self._list() == other._list()
        if isinstance(other, (list, tuple)):
            return self._list() == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(self._list())


@dataclass(frozen=True, slots=True)
class Answer:
    """A normalised answer. Exactly one of choice / choices / payload is set; ``text`` is optional speech (heard by
    the table, never changes the game); ``note`` is game-relevant text the decision asked for with the option (a
    reason for deviating from a precedent, the words of a declaration)."""

    choice: str | None = None
    choices: tuple[str, ...] | None = None
    payload: BaseModel | None = None
    text: str | None = None
    note: str | None = None

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {}
        if self.choice is not None:
            d["choice"] = self.choice
        if self.choices is not None:
            d["choices"] = list(self.choices)
        if self.payload is not None:
            d["payload"] = self.payload.model_dump(mode="json")
        if self.text:
            d["text"] = self.text
        if self.note:
            d["note"] = self.note
        return d


#: the answers that are one option id and nothing else, by that id: an ``Answer`` is immutable, so one object serves
#: every decision answered with that id (the common case of hundreds of windows a session; making a frozen
#: dataclass is the costly part). Keyed by value, so never stale; bounded, as a batch sees many ids.
_BY_CHOICE: dict[str, Answer] = {}
_BY_CHOICE_MAX = 4096


def chosen(oid: str) -> Answer:
    """``Answer(choice=oid)`` (equal to it; one shared object per id). ``oid`` must be a plain ``str``."""
    ans = _BY_CHOICE.get(oid)
    if ans is None:
        if len(_BY_CHOICE) >= _BY_CHOICE_MAX:
            _BY_CHOICE.clear()
        ans = _BY_CHOICE[oid] = Answer(choice=oid)
    return ans


def _brief(value: Any, limit: int = 120) -> str:
    """An answer as a refusal message quotes it: cut, never serialised whole (a refusal never echoes a huge
    answer, and a deeply nested one does not overflow the stack). Strings and numbers as ``repr``."""
    if isinstance(value, (str, int, float, bool)) or value is None:
        text = repr(value if not isinstance(value, str) else value[: limit + 1])
        return text if len(text) <= limit else text[: limit - 1] + "…"
    return brief(value, limit)


#: C0 and C1 control characters but newline and tab: speech is printed on other players' terminals and pages
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is no JSON number")


def _chars(value: Any, cap: int) -> int:
    """The characters of the strings (keys included) in a JSON-like value, counted up to just past ``cap``."""
    total = 0
    stack = [value]
    while stack and total <= cap:
        x = stack.pop()
        if isinstance(x, str):
            total += len(x)
        elif isinstance(x, dict):
            stack.extend(x.keys())
            stack.extend(x.values())
        elif isinstance(x, (list, tuple)):
            stack.extend(x)
    return total


#: how deeply an answer may nest (a payload is a few levels; a pasted JSON bomb is refused before validation)
MAX_ANSWER_DEPTH = 32


class IllegalAnswer(ValueError):
    """An answer the rules do not allow now. The session's state is unchanged when this is raised."""

    def __init__(self, decision: Decision, problem: str):
        self.decision = decision
        self.problem = problem
        super().__init__(f"illegal answer to {decision.kind} ({decision.rule}) for {decision.actor}: {problem}; legal: {decision.legal_summary()}")


@dataclass(slots=True, eq=False)
class Window:
    """A reaction window as a standing answer reads it, before any ``Decision`` is made (``engine.core.standing``):
    its actor, kind, rule, option ids, subset bounds and context. ``ask.choose`` and ``ask.choose_many`` hand one to
    the session when the actor has a standing answer for the kind; when that answers, no decision is made, numbered
    or sent through the rules' generators (the answer is checked here as ``Decision.check`` would check it)."""

    actor: str
    kind: str
    rule: str
    pairs: Sequence[tuple[str, Label]]
    #: subset bounds, or None for one option
    pick: tuple[int, int] | None
    context: Mapping[str, Any]
    _ids: list[str] | None = None

    @property
    def option_ids(self) -> list[str]:
        ids = self._ids
        if ids is None:
            ids = self._ids = [p[0] for p in self.pairs]
        return ids

    def label_of(self, oid: str) -> str:
        for i, label in self.pairs:
            if i == oid:
                return _made(label)
        raise KeyError(oid)

    def check(self, raw: Any) -> Answer | None:
        """The engine's own answer (an option id; a list of ids for a subset) normalised as ``Decision.check`` does
        it, or None if it is not legal here (the caller then makes the decision, whose check says why)."""
        pick = self.pick
        if pick is None:
            if type(raw) is str:
                for p in self.pairs:
                    if p[0] == raw:
                        return chosen(raw)
            return None
        ids = self.option_ids
        if type(raw) is str:
            raw = [raw] if raw else []
        if not isinstance(raw, (list, tuple)) or not all(type(x) is str and x in ids for x in raw):
            return None
        if len(set(raw)) != len(raw) or not pick[0] <= len(raw) <= pick[1]:
            return None
        return Answer(choices=in_option_order(raw, ids))


def in_option_order(picked: Sequence[str], ids: Sequence[str]) -> tuple[str, ...]:
    """Picked option ids (each an option, none twice) in the order the options were offered: how a subset answer
    is normalised, by ``Decision.check`` and ``Window.check`` alike."""
    order = {oid: i for i, oid in enumerate(ids)}
    return tuple(sorted(picked, key=order.__getitem__))


def picked_label(ans: Answer, label_of: Callable[[str], str]) -> str:
    """The label of the chosen option, or the chosen options' labels joined (what an answer or ``auto`` event logs);
    ``label_of`` makes one option's label (a decision's, a window's)."""
    if ans.choice is not None:
        return label_of(ans.choice)
    return " / ".join([label_of(x) for x in ans.choices or ()])


@dataclass(slots=True, eq=False)
class Decision:
    actor: str
    kind: str
    prompt: str
    rule: str
    options: Sequence[Option] | None = None
    #: for subset decisions: how many options may be picked (inclusive); None = pick exactly one
    pick: tuple[int, int] | None = None
    payload_model: type[BaseModel] | None = None
    #: cross-field rule for payloads (e.g. points sum to 4); returns a problem text or None
    payload_check: Callable[[BaseModel], str | None] | None = None
    #: options that exist in the rules but are not legal now, with the reason (better refusal messages)
    refused: Mapping[str, str] | None = None
    #: decision-specific facts the actor may know (pools, thresholds...): cheap, always present
    context: Mapping[str, Any] = field(default_factory=dict)
    #: whether free speech/narration text is welcome with the answer
    speech: bool = False
    #: game-relevant text with an option (``Answer.note``): option id (or ``"*"`` for every option and for a
    #: payload) → ``"required"`` or ``"allowed"``; text with any other answer is refused
    notes: Mapping[str, str] | None = None
    #: legal example payloads the rules can name (a default sheet, the table's suggestion): the random agent falls
    #: back on them only when its own fuzzed payloads are refused; never shown in prompts as hints
    samples: Sequence[Any] | None = None
    seq: int = -1
    _observe: Callable[[], dict[str, Any]] | None = None
    _obs_cache: dict[str, Any] | None = None
    _ids_cache: list[str] | None = None
    _sealed: bool = False

    # -- what the actor may know -------------------------------------------------------------------------------
    @property
    def observation(self) -> dict[str, Any]:
        """The actor's observation, computed once on demand (scripted agents rarely need it)."""
        if self._obs_cache is None:
            if self._sealed:
                raise _stale("the observation")
            self._obs_cache = self._observe() if self._observe is not None else {}
        return self._obs_cache

    def seal(self) -> None:
        """Called by the session once the decision is answered: lazy data not built by now (context keys, option
        labels, the observation) refuses to be built instead of describing the new state (``StaleDecision``)."""
        self._sealed = True
        ctx = self.context
        if type(ctx) is LazyContext:
            ctx.close()
        opts = self.options
        if type(opts) is OptionList:
            opts.close()

    @property
    def answered(self) -> bool:
        return self._sealed

    @property
    def option_ids(self) -> list[str]:
        """The option ids in order (computed once: policies ask ``"x" in d.option_ids`` many times; do not mutate)."""
        ids = self._ids_cache
        if ids is None:
            opts = self.options
            if opts is None:
                ids = []
            elif type(opts) is OptionList:
                ids = opts.ids()
            else:
                ids = [o.id for o in opts]
            self._ids_cache = ids
        return ids

    def label_of(self, oid: str) -> str:
        """One option's label (an ``OptionList`` makes only that one)."""
        opts = self.options
        if type(opts) is OptionList:
            return opts.label_of(oid)
        return self.option(oid).label

    def option(self, oid: str) -> Option:
        for o in self.options or ():
            if o.id == oid:
                return o
        raise KeyError(oid)

    def payload_schema(self) -> dict[str, Any] | None:
        return self.payload_model.model_json_schema() if self.payload_model is not None else None

    def legal_summary(self) -> str:
        if self.payload_model is not None:
            return f"a {self.payload_model.__name__} payload matching {json.dumps(self.payload_schema(), ensure_ascii=False)}"
        ids = ", ".join(self.option_ids)
        if self.pick is not None:
            lo, hi = self.pick
            return f"{lo}..{hi} distinct of [{ids}]"
        return f"one of [{ids}]"

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"seq": self.seq, "actor": self.actor, "kind": self.kind, "rule": self.rule, "prompt": self.prompt}
        if self.options is not None:
            d["options"] = [o.to_dict() for o in self.options]
        if self.pick is not None:
            d["pick"] = list(self.pick)
        if self.payload_model is not None:
            d["payload_schema"] = self.payload_schema()
        if self.context:
            d["context"] = plain(self.context)
        return d

    # -- the checked door --------------------------------------------------------------------------------------
    def check(self, raw: Any) -> Answer:
        """Validate an outside answer and normalise it. Raises IllegalAnswer; never mutates anything.

        ``raw`` is an ``Answer``, an option id (a list of ids for a subset), a payload (a mapping, a JSON text or a
        model instance), or an envelope: ``{"choice": ...}`` / ``{"choices": [...]}`` for option decisions and
        ``{"payload": ...}`` for payload decisions, each with optional ``text`` (speech) and ``note`` (game text).
        A mapping is read as an envelope only in those shapes, so a payload whose model has fields named
        ``choice`` or ``text`` is a payload, not an envelope."""
        if type(raw) is str and self.pick is None and self.payload_model is None and self.options is not None \
                and not self.notes:  # with notes, a bare id goes the long way: a required note must be refused
            if raw in self.option_ids:  # the common case first: one option id, as scripted policies answer
                return chosen(raw)
        text: Any = None
        note: Any = None
        if isinstance(raw, (dict, list)):
            values, depth = measure(raw, 100_000)
            if depth > MAX_ANSWER_DEPTH:
                raise IllegalAnswer(self, f"the answer nests more than {MAX_ANSWER_DEPTH} levels deep")
            if values > ANSWER_MAX_VALUES:
                raise IllegalAnswer(self, f"the answer holds more than {ANSWER_MAX_VALUES} values")
            if _chars(raw, ANSWER_MAX_CHARS) > ANSWER_MAX_CHARS:
                raise IllegalAnswer(self, f"the answer holds more than {ANSWER_MAX_CHARS} characters")
        elif type(raw) is str and len(raw) > ANSWER_MAX_CHARS:
            raise IllegalAnswer(self, f"the answer is {len(raw)} characters long; at most {ANSWER_MAX_CHARS}")
        if isinstance(raw, Answer):
            text, note = raw.text, raw.note
            if self.payload_model is not None and raw.payload is not None:
                raw = raw.payload if isinstance(raw.payload, self.payload_model) else raw.payload.model_dump(mode="json")
            else:
                raw = raw.choice if raw.choice is not None else (list(raw.choices) if raw.choices is not None else raw.payload)
        elif isinstance(raw, Mapping) and self._is_envelope(raw):
            text, note = raw.get("text"), raw.get("note")
            if self.payload_model is not None:
                raw = raw["payload"]
            else:
                raw = raw["choices"] if "choices" in raw else raw["choice"]
        if text is not None and type(text) is not str:
            raise IllegalAnswer(self, "text (speech) must be a string")
        if text is not None and len(text) > SPEECH_MAX:
            raise IllegalAnswer(self, f"the speech (text) is {len(text)} characters long; at most {SPEECH_MAX}")
        if note is not None and type(note) is not str:
            raise IllegalAnswer(self, "note must be a string")
        for field_name, value in (("speech (text)", text), ("note", note)):
            bad = _CONTROL.search(value) if value is not None else None
            if bad is not None:
                raise IllegalAnswer(self, f"the {field_name} holds a control character "
                                          f"(U+{ord(bad.group()):04X}); only newlines and tabs may be in it")
        if self.payload_model is not None:
            payload = self._check_payload(raw)
            return Answer(payload=payload, text=text, note=self._check_note(note, "*"))
        if self.options is None:
            raise IllegalAnswer(self, "this decision has neither options nor a payload")
        if self.pick is None:
            if type(raw) is not str:  # a str subclass could compare equal to any id
                raise IllegalAnswer(self, f"expected one option id, got {_brief(raw)}")
            if raw not in self.option_ids:
                why = (self.refused or {}).get(raw)
                raise IllegalAnswer(self, f"{_brief(raw)} is not legal now ({why})" if why else f"{_brief(raw)} is not a legal option")
            return Answer(choice=raw, text=text, note=self._check_note(note, raw))
        if type(raw) is str:
            raw = [raw] if raw else []
        if not isinstance(raw, (list, tuple)) or not all(type(x) is str for x in raw):
            raise IllegalAnswer(self, f"expected a list of option ids, got {_brief(raw)}")
        lo, hi = self.pick
        if len(set(raw)) != len(raw):
            raise IllegalAnswer(self, f"an option was picked twice in {_brief(list(raw))}")
        if not lo <= len(raw) <= hi:
            raise IllegalAnswer(self, f"picked {len(raw)} options, must pick {lo}..{hi}")
        legal = set(self.option_ids)
        for x in raw:
            if x not in legal:
                why = (self.refused or {}).get(x)
                raise IllegalAnswer(self, f"{_brief(x)} is not legal now ({why})" if why else f"{_brief(x)} is not a legal option")
        return Answer(choices=in_option_order(raw, self.option_ids), text=text, note=self._check_note(note, "*"))

    def _is_envelope(self, raw: Mapping[str, Any]) -> bool:
        keys = set(raw)
        if self.payload_model is not None:
            return "payload" in keys and keys <= {"payload", "text", "note"}
        return bool(keys & {"choice", "choices"}) and keys <= {"choice", "choices", "text", "note"} \
            and not {"choice", "choices"} <= keys

    def _check_note(self, note: str | None, oid: str) -> str | None:
        """The game-relevant text with option ``oid`` (``notes``): required, allowed, or refused."""
        notes = self.notes
        mode = (notes.get(oid) or notes.get("*")) if notes else None
        if note is not None and not note.strip():
            note = None
        if note is None:
            if mode == "required":
                raise IllegalAnswer(self, f"{oid if oid != '*' else 'this answer'} needs a text with it (note): "
                                          "say why, in a few words")
            return None
        if mode is None:
            raise IllegalAnswer(self, "this answer takes no text (note); speech goes in text")
        if len(note) > NOTE_MAX:
            raise IllegalAnswer(self, f"the note is {len(note)} characters long; at most {NOTE_MAX}")
        return note

    def _check_payload(self, raw: Any) -> BaseModel:
        """The payload validated strictly, as JSON (``"1"``, ``1.0`` or ``true`` for a whole number are refused, not
        coerced), with no field the model does not have; an instance of the model is validated again (one made with
        ``model_construct`` skipped its checks)."""
        model = self.payload_model
        assert model is not None
        if isinstance(raw, BaseModel):
            try:
                raw = raw.model_dump(mode="json")
            except (PydanticSerializationError, TypeError, ValueError):  # model_construct with values of no JSON type
                raise IllegalAnswer(self, "the payload is not JSON data (a field holds a value JSON has no type for)") from None
        if isinstance(raw, (str, bytes)):  # JSON text: read it as data first, so that the same checks apply
            try:
                raw = json.loads(bytes(raw) if isinstance(raw, bytes) else str.__str__(raw), parse_constant=_no_constant)
            except (ValueError, RecursionError, UnicodeDecodeError) as e:
                reason = "nests too deeply" if isinstance(e, RecursionError) else str(e).split(":")[0]
                raise IllegalAnswer(self, f"the payload is not JSON ({reason})") from None
            if isinstance(raw, (dict, list)):
                values, depth = measure(raw, 100_000)
                if depth > MAX_ANSWER_DEPTH or values > ANSWER_MAX_VALUES:
                    raise IllegalAnswer(self, f"the payload nests more than {MAX_ANSWER_DEPTH} levels deep or holds "
                                              f"more than {ANSWER_MAX_VALUES} values")
        if isinstance(raw, Mapping):
            extra = [k for k in raw if k not in model.model_fields]
            if extra:
                raise IllegalAnswer(self, f"{model.__name__} has no field {_brief(extra[0])} (fields: "
                                          f"{', '.join(model.model_fields)})")
        try:
            text = json.dumps(raw, ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError, RecursionError):
            raise IllegalAnswer(self, f"the payload is not JSON data: {_brief(raw)}") from None
        try:
            value = model.model_validate_json(text, strict=True)
        except ValidationError as e:
            problems = "; ".join(f"{'.'.join(str(p) for p in err['loc']) or 'payload'}: {err['msg']}" for err in e.errors()[:5])
            raise IllegalAnswer(self, problems) from None
        if self.payload_check is not None:
            problem = self.payload_check(value)
            if problem:
                raise IllegalAnswer(self, problem)
        return value


@dataclass(slots=True, eq=False)
class Simultaneous:
    """One node of the rules that asks several actors at once (ARCHITECTURE 9): Last Fragment's SP and withdrawal
    declarations, face-down card bids. The rules yield it and receive ``{actor: Answer}`` once every member has
    answered. Until then the answers are held by the session, outside the game state; each member's answer event is
    sealed (seen by that member only, the GM included only when it is the member), and a ``reveal`` event makes
    them public together (``reveal_to``: ``None`` = everyone)."""

    decisions: Sequence[Decision]
    kind: str
    rule: str
    reveal_to: Sequence[str] | None = None

    def __post_init__(self) -> None:
        actors = [d.actor for d in self.decisions]
        if not actors:
            raise ValueError(f"{self.kind}: a simultaneous decision needs at least one member")
        if len(set(actors)) != len(actors):
            raise ValueError(f"{self.kind}: an actor is asked twice in one simultaneous decision ({actors})")
