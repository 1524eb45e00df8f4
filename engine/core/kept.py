"""Values derived from the table and kept between questions, and the debug mode that checks them.

Rules code may keep a value derived from the table (a combatant's legal targets, its view in a combat decision's
context, the PCs in order) and reuse it while a key says it still holds: ``Context.version`` moves at every state
change, ``Context.heads[h]`` at every change under one character or part of the table. Such a value is right only
while every change it depends on goes through ``ctx.state`` — a rule that mutates the table behind the log's back
makes it stale, and a stale value makes play and replay differ.

The debug mode recomputes every kept value at each reuse and compares it with the kept one: a difference raises
``StaleKept`` naming the cache, its key and both values. It is on when the environment has ``TRPG_CHECK_KEPT=1``
(set it for a whole run: ``TRPG_CHECK_KEPT=1 trpg playtest …``) or inside ``checking_kept()``; the conformance suite
and the property tests run every system in it. It changes no result, only the cost (each reuse computes twice).

A cache site reads::

    hit = …kept value…
    if hit is not None and <key matches>:
        if kept.CHECK:
            kept.confirm("legal_targets", key, hit_value, lambda: self._legal_targets(c, src))
        return hit_value
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

__all__ = ["CHECK", "StaleKept", "confirm", "checking_kept", "same_objects"]

T = TypeVar("T")

#: whether every reuse of a kept value recomputes it and compares (the debug mode)
CHECK: bool = os.environ.get("TRPG_CHECK_KEPT", "") not in ("", "0")


class StaleKept(AssertionError):
    """A kept value differs from the value recomputed from the table now: a change it depends on did not go through
    ``ctx.state`` (or its key misses a part of the table it reads). An engine bug, never a user's error."""


def confirm(name: str, key: Any, kept: T, compute: Callable[[], Any],
            view: Callable[[Any], Any] | None = None) -> T:
    """Recompute a kept value and compare (``view`` maps both to what is compared, e.g. ids and identities of
    characters, whose own ``==`` compares whole sheets). Returns ``kept``; raises ``StaleKept`` on a difference."""
    fresh = compute()
    a, b = (view(kept), view(fresh)) if view is not None else (kept, fresh)
    if a != b:
        raise StaleKept(f"kept value {name!r} (key {key!r}) is stale: kept {a!r}, recomputed from the table {b!r}; "
                        "a change it depends on did not go through ctx.state, or its key misses what it reads")
    return kept


def same_objects(xs: Any) -> list[tuple[Any, int]]:
    """A list of objects as (their ``id`` attribute, identity): for ``view=`` when the kept value holds the table's
    own objects (characters), which must be the very objects of the table now."""
    return [(getattr(x, "id", None), id(x)) for x in xs]


@contextmanager
def checking_kept(on: bool = True) -> Iterator[None]:
    """Turn the debug mode on (or off) for a block: for tests and the conformance suite."""
    global CHECK
    was = CHECK
    CHECK = on
    try:
        yield
    finally:
        CHECK = was
