"""ラストフラグメント's lean observation for small context windows (``SystemInfo.compact_observation``): names, HP,
abilities of one's own sheet, items, tokens, abnormalities, bonds; the scene and what discovery revealed; one's own
fragments."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...core.compact import compact_view, short_name

__all__ = ["compact_observation"]


def _character(c: Mapping[str, Any], mine: bool) -> dict[str, Any]:
    out: dict[str, Any] = {"name": short_name(c.get("name", "")), "kind": c.get("kind"), "hp": c.get("hp")}
    for k in ("incapacitated", "withdrawn"):
        if c.get(k):
            out[k] = True
    if c.get("abnormality_level"):
        out["abnormality_level"] = c["abnormality_level"]
    if mine:
        for k in ("abilities", "skills", "items", "tokens", "bonds", "bond_powers_used", "fragments", "handouts",
                  "sp_left"):
            if c.get(k):
                out[k] = c[k]
    return out


def compact_observation(obs: Mapping[str, Any]) -> dict[str, Any]:
    out = compact_view(obs, _character, scene_keys=("name", "type", "revealed", "loose_items", "cycle"),
                       gm_keys=("gm_notes", "unlock"))
    if obs.get("combat"):
        out["combat"] = dict(obs["combat"])
    return out
