"""The Condition DSL of rules/last_fragment.md Appendix B.5 (unlock conditions, trigger conditions).

A condition is written in a scenario file either as text, as the spec writes it::

    unlock: "visited(s2) and fragment_held(f3, any_pc)"

or as YAML mappings (``{and: [{visited: s2}, {fragment_held: {id: f3, by: any_pc}}]}``). Both are parsed into one
canonical tree of plain dicts (``{"op": "visited", "id": "s2"}``), which is what the engine evaluates. ``true`` /
empty means "always". Conditions are never shown to players (WIKI).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

__all__ = ["parse_condition", "condition_refs", "evaluate", "ATOMS", "condition_text"]

#: atom → its argument names (the first is required)
ATOMS: dict[str, tuple[str, ...]] = {
    "fragment_held": ("id", "by"),
    "visited": ("id",),
    "investigated": ("id", "success"),
    "item_held": ("item", "by"),
    "flag": ("name",),
}
_DEFAULTS: dict[str, dict[str, Any]] = {"fragment_held": {"by": "any_pc"}, "investigated": {"success": True}, "item_held": {"by": "any_pc"}}
_TOKEN = re.compile(r"\s*(?:(\()|(\))|(,)|(=)|'([^']*)'|\"([^\"]*)\"|([^\s(),=]+))")


def _atom(op: str, args: list[Any], kw: dict[str, Any]) -> dict[str, Any]:
    names = ATOMS[op]
    out: dict[str, Any] = {"op": op}
    out.update(_DEFAULTS.get(op, {}))
    if len(args) > len(names):
        raise ValueError(f"{op}(...) takes at most {len(names)} arguments ({', '.join(names)})")
    for n, a in zip(names, args):
        out[n] = a
    for k, v in kw.items():
        if k not in names:
            raise ValueError(f"{op}(...) has no argument {k!r} (arguments: {', '.join(names)})")
        out[k] = v
    if names[0] not in out or out[names[0]] in (None, ""):
        raise ValueError(f"{op}(...) needs its {names[0]}")
    if "success" in out:
        s = out["success"]
        if isinstance(s, str):
            if s.lower() not in ("true", "false"):
                raise ValueError(f"investigated(...): success must be true or false, not {s!r}")
            out["success"] = s.lower() == "true"
    for k in ("id", "by", "item", "name"):
        if k in out and not isinstance(out[k], str):
            raise ValueError(f"{op}(...): {k} must be text, not {out[k]!r}")
    return out


class _Parser:
    def __init__(self, text: str):
        self.toks: list[tuple[str, str]] = []
        pos = 0
        text = text.strip()
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if m is None or m.end() == pos:
                raise ValueError(f"cannot read the condition at {text[pos:pos + 20]!r}")
            pos = m.end()
            if m.group(1):
                self.toks.append(("(", "("))
            elif m.group(2):
                self.toks.append((")", ")"))
            elif m.group(3):
                self.toks.append((",", ","))
            elif m.group(4):
                self.toks.append(("=", "="))
            elif m.group(5) is not None or m.group(6) is not None:
                self.toks.append(("str", m.group(5) if m.group(5) is not None else m.group(6)))
            else:
                self.toks.append(("word", m.group(7)))
        self.i = 0

    def peek(self) -> tuple[str, str]:
        return self.toks[self.i] if self.i < len(self.toks) else ("end", "")

    def take(self, kind: str | None = None, value: str | None = None) -> tuple[str, str]:
        t = self.peek()
        if t[0] == "end" or (kind and t[0] != kind) or (value and t[1] != value):
            want = value or kind or "more"
            raise ValueError(f"condition: expected {want!r}, found {t[1] if t[0] != 'end' else 'the end'!r}")
        self.i += 1
        return t

    def expr(self) -> dict[str, Any]:
        items = [self.term()]
        while self.peek() == ("word", "or"):
            self.i += 1
            items.append(self.term())
        return items[0] if len(items) == 1 else {"op": "or", "items": items}

    def term(self) -> dict[str, Any]:
        items = [self.factor()]
        while self.peek() == ("word", "and"):
            self.i += 1
            items.append(self.factor())
        return items[0] if len(items) == 1 else {"op": "and", "items": items}

    def factor(self) -> dict[str, Any]:
        t = self.peek()
        if t == ("word", "not"):
            self.i += 1
            return {"op": "not", "item": self.factor()}
        if t[0] == "(":
            self.i += 1
            e = self.expr()
            self.take(")")
            return e
        word = self.take("word")[1]
        if word in ("true", "false"):
            return {"op": word}
        if word not in ATOMS:
            raise ValueError(f"condition: unknown test {word!r}; tests: {', '.join(ATOMS)}, and, or, not")
        self.take("(")
        args: list[Any] = []
        kw: dict[str, Any] = {}
        while self.peek()[0] not in (")", "end"):
            tok = self.take()
            if tok[0] not in ("word", "str"):
                raise ValueError(f"condition: {word}(...): unexpected {tok[1]!r}")
            if self.peek()[0] == "=":
                self.i += 1
                kw[tok[1]] = self.take()[1]
            else:
                args.append(tok[1])
            if self.peek()[0] == ",":
                self.i += 1
        self.take(")")
        return _atom(word, args, kw)


def parse_condition(raw: Any) -> dict[str, Any]:
    """A condition as written (text, mapping, bool, None) → its canonical tree; ValueError naming the problem."""
    if raw is None or raw is True:
        return {"op": "true"}
    if raw is False:
        return {"op": "false"}
    if isinstance(raw, str):
        p = _Parser(raw)
        if not p.toks:
            return {"op": "true"}
        e = p.expr()
        if p.peek()[0] != "end":
            raise ValueError(f"condition: unexpected {p.peek()[1]!r} after a complete condition")
        return e
    if isinstance(raw, list):
        return {"op": "and", "items": [parse_condition(x) for x in raw]}
    if isinstance(raw, dict):
        if "op" in raw:  # already canonical
            op = raw["op"]
            if op in ("and", "or"):
                return {"op": op, "items": [parse_condition(x) for x in raw.get("items", [])]}
            if op == "not":
                return {"op": "not", "item": parse_condition(raw.get("item"))}
            if op in ("true", "false"):
                return {"op": op}
            if op in ATOMS:
                return _atom(op, [], {k: v for k, v in raw.items() if k != "op"})
            raise ValueError(f"condition: unknown test {op!r}")
        if len(raw) != 1:
            raise ValueError(f"condition: a mapping names one test (and, or, not, {', '.join(ATOMS)}); got "
                             f"{', '.join(map(str, raw)) or 'none'}")
        (op, arg), = raw.items()
        if op in ("and", "or"):
            if not isinstance(arg, list):
                raise ValueError(f"condition: {op} takes a list")
            return {"op": op, "items": [parse_condition(x) for x in arg]}
        if op == "not":
            return {"op": "not", "item": parse_condition(arg)}
        if op not in ATOMS:
            raise ValueError(f"condition: unknown test {op!r}; tests: {', '.join(ATOMS)}, and, or, not")
        if isinstance(arg, dict):
            return _atom(op, [], arg)
        if isinstance(arg, list):
            return _atom(op, list(arg), {})
        return _atom(op, [arg], {})
    raise ValueError(f"condition: cannot read {raw!r} (text, a mapping, true/false)")


def condition_refs(c: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(test, argument, value) of every reference in a condition (for cross-reference checks)."""
    op = c["op"]
    if op in ("and", "or"):
        return [r for x in c["items"] for r in condition_refs(x)]
    if op == "not":
        return condition_refs(c["item"])
    if op in ATOMS:
        return [(op, k, c[k]) for k in ATOMS[op] if k in c and isinstance(c[k], str)]
    return []


def evaluate(c: dict[str, Any], atom: Callable[[dict[str, Any]], bool]) -> bool:
    op = c["op"]
    if op == "true":
        return True
    if op == "false":
        return False
    if op == "and":
        return all(evaluate(x, atom) for x in c["items"])
    if op == "or":
        return any(evaluate(x, atom) for x in c["items"])
    if op == "not":
        return not evaluate(c["item"], atom)
    return atom(c)


def condition_text(c: dict[str, Any]) -> str:
    op = c["op"]
    if op in ("true", "false"):
        return op
    if op in ("and", "or"):
        return "(" + f" {op} ".join(condition_text(x) for x in c["items"]) + ")"
    if op == "not":
        return f"not {condition_text(c['item'])}"
    return f"{op}(" + ", ".join(f"{c[k]}" for k in ATOMS[op] if k in c) + ")"
