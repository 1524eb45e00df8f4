"""The flow machines of ブラッドベリー (rules/bloodberry.md §6, §7.5, §7.7). Flat machines, one position (FlowState) per session."""

from __future__ import annotations

from ...core.machine import MachineSpec

__all__ = ["SESSION", "SCENE", "BETWEEN", "CONFRONTATION", "ROUNDS", "MACHINES"]

SESSION = MachineSpec(
    name="session",
    doc="§6 session structure",
    states=("creation", "session_start", "scene", "between_scenes", "flag_map", "ending", "session_end"),
    initial="creation",
    transitions=(
        ("start_session", "creation", "session_start"),
        ("open_scene", ("session_start", "between_scenes", "flag_map"), "scene"),
        ("end_scene", "scene", "between_scenes"),
        ("open_flag_map", ("session_start", "between_scenes"), "flag_map"),
        ("resume_flag_map", "between_scenes", "flag_map"),
        ("to_ending", ("scene", "between_scenes", "session_start", "flag_map"), "ending"),
        ("finish", "ending", "session_end"),
    ),
)

SCENE = MachineSpec(
    name="scene",
    doc="§6 SCENE and §7.1 normal order",
    states=("idle", "framing", "entry", "events", "turns", "confrontation", "closed"),
    initial="idle",
    transitions=(
        ("frame", ("idle", "closed"), "framing"),
        ("entries", "framing", "entry"),
        ("run_events", "entry", "events"),
        ("take_turns", "events", "turns"),
        ("confront", "events", "confrontation"),
        ("close", ("entry", "events", "turns", "confrontation"), "closed"),
    ),
)

BETWEEN = MachineSpec(
    name="between_scenes",
    doc="§7.7 BS_1..BS_4",
    states=("idle", "bs_emotions", "bs_actor_willpower", "bs_pl_processing", "bs_gm_processing", "done"),
    initial="idle",
    transitions=(
        ("emotions", ("idle", "done"), "bs_emotions"),
        ("actor_willpower", "bs_emotions", "bs_actor_willpower"),
        ("pl_processing", "bs_actor_willpower", "bs_pl_processing"),
        ("gm_processing", "bs_pl_processing", "bs_gm_processing"),
        ("finish", "bs_gm_processing", "done"),
    ),
)

CONFRONTATION = MachineSpec(
    name="confrontation",
    doc="§7.5 confrontation with formed curses (normal order)",
    states=("idle", "cf_setup", "cf_loop", "cf_victory", "cf_defeat", "cf_withdrawn"),
    initial="idle",
    transitions=(
        ("setup", ("idle", "cf_victory", "cf_defeat", "cf_withdrawn"), "cf_setup"),
        ("loop", "cf_setup", "cf_loop"),
        ("win", "cf_loop", "cf_victory"),
        ("lose", "cf_loop", "cf_defeat"),
        ("withdraw", "cf_loop", "cf_withdrawn"),
    ),
)

ROUNDS = MachineSpec(
    name="round_progression",
    doc="§7.4 round progression (playing cards)",
    states=("idle", "rp_setup", "rp_cycle", "rp_end"),
    initial="idle",
    transitions=(
        ("start", ("idle", "rp_end"), "rp_setup"),
        ("cycle", "rp_setup", "rp_cycle"),
        ("end", ("rp_setup", "rp_cycle"), "rp_end"),
    ),
)

MACHINES = (SESSION, SCENE, BETWEEN, CONFRONTATION, ROUNDS)
