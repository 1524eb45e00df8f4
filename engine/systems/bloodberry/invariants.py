"""ブラッドベリー's invariants for ``trpg fuzz`` (``SystemInfo.invariants``): what must hold at every decision, from
rules/bloodberry.md §4 (resources and their ranges) and §4.1/§4.8 (who can act).

Each check names the spec line it comes from. The fuzzer calls ``invariants(game, decision)`` before every decision
is answered and once more at the end (``decision`` None); every string returned is one violation.
"""

from __future__ import annotations

from typing import Any

from .data import ABILITIES, CURSE_TYPES

__all__ = ["invariants", "OUT_OF_PLAY", "ASKED_WHEN_OUT"]

#: §4.8 statuses
STATUSES = frozenset({"active", "dropped", "dead", "vanished", "absent", "hosted"})
#: §4.1/§4.8: a PC in one of these cannot act, cannot be a participant and cannot be targeted
OUT_OF_PLAY = frozenset({"dropped", "vanished", "absent", "hosted"})
#: kinds a character out of play may still be asked: none (creation happens before anyone is out of play)
ASKED_WHEN_OUT: frozenset[str] = frozenset()
#: §4.3 気力 0..3; §4.4 relation strength 0..3
WILLPOWER_MAX = 3
STRENGTH_MAX = 3


def invariants(game: Any, decision: Any = None) -> list[str]:
    """The violations of §4 in ``game`` now (``decision``: the one about to be asked, or None at the end)."""
    out: list[str] = []
    t = game.t
    heal_capped = game.cfg.heal_cap == "full"
    creating = game.phase.state == "creation"  # §3: the sheets are being filled in
    for c in t.chars.values():
        if creating:
            break
        who = f"{c.id} ({c.kind})"
        if c.status not in STATUSES:
            out.append(f"{who} has the unknown status {c.status!r} (§4.8)")
        if c.is_curse:
            for stat in CURSE_TYPES:  # §4.2: formed-curse stats are set by the scenario and never change
                v = c.ab.get(stat)
                if not isinstance(v, int) or v < 0:
                    out.append(f"{who}: {stat} = {v!r}, not a whole number ≥ 0 (§4.2)")
            continue
        for ab in ABILITIES:
            v = c.ab.get(ab)
            if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                out.append(f"{who}: {ab} = {v!r}; abilities never go below 0 (§4.1)")
        if not c.is_pc:
            continue
        if not 0 <= c.willpower <= WILLPOWER_MAX:
            out.append(f"{who}: 気力 = {c.willpower}, outside 0..{WILLPOWER_MAX} (§4.3)")
        for ab in ABILITIES:
            full = c.full.get(ab)
            if not isinstance(full, int) or full < 1:
                out.append(f"{who}: full {ab} = {full!r}; full values start at the creation values (≥ 1) and only "
                           "rise (§4.1)")
            elif heal_capped and c.ab.get(ab, 0) > full:
                out.append(f"{who}: {ab} = {c.ab.get(ab)} above its full value {full} with heal_cap = full (§4.1, A18)")
        for s in c.skills:
            if s.effect_available and not s.sublimated:
                out.append(f"{who}: the effect of {s.id} is available but the skill is not sublimated (§4.5)")
        if c.status == "dropped" and not c.any_zero():
            out.append(f"{who} is dropped with every ability above 0 (§4.1: dropped until the ability is above 0 again)")
    for (a, b), r in t.relations.items():
        if not 0 <= r.strength <= STRENGTH_MAX:
            out.append(f"relation {a}|{b}: strength {r.strength}, outside 0..{STRENGTH_MAX} (§4.4)")
    for (camp, curse), v in t.camp_strength.items():
        cap = t.camp_cap.get(camp)
        if v < 0 or (cap is not None and v > cap):
            out.append(f"camp relation {camp}|{curse} = {v}, outside 0..{cap} (the camp's cap, §4.4, A29)")
    if t.clock < 0:
        out.append(f"the clock is at {t.clock} minutes (§11 G9)")
    if decision is not None:
        c = t.chars.get(decision.actor)
        if c is not None and c.status in OUT_OF_PLAY and decision.kind not in ASKED_WHEN_OUT:
            out.append(f"{decision.kind} (#{decision.seq}) is asked of {c.id}, who is {c.status} and cannot act (§4.1, §4.8)")
    return out
