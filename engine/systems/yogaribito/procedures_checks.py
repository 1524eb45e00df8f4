"""Procedures of the checks part (rules/yogaribito.md §5, §7.7.2–§7.9) for worked examples (``trpg examples``).

Each procedure is ``fn(game, args) -> Gen`` returning a dict merged into the session outcome (``result`` is what
``expect.result`` compares). Dispatch and ``setup`` are in procedures.py.

| procedure | arguments | result |
|---|---|---|
| `check` | `actor`, `kind` (default generic), `ability` (not for defense), `target` (1), `label`, `context`, `pay` (a feat id paid first, §5.7), `opponent` ({ach, crit}: the active result a passive side must beat, D28) | success (bool); `check` = the CheckResult summary |
| `opposed` | `active`, `passive`, `a_kind` (generic), `a_ability`, `p_kind` (generic), `p_ability`, `need_winner` (true), `a_context`, `p_context`, `pay` (active's feat, paid first) | `active` / `passive` / `draw`; `active_check`, `passive_check` |
| `pay_cost` | `actor`, `feat` | paid (bool) |
| `apply_damage` | `target`, `amount`, `stat` (life), `special` (false) | the target's {life, soul, awakened, incapacitated, dead} |
| `heal` | `target`, `stat` (life), `amount` | the amount healed |
| `inflict` | `target`, `status`, `inflicter`, `item` | the target's statuses |
| `scene_end` | `chars` (default: every character) | null |
| `steps` | `steps`: a list of one-key mappings {procedure: args} (any procedure, in order) | the list of results |
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .base import Gen
from .checks import CHECK_KIND_JP, CheckResult

if TYPE_CHECKING:
    from .game import YogaribitoGame

__all__ = ["PROCEDURES"]


def _char(game: YogaribitoGame, cid: str, what: str) -> Any:
    if cid not in game.t.chars:
        raise ValueError(f"{what}: unknown character {cid!r}")
    return game.t.chars[cid]


def _pay(game: YogaribitoGame, c: Any, feat: str | None) -> Gen:
    """Pay a feat's cost before its check (§5.7). Returns (ok, reason)."""
    if not feat:
        return True, None
    why = game.feat_usable(c, feat)
    if why is not None:
        return False, why
    paid = yield from game.pay_feat_cost(c, feat)
    if not paid:
        return False, "cost"
    if game.action_cancelled(c):
        return False, "cancelled (cost_zero_action_resolves = false)"
    return True, None


def proc_check(game: YogaribitoGame, a: dict[str, Any]) -> Gen:
    c = _char(game, a["actor"], "check.actor")
    kind = a.get("kind", "generic")
    ok, why = yield from _pay(game, c, a.get("pay"))
    if not ok:
        return {"result": None, "cancelled": why}
    opp = None
    if a.get("opponent") is not None:
        o = a["opponent"]
        opp = CheckResult("opponent", "hit", None, 1, 0, [], int(o.get("ach", 0)), bool(o.get("crit", False)), True,
                          False, False, {}, None, [])
    res = yield from game.run_check(c, kind, a.get("ability"), int(a.get("target", 1)),
                                    label=a.get("label", CHECK_KIND_JP.get(kind, "判定")), rule=a.get("rule", "§5.2"),
                                    context=dict(a.get("context") or {}), opponent=opp)
    return {"result": None if res.cancelled else res.success, "check": res.summary()}


def proc_opposed(game: YogaribitoGame, a: dict[str, Any]) -> Gen:
    act = _char(game, a["active"], "opposed.active")
    pas = _char(game, a["passive"], "opposed.passive")
    ok, why = yield from _pay(game, act, a.get("pay"))
    if not ok:
        return {"result": None, "cancelled": why}
    r = yield from game.opposed(act, a.get("a_kind", "generic"), a.get("a_ability"), pas, a.get("p_kind", "generic"),
                                a.get("p_ability"), label=a.get("label", "対決"), rule=a.get("rule", "§5.5"),
                                need_winner=bool(a.get("need_winner", True)),
                                a_context=dict(a.get("a_context") or {}), p_context=dict(a.get("p_context") or {}))
    return {"result": None if r.active.cancelled else r.winner, "active_check": r.active.summary(),
            "passive_check": r.passive.summary() if r.passive is not None else None}


def proc_pay_cost(game: YogaribitoGame, a: dict[str, Any]) -> Gen:
    c = _char(game, a["actor"], "pay_cost.actor")
    ok, why = yield from _pay(game, c, a["feat"])
    return {"result": ok, **({"reason": why} if why else {})}


def _vitals(c: Any) -> dict[str, Any]:
    return {"life": c.current.get("life", 0), "soul": c.current.get("soul", 0), "awakened": c.awakened,
            "incapacitated": c.incapacitated, "dead": c.dead}


def proc_apply_damage(game: YogaribitoGame, a: dict[str, Any]) -> Gen:
    c = _char(game, a["target"], "apply_damage.target")
    yield from game.damage(c, int(a["amount"]), a.get("stat", "life"), rule=a.get("rule", "§7.7"),
                           cause=a.get("cause", "procedure"), special=bool(a.get("special", False)))
    return {"result": _vitals(c)}


def proc_heal(game: YogaribitoGame, a: dict[str, Any]) -> Gen:
    c = _char(game, a["target"], "heal.target")
    n = game.heal(c, a.get("stat", "life"), int(a["amount"]), rule=a.get("rule", "§7.7"),
                  cause=a.get("cause", "procedure"))
    if False:  # pragma: no cover - makes this function a generator like every procedure
        yield
    return {"result": n}


def proc_inflict(game: YogaribitoGame, a: dict[str, Any]) -> Gen:
    c = _char(game, a["target"], "inflict.target")
    game.inflict(c, a["status"], a.get("inflicter"), rule=a.get("rule", "§7.9"), item=a.get("item"))
    if False:  # pragma: no cover
        yield
    return {"result": {k: list(v) for k, v in c.statuses.items()}}


def proc_scene_end(game: YogaribitoGame, a: dict[str, Any]) -> Gen:
    for cid in a.get("chars") or list(game.t.chars):
        game.end_of_scene_for(_char(game, cid, "scene_end.chars"))
    if False:  # pragma: no cover
        yield
    return {"result": None}


def proc_steps(game: YogaribitoGame, a: dict[str, Any]) -> Gen:
    from .procedures import run_procedure

    results = []
    for step in a.get("steps") or []:
        out = yield from run_procedure(game, step)
        results.append(out.get("result"))
    return {"result": results}


PROCEDURES = {
    "check": proc_check,
    "opposed": proc_opposed,
    "pay_cost": proc_pay_cost,
    "apply_damage": proc_apply_damage,
    "heal": proc_heal,
    "inflict": proc_inflict,
    "scene_end": proc_scene_end,
    "steps": proc_steps,
}
