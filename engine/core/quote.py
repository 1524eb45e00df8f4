"""Measuring and quoting outside input without paying for its size: a scenario file or an answer may be huge, or
nested thousands of levels deep (YAML aliases, a pasted JSON), and an error message must stay one short paragraph."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["measure", "brief"]


def measure(value: Any, cap: int = 2_000_000) -> tuple[int, int]:
    """(number of values, nesting depth) of ``value`` as it expands (a value shared through YAML aliases counts
    every time it appears), without expanding it: each distinct object is measured once, iteratively."""
    sizes: dict[int, tuple[int, int]] = {}
    stack: list[tuple[Any, bool]] = [(value, False)]
    while stack:
        x, done = stack.pop()
        if not isinstance(x, (dict, list)):
            continue
        key = id(x)
        if key in sizes and not done:
            continue
        kids = list(x.values()) if isinstance(x, dict) else x
        if not done:
            sizes[key] = (0, 0)  # a cycle back to x counts as a leaf
            stack.append((x, True))
            stack.extend((k, False) for k in kids if isinstance(k, (dict, list)))
            continue
        n, depth = 1, 1
        for k in kids:
            if isinstance(k, (dict, list)):
                kn, kd = sizes.get(id(k), (1, 1))
                n += kn
                depth = max(depth, kd + 1)
            else:
                n += 1
            if n > cap:  # enough to refuse: stop adding up
                break
        sizes[key] = (n, depth)
    return sizes.get(id(value), (1, 1)) if isinstance(value, (dict, list)) else (1, 0)


def brief(value: Any, limit: int = 60) -> str:
    """``value`` as JSON, cut to ``limit`` characters without serialising more of it than that (a refusal never
    pays for, or echoes, a huge input)."""
    out: list[str] = []
    size = 0
    stack: list[Any] = [value]
    while stack and size <= limit:
        x = stack.pop()
        if isinstance(x, _Tok):
            piece = str(x)
        elif isinstance(x, dict):
            items: list[Any] = []
            for i, (k, v) in enumerate(x.items()):
                items += [_Tok(", ")] if i else []
                items += [_Tok(json.dumps(str(k), ensure_ascii=False)[:limit] + ": "), v]
            stack += [_Tok("}")] + items[::-1]
            piece = "{"
        elif isinstance(x, (list, tuple)):
            items = []
            for i, v in enumerate(x):
                items += [_Tok(", ")] if i else []
                items.append(v)
                if len(items) > limit:
                    break
            stack += [_Tok("]")] + items[::-1]
            piece = "["
        else:
            piece = json.dumps(x, ensure_ascii=False, default=str)[: limit + 1]
        out.append(piece)
        size += len(piece)
    text = "".join(out)
    return text if len(text) <= limit and not stack else text[: limit - 3] + "..."


class _Tok(str):
    """A piece of JSON punctuation in ``brief``'s stack (not a string value)."""
