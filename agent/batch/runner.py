"""Run a scenario many times: seeds, chunks, an executor, and aggregation as results arrive.

Seeds: session ``i`` (0-based) of a batch with base seed ``S`` plays with seed ``S * 1_000_003 + i`` (base 0 gives
0, 1, 2, ...), so any session is replayed with ``trpg play SCENARIO --seat ... --seed <its seed>``.

Work is split into chunks of consecutive sessions; one task plays a chunk and returns one ``Aggregator``
(a few kilobytes whatever the chunk size). Tasks go to a ``concurrent.futures.Executor``: none (``jobs=1``: in
this process), a ``ProcessPoolExecutor(jobs)``, or a Dask distributed cluster's executor. Results are merged as
they complete; merging is order-independent, so the report is the same for any executor and any completion order.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from .aggregate import Aggregator
from .summary import summarize

__all__ = ["release", "check_seats", "run_batch", "session_seeds", "SEED_SCHEME", "SEED_STRIDE", "play_one", "run_chunk", "scenario_meta",
           "BatchError", "replay_command"]

SEED_STRIDE = 1_000_003
SEED_SCHEME = f"seed_i = base_seed * {SEED_STRIDE:_} + i (i = 0 .. runs-1)"
#: per chunk, at most this many failed/stalled sessions are re-run to keep their log
PROBLEM_LOGS_PER_CHUNK = 5

Progress = Callable[[int, int], None]


class BatchError(ValueError):
    pass


def session_seeds(seed: int, runs: int) -> list[int]:
    return [seed * SEED_STRIDE + i for i in range(runs)]


def replay_command(scenario_path: str, seats: Sequence[str], seed: int) -> str:
    seat_args = " ".join(f"--seat {s}" for s in seats)
    return f"trpg play {scenario_path} {seat_args} --seed {seed} --log replay-{seed}.jsonl".replace("  ", " ")


_SCENARIOS: dict[str, Any] = {}


def _scenario(path: str) -> Any:
    sc = _SCENARIOS.get(path)
    if sc is None:
        from engine.core.scenario import load_scenario

        sc = _SCENARIOS[path] = load_scenario(path)
    return sc


def scenario_meta(scenario: Any) -> dict[str, Any]:
    scenes = getattr(scenario.model, "scenes", None) or []
    return {
        "id": scenario.id,
        "title": str(getattr(scenario.model, "title", scenario.id)),
        "path": str(scenario.path),
        "system": scenario.system.id,
        "system_version": scenario.system.version,
        "sha256": scenario.sha256,
        "scene_ids": [str(s.id) for s in scenes if getattr(s, "id", None) is not None],
    }


def release(session: Any) -> None:
    """Detach the session's flow states from the shared ``transitions`` machines (``GameContext.release``; a session
    that ends does it itself, this covers a session stopped by a table cap or an error), so that memory stays flat
    over thousands of sessions in one process."""
    session.ctx.release()


def play_one(scenario_path: str, seats: Sequence[str], seed: int, *, log_path: str | Path | None = None,
             max_decisions: int | None = None) -> dict[str, Any]:
    """Play one session to the end and summarize it; a table's decision cap gives a stalled summary."""
    from ..table import MAX_DECISIONS, SeatSpec, Table, TableError, default_agent_factory
    from engine.core.session import Session

    spec = SeatSpec.parse(seats)
    session = Session(_scenario(scenario_path), seed, log_path=log_path, seats=spec.to_header())
    table = Table(session, spec, default_agent_factory(seed), max_decisions=max_decisions or MAX_DECISIONS)
    try:
        table.run()
    except TableError as e:
        session.close()
        return summarize(session, stall=str(e), table=table)
    finally:
        session.close()
        release(session)
    return summarize(session, table=table)


def run_chunk(scenario_path: str, seats: Sequence[str], seeds: Sequence[int], keep_logs_dir: str | None = None,
              problem_logs_dir: str | None = None, max_decisions: int | None = None) -> Aggregator:
    """One task: play ``seeds`` and return their aggregate (a failure is recorded, the chunk goes on)."""
    agg = Aggregator(scenario_meta(_scenario(scenario_path)))
    rerun = 0
    sid = _scenario(scenario_path).id
    for seed in seeds:
        log = str(Path(keep_logs_dir) / f"{sid}-{seed}.jsonl") if keep_logs_dir else None
        try:
            s = play_one(scenario_path, seats, seed, log_path=log, max_decisions=max_decisions)
        except Exception as e:  # a rules bug: recorded with its seed
            err = f"{type(e).__name__}: {e}"
            if log is None and problem_logs_dir and rerun < PROBLEM_LOGS_PER_CHUNK:
                rerun += 1
                log = str(Path(problem_logs_dir) / f"{sid}-{seed}.jsonl")
                with contextlib.suppress(Exception):
                    play_one(scenario_path, seats, seed, log_path=log, max_decisions=max_decisions)
            agg.add_failure(seed, err, log)
            continue
        if s["caps"] and log is None and problem_logs_dir and rerun < PROBLEM_LOGS_PER_CHUNK:
            rerun += 1
            log = str(Path(problem_logs_dir) / f"{sid}-{seed}.jsonl")
            with contextlib.suppress(Exception):
                play_one(scenario_path, seats, seed, log_path=log, max_decisions=max_decisions)
        agg.add(s, log if s["caps"] else None)
    return agg


def _chunks(seeds: list[int], chunk: int) -> Iterator[list[int]]:
    for i in range(0, len(seeds), chunk):
        yield seeds[i : i + chunk]


def default_chunk(runs: int, jobs: int) -> int:
    """About 4 tasks per worker (load balance), at most 200 sessions per task."""
    return max(1, min(200, -(-runs // max(1, jobs * 4))))


@contextlib.contextmanager
def _executor(executor: str, jobs: int, scheduler: str | None) -> Iterator[cf.Executor | None]:
    if executor == "local":
        if jobs <= 1:
            yield None
            return
        with cf.ProcessPoolExecutor(jobs) as ex:
            yield ex
        return
    if executor != "dask":
        raise BatchError(f"unknown executor {executor!r}: local or dask")
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise BatchError("the dask executor needs dask[distributed]: pip install -e '.[batch]'") from None
    with contextlib.ExitStack() as stack:
        if scheduler:
            client = stack.enter_context(Client(scheduler))
        else:
            cluster = stack.enter_context(LocalCluster(n_workers=max(1, jobs), threads_per_worker=1, processes=True,
                                                       host="127.0.0.1", dashboard_address=None))
            client = stack.enter_context(Client(cluster))
        yield client.get_executor()


def check_seats(scenario_path: str | Path, seats: Sequence[str]) -> Any:
    """Parse the seats and refuse what a batch cannot seat (humans, LLMs, characters not at the table)."""
    from ..table import ROLE_WORDS, SeatSpec, is_llm_policy

    spec = SeatSpec.parse(seats)
    for who, pol in spec.entries:
        if pol == "human" or is_llm_policy(pol):
            raise BatchError(f"seat {who}={pol}: batch playtests seat only scripted and random policies "
                             "(batch LLM runs come with `trpg compare`)")
    unknown = [who for who, _ in spec.entries if who not in ROLE_WORDS]
    if unknown:
        from engine.core.session import Session

        actors = set(Session(_scenario(str(Path(scenario_path).resolve())), 0).game.actors())
        bad = [w for w in unknown if w not in actors]
        if bad:
            raise BatchError(f"--seat names {', '.join(bad)}, who is not at this table; roles: {', '.join(ROLE_WORDS)}; "
                             f"characters: {', '.join(sorted(actors))}")
    return spec


def run_batch(scenario_path: str | Path, runs: int, seats: Sequence[str] = ("all=scripted",), seed: int = 0, jobs: int = 1,
              executor: str = "local", scheduler: str | None = None, chunk: int | None = None,
              keep_logs_dir: str | Path | None = None, problem_logs_dir: str | Path | None = None,
              progress: Progress | None = None, max_decisions: int | None = None) -> Aggregator:
    """Play ``runs`` sessions of a scenario and return their ``Aggregator`` (see the module docstring).

    ``keep_logs_dir``: write every session's log there; ``problem_logs_dir``: re-run failed and stalled sessions
    with a log there (a few per chunk)."""
    if runs < 1:
        raise BatchError(f"--runs must be at least 1 (got {runs})")
    if jobs < 1:
        raise BatchError(f"--jobs must be at least 1 (got {jobs})")
    spec = check_seats(scenario_path, seats)
    path = str(Path(scenario_path).resolve())
    scenario = _scenario(path)
    seat_list = [f"{w}={p}" for w, p in spec.entries]
    keep = str(keep_logs_dir) if keep_logs_dir else None
    probs = str(problem_logs_dir) if problem_logs_dir else None
    seeds = session_seeds(seed, runs)
    size = chunk or default_chunk(runs, jobs)
    total = Aggregator(scenario_meta(scenario))
    done = 0
    if progress:
        progress(0, runs)
    with _executor(executor, jobs, scheduler) as ex:
        if ex is None:
            for part in _chunks(seeds, size):
                total.merge(run_chunk(path, seat_list, part, keep, probs, max_decisions))
                done += len(part)
                if progress:
                    progress(done, runs)
        else:
            futures = {ex.submit(run_chunk, path, seat_list, part, keep, probs, max_decisions): len(part)
                       for part in _chunks(seeds, size)}
            for fut in cf.as_completed(futures):
                total.merge(fut.result())
                done += futures.pop(fut)
                if progress:
                    progress(done, runs)
    return total
