"""Mutation testing of the rules modules: which rules could be changed with every test still passing?

A seeded AST mutator (no third-party mutation tool). Each mutant is one small change of one module's source:

==========  =========================================================================================
kind        change
==========  =========================================================================================
``cmp``     a comparison operator: ``<`` ↔ ``<=``, ``>`` ↔ ``>=``, ``==`` ↔ ``!=``, ``in`` ↔ ``not in``,
            ``is`` ↔ ``is not``
``const``   an integer constant off by one (``n+1`` and ``n-1``; booleans are not integers here)
``boolop``  ``and`` ↔ ``or``
``not``     ``not x`` → ``x``
``minmax``  ``min(...)`` ↔ ``max(...)``
``arith``   ``+`` ↔ ``-`` (also ``+=`` ↔ ``-=``; never next to a string)
``retbool`` ``return True`` ↔ ``return False``; ``return x`` → ``return not x`` in a function annotated ``-> bool``
``stmtdel`` a statement that is only a call (``ctx.state(...)``, ``xs.append(...)``) replaced by ``pass``
==========  =========================================================================================

Only code inside function bodies is mutated (not decorators, default values, annotations, module- or class-level
data). The new source is spliced into the original text (every other byte unchanged, the line count kept) and
checked: it must parse to exactly the expected mutated tree, or the mutant is dropped.

How a mutant is tested. First the kill tests (``--tests``) run once, in this process, under coverage.py with one
coverage context per test: that gives, for every line of the mutated modules, the tests that run it, and each test's
duration. Then, for each mutant, only the tests that run its lines are run, fastest first, stopping at the first
failure (``-x``):

- ``fork`` mode (the default): a child process is forked from this warm process (nothing is imported again), the
  mutated function's code object is swapped in (``func.__code__``: every reference to the function, methods of mixins
  included, sees the mutant), every ``functools`` cache is cleared, and pytest runs the selected tests in the child;
- ``subprocess`` mode (``--mode subprocess``, and the fallback when a code swap is impossible): a fresh interpreter
  runs pytest with an import hook that loads the mutated source for the module; nothing is written to disk.

A mutant whose lines no kill test runs is ``no_coverage`` (a survivor that needs no run). Each run has a timeout
(``--timeout-factor`` × the selected tests' measured time + ``--timeout-base`` seconds); a mutant that times out is
killed by timeout. Results go to a JSON file (``--out``): one record per mutant, and figures per module and kind.

Sampling: ``--sample N`` mutants per system (``bloodberry``, ``yogaribito``), stratified over (module, kind): every
stratum gets its share in proportion to its size, at least one, drawn with ``random.Random(seed)``; ``--sample 0``
takes every mutant. Run it in a private copy of the tree (``--root``), never in a shared work tree::

    mkdir -p /tmp/mut && git archive HEAD | tar -x -C /tmp/mut
    python scripts/mutate_rules.py --root /tmp/mut --sample 200 --seed 13 --out /tmp/mut/mutation.json
    python scripts/mutate_rules.py --root /tmp/mut --list --module engine/systems/yogaribito/checks.py
    python scripts/mutate_rules.py --root /tmp/mut --ids engine/systems/yogaribito/checks.py:429:17:const:1 \\
        --tests tests/mutation tests/yogaribito                # re-run chosen mutants
    python scripts/mutate_rules.py --root /tmp/mut --apply ID  # write one mutant into the copy (--revert undoes)

coverage.py is needed for the test selection (``pip install coverage``; without it, or with ``--no-coverage``,
every kill test runs for every mutant, fastest first once measured). See docs/mutation.md for a pass's figures.
"""

from __future__ import annotations

import argparse
import ast
import copy
import functools
import gc
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parents[1]

SYSTEM_MODULES = {
    "bloodberry": ["game", "judge", "flagmap", "cards", "rounds", "creation", "state"],
    "yogaribito": ["game", "base", "checks", "combat", "arms", "creation", "afterplay", "state"],
}
DEFAULT_MODULES = [f"engine/systems/{s}/{m}.py" for s, ms in SYSTEM_MODULES.items() for m in ms]
DEFAULT_TESTS = ["tests/test_examples.py", "tests/test_golden.py", "tests/bloodberry", "tests/yogaribito"]
KINDS = ("cmp", "const", "boolop", "not", "minmax", "arith", "retbool", "stmtdel")

CMP_SWAP: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq, ast.NotEq: ast.Eq,
    ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot, ast.IsNot: ast.Is,
}
OP_TEXT = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=", ast.In: "in",
           ast.NotIn: "not in", ast.Is: "is", ast.IsNot: "is not"}


# ======================================================================================================================
# mutants
# ======================================================================================================================
@dataclass
class Mutant:
    id: str
    module: str  # path relative to the root, e.g. engine/systems/yogaribito/checks.py
    system: str
    line: int
    end_line: int
    col: int
    kind: str
    function: str  # qualname of the outermost function around it
    func_line: int  # first line of that function's code object (the decorator line when decorated)
    before: str
    after: str
    # results
    status: str = ""  # killed | timeout | survived | no_coverage | error | invalid
    killer: str = ""
    tests_selected: int = 0
    seconds: float = 0.0
    mode: str = ""
    detail: str = ""


@dataclass
class _Site:
    """One mutable node: where it is, and how to build its mutated copy."""

    node: ast.AST
    parent_func: ast.FunctionDef | ast.AsyncFunctionDef
    qualname: str
    kind: str
    variant: int
    label: str
    extra: dict[str, Any] = field(default_factory=dict)


def _is_str(node: ast.AST) -> bool:
    return isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, str))


class _Finder(ast.NodeVisitor):
    """Every mutation site inside function bodies, with the qualname of its outermost function."""

    def __init__(self) -> None:
        self.sites: list[_Site] = []
        self._scope: list[str] = []
        self._outer: tuple[ast.FunctionDef | ast.AsyncFunctionDef, str] | None = None
        self._func_stack: list[ast.FunctionDef | ast.AsyncFunctionDef] = []

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self._scope.append(node.name)
        for stmt in node.body:  # decorators, bases and keywords are not mutated
            self.visit(stmt)
        self._scope.pop()

    def _visit_func(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        outer_set = self._outer is None
        if outer_set:
            self._outer = (node, ".".join([*self._scope, node.name]))
        self._scope.append(node.name)
        self._scope.append("<locals>")
        self._func_stack.append(node)
        for stmt in node.body:  # decorators, defaults and annotations are not mutated
            self.visit(stmt)
        self._func_stack.pop()
        self._scope.pop()
        self._scope.pop()
        if outer_set:
            self._outer = None

    visit_FunctionDef = _visit_func
    visit_AsyncFunctionDef = _visit_func

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self.visit(node.body)

    def _add(self, node: ast.AST, kind: str, variant: int, label: str, **extra: Any) -> None:
        if self._outer is None:
            return
        self.sites.append(_Site(node, self._outer[0], self._outer[1], kind, variant, label, extra))

    def generic_visit(self, node: ast.AST) -> None:
        if self._outer is not None:
            self._sites_of(node)
        super().generic_visit(node)

    def _sites_of(self, node: ast.AST) -> None:
        if isinstance(node, ast.Compare):
            for i, op in enumerate(node.ops):
                if type(op) in CMP_SWAP:
                    new = CMP_SWAP[type(op)]
                    self._add(node, "cmp", i, f"{OP_TEXT[type(op)]} → {OP_TEXT[new]}", index=i)
        elif isinstance(node, ast.Constant) and type(node.value) is int:
            self._add(node, "const", 0, f"{node.value} → {node.value + 1}", delta=1)
            self._add(node, "const", 1, f"{node.value} → {node.value - 1}", delta=-1)
        elif isinstance(node, ast.BoolOp):
            self._add(node, "boolop", 0, "and → or" if isinstance(node.op, ast.And) else "or → and")
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            self._add(node, "not", 0, "not x → x")
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("min", "max")):
            self._add(node, "minmax", 0, f"{node.func.id} → {'max' if node.func.id == 'min' else 'min'}")
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Sub):
            if not (_is_str(node.left) or _is_str(node.right)):
                self._add(node, "arith", 0, "+ → -" if isinstance(node.op, ast.Add) else "- → +")
        elif isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add | ast.Sub):
            if not _is_str(node.value):
                self._add(node, "arith", 0, "+= → -=" if isinstance(node.op, ast.Add) else "-= → +=")
        elif isinstance(node, ast.Return) and node.value is not None:
            v = node.value
            if isinstance(v, ast.Constant) and isinstance(v.value, bool):
                self._add(node, "retbool", 0, f"return {v.value} → return {not v.value}")
            else:
                f = self._func_stack[-1] if self._func_stack else None
                if f is not None and isinstance(f.returns, ast.Name) and f.returns.id == "bool":
                    self._add(node, "retbool", 0, "return x → return not x")
                elif (f is not None and isinstance(f.returns, ast.Constant) and f.returns.value == "bool"):
                    self._add(node, "retbool", 0, "return x → return not x")
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            self._add(node, "stmtdel", 0, "call statement → pass")


def _mutated_node(site: _Site) -> ast.AST:
    node = copy.deepcopy(site.node)
    if site.kind == "cmp":
        assert isinstance(node, ast.Compare)
        node.ops[site.extra["index"]] = CMP_SWAP[type(node.ops[site.extra["index"]])]()
    elif site.kind == "const":
        assert isinstance(node, ast.Constant)
        node.value = node.value + site.extra["delta"]
        if node.value < 0:  # what ``-1`` parses to
            return ast.UnaryOp(op=ast.USub(), operand=ast.Constant(-node.value))
    elif site.kind == "boolop":
        assert isinstance(node, ast.BoolOp)
        node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
    elif site.kind == "not":
        assert isinstance(node, ast.UnaryOp)
        return node.operand
    elif site.kind == "minmax":
        assert isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
        node.func.id = "max" if node.func.id == "min" else "min"
    elif site.kind == "arith":
        if isinstance(node, ast.BinOp):
            node.op = ast.Sub() if isinstance(node.op, ast.Add) else ast.Add()
        else:
            assert isinstance(node, ast.AugAssign)
            node.op = ast.Sub() if isinstance(node.op, ast.Add) else ast.Add()
    elif site.kind == "retbool":
        assert isinstance(node, ast.Return) and node.value is not None
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, bool):
            node.value.value = not node.value.value
        else:
            node.value = ast.UnaryOp(op=ast.Not(), operand=node.value)
    elif site.kind == "stmtdel":
        return ast.Pass()
    return node


class _Replace(ast.NodeTransformer):
    def __init__(self, target: ast.AST, new: ast.AST) -> None:
        self.target, self.new = target, new

    def visit(self, node: ast.AST) -> Any:
        if node is self.target:
            return self.new
        return super().visit(node)


def _splice(src: str, node: ast.AST, text: str, is_stmt: bool) -> str:
    """Replace the node's span in the source (UTF-8 byte columns) by text, keeping the line count."""
    lines = src.splitlines(keepends=True)
    l0, l1 = node.lineno - 1, node.end_lineno - 1  # type: ignore[attr-defined,operator]
    b0 = lines[l0].encode("utf-8")
    b1 = lines[l1].encode("utf-8")
    head = b0[: node.col_offset].decode("utf-8")  # type: ignore[attr-defined]
    tail = b1[node.end_col_offset:].decode("utf-8")  # type: ignore[attr-defined]
    pad = "\n" * (l1 - l0)
    new = f"{text}{pad}" if is_stmt else f"({text}{pad})"
    return "".join(lines[:l0]) + head + new + tail + "".join(lines[l1 + 1:])


def enumerate_mutants(root: Path, module: str) -> list[tuple[Mutant, _Site]]:
    """Every mutation site of one module, as a Mutant record and the site it changes (see ``materialize``)."""
    src = (root / module).read_text(encoding="utf-8")
    finder = _Finder()
    finder.visit(ast.parse(src))
    system = module.split("/")[2] if module.startswith("engine/systems/") else "?"
    out: list[tuple[Mutant, _Site]] = []
    seen: set[str] = set()
    for site in finder.sites:
        n: Any = site.node
        func = site.parent_func
        func_line = func.decorator_list[0].lineno if func.decorator_list else func.lineno
        before = ast.unparse(n).splitlines()[0][:100]
        mid = f"{module}:{n.lineno}:{n.col_offset}:{site.kind}:{site.variant}"
        if mid in seen:  # nested nodes that start at the same place (a + b + c): the outer one keeps the id
            mid += f"@{n.end_lineno}.{n.end_col_offset}"
        seen.add(mid)
        out.append((Mutant(mid, module, system, n.lineno, n.end_lineno, n.col_offset, site.kind, site.qualname,
                           func_line, before, site.label), site))
    return out


def materialize(root: Path, m: Mutant, site: _Site) -> str | None:
    """The mutated source of the module, or None when the splice does not parse to the expected tree."""
    src = (root / m.module).read_text(encoding="utf-8")
    new_node = _mutated_node(site)
    text = "pass" if isinstance(new_node, ast.Pass) else ast.unparse(new_node)
    mutated = _splice(src, site.node, text, isinstance(site.node, ast.stmt))
    try:
        return mutated if ast.dump(ast.parse(mutated)) == ast.dump(_expected_tree(src, site, new_node)) else None
    except SyntaxError:
        return None


def _expected_tree(src: str, site: _Site, new_node: ast.AST) -> ast.AST:
    tree = ast.parse(src)
    key = (type(site.node), site.node.lineno, site.node.col_offset,  # type: ignore[attr-defined]
           site.node.end_lineno, site.node.end_col_offset)  # type: ignore[attr-defined]
    for n in ast.walk(tree):
        if (type(n), getattr(n, "lineno", None), getattr(n, "col_offset", None), getattr(n, "end_lineno", None),
                getattr(n, "end_col_offset", None)) == key:
            return _Replace(n, new_node).visit(tree)  # type: ignore[no-any-return]
    raise LookupError(site)


# ======================================================================================================================
# sampling
# ======================================================================================================================
def sample(mutants: list[tuple[Mutant, _Site]], n: int, seed: int) -> list[tuple[Mutant, _Site]]:
    """n mutants per system, stratified over (module, kind), proportional with at least one per stratum."""
    if n <= 0:
        return list(mutants)
    rng = random.Random(seed)
    chosen: list[tuple[Mutant, _Site]] = []
    by_system: dict[str, list[tuple[Mutant, _Site]]] = defaultdict(list)
    for m in mutants:
        by_system[m[0].system].append(m)
    for system in sorted(by_system):
        pool = by_system[system]
        strata: dict[tuple[str, str], list[tuple[Mutant, _Site]]] = defaultdict(list)
        for m in pool:
            strata[(m[0].module, m[0].kind)].append(m)
        keys = sorted(strata)
        if n >= len(pool):
            chosen.extend(pool)
            continue
        total = len(pool)
        quota = {k: max(1, int(n * len(strata[k]) / total)) for k in keys}
        while sum(quota.values()) > n:  # trim the largest strata first
            k = max(keys, key=lambda k: (quota[k], k))
            quota[k] -= 1
        rest = sorted(keys, key=lambda k: (-(n * len(strata[k]) / total - quota[k]), k))
        i = 0
        while sum(quota.values()) < n:
            k = rest[i % len(rest)]
            if quota[k] < len(strata[k]):
                quota[k] += 1
            i += 1
        for k in keys:
            chosen.extend(rng.sample(strata[k], min(quota[k], len(strata[k]))))
    chosen.sort(key=lambda m: m[0].id)
    rng.shuffle(chosen)  # run order: a pass cut short is still a stratified sample
    return chosen


# ======================================================================================================================
# the kill tests: coverage map and durations
# ======================================================================================================================
class _Recorder:
    """A pytest plugin: one coverage context per test, each test's duration, the first failing test."""

    def __init__(self, cov: Any = None) -> None:
        self.cov = cov
        self.durations: dict[str, float] = defaultdict(float)
        self.failed: list[str] = []
        self.outcomes: Counter[str] = Counter()

    def pytest_runtest_protocol(self, item: Any, nextitem: Any) -> None:
        if self.cov is not None:
            self.cov.switch_context(item.nodeid)

    def pytest_runtest_logreport(self, report: Any) -> None:
        self.durations[report.nodeid] += report.duration
        if report.failed:
            self.failed.append(report.nodeid)
        if report.when == "call" or report.failed:
            self.outcomes[report.outcome] += 1


def _pytest_args(tests: list[str], extra: list[str]) -> list[str]:
    return [*tests, "-q", "-p", "no:cacheprovider", "-p", "no:randomly", "--no-header", "-W", "ignore", *extra]


def measure(root: Path, tests: list[str], modules: list[str], use_coverage: bool) -> tuple[
        dict[str, dict[int, set[str]]], dict[str, float], list[str]]:
    """Run the kill tests once here: {module: {line: tests}}, {test: seconds}, tests failing unmutated."""
    import pytest

    cov = None
    if use_coverage:
        import coverage

        cov = coverage.Coverage(data_file=None, include=[str(root / m) for m in modules], branch=False)
    rec = _Recorder(cov)
    if cov is not None:
        cov.start()
    try:
        rc = pytest.main(_pytest_args(tests, []), plugins=[rec])
    finally:
        if cov is not None:
            cov.stop()
    lines: dict[str, dict[int, set[str]]] = {}
    if cov is not None:
        data = cov.get_data()
        for m in modules:
            by_line = data.contexts_by_lineno(str(root / m))
            lines[m] = {ln: {c for c in ctxs if c} for ln, ctxs in by_line.items()}
    print(f"kill tests: pytest exit {rc}, {dict(rec.outcomes)}, {len(rec.durations)} tests, "
          f"{sum(rec.durations.values()):.0f} s", flush=True)
    return lines, dict(rec.durations), rec.failed


# ======================================================================================================================
# running one mutant
# ======================================================================================================================
def _code_objects(code: Any) -> Iterator[Any]:
    yield code
    for c in code.co_consts:
        if hasattr(c, "co_code"):
            yield from _code_objects(c)


def _live_functions(module: Any) -> Iterator[Any]:
    """Every function object defined in the module (top level, in its classes, unwrapped)."""
    seen: set[int] = set()

    def unwrap(obj: Any) -> Iterator[Any]:
        if id(obj) in seen:
            return
        seen.add(id(obj))
        if isinstance(obj, staticmethod | classmethod):
            yield from unwrap(obj.__func__)
        elif isinstance(obj, property):
            for f in (obj.fget, obj.fset, obj.fdel):
                if f is not None:
                    yield from unwrap(f)
        elif isinstance(obj, functools.cached_property):
            yield from unwrap(obj.func)
        elif isinstance(obj, type):
            if obj.__module__ == module.__name__:
                for v in list(vars(obj).values()):
                    yield from unwrap(v)
        elif hasattr(obj, "__code__"):
            yield obj
            if hasattr(obj, "__wrapped__"):
                yield from unwrap(obj.__wrapped__)
        elif hasattr(obj, "__wrapped__"):
            yield from unwrap(obj.__wrapped__)

    for v in list(vars(module).values()):
        yield from unwrap(v)


def _swap_in(m: Mutant, mutated_src: str, root: Path) -> str:
    """Swap the mutated function's code into the live function object(s); '' or why it could not be done."""
    modname = m.module[:-3].replace("/", ".")
    module = sys.modules.get(modname)
    if module is None:
        return f"module {modname} not imported"
    new_code = compile(mutated_src, str(root / m.module), "exec")
    cands = [c for c in _code_objects(new_code) if c.co_qualname == m.function and c.co_firstlineno == m.func_line]
    if len(cands) != 1:
        return f"{len(cands)} code objects {m.function}@{m.func_line}"
    funcs = [f for f in _live_functions(module)
             if f.__code__.co_qualname == m.function and f.__code__.co_firstlineno == m.func_line]
    if not funcs:
        return f"no live function {m.function}@{m.func_line}"
    try:
        for f in funcs:
            f.__code__ = cands[0]
    except ValueError as e:
        return str(e)
    return ""


def _clear_caches() -> None:
    for obj in gc.get_objects():
        if isinstance(obj, functools._lru_cache_wrapper):
            obj.cache_clear()


def _child_pytest(tests: list[str], result_path: str) -> int:
    import pytest

    rec = _Recorder()
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    try:
        rc = int(pytest.main(_pytest_args(tests, ["-x"]), plugins=[rec]))
    except BaseException as e:  # noqa: BLE001 - anything a mutant breaks counts as a kill
        rc, rec.failed = 99, [f"<{type(e).__name__}: {e}>"]
    Path(result_path).write_text(json.dumps({"rc": rc, "failed": rec.failed[:1]}), encoding="utf-8")
    return rc


_BOOT = r"""
import importlib.abc, importlib.util, json, os, sys
root, modname, srcfile, result, tests = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], json.loads(sys.argv[5])
sys.path.insert(0, root)
src = open(srcfile, encoding="utf-8").read()
class Loader(importlib.abc.SourceLoader):
    def __init__(self, path): self.path = path
    def get_filename(self, fullname): return self.path
    def get_data(self, path): return src.encode("utf-8")
    def path_stats(self, path): raise OSError("mutant: no cache")
class Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path, target=None):
        if fullname != modname: return None
        f = os.path.join(root, *modname.split(".")) + ".py"
        return importlib.util.spec_from_file_location(fullname, f, loader=Loader(f))
sys.meta_path.insert(0, Finder())
sys.dont_write_bytecode = True
os.chdir(root)
import scripts_mutate_rules as mr
sys.exit(mr._child_pytest(tests, result))
"""


def run_mutant(m: Mutant, mutated_src: str, root: Path, tests: list[str], timeout: float, mode: str) -> None:
    fd, result_path = tempfile.mkstemp(prefix="mutant-", suffix=".json")
    os.close(fd)
    t0 = time.monotonic()
    why = ""
    try:
        if mode == "fork":
            r, w = os.pipe()
            pid = os.fork()
            if pid == 0:  # the child: swap the code in and run the tests
                os.close(r)
                why = _swap_in(m, mutated_src, root)
                os.write(w, (why or "ok").encode("utf-8")[:500])
                os.close(w)
                if why:
                    os._exit(3)
                _clear_caches()
                os._exit(_child_pytest(tests, result_path))
            os.close(w)
            msg = os.read(r, 600).decode("utf-8", "replace")
            os.close(r)
            status = _wait(pid, timeout - (time.monotonic() - t0))
            if msg != "ok":
                why = msg
                m.detail = f"code swap impossible ({msg}): subprocess"
                mode = "subprocess"
        if mode == "subprocess":
            t0 = time.monotonic()
            with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False, encoding="utf-8") as f:
                f.write(mutated_src)
            _ensure_boot_module()
            env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(root), _BOOT_DIR]), PYTHONDONTWRITEBYTECODE="1")
            proc = subprocess.Popen([sys.executable, "-c", _BOOT, str(root), m.module[:-3].replace("/", "."),
                                     f.name, result_path, json.dumps(tests)], env=env, cwd=root,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
            try:
                proc.wait(timeout=timeout)
                status = "done"
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                status = "timeout"
            os.unlink(f.name)
        m.mode = mode
        m.seconds = round(time.monotonic() - t0, 2)
        if status == "timeout":
            m.status = "timeout"
            return
        try:
            res = json.loads(Path(result_path).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            m.status, m.detail = "killed", (m.detail + " child died without a result").strip()
            return
        if res["rc"] == 0:
            m.status = "survived"
        elif res["rc"] in (1, 99):
            m.status, m.killer = "killed", (res["failed"] or [""])[0]
        else:
            m.status, m.detail = "error", f"pytest exit {res['rc']} {res['failed']}"
    finally:
        Path(result_path).unlink(missing_ok=True)


def _wait(pid: int, timeout: float) -> str:
    deadline = time.monotonic() + max(1.0, timeout)
    while True:
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done:
            return "done"
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return "timeout"
        time.sleep(0.05)


def _ensure_boot_module() -> None:
    """The subprocess imports this file as ``scripts_mutate_rules`` (scripts/ is no package)."""
    d = Path(tempfile.gettempdir()) / "mutate_rules_boot"
    d.mkdir(exist_ok=True)
    target = d / "scripts_mutate_rules.py"
    if not target.exists() or target.read_text(encoding="utf-8") != Path(__file__).read_text(encoding="utf-8"):
        target.write_text(Path(__file__).read_text(encoding="utf-8"), encoding="utf-8")
    global _BOOT_DIR
    _BOOT_DIR = str(d)


_BOOT_DIR = ""


# ======================================================================================================================
# main
# ======================================================================================================================
def summarize(mutants: list[Mutant]) -> dict[str, Any]:
    def fig(ms: list[Mutant]) -> dict[str, int]:
        c = Counter(m.status for m in ms)
        return {"mutants": len(ms), "killed": c["killed"], "timeout": c["timeout"], "survived": c["survived"],
                "no_coverage": c["no_coverage"], "error": c["error"], "invalid": c["invalid"]}

    out: dict[str, Any] = {"total": fig(mutants), "per_system": {}, "per_module": {}, "per_kind": {}}
    for key, attr in (("per_system", "system"), ("per_module", "module"), ("per_kind", "kind")):
        groups: dict[str, list[Mutant]] = defaultdict(list)
        for m in mutants:
            groups[getattr(m, attr)].append(m)
        out[key] = {k: fig(v) for k, v in sorted(groups.items())}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", type=Path, default=HERE, help="the tree to mutate and test (a private copy)")
    ap.add_argument("--module", action="append", help="module path relative to the root (repeatable)")
    ap.add_argument("--kind", action="append", choices=KINDS, help="mutation kinds (repeatable; default all)")
    ap.add_argument("--tests", nargs="+", default=DEFAULT_TESTS, help="kill tests, relative to the root")
    ap.add_argument("--sample", type=int, default=200, help="mutants per system (0 = all)")
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--ids", nargs="+", help="run exactly these mutant ids (no sampling)")
    ap.add_argument("--mode", choices=("fork", "subprocess"), default="fork")
    ap.add_argument("--timeout-factor", type=float, default=3.0)
    ap.add_argument("--timeout-base", type=float, default=20.0)
    ap.add_argument("--no-coverage", action="store_true", help="run every kill test for every mutant")
    ap.add_argument("--out", type=Path, default=Path("mutation.json"))
    ap.add_argument("--list", action="store_true", help="list the (sampled) mutants and stop")
    ap.add_argument("--apply", metavar="ID", help="write this mutant into --root (backup *.mutorig) and stop")
    ap.add_argument("--revert", action="store_true", help="restore every *.mutorig under --root and stop")
    args = ap.parse_args(argv)
    root = args.root.resolve()
    modules = args.module or DEFAULT_MODULES

    if args.revert or args.apply:
        if (root / ".git").exists():
            ap.error(f"{root} is a git work tree: --apply/--revert only in a private copy")
    if args.revert:
        for b in root.rglob("*.py.mutorig"):
            b.replace(b.with_suffix(""))
            print(f"restored {b.with_suffix('')}")
        return 0

    all_mutants: list[tuple[Mutant, _Site]] = []
    for mod in modules:
        all_mutants.extend((m, s) for m, s in enumerate_mutants(root, mod) if not args.kind or m.kind in args.kind)
    if args.apply:
        found = next(((m, s) for m, s in all_mutants if m.id == args.apply), None)
        if found is None:
            ap.error(f"no mutant {args.apply}")
        m, site = found
        src = materialize(root, m, site)
        if src is None:
            ap.error(f"mutant {args.apply} does not splice cleanly")
        path = root / m.module
        backup = path.with_name(path.name + ".mutorig")
        if not backup.exists():
            backup.write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
        path.write_text(src, encoding="utf-8")
        for pyc in (path.parent / "__pycache__").glob(path.stem + ".*.pyc"):
            pyc.unlink()
        print(f"applied {m.id}: {m.before!r} ({m.after}) in {m.function}")
        return 0
    if args.ids:
        wanted = set(args.ids)
        chosen = [x for x in all_mutants if x[0].id in wanted]
        missing = wanted - {x[0].id for x in chosen}
        if missing:
            ap.error(f"unknown mutant ids: {sorted(missing)}")
    else:
        chosen = sample(all_mutants, args.sample, args.seed)
    print(f"{len(all_mutants)} mutants in {len(modules)} modules; running {len(chosen)}", flush=True)
    if args.list:
        for m, _ in chosen:
            print(f"{m.id}\t{m.function}\t{m.before}\t{m.after}")
        return 0

    sys.path.insert(0, str(root))
    os.chdir(root)
    import engine

    if not Path(engine.__file__).resolve().is_relative_to(root):
        print(f"engine is imported from {engine.__file__}, not from {root}: set PYTHONPATH={root}", file=sys.stderr)
        return 2
    print(f"engine: {engine.__file__}", flush=True)
    use_cov = not args.no_coverage
    if use_cov:
        try:
            import coverage  # noqa: F401
        except ImportError:
            print("coverage.py is not installed: every kill test runs for every mutant", flush=True)
            use_cov = False
    t_start = time.monotonic()
    lines, durations, failing = measure(root, args.tests, modules, use_cov)
    if failing:
        print(f"the kill tests fail unmutated: {failing[:5]}", file=sys.stderr)
        return 2
    measure_s = time.monotonic() - t_start
    order = sorted(durations, key=lambda t: (durations[t], t))
    mutants: list[Mutant] = []
    for i, (m, site) in enumerate(chosen, 1):
        src = materialize(root, m, site)
        sel: list[str] = []
        if src is not None and use_cov:
            hit: set[str] = set()
            for ln in range(m.line, m.end_line + 1):
                hit |= lines.get(m.module, {}).get(ln, set())
            sel = [t for t in order if t in hit]
        elif src is not None:
            sel = list(order)
        m.tests_selected = len(sel)
        if src is None:
            m.status = "invalid"
        elif not sel:
            m.status = "no_coverage"
        else:
            timeout = args.timeout_base + args.timeout_factor * sum(durations[t] for t in sel)
            run_mutant(m, src, root, sel, timeout, args.mode)
        mutants.append(m)
        print(f"[{i}/{len(chosen)}] {m.status:11} {m.seconds:6.1f}s {m.id} {m.after} ({m.function}) "
              f"{m.killer[:70]}", flush=True)
        if i % 10 == 0 or i == len(chosen):
            _write(args, mutants, len(all_mutants), measure_s, time.monotonic() - t_start, modules)
    _write(args, mutants, len(all_mutants), measure_s, time.monotonic() - t_start, modules)
    print(json.dumps(summarize(mutants)["total"]), flush=True)
    return 0


def _write(args: argparse.Namespace, mutants: list[Mutant], n_all: int, measure_s: float, wall: float,
           modules: list[str]) -> None:
    doc = {
        "command": " ".join(sys.argv),
        "seed": args.seed, "sample_per_system": args.sample, "modules": modules, "tests": args.tests,
        "mode": args.mode, "mutants_enumerated": n_all, "measure_seconds": round(measure_s, 1),
        "wall_seconds": round(wall, 1), "summary": summarize(mutants), "mutants": [asdict(m) for m in mutants],
    }
    args.out.write_text(json.dumps(doc, ensure_ascii=False, indent=1), encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
