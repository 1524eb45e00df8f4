"""``trpg fuzz files``: mutated scenario files and session logs through the commands that read them.

Case ``i`` (base seed ``S``) mutates (``agent.fuzz.mutate``, ``Random("files:S:i")``) a sample scenario when ``i``
is even and a real log when it is odd (logs of a scripted, a mixed and, where the system creates PCs, a ``--create``
session of every sample, played before the cases run). Each mutant goes through, with ``--timeout`` CPU seconds and
``--memory-mb`` of address space per command (``agent.fuzz.sandbox``):

- a scenario: ``trpg validate FILE``; when it passes, ``trpg play FILE --seat all=scripted --seed 0 --quiet`` (a file
  that validates must play, or be refused in one paragraph);
- a log: ``trpg replay COPY --verify`` and ``trpg resume COPY --quiet`` (no ``--yes``: a header that names language
  models is refused, nothing is called); when the resume succeeds, ``trpg replay --verify`` of what it wrote.

Every command must end by itself within the limits with exit code 0, or 2 and one paragraph on stderr (no
traceback, no "internal error", at most ``MAX_ERROR_CHARS``). A mutated log that ``--verify`` accepts must differ
from its original only where a log holds inputs or agents' notes, not the engine's output: the first changed
block of lines may touch answer events (the answers are the inputs; the engine regenerates the rest from them), the
header (seed, options and seats are inputs) and the table's own events (``model_call``, the ``fallback`` notices:
not regenerated, ``engine.core.replay``); a changed engine event that verifies is a failure. A resumed log must
verify; a log that was only cut short must resume to its original, byte for byte.
"""

from __future__ import annotations

import difflib
import json
import shlex
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .common import Tally, case_rng, samples
from .mutate import mutate_log, mutate_scenario
from .sandbox import Result, describe, one_paragraph, run_cli

__all__ = ["FilesParams", "run_chunk", "run", "make_sources", "verified_change", "MAX_ERROR_CHARS"]

#: the longest error paragraph a refused command may print
MAX_ERROR_CHARS = 5_000
#: event types that are the log's inputs or agents' notes (``verified_change``)
_INPUT_TYPES = frozenset({"answer", "model_call", "header"})


@dataclass(frozen=True)
class FilesParams:
    base_seed: int = 0
    timeout: float = 5.0
    mem_mb: int = 500
    isolation: str = "fork"
    sources: str = ""  # the folder with the logs to mutate (``make_sources``)
    keep_dir: str | None = None


def make_sources(folder: Path, base_seed: int = 0, per_sample: int = 3) -> list[str]:
    """Play the logs the log cases mutate into ``folder``: per sample, a scripted session, a mixed one and, where the
    system creates PCs at the table, a ``--create`` one (the first ``per_sample`` of them; headers with absolute
    scenario paths)."""
    from .sessions import Case, CheckedTable, _seat_spec, new_session
    from .common import Sample

    out = []
    for k, base in enumerate(samples()):
        sample = Sample(base.system, str(Path(base.path).resolve()), base.stem, base.can_create)
        kinds = [(("all=scripted",), False), (("all=scripted", "gm=random", "pcs=random"), False)]
        if sample.can_create:
            kinds.append((("all=scripted", "npcs=random"), True))
        for j, (seats, create) in enumerate(kinds[: max(1, per_sample)]):
            case = Case(j, base_seed * 1000 + k * 10 + j, sample, seats, create)
            path = folder / f"{sample.stem}-{j}.jsonl"
            path.unlink(missing_ok=True)
            s = new_session(case, path)
            CheckedTable(s, _seat_spec(seats), None, lambda: None, 100_000).run()
            s.close()
            out.append(str(path))
    return out


def _event(line: str) -> dict[str, Any] | None:
    try:
        e = json.loads(line)
    except ValueError:
        return None
    return e if isinstance(e, dict) else None


def _input_line(line: str) -> bool:
    e = _event(line)
    if e is None:
        return False
    t = e.get("type")
    return t in _INPUT_TYPES or (t == "info" and e.get("topic") == "fallback")


def verified_change(original: bytes, mutant: bytes) -> tuple[bool, str]:
    """Whether a mutant that ``trpg replay --verify`` accepted changed only what a verifier cannot catch (see the
    module docstring), and what it changed."""
    if mutant == original:
        return True, "unchanged"
    a = original.decode("utf-8", "replace").split("\n")
    b = mutant.decode("utf-8", "replace").split("\n")
    ops = difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    first = next((op for op in ops if op[0] != "equal"), None)
    if first is None:  # only line ends differ
        return True, "line ends"
    _, i1, i2, j1, j2 = first
    touched = a[i1:i2] + b[j1:j2]
    bad = [x for x in touched if x and not _input_line(x)]
    if bad:
        return False, f"the first changed lines ({i1 + 1}..{max(i1 + 1, i2)}) hold an engine event: {bad[0][:160]}"
    kinds = sorted({(_event(x) or {}).get("type", "?") for x in touched if x})
    return True, "inputs or agents' notes changed: " + ", ".join(kinds)


def _judge(r: Result, limit: int) -> str | None:
    """Why a command's result is a failure, or None."""
    if r.timed_out:
        return f"over the time limit ({describe(r)})"
    if r.signal is not None:
        return f"killed by signal {r.signal} ({describe(r)})"
    if r.rc not in (0, 2):
        return f"exit code {r.rc}: {r.stderr.strip()[-400:]}"
    if "Traceback" in r.stderr:
        return "a traceback on stderr"
    if r.rc == 2:
        return one_paragraph(r.stderr, limit)
    return None


def file_case(params: FilesParams, index: int, tally: Tally, work: Path, sources: dict[str, list[tuple[str, bytes]]]) -> None:
    rng = case_rng("files", params.base_seed, index)
    kind = "scenario" if index % 2 == 0 else "log"
    name, original = rng.choice(sources[kind])
    if kind == "scenario":
        data, ops = mutate_scenario(original, rng)
    else:
        data, ops = mutate_log(original, rng)
    suffix = ".yaml" if kind == "scenario" else ".jsonl"
    path = work / f"f{index}{suffix}"
    path.write_bytes(data)
    tally.add(f"files_{kind}")
    tally.peak(f"{kind}_bytes", len(data), index)
    for op in ops:
        tally.group(f"ops_{kind}", op.split(":", 1)[0])
    fuzz_cmd = f"trpg fuzz files --seed {params.base_seed} --case {index}"
    failed = False

    def keep() -> str | None:
        if not params.keep_dir:
            return None
        d = Path(params.keep_dir)
        d.mkdir(parents=True, exist_ok=True)
        dest = d / f"files-{params.base_seed}-{index}{suffix}"
        dest.write_bytes(data)
        return str(dest)

    def cmd(step: str, argv: list[str]) -> Result:
        r = run_cli(argv, cwd=work, timeout=params.timeout, mem_mb=params.mem_mb, isolation=params.isolation)
        tally.add(f"{step}_runs")
        tally.peak("cpu_s", round(r.cpu_s, 3), index)
        tally.peak("wall_s", round(r.wall_s, 3), index)
        tally.peak("extra_rss_mb", round(r.extra_kb / 1024, 1), index)
        tally.peak("stderr_chars", len(r.stderr.strip()), index)
        tally.add("cpu_ms", round(r.cpu_s * 1000))
        why = _judge(r, MAX_ERROR_CHARS)
        if why is None:
            tally.group(step, "exit 0" if r.rc == 0 else "refused (exit 2)")
        else:
            tally.group(step, "failed")
            fail(f"{step}", why, r, argv)
        return r

    def fail(step: str, why: str, r: Result | None, argv: list[str]) -> None:
        nonlocal failed
        if not failed:
            tally.failed_cases += 1
        failed = True
        kept = keep()
        # the command on the kept mutant (the copies it ran on are gone; a `play` log goes next to it)
        copies = {str(work / f"{x}{index}{suffix}") for x in ("f", "v", "r")}
        shown = [(kept or str(path)) if a in copies else a for a in argv]
        tally.fail(index, step, why, source=name, ops=ops, file=kept,
                   repro=shlex.join(["trpg", *shown]),
                   fuzz_command=fuzz_cmd, stderr=(r.stderr.strip()[:1000] if r is not None else ""),
                   result=(describe(r) if r is not None else ""))

    if kind == "scenario":
        r = cmd("validate", ["validate", str(path)])
        if r.rc == 0 and data != original:
            tally.add("mutants_valid")
            log = work / f"p{index}.jsonl"
            cmd("play", ["play", str(path), "--seat", "all=scripted", "--seed", "0", "--log", str(log), "--quiet",
                         "--overwrite"])
            log.unlink(missing_ok=True)
        path.unlink(missing_ok=True)
        return
    # a log: verify a copy, resume another
    vpath = work / f"v{index}.jsonl"
    vpath.write_bytes(data)
    r = cmd("verify", ["replay", str(vpath), "--verify"])
    if r.rc == 0:
        ok, what = verified_change(original, data)
        tally.group("verified_mutants", what.split(":", 1)[0])
        if not ok:
            fail("verify", f"a changed log passed --verify: {what}", r, ["replay", str(path), "--verify"])
    rpath = work / f"r{index}.jsonl"
    rpath.write_bytes(data)
    r = cmd("resume", ["resume", str(rpath), "--quiet"])
    if r.rc == 0 and not failed:
        after = rpath.read_bytes()
        if "saved:" in r.stdout:  # a header that seats a human: end of input is the player's quit
            tally.group("resumed", "saved by a human seat")
        else:
            r2 = cmd("verify_resumed", ["replay", str(rpath), "--verify"])
            if r2.rc != 0 and not failed:
                fail("resume", "the resumed log does not verify: " + r2.stderr.strip()[:400], r2,
                     ["resume", str(path), "--quiet"])
            elif original.startswith(data) and after != original and "already ended" not in r.stdout:
                fail("resume", "a log cut short did not resume to its original", r, ["resume", str(path), "--quiet"])
            else:
                tally.group("resumed", "verifies" if after != data else "unchanged")
    for p in (path, vpath, rpath):
        p.unlink(missing_ok=True)


def _sources(params: FilesParams) -> dict[str, list[tuple[str, bytes]]]:
    scen = [(s.path, Path(s.path).read_bytes()) for s in samples()]
    logs = [(str(p), p.read_bytes()) for p in sorted(Path(params.sources).glob("*.jsonl"))]
    return {"scenario": scen, "log": logs}


def run_chunk(params: FilesParams, cases: Sequence[int]) -> Tally:
    tally = Tally()
    sources = _sources(params)
    with tempfile.TemporaryDirectory(prefix="trpg-fuzz-files-") as tmp:
        for i in cases:
            file_case(params, i, tally, Path(tmp), sources)
    return tally


def run(args: Any, progress: Any) -> tuple[Tally, dict[str, Any]]:

    from .common import run_cases

    isolation = "subprocess" if args.executor == "dask" else args.isolation
    keep = str(Path(args.out) / "files") if args.out else None
    cases = list(args.case) if args.case else list(range(args.runs))
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="trpg-fuzz-sources-") as src:
        logs = make_sources(Path(src), args.seed, args.logs_per_sample)
        made = time.perf_counter() - t0
        params = FilesParams(base_seed=args.seed, timeout=args.timeout, mem_mb=args.memory_mb, isolation=isolation,
                             sources=src, keep_dir=keep)
        size = max(1, min(25, -(-len(cases) // max(1, args.jobs * 4))))
        if args.executor == "dask":
            tally = run_cases(run_chunk, params, cases, jobs=args.jobs, executor="dask", scheduler=args.scheduler,
                              progress=progress, chunk=size)
        else:
            # fork mode forks from the workers: spawned, single-threaded processes (never this one, which may run a
            # progress thread); a worker that dies is survived (``run_pool``)
            from .common import run_pool

            tally = run_pool(run_chunk, params, [cases[i : i + size] for i in range(0, len(cases), size)],
                             jobs=args.jobs, progress=progress, total=len(cases))
    return tally, {"timeout_s": args.timeout, "memory_mb": args.memory_mb, "isolation": isolation,
                   "source_logs": [Path(p).name for p in logs], "sources_s": round(made, 2),
                   "max_error_chars": MAX_ERROR_CHARS}


def summary_lines(data: dict[str, Any]) -> list[str]:
    c = data["counts"]
    g = data["groups"]
    m = {k: v["value"] for k, v in data["maxima"].items()}
    n = c.get("files_scenario", 0) + c.get("files_log", 0)
    runs = sum(v for k, v in c.items() if k.endswith("_runs"))

    def outcome(step: str) -> str:
        o = g.get(step, {})
        return ", ".join(f"{k} {v}" for k, v in sorted(o.items())) or "none"

    return [
        f"{n} mutated files ({c.get('files_scenario', 0)} scenarios, {c.get('files_log', 0)} logs), {runs} commands in "
        f"{data['elapsed_s']:.1f} s ({c.get('cpu_ms', 0) / max(1, runs):.0f} ms of CPU per command; limits "
        f"{data['run']['timeout_s']:g} s CPU and {data['run']['memory_mb']} MB per command, {data['run']['isolation']})",
        f"validate: {outcome('validate')}; play of the mutants that validate ({c.get('mutants_valid', 0)}): {outcome('play')}",
        f"replay --verify: {outcome('verify')}; mutants that verify: "
        + (", ".join(f"{k} {v}" for k, v in sorted(g.get("verified_mutants", {}).items())) or "none"),
        f"resume: {outcome('resume')}; resumed: " + (", ".join(f"{k} {v}" for k, v in sorted(g.get("resumed", {}).items())) or "none")
        + f"; verify of the resumed logs: {outcome('verify_resumed')}",
        f"largest: {m.get('cpu_s', 0):.2f} s CPU and {m.get('wall_s', 0):.2f} s for a command, {m.get('extra_rss_mb', 0):.0f} MB "
        f"of memory above the worker's, {m.get('stderr_chars', 0):,.0f} characters of error, a mutant of "
        f"{max(m.get('scenario_bytes', 0), m.get('log_bytes', 0)) / 1e6:.1f} MB",
    ]
