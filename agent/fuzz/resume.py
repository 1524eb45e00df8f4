"""``trpg fuzz resume``: SIGKILL-and-resume trials (README, "The determinism promise": a resumed log is identical to
an uninterrupted run).

Trial ``i`` (base seed ``S``) plays the sample ``i mod n`` with the seed ``S * 1_000_003 + i``, seats drawn as for
``trpg fuzz sessions`` (each seat role scripted or random) and ``--create`` one time in four where the system creates
PCs at the table; the draws come from ``Random("resume:S:i")``:

1. the uninterrupted run: ``trpg play`` in a subprocess (the reference log), which must equal the same session
   played through the Python API in this process;
2. ``trpg play SCENARIO --seat ... --seed N --log L --quiet`` in a subprocess, killed with SIGKILL once ``L`` has a
   random number of lines (or after a random delay from its first byte); with probability ``tear`` a few bytes more
   are cut off the end afterwards, as a crash in the middle of a write leaves it;
3. what is on disk must be a byte prefix of the reference (else the two processes played differently);
4. ``trpg resume L --yes --quiet``, itself killed again (at most ``max_kills`` kills in all) now and then, and resumed
   again, until it ends by itself;
5. the finished ``L`` must equal the reference byte for byte. A log killed before its header line was complete
   cannot be resumed: ``trpg resume`` must say so in one paragraph (exit 2). A log that was complete when killed
   must be refused as finished (exit 2) and left as it is.

A failure's reproduction needs no timing: the cut is a prefix of the reference, so ``head -c BYTES`` of the
reference, then ``trpg resume``, does it again.
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .common import Hang, Sample, Tally, case_rng, case_seed, draw_seats, run_cases, samples, seat_name, watchdog

__all__ = ["ResumeParams", "run_chunk", "run"]

#: how often the log is looked at while a process runs (seconds)
POLL = 0.0005


@dataclass(frozen=True)
class ResumeParams:
    base_seed: int = 0
    max_kills: int = 3
    tear: float = 0.25
    timeout: float = 120.0
    keep_dir: str | None = None
    python: str = sys.executable


@dataclass
class Run:
    """One process: how it ended and what it said."""

    rc: int | None  # None: killed by us
    killed: bool
    stderr: str
    seconds: float
    hang: bool = False


class _LineCounter:
    """Counts the lines of a growing (and possibly cut) file without reading it all every time."""

    def __init__(self, path: Path):
        self.path = path
        self.offset = 0
        self.lines = 0

    def count(self) -> int:
        try:
            size = os.stat(self.path).st_size
        except FileNotFoundError:
            return 0
        if size < self.offset:  # cut (resume drops a half-written line): count again
            self.offset = self.lines = 0
        if size > self.offset:
            with open(self.path, "rb") as f:
                f.seek(self.offset)
                chunk = f.read(size - self.offset)
            self.lines += chunk.count(b"\n")
            self.offset += len(chunk)
        return self.lines


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("TRPG_DEBUG", None)  # errors as users see them: one paragraph
    return env


def run_process(argv: Sequence[str], log: Path, *, lines: int | None = None, delay: float | None = None,
                timeout: float, cwd: Path) -> Run:
    """Run ``argv``; SIGKILL it once ``log`` has ``lines`` lines, or ``delay`` seconds after ``log`` got its first
    byte (the process's start-up is not counted), or after ``timeout`` (a hang)."""
    err = tempfile.TemporaryFile()
    t0 = time.monotonic()
    proc = subprocess.Popen(list(argv), cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err,
                            env=_env())
    counter = _LineCounter(log)
    start_size = log.stat().st_size if log.exists() else 0
    first_byte: float | None = None
    killed = hang = False
    try:
        while proc.poll() is None:
            now = time.monotonic()
            if now - t0 > timeout:
                hang = True
                break
            if lines is not None and counter.count() >= lines:
                break
            if delay is not None:
                if first_byte is None and log.exists() and log.stat().st_size > start_size:
                    first_byte = now
                if first_byte is not None and now - first_byte >= delay:
                    break
            time.sleep(POLL)
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            killed = not hang
        proc.wait()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    err.seek(0)
    text = err.read().decode("utf-8", "replace")
    err.close()
    return Run(None if killed or hang else proc.returncode, killed, text, time.monotonic() - t0, hang)


def _one_paragraph(text: str) -> bool:
    t = text.strip()
    return bool(t) and "\n\n" not in t and "Traceback" not in t and "internal error" not in t


def _first_difference(a: bytes, b: bytes) -> str:
    la, lb = a.split(b"\n"), b.split(b"\n")
    for i, (x, y) in enumerate(zip(la, lb), 1):
        if x != y:
            return f"line {i}: {x[:200]!r} vs the reference's {y[:200]!r}"
    return f"{len(a):,} bytes vs the reference's {len(b):,}"


def trial(params: ResumeParams, index: int, tally: Tally, work: Path) -> None:
    from .sessions import CheckedTable, Case, _close, _seat_spec, new_session

    pool = samples()
    base = pool[index % len(pool)]
    sample = Sample(base.system, str(Path(base.path).resolve()), base.stem, base.can_create)
    rng = case_rng("resume", params.base_seed, index)
    seats = draw_seats(rng)
    create = sample.can_create and rng.random() < 0.25
    case = Case(index, case_seed(params.base_seed, index), sample, seats, create)
    ref = work / f"ref{index}.jsonl"
    log = work / f"cut{index}.jsonl"
    for p in (ref, log):
        p.unlink(missing_ok=True)
    tally.add("trials")
    tally.group("scenario", f"{sample.system}:{sample.stem}")
    tally.group("seats", seat_name(seats))
    kills: list[dict[str, Any]] = []
    fuzz_cmd = f"trpg fuzz resume --seed {params.base_seed} --case {index}"
    cut_at = 0

    def repro() -> str:
        play = shlex.join(["trpg", "play", sample.path, *[x for s in seats for x in ("--seat", s)],
                           *(["--create"] if create else []), "--seed", str(case.seed), "--log", "ref.jsonl", "--quiet"])
        return f"{play} && head -c {cut_at} ref.jsonl > cut.jsonl && trpg resume cut.jsonl --yes"

    def fail(kind: str, message: str, **data: Any) -> None:
        tally.failed_cases += 1
        kept = None
        if params.keep_dir and log.exists():
            d = Path(params.keep_dir)
            d.mkdir(parents=True, exist_ok=True)
            kept = str(d / f"resume-{case.seed}.jsonl")
            Path(kept).write_bytes(log.read_bytes())
        tally.fail(index, kind, message, seed=case.seed, scenario=sample.path, seats=list(seats), create=create,
                   kills=kills, repro=repro(), fuzz_command=fuzz_cmd, log=kept, **data)

    # 1. the uninterrupted run: `trpg play` in a subprocess (the code on disk now, as the killed processes will run
    # it), and the same session through the Python API in this process, which must agree with it
    api = work / f"api{index}.jsonl"
    api.unlink(missing_ok=True)
    t0 = time.perf_counter()
    s = new_session(case, api)
    try:
        with watchdog(params.timeout) as tick:
            CheckedTable(s, _seat_spec(seats), None, tick, 100_000).run()
        s.close()
    except Hang as e:
        _close(s)
        fail("hang", f"the uninterrupted run: {e}")
        return
    except Exception as e:
        _close(s)
        fail("crash", f"the uninterrupted run: {type(e).__name__}: {e}")
        return
    ref_s = time.perf_counter() - t0
    play_ref = [params.python, "-m", "agent.cli", "play", sample.path, *[x for s_ in seats for x in ("--seat", s_)],
                *(["--create"] if create else []), "--seed", str(case.seed), "--log", str(ref), "--quiet"]
    r0 = run_process(play_ref, ref, timeout=params.timeout, cwd=work)
    tally.add("reference_runs")
    if r0.hang or r0.rc != 0:
        fail("play", f"the uninterrupted trpg play: exit {r0.rc}{' (hang)' if r0.hang else ''}: {r0.stderr.strip()[:400]}")
        return
    want = ref.read_bytes()
    if api.read_bytes() != want:
        fail("reference", "trpg play and the same session through the Python API wrote different logs (or the code "
             "changed on disk during the run): " + _first_difference(api.read_bytes(), want))
        return
    api.unlink(missing_ok=True)
    total = want.count(b"\n")
    tally.add("reference_lines", total)
    # 2.-4. kill, check the prefix, resume (killed again now and then)
    play = [params.python, "-m", "agent.cli", "play", sample.path, *[x for s_ in seats for x in ("--seat", s_)],
            *(["--create"] if create else []), "--seed", str(case.seed), "--log", str(log), "--quiet"]
    resume = [params.python, "-m", "agent.cli", "resume", str(log), "--yes", "--quiet"]
    argv = play
    finished_alone = False
    while True:
        have = log.read_bytes().count(b"\n") if log.exists() else 0
        may_kill = len(kills) < params.max_kills and (argv is play or rng.random() < 0.5)
        lines = delay = None
        if may_kill:
            if rng.random() < 0.5 or argv is not play:
                lines = have + rng.randint(1, max(1, total - have))
            else:
                delay = rng.uniform(0, 2 * ref_s + 0.05)
        r = run_process(argv, log, lines=lines, delay=delay, timeout=params.timeout, cwd=work)
        step = "play" if argv is play else "resume"
        tally.add(f"{step}_runs")
        tally.add(f"{step}_ms", round(r.seconds * 1000))
        if r.hang:
            fail("hang", f"trpg {step} still running after {params.timeout:g} s")
            return
        got = log.read_bytes() if log.exists() else b""
        if r.killed:
            size = len(got)
            torn = 0
            nl = got.find(b"\n")
            if rng.random() < params.tear and nl >= 0 and size > nl + 1:
                torn = rng.randint(1, min(300, size - nl - 1))
                with open(log, "r+b") as f:
                    f.truncate(size - torn)
                got = got[: size - torn]
            kills.append({"after": step, "lines": got.count(b"\n"), "bytes": len(got), "torn": torn,
                          "by": "lines" if lines is not None else "delay"})
            tally.add("kills")
            tally.add("torn" if torn else "clean_kills")
            if not want.startswith(got):
                fail("prefix", f"after killing trpg {step}, the log is not a prefix of the uninterrupted run: "
                     + _first_difference(got, want))
                return
            cut_at = len(got)
            argv = resume
            continue
        # the process ended by itself
        if step == "play":
            finished_alone = True
            if r.rc != 0:
                fail("play", f"trpg play exited {r.rc}: {r.stderr.strip()[:500]}")
                return
            if got != want:
                fail("mismatch", "trpg play (not killed) wrote another log than the same session played through the "
                     "Python API: " + _first_difference(got, want))
                return
            cut_at = len(got)
            argv = resume  # a finished log must be refused as finished, and left as it is
            continue
        break
    # 5. the outcome of the last resume
    before_header = cut_at == 0 or b"\n" not in want[:cut_at]
    if finished_alone and not kills or cut_at == len(want):
        if r.rc != 2 or not _one_paragraph(r.stderr) or "finished" not in r.stderr or got != want:
            fail("finished", f"trpg resume of a finished log: exit {r.rc}, stderr {r.stderr.strip()[:300]!r}, log "
                 f"{'unchanged' if got == want else 'changed'}")
            return
        tally.add("finished_before_kill" if finished_alone and not kills else "killed_after_end")
        tally.add("ok")
        return
    if before_header:
        if r.rc != 2 or not _one_paragraph(r.stderr):
            fail("before header", f"trpg resume of a log without a complete header: exit {r.rc}, stderr "
                 f"{r.stderr.strip()[:300]!r}")
            return
        tally.add("killed_before_header")
        tally.add("ok")
        return
    if r.rc != 0:
        fail("resume", f"trpg resume exited {r.rc}: {r.stderr.strip()[:500]}")
        return
    if got != want:
        fail("mismatch", "the resumed log differs from the uninterrupted run: " + _first_difference(got, want))
        return
    tally.add("resumed_identical")
    tally.group("kills_per_trial", str(len(kills)))
    tally.add("ok")


def run_chunk(params: ResumeParams, cases: Sequence[int]) -> Tally:
    tally = Tally()
    with tempfile.TemporaryDirectory(prefix="trpg-fuzz-resume-") as tmp:
        for i in cases:
            trial(params, i, tally, Path(tmp))
    return tally


def run(args: Any, progress: Any) -> tuple[Tally, dict[str, Any]]:
    keep = str(Path(args.out) / "logs") if args.out else None
    params = ResumeParams(base_seed=args.seed, max_kills=max(1, args.max_kills), tear=args.tear, timeout=args.timeout,
                          keep_dir=keep)
    cases = list(args.case) if args.case else list(range(args.runs))
    tally = run_cases(run_chunk, params, cases, jobs=args.jobs, executor=args.executor, scheduler=args.scheduler,
                      progress=progress, chunk=max(1, min(10, -(-len(cases) // max(1, args.jobs * 4)))))
    return tally, {"max_kills": params.max_kills, "tear": params.tear, "timeout_s": params.timeout}


def summary_lines(data: dict[str, Any]) -> list[str]:
    c = data["counts"]
    n = c.get("trials", 0)
    return [
        f"{n} trials in {data['elapsed_s']:.1f} s ({data['elapsed_s'] / max(1, n):.2f} s of wall clock per trial on "
        f"{data['run']['jobs']} job(s)); {c.get('reference_runs', 0)} uninterrupted and {c.get('play_runs', 0)} killed "
        f"trpg play, {c.get('resume_runs', 0)} trpg resume processes",
        "scenarios: " + ", ".join(f"{k} {v}" for k, v in data["groups"].get("scenario", {}).items()),
        f"kills {c.get('kills', 0)} ({c.get('torn', 0)} with the last line torn), kills per trial "
        + ", ".join(f"{k}: {v}" for k, v in sorted(data["groups"].get("kills_per_trial", {}).items())),
        f"resumed byte-identical {c.get('resumed_identical', 0)}, killed before the header {c.get('killed_before_header', 0)}, "
        f"killed after the end {c.get('killed_after_end', 0)}, finished before the kill {c.get('finished_before_kill', 0)}",
    ]
