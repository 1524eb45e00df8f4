"""夜狩り人's invariants for ``trpg fuzz`` (``SystemInfo.invariants``): what must hold at every decision, from
rules/yogaribito.md §4.1 (every stat's range), §4.3 (【燎】), §7.7–§7.9 (戦闘不能, 覚醒, 死亡, bad statuses) and the
battlefield of §7.4.

The fuzzer calls ``invariants(game, decision)`` before every decision is answered and once more at the end
(``decision`` None); every string returned is one violation.
"""

from __future__ import annotations

from typing import Any

from .state import ABILITY_IDS, STATUS_IDS

__all__ = ["invariants", "ASKED_WHEN_DOWN"]

#: §4.1: stats with a range 0 … base (healing never above base with heal_cap = base, AMB-38)
CAPPED = ("life", "soul", "luck", "wealth", "bullets")
#: §4.1: 【燎】 0 … 6
KAGARIBI_MAX = 6
#: decision kinds a 戦闘不能 or dead character may still be asked (§7.9 "no actions at all"): the player's afterplay
#: (XP, rebuild, a replacement after a death, §7.11) and the creation of a replacement PC (§3)
ASKED_WHEN_DOWN_PREFIXES = ("ap.", "cc.")
ASKED_WHEN_DOWN: frozenset[str] = frozenset()
#: AMB-19 (``cost_zero_action_resolves = true``): a feat's cost that brings its user to 0 leaves it 戦闘不能 (dead if
#: awakened), but the action still resolves: the user is still asked the windows of its own action
RESOLVING_OWN_ACTION = frozenset({"cb.targets", "cb.seal_item", "cb.crit_bonus", "cb.crit_hand", "ck.auto_feats",
                                  "ck.bought", "ck.kagaribi", "ck.luck", "ck.bullets", "ck.doom_ack"})


def _int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def invariants(game: Any, decision: Any = None) -> list[str]:
    """The violations of §4.1, §4.3, §7.4 and §7.7–§7.9 in ``game`` now (``decision``: the one about to be asked, or
    None at the end)."""
    out: list[str] = []
    t = game.t
    cfg = game.cfg
    for c in t.chars.values():
        who = f"{c.id} ({c.kind})"
        for stat, v in c.current.items():
            if not _int(v) or v < 0:
                out.append(f"{who}: current {stat} = {v!r}; values never go below 0 (§4.1)")
        for stat, v in c.base.items():
            if not _int(v) or v < 0:
                out.append(f"{who}: base {stat} = {v!r}, not a whole number ≥ 0 (§4.1)")
        if c.is_pc:
            for stat in ABILITY_IDS:
                if stat in c.base and c.base[stat] < 1:
                    out.append(f"{who}: base {stat} = {c.base[stat]}; a PC's abilities are ≥ 1 (§4.1)")
        kag = c.current.get("kagaribi")
        if _int(kag) and kag > KAGARIBI_MAX:
            out.append(f"{who}: 【燎】 = {kag}, above {KAGARIBI_MAX} (§4.1, §4.3)")
        if cfg.heal_cap == "base":
            for stat in CAPPED:
                if stat == "soul" and cfg.awaken_soul_cap != "base":
                    continue  # awakening may raise 魂 above its base (AMB-18 none)
                cur, base = c.current.get(stat), c.base.get(stat)
                if not (_int(cur) and _int(base)):
                    continue
                # a 0 of 命/魂 becomes 1 when 戦闘不能 ends (§7.10.1, AMB-27), whatever the base
                cap = max(base, 1) if stat in ("life", "soul") else base
                if cur > cap:
                    out.append(f"{who}: current {stat} = {cur} above its base {base} with heal_cap = base (§4.1, AMB-38)")
        for s in c.statuses:
            if s not in STATUS_IDS:
                out.append(f"{who} has the unknown bad status {s!r} (§7.9)")
        if c.psychic_focus not in (-1, 0, 1):
            out.append(f"{who}: psychic focus {c.psychic_focus}, not -1, 0 or +1 (§7.3.1)")
        if c.awakened and not c.dead and c.current.get("life", 0) != 0:
            out.append(f"{who} is awakened with 命 {c.current.get('life')}; 覚醒 fights on at 命 0 (§7.8)")
        if c.incapacitated and not c.dead and c.current.get("life", 0) > 0 and c.current.get("soul", 0) > 0:
            out.append(f"{who} is 戦闘不能 with 命 {c.current.get('life')} and 魂 {c.current.get('soul')}; it ends when both "
                       "are ≥ 1 again (§7.7.2, AMB-27)")
    bf = t.battlefield
    if bf is not None:
        seen: dict[str, str] = {}
        for eid, members in bf.engagements.items():
            if not members:
                out.append(f"engagement {eid} is empty (§7.4)")
            for m in members:
                if m not in t.chars:
                    out.append(f"engagement {eid} holds {m!r}, who is not at the table (§7.4)")
                if m in seen:
                    out.append(f"{m} is in two engagements, {seen[m]} and {eid} (§7.4)")
                seen[m] = eid
    if decision is not None:
        c = t.chars.get(decision.actor)
        kind = decision.kind
        resolving = cfg.cost_zero_action_resolves and kind in RESOLVING_OWN_ACTION
        if (c is not None and (c.dead or c.incapacitated) and kind not in ASKED_WHEN_DOWN and not resolving
                and not kind.startswith(ASKED_WHEN_DOWN_PREFIXES)):
            state = "dead" if c.dead else "戦闘不能"
            out.append(f"{kind} (#{decision.seq}) is asked of {c.id}, who is {state} and can take no action (§7.9)")
    return out
