"""The flow machines of ラストフラグメント (rules/last_fragment.md §6, §7.9.1, §5.1). Flat machines, one position
(FlowState) each per session.

SESSION follows §6: setup, opening, the main phase's scene loop (scene_select, scene_enter, scene_play, personal
scenes, scene_end), the climax declaration, the GM's stuck resolution, the climax (combat, aftermath, loot), the
ending. COMBAT follows §7.9.1 (rounds of SP selection, action step, round end with withdrawals). CHECK follows
§5.1 (item request, ability choice, tokens, roll).

``guards`` say when the rules fire a conditional move; they are documentation for the diagrams (``trpg diagram
last_fragment``), never evaluated. Every drawn edge is taken by a run of tests/test_machine_coverage.py
(coverage.py).
"""

from __future__ import annotations

from ...core.machine import MachineSpec

__all__ = ["SESSION", "COMBAT", "CHECK", "MACHINES"]

SESSION = MachineSpec(
    name="session",
    doc="§6 one session: setup, opening, main phase scenes, climax, ending",
    states=("setup", "opening", "scene_select", "scene_enter", "scene_play", "personal_scene", "scene_end",
            "climax_declaration", "gm_stuck", "climax_phase", "climax_aftermath", "climax_end", "ending_phase",
            "session_end"),
    initial="setup",
    transitions=(
        ("open", "setup", "opening"),
        ("begin_main", "opening", "scene_select"),
        ("enter", "scene_select", "scene_enter", "the GM chose an unlocked candidate scene"),
        ("declare", "scene_select", "climax_declaration", "no candidate scene and the climax gate holds"),
        ("stuck", "scene_select", "gm_stuck", "no candidate scene and the climax gate is false"),
        ("play", "scene_enter", "scene_play"),
        ("personal", "scene_play", "personal_scene", "main action personal_scene with the quota left"),
        ("back", "personal_scene", "scene_play"),
        ("end_scene", "scene_play", "scene_end", "a cycle of passes, or the GM ends the scene"),
        ("declare", "scene_play", "climax_declaration", "end of a cycle with the climax gate true"),
        ("resume", "climax_declaration", "scene_play", "a PC declined, asked at the end of a cycle"),
        ("refused", "climax_declaration", "gm_stuck", "a PC declined, asked from scene_select"),
        ("next", "scene_end", "scene_select"),
        ("force", "gm_stuck", "scene_enter", "the GM force-unlocks a locked unvisited scene"),
        ("give_up", "gm_stuck", "ending_phase", "no locked scene left, or the GM ends the main phase"),
        ("climax", "climax_declaration", "climax_phase", "the gate holds and every PC declared yes"),
        ("fought", "climax_phase", "climax_aftermath"),
        ("wrap", "climax_aftermath", "climax_end", "a full pass of passes, or the GM ends it"),
        ("end_climax", "climax_end", "ending_phase"),
        ("finish", "ending_phase", "session_end"),
    ),
)

COMBAT = MachineSpec(
    name="combat",
    doc="§7.9.1 the climax combat: rounds of secret SP choices, actions and free-action windows, withdrawals",
    states=("idle", "start", "round_start", "action_step", "round_end", "end"),
    initial="idle",
    transitions=(
        ("begin", "idle", "start"),
        ("round", "start", "round_start"),
        ("act", "round_start", "action_step"),
        ("close", "action_step", "round_end"),
        ("next_round", "round_end", "round_start", "two or more remain and the round cap is not reached"),
        ("finish", "round_end", "end", "one or no combatant remains, or the round cap"),
    ),
)

CHECK = MachineSpec(
    name="check",
    doc="§5.1 one check: item request (investigation, shock, bond), ability choice, tokens, roll",
    states=("idle", "item_request", "ability", "tokens", "roll", "resolved"),
    initial="idle",
    transitions=(
        ("begin", "idle", "item_request", "an investigation, shock or bond check"),
        ("begin_skill", "idle", "ability", "a skill check (no items, AMB-20)"),
        ("item_used", "item_request", "resolved", "the GM approved the item (automatic success)"),
        ("no_item", "item_request", "ability", "no item, or the GM refused it"),
        ("chosen", "ability", "tokens"),
        ("pool", "tokens", "roll", "at least one die"),
        ("auto_fail", "tokens", "resolved", "no die (Lv 0 and no token)"),
        ("rolled", "roll", "resolved"),
        ("done", "resolved", "idle"),
    ),
)

MACHINES = (SESSION, COMBAT, CHECK)
