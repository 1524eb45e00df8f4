"""The flow machines of 夜狩り人 (rules/yogaribito.md §6, §7.1, §7.3). Flat machines, one position (FlowState) per session.

SESSION follows the phases (§6); SCENE follows one scene and the gap after it (§7.1, between scenes); COMBAT
(combat.py) follows one combat (§7.3)."""

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
)

SCENE = MachineSpec(
    name="scene",
    doc="§7.1 scene and the between-scenes purchase (§6, §7.2)",
    states=("idle", "scene_setup", "entry", "active", "combat", "scene_end", "between_scenes"),
    initial="idle",
    transitions=(
        ("setup", ("idle", "between_scenes"), "scene_setup"),
        ("ready", "scene_setup", "entry"),
        ("entered", "entry", "active"),
        ("start_combat", "active", "combat"),
        ("combat_over", "combat", "active"),
        ("close", "active", "scene_end"),
        ("closed", "scene_end", "between_scenes"),
        ("leave", ("between_scenes", "idle"), "idle"),
    ),
)

MACHINES = (SESSION, SCENE, COMBAT)
