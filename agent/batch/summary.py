"""One finished session → a small, picklable, JSON-able summary (what the batch aggregator needs, nothing more).

The events are read as the session keeps them (``(class, fields)`` tuples until someone materializes them), so a
summary costs no pydantic model construction. Per-system knowledge (how to read a check's success probability,
which resources matter, which outcomes are losses) comes from the system's ``SystemInfo.report``
(``engine.core.report_hooks.ReportHooks``); a system without one gets the generic hooks (counts only). A check
that a later ``void`` event retracted is left out of every statistic.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping
from typing import Any

from pydantic import BaseModel

from engine.core.events import (
    CheckEvent,
    AutoEvent,
    DecisionEvent,
    InfoEvent,
    ModelCallEvent,
    PhaseEvent,
    RollEvent,
    StateEvent,
    VoidEvent,
)
from engine.core.registry import get_system
from engine.core.report_hooks import CheckEntry, ReportHooks

__all__ = [
    "summarize",
    "Summarizer",
    "SUMMARY_EVENTS",
    "SystemHooks",
    "GENERIC",
    "hooks_for",
    "CAP_TOPICS",
    "CheckEntry",
]

#: info topics that mean a safety cap cut something short
CAP_TOPICS = frozenset({"round_cap", "scene_cap"})
#: the label of a session the table stopped at its decision cap (a rules or policy loop)
DECISION_CAP = "decision_cap"

#: the hooks' shape (defined by the engine, filled in by each system)
SystemHooks = ReportHooks
GENERIC = ReportHooks()


def _hooks(system: Any) -> ReportHooks:
    hooks = getattr(system, "report", None)
    return hooks if isinstance(hooks, ReportHooks) else GENERIC


def hooks_for(system_id: str) -> ReportHooks:
    """The report hooks of a registered system (the generic ones for an unknown id or a system without)."""
    try:
        return _hooks(get_system(system_id))
    except ValueError:
        return GENERIC


def _pc_label(v: Any) -> str:
    if isinstance(v, Mapping):
        return str(v.get("status", "?"))
    return str(v)


# -- reading the events ----------------------------------------------------------------------------------------------
def _raw_events(session: Any) -> Iterator[tuple[type, Mapping[str, Any]]]:
    """(event class, fields) without building pydantic models for the events the session kept lazily."""
    for e in getattr(session, "_events", None) or session.events:
        if type(e) is tuple:
            yield e[0], e[1]
        else:
            yield type(e), e.__dict__


#: the event classes a summary that watches its session reads (``Summarizer.watch``: the dice and the decisions by
#: kind come from the session), handed to ``Session(on_event_kinds=...)``: the other events are not built for it
SUMMARY_EVENTS: frozenset[type[BaseModel]] = frozenset({
    PhaseEvent, StateEvent, InfoEvent, CheckEvent, VoidEvent, ModelCallEvent})


class _DiceSince(Mapping[str, list[int]]):
    """The dice rolled since the previous check, by purpose, read from the session's own roll list when a report hook
    first asks (most systems' hooks read the check's typed dice lines instead)."""

    __slots__ = ("_rolls", "_start", "_end", "_by")

    def __init__(self, rolls: list[Any], start: int, end: int):
        self._rolls = rolls
        self._start = start
        self._end = end
        self._by: dict[str, list[int]] | None = None

    def _built(self) -> dict[str, list[int]]:
        by = self._by
        if by is None:
            by = self._by = {}
            for i in range(self._start, self._end):
                r = self._rolls[i]
                by.setdefault(r.purpose, []).append(r.value)
        return by

    def _of(self, key: str) -> list[int] | None:
        by = self._by
        if by is not None:
            return by.get(key)
        # one purpose: a scan of the rolls in range, without sorting every roll by purpose (a shoe's shuffle is a
        # hundred rolls; a hook asks for a roller's first roll or two)
        found = [r.value for r in self._rolls[self._start:self._end] if r.purpose == key]
        return found or None

    def __getitem__(self, key: str) -> list[int]:
        found = self._of(key)
        if found is None:
            raise KeyError(key)
        return found

    def get(self, key: str, default: Any = None) -> Any:
        found = self._of(key)
        return default if found is None else found

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self._of(key) is not None

    def __iter__(self) -> Iterator[str]:
        return iter(self._built())

    def __len__(self) -> int:
        return len(self._built())


class Summarizer:
    """The summary of one session built as its events happen (``Session(on_event=summarizer.feed)``), so that a
    batch keeps no events: what it holds is the counters, the scenes, the tracked resources and, per check, its
    few statistics entries (a later ``void`` may still retract a check). ``finish`` gives the same summary that
    ``summarize`` gives of the session's kept events."""

    def __init__(self, system: Any):
        hooks = self.hooks = _hooks(system)
        self._stats = frozenset(hooks.stats)
        self.kinds: Counter[str] = Counter()
        self.rules: Counter[str] = Counter()
        self.topics: Counter[str] = Counter()
        #: (the check it came from or None, effect id), in event order: a voided check's effects are left out
        self.effect_log: list[tuple[str | None, str]] = []
        #: (check id, its statistics entries), in event order
        self.check_log: list[tuple[str | None, list[Any]]] = []
        self.voided: set[str] = set()
        self.scenes: list[str] = []
        self.dice: dict[str, list[int]] = {}  # the dice rolled since the previous check, by purpose
        #: the session's roll list when the summary reads the dice there instead of roll events (``watch``)
        self._rolls: list[Any] | None = None
        self._rolled = 0
        #: the session's decisions and resolved windows by kind (``Session.kinds``) when watching it
        self._kinds: Mapping[str, int] | None = None
        self.caps: list[str] = []
        # every "<who>.<stat>" path of a reported stat (which of them are the PCs' is known at the end)
        self.first_old: dict[str, Any] = {}
        self.current: dict[str, Any] = {}
        self.at_scene: list[tuple[str, dict[str, Any]]] = []
        self.llm = {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "cached_tokens": 0, "reasks": 0,
                    "errors": 0, "fallbacks": 0}
        self.frozen: dict[str, Any] | None = None  # values when hooks.end_before_phase began

    def feed(self, cls: type, f: Mapping[str, Any]) -> None:
        """One event, as the session emits it: its class and fields."""
        hooks = self.hooks
        if cls is RollEvent:  # the most frequent first
            self.dice.setdefault(f["purpose"], []).append(f["value"])
        elif cls is PhaseEvent:
            if self.frozen is None and hooks.end_before_phase is not None and f.get("machine") == "session" \
                    and f.get("dst") == hooks.end_before_phase:
                self.frozen = dict(self.current)
        elif cls is DecisionEvent or cls is AutoEvent:  # every window: asked, or resolved by a standing answer
            self.kinds[f["kind"]] += 1
        elif cls is StateEvent:
            self.rules[f.get("rule") or "(no rule)"] += 1
            path = f["path"]
            if hooks.effect_from_state is not None:
                eid = hooks.effect_from_state(path, f.get("new"))
                if eid:
                    self.effect_log.append((None, eid))
            if path.partition(".")[2] in self._stats:
                if path not in self.first_old:
                    self.first_old[path] = f.get("old")
                self.current[path] = f.get("new")
        elif cls is InfoEvent:
            topic = f["topic"]
            self.topics[topic] += 1
            data = f.get("data") or {}
            if topic == "scene" and data.get("scene") is not None:
                sid = str(data["scene"])
                self.scenes.append(sid)
                self.at_scene.append((sid, dict(self.current)))
            elif topic in CAP_TOPICS or topic in hooks.cap_topics:
                self.caps.append(topic)
            elif topic == "fallback":
                self.llm["fallbacks"] += 1
            if topic in hooks.effect_topics:
                eid = data.get(hooks.effect_topics[topic])
                if eid:
                    self.effect_log.append((None, f"{data.get('who', '?')}:{eid}"))
        elif cls is CheckEvent:
            data = f.get("data") or {}
            cid = f.get("id")
            if hooks.effects_from_check is not None:
                for eid in hooks.effects_from_check(f["check"], data):
                    self.effect_log.append((cid, eid))
            rolls = self._rolls
            if rolls is None:
                dice: Mapping[str, list[int]] = self.dice
                self.dice = {}
            else:
                dice = _DiceSince(rolls, self._rolled, len(rolls))
                self._rolled = len(rolls)
            self.check_log.append((cid, list(hooks.checks(f["check"], f.get("rolls") or [], data, dice))))
        elif cls is VoidEvent:
            self.voided.add(str(f["check"]))
        elif cls is ModelCallEvent:
            d = f.get("data") or {}
            tok = d.get("tokens") or {}
            llm = self.llm
            llm["calls"] += 1
            llm["prompt_tokens"] += int(tok.get("prompt") or 0)
            llm["completion_tokens"] += int(tok.get("completion") or 0)
            llm["cached_tokens"] += int(tok.get("cached") or 0)
            llm["reasks"] += int((d.get("reask_index") or 0) > 0)
            llm["errors"] += int(bool(d.get("error")))

    def watch(self, session: Any) -> None:
        """Read from the session itself what it counts anyway: the dice (its ``Dice.rolls``, every roll in order,
        from the first) and the decisions asked and windows resolved by kind (``Session.kinds``), instead of roll,
        decision and auto events, which the session then need not build (``SUMMARY_EVENTS``)."""
        self._rolls = session.dice.rolls
        self._rolled = 0
        self._kinds = session.kinds

    def finish(self, session: Any, *, stall: str | None = None, table: Any = None) -> dict[str, Any]:
        """The summary, once the session is over (or stopped by the table's decision cap: ``stall``)."""
        return _summary(self, session, stall, table)


def summarize(session: Any, *, stall: str | None = None, table: Any = None) -> dict[str, Any]:
    """A small summary of one session (finished, or stopped by the table's decision cap: ``stall``), from the
    events it kept (a batch builds it as the events happen instead: ``Summarizer``)."""
    acc = Summarizer(session.system)
    for cls, f in _raw_events(session):
        acc.feed(cls, f)
    return acc.finish(session, stall=stall, table=table)


def _summary(acc: Summarizer, session: Any, stall: str | None, table: Any) -> dict[str, Any]:
    system = session.system.id
    hooks = acc.hooks
    outcome: dict[str, Any] = dict(session.outcome or {})
    pcs_out = outcome.get("pcs") if isinstance(outcome.get("pcs"), Mapping) else {}
    pcs = list(pcs_out) if pcs_out else [a for a in session.game.actors() if session.actor_role(a) == "pc"]
    tracked = {f"{pc}.{st}": (pc, st) for pc in pcs for st in hooks.stats}
    voided = acc.voided
    kinds, rules, topics, scenes, llm = acc.kinds, acc.rules, acc.topics, acc.scenes, dict(acc.llm)
    if acc._kinds is not None:  # watching the session: its own count (no decision events were built)
        kinds = Counter(acc._kinds)
    caps = list(acc.caps)
    first_old = {k: v for k, v in acc.first_old.items() if k in tracked}
    at_scene = acc.at_scene
    frozen = acc.frozen
    # a check a later ``void`` retracted: as if it never happened (its dice and effects included)
    effects: Counter[str] = Counter(eid for cid, eid in acc.effect_log if cid is None or cid not in voided)
    checks: dict[str, list[Any]] = {}
    for cid, entries in acc.check_log:
        if cid in voided:
            continue
        for key, success, p, raw in entries:
            c = checks.setdefault(key, [0, 0, 0, 0, 0, 0.0, 0.0])  # n, judged, succ, p_n, p_succ, p_sum, p_var
            c[0] += 1
            if success is not None:
                c[1] += 1
                c[2] += int(success)
            if p is not None and raw is not None:
                c[3] += 1
                c[4] += int(raw)
                c[5] += p
                c[6] += p * (1.0 - p)
    llm["illegal"] = int(getattr(session, "illegal_answers", 0))

    # resources: the end values from the snapshot; the value before the first change is that change's ``old``
    end: dict[str, float] = {}
    snap: Mapping[str, Any] = {}
    if (hooks.read_stats is not None and tracked) or hooks.available_effects is not None:
        try:
            snap = session.snapshot()
        except Exception:
            snap = {}
    if hooks.read_stats is not None and tracked:
        for pc in pcs:
            for st, v in hooks.read_stats(snap, pc).items():
                end[f"{pc}.{st}"] = v
    initial: dict[str, Any] = {k: first_old.get(k, end.get(k)) for k in tracked}
    if frozen is not None:  # the values when the end phase began (replacement PCs made later keep the snapshot's)
        for k in list(end):
            val = frozen.get(k, initial.get(k) if k in first_old else end[k])
            if isinstance(val, (int, float)) and not isinstance(val, bool):
                end[k] = val
    # over the scenes: the scenario's own PCs (a replacement PC joins after the session; it has no trajectory)
    listed = {str(getattr(p, "id", "")) for p in getattr(session.scenario.model, "pcs", None) or []}
    from_start = [k for k, (pc, _) in tracked.items() if not listed or pc in listed]
    by_scene: dict[str, dict[str, float]] = {}
    for sid, cur in at_scene:
        if sid in by_scene:
            continue  # first visit
        vals: dict[str, float] = {}
        for k in from_start:
            val = cur.get(k, initial.get(k))
            if isinstance(val, (int, float)) and not isinstance(val, bool):
                vals[k] = val
        by_scene[sid] = vals

    ending = str(outcome.get("ending")) if outcome.get("ending") is not None else ("(stalled)" if stall else "(none)")
    named = hooks.outcomes(outcome) if outcome else {}
    if ending in hooks.cap_endings:
        caps.append(f"ending {ending}")
    capped = [f"{k}: {v}" for k, v in named.items() if v in hooks.cap_outcomes]
    if capped:  # the outcome names the fight; the info notice said the same thing without the name
        caps = [c for c in caps if c not in hooks.cap_outcomes] + capped
    if stall:
        caps.append(DECISION_CAP)
    return {
        "system": system,
        "scenario": session.scenario.id,
        "seed": int(session.seed),
        "ending": ending,
        "finished": session.outcome is not None,
        "pcs": {pc: _pc_label(pcs_out.get(pc)) for pc in pcs} if pcs_out else {},
        "outcomes": named,
        "decisions": int(session.decisions),
        "standing": int(getattr(session, "standing_resolved", 0)),
        "decision_kinds": dict(kinds),
        "rules": dict(rules),
        "topics": dict(topics),
        "effects": dict(effects),
        "effects_available": hooks.available_effects(snap, pcs) if hooks.available_effects is not None else [],
        "checks": {k: {"n": v[0], "judged": v[1], "succ": v[2], "p_n": v[3], "p_succ": v[4], "p_sum": v[5],
                       "p_var": v[6]}
                   for k, v in checks.items()},
        "scenes": scenes,
        "resources_end": end,
        "resources_by_scene": by_scene,
        "caps": sorted(set(caps)),
        "stall": stall,
        "llm": llm,
        "fallbacks": int(getattr(table, "fallbacks", 0) or 0),
    }
