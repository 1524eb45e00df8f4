"""Benchmark the engine on one scenario: N all-scripted sessions, seeds 0..N-1, one process, no log file.

    python scripts/bench.py                              # scenarios/bloodberry/inoiri_dolls.yaml, 300 sessions
    python scripts/bench.py SCENARIO -n 1000 --profile prof.txt

Run on purpose, never from the tests. Reports sessions per second, decisions per session, microseconds per
decision, and peak memory: tracemalloc in a separate pass (it slows Python down, so it is not timed) and the
process's maximum resident set size.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import pstats
import resource
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from agent.scripted import ScriptedAgent  # noqa: E402
from engine.core import LoadedScenario, Session, load_scenario  # noqa: E402

DEFAULT_SCENARIO = ROOT / "scenarios" / "bloodberry" / "inoiri_dolls.yaml"


STANDING = True


def play(scenario: LoadedScenario, seed: int, keep_events: bool, log_path: str | Path | None = None) -> int:
    """One all-scripted session without a table (the table's bookkeeping is not what we measure); the scripted
    seats declare their standing answers as at a table (``--no-standing``: every window asked); with ``log_path``
    the session writes its JSON-lines log there as it plays (as ``trpg play --log`` does); returns decisions."""
    agent = ScriptedAgent()
    s = Session(scenario, seed, keep_events=keep_events, log_path=log_path)
    if STANDING:
        s.declare_standing({a: agent.standing_answers(s.system, a, s.actor_role(a)) for a in s.game.actors()})
    while (d := s.pending) is not None:
        s.answer(agent.act(s.view(d)), policy="scripted")
    return s.decisions


def run(scenario: LoadedScenario, n: int, keep_events: bool, log_dir: str | Path | None = None) -> list[int]:
    """``n`` sessions, seeds 0..n-1; with ``log_dir`` each writes its log there (``<seed>.jsonl``)."""
    return [play(scenario, seed, keep_events, Path(log_dir) / f"{seed}.jsonl" if log_dir is not None else None)
            for seed in range(n)]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("scenario", nargs="?", default=str(DEFAULT_SCENARIO))
    ap.add_argument("-n", "--sessions", type=int, default=300)
    ap.add_argument("--keep-events", action="store_true", help="keep every event in memory (as replay and the CLI do)")
    ap.add_argument("--profile", metavar="FILE", help="write a cProfile top-30 by cumulative time to FILE")
    ap.add_argument("--no-memory", action="store_true", help="skip the tracemalloc pass")
    ap.add_argument("--no-standing", action="store_true", help="no standing answers: every reaction window is asked "
                    "(the engine before issue #17's standing answers)")
    args = ap.parse_args(argv)
    global STANDING
    STANDING = not args.no_standing

    scenario = load_scenario(args.scenario)
    n = args.sessions
    play(scenario, 0, args.keep_events)  # warm-up: imports, machine construction, caches

    gc.collect()
    t0 = time.perf_counter()
    decisions = run(scenario, n, args.keep_events)
    elapsed = time.perf_counter() - t0
    total = sum(decisions)

    print(f"scenario        {scenario.path} ({scenario.system.id} {scenario.system.version})")
    print(f"sessions        {n} (seeds 0..{n - 1}), all scripted, no log, keep_events={args.keep_events}")
    print(f"wall time       {elapsed:.3f} s")
    print(f"sessions/s      {n / elapsed:.1f}")
    print(f"decisions/sess  mean {statistics.fmean(decisions):.1f}, min {min(decisions)}, max {max(decisions)}")
    print(f"µs/decision     {elapsed / max(total, 1) * 1e6:.1f}")

    if not args.no_memory:
        tracemalloc.start()
        run(scenario, min(n, 50), args.keep_events)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        print(f"peak traced     {peak / 1e6:.2f} MB (tracemalloc, {min(n, 50)} sessions)")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    rss_mb = rss / 1e6 if sys.platform == "darwin" else rss / 1e3  # bytes on macOS, KiB on Linux
    print(f"max RSS         {rss_mb:.1f} MB (getrusage)")

    if args.profile:
        prof = cProfile.Profile()
        prof.enable()
        run(scenario, n, args.keep_events)
        prof.disable()
        buf = io.StringIO()
        pstats.Stats(prof, stream=buf).sort_stats("cumulative").print_stats(30)
        Path(args.profile).write_text(buf.getvalue(), encoding="utf-8")
        print(f"profile         {args.profile} (top 30 by cumulative time)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
