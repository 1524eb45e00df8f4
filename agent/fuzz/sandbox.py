"""Run one ``trpg`` command on a hostile file with its time and memory bounded and measured.

Two ways, same limits:

- ``fork`` (default): a child forked from this worker (which has the engine imported already) runs
  ``agent.cli.main(argv)``; milliseconds per command instead of an interpreter start-up. The worker must be a
  single-threaded process (``agent.fuzz.files`` runs its chunks in spawned processes).
- ``subprocess``: ``python -m agent.cli ...``, a new interpreter per command (what a user runs; slower).

Limits, set in the child before the command runs: ``RLIMIT_AS`` (address space, default 500 MB; a command that
needs more fails with MemoryError, which the CLI reports as an internal error) and ``RLIMIT_CPU`` (CPU seconds: the
time limit, which does not move with the load of a shared machine); a wall-clock limit of four times as long kills a
command that waits instead of computing. Measured: exit code or signal, CPU and wall seconds, the child's peak RSS
(in fork mode the pages it shares with this worker are part of it: ``baseline_kb`` is this worker's RSS at the fork),
and what it wrote on stdout and stderr.
"""

from __future__ import annotations

import math
import os
import resource
import signal
import sys
import tempfile
import time
import traceback
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Result", "run_cli", "one_paragraph", "rss_kb"]

#: how much of stdout/stderr is kept
KEEP = 20_000


@dataclass
class Result:
    rc: int | None  # the exit code, None when a signal ended the command
    signal: int | None
    timed_out: bool  # CPU limit (SIGXCPU/SIGKILL) or the wall-clock limit
    cpu_s: float
    wall_s: float
    maxrss_kb: int
    baseline_kb: int
    stdout: str
    stderr: str

    @property
    def extra_kb(self) -> int:
        return max(0, self.maxrss_kb - self.baseline_kb)


def rss_kb() -> int:
    """This process's resident set size now (kB)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * (os.sysconf("SC_PAGE_SIZE") // 1024)
    except (OSError, ValueError, IndexError):
        return 0


def one_paragraph(text: str, limit: int) -> str | None:
    """Why ``text`` (stderr of a refused command) is not one short paragraph of error, or None when it is."""
    t = text.strip()
    if not t:
        return "nothing on stderr"
    if "Traceback" in t:
        return "a traceback on stderr"
    if "internal error" in t:
        return "an internal error"
    if "\n\n" in t:
        return "more than one paragraph on stderr"
    if len(t) > limit:
        return f"{len(t):,} characters on stderr (at most {limit:,})"
    return None


def _limits(mem_bytes: int, cpu_s: float) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (mem_bytes, mem_bytes))
    cpu = max(1, math.ceil(cpu_s))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))


def _read(f: object) -> str:
    f.seek(0)  # type: ignore[attr-defined]
    return f.read(KEEP).decode("utf-8", "replace")  # type: ignore[attr-defined]


def _wait(pid: int, wall: float, t0: float) -> tuple[int, object, bool]:
    """Reap ``pid`` (killing it past ``wall`` seconds): its wait status, rusage and whether it was killed."""
    delay = 0.0005
    while True:
        wpid, status, ru = os.wait4(pid, os.WNOHANG)
        if wpid:
            return status, ru, False
        if time.monotonic() - t0 > wall:
            os.kill(pid, signal.SIGKILL)
            _, status, ru = os.wait4(pid, 0)
            return status, ru, True
        time.sleep(delay)
        delay = min(0.01, delay * 2)


def _child(argv: Sequence[str], cwd: str, out: int, err: int, mem_bytes: int, cpu_s: float) -> None:  # pragma: no cover
    try:
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.dup2(out, 1)
        os.dup2(err, 2)
        # the worker's sys.stdout may not write to fd 1 (a test runner's capture): the command's streams are these
        sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115
        sys.stdout = open(1, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
        sys.stderr = open(2, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
        os.chdir(cwd)
        signal.setitimer(signal.ITIMER_REAL, 0)  # a watchdog of the worker is not the command's
        signal.setitimer(signal.ITIMER_PROF, 0)
        for sig in (signal.SIGALRM, signal.SIGPROF, signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, signal.SIG_DFL)
        os.environ.pop("TRPG_DEBUG", None)
        _limits(mem_bytes, cpu_s)
        from agent.cli import main

        rc = main(list(argv))
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(rc & 0xFF)
    except BaseException:
        try:
            traceback.print_exc()
            sys.stderr.flush()
        finally:
            os._exit(70)


def run_cli(argv: Sequence[str], *, cwd: str | os.PathLike[str], timeout: float = 5.0, mem_mb: int = 500,
            isolation: str = "fork") -> Result:
    """Run ``trpg ARGV`` with ``timeout`` CPU seconds and ``mem_mb`` MB of address space."""
    mem = mem_mb * 1024 * 1024
    out = tempfile.TemporaryFile()
    err = tempfile.TemporaryFile()
    baseline = rss_kb() if isolation == "fork" else 0
    t0 = time.monotonic()
    if isolation == "fork":
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            _child(argv, str(cwd), out.fileno(), err.fileno(), mem, timeout)
        status, ru, killed = _wait(pid, 4 * timeout, t0)
    else:
        import subprocess

        env = dict(os.environ)
        env.pop("TRPG_DEBUG", None)
        # the interpreter's start-up is part of the command here: two more CPU seconds for it
        limit = timeout + 2.0
        proc = subprocess.Popen([sys.executable, "-m", "agent.cli", *argv], cwd=cwd, stdin=subprocess.DEVNULL,
                                stdout=out, stderr=err, env=env, preexec_fn=lambda: _limits(mem, limit))
        status, ru, killed = _wait(proc.pid, 4 * limit, t0)
        proc.returncode = 0  # reaped above
    wall = time.monotonic() - t0
    cpu = ru.ru_utime + ru.ru_stime  # type: ignore[attr-defined]
    sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
    rc = os.WEXITSTATUS(status) if os.WIFEXITED(status) else None
    timed_out = killed or sig in (signal.SIGXCPU, signal.SIGKILL)
    res = Result(rc, sig, timed_out, cpu, wall, int(ru.ru_maxrss), baseline, _read(out), _read(err))  # type: ignore[attr-defined]
    out.close()
    err.close()
    return res


def describe(r: Result) -> str:
    how = f"exit {r.rc}" if r.rc is not None else f"signal {r.signal}"
    return f"{how}, {r.cpu_s:.2f} s CPU, {r.wall_s:.2f} s, {r.maxrss_kb / 1024:.0f} MB peak RSS"


def tmp_copy(src: Path, dst: Path) -> Path:
    dst.write_bytes(src.read_bytes())
    return dst
