"""Run a scenario many times: seeds, chunks, an executor, and aggregation as results arrive.

Seeds: session ``i`` (0-based) of a batch with base seed ``S`` plays with seed ``S * 1_000_003 + i`` (base 0 gives
0, 1, 2, ...), so any session is replayed with ``trpg play SCENARIO --seat ... [--config K=V ...] --seed <its seed>``
(``replay_command``). Rule options (``config``, as ``trpg play --config``) are checked once before any session runs
and travel with every task.

Work is split into chunks of consecutive sessions; one task plays a chunk and returns one ``Aggregator``
(a few kilobytes whatever the chunk size). Tasks go to a ``concurrent.futures.Executor``: none (``jobs=1``: in
this process), a ``ProcessPoolExecutor(jobs)``, or a Dask distributed cluster's executor. Results are merged as
they complete; merging is order-independent, so the report is the same for any executor and any completion order.

LLM seats (``llm``, ``llm:<model>``; ``llm`` gives the agent factory): every session runs in this process on one
asyncio event loop, at most ``jobs`` at once, with one agent (one model client) per seat policy shared by all
sessions (the Dask executor is refused: model clients stay in this process). Every LLM session writes its log;
the logs of sessions that finished without a cap are removed unless kept, so a stalled or failed session's log is
the one that was played (an LLM does not replay its answers from a seed).
"""

from __future__ import annotations

import asyncio
import concurrent.futures as cf
import contextlib
import json
import shlex
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from .aggregate import Aggregator, agent_stats
from .sessions import SharedAgents, play, play_async, release, run_limited
from .sessions import scenario as _scenario

__all__ = ["release", "check_seats", "check_llm_executor", "check_config", "config_args", "config_text", "run_batch", "session_seeds", "SEED_SCHEME",
           "SEED_STRIDE", "play_one", "run_chunk", "scenario_meta", "BatchError", "replay_command", "LLMFactory"]

SEED_STRIDE = 1_000_003
SEED_SCHEME = f"seed_i = base_seed * {SEED_STRIDE:_} + i (i = 0 .. runs-1)"
#: per chunk, at most this many failed/stalled sessions are re-run to keep their log
PROBLEM_LOGS_PER_CHUNK = 5

Progress = Callable[[int, int], None]
#: builds the agent of an LLM seat policy ("llm" or "llm:<model>")
LLMFactory = Callable[[str], Any]


class BatchError(ValueError):
    pass


def session_seeds(seed: int, runs: int) -> list[int]:
    return [seed * SEED_STRIDE + i for i in range(runs)]


def _config_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, (list, dict)):
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return str(value)


def config_args(config: Mapping[str, Any] | None) -> list[str]:
    """``KEY=VALUE`` texts that ``trpg play --config`` reads back as the same rule options."""
    return [f"{k}={_config_text(v)}" for k, v in (config or {}).items()]


def config_text(config: Any) -> str:
    """Rule options as ``K=V K=V`` (``scenario defaults`` when none)."""
    if isinstance(config, Mapping):
        return " ".join(config_args(config)) or "scenario defaults"
    return str(config or "scenario defaults")


def replay_command(scenario_path: str, seats: Sequence[str], seed: int,
                   config: Mapping[str, Any] | None = None) -> str:
    """The ``trpg play`` command that plays session ``seed`` of a batch again (same seats, rule options and seed)."""
    argv = ["trpg", "play", str(scenario_path)]
    for s in seats:
        argv += ["--seat", s]
    for c in config_args(config):
        argv += ["--config", c]
    argv += ["--seed", str(seed), "--log", f"replay-{seed}.jsonl"]
    return shlex.join(argv)


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


def play_one(scenario_path: str, seats: Sequence[str], seed: int, *, log_path: str | Path | None = None,
             max_decisions: int | None = None, config: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Play one session to the end and summarize it; a table's decision cap gives a stalled summary."""
    return play(scenario_path, seats, seed, log_path=log_path, max_decisions=max_decisions, config=config)


def run_chunk(scenario_path: str, seats: Sequence[str], seeds: Sequence[int], keep_logs_dir: str | None = None,
              problem_logs_dir: str | None = None, max_decisions: int | None = None,
              config: Mapping[str, Any] | None = None) -> Aggregator:
    """One task: play ``seeds`` with the rule options ``config`` and return their aggregate (a failure is recorded,
    the chunk goes on)."""
    agg = Aggregator(scenario_meta(_scenario(scenario_path)))
    rerun = 0
    sid = _scenario(scenario_path).id
    cfg = dict(config or {})
    for seed in seeds:
        log = str(Path(keep_logs_dir) / f"{sid}-{seed}.jsonl") if keep_logs_dir else None
        try:
            s = play_one(scenario_path, seats, seed, log_path=log, max_decisions=max_decisions, config=cfg)
        except Exception as e:  # a rules bug: recorded with its seed
            err = f"{type(e).__name__}: {e}"
            if log is None and problem_logs_dir and rerun < PROBLEM_LOGS_PER_CHUNK:
                rerun += 1
                log = str(Path(problem_logs_dir) / f"{sid}-{seed}.jsonl")
                with contextlib.suppress(Exception):
                    play_one(scenario_path, seats, seed, log_path=log, max_decisions=max_decisions, config=cfg)
            agg.add_failure(seed, err, log)
            continue
        if s["caps"] and log is None and problem_logs_dir and rerun < PROBLEM_LOGS_PER_CHUNK:
            rerun += 1
            log = str(Path(problem_logs_dir) / f"{sid}-{seed}.jsonl")
            with contextlib.suppress(Exception):
                play_one(scenario_path, seats, seed, log_path=log, max_decisions=max_decisions, config=cfg)
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
            try:
                client = stack.enter_context(Client(scheduler))
            except (OSError, ValueError) as e:  # unreachable (timeout), refused, or not an address
                raise BatchError(f"--scheduler {scheduler}: cannot reach the Dask scheduler ({e})") from None
        else:
            cluster = stack.enter_context(LocalCluster(n_workers=max(1, jobs), threads_per_worker=1, processes=True,
                                                       host="127.0.0.1", dashboard_address=None))
            client = stack.enter_context(Client(cluster))
        yield client.get_executor()


def check_seats(scenario_path: str | Path, seats: Sequence[str], config: Mapping[str, Any] | None = None) -> Any:
    """Parse the seats and refuse what a batch cannot seat (humans, characters not at the table); LLM seats are
    seated when the batch is given their agent factory."""
    from ..table import ROLE_WORDS, SeatSpec

    spec = SeatSpec.parse(seats)
    for who, pol in spec.entries:
        if pol == "human":
            raise BatchError(f"seat {who}={pol}: batch runs seat scripted, random and LLM policies, no humans")
    unknown = [who for who, _ in spec.entries if who not in ROLE_WORDS]
    if unknown:
        from engine.core.session import Session

        session = Session(_scenario(str(Path(scenario_path).resolve())), 0, config=config)
        actors = set(session.game.actors())
        session.close()
        release(session)
        bad = [w for w in unknown if w not in actors]
        if bad:
            raise BatchError(f"--seat names {', '.join(bad)}, who is not at this table; roles: {', '.join(ROLE_WORDS)}; "
                             f"characters: {', '.join(sorted(actors))}")
    return spec


def check_config(scenario_path: str | Path, config: Mapping[str, Any] | None) -> dict[str, Any]:
    """The rule options ``config`` (``--config KEY=VALUE``) as a plain dict, once the scenario's system accepted them
    (one session is set up with them); refused options raise a one-line ``BatchError``."""
    from pydantic import ValidationError

    from engine.core.scenario import format_validation_error
    from engine.core.session import Session

    cfg = dict(config or {})
    if not cfg:
        return cfg
    sc = _scenario(str(Path(scenario_path).resolve()))
    try:
        session = Session(sc, 0, config=cfg)
    except ValidationError as e:
        problems = "; ".join(f"`{f}`: {p}" if f else p for f, p in format_validation_error(e))
        raise BatchError(f"--config {' '.join(config_args(cfg))}: invalid configuration for {sc.system.id} "
                         f"({Path(sc.path).name}): {problems}") from None
    session.close()
    release(session)
    return cfg


def _uses_llm(spec: Any) -> list[str]:
    from ..table import is_llm_policy

    return [f"{w}={p}" for w, p in spec.entries if is_llm_policy(p)]


def check_llm_executor(spec: Any, executor: str) -> list[str]:
    """The LLM seats of ``spec`` (``who=policy``); refused unless the executor is local: LLM sessions share this
    process's event loop and model clients."""
    llm_seats = _uses_llm(spec)
    if llm_seats and executor != "local":
        raise BatchError(f"--executor {executor} cannot seat LLMs ({', '.join(llm_seats)}): LLM sessions run in this "
                         "process on one event loop; drop --executor and set how many run at once with --jobs")
    return llm_seats


async def _batch_async(path: str, seats: Sequence[str], seeds: Sequence[int], llm: LLMFactory, limit: int,
                       keep: str | None, probs: str | None, max_decisions: int | None, config: Mapping[str, Any],
                       fold: Callable[[Aggregator], None]) -> None:
    """Every session on this event loop, at most ``limit`` at once; each is folded in as it ends."""
    meta = scenario_meta(_scenario(path))
    sid = _scenario(path).id
    logs = keep or probs

    async def one(seed: int) -> None:
        agg = Aggregator(meta)
        log = str(Path(logs) / f"{sid}-{seed}.jsonl") if logs else None
        try:
            s = await play_async(path, seats, seed, llm=llm, max_decisions=max_decisions, config=config, log_path=log)
        except Exception as e:  # a rules bug: recorded with its seed (and the log as played)
            agg.add_failure(seed, f"{type(e).__name__}: {e}", log)
        else:
            if log and not keep and not s["caps"]:
                Path(log).unlink(missing_ok=True)
            agg.add(s, log if s["caps"] else None)
        fold(agg)

    await run_limited(seeds, limit, one)


def run_batch(scenario_path: str | Path, runs: int, seats: Sequence[str] = ("all=scripted",), seed: int = 0, jobs: int = 1,
              executor: str = "local", scheduler: str | None = None, chunk: int | None = None,
              keep_logs_dir: str | Path | None = None, problem_logs_dir: str | Path | None = None,
              progress: Progress | None = None, max_decisions: int | None = None,
              config: Mapping[str, Any] | None = None, llm: LLMFactory | None = None) -> Aggregator:
    """Play ``runs`` sessions of a scenario and return their ``Aggregator`` (see the module docstring).

    ``keep_logs_dir``: write every session's log there; ``problem_logs_dir``: re-run failed and stalled sessions
    with a log there (a few per chunk); ``config``: rule options of every session; ``llm``: the agent factory of
    LLM seats (called once per seat policy; required when a seat is ``llm`` or ``llm:<model>``)."""
    if runs < 1:
        raise BatchError(f"--runs must be at least 1 (got {runs})")
    if jobs < 1:
        raise BatchError(f"--jobs must be at least 1 (got {jobs})")
    cfg = check_config(scenario_path, config)
    spec = check_seats(scenario_path, seats, cfg)
    llm_seats = check_llm_executor(spec, executor)
    if llm_seats and llm is None:
        raise BatchError(f"seat {llm_seats[0]} seats an LLM: give the model settings (--llm-base-url, --llm-model, "
                         "--llm-config or --llm local)")
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

    def fold(agg: Aggregator) -> None:
        nonlocal done
        total.merge(agg)
        done += agg.runs
        if progress:
            progress(done, runs)

    if llm_seats:
        assert llm is not None
        for d in (keep, probs):
            if d:
                Path(d).mkdir(parents=True, exist_ok=True)
        shared = SharedAgents(llm)
        asyncio.run(_batch_async(path, seat_list, seeds, shared, jobs, keep, probs, max_decisions, cfg, fold))
        total.llm_agents = agent_stats(shared.agents.values())
        return total
    with _executor(executor, jobs, scheduler) as ex:
        if ex is None:
            for part in _chunks(seeds, size):
                fold(run_chunk(path, seat_list, part, keep, probs, max_decisions, cfg))
        else:
            futures = [ex.submit(run_chunk, path, seat_list, part, keep, probs, max_decisions, cfg)
                       for part in _chunks(seeds, size)]
            for fut in cf.as_completed(futures):
                fold(fut.result())
    return total
