"""ブラッドベリー's coverage runs (``engine.core.coverage``): the sessions that, with the golden playthroughs, take
every drawn edge of ``flow.MACHINES``. Scenario variants are edits of the samples' YAML for branches no sample
reaches: two confrontations in one session, a flag event's confrontation lost (the session ends), a flag map as the
only scene, flag maps that never end by their end flag (one, or two in a row), no playable scene."""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ...core.coverage import MIXES, Edit, Run, sample, scene
from . import INFO

if TYPE_CHECKING:
    from ...core.scenario import LoadedScenario

__all__ = ["RUNS"]


def _unplayable(raw: dict[str, Any]) -> None:
    for s in raw["scenes"]:
        s["requires_flags"] = ["never_raised"]


def _cards_everywhere(raw: dict[str, Any]) -> None:
    for s in raw["scenes"]:
        s["progression"] = "round_progression"
        if s.get("confrontation"):
            s["confrontation"]["progression"] = "round_progression"


def _second_confrontation(max_cycles: int | None) -> Edit:
    def edit(raw: dict[str, Any]) -> None:
        climax = scene(raw, "climax")
        again = copy.deepcopy(climax)
        again["id"], again["title"] = "climax_again", climax["title"] + "（再び）"
        if max_cycles is not None:
            climax["confrontation"]["max_cycles"] = max_cycles
        raw["scenes"].append(again)
    return edit


def _only_flag_map(raw: dict[str, Any]) -> None:
    raw["scenes"] = [scene(raw, "five_relics")]


def _endless_flag_map(raw: dict[str, Any]) -> None:
    """The end flag's place behind a gate no PC passes: a fixed-value obstruction (A31) of a 10 (11 successes on
    [情熱][情熱], no 合い鍵), so the map runs to its time cap. (A condition no card fits is refused by validation.)"""
    _only_flag_map(raw)
    raw.setdefault("config", {})["flagmap_obstruction_mode"] = "fixed_value"
    for place in scene(raw, "five_relics")["flag_map"]["places"]:
        if place["flag"] == "shiotsubo":
            place["condition"] = [{"min": 10}]
            place["gate"] = {"bases": ["passion", "passion"], "door": False}


def _two_endless_flag_maps(raw: dict[str, Any]) -> None:
    _endless_flag_map(raw)
    again = copy.deepcopy(raw["scenes"][0])
    again["id"], again["flag_map"]["id"] = "five_relics_again", "relics_again"
    raw["scenes"].append(again)


def _flag_event_confrontations(raw: dict[str, Any]) -> None:
    """Two PC camps race on the flag map, and every flag event is a confrontation with the salt curse."""
    _only_flag_map(raw)
    scene(raw, "five_relics")["flag_map"]["camps"] = [
        {"id": "pcs_a", "members": ["nagisa"]}, {"id": "pcs_b", "members": ["suzu", "hanano"]},
        {"id": "rivals", "members": ["reina", "iori", "toki"]}]
    for fs in raw["flag_scenes"]:
        fs["confrontation"] = {"curses": ["shio_no_kimi"], "max_cycles": 3}


def _campaign(status: Callable[[str], dict[str, Any]]) -> Callable[[LoadedScenario], Mapping[str, Any]]:
    def options(sc: LoadedScenario) -> Mapping[str, Any]:
        return {"campaign": {"system": sc.system.id, "pcs": {p.id: status(p.id) for p in sc.model.pcs}}}
    return options


ALL_ABSENT = _campaign(lambda _pc: {"absent_sessions": 1})
FRAIL = _campaign(lambda _pc: {"full": {"passion": 1, "grace": 1, "maturity": 1}})

DOLLS, SALT = sample(INFO, "inoiri_dolls"), sample(INFO, "salt_festival")

RUNS: tuple[Run, ...] = (
    Run("samples", DOLLS, range(5), tuple(MIXES), why="the bulk; a confrontation lost"),
    Run("samples", SALT, range(3), tuple(MIXES), why="flag map, rival camps, card-round confrontation"),
    Run("create_pcs", DOLLS, range(2), ("scripted", "random_pcs"), options={"create_pcs": True}),
    Run("card_bid", SALT, range(1), ("scripted", "random_pcs"), config={"flagmap_camp_order": "card_bid"}),
    Run("cards_everywhere", DOLLS, range(2), edit=_cards_everywhere,
        why="the GM adopts round progression in every scene and the confrontation: rp_end → start"),
    Run("cards_everywhere_configs", SALT, range(1), edit=_cards_everywhere,
        config={"initiative_card_mode": "discard_redraw", "change_window_timing": "after_draw",
                "change_limit_reset": "per_own_round", "role_check_on_refresh": True, "multiple_roles": "sum"}),
    Run("all_absent", DOLLS, range(1), options=ALL_ABSENT,
        why="no PC in play: scene events → close, scene → to_ending"),
    Run("unplayable", DOLLS, range(1), edit=_unplayable, why="no playable scene: session_start → to_ending"),
    Run("only_flag_map", SALT, range(2), ("scripted", "random_pcs"), edit=_only_flag_map,
        why="session_start → open_flag_map; the end flag's between-scenes → to_ending"),
    Run("endless_flag_map", SALT, range(3), ("random_pcs",), edit=_endless_flag_map,
        why="the map times out (MAX_UNITS) with no scene after it: flag_map → to_ending"),
    Run("two_endless_flag_maps", SALT, range(2), ("random_pcs",), edit=_two_endless_flag_maps,
        why="a map times out and the next scene is a flag map: flag_map → open_flag_map"),
    Run("two_confrontations", DOLLS, range(2), edit=_second_confrontation(None),
        why="cf_victory → setup"),
    Run("two_confrontations_short", DOLLS, range(2), edit=_second_confrontation(1),
        why="max_cycles 1: cf_withdrawn → setup"),
    Run("flag_event_confrontations", SALT, range(8), edit=_flag_event_confrontations,
        options=FRAIL, why="a camp's defeat in a flag event ends the session (§6): cf_loop → lose, scene → to_ending"),
)
