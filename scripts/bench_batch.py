"""Benchmark every sample scenario: engine vs a bare hand-written loop, 1 process vs --jobs 2 vs Dask, peak memory.

    python scripts/bench_batch.py                               # every sample scenario, 1000 runs, memory for 10,000
    python scripts/bench_batch.py -n 200 --memory-runs 1000 --write-docs
    python scripts/bench_batch.py --scenario inoiri_dolls -n 50 --no-dask --memory-runs 0

Run on purpose, never from the tests (the smoke test calls the functions with tiny sizes and checks no timing).
For each sample scenario of each registered system (``engine.core.systems()``), one run measures:

* ``engine``: the engine alone, ``scripts/bench.py``'s loop (``Session`` + ``ScriptedAgent``, no table, no log,
  no summary), seeds 0..n-1, one process; µs per session from it is the numerator of the ratio;
* ``batch j1`` / ``batch j2`` / ``dask 2``: ``agent.batch.runner.run_batch`` with ``all=scripted`` seats (table,
  per-session summary, aggregation), seeds 0..n-1: in this process, on a ``ProcessPoolExecutor(2)``, and on a Dask
  ``LocalCluster`` of 2 single-threaded worker processes; the wall time includes starting the pool or the cluster;
* ``bare``: the bare loop below, n sessions; ``ratio`` = engine µs per session / bare µs per session;
* peak memory for ``--memory-runs`` sessions: a fresh child process plays them through ``run_batch(jobs=1)`` and
  reports its peak resident set size (``VmHWM``, else ``getrusage``) after one session and after all of them, then the
  tracemalloc peak over ``--tracemalloc-runs`` more sessions (tracemalloc slows Python, so it is a separate pass).

The bare loop ("what the dice and arithmetic alone cost"): ``trace_workload`` plays a real scripted session with
``keep_events=True`` and turns its events into a flat workload: consecutive ``roll`` events with the same purpose
and die size form one dice pool (op ``pool``), a ``check`` event becomes a comparison of the last pool's
achievement with the check's threshold/target (op ``check``), and a ``state`` event becomes an update of a plain
dict: ``+= new - old`` when both are integers (life, willpower, wealth, ...), a plain assignment otherwise (op
``add``/``set``). ``bare_session`` replays a workload with ``random.Random(seed)``: it rolls the same number of dice
in the same pool sizes with ``randint`` (as the engine's ``Dice`` does), reads each check's pool against its target
with the system's own reading (``SystemInfo.report.raw_success``: ブラッドベリー's 5s and 6s, 夜狩り人's as well or two
6s, 「A」's sum against twice the difficulty with a 1 failing, ラストフラグメント's highest die), counts the successes
and applies the updates. It does not: make or answer decisions, check options, walk the state machines or the scenario's scenes,
build or validate events, narrate, keep a log, resolve rules (modifiers, rerolls, reactions, effects). The faces
differ from the traced session's (fresh rolls), the amount of work is the same. Session i of the bare run replays
the workload of traced seed ``i % trace_sessions``.
"""

from __future__ import annotations

import argparse
import cProfile
import datetime as dt
import gc
import io
import json
import os
import platform
import pstats
import random
import resource
import statistics
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
for _p in (str(ROOT), str(ROOT / "scripts")):
    if _p not in sys.path:
        sys.path.insert(0, _p)

from bench import play  # noqa: E402

from agent.scripted import ScriptedAgent  # noqa: E402
from engine.core import LoadedScenario, Session, load_scenario, systems  # noqa: E402
from engine.core.report_hooks import count_fives  # noqa: E402

TARGET_SESSIONS_PER_S = 150  # the foundation's target
DOC = ROOT / "docs" / "benchmarks.md"
BEGIN, END = "<!-- bench_batch:begin -->", "<!-- bench_batch:end -->"

# ---------------------------------------------------------------------------------------------------------------
# the bare loop
# ---------------------------------------------------------------------------------------------------------------

# ops: ("pool", n_dice, sides) | ("check", target) | ("add", key, delta) | ("set", key, value)
Op = tuple[Any, ...]


@dataclass
class Workload:
    system: str
    seed: int
    ops: list[Op]
    decisions: int
    #: the system's reading of a pool against a target (``ReportHooks.raw_success``)
    read: Callable[[list[int], int], bool] = count_fives
    dice: int = 0
    pools: int = 0
    checks: int = 0
    adds: int = 0
    sets: int = 0


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _target(event: Any) -> int:
    """The target number of a check event: the first typed dice line's ``target`` (``CheckRoll``, the same field in
    every system), else the system's own data (夜狩り人's ``target``, ブラッドベリー's ``threshold`` per roller);
    1 for a check compared with an opponent (the bare loop still compares)."""
    for r in event.rolls or ():
        if _is_int(r.target):
            return int(r.target)
    data = event.data or {}
    if _is_int(data.get("target")):
        return int(data["target"])
    for r in data.get("rollers") or ():
        if isinstance(r, dict) and _is_int(r.get("threshold")):
            return int(r["threshold"])
    return 1


def trace_workload(scenario: LoadedScenario, seed: int) -> Workload:
    """Play one scripted session (as ``scripts/bench.py`` does, keeping its events) and extract its dice and
    arithmetic as a flat workload (see the module docstring)."""
    agent = ScriptedAgent()
    s = Session(scenario, seed, keep_events=True)
    while (d := s.pending) is not None:
        s.answer(agent.act(s.view(d)), policy="scripted")
    s.ctx.release()
    ops: list[Op] = []
    last: tuple[str, int] | None = None  # (purpose, sides) of the pool being extended
    report = scenario.system.report
    w = Workload(scenario.system.id, seed, ops, s.decisions, report.raw_success if report else count_fives)
    for e in s.events:
        t = e.type
        if t == "roll":
            key = (e.purpose, e.sides)
            if last == key and ops and ops[-1][0] == "pool":
                ops[-1] = ("pool", ops[-1][1] + 1, e.sides)
            else:
                ops.append(("pool", 1, e.sides))
                w.pools += 1
            last = key
            w.dice += 1
            continue
        last = None
        if t == "check":
            ops.append(("check", _target(e)))
            w.checks += 1
        elif t == "state":
            if _is_int(e.old) and _is_int(e.new):
                ops.append(("add", e.path, e.new - e.old))
                w.adds += 1
            else:
                ops.append(("set", e.path, e.new))
                w.sets += 1
    return w


def bare_loop(ops: list[Op], seed: int, read: Callable[[list[int], int], bool]) -> dict[str, Any]:
    """One session's dice and arithmetic by hand: roll each pool with ``randint`` (as the engine's ``Dice`` does),
    read the last pool against each check's target with the system's own reading (``read``: its
    ``ReportHooks.raw_success``, e.g. ブラッドベリー's 5s and 6s against the threshold, 「A」's sum against twice the
    difficulty, ラストフラグメント's highest die), count the successes, apply the state updates to a plain dict."""
    rng = random.Random(seed)
    randint = rng.randint
    state: dict[str, Any] = {}
    faces: list[int] = []
    successes = 0
    for op in ops:
        kind = op[0]
        if kind == "pool":
            sides = op[2]
            faces = [randint(1, sides) for _ in range(op[1])]
        elif kind == "check":
            if read(faces, op[1]):
                successes += 1
        elif kind == "add":
            state[op[1]] = state.get(op[1], 0) + op[2]
        else:
            state[op[1]] = op[2]
    state["_successes"] = successes
    return state


def bare_session(w: Workload, seed: int) -> dict[str, Any]:
    return bare_loop(w.ops, seed, w.read)


def run_bare(workloads: list[Workload], n: int) -> float:
    """Seconds for n bare sessions (session i replays ``workloads[i % len]`` with seed i)."""
    k = len(workloads)
    ops = [w.ops for w in workloads]
    reads = [w.read for w in workloads]
    gc.collect()
    t0 = time.perf_counter()
    for i in range(n):
        bare_loop(ops[i % k], i, reads[i % k])
    return time.perf_counter() - t0


# ---------------------------------------------------------------------------------------------------------------
# measurements
# ---------------------------------------------------------------------------------------------------------------


@dataclass
class Result:
    scenario: str
    path: str
    system: str
    runs: int
    decisions_per_session: float = 0.0
    dice_per_session: float = 0.0
    pools_per_session: float = 0.0
    checks_per_session: float = 0.0
    updates_per_session: float = 0.0
    engine_s: float = 0.0
    engine_per_s: float = 0.0
    engine_us_per_session: float = 0.0
    us_per_decision: float = 0.0
    batch_j1_per_s: float | None = None
    batch_j2_per_s: float | None = None
    dask_per_s: float | None = None
    bare_runs: int = 0
    bare_per_s: float = 0.0
    bare_us_per_session: float = 0.0
    ratio: float = 0.0
    memory: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def sample_scenarios(only: list[str] | None = None) -> list[Path]:
    out = []
    for info in systems():
        for p in info.sample_scenarios:
            p = Path(p)
            if not only or any(o in (p.stem, str(p), p.name) or Path(o).resolve() == p.resolve() for o in only):
                out.append(p)
    return out


def time_batch(path: Path, runs: int, jobs: int, executor: str) -> float:
    from agent.batch.runner import run_batch

    gc.collect()
    t0 = time.perf_counter()
    agg = run_batch(path, runs, jobs=jobs, executor=executor)
    elapsed = time.perf_counter() - t0
    if agg.runs != runs:
        raise RuntimeError(f"run_batch returned {agg.runs} sessions, expected {runs}")
    return elapsed


def _maxrss_mb(who: int = resource.RUSAGE_SELF) -> float:
    rss = resource.getrusage(who).ru_maxrss
    return rss / 1e6 if sys.platform == "darwin" else rss / 1e3  # bytes on macOS, KiB on Linux


def _peak_rss_mb() -> tuple[float, str]:
    """This process's peak resident set size: ``VmHWM`` from /proc/self/status where there is one (Linux), else
    ``getrusage``. On Linux ``ru_maxrss`` of a child started by fork + exec also counts the parent's resident set
    at the fork (the kernel carries the old memory map's high-water mark over the exec), so a child of a 100 MB
    benchmark process would report at least 100 MB; ``VmHWM`` belongs to the memory map and starts afresh at exec."""
    try:
        for line in Path("/proc/self/status").read_text(encoding="ascii").splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1e3, "VmHWM"
    except OSError:
        pass
    return _maxrss_mb(), "getrusage"


def memory_worker(path: str, runs: int, traced: int) -> dict[str, Any]:
    """In a fresh process: ``runs`` sessions through run_batch(jobs=1); max RSS after one, after the first tenth and
    after all (flat from a tenth to all: nothing grows with the number of sessions); then the tracemalloc peak over
    ``traced`` more sessions."""
    from agent.batch.runner import run_batch

    run_batch(path, 1)
    rss1, _ = _peak_rss_mb()
    tenth = max(1, runs // 10)
    t0 = time.perf_counter()
    run_batch(path, tenth)
    rss10, _ = _peak_rss_mb()
    if runs > tenth:
        run_batch(path, runs - tenth, seed=tenth)
    elapsed = time.perf_counter() - t0
    rssn, source = _peak_rss_mb()
    peak = None
    if traced > 0:
        tracemalloc.start()
        run_batch(path, traced, seed=1)
        peak = tracemalloc.get_traced_memory()[1] / 1e6
        tracemalloc.stop()
    return {"runs": runs, "max_rss_after_1_mb": rss1, "tenth": tenth, "max_rss_after_tenth_mb": rss10, "max_rss_mb": rssn, "rss_source": source, "seconds": elapsed,
            "tracemalloc_runs": traced, "tracemalloc_peak_mb": peak}


def measure_memory(path: Path, runs: int, traced: int) -> dict[str, Any]:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--memory-worker", str(path), str(runs), str(traced)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, cwd=ROOT)
    return json.loads(out.stdout.strip().splitlines()[-1])


def measure(path: Path, runs: int, *, jobs: int = 2, dask: bool = True, local: bool = True, batch_j1: bool = True,
            trace_sessions: int = 50, bare_runs: int | None = None, memory_runs: int = 0, tracemalloc_runs: int = 0,
            log: Any = None) -> Result:
    def say(msg: str) -> None:
        if log:
            print(f"  {path.stem}: {msg}", file=log, flush=True)

    scenario = load_scenario(path)
    res = Result(scenario.id, str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path), scenario.system.id, runs)

    k = max(1, min(trace_sessions, runs))
    workloads = [trace_workload(scenario, seed) for seed in range(k)]
    res.dice_per_session = statistics.fmean(w.dice for w in workloads)
    res.pools_per_session = statistics.fmean(w.pools for w in workloads)
    res.checks_per_session = statistics.fmean(w.checks for w in workloads)
    res.updates_per_session = statistics.fmean(w.adds + w.sets for w in workloads)

    play(scenario, 0, False)  # warm-up
    gc.collect()
    t0 = time.perf_counter()
    decisions = [play(scenario, seed, False) for seed in range(runs)]
    res.engine_s = time.perf_counter() - t0
    res.decisions_per_session = statistics.fmean(decisions)
    res.engine_per_s = runs / res.engine_s
    res.engine_us_per_session = res.engine_s / runs * 1e6
    res.us_per_decision = res.engine_s / max(1, sum(decisions)) * 1e6
    say(f"engine {res.engine_per_s:.1f}/s")

    nb = bare_runs or max(runs, 1000)
    bare_s = run_bare(workloads, nb)
    res.bare_runs = nb
    res.bare_per_s = nb / bare_s
    res.bare_us_per_session = bare_s / nb * 1e6
    res.ratio = res.engine_us_per_session / res.bare_us_per_session
    say(f"bare {res.bare_per_s:.0f}/s, ratio {res.ratio:.0f}")

    if batch_j1:
        res.batch_j1_per_s = runs / time_batch(path, runs, 1, "local")
        say(f"batch j1 {res.batch_j1_per_s:.1f}/s")
    if local and jobs > 1:
        res.batch_j2_per_s = runs / time_batch(path, runs, jobs, "local")
        say(f"batch j{jobs} {res.batch_j2_per_s:.1f}/s")
    if dask and jobs > 1:
        try:
            res.dask_per_s = runs / time_batch(path, runs, jobs, "dask")
            say(f"dask {res.dask_per_s:.1f}/s")
        except Exception as e:  # dask missing: say so in the table
            res.notes.append(f"dask: {type(e).__name__}: {e}")
    if memory_runs > 0:
        res.memory = measure_memory(path, memory_runs, tracemalloc_runs)
        say(f"memory {res.memory}")
    return res


# ---------------------------------------------------------------------------------------------------------------
# output
# ---------------------------------------------------------------------------------------------------------------


def _f(v: float | None, fmt: str = ".1f") -> str:
    return "–" if v is None else format(v, fmt)


def markdown_table(results: list[Result], jobs: int = 2) -> str:
    head = ("| scenario | decisions/session | dice / pools / checks / state updates per session | "
            "engine sessions/s (1 process) | µs/decision | "
            f"batch sessions/s jobs 1 | jobs {jobs} | dask {jobs} workers | bare loop sessions/s | engine/bare ratio | "
            f"{TARGET_SESSIONS_PER_S}/s target: engine at |")
    lines = [head, "|" + "---|" * head.count(" | ") + "---|"]
    for r in results:
        lines.append(
            f"| {r.scenario} ({r.system}) | {r.decisions_per_session:.0f} | {r.dice_per_session:.0f} / "
            f"{r.pools_per_session:.0f} / {r.checks_per_session:.0f} / {r.updates_per_session:.0f} | "
            f"{r.engine_per_s:.1f} | {r.us_per_decision:.1f} | {_f(r.batch_j1_per_s)} | {_f(r.batch_j2_per_s)} | "
            f"{_f(r.dask_per_s)} | {r.bare_per_s:,.0f} | {r.ratio:.0f} | "
            f"{r.engine_per_s / TARGET_SESSIONS_PER_S * 100:.0f}% (×{TARGET_SESSIONS_PER_S / r.engine_per_s:.1f} short) |")
    mem = [r for r in results if r.memory]
    if mem:
        lines += ["", "| scenario | sessions | peak RSS after 1 session | after the first tenth | after all | "
                      "tracemalloc peak (sessions) | seconds |", "|---|---|---|---|---|---|---|"]
        for r in mem:
            m = r.memory
            tenth = (f"{m['max_rss_after_tenth_mb']:.1f} MB ({m['tenth']:,})" if "max_rss_after_tenth_mb" in m else "-")
            lines.append(f"| {r.scenario} | {m['runs']:,} | {m['max_rss_after_1_mb']:.1f} MB | {tenth} | {m['max_rss_mb']:.1f} MB | "
                         f"{_f(m['tracemalloc_peak_mb'], '.2f')} MB ({m['tracemalloc_runs']:,}) | {m['seconds']:.1f} |")
    notes = [f"{r.scenario}: {n}" for r in results for n in r.notes]
    if notes:
        lines += [""] + [f"- {n}" for n in notes]
    return "\n".join(lines)


def machine_info() -> str:
    try:
        load = os.getloadavg()
        load_s = f"load average before the run {load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f}"
    except OSError:
        load_s = "load average unknown"
    return (f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
            f"{load_s}")


def generated_section(results: list[Result], command: str, machine: str, started: str, seconds: float, jobs: int) -> str:
    return "\n".join([
        BEGIN,
        f"Command: `{command}` (started {started}, took {seconds:.0f} s)",
        "",
        f"Machine: {machine}",
        "",
        markdown_table(results, jobs),
        END,
    ])


def write_docs(section: str, path: Path = DOC) -> None:
    if path.exists():
        text = path.read_text(encoding="utf-8")
        if BEGIN in text and END in text:
            a, rest = text.split(BEGIN, 1)
            _, b = rest.split(END, 1)
            path.write_text(a + section + b, encoding="utf-8")
            return
        path.write_text(text.rstrip("\n") + "\n\n" + section + "\n", encoding="utf-8")
        return
    path.write_text("# Benchmarks\n\nProduced by `scripts/bench_batch.py`.\n\n" + section + "\n", encoding="utf-8")


def profile(path: Path, runs: int, top: int = 25) -> str:
    scenario = load_scenario(path)
    play(scenario, 0, False)
    prof = cProfile.Profile()
    prof.enable()
    for seed in range(runs):
        play(scenario, seed, False)
    prof.disable()
    buf = io.StringIO()
    pstats.Stats(prof, stream=buf).sort_stats("tottime").print_stats(top)
    return buf.getvalue()


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--memory-worker"]:
        print(json.dumps(memory_worker(argv[1], int(argv[2]), int(argv[3]))))
        return 0
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", "--runs", type=int, default=1000, help="sessions per measurement (default 1000)")
    ap.add_argument("--scenario", action="append", help="only this sample scenario (stem, file name or path); repeatable")
    ap.add_argument("--jobs", type=int, default=2, help="processes / Dask workers of the parallel runs (default 2)")
    ap.add_argument("--no-dask", action="store_true")
    ap.add_argument("--no-local", action="store_true", help="skip the --jobs ProcessPoolExecutor run")
    ap.add_argument("--no-batch-j1", action="store_true", help="skip run_batch with jobs=1")
    ap.add_argument("--trace-sessions", type=int, default=50, help="sessions traced for the bare loop's workloads")
    ap.add_argument("--bare-runs", type=int, help="bare-loop sessions (default max(runs, 1000))")
    ap.add_argument("--memory-runs", type=int, default=10_000, help="sessions of the memory pass (0: none)")
    ap.add_argument("--tracemalloc-runs", type=int, help="sessions of the tracemalloc pass (default min(memory-runs, 500))")
    ap.add_argument("--profile", metavar="N", type=int, default=0,
                    help="cProfile N engine sessions of the first scenario; top functions by own time on stderr")
    ap.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    ap.add_argument("--write-docs", action="store_true", help=f"write/refresh the generated section of {DOC.relative_to(ROOT)}")
    args = ap.parse_args(argv)

    paths = sample_scenarios(args.scenario)
    if not paths:
        ap.error(f"no sample scenario matches {args.scenario}")
    traced = args.tracemalloc_runs if args.tracemalloc_runs is not None else min(args.memory_runs, 500)
    machine = machine_info()
    started = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    t0 = time.perf_counter()
    results = []
    for p in paths:
        results.append(measure(p, args.runs, jobs=args.jobs, dask=not args.no_dask, local=not args.no_local,
                               batch_j1=not args.no_batch_j1, trace_sessions=args.trace_sessions,
                               bare_runs=args.bare_runs, memory_runs=args.memory_runs, tracemalloc_runs=traced,
                               log=sys.stderr))
    seconds = time.perf_counter() - t0
    command = "python scripts/bench_batch.py " + " ".join(argv)
    section = generated_section(results, command.strip(), machine, started, seconds, args.jobs)
    print(section)
    print(f"\nthis process: max RSS {_maxrss_mb():.1f} MB; children (pool workers, memory pass): "
          f"max RSS {_maxrss_mb(resource.RUSAGE_CHILDREN):.1f} MB (getrusage; on Linux a forked child's figure "
          "includes this process's RSS at the fork, see _peak_rss_mb)")
    if args.json:
        Path(args.json).write_text(json.dumps([asdict(r) for r in results], indent=2, ensure_ascii=False), encoding="utf-8")
    if args.write_docs:
        write_docs(section)
        print(f"wrote {DOC.relative_to(ROOT)}")
    if args.profile:
        print(profile(paths[0], args.profile), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
