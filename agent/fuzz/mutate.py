"""Seeded mutators for scenario files (YAML) and session logs (JSON lines): every mutation is a function of the input
bytes and a ``random.Random``, so a case's mutant is made again from its seed.

Scenario mutations: on the parsed YAML (delete, duplicate, rename or swap keys; change a value's type; huge,
negative and fractional numbers; long strings; nesting; empty containers; list items duplicated, dropped or
shuffled; an id reference changed), written back as YAML; and on the text (byte flips, truncation, invalid UTF-8, a
key line given twice, a YAML alias bomb, very deep flow nesting, NUL bytes, a BOM, CRLF line ends, tabs, an unsafe
tag, an undefined alias, a huge file).

Log mutations: lines dropped, duplicated, swapped, moved, cut, blank lines, CRLF; a field of an event edited (a
number, a string, a type, a key removed or added); forged events (an early end, a state change, a roll, an answer,
a decision, a fallback notice); the header edited (seed, versions, format, scenario path and hash, seats, rule
options); byte flips, invalid UTF-8, a huge line, a deeply nested line, NaN, a duplicate JSON key.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from typing import Any

import yaml

__all__ = ["mutate_scenario", "mutate_log", "SCENARIO_OPS", "LOG_OPS"]

Tree = Any
_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml where available: a mutant a millisecond
_Dumper: Any = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


# -- values ----------------------------------------------------------------------------------------------------------
_HUGE_NUMBERS = (10**30, 2**63, -(2**63) - 1, 10**100, 1e308, -1, -10**9, 0, 0.5, float("inf"))


def _odd_value(rng: random.Random, old: Any) -> Any:
    """A value of another kind than ``old`` (or a hostile one of the same kind)."""
    choices: list[Any] = [None, True, 0, -1, 10**30, 1.5, "", "x" * rng.choice((1, 100, 10_000)), [], {}, [old], {"a": old},
                          "ｘ" * 50, "\x00", "1", "true", "null"]
    if isinstance(old, bool):
        choices += ["yes", 1, 2]
    elif isinstance(old, int):
        choices += [old + 1, old - 1, -old, old * 1000, str(old), float(old)]
    elif isinstance(old, str):
        choices += [old + "_x", old[: len(old) // 2], old * 50, old.upper(), 5]
    elif isinstance(old, list):
        choices += [old * 50, old[:0], old[::-1], {str(i): v for i, v in enumerate(old)}]
    elif isinstance(old, dict):
        choices += [list(old.values()), list(old), {}]
    return rng.choice(choices)


def _slots(tree: Tree) -> list[tuple[Any, Any]]:
    """Every (container, key/index) of a parsed tree, each container once: YAML aliases load as one shared object,
    so a tree that an alias bomb made holds 9^9 paths but a few dozen containers (walking the paths took 13 GB)."""
    out: list[tuple[Any, Any]] = []
    stack = [tree]
    seen: set[int] = set()
    while stack:
        node = stack.pop()
        if isinstance(node, (dict, list)):
            if id(node) in seen:
                continue
            seen.add(id(node))
        if isinstance(node, dict):
            for k in node:
                out.append((node, k))
                stack.append(node[k])
        elif isinstance(node, list):
            for i in range(len(node)):
                out.append((node, i))
                stack.append(node[i])
    return out


def _containers(tree: Tree, kind: type) -> list[Any]:
    out = [tree] if isinstance(tree, kind) else []
    out += [c[k] for c, k in _slots(tree) if isinstance(c[k], kind)]
    return out


def _strings(tree: Tree) -> list[str]:
    return [c[k] for c, k in _slots(tree) if isinstance(c[k], str)]


# -- scenario, on the tree -------------------------------------------------------------------------------------------
def _t_delete_key(tree: Tree, rng: random.Random) -> str:
    d = rng.choice(_containers(tree, dict) or [{}])
    if not d:
        return "noop"
    k = rng.choice(list(d))
    del d[k]
    return f"delete key {k!r}"


def _t_duplicate_key(tree: Tree, rng: random.Random) -> str:
    d = rng.choice(_containers(tree, dict) or [{}])
    if not d:
        return "noop"
    k = rng.choice(list(d))
    d[f"{k}_copy"] = copy.deepcopy(d[k])
    return f"duplicate key {k!r}"


def _t_rename_key(tree: Tree, rng: random.Random) -> str:
    d = rng.choice(_containers(tree, dict) or [{}])
    if not d:
        return "noop"
    k = rng.choice(list(d))
    new = rng.choice([str(k).upper(), f"{k}s", f" {k}", "", "ｉｄ", 5])
    d[new] = d.pop(k)
    return f"rename key {k!r} to {new!r}"


def _t_swap_values(tree: Tree, rng: random.Random) -> str:
    slots = _slots(tree)
    if len(slots) < 2:
        return "noop"
    (c1, k1), (c2, k2) = rng.sample(slots, 2)
    try:
        c1[k1], c2[k2] = c2[k2], c1[k1]
    except (TypeError, KeyError, IndexError):
        return "noop"
    return f"swap {k1!r} and {k2!r}"


def _t_change_value(tree: Tree, rng: random.Random) -> str:
    slots = _slots(tree)
    if not slots:
        return "noop"
    c, k = rng.choice(slots)
    c[k] = _odd_value(rng, c[k])
    return f"change {k!r} to a {type(c[k]).__name__}"


def _t_number(tree: Tree, rng: random.Random) -> str:
    nums = [(c, k) for c, k in _slots(tree) if isinstance(c[k], (int, float)) and not isinstance(c[k], bool)]
    if not nums:
        return "noop"
    c, k = rng.choice(nums)
    c[k] = rng.choice(_HUGE_NUMBERS)
    return f"number {k!r} = {c[k]!r}"


def _t_long_string(tree: Tree, rng: random.Random) -> str:
    strs = [(c, k) for c, k in _slots(tree) if isinstance(c[k], str)]
    if not strs:
        return "noop"
    c, k = rng.choice(strs)
    n = rng.choice((1_000, 100_000, 1_000_000))
    c[k] = c[k] * max(1, n // max(1, len(c[k])))
    return f"string {k!r} × {n:,} chars"


def _t_nest(tree: Tree, rng: random.Random) -> str:
    slots = _slots(tree)
    if not slots:
        return "noop"
    c, k = rng.choice(slots)
    depth = rng.choice((2, 10, 70, 150))
    v = c[k]
    for _ in range(depth):
        v = [v] if rng.random() < 0.5 else {"a": v}
    c[k] = v
    return f"nest {k!r} {depth} deep"


def _t_empty(tree: Tree, rng: random.Random) -> str:
    conts = [(c, k) for c, k in _slots(tree) if isinstance(c[k], (list, dict)) and c[k]]
    if not conts:
        return "noop"
    c, k = rng.choice(conts)
    c[k] = type(c[k])()
    return f"empty {k!r}"


def _t_list_item(tree: Tree, rng: random.Random) -> str:
    lists = [x for x in _containers(tree, list) if x]
    if not lists:
        return "noop"
    lst = rng.choice(lists)
    op = rng.choice(("duplicate", "drop", "shuffle", "repeat"))
    i = rng.randrange(len(lst))
    if op == "duplicate":
        lst.insert(i, copy.deepcopy(lst[i]))
    elif op == "drop":
        lst.pop(i)
    elif op == "shuffle":
        rng.shuffle(lst)
    else:
        lst.extend(copy.deepcopy(lst[i]) for _ in range(rng.choice((10, 1000))))
    return f"{op} a list item"


def _t_reference(tree: Tree, rng: random.Random) -> str:
    """Point an id-like string (a reference) at something that does not exist, or at another id."""
    strs = [(c, k) for c, k in _slots(tree) if isinstance(c[k], str) and c[k].isascii() and 0 < len(c[k]) < 40
            and " " not in c[k]]
    if not strs:
        return "noop"
    c, k = rng.choice(strs)
    others = [s for s in _strings(tree) if s.isascii() and len(s) < 40 and " " not in s]
    c[k] = rng.choice([c[k] + "_nowhere", rng.choice(others) if others else "x", "gm", ""])
    return f"reference {k!r} = {c[k]!r}"


TREE_OPS: dict[str, Callable[[Tree, random.Random], str]] = {
    "delete_key": _t_delete_key, "duplicate_key": _t_duplicate_key, "rename_key": _t_rename_key,
    "swap_values": _t_swap_values, "change_value": _t_change_value, "number": _t_number, "long_string": _t_long_string,
    "nest": _t_nest, "empty": _t_empty, "list_item": _t_list_item, "reference": _t_reference,
}


# -- scenario, on the text -------------------------------------------------------------------------------------------
def _b_flip(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    b = bytearray(data)
    n = rng.choice((1, 3, 20))
    for _ in range(n):
        if b:
            i = rng.randrange(len(b))
            b[i] ^= 1 << rng.randrange(8)
    return bytes(b), f"flip {n} bits"


def _b_truncate(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    n = rng.randrange(len(data) + 1) if data else 0
    return data[:n], f"truncate at byte {n}"


def _b_invalid_utf8(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    i = rng.randrange(len(data) + 1)
    bad = rng.choice((b"\xff", b"\xc3", b"\xe3\x81", b"\xed\xa0\x80", b"\xf8\x88\x80\x80\x80"))
    return data[:i] + bad + data[i:], f"invalid UTF-8 {bad!r} at byte {i}"


def _lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")


def _b_duplicate_key_line(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    lines = _lines(data)
    keyed = [i for i, x in enumerate(lines) if b":" in x and not x.lstrip().startswith((b"#", b"-"))]
    if not keyed:
        return data, "noop"
    i = rng.choice(keyed)
    lines.insert(i + 1, lines[i])
    return b"\n".join(lines), f"key line {i + 1} given twice"


_BOMB = "\n".join(
    ["lol0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    + [f"lol{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]" for i in range(1, 9)]
).encode()


def _b_alias_bomb(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    return data.rstrip(b"\n") + b"\n" + _BOMB + b"\n", "YAML alias bomb (9^9 values)"


def _b_deep(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    n = rng.choice((100, 1_000, 10_000, 100_000))
    return data.rstrip(b"\n") + b"\ndeep: " + b"[" * n + b"]" * n + b"\n", f"flow nesting {n:,} deep"


def _b_nul(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    i = rng.randrange(len(data) + 1)
    return data[:i] + b"\x00" + data[i:], f"NUL at byte {i}"


def _b_bom(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    return b"\xef\xbb\xbf" + data, "UTF-8 BOM"


def _b_crlf(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    return data.replace(b"\n", b"\r\n"), "CRLF line ends"


def _b_tabs(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    lines = _lines(data)
    idx = [i for i, x in enumerate(lines) if x.startswith(b"  ")]
    if not idx:
        return data, "noop"
    i = rng.choice(idx)
    lines[i] = b"\t" + lines[i][2:]
    return b"\n".join(lines), f"tab indent at line {i + 1}"


def _b_unsafe_tag(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    tag = rng.choice((b"!!python/object/apply:os.system ['echo pwned']", b"!!python/name:os.system", b"!<tag:x> 1"))
    return data.rstrip(b"\n") + b"\nevil: " + tag + b"\n", "unsafe YAML tag"


def _b_undefined_alias(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    return data.rstrip(b"\n") + b"\nghost: *nowhere\n", "undefined alias"


def _b_huge(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    n = rng.choice((1, 20))
    return data + b"# " + b"x" * (n * 1024 * 1024) + b"\n", f"{n} MB comment"


TEXT_OPS: dict[str, Callable[[bytes, random.Random], tuple[bytes, str]]] = {
    "flip": _b_flip, "truncate": _b_truncate, "invalid_utf8": _b_invalid_utf8, "duplicate_key_line": _b_duplicate_key_line,
    "alias_bomb": _b_alias_bomb, "deep_flow": _b_deep, "nul": _b_nul, "bom": _b_bom, "crlf": _b_crlf, "tabs": _b_tabs,
    "unsafe_tag": _b_unsafe_tag, "undefined_alias": _b_undefined_alias, "huge": _b_huge,
}
SCENARIO_OPS = tuple(TREE_OPS) + tuple(TEXT_OPS)


def mutate_scenario(data: bytes, rng: random.Random) -> tuple[bytes, list[str]]:
    """A mutant of a scenario file: 1–3 mutations, each on the tree (while the text still parses) or on the text."""
    done: list[str] = []
    for _ in range(rng.choice((1, 1, 1, 2, 3))):
        tree = None
        if rng.random() < 0.6:
            try:
                tree = yaml.load(data, Loader=_Loader)  # noqa: S506 (a safe loader)
            except (yaml.YAMLError, ValueError, RecursionError):
                tree = None
        if isinstance(tree, dict):
            name = rng.choice(sorted(TREE_OPS))
            what = TREE_OPS[name](tree, rng)
            try:
                data = yaml.dump(tree, Dumper=_Dumper, allow_unicode=True, sort_keys=False, width=200).encode("utf-8")
            except (yaml.YAMLError, RecursionError, ValueError):
                what = "noop (could not write the YAML back)"
        else:
            name = rng.choice(sorted(TEXT_OPS))
            data, what = TEXT_OPS[name](data, rng)
        done.append(f"{name}: {what}")
    return data, done


# -- logs ------------------------------------------------------------------------------------------------------------
def _event_lines(lines: list[bytes]) -> list[int]:
    return [i for i in range(1, len(lines)) if lines[i]]


def _l_drop(lines: list[bytes], rng: random.Random) -> str:
    idx = list(range(len(lines)))
    i = rng.choice(idx)
    lines.pop(i)
    return f"drop line {i + 1}"


def _l_duplicate(lines: list[bytes], rng: random.Random) -> str:
    i = rng.randrange(len(lines))
    lines.insert(i, lines[i])
    return f"duplicate line {i + 1}"


def _l_swap(lines: list[bytes], rng: random.Random) -> str:
    if len(lines) < 3:
        return "noop"
    i = rng.randrange(1, len(lines) - 1)
    lines[i], lines[i + 1] = lines[i + 1], lines[i]
    return f"swap lines {i + 1} and {i + 2}"


def _l_move(lines: list[bytes], rng: random.Random) -> str:
    if len(lines) < 3:
        return "noop"
    i = rng.randrange(1, len(lines))
    x = lines.pop(i)
    j = rng.randrange(1, len(lines) + 1)
    lines.insert(j, x)
    return f"move line {i + 1} to {j + 1}"


def _l_blank(lines: list[bytes], rng: random.Random) -> str:
    i = rng.randrange(len(lines) + 1)
    lines.insert(i, rng.choice((b"", b" ", b"\r", b"{}", b"null", b"[]", b"garbage")))
    return f"insert a junk line at {i + 1}"


def _edit_json(obj: Any, rng: random.Random) -> str:
    slots = _slots(obj)
    if not slots:
        return "noop"
    c, k = rng.choice(slots)
    op = rng.random()
    if op < 0.15 and isinstance(c, dict):
        del c[k]
        return f"remove {k!r}"
    if op < 0.3 and isinstance(c, dict):
        c[f"{k}_x"] = 1
        return f"add {k}_x"
    old = c[k]
    if isinstance(old, bool):
        c[k] = not old
    elif isinstance(old, int) and rng.random() < 0.6:
        c[k] = old + rng.choice((1, -1, 10**20, -old - 1))
    elif isinstance(old, str) and rng.random() < 0.6:
        c[k] = rng.choice((old + "x", old[:-1], old.upper(), "", "x" * 100_000))
    else:
        c[k] = _odd_value(rng, old)
    return f"edit {k!r}"


def _l_edit(lines: list[bytes], rng: random.Random) -> str:
    idx = _event_lines(lines) or [0]
    i = rng.choice(idx)
    try:
        obj = json.loads(lines[i])
    except ValueError:
        return "noop"
    what = _edit_json(obj, rng)
    lines[i] = json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode()
    return f"line {i + 1} ({obj.get('type') if isinstance(obj, dict) else '?'}): {what}"


def _l_header(lines: list[bytes], rng: random.Random) -> str:
    try:
        h = json.loads(lines[0])
    except (ValueError, IndexError):
        return "noop"
    if not isinstance(h, dict):
        return "noop"
    edits: list[tuple[str, Callable[[dict[str, Any]], None]]] = [
        ("seed+1", lambda x: x.__setitem__("seed", int(x.get("seed", 0)) + 1)),
        ("system_version", lambda x: x.__setitem__("system_version", "9.9.9")),
        ("format", lambda x: x.__setitem__("format", rng.choice((1, 3, 99, "2", None)))),
        ("system", lambda x: x.__setitem__("system", rng.choice(("nope", "", 5)))),
        ("scenario_path", lambda x: x.__setitem__("scenario_path", rng.choice(("/nonexistent.yaml", "/etc/passwd", "/", "")))),
        ("scenario_sha256", lambda x: x.__setitem__("scenario_sha256", "0" * 64)),
        ("seats:human", lambda x: x.__setitem__("seats", {"all": "human"})),
        ("seats:llm", lambda x: x.__setitem__("seats", {"all": "llm:gpt-4o-mini"})),
        ("seats:junk", lambda x: x.__setitem__("seats", {"all": "nope", "x": ""})),
        ("config:unknown", lambda x: x.__setitem__("config", {"no_such_flag": 1})),
        ("config:bad", lambda x: x.__setitem__("config", {k: 12345 for k in list(x.get("config") or {"heal_cap": 0})})),
        ("options", lambda x: x.__setitem__("options", {"create_pcs": True, "pc_count": 10**6})),
        ("forced_dice", lambda x: x.__setitem__("forced_dice", [7, -1, "x"])),
        ("package_version", lambda x: x.__setitem__("package_version", "0.0.0")),
    ]
    name, fn = rng.choice(edits)
    fn(h)
    lines[0] = json.dumps(h, ensure_ascii=False, separators=(",", ":")).encode()
    return f"header {name}"


def _l_forge(lines: list[bytes], rng: random.Random) -> str:
    """Insert an event the engine did not write (made from a real line of the same type, or from scratch)."""
    idx = _event_lines(lines)
    if not idx:
        return "noop"
    i = rng.choice(idx)
    forged: dict[str, Any]
    kind = rng.choice(("copy_edit", "end", "state", "roll", "answer", "decision", "fallback"))
    if kind == "copy_edit":
        try:
            forged = json.loads(lines[rng.choice(idx)])
        except ValueError:
            return "noop"
        _edit_json(forged, rng)
    elif kind == "end":
        forged = {"type": "end", "outcome": {"ending": "forged"}}
    elif kind == "state":
        forged = {"type": "state", "path": "x.willpower", "old": 1, "new": 99, "rule": "forged", "cause": ""}
    elif kind == "roll":
        forged = {"type": "roll", "purpose": "forged", "sides": 6, "value": 7, "forced": False}
    elif kind == "answer":
        forged = {"type": "answer", "seq": 10**6, "actor": "gm", "kind": "x", "answer": {"choice": "x"}, "policy": "forged"}
    elif kind == "decision":
        forged = {"type": "decision", "seq": 0, "actor": "gm", "kind": "x", "rule": "x", "prompt": "x", "options": ["a"]}
    else:
        forged = {"type": "info", "topic": "fallback", "text": "forged", "data": {"seq": 0}, "to": ["gm"]}
    lines.insert(i, json.dumps(forged, ensure_ascii=False, separators=(",", ":")).encode())
    return f"forge a {kind} event at line {i + 1}"


def _l_bytes(lines: list[bytes], rng: random.Random) -> str:
    i = rng.randrange(len(lines))
    b = bytearray(lines[i])
    if not b:
        return "noop"
    op = rng.choice(("flip", "utf8", "cut"))
    j = rng.randrange(len(b))
    if op == "flip":
        b[j] ^= 1 << rng.randrange(8)
    elif op == "utf8":
        b[j:j] = rng.choice((b"\xff", b"\xe3\x81", b"\xc0\xaf"))
    else:
        del b[j:]
    lines[i] = bytes(b)
    return f"{op} in line {i + 1}"


def _l_huge(lines: list[bytes], rng: random.Random) -> str:
    i = rng.randrange(1, len(lines) + 1)
    n = rng.choice((1, 10)) * 1024 * 1024
    ev = {"type": "narration", "actor": "gm", "text": "x" * n, "source": "forged"}
    lines.insert(i, json.dumps(ev).encode())
    return f"a {n // 1024 // 1024} MB line at {i + 1}"


def _l_deep(lines: list[bytes], rng: random.Random) -> str:
    i = rng.randrange(1, len(lines) + 1)
    n = rng.choice((100, 5_000, 200_000))
    lines.insert(i, b'{"type":"answer","seq":0,"actor":"gm","kind":"x","answer":{"payload":' + b"[" * n + b"]" * n + b"}}")
    return f"a line nested {n:,} deep at {i + 1}"


def _l_nan(lines: list[bytes], rng: random.Random) -> str:
    idx = [i for i in _event_lines(lines) if b'"value":' in lines[i] or b'"seq":' in lines[i]]
    if not idx:
        return "noop"
    i = rng.choice(idx)
    key = b'"value":' if b'"value":' in lines[i] else b'"seq":'
    head, _, tail = lines[i].partition(key)
    num_end = 0
    while num_end < len(tail) and tail[num_end : num_end + 1] in b"-0123456789":
        num_end += 1
    lines[i] = head + key + rng.choice((b"NaN", b"Infinity", b"1e999", b"-0", b"1.0")) + tail[num_end:]
    return f"odd number in line {i + 1}"


def _l_dup_json_key(lines: list[bytes], rng: random.Random) -> str:
    idx = _event_lines(lines)
    if not idx:
        return "noop"
    i = rng.choice(idx)
    line = lines[i]
    if not line.startswith(b"{"):
        return "noop"
    lines[i] = b'{"type":"roll",' + line[1:] if rng.random() < 0.5 else line[:-1] + b',"seq":0}'
    return f"a JSON key twice in line {i + 1}"


LINE_OPS: dict[str, Callable[[list[bytes], random.Random], str]] = {
    "drop": _l_drop, "duplicate": _l_duplicate, "swap": _l_swap, "move": _l_move, "junk_line": _l_blank,
    "edit": _l_edit, "header": _l_header, "forge": _l_forge, "bytes": _l_bytes, "huge_line": _l_huge,
    "deep_line": _l_deep, "odd_number": _l_nan, "duplicate_json_key": _l_dup_json_key,
}


def _w_truncate(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    n = rng.randrange(len(data) + 1)
    return data[:n], f"truncate at byte {n:,} of {len(data):,}"


def _w_crlf(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    return data.replace(b"\n", b"\r\n"), "CRLF line ends"


def _w_garbage(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    return data + rng.choice((b"garbage", b"\x00" * 100, b'{"type":"end"', b"\n\n\n")), "garbage at the end"


WHOLE_OPS: dict[str, Callable[[bytes, random.Random], tuple[bytes, str]]] = {
    "truncate": _w_truncate, "crlf": _w_crlf, "garbage": _w_garbage,
}
LOG_OPS = tuple(LINE_OPS) + tuple(f"whole:{k}" for k in WHOLE_OPS)


def mutate_log(data: bytes, rng: random.Random) -> tuple[bytes, list[str]]:
    """A mutant of a log: 1–3 mutations of its lines (or of the whole file: truncation, CRLF, garbage)."""
    done: list[str] = []
    for _ in range(rng.choice((1, 1, 1, 2, 3))):
        if rng.random() < 0.15:
            name = rng.choice(sorted(WHOLE_OPS))
            data, what = WHOLE_OPS[name](data, rng)
            done.append(f"{name}: {what}")
            continue
        ends = data.endswith(b"\n")
        lines = data.split(b"\n")
        if ends:
            lines.pop()
        if not lines:
            lines = [b""]
        name = rng.choice(sorted(LINE_OPS))
        what = LINE_OPS[name](lines, rng)
        data = b"\n".join(lines) + (b"\n" if ends else b"")
        done.append(f"{name}: {what}")
    return data, done
