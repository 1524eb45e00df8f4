"""ラストフラグメント's standing answers (``engine.core.standing``): the vocabulary of each reaction window of §8, and
its ``default``, the spec's scripted default for that window (the scripted policy answers these windows with it).

Each resolver reads only the decision's options and context, which its actor may see.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.core.decision import Decision
from engine.core.standing import DEFAULT, StandingAnswer, always

__all__ = ["STANDING", "TITLES"]


def _ctx(d: Decision) -> Mapping[str, Any]:
    return d.context or {}


def item_request(d: Decision) -> Any:
    """check_item_request: the first item iff the effective dice (with tokens) would be 0, or a shock check with
    ≤ 1 die while the roller's abnormality Lv ≥ 3; one's own before another's (item_use_on_others); after a
    refusal (item_requests_per_check > 1) the next one."""
    c = _ctx(d)
    dice = int(c.get("dice_with_tokens", 1))
    if dice <= 0 or (c.get("check") == "shock" and dice <= 1 and int(c.get("abnormality_level", 0)) >= 3):
        own = [o for o in d.option_ids if o.startswith("item:")]
        lent = [o for o in d.option_ids if o.startswith("lend:")]
        return (own or lent or ["none"])[0]
    return "none"


def ability_choice(d: Decision) -> Any:
    """check_ability_choice: the higher level; ties: the designated ability."""
    levels: Mapping[str, int] = _ctx(d).get("levels") or {}
    best = d.option_ids[0]
    for o in d.option_ids[1:]:
        if levels.get(o, 0) > levels.get(best, 0):
            best = o
    return best


def token_spend(d: Decision) -> Any:
    """check_token_spend: max(0, 2 − dice) tokens (shock checks: max(0, 3 − dice)), as available."""
    c = _ctx(d)
    dice = int(c.get("dice", 0))
    want = max(0, (3 if c.get("check") == "shock" else 2) - dice)
    ks = [int(o) for o in d.option_ids]
    return str(min(want, max(ks)))


def _default(fn: Any, label: str) -> StandingAnswer:
    return StandingAnswer(DEFAULT, label, fn, fn.__doc__ or "")


STANDING: dict[str, tuple[StandingAnswer, ...]] = {
    "ck.item_request": (_default(item_request, "定石どおり: ダイスが0個になるとき（衝撃判定はダイス1個以下で異常Lv3以上のとき）だけアイテムを使う"),
                        always("none", "アイテムを使わない")),
    "ck.ability_choice": (_default(ability_choice, "定石どおり: レベルの高い異能で（同じなら指定された異能）"),),
    "ck.token_spend": (_default(token_spend, "定石どおり: ダイスが2個（衝撃判定は3個）になるまでトークンを使う"),
                       always("0", "トークンを使わない")),
}

#: each window's name, as a player reads it (the standing answers menu of the terminal and the browser)
TITLES: dict[str, str] = {
    "ck.item_request": "判定でのアイテム使用",
    "ck.ability_choice": "判定に使う異能",
    "ck.token_spend": "トークンの使用",
}
