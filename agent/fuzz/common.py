"""What every fuzzer shares: seeds and cases, the sample scenarios, random seats and rule options, the tally that
chunks of cases return, the executor that runs the chunks, the watchdog, and the summary (terminal and JSON).

A fuzz run is ``runs`` cases numbered 0, 1, ...; case ``i`` of base seed ``S`` draws everything it does from
``random.Random(f"<fuzzer>:{S}:{i}")`` and plays sessions with the seed ``S * 1_000_003 + i``, so ``--case i``
repeats exactly that case, and the counts of a run do not depend on ``--jobs`` or on the executor.
Nothing here names a rule system: the scenarios, rule options and seats come from the registry.
"""

from __future__ import annotations

import contextlib
import enum
import json
import os
import random
import shlex
import signal
import threading
import time
import traceback
import types
import typing
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

__all__ = [
    "SEED_STRIDE", "Sample", "samples", "case_seed", "case_rng", "display_path", "flag_choices", "draw_config",
    "config_overrides", "draw_seats", "seat_name", "play_command", "Tally", "run_cases", "Hang", "watchdog",
    "short_traceback", "write_summary", "MAX_FAILURES_KEPT", "run_pool", "WORKER_MEMORY_MB",
]

#: session i of base seed S plays seed S * SEED_STRIDE + i (as ``trpg playtest``)
SEED_STRIDE = 1_000_003
#: failures kept in a summary (all are counted)
MAX_FAILURES_KEPT = 50
#: the address space a worker process of a local pool may take (``RLIMIT_AS``): a runaway case fails with
#: MemoryError instead of taking the machine's memory (a case that kills its worker anyway is reported, not fatal)
WORKER_MEMORY_MB = 4096
#: seat words per seat role, as ``--seat`` spells them
_GROUP = {"gm": "gm", "pc": "pcs", "npc": "npcs"}


def case_seed(base: int, index: int) -> int:
    return base * SEED_STRIDE + index


def case_rng(fuzzer: str, base: int, index: int) -> random.Random:
    # a str seed is hashed (SHA-512) by random.seed: the same draws in every process and Python run
    return random.Random(f"{fuzzer}:{base}:{index}")


def display_path(path: str | os.PathLike[str]) -> str:
    """A path as commands print it: relative to the working directory when inside it (shorter, and what a user
    typing the command from here would give), else absolute."""
    p = Path(path).resolve()
    try:
        return str(p.relative_to(Path.cwd()))
    except ValueError:
        return str(p)


# -- scenarios -----------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Sample:
    """A sample scenario of a registered system."""

    system: str
    path: str  # as the commands and log headers give it (``display_path``)
    stem: str
    can_create: bool  # the system creates PCs at the table (``--create``)


def samples() -> list[Sample]:
    """Every sample scenario of every registered system, in registry order."""
    from engine.core.registry import systems

    out = []
    for info in systems():
        for p in info.sample_scenarios:
            out.append(Sample(info.id, display_path(p), Path(p).stem, "creation" in info.capabilities))
    return out


# -- rule options --------------------------------------------------------------------------------------------------
def _allowed(annotation: Any, metadata: Sequence[Any]) -> list[Any] | None:
    """The values a flag may take from its type: a Literal's values, both booleans, an enum's members, or the whole
    numbers between the field's bounds; None for a type without a closed set of values."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(args) == 1 and len(typing.get_args(annotation)) == 2:  # Optional[X]: X's values and None
            inner = _allowed(args[0], metadata)
            return [*inner, None] if inner else None
        return None
    if origin is typing.Literal:
        return list(typing.get_args(annotation))
    if annotation is bool:
        return [False, True]
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return [m.value for m in annotation]
    if annotation is int:
        lo = next((getattr(m, "ge", None) for m in metadata if getattr(m, "ge", None) is not None), None)
        hi = next((getattr(m, "le", None) for m in metadata if getattr(m, "le", None) is not None), None)
        if lo is not None and hi is not None and hi - lo <= 1000:
            return list(range(int(lo), int(hi) + 1))
    return None


def flag_choices(config_model: type[BaseModel]) -> dict[str, list[Any]]:
    """Every flag of a system's config model with a closed set of values, and those values (a safety cap's up to its
    default)."""
    out: dict[str, list[Any]] = {}
    for name, f in config_model.model_fields.items():
        values = _allowed(f.annotation, f.metadata)
        if values and is_safety_cap(f) and isinstance(f.default, int):
            # a HOUSE safety cap (``json_schema_extra={"safety_cap": True}``) is drawn up to its default: below it the
            # cap's own path runs more often; above it a session only gets longer (a scene of 999 cycles with random
            # seats is a legal session of 100,000 decisions, which the decision cap would call a hang)
            values = [v for v in values if v <= f.default] or values
        if values:
            out[name] = values
    return out


def is_safety_cap(f: Any) -> bool:
    """A config field its system marks as a HOUSE safety cap (not a rule): ``json_schema_extra={"safety_cap": True}``."""
    extra = getattr(f, "json_schema_extra", None)
    return isinstance(extra, dict) and extra.get("safety_cap") is True


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b  # 0 and False, 1 and True are different flag values


def config_overrides(base: Mapping[str, Any], drawn: Mapping[str, Any]) -> dict[str, Any]:
    """The drawn flags that differ from the scenario's own values (what ``--config`` must say)."""
    return {k: v for k, v in drawn.items() if not (k in base and _same(base[k], v))}


def scenario_config(scenario: Any) -> dict[str, Any]:
    """The rule options a scenario plays with when nothing overrides them (its own flags, read by
    ``SystemInfo.scenario_options``, over the defaults)."""
    info = scenario.system
    return info.config_model.model_validate(info.scenario_options(scenario.model)).model_dump()


def draw_config(scenario: Any, rng: random.Random, *, p_default: float = 0.25,
                tries: int = 20) -> tuple[dict[str, Any], int]:
    """Rule options for one session: the scenario's own (with probability ``p_default``), else every flag drawn
    uniformly from its values. A combination the config model refuses is drawn again; returns the overrides
    (differences from the scenario's options) and how many combinations were refused."""
    if rng.random() < p_default:
        return {}, 0
    model = scenario.system.config_model
    base = scenario_config(scenario)
    choices = flag_choices(model)
    refused = 0
    for _ in range(tries):
        drawn = {k: rng.choice(v) for k, v in choices.items()}
        try:
            model.model_validate({**base, **drawn})
        except ValidationError:
            refused += 1
            continue
        return config_overrides(base, drawn), refused
    return {}, refused


# -- seats ---------------------------------------------------------------------------------------------------------
def draw_seats(rng: random.Random) -> tuple[str, ...]:
    """``--seat`` arguments: everyone scripted, then each seat role (gm, pcs, npcs) random with probability 1/2 (the
    mixes of ``engine.core.coverage.MIXES`` and the rest)."""
    seats = ["all=scripted"]
    for role in ("gm", "pc", "npc"):
        if rng.random() < 0.5:
            seats.append(f"{_GROUP[role]}=random")
    return tuple(seats)


def seat_name(seats: Sequence[str]) -> str:
    """The mix's name in ``engine.core.coverage.MIXES`` when it is one of them, else the random roles joined."""
    from engine.core.coverage import MIXES

    rnd = tuple(r for r in ("gm", "pc", "npc") if f"{_GROUP[r]}=random" in seats)
    for name, roles in MIXES.items():
        if tuple(sorted(roles)) == tuple(sorted(rnd)):
            return name
    return "random_" + "+".join(rnd)


def play_command(scenario: str, seats: Sequence[str], seed: int, config: Mapping[str, Any] | None = None,
                 create: bool = False, log: str | None = None) -> str:
    """The ``trpg play`` command that plays this session again, byte for byte."""
    from ..batch.runner import config_args

    argv = ["trpg", "play", scenario]
    for s in seats:
        argv += ["--seat", s]
    for c in config_args(config):
        argv += ["--config", c]
    if create:
        argv.append("--create")
    argv += ["--seed", str(seed), "--log", log or f"fuzz-{seed}.jsonl"]
    return shlex.join(argv)


# -- tallies -------------------------------------------------------------------------------------------------------
@dataclass
class Tally:
    """What a chunk of cases returns: counts, maxima (with the case that reached them), groups of counts, failures
    (each a dict with at least ``case``, ``kind`` and ``message``) and free notes counted by text."""

    counts: Counter[str] = field(default_factory=Counter)
    maxima: dict[str, tuple[float, int]] = field(default_factory=dict)
    groups: dict[str, Counter[str]] = field(default_factory=dict)
    failures: list[dict[str, Any]] = field(default_factory=list)
    notes: Counter[str] = field(default_factory=Counter)
    failed_cases: int = 0

    def add(self, key: str, n: int = 1) -> None:
        self.counts[key] += n

    def group(self, name: str, key: str, n: int = 1) -> None:
        self.groups.setdefault(name, Counter())[key] += n

    def peak(self, key: str, value: float, case: int) -> None:
        old = self.maxima.get(key)
        if old is None or value > old[0]:
            self.maxima[key] = (value, case)

    def fail(self, case: int, kind: str, message: str, **data: Any) -> None:
        self.failures.append({"case": case, "kind": kind, "message": message, **data})

    def merge(self, other: Tally) -> None:
        self.counts.update(other.counts)
        for k, (v, c) in other.maxima.items():
            old = self.maxima.get(k)
            if old is None or v > old[0] or (v == old[0] and c < old[1]):
                self.maxima[k] = (v, c)
        for name, cnt in other.groups.items():
            self.groups.setdefault(name, Counter()).update(cnt)
        self.failures.extend(other.failures)
        self.notes.update(other.notes)
        self.failed_cases += other.failed_cases

    def sort(self) -> None:
        self.failures.sort(key=lambda f: (f["case"], f.get("seq", -1)))


#: one chunk of cases: (params, case indices) -> Tally; a top-level function, so that processes can run it
ChunkFn = Callable[[Any, Sequence[int]], Tally]


def _chunks(cases: Sequence[int], size: int) -> Iterator[list[int]]:
    for i in range(0, len(cases), size):
        yield list(cases[i : i + size])


def run_cases(fn: ChunkFn, params: Any, cases: Sequence[int], *, jobs: int = 1, executor: str = "local",
              scheduler: str | None = None, chunk: int | None = None,
              progress: Callable[[int, int], None] | None = None) -> Tally:
    """Run ``fn`` over ``cases`` in chunks: in this process (``jobs`` 1), on ``jobs`` processes (``run_pool``), or on
    Dask (``agent.batch.runner``'s executors); the tallies are merged (in any completion order: the result is the
    same)."""
    size = chunk or max(1, min(50, -(-len(cases) // max(1, jobs * 4))))
    if progress:
        progress(0, len(cases))
    if executor == "local" and jobs > 1:
        return run_pool(fn, params, list(_chunks(cases, size)), jobs=jobs, progress=progress, total=len(cases))
    from ..batch.runner import _executor

    total = Tally()
    done = 0
    with _executor(executor, jobs, scheduler) as ex:
        if ex is None:
            for part in _chunks(cases, size):
                total.merge(fn(params, part))
                done += len(part)
                if progress:
                    progress(done, len(cases))
        else:
            import concurrent.futures as cf

            futures = {ex.submit(fn, params, part): len(part) for part in _chunks(cases, size)}
            for fut in cf.as_completed(futures):
                total.merge(fut.result())
                done += futures[fut]
                if progress:
                    progress(done, len(cases))
    total.sort()
    return total


def _limit_worker(memory_mb: int) -> None:  # pragma: no cover - runs in a worker process
    import resource

    if memory_mb > 0:
        limit = memory_mb * 1024 * 1024
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def _worker_died(case: int, error: BaseException) -> Tally:
    t = Tally()
    t.failed_cases = 1
    t.add("worker_deaths")
    t.fail(case, "worker_died", f"the fuzzer's worker process died while it ran this case ({type(error).__name__}: "
           f"{error}); run it alone with --case {case} (the worker had {WORKER_MEMORY_MB:,} MB of address space)")
    return t


def run_pool(fn: ChunkFn, params: Any, parts: Sequence[Sequence[int]], *, jobs: int, progress: Any = None,
             total: int | None = None, memory_mb: int = WORKER_MEMORY_MB) -> Tally:
    """Run the chunks ``parts`` on ``jobs`` spawned worker processes (single-threaded: a worker may fork), each with
    ``memory_mb`` of address space, and survive a worker that dies (killed by the kernel, a signal, a crash of the
    interpreter): the chunks that did not finish go to a one-worker pool, in order, where the first to break its
    pool is the one that killed it; it is split and run again until the case is found, which is reported as a
    ``worker_died`` failure; the others go back to the parallel pool. The result does not depend on ``jobs``."""
    import concurrent.futures as cf
    import multiprocessing
    from concurrent.futures.process import BrokenProcessPool

    ctx = multiprocessing.get_context("spawn")
    result = Tally()
    done = 0
    total = total if total is not None else sum(len(p) for p in parts)
    queue: list[list[int]] = [list(p) for p in parts if p]
    suspects: list[list[int]] = []

    def finished(t: Tally, n: int) -> None:
        nonlocal done
        result.merge(t)
        done += n
        if progress:
            progress(done, total)

    while queue or suspects:
        if queue:
            with cf.ProcessPoolExecutor(max(1, jobs), mp_context=ctx, initializer=_limit_worker,
                                        initargs=(memory_mb,)) as ex:
                futures = {ex.submit(fn, params, part): part for part in queue}
                queue = []
                for fut in cf.as_completed(futures):
                    try:
                        finished(fut.result(), len(futures[fut]))
                    except BrokenProcessPool:
                        suspects.append(futures[fut])
            suspects.sort(key=lambda p: p[0])
            continue
        # one worker, the suspects in order: the first chunk whose future breaks the pool was running when it broke
        with cf.ProcessPoolExecutor(1, mp_context=ctx, initializer=_limit_worker, initargs=(memory_mb,)) as ex:
            serial = [(part, ex.submit(fn, params, part)) for part in suspects]
            suspects = []
            culprit: list[int] | None = None
            for part, fut in serial:
                if culprit is not None:
                    queue.append(part)  # not run, or run after the break: back to the parallel pool
                    continue
                try:
                    finished(fut.result(), len(part))
                except BrokenProcessPool as e:
                    culprit = part
                    if len(part) == 1:
                        finished(_worker_died(part[0], e), 1)
                    else:
                        half = len(part) // 2
                        suspects += [part[:half], part[half:]]
    result.sort()
    return result


# -- the watchdog --------------------------------------------------------------------------------------------------
class Hang(BaseException):  # noqa: N818 — not an Exception: no ``except Exception`` in the rules may swallow it
    """A case ran past its time limit."""


#: the wall-clock backstop of the watchdog, in multiples of its CPU limit (as the sandbox's commands)
WALL_FACTOR = 4.0


@contextlib.contextmanager
def watchdog(seconds: float, wall_factor: float = WALL_FACTOR) -> Iterator[Callable[[], None]]:
    """Raise ``Hang`` in this thread once the case has used ``seconds`` of CPU time, or after ``wall_factor`` times as
    long of wall clock (a case that waits instead of computing). CPU time does not move with the load of a shared
    machine: a starved worker is not a hang (a 20,000-session run beside the CI had 16 false hangs on wall clock).

    Where this is the main thread of a process: ``ITIMER_PROF`` (CPU of the process, user + system; SIGPROF) and
    ``ITIMER_REAL`` (SIGALRM). Elsewhere (e.g. a Dask worker thread) only the returned ``check()`` raises it, between
    decisions, on this thread's CPU time."""
    wall = seconds * wall_factor
    cpu0, t0 = time.thread_time(), time.monotonic()

    def check() -> None:
        if time.thread_time() - cpu0 > seconds:
            raise Hang(f"used more than {seconds:g} s of CPU")
        if time.monotonic() - t0 > wall:
            raise Hang(f"still running after {wall:g} s of wall clock")

    use_alarm = threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer")
    if not use_alarm:
        yield check
        return

    def on_cpu(signum: int, frame: Any) -> None:
        raise Hang(f"used more than {seconds:g} s of CPU")

    def on_wall(signum: int, frame: Any) -> None:
        raise Hang(f"still running after {wall:g} s of wall clock")

    old_prof, old_alarm = signal.signal(signal.SIGPROF, on_cpu), signal.signal(signal.SIGALRM, on_wall)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    signal.setitimer(signal.ITIMER_REAL, wall)
    try:
        yield check
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGPROF, old_prof)
        signal.signal(signal.SIGALRM, old_alarm)


def short_traceback(e: BaseException, limit: int = 12) -> str:
    """The last frames of an exception's traceback, as text."""
    return "".join(traceback.format_exception(type(e), e, e.__traceback__, limit=-limit))


# -- summaries -----------------------------------------------------------------------------------------------------
def write_summary(out: str | os.PathLike[str], name: str, data: Mapping[str, Any]) -> Path:
    """``OUT/fuzz-<name>.json``."""
    d = Path(out)
    d.mkdir(parents=True, exist_ok=True)
    p = d / f"fuzz-{name}.json"
    p.write_text(json.dumps(data, ensure_ascii=False, indent=2, default=str) + "\n", encoding="utf-8")
    return p


def summary_data(name: str, tally: Tally, run: Mapping[str, Any], elapsed: float) -> dict[str, Any]:
    """The JSON summary of a run: the run's parameters, counts, maxima, groups, failures (the first
    ``MAX_FAILURES_KEPT``) and how long it took."""
    return {
        "fuzzer": name,
        "run": dict(run),
        "elapsed_s": round(elapsed, 3),
        "counts": dict(sorted(tally.counts.items())),
        "maxima": {k: {"value": v, "case": c} for k, (v, c) in sorted(tally.maxima.items())},
        "groups": {g: dict(sorted(c.items())) for g, c in sorted(tally.groups.items())},
        "notes": dict(tally.notes.most_common(20)),
        "failed_cases": tally.failed_cases,
        "failures_total": len(tally.failures),
        "failures": tally.failures[:MAX_FAILURES_KEPT],
        "ok": not tally.failures,
    }
