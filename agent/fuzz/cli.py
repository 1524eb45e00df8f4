"""The ``trpg fuzz`` command line: its arguments (``add_arguments``, cheap to import: the CLI builds its parser from
it) and the run (``run``): the chosen fuzzer's cases, a summary with counts, the first failure with its seed and
the exact command that reproduces it, ``--out DIR/fuzz-<fuzzer>.json``, and the exit code (1 on any failure)."""

from __future__ import annotations

import argparse
import datetime
import importlib
import sys
import time
from typing import Any

__all__ = ["add_arguments", "run", "FuzzError"]


class FuzzError(ValueError):
    """A fuzz run that cannot start (bad arguments): one paragraph, exit code 2."""


def _common(p: argparse.ArgumentParser, runs: int, what: str) -> None:
    p.add_argument("--seed", type=int, default=0, help="base seed: case i draws from (fuzzer, seed, i) and plays "
                   "seed S*1_000_003+i (default 0)")
    p.add_argument("--runs", type=int, default=runs, metavar="N", help=f"{what} (default {runs})")
    p.add_argument("--case", type=int, action="append", metavar="I", help="run only case I (repeatable): what a "
                   "failure's `trpg fuzz ... --case I` command does")
    p.add_argument("--jobs", type=int, default=1, metavar="J", help="worker processes (default 1: this process)")
    p.add_argument("--executor", choices=("local", "dask"), default="local",
                   help="local process pool, or Dask distributed (a LocalCluster on 127.0.0.1 unless --scheduler)")
    p.add_argument("--scheduler", metavar="ADDRESS", help="a Dask scheduler address, e.g. tcp://10.0.0.5:8786")
    p.add_argument("--out", metavar="DIR", help="write DIR/fuzz-<fuzzer>.json (and the files of failing cases)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def add_arguments(s: argparse.ArgumentParser, parser_class: type[argparse.ArgumentParser]) -> None:
    """The ``fuzz`` subcommand's own subcommands and flags."""
    sub = s.add_subparsers(dest="fuzz_command", metavar="FUZZER", parser_class=parser_class)
    sub.required = True

    p = sub.add_parser("sessions", help="seeded sessions of every sample scenario, every decision checked",
                       description="Seeded sessions of every sample scenario of every registered system with random "
                                   "and mixed seats, random rule options and --create; checks every decision (well "
                                   "formed, seat views, the system's invariants), then replays, reruns and measures "
                                   "each log. Exit 1 on any failure.")
    _common(p, 100, "sessions")
    p.add_argument("--rerun-every", type=int, default=10, metavar="K", help="play every K-th case again without the "
                   "checks and compare the logs byte for byte (default 10; 0: never)")
    p.add_argument("--max-decisions", type=int, default=None, metavar="N", help="decision cap of a session (default "
                   "20,000): more is a hang")
    p.add_argument("--timeout", type=float, default=None, metavar="S", help="CPU seconds per session (default 60; wall clock: 4 times as long)")
    p.add_argument("--max-event-bytes", type=int, default=None, metavar="B", help="bound on one log line (default 65,536)")
    p.add_argument("--max-bytes-per-decision", type=int, default=None, metavar="B",
                   help="bound on a session's log bytes per decision (default 8,192)")
    p.add_argument("--again", metavar="FILE", help="play the failing cases of an earlier run's "
                   "fuzz-sessions.json again, exactly as recorded (scenario, seats, rule options, --create, seed), "
                   "with every check; --case picks among them. Unlike --seed/--case this holds after the systems' "
                   "rule options change")

    p = sub.add_parser("resume", help="trpg play killed with SIGKILL, trpg resume, compared with an uninterrupted run",
                       description="Kill-and-resume trials: `trpg play` in a subprocess killed with SIGKILL after a "
                                   "random number of log lines or a random delay (its last line torn now and then), "
                                   "`trpg resume LOG --yes` (itself killed again now and then), and the finished log "
                                   "compared byte for byte with an uninterrupted run of the same seed. Exit 1 on any "
                                   "failure.")
    _common(p, 30, "trials")
    p.add_argument("--max-kills", type=int, default=3, metavar="K", help="kills per trial at most (default 3)")
    p.add_argument("--tear", type=float, default=0.25, metavar="P", help="probability of also tearing the last line "
                   "after a kill, as a crash in the middle of a write would (default 0.25)")
    p.add_argument("--timeout", type=float, default=120.0, metavar="S", help="seconds per process (default 120)")

    p = sub.add_parser("answers", help="hostile answers through the Python API: each must be refused, state untouched",
                       description="Drives sessions through engine.core.session.Session and, at random decisions, "
                                   "submits hostile answers first (wrong types, unknown ids, huge strings, deep "
                                   "nesting, str subclasses, NaN, extra fields, model_construct payloads, stale seqs, "
                                   "non-string texts, control characters, ...). Each must be refused with "
                                   "IllegalAnswer, a message of at most 2,000 characters and the session's state "
                                   "unchanged; then a legal answer goes on. Exit 1 on any failure.")
    _common(p, 1000, "hostile answers (at least)")
    p.add_argument("--per-session", type=int, default=40, metavar="N", help="hostile answers per session at most "
                   "(default 40)")
    p.add_argument("--skip", action="append", default=[], metavar="CATEGORY", help="leave a category of hostile "
                   "answers out (repeatable; see docs/reliability.md)")
    p.add_argument("--timeout", type=float, default=120.0, metavar="S", help="CPU seconds per session (default 120; wall clock: 4 times as long)")

    p = sub.add_parser("files", help="mutated scenarios and logs through validate, replay --verify and resume",
                       description="Mutates the sample scenarios and real logs (structure: keys, types, numbers, "
                                   "strings, nesting; text: bytes, truncation, UTF-8, duplicate keys, alias bombs; "
                                   "logs: lines dropped, duplicated, reordered, edited, forged) and runs `trpg "
                                   "validate` (and `trpg play` when it passes), `trpg replay --verify` and `trpg "
                                   "resume` on each, with a time and memory limit per file. Exit 1 on any failure.")
    _common(p, 100, "mutated files")
    p.add_argument("--timeout", type=float, default=5.0, metavar="S", help="seconds per command (default 5)")
    p.add_argument("--memory-mb", type=int, default=500, metavar="MB", help="address-space limit per command (default 500)")
    p.add_argument("--logs-per-sample", type=int, default=3, metavar="K", help="logs played per sample scenario to "
                   "mutate: a scripted, a mixed and a --create session (default 3: all of them)")
    p.add_argument("--isolation", choices=("fork", "subprocess"), default="fork",
                   help="each command in a forked child of a worker (fast; default) or in a new `python -m agent.cli` "
                        "process; Dask workers always use subprocess")


def _module(name: str) -> Any:
    return importlib.import_module(f"agent.fuzz.{name}")


def _check(args: argparse.Namespace) -> None:
    if args.runs < 1 and not args.case:
        raise FuzzError(f"--runs must be at least 1 (got {args.runs})")
    if args.jobs < 1:
        raise FuzzError(f"--jobs must be at least 1 (got {args.jobs})")
    if args.scheduler and args.executor != "dask":
        raise FuzzError("--scheduler needs --executor dask")
    if args.executor == "dask":
        try:
            importlib.import_module("dask.distributed")
        except ImportError:
            raise FuzzError("--executor dask needs dask[distributed]: pip install -e '.[batch]'") from None
    for i in args.case or ():
        if i < 0:
            raise FuzzError(f"--case must be ≥ 0 (got {i})")


def _failure_lines(f: dict[str, Any]) -> list[str]:
    lines = [f"  case {f['case']}" + (f" (seed {f['seed']})" if "seed" in f else "") + f": {f['kind']}: {f['message']}"]
    for key, label in (("command", "reproduce"), ("repro", "reproduce"), ("fuzz_command", "this case again"),
                       ("log", "its log"), ("file", "the file")):
        if f.get(key):
            lines.append(f"  {label}: {f[key]}")
    tb = f.get("traceback")
    if tb:
        lines.append("  traceback (last frames):")
        lines += ["    " + x for x in tb.rstrip().splitlines()[-14:]]
    return lines


def run(args: argparse.Namespace) -> int:
    """Run the fuzzer ``args.fuzz_command``; print its summary; exit code 1 on any failure."""
    from .common import summary_data, write_summary

    _check(args)
    name = args.fuzz_command
    mod = _module(name)
    t0 = time.perf_counter()
    started = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    progress, close = _progress(name, args.quiet)
    try:
        tally, extra = mod.run(args, progress)
    finally:
        close()
    elapsed = time.perf_counter() - t0
    info = {"started": started, "args": {k: v for k, v in sorted(vars(args).items()) if k != "func"},
            "seed": args.seed, "runs": args.runs, "cases": args.case, "jobs": args.jobs, "executor": args.executor,
            **extra}
    data = summary_data(name, tally, info, elapsed)
    print(f"trpg fuzz {name} — seed {args.seed}, {'cases ' + ', '.join(map(str, args.case)) if args.case else f'{args.runs} runs'}, "
          f"{args.jobs} job(s), {elapsed:.1f} s")
    for line in mod.summary_lines(data):
        print("  " + line)
    if args.out:
        path = write_summary(args.out, name, data)
        print(f"  wrote {path}")
    if not tally.failures:
        print("ok: no failure")
        return 0
    print(f"FAILED: {len(tally.failures)} failure(s) in {tally.failed_cases} case(s); the first:")
    for line in _failure_lines(tally.failures[0]):
        print(line)
    kinds: dict[str, int] = {}
    for f in tally.failures:
        kinds[f["kind"]] = kinds.get(f["kind"], 0) + 1
    print("  failures by kind: " + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())))
    return 1


def _progress(name: str, quiet: bool) -> tuple[Any, Any]:
    if quiet or not sys.stderr.isatty():
        return None, lambda: None
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    bar = Progress(TextColumn(f"[bold]fuzz {name}[/]"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                   TextColumn("ETA"), TimeRemainingColumn(), console=Console(stderr=True), transient=True)
    bar.start()
    task = bar.add_task(name, total=None)

    def progress(done: int, total: int) -> None:
        bar.update(task, completed=done, total=total)

    return progress, bar.stop
