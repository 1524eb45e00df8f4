"""「A」's standing answers (``engine.core.standing``): the vocabulary of each reaction window of §8, and its
``default``, the spec's scripted default for that window (D22, D23; the scripted policy answers these windows with
it).

Each resolver reads only the decision's options and context, which its actor may see.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.core.decision import Decision
from engine.core.standing import DEFAULT, StandingAnswer, always

from .odds import choose_fixed
from ...core.standing import first_of as _first

__all__ = ["STANDING", "TITLES"]


def _ctx(d: Decision) -> Mapping[str, Any]:
    return d.context or {}


def _fix_option(d: Decision, f: int) -> str:
    return "roll" if f <= 0 else _first(d, f"fix:{f}", "roll")


def fixed(d: Decision) -> Any:
    """D22: the actor the closed form of §9.6 (an opposed roll before the difficulty is known: D_est = 2·N_opp); the
    opposing side fixes every die."""
    c = _ctx(d)
    n = int(c.get("n", 0))
    if c.get("role") == "opponent":
        return _fix_option(d, n)
    target = c.get("difficulty") if c.get("difficulty") is not None else c.get("d_est")
    return _fix_option(d, choose_fixed(n, int(target if target is not None else 1)))


def greed(d: Decision) -> Any:
    """D23: the actor stops on a success and otherwise rolls every allowed die; the opposing side never."""
    c = _ctx(d)
    if c.get("role") == "opponent" or c.get("result_now") == "success":
        return "stop"
    return _first(d, f"greed:{c.get('avail')}", "stop")


def _default(fn: Any, label: str) -> StandingAnswer:
    return StandingAnswer(DEFAULT, label, fn, fn.__doc__ or "")


STANDING: dict[str, tuple[StandingAnswer, ...]] = {
    "ck.fixed": (_default(fixed, "定石どおり: 成功の見込みがいちばん高くなるだけダイスを固定する（相手側はすべて固定）"),
                 always("roll", "ダイスを固定しない")),
    "ck.greed": (_default(greed, "定石どおり: 成功したら止め、失敗ならできるだけ振り足す（相手側は振らない）"),
                 always("stop", "振り足さない")),
}

#: each window's name, as a player reads it (the standing answers menu of the terminal and the browser)
TITLES: dict[str, str] = {
    "ck.fixed": "ダイスの固定",
    "ck.greed": "振り足し（欲張り）",
}
