"""The flow machines of 「A」 (rules/a_game.md §6, §7.1, §7.4). Flat machines, one position (FlowState) each per
session.

GAME (named ``session``, as every system's phase machine) follows one game (= session, §6): setup, creation, and scenes of 10 turns, each turn a declaration phase and
a resolution phase, then the scene end, between scenes and the game end. CHECK follows one 行動判定 (§7.1 C0–C5;
§7.4 for the opposing side; §5.8 for a hero point effect B redo of an earlier check).

``guards`` say when the rules (scenes.py, checks.py, hero.py) fire a conditional move; they are documentation for
the diagrams (``trpg diagram a_game``), never evaluated. Every drawn edge is taken by a run of
tests/test_machine_coverage.py (coverage.py).
"""

from __future__ import annotations

from ...core.machine import MachineSpec

__all__ = ["GAME", "CHECK", "MACHINES"]

GAME = MachineSpec(
    name="session",
    doc="§6 one game (= session): setup, creation, scenes of 10 turns, game end",
    states=("campaign_load", "game_setup", "character_creation", "scene_intro", "turn_declaration",
            "turn_resolution", "turn_end", "scene_end", "between_scenes", "game_end", "game_over"),
    initial="campaign_load",
    transitions=(
        ("start", "campaign_load", "game_setup"),
        ("valid", "game_setup", "character_creation", "every PC has a cast and the table passes §3.2"),
        ("created", "character_creation", "scene_intro"),
        ("briefed", "scene_intro", "turn_declaration"),
        ("declared", "turn_declaration", "turn_resolution"),
        ("resolved", "turn_resolution", "turn_end"),
        ("next_turn", "turn_end", "turn_declaration", "goal not achieved and turns remain"),
        ("end_scene", "turn_end", "scene_end", "goal achieved or the 10th turn played"),
        ("between", "scene_end", "between_scenes", "scenes remain and not (goal failed with on_scene_failure=end_game)"),
        ("next_scene", "between_scenes", "scene_intro"),
        ("finish", "scene_end", "game_end", "last scene played, or goal failed with on_scene_failure=end_game"),
        ("over", "game_end", "game_over"),
    ),
)

CHECK = MachineSpec(
    name="check",
    doc="§7.1 行動判定 C0–C5 (difficulty, elements, situation, roll, hero point, record); §7.4 the opposing side; §5.8 redo",
    states=("idle", "difficulty", "elements", "situation", "opponent", "roll", "hero", "record"),
    initial="idle",
    transitions=(
        ("begin", "idle", "difficulty"),
        ("set", "difficulty", "elements"),
        ("confirmed", "elements", "situation"),
        ("assembled", "situation", "roll", "not an opposed check"),
        ("oppose", "situation", "opponent", "an opposed check (D15)"),
        ("assembled", "opponent", "roll"),
        ("rolled", "roll", "hero"),
        ("reroll", "hero", "roll", "hero point effect B on this check at step 4 (hp_b_timing=at_step4)"),
        ("applied", "hero", "record"),
        ("done", "record", "idle"),
        ("redo", "idle", "roll", "hero point effect B approved on an earlier check (§5.8)"),
    ),
)

MACHINES = (GAME, CHECK)
