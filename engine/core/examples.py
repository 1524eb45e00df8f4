"""Examples files: rules tests as data (BCDice's per-system test files), one YAML format for every system.

An examples file names a system, a base scenario and a list of cases. Each case runs one session of that system
with scripted dice (``Dice.scripted``: a wrong die size or running out fails), scripted answers for the decisions
the example talks about, and the "no" policy for every other decision: the first legal option among
``NO_POLICY`` (``roll``, ``stop``, ``none``, ...), or the empty subset of an optional pick. That is the worked
examples' convention: an optional use that an example does not mention does not happen. A decision the "no"
policy cannot answer fails the case ("add an answer"), and so do unused answers, dice and illegal-answer probes.
After the session the case compares the expectations (state paths, result, events, decision counts) and reports a
readable diff plus the decision log of the case. The format is documented for scenario designers in
``docs/examples-format.md``; this module is its reference implementation.

Entry points: ``run_examples(paths) -> ExamplesReport``, ``run_example_files(paths) -> list[CaseResult]`` and the
CLI ``main(argv) -> int`` (``trpg examples FILE...``).
"""

from __future__ import annotations

import argparse
import re
import sys
import traceback
from collections import Counter, deque
from collections.abc import Callable, Generator, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator

from .decision import Decision, IllegalAnswer
from .dice import Dice, DiceScriptError
from .scenario import LoadedScenario, ScenarioError, format_validation_error, load_scenario

__all__ = [
    "NO_POLICY", "ABSENT", "ExamplesError", "ExamplesFile", "ExampleCase", "CaseResult", "ExamplesReport",
    "load_examples", "run_case", "run_examples", "run_example_files", "resolve_path", "parse_path", "match", "main",
    "dispatch_procedure",
]

#: the "no" answers, in order of preference: an optional use an example does not mention does not happen
NO_POLICY = ("roll", "stop", "none", "pass", "keep", "skip", "done", "refuse", "no_claim", "stay_out", "normal_order")
#: expected value meaning "this path must not exist"
ABSENT = "<absent>"
#: a runaway session (a loop the "no" policy keeps feeding) fails the case instead of hanging the test run
MAX_DECISIONS = 5000


class ExamplesError(ValueError):
    """An examples file that cannot be used (unreadable, broken YAML, wrong fields, unknown scenario)."""


# ======================================================================================================================
# the file format (validated with pydantic so that a typo names its file, case and field)
# ======================================================================================================================
class _M(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ScriptedAnswer(_M):
    """Answer ``answer`` to the next decision of this kind (and actor); consumed strictly in list order."""

    kind: str
    actor: str | None = None
    answer: Any
    note: str = ""


class IllegalProbe(_M):
    """An answer the rules must refuse with ``IllegalAnswer`` at the ``nth`` decision of this kind (and actor)."""

    kind: str
    actor: str | None = None
    answer: Any
    nth: int = Field(1, ge=1, description="which matching decision (1 = the first)")
    message_contains: str | None = None
    note: str = ""


class AskedCount(_M):
    """The session must ask decisions of this kind (for this actor) exactly ``times`` times."""

    kind: str
    actor: str | None = None
    times: int = Field(ge=0)


class Expect(_M):
    state: dict[str, Any] = Field(default_factory=dict)
    result: Any = None
    outcome: dict[str, Any] | None = None
    events: list[dict[str, Any]] = Field(default_factory=list)
    asked: list[AskedCount] = Field(default_factory=list)

    @property
    def has_result(self) -> bool:
        """``result: null`` is a real expectation: what counts is whether the key was written."""
        return "result" in self.model_fields_set


Face = int | str | list[int]


class ExampleCase(_M):
    id: str = Field(min_length=1, pattern=r"^[A-Za-z0-9_.\-]+$")
    title: str = ""
    spec: str = ""
    xfail: str | None = Field(None, min_length=1)
    config: dict[str, Any] = Field(default_factory=dict)
    setup: dict[str, Any] | None = None
    procedure: dict[str, Any] | None = None
    options: dict[str, Any] = Field(default_factory=dict)
    seed: int = 0
    dice_sides: int | None = Field(None, ge=1)
    dice: list[Face] = Field(default_factory=list)
    answers: list[ScriptedAnswer] = Field(default_factory=list)
    illegal: list[IllegalProbe] = Field(default_factory=list)
    expect: Expect = Field(default_factory=Expect)


class ExamplesFile(_M):
    system: str
    scenario: str = Field(description="base scenario, relative to the examples file")
    dice_sides: int | None = Field(None, ge=1, description="die size that plain integer faces must come from")
    description: str = ""
    cases: list[ExampleCase] = Field(min_length=1)
    _path: Path = PrivateAttr(default=Path("examples.yaml"))

    @property
    def path(self) -> Path:
        """Where the file was read from (set by ``load_examples``)."""
        return self._path

    @field_validator("cases")
    @classmethod
    def _unique(cls, v: list[ExampleCase]) -> list[ExampleCase]:
        seen: set[str] = set()
        for c in v:
            if c.id in seen:
                raise ValueError(f"duplicate case id {c.id!r}")
            seen.add(c.id)
        return v

    @property
    def scenario_path(self) -> Path:
        return (self.path.parent / self.scenario).resolve()


def dispatch_procedure(table: Mapping[str, Callable[[Any, dict[str, Any]], Any]], game: Any,
                       proc: Any) -> Generator[Any, Any, dict[str, Any]]:
    """Run one procedure of a system's ``table`` (``{name: fn(game, args) -> generator}``) on a prepared table: the
    examples' ``options.procedure``, a one-entry mapping ``{name: args}``. Returns the procedure's result (a
    mapping, empty when it returns nothing)."""
    if not isinstance(proc, dict) or len(proc) != 1:
        raise ValueError(f"procedure: one mapping {{name: args}} expected, got {proc!r}")
    (name, args), = proc.items()
    if name not in table:
        raise ValueError(f"unknown procedure {name!r}; known: {', '.join(sorted(table))}")
    out = yield from table[name](game, args if args is not None else {})
    return out or {}


def load_examples(path: str | Path) -> ExamplesFile:
    p = Path(path)
    try:
        raw = yaml.safe_load(p.read_text(encoding="utf-8"))
    except OSError as e:
        raise ExamplesError(f"{p}: cannot read the examples file ({e.strerror or e})") from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        raise ExamplesError(f"{p}: broken YAML{where}: {getattr(e, 'problem', None) or e}") from None
    if not isinstance(raw, dict):
        raise ExamplesError(f"{p}: an examples file is a YAML mapping with system, scenario and cases")
    try:
        ef = ExamplesFile.model_validate(raw)
    except ValidationError as e:
        problems = []
        for loc, msg in format_validation_error(e):
            m = re.match(r"cases\[(\d+)\](.*)", loc)
            if m and isinstance(raw.get("cases"), list) and int(m.group(1)) < len(raw["cases"]):
                case = raw["cases"][int(m.group(1))]
                cid = case.get("id") if isinstance(case, dict) else None
                loc = f"cases[{m.group(1)}]" + (f" (id {cid})" if cid else "") + m.group(2)
            problems.append(f"field `{loc}`: {msg}" if loc else msg)
        raise ExamplesError(f"{p}: invalid examples file: " + "; ".join(problems)) from None
    ef._path = p
    return ef


# ======================================================================================================================
# paths into the snapshot
# ======================================================================================================================
_SEG = re.compile(r"""\[\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|(-?\d+))\s*\]|([^.\[\]]+)""")


def parse_path(path: str) -> list[str | int]:
    """``a.b|c[0]["x.y"].id`` -> ``["a", "b|c", 0, "x.y", "id"]``.

    Segments are separated by dots; any character except ``.``, ``[`` and ``]`` may appear in a bare segment (so
    relation keys such as ``aoi|beni`` need no quoting). ``[N]`` is a list index (negative counts from the end);
    ``["..."]`` or ``['...']`` is a key that contains dots or brackets.
    """
    out: list[str | int] = []
    pos = 0
    n = len(path)
    expect_seg = True
    while pos < n:
        if path[pos] == "." and not expect_seg:
            pos += 1
            expect_seg = True
            continue
        m = _SEG.match(path, pos)
        if m is None or (m.group(4) is not None and not expect_seg):
            raise ValueError(f"bad path {path!r} at character {pos + 1}")
        dq, sq, idx, bare = m.groups()
        if idx is not None:
            out.append(int(idx))
        elif dq is not None or sq is not None:
            out.append(re.sub(r"\\(.)", r"\1", dq if dq is not None else sq))
        else:
            out.append(bare.strip())
        pos = m.end()
        expect_seg = False
    if expect_seg:
        raise ValueError(f"bad path {path!r}: empty or ends with a dot")
    return out


_MISSING = object()


def resolve_path(root: Any, path: str) -> Any:
    """The value at ``path`` (see ``parse_path``), or raise ``KeyError`` naming the first segment not found.

    On a list, an integer segment is an index; a name selects the element whose ``id`` equals it (so
    ``chars.aoi.skills.ganbariya.sublimated`` reads the skill with id ``ganbariya``).
    """
    cur = root
    done: list[str] = []
    for seg in parse_path(path):
        nxt: Any = _MISSING
        if isinstance(cur, Mapping):
            if seg in cur:
                nxt = cur[seg]
            elif isinstance(seg, int) and str(seg) in cur:
                nxt = cur[str(seg)]
        elif isinstance(cur, (list, tuple)):
            if isinstance(seg, int):
                if -len(cur) <= seg < len(cur):
                    nxt = cur[seg]
            else:
                hits = [x for x in cur if isinstance(x, Mapping) and str(x.get("id")) == seg]
                if len(hits) == 1:
                    nxt = hits[0]
        if nxt is _MISSING:
            where = ".".join(done) or "the root"
            if isinstance(cur, Mapping):
                have = ", ".join(map(str, list(cur)[:20])) or "nothing"
            elif isinstance(cur, (list, tuple)):
                ids = [str(x.get("id")) for x in cur if isinstance(x, Mapping) and "id" in x]
                have = f"a list of {len(cur)}" + (f" with ids {', '.join(ids)}" if ids else "")
            else:
                have = f"a {type(cur).__name__} ({cur!r})"
            raise KeyError(f"no {seg!r} under {where} (it has {have})")
        cur = nxt
        done.append(str(seg))
    return cur


# ======================================================================================================================
# matching: dicts are subsets, lists are element-wise, scalars are equal (bool is not int)
# ======================================================================================================================
def _show(v: Any) -> str:
    text = yaml.safe_dump(v, allow_unicode=True, default_flow_style=True, width=10**6, sort_keys=False).strip()
    if text.endswith("\n..."):
        text = text[:-4].strip()
    if text.endswith("..."):
        text = text[:-3].strip()
    return text if len(text) <= 300 else text[:297] + "..."


def match(expected: Any, actual: Any, where: str = "") -> list[str]:
    """Mismatch lines (empty = match). A mapping matches when every listed key matches (other keys are ignored); a
    list matches element-wise with the same length; a scalar matches by equality (``True`` is not ``1``); the string
    ``"<absent>"`` matches only a missing key."""
    at = where or "(value)"
    if isinstance(expected, Mapping):
        if not isinstance(actual, Mapping):
            return [f"{at}: expected a mapping {_show(expected)}, got {_show(actual)}"]
        out: list[str] = []
        for k, v in expected.items():
            sub = f"{where}.{k}" if where else str(k)
            if k not in actual and not (isinstance(k, int) and str(k) in actual):
                if v != ABSENT:
                    out.append(f"{sub}: expected {_show(v)}, got nothing (no such key)")
                continue
            got = actual[k] if k in actual else actual[str(k)]
            if v == ABSENT:
                out.append(f"{sub}: expected no such key, got {_show(got)}")
                continue
            out += match(v, got, sub)
        return out
    if isinstance(expected, (list, tuple)):
        if not isinstance(actual, (list, tuple)):
            return [f"{at}: expected a list {_show(list(expected))}, got {_show(actual)}"]
        if len(expected) != len(actual):
            return [f"{at}: expected {_show(list(expected))}, got {_show(list(actual))}"]
        out = []
        for i, (e, a) in enumerate(zip(expected, actual, strict=True)):
            out += match(e, a, f"{where}[{i}]")
        return out
    if isinstance(expected, bool) or isinstance(actual, bool):
        ok = isinstance(expected, bool) and isinstance(actual, bool) and expected == actual
    elif isinstance(expected, (int, float)) and isinstance(actual, (int, float)):
        ok = expected == actual
    else:
        ok = type(expected) is type(actual) and expected == actual
    return [] if ok else [f"{at}: expected {_show(expected)}, got {_show(actual)}"]


# ======================================================================================================================
# running one case
# ======================================================================================================================
@dataclass
class CaseResult:
    """One case's verdict. ``ok`` is what a report counts: PASS and XFAIL are fine, FAIL and XPASS are not."""

    file: str
    id: str
    title: str
    status: str  # PASS | FAIL | XFAIL | XPASS
    problems: list[str] = field(default_factory=list)
    log: list[str] = field(default_factory=list)
    xfail: str | None = None

    @property
    def ok(self) -> bool:
        return self.status in ("PASS", "XFAIL")

    @property
    def name(self) -> str:
        return f"{self.file}:{self.id}"

    @property
    def message(self) -> str:
        """The readable diff: what went wrong, then (on failure) the decision log of the case."""
        lines: list[str] = []
        if self.status == "XPASS":
            lines.append(f"marked xfail ({self.xfail}) but it passes: remove the xfail mark")
        elif self.status == "XFAIL":
            lines.append(f"expected failure: {self.xfail}")
        lines += [f"  {p}" for p in self.problems]
        if self.status in ("FAIL", "XFAIL") and self.log:
            lines.append("  decision log:")
            lines += [f"    {x}" for x in self.log]
        return "\n".join(lines)

    def format(self, verbose: bool = False) -> str:
        head = f"{self.status}: {self.name}" + (f" — {self.title}" if self.title else "")
        if self.status == "PASS" and not verbose:
            return head
        body = self.message
        if verbose and self.status in ("PASS", "XPASS") and self.log:
            body += "\n  decision log:\n" + "\n".join(f"    {x}" for x in self.log)
        return head + ("\n" + body if body else "")


def _matches(entry: ScriptedAnswer | IllegalProbe | AskedCount, d: Decision) -> bool:
    return entry.kind == d.kind and (entry.actor is None or entry.actor == d.actor)


def _no_answer(d: Decision) -> Any:
    """The "no" policy: the first legal id of NO_POLICY; an optional subset is left empty."""
    if d.payload_model is not None or d.options is None:
        return _MISSING
    if d.pick is not None:
        return [] if d.pick[0] == 0 else _MISSING
    ids = d.option_ids
    for oid in NO_POLICY:
        if oid in ids:
            return oid
    return _MISSING


def _faces(case: ExampleCase, default_sides: int | None) -> list[Any]:
    sides = case.dice_sides or default_sides
    out: list[Any] = []
    for f in case.dice:
        if isinstance(f, int) and not isinstance(f, bool) and sides is not None:
            out.append((sides, f))
        elif isinstance(f, list):
            out.append(tuple(f))
        else:
            out.append(f)
    return out


def _opts_text(d: Decision) -> str:
    if d.payload_model is not None:
        return f"payload {d.payload_model.__name__}"
    ids = d.option_ids
    shown = ", ".join(ids[:12]) + (f", … ({len(ids)} in all)" if len(ids) > 12 else "")
    return f"pick {d.pick[0]}..{d.pick[1]} of [{shown}]" if d.pick is not None else f"[{shown}]"


class _Fail(Exception):
    pass


_SCENARIOS: dict[Path, LoadedScenario] = {}


def _scenario(path: Path) -> LoadedScenario:
    sc = _SCENARIOS.get(path)
    if sc is None or sc.sha256 != _sha(path):
        sc = _SCENARIOS[path] = load_scenario(path)
    return sc


def _sha(path: Path) -> str:
    import hashlib

    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return ""


def run_case(ef: ExamplesFile, case: ExampleCase) -> CaseResult:
    """Run one case of a loaded examples file; never raises for a problem of the case (it is reported)."""
    from .session import Session

    problems: list[str] = []
    log: list[str] = []
    session: Session | None = None
    answers: deque[ScriptedAnswer] = deque(case.answers)
    probes = list(case.illegal)
    probed = [False] * len(probes)
    asked: Counter[tuple[str, str]] = Counter()
    asked_kind: Counter[str] = Counter()
    faces = _faces(case, ef.dice_sides)
    dice = Dice.scripted(faces)

    try:
        sc = _scenario(ef.scenario_path)
        if sc.system.id != ef.system:
            raise _Fail(f"the scenario {ef.scenario} is a {sc.system.id} scenario, the file says system {ef.system}")
        options: dict[str, Any] = dict(case.options)
        if case.procedure is not None:
            options["procedure"] = case.procedure
        if case.setup is not None:
            options["setup"] = case.setup
        session = Session(sc, case.seed, config=case.config, dice=dice, options=options)
        while not session.is_over:
            d = session.pending
            assert d is not None
            if d.seq >= MAX_DECISIONS:
                raise _Fail(f"more than {MAX_DECISIONS} decisions: the session does not end (last: {d.kind} for {d.actor})")
            asked[(d.kind, d.actor)] += 1
            asked_kind[d.kind] += 1
            # illegal-answer probes first: a refused answer leaves the state untouched
            for i, pr in enumerate(probes):
                if probed[i] or not _matches(pr, d):
                    continue
                n = asked[(d.kind, d.actor)] if pr.actor is not None else asked_kind[d.kind]
                if n != pr.nth:
                    continue
                probed[i] = True
                try:
                    session.answer(pr.answer, policy="examples:illegal")
                except IllegalAnswer as e:
                    log.append(f"#{d.seq} {d.actor} {d.kind} {_opts_text(d)}: {pr.answer!r} refused as expected ({e.problem})")
                    if pr.message_contains is not None and pr.message_contains not in str(e):
                        problems.append(f"illegal answer {pr.answer!r} to {d.kind} for {d.actor} was refused, but the message "
                                        f"does not contain {pr.message_contains!r}: {e}")
                    continue
                log.append(f"#{d.seq} {d.actor} {d.kind} {_opts_text(d)} -> {pr.answer!r} ACCEPTED (must be refused)")
                raise _Fail(f"illegal answer {pr.answer!r} to {d.kind} for {d.actor} (decision #{d.seq}) was accepted; "
                            f"it must be refused (legal were {_opts_text(d)})")
            head = answers[0] if answers else None
            if head is not None and _matches(head, d):
                answers.popleft()
                value, how = head.answer, "script"
            else:
                value, how = _no_answer(d), "no-policy"
                if value is _MISSING:
                    nxt = f"; the next scripted answer is for {head.kind}" + (f" by {head.actor}" if head.actor else "") if head else ""
                    log.append(f"#{d.seq} {d.actor} {d.kind} {_opts_text(d)} -> ?")
                    raise _Fail(f"unexpected decision {d.kind} for {d.actor} (options {_opts_text(d)}): add an answer{nxt}")
            log.append(f"#{d.seq} {d.actor} {d.kind} {_opts_text(d)} -> {value!r} ({how})")
            try:
                session.answer(value, policy=f"examples:{how}")
            except IllegalAnswer as e:
                raise _Fail(f"the scripted answer {value!r} to {d.kind} for {d.actor} (decision #{d.seq}) was refused: {e}") from None
    except _Fail as e:
        problems.append(str(e))
    except ScenarioError as e:
        problems.append(str(e))
    except DiceScriptError as e:
        problems.append(f"dice: {e} (scripted {len(faces)}, used {len(dice.rolls)})")
    except Exception as e:  # a crash of the rules is a failure of the case, with where it happened
        tb = traceback.extract_tb(e.__traceback__)
        frames = [f for f in tb if "engine" in f.filename][-3:] or tb[-3:]
        where = "; ".join(f"{Path(f.filename).name}:{f.lineno} in {f.name}" for f in frames)
        problems.append(f"the session raised {type(e).__name__}: {e} (at {where})")

    finished = session is not None and session.is_over and not problems
    if finished:
        assert session is not None
        if answers:
            problems.append("scripted answers never used: " + "; ".join(
                f"{a.kind}" + (f" by {a.actor}" if a.actor else "") + f" -> {a.answer!r}" for a in answers))
        if len(dice.rolls) < len(faces):
            problems.append(f"scripted dice never used: {_show(case.dice[len(dice.rolls):])} "
                            f"({len(dice.rolls)} of {len(faces)} rolled)")
        for i, pr in enumerate(probes):
            if not probed[i]:
                problems.append(f"illegal answer {pr.answer!r} was never tried: there was no decision #{pr.nth} of kind "
                                f"{pr.kind}" + (f" for {pr.actor}" if pr.actor else ""))
        problems += _check_expectations(case, session, asked, asked_kind)

    if case.xfail is not None:
        status = "XFAIL" if problems else "XPASS"
    else:
        status = "FAIL" if problems else "PASS"
    return CaseResult(ef.path.name, case.id, case.title, status, problems, log, case.xfail)


def _check_expectations(case: ExampleCase, session: Any, asked: Counter[tuple[str, str]], asked_kind: Counter[str]) -> list[str]:
    exp = case.expect
    out: list[str] = []
    outcome = session.outcome or {}
    snap = outcome.get("snapshot") if isinstance(outcome.get("snapshot"), Mapping) else session.snapshot()
    for path, want in exp.state.items():
        try:
            got = resolve_path(snap, path)
        except KeyError as e:
            if want != ABSENT:
                out.append(f"state {path}: expected {_show(want)}, but the path does not exist: {e.args[0]}")
            continue
        except ValueError as e:
            out.append(f"state {path}: {e}")
            continue
        if want == ABSENT:
            out.append(f"state {path}: expected no such path, got {_show(got)}")
            continue
        out += [f"state {line}" for line in match(want, got, path)]
    if exp.has_result:
        out += match(exp.result, outcome.get("result"), "result")
    if exp.outcome is not None:
        out += match(exp.outcome, outcome, "outcome")
    if exp.events:
        evs = [e.model_dump(mode="json") for e in session.events]
        pos = 0
        for i, want in enumerate(exp.events):
            hit = next((j for j in range(pos, len(evs)) if not match(want, evs[j])), None)
            if hit is None:
                same = [(j, e) for j, e in enumerate(evs) if j >= pos and e.get("type") == want.get("type")][:5]
                near = "".join(f"\n      event #{j}: " + "; ".join(match(want, e)[:3]) for j, e in same) or " none"
                out.append(f"events[{i}]: no event matching {_show(want)} after event #{pos}; "
                           f"the nearest events of type {want.get('type')!r} differ in:{near}")
                break
            pos = hit + 1
    for a in exp.asked:
        n = asked[(a.kind, a.actor)] if a.actor is not None else asked_kind[a.kind]
        if n != a.times:
            who = f" for {a.actor}" if a.actor else ""
            out.append(f"asked {a.kind}{who}: expected {a.times} time(s), asked {n} time(s)")
    return out


# ======================================================================================================================
# reports and the CLI
# ======================================================================================================================
@dataclass
class ExamplesReport:
    results: list[CaseResult] = field(default_factory=list)
    #: files that could not be loaded at all: (path, problem)
    errors: list[tuple[str, str]] = field(default_factory=list)

    def count(self, status: str) -> int:
        return sum(1 for r in self.results if r.status == status)

    @property
    def passed(self) -> int:
        return self.count("PASS")

    @property
    def failed(self) -> int:
        return self.count("FAIL") + len(self.errors)

    @property
    def xfailed(self) -> int:
        return self.count("XFAIL")

    @property
    def xpassed(self) -> int:
        return self.count("XPASS")

    @property
    def ok(self) -> bool:
        return self.failed == 0 and self.xpassed == 0

    def summary(self) -> str:
        s = f"{self.passed} passed, {self.failed} failed"
        if self.xfailed:
            s += f", {self.xfailed} xfailed"
        if self.xpassed:
            s += f", {self.xpassed} xpassed"
        return s

    def format(self, verbose: bool = False) -> str:
        lines = [f"ERROR: {p}: {m}" for p, m in self.errors]
        lines += [r.format(verbose) for r in self.results]
        lines.append(self.summary())
        return "\n".join(lines)


def run_examples(paths: Iterable[str | Path], only: Sequence[str] = ()) -> ExamplesReport:
    """Run every case of every file (or only the cases whose id is in ``only``)."""
    rep = ExamplesReport()
    for p in paths:
        try:
            ef = load_examples(p)
        except ExamplesError as e:
            rep.errors.append((str(p), str(e)))
            continue
        for case in ef.cases:
            if only and case.id not in only:
                continue
            rep.results.append(run_case(ef, case))
    return rep


def run_example_files(paths: Iterable[str | Path]) -> list[CaseResult]:
    """Per-case results (``ok``, ``name``, ``message``) for callers that print their own report; a file that cannot be
    loaded is one failed result named after the file."""
    rep = run_examples(paths)
    return [CaseResult(Path(p).name, "(file)", "", "FAIL", [m]) for p, m in rep.errors] + rep.results


def _default_paths() -> list[Path]:
    from .registry import systems

    return [Path(p) for s in systems() for p in s.examples]


def main(argv: Sequence[str] | None = None) -> int:
    """``trpg examples [FILE...]``: run examples files (default: every registered system's); 0 iff all pass."""
    ap = argparse.ArgumentParser(prog="trpg examples", description="Run worked-example files (docs/examples-format.md).")
    ap.add_argument("files", nargs="*", help="examples files (default: every registered system's)")
    ap.add_argument("--case", "-k", action="append", default=[], help="run only this case id (repeatable)")
    ap.add_argument("--verbose", "-v", action="store_true", help="show the decision log of passing cases too")
    args = ap.parse_args(list(argv) if argv is not None else None)
    paths = [Path(f) for f in args.files] or _default_paths()
    if not paths:
        print("no examples files given and no registered system lists any", file=sys.stderr)
        return 1
    rep = run_examples(paths, args.case)
    for p, m in rep.errors:
        print(f"ERROR: {p}: {m}")
    for r in rep.results:
        print(r.format(args.verbose))
    print(rep.summary())
    return 0 if rep.ok else 1


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
