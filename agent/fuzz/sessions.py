"""``trpg fuzz sessions``: seeded sessions of every sample scenario of every registered system, with random and mixed
seats, random rule options and, where the system creates PCs at the table, ``--create``; every decision checked.

Case ``i`` (base seed ``S``) plays the sample ``i mod n`` with the seed ``S * 1_000_003 + i``; its seats (each seat
role scripted or random), its rule options (the scenario's own one time in four, else every flag of the system's
config model drawn uniformly from the values its type allows, a safety cap's up to its default; a combination the model refuses, or that the
scenario's table cannot be set up with, is drawn again and counted) and ``--create`` (one time in four) come from
``Random("sessions:S:i")``. The session is played exactly as ``trpg play`` plays it (same header, same agents), so
the printed ``trpg play ... --seed N`` command replays a failing session byte for byte.

Checked: every decision (``agent.fuzz.checks``), the system's invariants at the end, that the session ends within the
decision cap and the watchdog (CPU time, with a wall-clock backstop; else a hang), that its log replays exactly (``engine.core.replay.verify``),
that the same seed played again without the checks gives a byte-identical log (every ``rerun_every``-th case: the
checks must not change the session either), and that the log stays small: at most ``max_event_bytes`` per line and
``max_bytes_per_decision`` bytes of log per decision on average.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..table import Table, TableError, default_agent_factory
from .checks import DecisionChecker, Violation
from .cli import FuzzError
from .common import (
    Hang, Sample, Tally, case_rng, case_seed, draw_config, draw_seats, play_command, samples, seat_name,
    short_traceback, watchdog,
)

__all__ = ["SessionsParams", "run_chunk", "plan", "load_again", "AgainError", "replay_case", "MAX_EVENT_BYTES", "MAX_BYTES_PER_DECISION", "DECISION_CAP"]

#: documented bounds (docs/reliability.md): one log line, and the log's bytes per decision over a session
MAX_EVENT_BYTES = 65_536
MAX_BYTES_PER_DECISION = 8_192
#: a session asking more decisions than this is a hang (the longest sample sessions ask about 2,000)
DECISION_CAP = 20_000
#: CPU seconds per session, with a wall-clock backstop of four times as long (``common.watchdog``; the slowest sample
#: sessions take a few seconds with every check)
SESSION_TIMEOUT = 60.0
#: a combination of rule options the scenario's table refuses is drawn again at most this often
SETUP_TRIES = 10


@dataclass(frozen=True)
class SessionsParams:
    base_seed: int = 0
    rerun_every: int = 10
    max_decisions: int = DECISION_CAP
    timeout: float = SESSION_TIMEOUT
    create_p: float = 0.25
    keep_dir: str | None = None
    max_event_bytes: int = MAX_EVENT_BYTES
    max_bytes_per_decision: int = MAX_BYTES_PER_DECISION
    #: ``--again``: cases given whole (index -> the failure record's scenario, seats, config, create and seed) instead
    #: of drawn, so that a finding is replayed exactly even after the systems' rule options changed (which changes
    #: what ``--case i`` draws)
    fixed: tuple[tuple[int, tuple[tuple[str, Any], ...]], ...] = ()


@dataclass
class Case:
    index: int
    seed: int
    sample: Sample
    seats: tuple[str, ...]
    create: bool
    config: dict[str, Any] = field(default_factory=dict)

    def command(self, log: str | None = None) -> str:
        return play_command(self.sample.path, self.seats, self.seed, self.config, self.create, log)

    def describe(self) -> dict[str, Any]:
        return {"seed": self.seed, "system": self.sample.system, "scenario": self.sample.path, "seats": list(self.seats),
                "config": self.config, "create": self.create, "command": self.command()}


def _scenario(path: str) -> Any:
    """The loaded scenario, once per process (the batch runner's cache)."""
    from ..batch.sessions import scenario

    return scenario(path)


def _seat_spec(seats: Sequence[str]) -> Any:
    """The seats exactly as ``trpg play`` builds them from its ``--seat`` arguments."""
    from ..table import SeatSpec

    return SeatSpec.parse([f"{who}={pol}" for who, pol in SeatSpec.default().entries] + list(seats))


def new_session(case: Case, log: str | Path) -> Any:
    """The session ``trpg play`` would start for ``case`` (its rule options read back from ``--config`` text)."""
    from engine.core.session import Session

    from ..batch.runner import config_args
    from ..cli import _parse_config

    config = _parse_config(config_args(case.config))
    options: dict[str, Any] = {"create_pcs": True} if case.create else {}
    return Session(_scenario(case.sample.path), case.seed, config=config, log_path=log,
                   seats=_seat_spec(case.seats).to_header(), options=options)


class AgainError(FuzzError):
    """A failure record of ``--again`` that cannot be played again: names the file, the case and the field."""


def load_again(path: str | Path) -> tuple[tuple[int, tuple[tuple[str, Any], ...]], ...]:
    """The failing cases of a ``fuzz-sessions.json`` (``--out``), once each, as ``SessionsParams.fixed`` takes them."""
    import json

    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise AgainError(f"{p}: cannot read it as a fuzz summary ({type(e).__name__}: {str(e)[:200]})") from None
    failures = data.get("failures") if isinstance(data, dict) else None
    if not isinstance(failures, list):
        raise AgainError(f"{p}: no `failures` list: not a `trpg fuzz sessions --out` summary")
    known = {s.path for s in samples()}
    out: dict[int, tuple[tuple[str, Any], ...]] = {}
    for n, f in enumerate(failures):
        where = f"{p}: failures[{n}]"
        if not isinstance(f, dict):
            raise AgainError(f"{where}: not an object")
        for key, kind in (("case", int), ("seed", int), ("scenario", str), ("seats", list), ("config", dict),
                          ("create", bool)):
            if not isinstance(f.get(key), kind) or isinstance(f.get(key), bool) is not (kind is bool):
                raise AgainError(f"{where}.{key}: missing or not {kind.__name__} (a sessions fuzzer's failure has it)")
        if f["scenario"] not in known:
            raise AgainError(f"{where}.scenario: {f['scenario'][:200]!r} is not a sample scenario of a registered "
                             "system")
        out.setdefault(f["case"], (("seed", f["seed"]), ("scenario", f["scenario"]), ("seats", tuple(f["seats"])),
                                   ("config", tuple(sorted(f["config"].items()))), ("create", f["create"])))
    return tuple(sorted(out.items()))


def _fixed_plan(params: SessionsParams, index: int, log: Path) -> tuple[Case, Any]:
    rec = dict(dict(params.fixed)[index])
    sample = next(s for s in samples() if s.path == rec["scenario"])
    case = Case(index, rec["seed"], sample, tuple(rec["seats"]), rec["create"], dict(rec["config"]))
    return case, new_session(case, log)


def plan(params: SessionsParams, index: int, tally: Tally, log: Path) -> tuple[Case, Any] | None:
    """Case ``index`` and its session (started, logging to ``log``); None when no drawn combination of rule options
    could be set up (counted)."""
    if params.fixed:
        return _fixed_plan(params, index, log)
    pool = samples()
    sample = pool[index % len(pool)]
    rng = case_rng("sessions", params.base_seed, index)
    seats = draw_seats(rng)
    create = sample.can_create and rng.random() < params.create_p
    case = Case(index, case_seed(params.base_seed, index), sample, seats, create)
    sc = _scenario(sample.path)
    for _ in range(SETUP_TRIES):
        config, refused = draw_config(sc, rng)
        tally.add("config_refused", refused)
        case.config = config
        try:
            return case, new_session(case, log)
        except ValidationError as e:  # refused by the config model after all (a cross-field rule)
            tally.add("config_refused")
            tally.notes[f"config refused: {str(e).splitlines()[0][:160]}"] += 1
        except ValueError as e:  # the scenario's table cannot be set up with these options
            tally.add("setup_refused")
            tally.notes[f"setup refused: {str(e)[:160]}"] += 1
        log.unlink(missing_ok=True)
    return None


class CheckedTable(Table):
    """A ``Table`` seated as ``trpg play`` seats it, whose every decision is checked before anyone answers it;
    ``tick`` is called before every step (the watchdog where no alarm can be set)."""

    def __init__(self, session: Any, seats: Any, checker: DecisionChecker | None, tick: Callable[[], None],
                 max_decisions: int):
        super().__init__(session, seats, default_agent_factory(session.seed), max_decisions=max_decisions)
        self.checker = checker
        self.tick = tick
        self.last_checked = -1

    def step(self) -> None:
        self.tick()
        if self.checker is not None:
            for d in self.session.pending_all():
                if d.seq > self.last_checked:  # members of a simultaneous node: all checked when it opens
                    self.checker.check(d)
                    self.last_checked = d.seq
        super().step()


def replay_case(system: str, scenario: str, seed: int, seats: Sequence[str], config: str | Mapping[str, Any],
                create: bool, log: str | Path, max_decisions: int = DECISION_CAP) -> Any:
    """Play one recorded case (a failure's scenario, seed, seats, rule options as ``--config`` text or a mapping, and
    ``--create``) with every check of the fuzzer, the end-of-session invariants, and its log verified; returns the
    finished session. What the tests of fuzz findings call (a ``Violation``, ``TableError`` or ``ReplayMismatch``
    otherwise)."""
    import shlex

    from engine.core.registry import get_system
    from engine.core.replay import verify

    from ..cli import _parse_config

    options = _parse_config(shlex.split(config)) if isinstance(config, str) else dict(config)
    case = Case(0, seed, Sample(system, scenario, Path(scenario).stem, True), tuple(seats), create, options)
    s = new_session(case, log)
    checker = DecisionChecker(s, get_system(system).invariants)
    CheckedTable(s, _seat_spec(seats), checker, lambda: None, max_decisions).run()
    checker.at_end()
    s.close()
    summary = verify(log)
    if summary.decisions != s.decisions:
        raise AssertionError(f"the replay asked {summary.decisions} decisions, the session {s.decisions}")
    return s


def _close(session: Any) -> None:
    session.close()
    session.ctx.release()


def _first_difference(a: bytes, b: bytes) -> str:
    la, lb = a.split(b"\n"), b.split(b"\n")
    for i, (x, y) in enumerate(zip(la, lb), 1):
        if x != y:
            return f"line {i} differs: {x[:160]!r} vs {y[:160]!r}"
    return f"one log has {len(la)} lines, the other {len(lb)}"


def _keep(params: SessionsParams, log: Path, case: Case) -> str | None:
    if not params.keep_dir or not log.exists():
        return None
    d = Path(params.keep_dir)
    d.mkdir(parents=True, exist_ok=True)
    dest = d / f"sessions-{case.seed}.jsonl"
    dest.write_bytes(log.read_bytes())
    return str(dest)


def play_case(params: SessionsParams, index: int, tally: Tally, work: Path) -> None:
    """One case: play with every check, then verify, rerun and measure its log; failures go into ``tally``."""
    from engine.core.replay import verify

    log = work / f"s{index}.jsonl"
    log.unlink(missing_ok=True)
    planned = plan(params, index, tally, log)
    if planned is None:
        tally.add("unplayable")
        return
    case, session = planned
    info = session.system
    seats = _seat_spec(case.seats)
    fuzz_cmd = (f"trpg fuzz sessions --again FILE --case {index}" if params.fixed
                else f"trpg fuzz sessions --seed {params.base_seed} --case {index}")

    def fail(kind: str, message: str, **data: Any) -> None:
        tally.failed_cases += 1
        tally.fail(index, kind, message, **case.describe(), fuzz_command=fuzz_cmd, log=_keep(params, log, case), **data)

    tally.add("sessions")
    tally.group("scenario", f"{case.sample.system}:{case.sample.stem}")
    tally.group("seats", seat_name(case.seats))
    tally.add("create" if case.create else "scenario_pcs")
    tally.add("configured" if case.config else "scenario_config")
    checker = DecisionChecker(session, info.invariants)
    t0 = time.perf_counter()
    try:
        with watchdog(params.timeout) as tick:
            CheckedTable(session, seats, checker, tick, params.max_decisions).run()
        checker.at_end()
    except Violation as v:
        _close(session)
        fail("invariant", str(v), seq=v.seq, decision_kind=v.decision_kind, problems=v.problems[:20])
        return
    except TableError as e:
        _close(session)
        fail("hang", f"decision cap: {e}", decisions=session.decisions)
        return
    except Hang as e:
        _close(session)
        fail("hang", f"watchdog: {e}", decisions=session.decisions)
        return
    except Exception as e:
        _close(session)
        fail("crash", f"{type(e).__name__}: {e}", decisions=session.decisions, traceback=short_traceback(e))
        return
    play_s = time.perf_counter() - t0
    session.close()
    tally.add("decisions", session.decisions)
    tally.add("checked_decisions", checker.checked)
    tally.add("play_ms", round(play_s * 1000))
    tally.peak("decisions_per_session", session.decisions, index)
    tally.peak("seconds_per_session", round(play_s, 3), index)
    data = log.read_bytes()
    lines = data.split(b"\n")[:-1]
    biggest = max((len(x) for x in lines), default=0)
    per_decision = len(data) / max(1, session.decisions)
    tally.add("log_bytes", len(data))
    tally.peak("log_bytes_per_session", len(data), index)
    tally.peak("max_event_bytes", biggest, index)
    tally.peak("log_bytes_per_decision", round(per_decision, 1), index)
    if biggest > params.max_event_bytes:
        fail("log size", f"a log line of {biggest:,} bytes (bound {params.max_event_bytes:,})")
    elif per_decision > params.max_bytes_per_decision:
        fail("log size", f"{per_decision:,.0f} log bytes per decision (bound {params.max_bytes_per_decision:,})")
    t1 = time.perf_counter()
    try:
        with watchdog(params.timeout):
            summary = verify(log)
        tally.add("replays_verified")
        if summary.decisions != session.decisions:
            fail("replay", f"the replay asked {summary.decisions} decisions, the session {session.decisions}")
    except Hang as e:
        fail("hang", f"replay --verify: {e}")
    except Exception as e:
        fail("replay", f"{type(e).__name__}: {e}", traceback=short_traceback(e))
    tally.add("verify_ms", round((time.perf_counter() - t1) * 1000))
    if params.rerun_every and index % params.rerun_every == 0:
        again = work / f"s{index}-again.jsonl"
        again.unlink(missing_ok=True)
        t2 = time.perf_counter()
        try:
            s2 = new_session(case, again)
            with watchdog(params.timeout) as tick:
                CheckedTable(s2, seats, None, tick, params.max_decisions).run()
            s2.close()
            other = again.read_bytes()
            tally.add("reruns")
            if other != data:
                fail("rerun", "the same seed played again (without the checks) gave another log: "
                     + _first_difference(data, other))
            else:
                tally.add("reruns_identical")
        except Hang as e:
            fail("hang", f"rerun: {e}")
        except Exception as e:
            fail("rerun", f"{type(e).__name__}: {e}", traceback=short_traceback(e))
        tally.add("rerun_ms", round((time.perf_counter() - t2) * 1000))
        again.unlink(missing_ok=True)
    log.unlink(missing_ok=True)


def run_chunk(params: SessionsParams, cases: Sequence[int]) -> Tally:
    tally = Tally()
    with tempfile.TemporaryDirectory(prefix="trpg-fuzz-") as tmp:
        for i in cases:
            play_case(params, i, tally, Path(tmp))
    return tally


def summary_lines(data: dict[str, Any]) -> list[str]:
    c = data["counts"]
    m = {k: v["value"] for k, v in data["maxima"].items()}
    n = c.get("sessions", 0)
    dec = c.get("decisions", 0)
    per = data["elapsed_s"] / max(1, n)
    play_ms = c.get("play_ms", 0) / max(1, n)
    lines = [
        f"{n} sessions, {dec:,} decisions checked in {data['elapsed_s']:.1f} s ({per * 1000:.0f} ms of wall clock per "
        f"session on {data['run']['jobs']} job(s); {play_ms:.0f} ms to play one with the checks, "
        f"{c.get('verify_ms', 0) / max(1, n):.0f} ms to verify its replay)",
        "scenarios: " + ", ".join(f"{k} {v}" for k, v in data["groups"].get("scenario", {}).items()),
        "seats: " + ", ".join(f"{k} {v}" for k, v in data["groups"].get("seats", {}).items()),
        f"--create {c.get('create', 0)}, random rule options {c.get('configured', 0)} (refused combinations "
        f"{c.get('config_refused', 0)}, refused at set-up {c.get('setup_refused', 0)}, unplayable {c.get('unplayable', 0)})",
        f"replays verified {c.get('replays_verified', 0)}, reruns {c.get('reruns', 0)} ({c.get('reruns_identical', 0)} "
        f"byte-identical)",
        f"largest: {m.get('decisions_per_session', 0):,.0f} decisions in a session, "
        f"{m.get('seconds_per_session', 0):.2f} s for a session, log {m.get('log_bytes_per_session', 0) / 1e6:.2f} MB for a "
        f"session and {m.get('log_bytes_per_decision', 0):,.0f} bytes per "
        f"decision (bound {data['run']['max_bytes_per_decision']:,}), event {m.get('max_event_bytes', 0):,.0f} bytes "
        f"(bound {data['run']['max_event_bytes']:,})",
    ]
    return lines


def run(args: Any, progress: Any) -> tuple[Tally, dict[str, Any]]:
    """``trpg fuzz sessions``: ``args.runs`` cases (or ``args.case``) on the chosen executor."""
    from .common import run_cases

    keep = str(Path(args.out) / "logs") if args.out else None
    params = SessionsParams(
        base_seed=args.seed, rerun_every=max(0, args.rerun_every), keep_dir=keep,
        max_decisions=args.max_decisions or DECISION_CAP, timeout=args.timeout or SESSION_TIMEOUT,
        max_event_bytes=args.max_event_bytes or MAX_EVENT_BYTES,
        max_bytes_per_decision=args.max_bytes_per_decision or MAX_BYTES_PER_DECISION,
        fixed=load_again(args.again) if getattr(args, "again", None) else ())
    if params.fixed:
        given = dict(params.fixed)
        for i in args.case or ():
            if i not in given:
                raise AgainError(f"{args.again}: no failure of case {i} (its failing cases: "
                                 f"{', '.join(map(str, list(given)[:40]))})")
        cases = list(args.case) if args.case else list(given)
    else:
        cases = list(args.case) if args.case else list(range(args.runs))
    tally = run_cases(run_chunk, params, cases, jobs=args.jobs, executor=args.executor, scheduler=args.scheduler,
                      progress=progress, chunk=max(1, min(25, -(-len(cases) // max(1, args.jobs * 4)))))
    return tally, {"rerun_every": params.rerun_every, "max_decisions": params.max_decisions, "timeout_s": params.timeout,
                   "max_event_bytes": params.max_event_bytes, "max_bytes_per_decision": params.max_bytes_per_decision,
                   "samples": [f"{s.system}:{s.path}" for s in samples()]}
