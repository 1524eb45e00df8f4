"""Every system's decision table (``engine.systems.<id>.decisions``) against the system's own source.

(a) the table is well formed and agrees with the system's metadata (reaction windows, the LLM seat's declarations,
the scripted policy); (b) a static walk of the package's source (``ast``): every kind the rules ask — the kind
argument of ``choose``/``choose_many``/``ask_payload``/``approve``/``Decision`` — is declared, with the shape, the
seat, the rule, the speech and the "no" answer its call sites show, and every declared kind is asked somewhere.
``check_decision`` is the run-time form of the same check, for a decision a session yields.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from engine.core import systems
from engine.core.decision_table import SHAPES, WHO, DecisionSpec
from engine.core.examples import NO_POLICY

# ----------------------------------------------------------------------------------------------------------------
# the run-time check
# ----------------------------------------------------------------------------------------------------------------


def decision_shape(decision: Any) -> str:
    """The shape of a decision as asked: a payload, a subset (``pick``) or one option."""
    if getattr(decision, "payload_model", None) is not None:
        return "payload"
    return "many" if getattr(decision, "pick", None) is not None else "one"


def check_decision(table: Mapping[str, DecisionSpec], decision: Any, role: str,
                   other_shapes: Mapping[str, Iterable[str]] | None = None) -> list[str]:
    """What is wrong with ``decision`` (asked of an actor whose seat role is ``role``) for the decision table
    ``table``; ``other_shapes`` (the module's ``OTHER_SHAPES``) lists the further shapes a kind may be asked in.
    Empty when the decision is declared and matches its entry."""
    kind = decision.kind
    spec = table.get(kind)
    if spec is None:
        return [f"{kind}: not in the decision table"]
    out: list[str] = []
    shape = decision_shape(decision)
    shapes = {spec.shape, *((other_shapes or {}).get(kind, ()))}
    if shape not in shapes:
        out.append(f"{kind}: asked as {shape}, the table says {' or '.join(sorted(shapes))}")
    if spec.who != "any" and spec.who != role:
        out.append(f"{kind}: asked of {decision.actor} (role {role}), the table says {spec.who}")
    if getattr(decision, "speech", False) and not spec.speech:
        out.append(f"{kind}: asked with speech, the table says no speech")
    if shape != "payload" and spec.no is not None and getattr(decision, "options", None) is not None:
        ids = list(decision.option_ids)
        first = next((x for x in NO_POLICY if x in ids), None)
        if spec.no in ids and first != spec.no:
            out.append(f"{kind}: the examples runner's no is {first!r} here, the table says {spec.no!r}")
    return out


# ----------------------------------------------------------------------------------------------------------------
# the systems and their tables
# ----------------------------------------------------------------------------------------------------------------


def _system_ids() -> list[str]:
    """Registered systems that are packages of ``engine.systems`` (a test's toy system has no decisions module)."""
    return [s.id for s in systems() if importlib.util.find_spec(f"engine.systems.{s.id}") is not None]


SYSTEM_IDS = _system_ids()


def _info(sid: str) -> Any:
    return next(s for s in systems() if s.id == sid)


def _module(sid: str) -> Any:
    return importlib.import_module(f"engine.systems.{sid}.decisions")


def _table(sid: str) -> Mapping[str, DecisionSpec]:
    return _module(sid).DECISIONS


def _other_shapes(sid: str) -> Mapping[str, frozenset[str]]:
    return getattr(_module(sid), "OTHER_SHAPES", {})


# ----------------------------------------------------------------------------------------------------------------
# the static walk
# ----------------------------------------------------------------------------------------------------------------

#: the asking calls: name (function or attribute) → index of the kind among the positional arguments
ASKS = {"choose": 1, "choose_many": 1, "ask_payload": 1, "Decision": 1, "approve": 2}
_SHAPE_OF = {"choose": "one", "choose_many": "many", "ask_payload": "payload", "approve": "one"}

#: call sites whose kind is not a literal (a variable, a lookup, an f-string): (system, file, function) → the kinds
#: that site asks. A new non-literal site fails the walk until it is listed here.
DYNAMIC_SITES: dict[tuple[str, str, str], frozenset[str]] = {
    ("yogaribito", "combat.py", "_initiative"): frozenset({"cb.pc_order", "cb.gm_order"}),
    ("yogaribito", "combat.py", "_ask_action"): frozenset({"cb.minor", "cb.major"}),
    ("yogaribito", "creation.py", "choose_lifepath"): frozenset({"cc.origin", "cc.purpose", "cc.encounter"}),
}


@dataclass
class Site:
    file: str
    line: int
    function: str
    call: str
    kinds: frozenset[str]
    literal: bool  # the kind is a string literal
    shape: str
    actor: str | None  # the actor when it is a string literal
    rule: str | None  # the rule when it is a string literal
    speech: bool
    #: option ids given as string literals (where they can be read from the source), in order
    option_ids: list[str] = field(default_factory=list)

    def where(self) -> str:
        return f"{self.file}:{self.line} ({self.function})"


@dataclass
class Walk:
    sites: list[Site] = field(default_factory=list)
    unresolved: list[str] = field(default_factory=list)  # non-literal kinds not in DYNAMIC_SITES
    dynamic_used: set[tuple[str, str, str]] = field(default_factory=set)
    strings: set[str] = field(default_factory=set)  # every string constant of the package
    function_strings: dict[tuple[str, str], set[str]] = field(default_factory=dict)


def _name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _str(node: ast.expr | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _arg(call: ast.Call, index: int, keyword: str) -> ast.expr | None:
    for kw in call.keywords:
        if kw.arg == keyword:
            return kw.value
    return call.args[index] if len(call.args) > index else None


def _params(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    a = fn.args
    return {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs}


def _ids(expr: ast.expr | None, fn: ast.AST | None, before: int, seen: frozenset[str] = frozenset()) -> list[str]:
    """The option ids written as literals in ``expr`` (pairs of (id, label)); a variable is followed back to its last
    assignment before line ``before`` in ``fn`` and the appends/inserts/``+=`` after it."""
    out: list[str] = []
    if expr is None:
        return out
    if isinstance(expr, (ast.List, ast.Tuple, ast.Set)):
        for e in expr.elts:
            if isinstance(e, ast.Tuple) and e.elts:
                s = _str(e.elts[0])
                if s is not None:
                    out.append(s)
            elif isinstance(e, ast.Starred):
                out += _ids(e.value, fn, before, seen)
    elif isinstance(expr, ast.BinOp):
        out += _ids(expr.left, fn, before, seen) + _ids(expr.right, fn, before, seen)
    elif isinstance(expr, ast.IfExp):
        out += _ids(expr.body, fn, before, seen) + _ids(expr.orelse, fn, before, seen)
    elif isinstance(expr, (ast.ListComp, ast.GeneratorExp)):
        if isinstance(expr.elt, ast.Tuple) and expr.elt.elts and _str(expr.elt.elts[0]) is not None:
            out.append(_str(expr.elt.elts[0]))  # type: ignore[arg-type]
    elif isinstance(expr, ast.Name) and fn is not None and expr.id not in seen:
        name, seen = expr.id, seen | {expr.id}
        start, base = 0, None
        for node in ast.walk(fn):
            line = getattr(node, "lineno", 0)
            if line >= before:
                continue
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
                if line >= start:
                    start, base = line, node.value
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == name:
                if line >= start and node.value is not None:
                    start, base = line, node.value
        if base is not None:
            out += _ids(base, fn, start, seen)
        for node in ast.walk(fn):
            line = getattr(node, "lineno", 0)
            if not start <= line < before:
                continue
            if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and node.target.id == name:
                out += _ids(node.value, fn, line, seen)
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                  and isinstance(node.func.value, ast.Name) and node.func.value.id == name and node.args):
                if node.func.attr == "append":
                    out += _ids(ast.List(elts=[node.args[0]]), fn, line, seen)
                elif node.func.attr == "insert" and len(node.args) == 2:
                    out = _ids(ast.List(elts=[node.args[1]]), fn, line, seen) + out
                elif node.func.attr == "extend":
                    out += _ids(node.args[0], fn, line, seen)
    return out


class _Visitor(ast.NodeVisitor):
    def __init__(self, sid: str, file: str, walk: Walk) -> None:
        self.sid, self.file, self.walk = sid, file, walk
        self.stack: list[ast.FunctionDef | ast.AsyncFunctionDef] = []

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.stack.append(node)
        self.walk.function_strings[(self.file, node.name)] = {
            n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
        self.generic_visit(node)
        self.stack.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, str):
            self.walk.strings.add(node.value)

    def visit_Call(self, node: ast.Call) -> None:
        self.generic_visit(node)
        call = _name(node.func)
        if call not in ASKS:
            return
        i = ASKS[call]
        kind_expr = _arg(node, i, "kind")
        if kind_expr is None:
            return
        fn = self.stack[-1] if self.stack else None
        fname = fn.name if fn is not None else "<module>"
        literal = _str(kind_expr)
        if literal is not None:
            kinds = frozenset({literal})
        else:
            if isinstance(kind_expr, ast.Name) and fn is not None and fn.name in ASKS and kind_expr.id in _params(fn):
                return  # a wrapper passing its own ``kind`` on (game.choose → Decision, base.choose → ask.choose)
            key = (self.sid, self.file, fname)
            if key not in DYNAMIC_SITES:
                what = "an f-string" if isinstance(kind_expr, ast.JoinedStr) else ast.unparse(kind_expr)
                self.walk.unresolved.append(f"{self.file}:{node.lineno} ({fname}): kind {what}")
                return
            kinds = DYNAMIC_SITES[key]
            self.walk.dynamic_used.add(key)
        if call == "Decision":
            kws = {kw.arg for kw in node.keywords}
            shape = "payload" if "payload_model" in kws else "many" if "pick" in kws else "one"
        else:
            shape = _SHAPE_OF[call]
        speech_kw = _arg(node, 10**6, "speech")
        speech = call == "approve" or (isinstance(speech_kw, ast.Constant) and speech_kw.value is True)
        ids: list[str] = []
        if call in ("choose", "choose_many"):
            ids = _ids(_arg(node, i + 3, "pairs"), fn, node.lineno)
        self.walk.sites.append(Site(
            self.file, node.lineno, fname, call, kinds, literal is not None, shape, _str(_arg(node, i - 1, "actor")),
            _str(_arg(node, i + 2, "rule")), speech, ids))


@cache
def _walk(sid: str) -> Walk:
    spec = importlib.util.find_spec(f"engine.systems.{sid}")
    assert spec is not None and spec.origin is not None
    root = Path(spec.origin).parent
    walk = Walk()
    for path in sorted(root.glob("*.py")):
        if path.name == "decisions.py":
            continue
        _Visitor(sid, path.name, walk).visit(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))
    return walk


def _sites_by_kind(sid: str) -> dict[str, list[Site]]:
    out: dict[str, list[Site]] = defaultdict(list)
    for s in _walk(sid).sites:
        for k in s.kinds:
            out[k].append(s)
    return out


# ----------------------------------------------------------------------------------------------------------------
# (a) the table itself
# ----------------------------------------------------------------------------------------------------------------


def test_there_are_systems_to_check():
    assert SYSTEM_IDS, "no system package registered"


@pytest.mark.parametrize("sid", SYSTEM_IDS)
def test_table_is_well_formed(sid):
    table = _table(sid)
    assert table, f"{sid}: empty decision table"
    for kind, s in table.items():
        assert isinstance(s, DecisionSpec) and s.kind == kind
        assert s.who in WHO and s.shape in SHAPES, kind
        assert s.rule and s.doc, f"{kind}: rule and doc are expected"
        if s.no is not None:
            assert s.shape == "one", f"{kind}: a 'no' option id only exists for a one-option decision"
            assert s.no in NO_POLICY, f"{kind}: no={s.no!r} is not one of the runner's NO_POLICY ids"
        if s.simultaneous:
            assert not s.public, f"{kind}: a simultaneous (sealed) answer cannot be public"
    for kind, shapes in _other_shapes(sid).items():
        assert kind in table, f"OTHER_SHAPES names an undeclared kind {kind}"
        assert shapes and shapes <= set(SHAPES) and table[kind].shape not in shapes, kind


@pytest.mark.parametrize("sid", SYSTEM_IDS)
def test_reaction_kinds_are_the_systems(sid):
    table = _table(sid)
    declared = {k for k, s in table.items() if s.reaction}
    assert declared == set(_info(sid).reaction_kinds), (
        f"table only: {sorted(declared - set(_info(sid).reaction_kinds))}; "
        f"SystemInfo only: {sorted(set(_info(sid).reaction_kinds) - declared)}")


#: the declarations an LLM seat speaks with (formerly ``agent.llm._DECLARATIONS``; the tables' ``speech`` now)
DECLARATIONS = {
    "bloodberry": {"pc.declare", "pc.cf_action", "curse.action", "bs.relation", "bs.proposal"},
    "yogaribito": {"cb.major", "pc.social"},
}


@pytest.mark.parametrize("sid", SYSTEM_IDS)
def test_declarations_expect_speech(sid):
    table = _table(sid)
    missing = sorted(k for k in DECLARATIONS.get(sid, ()) if not (k in table and table[k].speech))
    assert not missing, f"declarations without speech=True: {missing}"


@pytest.mark.parametrize("sid", SYSTEM_IDS)
def test_scripted_policy_answers_every_declared_kind(sid):
    policy = importlib.import_module(f"agent.scripted.{sid}").POLICY
    table = _table(sid)
    assert not set(table) - set(policy), f"no scripted policy for {sorted(set(table) - set(policy))}"
    assert not set(policy) - set(table), f"scripted policy for undeclared kinds {sorted(set(policy) - set(table))}"


# ----------------------------------------------------------------------------------------------------------------
# (b) the table against the source
# ----------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("sid", SYSTEM_IDS)
def test_every_kind_in_the_source_is_resolved(sid):
    walk = _walk(sid)
    assert walk.sites, f"{sid}: no decision found in the source"
    assert not walk.unresolved, ("non-literal decision kinds: list the kinds of each site in DYNAMIC_SITES:\n"
                                 + "\n".join(walk.unresolved))
    for key, kinds in DYNAMIC_SITES.items():
        if key[0] != sid:
            continue
        assert key in walk.dynamic_used, f"DYNAMIC_SITES {key} asks nothing (stale entry)"
        strings = walk.function_strings.get(key[1:], set())
        assert kinds <= strings, f"DYNAMIC_SITES {key}: {sorted(kinds - strings)} are not written in that function"


@pytest.mark.parametrize("sid", SYSTEM_IDS)
def test_every_asked_kind_is_declared_and_every_declared_kind_is_asked(sid):
    table = _table(sid)
    asked = _sites_by_kind(sid)
    undeclared = {k: [s.where() for s in v] for k, v in asked.items() if k not in table}
    assert not undeclared, f"asked but not declared: {undeclared}"
    dead = sorted(set(table) - set(asked))
    assert not dead, f"declared but never asked: {dead}"


@pytest.mark.parametrize("sid", SYSTEM_IDS)
def test_call_sites_match_their_entries(sid):
    table = _table(sid)
    others = _other_shapes(sid)
    problems: list[str] = []
    used_other: set[tuple[str, str]] = set()
    for kind, sites in _sites_by_kind(sid).items():
        spec = table.get(kind)
        if spec is None:
            continue  # reported by the test above
        shapes = {spec.shape, *others.get(kind, ())}
        for s in sites:
            if s.shape not in shapes:
                problems.append(f"{kind} at {s.where()}: asked as {s.shape}, the table says {sorted(shapes)}")
            elif s.shape != spec.shape:
                used_other.add((kind, s.shape))
            if s.speech and not spec.speech:
                problems.append(f"{kind} at {s.where()}: asked with speech=True, the table says no speech")
            if not s.literal:
                continue  # a dynamic site: who and rule depend on which of its kinds it is
            if s.actor == "gm" and spec.who not in ("gm", "any"):
                problems.append(f"{kind} at {s.where()}: asked of the GM, the table says {spec.who}")
            if s.actor is None and spec.who == "gm":
                problems.append(f"{kind} at {s.where()}: asked of a character, the table says gm")
        rules = {s.rule for s in sites}
        if None not in rules and spec.rule not in rules:
            problems.append(f"{kind}: rule {spec.rule!r} is none of the rules the code names {sorted(rules)}")
    for kind, shapes in others.items():
        for shape in shapes:
            if (kind, shape) not in used_other:
                problems.append(f"OTHER_SHAPES {kind}: never asked as {shape}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("sid", SYSTEM_IDS)
def test_no_answers_are_the_runners(sid):
    """``no`` is the first NO_POLICY id among a site's literal option ids (``_no_answer`` of the examples runner);
    None when no site offers one."""
    table = _table(sid)
    strings = _walk(sid).strings
    problems: list[str] = []
    for kind, sites in _sites_by_kind(sid).items():
        spec = table.get(kind)
        if spec is None or spec.shape != "one":
            continue
        found = {next(x for x in NO_POLICY if x in s.option_ids): s.where()
                 for s in sites if s.shape == "one" and any(x in s.option_ids for x in NO_POLICY)}
        if spec.no is None:
            if found:
                problems.append(f"{kind}: no=None, but the runner answers {sorted(found)} at {sorted(found.values())}")
        elif found:
            if spec.no not in found:
                problems.append(f"{kind}: no={spec.no!r}, but the runner answers {sorted(found)}")
        elif spec.no not in strings:
            problems.append(f"{kind}: no={spec.no!r} is written nowhere in the package")
    assert not problems, "\n".join(problems)


# ----------------------------------------------------------------------------------------------------------------
# the run-time helper
# ----------------------------------------------------------------------------------------------------------------


def _fake(kind: str, actor: str = "pc1", *, ids: list[str] | None = None, pick: tuple[int, int] | None = None,
          payload: bool = False, speech: bool = False) -> Any:
    return SimpleNamespace(kind=kind, actor=actor, payload_model=object if payload else None, pick=pick,
                           speech=speech, options=None if payload else [object()] * len(ids or []),
                           option_ids=list(ids or []))


def test_check_decision():
    table = {s.kind: s for s in (DecisionSpec("x.pick", "pc", "one", "§1", no="pass", doc="x"),
                                 DecisionSpec("x.gm", "gm", "many", "§2", doc="y"),
                                 DecisionSpec("x.any", "any", "one", "§3", doc="z"))}
    assert check_decision(table, _fake("x.pick", ids=["act", "pass"]), "pc") == []
    assert check_decision(table, _fake("x.gm", "gm", ids=["a", "b"], pick=(0, 2)), "gm") == []
    assert check_decision(table, _fake("x.any", "gm", ids=["a"]), "gm") == []
    assert check_decision(table, _fake("x.any", "n1", ids=["a"]), "npc") == []
    assert check_decision(table, _fake("x.nope", ids=["a"]), "pc") == ["x.nope: not in the decision table"]
    assert "asked as payload" in check_decision(table, _fake("x.pick", payload=True), "pc")[0]
    assert check_decision(table, _fake("x.pick", payload=True), "pc", {"x.pick": {"payload"}}) == []
    assert "the table says pc" in check_decision(table, _fake("x.pick", "n1", ids=["pass"]), "npc")[0]
    assert "speech" in check_decision(table, _fake("x.pick", ids=["pass"], speech=True), "pc")[0]
    assert "runner's no is 'none'" in check_decision(table, _fake("x.pick", ids=["none", "pass"]), "pc")[0]


@pytest.mark.parametrize("sid", SYSTEM_IDS)
def test_check_decision_accepts_the_tables_own_entries(sid):
    """Each entry, asked as declared, passes (the helper and the tables agree on their own terms)."""
    table, others = _table(sid), _other_shapes(sid)
    for kind, s in table.items():
        role = {"any": "npc"}.get(s.who, s.who)
        for shape in (s.shape, *others.get(kind, ())):
            d = _fake(kind, ids=[s.no or "x"], pick=(0, 1) if shape == "many" else None, payload=shape == "payload",
                      speech=s.speech)
            assert check_decision(table, d, role, others) == [], kind
