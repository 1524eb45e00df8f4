"""``trpg fuzz answers``: hostile answers through the Python API (ARCHITECTURE, core contract 3: "Illegal answers are
refused with a clear, specific message, and the session's state is unchanged. The engine never trusts an agent").

Session ``i`` (base seed ``S``) plays the sample ``i mod n`` with the seed ``S * 1_000_003 + i``, seats, rule options
and ``--create`` drawn as for ``trpg fuzz sessions``. It is driven as ``agent.table.Table`` drives one (the seat's
agent, then the scripted policy, then ``last_resort``), but before a decision is answered, with probability
``P_HOSTILE`` and while its budget lasts, 1–3 hostile answers go to ``Session.answer`` first. Each must raise
``IllegalAnswer`` with a message of at most ``MAX_MESSAGE`` characters and leave the session as it was: the game's
snapshot, the events, the decision count, the dice and the pending decisions. Outcomes: refused (good), refused with a
message too long, refused with the state changed, accepted (the engine took it), crashed (another exception).

The hostile answers (``CATEGORIES``) are built from the decision and a legal answer to it (the seat's own), so that
each is illegal for a reason of its own: see ``docs/reliability.md`` for the list. ``--runs N`` is the number of
hostile answers: sessions are played in order until their answers add up to at least N (the same sessions whatever
``--jobs``).
"""

from __future__ import annotations

import json
import math
import random
import tempfile
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from engine.core.decision import NOTE_MAX, Answer, Decision, IllegalAnswer

from .common import Hang, Tally, run_cases, seat_name, short_traceback, watchdog

__all__ = ["AnswersParams", "CATEGORIES", "hostile_answers", "run_chunk", "run", "MAX_MESSAGE", "EvilStr", "fingerprint"]

#: the longest refusal message allowed (a refusal never echoes a huge answer)
MAX_MESSAGE = 2_000
#: probability that a decision gets hostile answers first (while the session's budget lasts); payload decisions are
#: rarer and have more ways in, so they get them more often
P_HOSTILE = 0.3
P_HOSTILE_PAYLOAD = 0.9
HUGE = 2_000_000  # characters of a huge string
DEEP = 3_000  # levels of a deeply nested answer


class EvilStr(str):
    """A string that equals everything (an option id check by ``==`` or ``in`` would take it for any id)."""

    def __eq__(self, other: object) -> bool:
        return True

    def __ne__(self, other: object) -> bool:
        return False

    __hash__ = str.__hash__


class _Odd(BaseModel):
    """A model the decision never asked for (an instance of the wrong model)."""

    zzz: int = 1


def _nested_list(depth: int, leaf: Any = "x") -> Any:
    x: Any = leaf
    for _ in range(depth):
        x = [x]
    return x


def _nested_dict(depth: int, leaf: Any = "x") -> Any:
    x: Any = leaf
    for _ in range(depth):
        x = {"a": x}
    return x


@dataclass(frozen=True)
class Hostile:
    category: str
    variant: str
    raw: Any
    seq: int | None = None  # the seq to submit with (a stale one), None: the decision's own


# -- the catalogue ---------------------------------------------------------------------------------------------------
def _legal_value(legal: dict[str, Any]) -> Any:
    if "choice" in legal:
        return legal["choice"]
    if "choices" in legal:
        return legal["choices"]
    return legal.get("payload")


def _envelope(d: Decision, value: Any, **more: Any) -> dict[str, Any]:
    key = "payload" if d.payload_model is not None else ("choices" if d.pick is not None else "choice")
    return {key: value, **more}


def _not_an_id(d: Decision, text: str) -> bool:
    return text not in d.option_ids


def _schema_fields(d: Decision) -> dict[str, dict[str, Any]]:
    """The payload model's top-level fields as JSON Schema (references resolved one level)."""
    schema = d.payload_schema() or {}
    defs = schema.get("$defs", {})
    out = {}
    for name, sub in (schema.get("properties") or {}).items():
        if "$ref" in sub:
            sub = defs.get(sub["$ref"].rsplit("/", 1)[-1], sub)
        out[name] = sub
    return out


def _types(sub: dict[str, Any]) -> set[str]:
    t = sub.get("type")
    if isinstance(t, list):
        return set(t)
    if isinstance(t, str):
        return {t}
    out: set[str] = set()
    for alt in sub.get("anyOf", ()):
        out |= _types(alt)
    return out


def _wrong_type_value(sub: dict[str, Any]) -> Any | None:
    """A JSON value of a type the field does not take (None when the field takes anything)."""
    types = _types(sub)
    if not types:
        return None
    for candidate, kind in ((["x"], "array"), ({"a": 1}, "object"), ("x", "string"), (1, "integer"), (True, "boolean")):
        if kind not in types and not (kind == "integer" and "number" in types):
            return candidate
    return None


def _choice_variants(d: Decision, legal: dict[str, Any], rng: random.Random) -> dict[str, list[tuple[str, Any]]]:
    """Hostile answers to a one-option decision, by category."""
    lid = legal["choice"]
    unknown = [x for x in ("no-such-option", lid + "_x", lid.upper(), " " + lid, lid + " ", "") if _not_an_id(d, x)]
    return {
        "wrong_type": [("int", 1), ("float", 3.5), ("none", None), ("bool", True), ("bytes", lid.encode()),
                       ("list", [lid]), ("tuple", (lid,)), ("set", {lid}), ("empty_dict", {}), ("object", object())],
        "unknown_option": [(f"id:{x!r}", x) for x in unknown],
        "control_chars": [(f"id+{c!r}", lid + c) for c in ("\x00", "\x1b[2J", "\u202e", "\n", "\r")
                          if _not_an_id(d, lid + c)],
        "huge_string": [("2MB", "x" * HUGE), ("id*", lid * (HUGE // max(1, len(lid))))],
        "deep_nesting": [("list", _nested_list(DEEP, lid)), ("envelope", {"choice": _nested_list(DEEP, lid)}),
                         ("dict", _nested_dict(DEEP, lid))],
        "str_subclass": [("bare", EvilStr("no-such-option")), ("envelope", {"choice": EvilStr("no-such-option")})],
        "nan_inf": [("nan", math.nan), ("inf", math.inf), ("envelope", {"choice": -math.inf})],
        "extra_fields": [("zzz", {"choice": lid, "zzz": 1}), ("choice+choices", {"choice": lid, "choices": [lid]}),
                         ("choice+payload", {"choice": lid, "payload": {}})],
        "answer_object": [("int_choice", Answer(choice=123)),  # type: ignore[arg-type]
                          ("unknown_choice", Answer(choice="no-such-option")),
                          ("choices_for_one", Answer(choices=(lid,))), ("payload_for_choice", Answer(payload=_Odd())),
                          ("model", _Odd())],
    }


def _many_variants(d: Decision, legal: dict[str, Any], rng: random.Random) -> dict[str, list[tuple[str, Any]]]:
    """Hostile answers to a subset decision, by category."""
    ids = d.option_ids
    lo, hi = d.pick or (0, len(ids))
    picked = list(legal["choices"])
    first = ids[0]
    out: dict[str, list[tuple[str, Any]]] = {
        "wrong_type": [("int", 5), ("none", None), ("ints", [1, 2]), ("nested", [[first]]), ("dict", {"a": first}),
                       ("envelope_int", {"choices": 5}), ("bytes", [first.encode()])],
        "unknown_option": [("unknown", picked[: max(0, hi - 1)] + ["no-such-option"]),
                           ("duplicate", [first, first])],
        "control_chars": [("id+nul", [first + "\x00"]), ("id+esc", ["\x1b[2J" + first])],
        "huge_string": [("2MB", ["x" * HUGE])],
        "deep_nesting": [("list", _nested_list(DEEP, first)), ("envelope", {"choices": _nested_list(DEEP, first)})],
        "str_subclass": [("element", [EvilStr("no-such-option")]), ("bare", EvilStr("no-such-option"))],
        "nan_inf": [("nan", math.nan), ("element", [math.inf])],
        "extra_fields": [("zzz", {"choices": picked, "zzz": 1}), ("choice+choices", {"choice": first, "choices": picked})],
        "answer_object": [("int_choices", Answer(choices=(1, 2))),  # type: ignore[arg-type]
                          ("unknown_choices", Answer(choices=("no-such-option",))), ("model", _Odd())],
    }
    if hi < len(ids):
        out["out_of_bounds"] = [("too_many", ids[: hi + 1])]
    if lo > 0:
        out["out_of_bounds"] = out.get("out_of_bounds", []) + [("too_few", [])]
    return out


def _payload_variants(d: Decision, legal: dict[str, Any], rng: random.Random) -> dict[str, list[tuple[str, Any]]]:
    """Hostile answers to a payload decision, by category."""
    model = d.payload_model
    assert model is not None
    good = dict(legal["payload"])
    fields = _schema_fields(d)
    required = set((d.payload_schema() or {}).get("required", ()))
    out: dict[str, list[tuple[str, Any]]] = {
        "wrong_type": [("int", {"payload": 5}), ("none", {"payload": None}), ("list", {"payload": [good]}),
                       ("text", {"payload": "not json"}), ("broken_json", {"payload": "{" + json.dumps(good)}),
                       ("bad_utf8", {"payload": b"\xff\xfe{"}), ("bare_int", 5)],
        "extra_fields": [("zzz", {"payload": {**good, "zzz": 1}}), ("envelope_zzz", {"payload": good, "zzz": 1}),
                         ("json_text_zzz", {"payload": json.dumps({**good, "zzz": 1}, ensure_ascii=False)})],
        "deep_nesting": [("payload", {"payload": _nested_dict(DEEP)}),
                         ("json_text", {"payload": '{"a":' * DEEP + "1" + "}" * DEEP}),
                         ("field", {"payload": {**good, next(iter(fields), "a"): _nested_list(DEEP)}})],
        "huge_string": [("payload_text", {"payload": "x" * HUGE})],
        "str_subclass": [("json_text", {"payload": EvilStr(json.dumps({**good, "zzz": 1}))})],
        "model_construct": [("objects", model.model_construct(**{f: object() for f in model.model_fields})),  # type: ignore[arg-type]
                            ("other_model", _Odd())],
        "answer_object": [("payload_other_model", Answer(payload=_Odd()))],
    }
    wrong, bounds, nans, missing = [], [], [], []
    for name, sub in fields.items():
        bad = _wrong_type_value(sub)
        if bad is not None:
            wrong.append((f"{name}:type", {"payload": {**good, name: bad}}))
        types = _types(sub)
        if "integer" in types or "number" in types:
            nans.append((f"{name}:nan", {"payload": {**good, name: math.nan}}))
            nans.append((f"{name}:inf", {"payload": {**good, name: math.inf}}))
            if "maximum" in sub:
                bounds.append((f"{name}:max+1", {"payload": {**good, name: int(sub["maximum"]) + 1}}))
                bounds.append((f"{name}:1e100", {"payload": {**good, name: 10**100}}))
            if "minimum" in sub:
                bounds.append((f"{name}:min-1", {"payload": {**good, name: int(sub["minimum"]) - 1}}))
                bounds.append((f"{name}:-1e100", {"payload": {**good, name: -(10**100)}}))
        if "string" in types and "maxLength" in sub:
            bounds.append((f"{name}:maxLength+1", {"payload": {**good, name: "x" * (int(sub["maxLength"]) + 1)}}))
            bounds.append((f"{name}:2MB", {"payload": {**good, name: "x" * HUGE}}))
        if name in required:
            missing.append((f"-{name}", {"payload": {k: v for k, v in good.items() if k != name}}))
    if wrong:
        out["wrong_type"] += wrong
        # an instance of the model made without its checks, holding values of the wrong types
        typed = {name: bad for name, sub in fields.items() if (bad := _wrong_type_value(sub)) is not None}
        out["model_construct"].append(("wrong_types", model.model_construct(**typed)))  # type: ignore[arg-type]
    if required:
        out["model_construct"].append(("missing_fields", model.model_construct()))
    if bounds:
        out["out_of_bounds"] = bounds
    if nans:
        out["nan_inf"] = nans
    if missing:
        out["missing_field"] = missing
    return out


def _common_variants(d: Decision, legal: dict[str, Any], pending: set[int]) -> dict[str, list[tuple[str, Any]]]:
    """Hostile answers any decision can get: texts that are not strings, notes where none is taken, speech that is
    huge or full of control characters (a legal choice otherwise)."""
    value = _legal_value(legal)
    texts: list[tuple[str, Any]] = [(f"text:{type(t).__name__}", _envelope(d, value, text=t))
                                    for t in (123, ["a"], {"a": 1}, b"x", 1.5)]
    texts.append(("note:int", _envelope(d, value, note=5)))
    if d.payload_model is None and d.pick is None:
        texts.append(("Answer.text:int", Answer(choice=value, text=123)))  # type: ignore[arg-type]
    else:
        texts.append(("note:list", _envelope(d, value, note=["x"])))
    out: dict[str, list[tuple[str, Any]]] = {
        "non_string_text": texts,
        "huge_speech": [("1MB", _envelope(d, value, text="x" * (HUGE // 2)))],
        "speech_control": [("ansi+nul", _envelope(d, value, text="\x1b]0;pwned\x07\x1b[2J\x00"))],
    }
    notes = d.notes or {}
    key = value if isinstance(value, str) else "*"
    mode = notes.get(key) or notes.get("*")
    if mode is None:
        out["note"] = [("not_taken", _envelope(d, value, note="a reason"))]
    else:
        out["note"] = [("too_long", _envelope(d, value, note="x" * (NOTE_MAX + 1)))]
    return out


#: every category, in the order the summary lists them
CATEGORIES = ("wrong_type", "unknown_option", "control_chars", "huge_string", "deep_nesting", "str_subclass", "nan_inf",
              "extra_fields", "model_construct", "answer_object", "out_of_bounds", "missing_field", "stale_seq",
              "non_string_text", "note", "huge_speech", "speech_control")


def hostile_answers(d: Decision, legal: dict[str, Any], pending: set[int], rng: random.Random,
                    skip: frozenset[str] = frozenset()) -> dict[str, list[Hostile]]:
    """Every hostile answer the catalogue has for ``d`` (``legal``: a legal answer as ``Answer.to_json`` gives it;
    ``pending``: the seqs that may be answered now), by category."""
    if d.payload_model is not None:
        by = _payload_variants(d, legal, rng)
    elif d.pick is not None:
        by = _many_variants(d, legal, rng)
    else:
        by = _choice_variants(d, legal, rng)
    by.update(_common_variants(d, legal, pending))
    out = {c: [Hostile(c, v, raw) for v, raw in items] for c, items in by.items() if items and c not in skip}
    if "stale_seq" not in skip:
        stale = [s for s in (d.seq - 1, d.seq + 1, d.seq + 1000, -1, 10**18) if s not in pending]
        out["stale_seq"] = [Hostile("stale_seq", f"seq:{s}", legal, s) for s in stale]
    return out


# -- the driver ------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class AnswersParams:
    base_seed: int = 0
    per_session: int = 40
    timeout: float = 120.0
    skip: frozenset[str] = frozenset()
    max_decisions: int = 20_000


@dataclass
class _Drive:
    """A session and its seats, answered legally as a table would."""

    session: Any
    seats: Any
    factory: Any
    fallback: Any = field(default=None)

    def legal(self, d: Decision) -> dict[str, Any]:
        """A legal answer to ``d`` (the seat's agent, else the scripted policy, else ``last_resort``), checked
        without being applied, as ``Answer.to_json`` gives it."""
        from ..table import last_resort

        s = self.session
        # the fuzzer's seats name roles only (``all=`` drops the default first_pc seat), so no first PC is needed
        agent = self.factory(self.seats.policy_for(d.actor, s.actor_role(d.actor)), d.actor)
        for make in (lambda: agent.act(s.view(d)), lambda: self.fallback.act(s.view(d)), lambda: last_resort(d)):
            try:
                return d.check(make()).to_json()
            except IllegalAnswer:
                continue
        raise RuntimeError(f"no legal answer found for {d.kind} (#{d.seq})")


def fingerprint(session: Any) -> tuple[Any, ...]:
    """What a refused answer must leave as it was."""
    return (json.dumps(session.snapshot(), ensure_ascii=False, sort_keys=True, default=repr), len(session.events),
            session.decisions, len(session.dice.rolls), tuple(m.seq for m in session.pending_all()), session.is_over)


def _describe(raw: Any, limit: int = 160) -> str:
    from engine.core.quote import brief

    try:
        return brief(raw, limit) if not isinstance(raw, (str, bytes)) else repr(raw[:limit])
    except Exception:
        return f"<{type(raw).__name__}>"


def session_case(params: AnswersParams, index: int, tally: Tally, work: Path) -> None:
    from ..scripted import ScriptedAgent
    from ..table import default_agent_factory
    from .common import case_rng
    from .sessions import SessionsParams, _close, _seat_spec, plan

    log = work / f"a{index}.jsonl"
    planned = plan(SessionsParams(base_seed=params.base_seed), index, tally, log)
    if planned is None:
        tally.add("unplayable")
        return
    case, session = planned
    session.close()  # no log: the events are kept in memory
    log.unlink(missing_ok=True)
    rng = case_rng("answers", params.base_seed, index)
    drive = _Drive(session, _seat_spec(case.seats), default_agent_factory(case.seed), ScriptedAgent())
    budget = params.per_session
    tally.add("sessions")
    tally.group("scenario", f"{case.sample.system}:{case.sample.stem}")
    tally.group("seats", seat_name(case.seats))
    fuzz_cmd = f"trpg fuzz answers --seed {params.base_seed} --case {index}"
    steps = 0

    def fail(kind: str, message: str, d: Decision, h: Hostile, **data: Any) -> None:
        tally.fail(index, kind, message, seed=case.seed, scenario=case.sample.path, seats=list(case.seats),
                   config=case.config, create=case.create, seq=d.seq, decision_kind=d.kind, category=h.category,
                   variant=h.variant, answer=_describe(h.raw), fuzz_command=fuzz_cmd,
                   session_command=case.command(), **data)

    failed = False
    try:
        with watchdog(params.timeout) as tick:
            while not session.is_over:
                tick()
                steps += 1
                if steps > params.max_decisions:
                    raise Hang(f"more than {params.max_decisions} decisions")
                for d in session.pending_all():
                    if d.answered:
                        continue  # a hostile answer was taken for it
                    legal = drive.legal(d)
                    if budget > 0 and rng.random() < (P_HOSTILE if d.payload_model is None else P_HOSTILE_PAYLOAD):
                        pending = {m.seq for m in session.pending_all()}
                        menu = hostile_answers(d, legal, pending, rng, params.skip)
                        for _ in range(rng.randint(1, 3)):
                            if budget <= 0 or d.answered:
                                break
                            cat = rng.choice(sorted(menu))
                            h = rng.choice(menu[cat])
                            budget -= 1
                            outcome, detail = _submit(session, d, h, tally)
                            tally.group("outcome", outcome)
                            tally.group(f"category:{h.category}", outcome)
                            if outcome != "refused":
                                failed = True
                                fail(outcome, _MESSAGES[outcome], d, h, **detail)
                            if outcome in ("crashed_state_changed", "refused_state_changed"):
                                raise _Abandon()
                    if not d.answered:
                        session.answer(legal, policy="fuzz-legal", seq=d.seq)
    except _Abandon:
        tally.add("sessions_abandoned")
    except Hang as e:
        tally.add("hangs")
        tally.fail(index, "hang", f"watchdog: {e}", seed=case.seed, scenario=case.sample.path, fuzz_command=fuzz_cmd,
                   session_command=case.command())
        failed = True
    except Exception as e:  # the legal path broke: a rules bug (or a fault left behind by an accepted hostile answer)
        tally.add("legal_path_crashes")
        tally.fail(index, "crash", f"{type(e).__name__}: {e} (answering legally)", seed=case.seed,
                   scenario=case.sample.path, fuzz_command=fuzz_cmd, session_command=case.command(),
                   traceback=short_traceback(e))
        failed = True
    finally:
        if not session.is_over:
            _close(session)
    tally.add("decisions", session.decisions)
    tally.add("hostile", params.per_session - budget)
    if failed:
        tally.failed_cases += 1


class _Abandon(Exception):
    """The session's state was changed by a refused or crashed answer: it cannot go on meaningfully."""


_MESSAGES = {
    "accepted": "the engine accepted a hostile answer",
    "crashed": "a hostile answer raised something else than IllegalAnswer (state unchanged)",
    "crashed_state_changed": "a hostile answer raised something else than IllegalAnswer and changed the state",
    "refused_long_message": f"refused, but the message is longer than {MAX_MESSAGE:,} characters",
    "refused_state_changed": "refused, but the session's state changed",
}


def _submit(session: Any, d: Decision, h: Hostile, tally: Tally) -> tuple[str, dict[str, Any]]:
    """Submit one hostile answer; its outcome (``refused`` is the only good one) and details for the report."""
    before = fingerprint(session)
    try:
        with warnings.catch_warnings():  # pydantic warns when it serialises a model_construct payload's odd values
            warnings.simplefilter("ignore")
            session.answer(h.raw, policy="fuzz", seq=d.seq if h.seq is None else h.seq)
    except IllegalAnswer as e:
        msg = str(e)
        tally.peak("message_chars", len(msg), -1)
        if fingerprint(session) != before:
            return "refused_state_changed", {"error": msg[:300]}
        if len(msg) > MAX_MESSAGE:
            return "refused_long_message", {"error": msg[:300] + "…", "message_chars": len(msg)}
        return "refused", {}
    except (Hang, KeyboardInterrupt):
        raise
    except Exception as e:
        detail = {"error": f"{type(e).__name__}: {str(e)[:300]}", "traceback": short_traceback(e, 8)}
        return ("crashed" if fingerprint(session) == before else "crashed_state_changed"), detail
    last = session.events[-1] if session.events else None
    return "accepted", {"logged_as": _describe(last.model_dump(mode="json") if last is not None else None, 200)}


def run_cases_one_by_one(params: AnswersParams, cases: Sequence[int]) -> list[tuple[int, Tally]]:
    """One tally per session (the run keeps the sessions in order up to the target)."""
    out = []
    with tempfile.TemporaryDirectory(prefix="trpg-fuzz-answers-") as tmp:
        for i in cases:
            t = Tally()
            session_case(params, i, t, Path(tmp))
            out.append((i, t))
    return out


def run_chunk(params: AnswersParams, cases: Sequence[int]) -> Tally:
    total = Tally()
    for _, t in run_cases_one_by_one(params, cases):
        total.merge(t)
    return total


def run(args: Any, progress: Callable[[int, int], None] | None) -> tuple[Tally, dict[str, Any]]:
    """Sessions in order until their hostile answers add up to ``args.runs`` (or only ``args.case``)."""
    import concurrent.futures as cf

    from ..batch.runner import _executor

    unknown = [c for c in args.skip if c not in CATEGORIES]
    if unknown:
        from .cli import FuzzError

        raise FuzzError(f"--skip {unknown[0]}: no such category (categories: {', '.join(CATEGORIES)})")
    params = AnswersParams(base_seed=args.seed, per_session=max(1, args.per_session), timeout=args.timeout,
                           skip=frozenset(args.skip))
    info = {"per_session": params.per_session, "skip": sorted(params.skip), "target": args.runs}
    if args.case:
        return run_cases(run_chunk, params, list(args.case), progress=progress, chunk=1, jobs=args.jobs,
                         executor=args.executor, scheduler=args.scheduler), info
    target = args.runs
    results: dict[int, Tally] = {}
    total = Tally()
    done = 0
    nxt = 0
    # about 0.7 of a session's budget is used on average: the first wave aims at the target, later ones top it up;
    # the sessions are kept in order up to the one that reaches the target, whatever the waves and --jobs
    wave = max(1, -(-target * 10 // (7 * params.per_session)))
    with _executor(args.executor, args.jobs, args.scheduler) as ex:
        while done < target:
            cases = list(range(nxt, nxt + wave))
            nxt += wave
            size = max(1, min(10, -(-len(cases) // max(1, args.jobs * 4))))
            parts = [cases[i : i + size] for i in range(0, len(cases), size)]
            if ex is None:
                for part in parts:
                    results.update(run_cases_one_by_one(params, part))
            else:
                for fut in cf.as_completed([ex.submit(run_cases_one_by_one, params, part) for part in parts]):
                    results.update(fut.result())
            for i in cases:
                if done >= target:
                    break
                t = results.pop(i)
                total.merge(t)
                done += t.counts.get("hostile", 0)
            if progress:
                progress(min(done, target), target)
            wave = max(2, args.jobs * 2)
    total.sort()
    return total, info


def summary_lines(data: dict[str, Any]) -> list[str]:
    c = data["counts"]
    g = data["groups"]
    out = g.get("outcome", {})
    n = c.get("hostile", 0)
    lines = [
        f"{n:,} hostile answers in {c.get('sessions', 0)} sessions ({c.get('decisions', 0):,} decisions) in "
        f"{data['elapsed_s']:.1f} s: refused {out.get('refused', 0):,}, accepted wrongly {out.get('accepted', 0):,}, "
        f"crashed {out.get('crashed', 0) + out.get('crashed_state_changed', 0):,}, refused with a message over "
        f"{MAX_MESSAGE:,} characters {out.get('refused_long_message', 0):,}, refused with the state changed "
        f"{out.get('refused_state_changed', 0):,}",
        f"longest refusal message: {data['maxima'].get('message_chars', {}).get('value', 0):,} characters",
        "by category (refused / total):",
    ]
    for cat in CATEGORIES:
        cnt = g.get(f"category:{cat}")
        if not cnt:
            continue
        bad = ", ".join(f"{k} {v}" for k, v in sorted(cnt.items()) if k != "refused")
        lines.append(f"  {cat}: {cnt.get('refused', 0)} / {sum(cnt.values())}" + (f"  ({bad})" if bad else ""))
    return lines
