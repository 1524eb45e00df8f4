"""The flow machines of ブラッドベリー (rules/bloodberry.md §6, §7.5, §7.7). Flat machines, one position (FlowState) per session.

``guards`` say when the rules (game.py) fire a conditional move; they are documentation for the diagrams
(``trpg diagram bloodberry``), never evaluated. Every drawn edge is taken by a run of tests/test_machine_coverage.py."""

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
        ("open_flag_map", ("session_start", "between_scenes", "flag_map"), "flag_map"),
        ("resume_flag_map", "between_scenes", "flag_map"),
        ("to_ending", ("scene", "between_scenes", "session_start", "flag_map"), "ending"),
        ("finish", "ending", "session_end"),
    ),
    guards={
        ("start_session", "creation"): "every sheet valid and approved by the GM",
        ("open_scene", "session_start"): "the first playable scene (its required flags raised) is an ordinary scene",
        ("open_scene", "between_scenes"): "the next playable scene is an ordinary scene",
        ("open_scene", "flag_map"): "a camp raised a flag (its flag event), or the map ended and an ordinary scene follows",
        ("end_scene", "scene"): "GM chose end_scene and a playable scene follows, or a flag event is over with a PC in play",
        ("open_flag_map", "session_start"): "the first playable scene is a flag map",
        ("open_flag_map", "between_scenes"): "the next playable scene is a flag map",
        ("open_flag_map", "flag_map"): "the map ended without the end flag's event and the next playable scene is a flag map",
        ("resume_flag_map", "between_scenes"): "the flag event was not the end flag's",
        ("to_ending", "scene"): "GM chose ending, no playable scene follows, no PC in play or a confrontation defeat",
        ("to_ending", "between_scenes"): "the end flag's event is over and no scene follows, or no PC in play",
        ("to_ending", "session_start"): "no playable scene",
        ("to_ending", "flag_map"): "the map ended without the end flag's event (time out, no PC) and no scene follows",
    },
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
        ("close", ("events", "turns", "confrontation"), "closed"),
    ),
    guards={
        ("take_turns", "events"): "no confrontation in the scene and a PC in play",
        ("confront", "events"): "the scene has a confrontation with formed curses and a PC in play",
        ("close", "events"): "no PC left in play after the events",
    },
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
        ("setup", ("idle", "cf_victory", "cf_withdrawn"), "cf_setup"),  # a defeat ends the session (§6)
        ("loop", "cf_setup", "cf_loop"),
        ("win", "cf_loop", "cf_victory"),
        ("lose", "cf_loop", "cf_defeat"),
        ("withdraw", "cf_loop", "cf_withdrawn"),
    ),
    guards={
        ("win", "cf_loop"): "every curse settled for a camp (a rival camp first counts too), or no curse or camp member in play",
        ("lose", "cf_loop"): "every PC of the camp has an ability at 0",
        ("withdraw", "cf_loop"): "more cycles than max_cycles (HOUSE)",
    },
)

ROUNDS = MachineSpec(
    name="round_progression",
    doc="§7.4 round progression (playing cards)",
    states=("idle", "rp_setup", "rp_cycle", "rp_end"),
    initial="idle",
    transitions=(
        ("start", ("idle", "rp_end"), "rp_setup"),
        ("cycle", "rp_setup", "rp_cycle"),
        ("end", "rp_cycle", "rp_end"),
    ),
    guards={
        ("start", "*"): "GM chose round_progression (gm.adopt_rounds or gm.confrontation_setup)",
        ("end", "rp_cycle"): "the scene's turns or the confrontation are over",
    },
)

MACHINES = (SESSION, SCENE, BETWEEN, CONFRONTATION, ROUNDS)
