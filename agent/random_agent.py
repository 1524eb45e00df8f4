"""The random agent: uniform over the legal answers; the fuzzer of the conformance suite and the research floor.

It keeps no state between decisions: every decision gets its own stream of draws, a counter-based generator
(SplitMix64) keyed by a BLAKE2 hash of (seed, decision.seq, actor), so a resumed session draws exactly what the
uninterrupted one drew, in any process (``hash()`` of a str is salted per process; a new ``random.Random`` seeded
from a string at every decision was a quarter of a random session's time). Payloads are
fuzzed from the decision's schema (the engine must refuse what is not legal); the decision's own legal samples are
used only when no fuzzed payload passes.
"""

from __future__ import annotations

import hashlib
import math
import re
import string
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from engine.core.decision import IllegalAnswer

if TYPE_CHECKING:
    from engine.core.decision import Decision
    from engine.core.seat import SeatView

__all__ = ["RandomAgent", "payload_from_schema", "Draws"]

#: tries at building a payload from the JSON schema before handing the last one to the table (which re-asks/falls back)
PAYLOAD_TRIES = 20
_ALPHABET = string.ascii_lowercase + "あいうえおかきくけこ"
_INT_SPAN = 10  # half-open bounds get this span


_MASK = (1 << 64) - 1
_GAMMA = 0x9E3779B97F4A7C15


class Draws:
    """A counter-based stream of draws (SplitMix64, keyed by a 64-bit hash of its key): the subset of
    ``random.Random`` the agent and the payload fuzzer use, cheap to start for one decision."""

    __slots__ = ("_x",)

    def __init__(self, key: str):
        self._x = int.from_bytes(hashlib.blake2b(key.encode("utf-8"), digest_size=8).digest(), "little")

    def _next(self) -> int:
        self._x = x = (self._x + _GAMMA) & _MASK
        z = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """An integer in [0, n) (n ≤ 2**32: the modulo bias is below 2**-32)."""
        return self._next() % n

    def random(self) -> float:
        return (self._next() >> 11) * (1.0 / (1 << 53))

    def randint(self, lo: int, hi: int) -> int:
        return lo + self.below(hi - lo + 1)

    def uniform(self, lo: float, hi: float) -> float:
        return lo + (hi - lo) * self.random()

    def choice(self, seq: Sequence[Any]) -> Any:
        if not seq:
            raise IndexError("cannot choose from an empty sequence")
        return seq[self.below(len(seq))]

    def sample(self, seq: Sequence[Any], k: int) -> list[Any]:
        pool = list(seq)
        out = []
        for i in range(k):
            j = i + self.below(len(pool) - i)
            pool[i], pool[j] = pool[j], pool[i]
            out.append(pool[i])
        return out


class RandomAgent:
    """Uniform random legal play, seeded; ``act`` depends only on (seed, decision)."""

    name = "random"

    def __init__(self, seed: int = 0):
        self.seed = seed

    def rng_for(self, decision: Decision) -> Draws:
        return Draws(f"{self.seed}:{decision.seq}:{decision.actor}")

    def act(self, view: SeatView) -> Any:
        return self.answer_for(view.decision)

    def answer_for(self, decision: Decision) -> Any:
        """The answer to ``decision``: a function of (seed, decision) only."""
        rng = self.rng_for(decision)
        if decision.payload_model is not None:
            return self._payload(decision, rng)
        ids = decision.option_ids
        if decision.pick is None:
            if not ids:
                raise ValueError(f"decision {decision.kind} for {decision.actor} has no legal option")
            return rng.choice(ids)
        lo, hi = decision.pick
        lo, hi = max(0, lo), min(hi, len(ids))
        if lo > hi:
            raise ValueError(f"decision {decision.kind} asks for {decision.pick} options out of {len(ids)}")
        k = rng.randint(lo, hi)
        return rng.sample(ids, k)

    def notify_illegal(self, error: IllegalAnswer) -> None:
        """Nothing to learn: the answer is a function of the decision (the table falls back after its retries)."""

    def _payload(self, decision: Decision, rng: Draws) -> Any:
        """A payload fuzzed from the decision's JSON schema (up to ``PAYLOAD_TRIES`` until the engine accepts one);
        if none passes, one of the decision's legal samples; else the last fuzzed one (the table refuses it and
        deals with it)."""
        schema = decision.payload_schema() or {}
        candidate: Any = {}
        for _ in range(PAYLOAD_TRIES):
            candidate = payload_from_schema(schema, rng)
            try:
                decision.check({"payload": candidate})
            except IllegalAnswer:
                continue
            return {"payload": candidate}
        if decision.samples:
            return {"payload": rng.choice(list(decision.samples))}
        return {"payload": candidate}


def _resolve(schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    seen = 0
    while "$ref" in schema and seen < 32:
        ref = schema["$ref"]
        if not ref.startswith("#/"):
            raise ValueError(f"cannot follow schema reference {ref!r}")
        node: Any = root
        for part in ref[2:].split("/"):
            node = node[part]
        schema = {**node, **{k: v for k, v in schema.items() if k != "$ref"}}
        seen += 1
    return schema


def payload_from_schema(schema: dict[str, Any], rng: Any, root: dict[str, Any] | None = None) -> Any:
    """A random value that satisfies the common subset of JSON Schema that pydantic emits (bounds, enums, refs)."""
    root = schema if root is None else root
    s = _resolve(schema, root)
    if "const" in s:
        return s["const"]
    if "enum" in s:
        return rng.choice(list(s["enum"]))
    for key in ("anyOf", "oneOf"):
        if key in s:
            return payload_from_schema(rng.choice(s[key]), rng, root)
    if "allOf" in s and len(s["allOf"]) == 1:
        return payload_from_schema(s["allOf"][0], rng, root)
    t = s.get("type")
    if isinstance(t, list):
        t = rng.choice(t)
    if t == "null":
        return None
    if t == "boolean":
        return rng.random() < 0.5
    if t == "integer":
        lo, hi = _int_bounds(s)
        return rng.randint(lo, hi)
    if t == "number":
        lo_f, hi_f = _int_bounds(s)
        return round(rng.uniform(lo_f, hi_f), 3)
    if t == "string":
        alternatives = _alternatives(s.get("pattern"))
        if alternatives:
            return rng.choice(alternatives)
        lo_n = int(s.get("minLength", 1))
        hi_n = max(lo_n, min(int(s.get("maxLength", lo_n + 8)), lo_n + 8))
        lo_n = max(lo_n, min(3, hi_n))  # a one-letter text is in every observation: it could not tell a leak
        return "".join(rng.choice(_ALPHABET) for _ in range(rng.randint(lo_n, hi_n)))
    if t == "array":
        lo_n = int(s.get("minItems", 0))
        hi_n = max(lo_n, min(int(s.get("maxItems", lo_n + 3)), lo_n + 3))
        if "prefixItems" in s:
            return [payload_from_schema(x, rng, root) for x in s["prefixItems"]]
        items = s.get("items", {})
        out = [payload_from_schema(items, rng, root) for _ in range(rng.randint(lo_n, hi_n))]
        if s.get("uniqueItems"):
            uniq: list[Any] = []
            for x in out:
                if x not in uniq:
                    uniq.append(x)
            out = uniq
        return out
    if t == "object" or "properties" in s:
        props: dict[str, Any] = s.get("properties", {})
        required = set(s.get("required", ()))
        obj: dict[str, Any] = {}
        for name, sub in props.items():
            if name in required or rng.random() < 0.5:
                obj[name] = payload_from_schema(sub, rng, root)
        return obj
    if "default" in s:
        return s["default"]
    return None


_ALTERNATION = re.compile(r"^\^?\(?((?:[A-Za-z0-9_\-]+\|)*[A-Za-z0-9_\-]+)\)?\$?$")


def _alternatives(pattern: Any) -> list[str]:
    """The words of a ``^(a|b|c)$`` pattern (how pydantic models spell a closed set of strings), else []."""
    if not isinstance(pattern, str):
        return []
    m = _ALTERNATION.match(pattern)
    return m.group(1).split("|") if m and pattern.startswith("^") else []


def _int_bounds(s: dict[str, Any]) -> tuple[int, int]:
    """Integer bounds from minimum/maximum (or their exclusive forms); a missing side is _INT_SPAN away."""
    lo: float | None = s.get("minimum")
    hi: float | None = s.get("maximum")
    if lo is None and "exclusiveMinimum" in s:
        lo = math.floor(s["exclusiveMinimum"]) + 1
    if hi is None and "exclusiveMaximum" in s:
        hi = math.ceil(s["exclusiveMaximum"]) - 1
    if lo is None:
        lo = hi - _INT_SPAN if hi is not None else 0
    if hi is None:
        hi = lo + _INT_SPAN
    lo_i, hi_i = math.ceil(lo), math.floor(hi)
    return lo_i, max(lo_i, hi_i)
