"""One way to ask: the decision helpers every system's rules use (``yield from ask.choose(...)``).

Rules are generators that yield ``Decision``s (and ``Simultaneous`` nodes) and receive checked ``Answer``s; these
helpers build the decisions the same way for every system, so that a rule reads as the spec does:

- ``choose``: one option (a single legal option is not asked unless ``always_ask``: nothing to decide);
- ``choose_many``: a subset within bounds;
- ``ask_payload``: a typed payload (a pydantic model with its bounds, plus an optional cross-field check);
- ``poll``: ask each of several actors in turn (「A」's cooperation window: every non-acting player may offer);
- ``approve``: a GM approval with reason codes — options ``approve`` and ``reject:<code>`` — recorded as a
  ``ruling`` event, returning a typed ``Verdict``;
- ``simultaneous``: several actors at once, answers held and revealed together.

Options are ``(id, label)`` pairs; a label may be a function that makes it (``Label``), called only when someone
reads it. ``notes`` lets an option require or allow game-relevant text with it (``Answer.note``), kept apart from
speech (``text``), which never changes the game.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from .decision import Answer, Decision, Label, OptionList, Simultaneous, Window, chosen

if TYPE_CHECKING:
    from .session import GameContext

__all__ = ["Gen", "standing_answer", "choose", "choose_many", "ask_payload", "poll", "approve", "simultaneous", "Verdict", "options",
           "APPROVE", "REJECT"]

Gen = Generator[Any, Any, Any]
APPROVE = "approve"
REJECT = "reject"


def options(pairs: Sequence[tuple[str, Label]]) -> OptionList:
    """A decision's options from (id, label) pairs (``Option`` objects are made when someone reads them)."""
    return OptionList(pairs)


def _ctx(context: Mapping[str, Any] | None) -> Mapping[str, Any]:
    # `is None`, not `or`: a LazyContext must not be built just to test whether it is empty
    return context if context is not None else {}


def standing_answer(ctx: GameContext | None, actor: str, kind: str, rule: str, pairs: Sequence[tuple[str, Label]],
                    pick: tuple[int, int] | None, context: Mapping[str, Any] | None) -> Answer | None:
    """The answer of ``actor``'s standing answer to this window (``engine.core.standing``), or None: no standing
    answer, or it asks this time. Read before any ``Decision`` is made: a window its actor answered once and for all
    is resolved here (and logged by the session as an ``auto`` event), at the cost of reading its options and
    context only. Without ``ctx`` (a rule that has none) the session resolves the decision when it is yielded."""
    if ctx is None:
        return None
    standing = ctx.standing
    if not standing:
        return None
    sa = standing.get((actor, kind))
    if sa is None:
        return None
    return ctx.resolve_window(sa, Window(actor, kind, rule, pairs, pick, _ctx(context)))  # type: ignore[misc]


def choose(actor: str, kind: str, prompt: str, rule: str, pairs: Sequence[tuple[str, Label]], *,
           context: Mapping[str, Any] | None = None, refused: Mapping[str, str] | None = None,
           always_ask: bool = False, speech: bool = False, notes: Mapping[str, str] | None = None,
           answer: bool = False, ctx: GameContext | None = None) -> Gen:
    """Ask ``actor`` for one of ``pairs``; returns the chosen id (the whole ``Answer`` with ``answer=True``, e.g. to
    read its ``note``). A single legal option is not asked unless ``always_ask`` (or it requires a note). With the
    session's ``ctx``, a standing answer of the actor to ``kind`` answers without a decision (``standing_answer``)."""
    if not pairs:
        raise RuntimeError(f"{kind}: no legal option for {actor} (engine bug)")
    if len(pairs) == 1 and not always_ask and not notes:
        only = pairs[0][0]
        return (chosen(only) if type(only) is str else Answer(choice=only)) if answer else only
    if ctx is not None and not notes:
        standing = ctx.standing  # standing_answer, inlined: the path of hundreds of windows a session
        sa = standing.get((actor, kind)) if standing else None
        if sa is not None:
            auto = ctx.resolve_window(sa, Window(actor, kind, rule, pairs, None, _ctx(context)))  # type: ignore[misc]
            if auto is not None:
                return auto if answer else auto.choice
    ans = yield Decision(actor, kind, prompt, rule, options=options(pairs), context=_ctx(context), refused=refused,
                         speech=speech, notes=notes)
    return ans if answer else ans.choice


def choose_many(actor: str, kind: str, prompt: str, rule: str, pairs: Sequence[tuple[str, Label]], lo: int, hi: int,
                *, context: Mapping[str, Any] | None = None, refused: Mapping[str, str] | None = None,
                speech: bool = False, ctx: GameContext | None = None) -> Gen:
    """Ask ``actor`` for ``lo``..``hi`` distinct options; returns the chosen ids in option order (``ctx``: see
    ``choose``)."""
    if ctx is not None and ctx.standing:
        auto = standing_answer(ctx, actor, kind, rule, pairs, (lo, hi), context)
        if auto is not None:
            return list(auto.choices or ())
    ans = yield Decision(actor, kind, prompt, rule, options=options(pairs), pick=(lo, hi), context=_ctx(context),
                         refused=refused, speech=speech)
    return list(ans.choices or ())


def ask_payload(actor: str, kind: str, prompt: str, rule: str, model: type[BaseModel],
                check: Callable[[BaseModel], str | None] | None = None, *, context: Mapping[str, Any] | None = None,
                speech: bool = False, answer: bool = False, samples: Sequence[Any] | None = None,
                notes: Mapping[str, str] | None = None) -> Gen:
    """Ask ``actor`` for a ``model`` payload (``check``: a cross-field rule returning a problem text or None;
    ``samples``: legal example payloads, see ``Decision.samples``)."""
    ans = yield Decision(actor, kind, prompt, rule, payload_model=model, payload_check=check, context=_ctx(context),
                         speech=speech, samples=samples, notes=notes)
    return ans if answer else ans.payload


def poll(actors: Sequence[str], ask: Callable[[str], Gen]) -> Gen:
    """Ask each of ``actors`` in turn (``ask(actor)`` is one question, e.g. a ``choose``); returns actor → result.
    Each answer is given knowing the ones before (a cooperation window is open, not secret: see ``simultaneous``)."""
    out: dict[str, Any] = {}
    for a in actors:
        out[a] = yield from ask(a)
    return out


@dataclass(frozen=True, slots=True)
class Verdict:
    """A GM's ruling on one subject: approved, or rejected with a reason code (and the ruling's id in the log)."""

    approved: bool
    reason: str | None
    ruling: str
    note: str | None = None


def approve(ctx: GameContext, gm: str, kind: str, subject: str, prompt: str, rule: str,
            reasons: Mapping[str, str], *, context: Mapping[str, Any] | None = None, approve_label: str = "承認する",
            to: Sequence[str] | None = None, notes: Mapping[str, str] | None = None, data: Mapping[str, Any] | None = None,
            ) -> Gen:
    """Ask ``gm`` to approve ``subject`` or reject it with one of ``reasons`` (code → label, in the order offered);
    the ruling is recorded (``ruling`` event, audience ``to``) and returned as a ``Verdict``."""
    if not reasons:
        raise RuntimeError(f"{kind}: an approval needs at least one reason code to reject with (engine bug)")
    pairs: list[tuple[str, Label]] = [(APPROVE, approve_label)]
    pairs += [(f"{REJECT}:{code}", label) for code, label in reasons.items()]
    ans = yield Decision(gm, kind, prompt, rule, options=options(pairs), context=_ctx(context), notes=notes,
                         speech=True)
    choice = ans.choice or APPROVE
    code = None if choice == APPROVE else choice.split(":", 1)[1]
    text = "" if code is None else reasons[code]
    rid = ctx.ruling(gm, kind, subject, "approve" if code is None else "reject", code, text=text, rule=rule, to=to,
                     **dict(data or {}))
    return Verdict(code is None, code, rid, ans.note)


def simultaneous(decisions: Sequence[Decision], kind: str, rule: str, *, reveal_to: Sequence[str] | None = None) -> Gen:
    """Ask every decision's actor at once; returns actor → ``Answer`` after the reveal (see ``Simultaneous``)."""
    answers = yield Simultaneous(list(decisions), kind, rule, reveal_to)
    return answers
