"""Decisions, answers and illegal answers: the whole surface between the engine and whoever sits at the table.

A ``Decision`` says who decides (``actor``), what (``kind``: the id from the system's decision table), under which
rule (``rule``: the spec section), and what is legal: a list of options with stable ids (pick one, or pick a
subset within bounds), or a typed payload (a pydantic model with its bounds, plus an optional cross-field check).
``Decision.check`` is the checked door for outside answers: it raises ``IllegalAnswer`` naming the decision, the
rule and what was legal, and it runs before any rule code sees the answer, so a refused answer changes nothing.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ValidationError

__all__ = ["Option", "OptionList", "Label", "Decision", "Answer", "IllegalAnswer", "LazyContext", "LazyMap", "plain"]


class LazyContext(Mapping[str, Any]):
    """A decision context whose keys are built on first read, each on its own (``thunks``: key → function), for
    contexts that cost more than the decision is worth when nobody reads them (a scripted combat answer reads two or
    three keys of the battlefield). ``extra`` keys are plain values. The rules are suspended at the decision while
    it is pending, so a key read later is the one of the moment it was asked. ``plain`` turns it, and any lazy
    mapping inside, into plain dicts (for JSON and prompts).

    ``args``: what every thunk is called with, so that one table of functions can serve every decision (``thunks``
    is kept, not copied: it must not change afterwards)."""

    __slots__ = ("_thunks", "_extra", "_data", "_args")

    def __init__(self, thunks: Mapping[str, Callable[..., Any]], extra: Mapping[str, Any] | None = None,
                 args: tuple[Any, ...] = ()):
        self._thunks = thunks
        self._extra = dict(extra) if extra else {}
        self._data: dict[str, Any] = {}
        self._args = args

    def plus(self, **more: Any) -> LazyContext:
        """The same lazy context with more (cheap) keys."""
        return LazyContext(self._thunks, {**self._extra, **more}, self._args)

    def __getitem__(self, key: str) -> Any:
        if key in self._extra:
            return self._extra[key]
        data = self._data
        if key in data:
            return data[key]
        v = data[key] = self._thunks[key](*self._args)  # KeyError for an unknown key, as a dict
        return v

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
        v = data[key] = thunk(*self._args)
        return v

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

    __slots__ = ("_keys", "_known", "_fn", "_data")

    def __init__(self, keys: Sequence[str], fn: Callable[[str], Any]):
        self._keys = list(keys)
        self._known = frozenset(self._keys)
        self._fn = fn
        self._data: dict[str, Any] = {}

    def __getitem__(self, key: str) -> Any:
        data = self._data
        if key in data:
            return data[key]
        if key not in self._known:
            raise KeyError(key)
        v = data[key] = self._fn(key)
        return v

    def get(self, key: str, default: Any = None) -> Any:
        data = self._data
        if key in data:
            return data[key]
        if key not in self._known:
            return default
        v = data[key] = self._fn(key)
        return v

    def __contains__(self, key: object) -> bool:
        return key in self._known

    def __iter__(self) -> Any:
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)

    def __repr__(self) -> str:
        return f"LazyMap({len(self._data)}/{len(self._keys)} built)"


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

    __slots__ = ("_pairs", "_built")

    def __init__(self, pairs: Sequence[tuple[str, Label]]):
        self._pairs = tuple(pairs)
        self._built: list[Option] | None = None

    def _list(self) -> list[Option]:
        built = self._built
        if built is None:
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
    """A normalised answer. Exactly one of choice / choices / payload is set; ``text`` is optional speech."""

    choice: str | None = None
    choices: tuple[str, ...] | None = None
    payload: BaseModel | None = None
    text: str | None = None

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
        return d


class IllegalAnswer(ValueError):
    """An answer the rules do not allow now. The session's state is unchanged when this is raised."""

    def __init__(self, decision: Decision, problem: str):
        self.decision = decision
        self.problem = problem
        super().__init__(f"illegal answer to {decision.kind} ({decision.rule}) for {decision.actor}: {problem}; legal: {decision.legal_summary()}")


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
    seq: int = -1
    _observe: Callable[[], dict[str, Any]] | None = None
    _obs_cache: dict[str, Any] | None = None
    _ids_cache: list[str] | None = None

    # -- what the actor may know -------------------------------------------------------------------------------
    @property
    def observation(self) -> dict[str, Any]:
        """The actor's observation, computed once on demand (scripted agents rarely need it)."""
        if self._obs_cache is None:
            self._obs_cache = self._observe() if self._observe is not None else {}
        return self._obs_cache

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
        """Validate an outside answer and normalise it. Raises IllegalAnswer; never mutates anything."""
        if type(raw) is str and self.pick is None and self.payload_model is None and self.options is not None:
            if raw in self.option_ids:  # the common case first: one option id, as scripted policies answer
                return Answer(choice=raw)
        text: str | None = None
        if isinstance(raw, Answer):
            if raw.payload is not None and self.payload_model is not None and not isinstance(raw.payload, self.payload_model):
                raw = {"payload": raw.payload.model_dump(mode="json"), "text": raw.text}
            else:
                text = raw.text
                raw = raw.choice if raw.choice is not None else (list(raw.choices) if raw.choices is not None else raw.payload)
        if isinstance(raw, Mapping) and raw and set(raw) <= {"choice", "choices", "payload", "text"} and set(raw) & {"choice", "choices", "payload"}:
            text = raw.get("text")
            if text is not None and not isinstance(text, str):
                raise IllegalAnswer(self, "text must be a string")
            if "payload" in raw:
                raw = raw["payload"]
            elif "choices" in raw:
                raw = raw["choices"]
            elif "choice" in raw:
                raw = raw["choice"]
            else:
                raw = None
        if self.payload_model is not None:
            return Answer(payload=self._check_payload(raw), text=text)
        if self.options is None:
            raise IllegalAnswer(self, "this decision has neither options nor a payload")
        if self.pick is None:
            if not isinstance(raw, str):
                raise IllegalAnswer(self, f"expected one option id, got {raw!r}")
            if not any(o.id == raw for o in self.options):
                why = (self.refused or {}).get(raw)
                raise IllegalAnswer(self, f"{raw!r} is not legal now ({why})" if why else f"{raw!r} is not a legal option")
            return Answer(choice=raw, text=text)
        if isinstance(raw, str):
            raw = [raw] if raw else []
        if not isinstance(raw, (list, tuple)) or not all(isinstance(x, str) for x in raw):
            raise IllegalAnswer(self, f"expected a list of option ids, got {raw!r}")
        lo, hi = self.pick
        if len(set(raw)) != len(raw):
            raise IllegalAnswer(self, f"an option was picked twice in {list(raw)!r}")
        if not lo <= len(raw) <= hi:
            raise IllegalAnswer(self, f"picked {len(raw)} options, must pick {lo}..{hi}")
        legal = set(self.option_ids)
        for x in raw:
            if x not in legal:
                why = (self.refused or {}).get(x)
                raise IllegalAnswer(self, f"{x!r} is not legal now ({why})" if why else f"{x!r} is not a legal option")
        order = {oid: i for i, oid in enumerate(self.option_ids)}
        return Answer(choices=tuple(sorted(raw, key=order.__getitem__)), text=text)

    def _check_payload(self, raw: Any) -> BaseModel:
        assert self.payload_model is not None
        if isinstance(raw, self.payload_model):
            value = raw
        else:
            try:
                if isinstance(raw, (str, bytes)):
                    value = self.payload_model.model_validate_json(raw)
                else:
                    value = self.payload_model.model_validate(raw)
            except ValidationError as e:
                problems = "; ".join(f"{'.'.join(str(p) for p in err['loc']) or 'payload'}: {err['msg']}" for err in e.errors())
                raise IllegalAnswer(self, problems) from None
        if self.payload_check is not None:
            problem = self.payload_check(value)
            if problem:
                raise IllegalAnswer(self, problem)
        return value
