"""ラストフラグメント's invariants for ``trpg fuzz`` (``SystemInfo.invariants``): what must hold at every decision and at
the end of any session, whatever the seats answered (rules/last_fragment.md §3, §4)."""

from __future__ import annotations

from typing import Any

__all__ = ["invariants"]


def invariants(game: Any, decision: Any = None) -> list[str]:
    out: list[str] = []
    t, cfg = game.t, game.cfg
    for c in t.chars.values():
        who = f"{c.id} ({c.kind})"
        if not 0 <= c.hp <= c.max_hp:
            out.append(f"{who}: HP {c.hp} outside 0..{c.max_hp} (§4)")
        if c.incapacitated and c.hp > 0:
            out.append(f"{who}: incapacitated with HP {c.hp} (§7.9.6)")
        if c.hp <= 0 and not c.incapacitated and t.phase != "setup":
            out.append(f"{who}: HP 0 but not incapacitated (§7.9.6)")
        if c.tokens < 0:
            out.append(f"{who}: tokens {c.tokens} (§4)")
        if len(c.abnormalities) > 5:
            out.append(f"{who}: {len(c.abnormalities)} abnormalities, at most 5 (§7.7)")
        if len(c.items) > cfg.inventory_max and decision is not None and decision.kind != "inv.inventory_overflow":
            out.append(f"{who}: {len(c.items)} items, at most {cfg.inventory_max} (§7.6)")
        if len(c.bp_used) > len(c.bonds) or len(set(c.bp_used)) != len(c.bp_used):
            out.append(f"{who}: bond powers {c.bp_used} with {len(c.bonds)} bonds (§7.8)")
        if c.id in c.bonds:
            out.append(f"{who}: a bond toward itself (§7.4)")
        if "tsuujou_kougeki" not in c.skills:
            out.append(f"{who}: 通常攻撃 is missing (§3)")
        if c.is_pc:
            if c.ap_unspent < 0:
                out.append(f"{who}: unspent AP {c.ap_unspent} (§3)")
            if len(c.skills) - 1 > c.skill_slots:
                out.append(f"{who}: {len(c.skills) - 1} skills in {c.skill_slots} slots (§3)")
            if c.personal_used > cfg.personal_scenes_per_session:
                out.append(f"{who}: {c.personal_used} personal scenes (§7.4)")
            cap = cfg.max_ability_level
            for a, lv in c.abilities.items():
                if lv < 0 or (cap is not None and lv > cap):
                    out.append(f"{who}: {a} Lv {lv} (§3)")
        # AMB-35 resolution_mode = simultaneous: every declared skill resolves, even if its user was incapacitated
        # earlier in the step, so its user still answers the windows of that skill's check
        own_check = (cfg.resolution_mode == "simultaneous" and t.phase == "climax" and c.incapacitated
                     and not c.withdrawn and decision is not None and decision.kind.startswith("ck."))
        if decision is not None and decision.actor == c.id and (c.incapacitated or c.withdrawn) and not own_check:
            if decision.kind not in ("pc.free_action", "cont.continue_pc", "ps.appearance_response",
                                     "bond.check_designate_ability", "bond.type_choice", "bond.type_change",
                                     "sf.designate_ability", "cb.winner_loot", "inv.inventory_overflow",
                                     "pc.climax_declaration", "cb.aftermath_action", "gm.bonus_items",
                                     "cont.respec", "cont.growth_ap_spend", "cont.growth_skill_learn",
                                     "cont.memorialize", "cont.next_session_items"):
                out.append(f"{who}: asked {decision.kind} while incapacitated or withdrawn (§7.9.6)")
    seen = [a for a in t.attempts]
    if len(set(seen)) != len(seen):
        out.append("an investigation pair attempted twice (§7.1)")
    if t.visited and len(set(t.visited)) != len(t.visited):
        out.append("a scene entered twice in the visited list")
    return out
