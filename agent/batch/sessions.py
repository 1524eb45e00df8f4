"""One batch session, played synchronously or on an asyncio event loop, and what LLM batches share.

``play`` / ``play_async`` build the session (scenario, seed, rule options, seats, optional log) and its table, run it
to the end or to the table's decision cap, and return its summary. ``SharedAgents`` gives one agent (one model
client) per LLM seat policy, shared by every session of a batch; ``run_limited`` plays queued jobs on one event
loop, at most ``limit`` at once. ``trpg playtest`` and ``trpg compare`` both use them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from .summary import SUMMARY_EVENTS, Summarizer, summarize

__all__ = ["scenario", "release", "make_table", "play", "play_async", "SharedAgents", "run_limited"]

T = TypeVar("T")
LLMFactory = Callable[[str], Any]
OnDecision = Callable[[Mapping[str, Any]], None]

_SCENARIOS: dict[str, Any] = {}
#: seat policies that never read the past (their seat view's transcript): a batch of only these keeps no events
PAST_BLIND = frozenset({"scripted", "random"})


def scenario(path: str) -> Any:
    """The loaded scenario of ``path``, loaded once per process."""
    sc = _SCENARIOS.get(path)
    if sc is None:
        from engine.core.scenario import load_scenario

        sc = _SCENARIOS[path] = load_scenario(path)
    return sc


def release(session: Any) -> None:
    """Close the session's flow states (``GameContext.release``; a session that ends does it itself, this covers a
    session stopped by a table cap or an error): a stopped session can then never move again."""
    session.ctx.release()


def make_table(scenario_path: str, seats: Sequence[str], seed: int, *, llm: LLMFactory | None = None,
               on_decision: OnDecision | None = None, max_decisions: int | None = None,
               config: Mapping[str, Any] | None = None, log_path: str | Path | None = None) -> Any:
    """The session (with the rule options ``config``) and the table that plays it."""
    from engine.core.session import Session

    from ..table import MAX_DECISIONS, SeatSpec, Table, default_agent_factory
    from .export import ExportTable

    spec = SeatSpec.parse(seats)
    sc = scenario(scenario_path)
    # the summary is built as the events happen; the events themselves are kept only for a seat that reads the past
    # (a model's or a person's transcript) or an export of the decisions
    summary = Summarizer(sc.system)
    keep = on_decision is not None or any(policy not in PAST_BLIND for _, policy in spec.entries)
    session = Session(sc, seed, config=config, log_path=log_path, seats=spec.to_header(), keep_events=keep,
                      on_event=summary.feed, on_event_kinds=SUMMARY_EVENTS)
    summary.watch(session)
    factory = default_agent_factory(seed, llm=llm)
    cap = max_decisions or MAX_DECISIONS
    if on_decision is not None:
        table: Any = ExportTable(session, spec, factory, max_decisions=cap, on_decision=on_decision)
    else:
        table = Table(session, spec, factory, max_decisions=cap)
    table.summary = summary
    return table


def _finish(table: Any, stall: str | None) -> dict[str, Any]:
    session = table.session
    try:
        session.close()
        acc = getattr(table, "summary", None)
        if isinstance(acc, Summarizer):
            return acc.finish(session, stall=stall, table=table)
        return summarize(session, stall=stall, table=table)
    finally:
        release(session)


class _Played:
    """Around a table's run (``play`` and ``play_async``): the table's decision cap (``TableError``) is a stalled
    session (``stall`` holds the message); anything else closes the session's log and goes on."""

    def __init__(self, table: Any):
        self.table = table
        self.stall: str | None = None

    def __enter__(self) -> _Played:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: Any) -> bool:
        from ..table import TableError

        if error is None:
            return False
        if isinstance(error, TableError):
            self.stall = str(error)
            return True
        _abort(self.table)
        return False


def _abort(table: Any) -> None:
    table.session.close()
    release(table.session)


def play(scenario_path: str, seats: Sequence[str], seed: int, *, llm: LLMFactory | None = None,
         on_decision: OnDecision | None = None, max_decisions: int | None = None,
         config: Mapping[str, Any] | None = None, log_path: str | Path | None = None) -> dict[str, Any]:
    """Play one session to the end and summarize it; the table's decision cap gives a stalled summary."""
    table = make_table(scenario_path, seats, seed, llm=llm, on_decision=on_decision, max_decisions=max_decisions,
                       config=config, log_path=log_path)
    with _Played(table) as played:
        table.run()
    return _finish(table, played.stall)


async def play_async(scenario_path: str, seats: Sequence[str], seed: int, *, llm: LLMFactory | None = None,
                     on_decision: OnDecision | None = None, max_decisions: int | None = None,
                     config: Mapping[str, Any] | None = None, log_path: str | Path | None = None) -> dict[str, Any]:
    """``play`` on the running event loop (model calls are awaited: ``Table.run_async``)."""
    table = make_table(scenario_path, seats, seed, llm=llm, on_decision=on_decision, max_decisions=max_decisions,
                       config=config, log_path=log_path)
    with _Played(table) as played:
        await table.run_async()
    return _finish(table, played.stall)


class SharedAgents:
    """An LLM factory that makes one agent per seat policy on first use and hands it to every later session."""

    def __init__(self, factory: LLMFactory):
        self.factory = factory
        self.agents: dict[str, Any] = {}

    def __call__(self, policy: str) -> Any:
        agent = self.agents.get(policy)
        if agent is None:
            agent = self.agents[policy] = self.factory(policy)
        return agent


async def run_limited(jobs: Iterable[T], limit: int, run: Callable[[T], Awaitable[None]]) -> None:
    """``run`` every job on this event loop, at most ``limit`` at once: ``limit`` workers take the next job from one
    iterator (taken lazily, so memory stays flat in the number of jobs)."""
    it = iter(jobs)

    async def worker() -> None:
        for job in it:
            await run(job)

    await asyncio.gather(*(worker() for _ in range(max(1, limit))))
