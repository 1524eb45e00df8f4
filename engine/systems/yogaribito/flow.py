"""The flow machines of 夜狩り人 (rules/yogaribito.md §6, §7.1, §7.3). Flat machines, one position (FlowState) per session.

SESSION follows the phases (§6); SCENE follows one scene and the gap after it (§7.1, between scenes); COMBAT
(combat.py) follows one combat (§7.3).

``guards`` say when the rules (game.py, combat.py) fire a conditional move; they are documentation for the diagrams
(``trpg diagram yogaribito``), never evaluated. Every drawn edge is taken by a run of tests/test_machine_coverage.py.
COMBAT is declared (with its guards) in combat.py."""

from __future__ import annotations

from ...core.machine import MachineSpec
from .combat import COMBAT

__all__ = ["SESSION", "SCENE", "COMBAT", "MACHINES"]

SESSION = MachineSpec(
    name="session",
    doc="§6 session structure (one scenario = one session)",
    states=("preplay", "scenario_start", "opening", "middle", "climax", "ending", "afterplay", "finished"),
    initial="preplay",
    transitions=(
        ("characters_ready", "preplay", "scenario_start"),
        ("begin", "scenario_start", "opening"),
        ("advance", "opening", "middle"),
        ("advance", "middle", "climax"),
        ("advance", "climax", "ending"),
        ("advance", "ending", "afterplay"),
        ("done", "afterplay", "finished"),
    ),
    guards={
        ("advance", "opening"): "the opening's scenes are played or skipped",
        ("advance", "middle"): "the middle's scenes and the PCs' scene proposals are over",
        ("advance", "climax"): "the climax scenes are over",
        ("advance", "ending"): "the ending's scenes are over (scenario end)",
    },
)

SCENE = MachineSpec(
    name="scene",
    doc="§7.1 scene and the between-scenes purchase (§6, §7.2)",
    states=("idle", "scene_setup", "entry", "active", "combat", "scene_end", "between_scenes"),
    initial="idle",
    transitions=(
        ("setup", "idle", "scene_setup"),
        ("ready", "scene_setup", "entry"),
        ("entered", "entry", "active"),
        ("start_combat", "active", "combat"),
        ("combat_over", "combat", "active"),
        ("close", "active", "scene_end"),
        ("closed", "scene_end", "between_scenes"),
        ("leave", "between_scenes", "idle"),
    ),
    guards={
        ("setup", "idle"): "a PC alive, and the scene not optional or the GM plays it (gm.scene), or an accepted proposal",
        ("start_combat", "active"): "the scene has a combat not fought yet, a PC present, and the GM starts it (gm.scene_flow)",
        ("close", "active"): "GM chose close_scene, a master scene, no PC alive after the combat, or the action cap (HOUSE)",
    },
)

MACHINES = (SESSION, SCENE, COMBAT)
