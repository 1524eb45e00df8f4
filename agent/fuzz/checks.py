"""The invariants checked at every decision of a fuzzed session, whatever the system.

- The decision is well formed: an actor at the table with a role, a kind the system's decision table declares in the
  shape and seat it is asked, a rule and a prompt; options non-empty, with unique ids and unique non-empty labels,
  subset bounds within the options; a payload schema that builds; the decision serialises to JSON.
- The actor sees nothing it may not (ARCHITECTURE 8, ``engine.core.visibility``): every event in its transcript has
  it in its audience (or none), and no ``Secret`` of ``game.secrets()`` that it does not hold appears in its
  observation, in the decision, or anywhere in its transcript so far (the conformance suite's check, made
  incremental: the transcript is searched once per new secret and each new part once per secret).
- The system's own invariants (``SystemInfo.invariants``): resources in range, nobody asked who cannot act.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from engine.core.decision import Decision
from engine.core.decision_table import shape_of
from engine.core.events import CheckEvent
from engine.core.session import Session
from engine.core.visibility import seen_by, voided_checks

__all__ = ["Violation", "DecisionChecker", "decision_text", "LeakChecker", "MIN_SECRET_CHARS"]

#: secrets shorter than this are not searched for: a one-letter profile typed by the random agent is in every text
#: (the samples' secrets are sentences); they are counted (``LeakChecker.short_secrets``)
MIN_SECRET_CHARS = 8


class Violation(Exception):
    """An invariant broken at one decision (``seq``: -1 at the end of the session)."""

    def __init__(self, kind: str, problems: list[str], seq: int, decision_kind: str = ""):
        self.kind = kind
        self.problems = problems
        self.seq = seq
        self.decision_kind = decision_kind
        where = f" at decision #{seq} ({decision_kind})" if seq >= 0 else " at the end"
        super().__init__(f"{kind}{where}: " + "; ".join(problems[:5]) + (f" (+{len(problems) - 5} more)" if len(problems) > 5 else ""))


def decision_text(d: Decision) -> str:
    """What a decision shows its actor, as JSON: prompt, options (ids and labels), context (built), payload schema.
    Raises ``TypeError``/``ValueError`` when the decision does not serialise."""
    return json.dumps(d.to_dict(), ensure_ascii=False)


def well_formed(session: Session, d: Decision) -> list[str]:
    out: list[str] = []
    if not (d.kind and d.actor and d.rule and d.prompt):
        out.append(f"the decision lacks a kind, actor, rule or prompt: {d.kind!r} {d.actor!r} {d.rule!r}")
    actors = session.game.actors()
    if d.actor not in actors:
        out.append(f"{d.actor!r} is asked but is not an actor at the table ({', '.join(actors)})")
        return out
    try:
        role = session.actor_role(d.actor)
    except Exception as e:
        return out + [f"{d.actor!r} has no role ({type(e).__name__}: {e})"]
    table = session.system.decision_table
    spec = table.get(d.kind)
    if spec is None:
        out.append(f"{d.kind} is not in the system's decision table")
    else:
        problem = spec.mismatch(shape=shape_of(d), role=role)
        if problem:
            out.append(problem)
    if d.payload_model is None:
        ids = d.option_ids
        if not ids:
            out.append("no options")
        if len(set(ids)) != len(ids):
            out.append(f"duplicate option ids: {sorted(i for i in set(ids) if ids.count(i) > 1)[:5]}")
        if any(type(i) is not str or not i for i in ids):
            out.append("an option id is empty or not a plain string")
        labels = [o.label for o in d.options or ()]
        if not all(labels):
            out.append("an option without a label")
        if len(set(labels)) != len(labels):
            out.append(f"labels are not unique: {sorted(x for x in set(labels) if labels.count(x) > 1)[:5]}")
        if d.pick is not None:
            lo, hi = d.pick
            if not 0 <= lo <= hi <= len(ids):
                out.append(f"pick {d.pick} is not within 0..{len(ids)}")
    else:
        try:
            d.payload_schema()
        except Exception as e:
            out.append(f"the payload schema does not build ({type(e).__name__}: {e})")
    return out


class LeakChecker:
    """The seat-view check for one session: call ``check(session, decision)`` at every decision."""

    def __init__(self) -> None:
        self._cursor: dict[str, int] = {}
        self._text: dict[str, list[str]] = {}
        self._searched: dict[str, set[str]] = {}
        self._voided: set[str] = set()
        self.secrets_seen = 0
        self.short_secrets = 0

    def _new_events(self, session: Session, actor: str) -> list[Any]:
        """The events since the actor's last decision as it sees them: ``seat_transcript`` over the new events only,
        with the checks voided so far left out (a void comes after its check)."""
        events = session.events
        start = self._cursor.get(actor, 0)
        self._cursor[actor] = len(events)
        fresh = events[start:]
        self._voided |= voided_checks(fresh)
        out = []
        for e in fresh:
            if isinstance(e, CheckEvent) and e.id in self._voided:
                continue
            seen = seen_by(e, actor)
            if seen is not None:
                out.append(seen)
        return out

    def check(self, session: Session, d: Decision, decision_json: str) -> list[str]:
        actor = d.actor
        out: list[str] = []
        new = self._new_events(session, actor)
        for e in new:
            to = getattr(e, "to", None)
            if to is not None and actor not in to:
                out.append(f"a {getattr(e, 'type', '?')} event for {to} is in {actor}'s transcript")
        chunk = json.dumps([e.model_dump(mode="json") for e in new], ensure_ascii=False)
        parts = self._text.setdefault(actor, [])
        parts.append(chunk)
        searched = self._searched.setdefault(actor, set())
        views = {"observation": json.dumps(session.observation(actor), ensure_ascii=False, default=str),
                 "decision": decision_json}
        full: str | None = None
        secrets = session.game.secrets()
        # a text the actor holds itself is its own to see, whoever else holds the same words (two PCs created by the
        # scripted policy write one profile)
        own = {sec.text for sec in secrets if actor in sec.holders}
        for sec in secrets:
            if actor in sec.holders or sec.text in own:
                continue
            if len(sec.text) < MIN_SECRET_CHARS:
                self.short_secrets += 1
                continue
            self.secrets_seen += 1
            # as it appears inside JSON text (an id only as a whole id: ``Secret.ident``)
            for where, text in views.items():
                if sec.found_in(text):
                    out.append(f"{actor} sees a secret of {sorted(sec.holders)} in its {where}: {sec.text[:40]!r}")
            if sec.text in searched:
                hay = chunk
            else:
                searched.add(sec.text)
                if full is None:
                    full = "".join(parts)
                hay = full
            if sec.found_in(hay):
                out.append(f"{actor} sees a secret of {sorted(sec.holders)} in its transcript: {sec.text[:40]!r}")
        return out


class DecisionChecker:
    """Every invariant at one decision; raises ``Violation`` on the first decision that breaks any."""

    def __init__(self, session: Session, system_invariants: Callable[[Any, Any], list[str]] | None):
        self.session = session
        self.system_invariants = system_invariants
        self.leaks = LeakChecker()
        self.checked = 0

    def check(self, d: Decision) -> None:
        s = self.session
        problems = well_formed(s, d)
        try:
            text = decision_text(d)
        except (TypeError, ValueError) as e:
            problems.append(f"the decision does not serialise to JSON ({e})")
        if problems:
            raise Violation("malformed decision", problems, d.seq, d.kind)
        problems = self.leaks.check(s, d, text)
        if problems:
            raise Violation("seat view leak", problems, d.seq, d.kind)
        if self.system_invariants is not None:
            problems = list(self.system_invariants(s.game, d))
            if problems:
                raise Violation("system invariant", problems, d.seq, d.kind)
        self.checked += 1

    def at_end(self) -> None:
        if self.system_invariants is not None:
            problems = list(self.system_invariants(self.session.game, None))
            if problems:
                raise Violation("system invariant", problems, -1)
