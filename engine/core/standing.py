"""Standing answers (the "stops" of online card games): a seat's answer to a kind of mechanical reaction window,
declared once instead of given at every window.

A system declares, in its decision table, a small vocabulary per reaction kind (``DecisionSpec.standing``): each
``StandingAnswer`` has an ASCII id, the words a player reads, and a ``resolve(decision)`` that reads only the
decision (its options and context, which its actor may see) and returns the answer, or ``None`` to ask after all
(an "always X" when X is not legal this time). ``default`` is the spec's scripted default for the window.

A session is given the declared answers (``Session(standing=...)``, written in the log's header) and may have them
changed between decisions (``Session.set_standing``, a ``standing`` event in the log: an input, like an answer).
When the rules ask a window that has a standing answer, the session resolves it without numbering, logging or
asking a decision; when it records, it logs an ``auto`` event (who, which window, which standing answer, the
answer), so a transcript says which windows were resolved by them and a replay regenerates exactly the same log.
Sessions without standing answers log exactly what they always did.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .decision import Decision
    from .decision_table import DecisionSpec

__all__ = ["StandingAnswer", "StandingError", "always", "never", "DEFAULT", "standing_resolvers", "standing_entry",
           "standing_window",
           "standing_menu", "declared_kinds", "first_of"]

#: the id of the spec's scripted default, in every vocabulary that has one
DEFAULT = "default"


class StandingError(ValueError):
    """A standing answer that cannot be declared: unknown decision kind, not a reaction window, unknown answer."""


@dataclass(frozen=True, slots=True)
class StandingAnswer:
    id: str
    #: what a player reads (Japanese in the systems' tables)
    label: str
    #: decision → the answer (an option id, a list of ids for a subset), or None: ask the seat this time
    resolve: Callable[[Decision], Any]
    doc: str = ""


def always(option: str, label: str, doc: str = "") -> StandingAnswer:
    """"Always ``option``" (id ``always:<option>``); asked as usual when ``option`` is not legal at that window."""

    def resolve(d: Decision) -> Any:
        return option if option in d.option_ids else None

    return StandingAnswer(f"always:{option}", label, resolve, doc)


def never(label: str, doc: str = "") -> StandingAnswer:
    """For a subset window: pick nothing (id ``never``), when picking nothing is legal."""

    def resolve(d: Decision) -> Any:
        return [] if d.pick is not None and d.pick[0] == 0 else None

    return StandingAnswer("never", label, resolve, doc)


def first_of(d: Decision, *prefer: str) -> str:
    """The first of ``prefer`` that is an option of ``d``, else its first option (the specs' "prefer X, else Y,
    else the first" defaults)."""
    ids = d.option_ids
    for p in prefer:
        if p in ids:
            return p
    return ids[0]


def standing_resolvers(table: Mapping[str, DecisionSpec], declared: Mapping[str, Mapping[str, str | None]],
                       roles: Mapping[str, str] | None = None) -> dict[str, dict[str, StandingAnswer]]:
    """Validate declared standing answers (actor → kind → answer id; None drops one) against a decision table;
    returns actor → kind → the declared ``StandingAnswer`` (sorted, without the dropped ones: what the session
    resolves windows with). ``roles``: actor → seat role, to refuse an actor the game does not have or a window its
    role is never asked."""
    out: dict[str, dict[str, StandingAnswer]] = {}
    for actor in sorted(declared):
        kinds = declared[actor]
        if not isinstance(actor, str) or not isinstance(kinds, Mapping):
            raise StandingError(f"standing answers: expected actor → {{decision kind: answer}}, got {actor!r}: {kinds!r}")
        if roles is not None and actor not in roles:
            raise StandingError(f"standing answers for {actor!r}: no such character here (known: {', '.join(roles)})")
        mine: dict[str, StandingAnswer] = {}
        for kind in sorted(kinds):
            sid = kinds[kind]
            if sid is None:
                continue
            spec, sa = standing_entry(table, kind, sid, actor)
            if roles is not None and spec.who != "any" and spec.who != roles[actor]:
                raise StandingError(f"standing answer for {actor!r}: {kind} is asked of the {spec.who} seat, "
                                    f"{actor} sits in the {roles[actor]} seat")
            mine[kind] = sa
        if mine:
            out[actor] = mine
    return out


def standing_window(table: Mapping[str, DecisionSpec], kind: str, actor: str = "") -> DecisionSpec:
    """The decision spec of ``kind`` if it is a window with standing answers; else ``StandingError``."""
    spec = table.get(kind)
    if spec is not None and spec.standing:
        return spec
    who = f" for {actor!r}" if actor else ""
    if spec is None:
        windows = ", ".join(k for k, s in table.items() if s.standing) or "none"
        raise StandingError(f"standing answer{who}: {kind!r} is not a decision of this system (windows with standing "
                            f"answers: {windows})")
    if not spec.standing:
        raise StandingError(f"standing answer{who}: {kind} ({spec.rule}) is not a reaction window with standing "
                            "answers; it is always asked")
    return spec


def standing_entry(table: Mapping[str, DecisionSpec], kind: str, sid: str, actor: str = "") -> tuple[DecisionSpec, StandingAnswer]:
    """The decision spec and standing answer ``sid`` of ``kind``; ``StandingError`` naming what is legal."""
    spec = standing_window(table, kind, actor)
    for sa in spec.standing:
        if sa.id == sid:
            return spec, sa
    who = f" for {actor!r}" if actor else ""
    raise StandingError(f"standing answer{who} for {kind} ({spec.rule}): {sid!r} is not one of "
                        + ", ".join(sa.id for sa in spec.standing))


def standing_menu(table: Mapping[str, DecisionSpec], role: str) -> list[tuple[DecisionSpec, Sequence[StandingAnswer]]]:
    """The windows a ``role`` seat may give standing answers to, with their vocabularies, in table order."""
    return [(spec, spec.standing) for spec in table.values() if spec.standing and spec.who in ("any", role)]


def declared_kinds(table: Mapping[str, DecisionSpec], role: str, answer: str = DEFAULT,
                   kinds: Iterable[str] | None = None) -> dict[str, str]:
    """kind → ``answer`` for every window of ``role`` whose vocabulary has it (e.g. every scripted default)."""
    wanted = set(kinds) if kinds is not None else None
    out: dict[str, str] = {}
    for spec in table.values():  # (standing_menu's windows, read in one pass: every seat of every session)
        vocab = spec.standing
        if vocab and (spec.who == "any" or spec.who == role) and (wanted is None or spec.kind in wanted):
            for sa in vocab:
                if sa.id == answer:
                    out[spec.kind] = answer
                    break
    return out
