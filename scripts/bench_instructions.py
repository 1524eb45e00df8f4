"""Count the machine instructions one scripted session costs, with valgrind: a measure that does not move with the
load of a shared machine (wall-clock runs of the same code here move by ±10–20 %, sometimes ±40 %).

    python scripts/bench_instructions.py                                   # night_of_the_count, 20 sessions
    python scripts/bench_instructions.py scenarios/bloodberry/inoiri_dolls.yaml -n 10 --keep-events
    python scripts/bench_instructions.py --tree ../other-checkout          # the same count on another checkout
    python scripts/bench_instructions.py scenarios/bloodberry/inoiri_dolls.yaml --batch   # as `trpg playtest --jobs 1`

It runs ``scripts/bench.py``'s loop (``Session`` + ``ScriptedAgent``, seeds 0..n-1, no log) under
``valgrind --tool=cachegrind --cache-sim=no`` twice, with n sessions and with none, and prints
(instructions(n) − instructions(0)) / n: start-up and imports cancel out. Needs valgrind (``apt-get install
valgrind``). With ``--batch`` it runs what ``trpg playtest --jobs 1`` runs per session instead:
``agent.batch.runner.play_one`` (the table, all seats scripted, and the session's summary). About 50× slower than a plain run, so a few sessions are enough: the count is the same at every run.
Run on purpose, never from the tests.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_SCENARIO = "scenarios/yogaribito/night_of_the_count.yaml"

#: the program valgrind runs: the benchmark loop of scripts/bench.py on the given tree (after K warm-up sessions)
_PROGRAM = """
import sys
sys.path.insert(0, {tree!r}); sys.path.insert(0, {scripts!r})
import bench
from engine.core import load_scenario
bench.STANDING = {standing}
sc = load_scenario({scenario!r})
for i in range({warm}):
    bench.play(sc, 1_000_000 + i, {keep}{warm_log})
bench.run(sc, {n}, {keep}{log})
"""

#: the same with the batch runner's session (``trpg playtest --jobs 1``): table, scripted seats, summary
_BATCH = """
import sys
sys.path.insert(0, {tree!r})
from agent.batch.runner import play_one
from engine.core import load_scenario
load_scenario({scenario!r})
for i in range({warm}):
    play_one({scenario!r}, ["all=scripted"], 1_000_000 + i)
for seed in range({n}):
    play_one({scenario!r}, ["all=scripted"], seed)
"""

#: the bare loop of scripts/bench_batch.py (dice and arithmetic only) on the workloads of 5 traced sessions: the
#: tracing is in both runs and cancels out, so the difference is n bare sessions
_BARE = """
import sys
sys.path.insert(0, {tree!r}); sys.path.insert(0, {scripts!r})
from bench_batch import trace_workload, bare_session
from engine.core import load_scenario
sc = load_scenario({scenario!r})
ws = [trace_workload(sc, seed) for seed in range(5)]
for i in range({warm}):
    bare_session(ws[0], 1_000_000 + i)
for i in range({n}):
    bare_session(ws[i % 5], i)
"""

_REFS = re.compile(r"I\s+refs:\s+([\d,]+)")


def parse_refs(valgrind_output: str) -> int:
    """The ``I refs`` total of a cachegrind run."""
    m = _REFS.search(valgrind_output)
    if m is None:
        raise ValueError("no 'I refs' line in valgrind's output")
    return int(m.group(1).replace(",", ""))


class RunFailed(RuntimeError):
    """The measured program failed: the message ends with the last lines it wrote."""


def instructions(tree: Path, scenario: str, n: int, keep_events: bool, standing: bool = True,
                 batch: bool = False, warm_up: int = 0, bare: bool = False, log_dir: str | None = None) -> int:
    """Instructions of the program with ``n`` sessions; ``log_dir``: the engine loop's sessions write their logs
    there (a tree whose bench.py has no ``log_path`` cannot be measured so)."""
    def program_of(sessions: int, warm: int) -> str:
        return (_BARE if bare else _BATCH if batch else _PROGRAM).format(
            tree=str(tree), scripts=str(tree / "scripts"), scenario=scenario, n=sessions, keep=keep_events,
            standing=standing, warm=warm, warm_log=f", {log_dir + '/warm.jsonl'!r}" if log_dir else "",
            log=f", {log_dir!r}" if log_dir else "")

    program = program_of(n, warm_up)
    # one hash seed for every run (set and dict orders of strings, hence the work, are then the same), and the
    # bytecode of every module written before the counted runs (a module edited since its last import would be
    # compiled inside the first of the two runs only, and the difference would not be n sessions)
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    subprocess.run([sys.executable, "-c", program_of(0, min(warm_up, 1))], cwd=tree, env=env, capture_output=True,
                   text=True)
    out = subprocess.run(
        ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
         sys.executable, "-c", program],
        cwd=tree, capture_output=True, text=True, env=env)
    if out.returncode != 0:
        tail = [ln for ln in out.stderr.splitlines() if not ln.startswith(("==", "--"))][-6:]
        raise RunFailed(f"the benchmark loop failed in {tree} ({scenario}, {n} sessions): " + " | ".join(tail))
    return parse_refs(out.stderr)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("scenario", nargs="?", default=DEFAULT_SCENARIO, help="path relative to the tree")
    ap.add_argument("-n", "--sessions", type=int, default=20)
    ap.add_argument("--keep-events", action="store_true", help="keep every event in memory (as replay and batches do)")
    ap.add_argument("--tree", type=Path, default=ROOT, help="the checkout to measure (default: this one)")
    ap.add_argument("--no-standing", action="store_true", help="every reaction window asked (no standing answers; "
                    "a tree from before them has no bench.STANDING and always asks)")
    ap.add_argument("--batch", action="store_true", help="the batch runner's session (`trpg playtest --jobs 1`: "
                    "table, scripted seats, summary) instead of bench.py's loop")
    ap.add_argument("--bare", action="store_true", help="the bare loop (scripts/bench_batch.py: the dice and "
                    "arithmetic of traced sessions, no engine) instead: the reference of issue #17's ratio")
    ap.add_argument("--log", action="store_true", help="bench.py's loop with every session writing its JSON-lines log "
                    "(to a temporary folder, as `trpg play --log` does)")
    ap.add_argument("--warm-up", type=int, default=0, metavar="K",
                    help="play K sessions (seeds 1,000,000…) before the measured ones, in both runs: the first session's "
                    "one-time costs (lazy imports, schemas, caches) are then left out, as in a batch of thousands")
    args = ap.parse_args(argv)
    if shutil.which("valgrind") is None:
        print("bench_instructions: valgrind is not installed (apt-get install valgrind)", file=sys.stderr)
        return 2
    if args.log and (args.batch or args.bare):
        print("bench_instructions: --log measures bench.py's loop; it does not go with --batch or --bare", file=sys.stderr)
        return 2
    tree = args.tree.resolve()
    with tempfile.TemporaryDirectory(prefix="bench-logs-") as tmp:
        log_dir = tmp if args.log else None
        try:
            base = instructions(tree, args.scenario, 0, args.keep_events, not args.no_standing, args.batch,
                                args.warm_up, args.bare, log_dir)
            total = instructions(tree, args.scenario, args.sessions, args.keep_events, not args.no_standing,
                                 args.batch, args.warm_up, args.bare, log_dir)
        except (RunFailed, ValueError) as e:
            print(f"bench_instructions: {e}", file=sys.stderr)
            return 2
    per = (total - base) / args.sessions
    print(f"tree            {tree}")
    what = "the bare loop (no engine)" if args.bare else "the batch runner's play_one" if args.batch else f"keep_events={args.keep_events}, " \
        f"standing answers={not args.no_standing}" + (", a log written" if args.log else "")
    warm = f", after {args.warm_up} warm-up session(s)" if args.warm_up else ""
    print(f"scenario        {args.scenario}, {args.sessions} sessions{warm}, {what}")
    print(f"instructions    {per / 1e6:.1f} M per session (start-up {base / 1e6:.0f} M, subtracted)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
