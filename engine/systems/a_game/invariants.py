"""「A」's invariants for ``trpg fuzz`` (``SystemInfo.invariants``): what must hold at every decision and at the end
of any game, whatever the seats answered (rules/a_game.md §3.2, §4)."""

from __future__ import annotations

from typing import Any

from .names import normalize
from .scenario import cast_problems

__all__ = ["invariants"]


def invariants(game: Any, decision: Any = None) -> list[str]:
    """The violations of §3.2 and §4 in ``game`` now (``decision``: the one about to be asked, or None at the end)."""
    out: list[str] = []
    t, cfg = game.t, game.cfg
    casts = {c.id: c.cast for c in t.pcs() if c.cast}
    if len(casts) == len(t.pcs()) and t.pcs():
        out += [f"the table: {p} (§3.2)" for p in cast_problems(casts, cfg, complete=True)]
    for c in t.chars.values():
        who = f"{c.id} ({c.kind})"
        if c.is_pc and len(c.elements) > cfg.max_elements:
            out.append(f"{who}: {len(c.elements)} success elements, at most {cfg.max_elements} (§4)")
        keys = [e.key for e in c.elements]
        if len(set(keys)) != len(keys):
            out.append(f"{who}: two elements with one name (§3.2)")
        for e in c.elements:
            if e.usage < 0:
                out.append(f"{who}: usage of 【{e.name}】 = {e.usage} (§4)")
            if e.key != normalize(e.name):
                out.append(f"{who}: 【{e.name}】 is kept under another name ({e.key})")
            # (an element similar to the blacklist is not a violation: A15 forbids registering one after the name is
            # blacklisted and §3.2 checks the sheets a game starts with; elements held before stay until reviewed)
        if c.is_pc:
            if c.hp < 0:
                out.append(f"{who}: hero points {c.hp} (§4)")
            if c.created_this_turn > 1 and cfg.registration_limit_scope != "table_turn":
                out.append(f"{who}: {c.created_this_turn} elements created this turn, at most 1 (§4-1-2)")
            if c.busy_until is not None and not 1 <= c.busy_until <= cfg.turns_per_scene:
                out.append(f"{who}: busy until turn {c.busy_until} (§5.7)")
    s = t.scene
    if s is not None and not 0 <= s.turn <= cfg.turns_per_scene:
        out.append(f"scene {s.id}: turn {s.turn}, a scene has {cfg.turns_per_scene} (§3)")
    for r in t.records:
        if r.result not in ("success", "intermediate", "failure"):
            out.append(f"check {r.id}: result {r.result!r}")
        if r.auto_fail and r.rolled_result != "failure":
            out.append(f"check {r.id}: a rolled 1 but {r.rolled_result} (§4-4)")
        if r.fixed > r.n or r.fixed < 0:
            out.append(f"check {r.id}: {r.fixed} fixed dice of {r.n} (§4-4-2)")
        if len(r.rolled) != r.n - r.fixed:
            out.append(f"check {r.id}: {len(r.rolled)} dice rolled for {r.n - r.fixed} (§4-4)")
        if r.b_targeted > cfg.hp_b_max_per_target:
            out.append(f"check {r.id}: the target of effect B {r.b_targeted} times (§5.8)")
        if r.game == t.game_no and any(normalize(x) in t.banned for x in r.elements):
            out.append(f"check {r.id}: uses an element banned this game (§7.11)")
    return out
