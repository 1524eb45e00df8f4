"""ブラッドベリー's lean observation for small context windows (``SystemInfo.compact_observation``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...core.compact import compact_view, cut, short_name

__all__ = ["compact_observation"]


def _character(c: Mapping[str, Any], mine: bool) -> dict[str, Any]:
    """Name, status, abilities (a curse says so); its own 気力, skills, emotions, victory conditions, profile."""
    out: dict[str, Any] = {"name": short_name(c.get("name", "")), "status": c.get("status"),
                           "abilities": c.get("abilities")}
    if c.get("kind") == "curse":
        out["kind"] = "curse"
    if mine:
        out.update({k: c[k] for k in ("willpower", "skills", "emotions") if k in c})
        out["victory"] = [v.get("text") for v in c.get("victory") or [] if isinstance(v, Mapping)]
        if c.get("profile"):
            out["profile"] = cut(str(c["profile"]), 120)
    return out


def compact_observation(obs: Mapping[str, Any]) -> dict[str, Any]:
    out = compact_view(obs, _character, keep=("scenario", "phase", "camp_strength"),
                       scene_keys=("title", "participants", "scene_actors", "npcs"),
                       gm_keys=("gm_notes", "scene_secret", "flags"), hidden_status=("vanished", "absent"))
    rels = obs.get("relations")
    if isinstance(rels, list):
        out["relations"] = {"|".join(r["between"]): r.get("strength") for r in rels
                            if isinstance(r, Mapping) and "between" in r}
    if obs.get("clues"):
        out["clues"] = [cut(str(c), 60) for c in obs["clues"][-3:]]
    return out
