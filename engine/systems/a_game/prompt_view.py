"""「A」's lean observation for small context windows (``SystemInfo.compact_observation``): names, casts, hero points
and element names (one's own with categories and usage counts), the scene's goal and turn."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...core.compact import compact_view, short_name

__all__ = ["compact_observation"]


def _character(c: Mapping[str, Any], mine: bool) -> dict[str, Any]:
    out: dict[str, Any] = {"name": short_name(c.get("name", "")), "kind": c.get("kind")}
    if c.get("cast"):
        out["cast"] = c["cast"]
    if "hp" in c:
        out["hp"] = c["hp"]
    els = [e for e in c.get("elements") or [] if isinstance(e, Mapping)]
    if mine:
        out["elements"] = {str(e.get("name")): {"categories": list(e.get("categories") or []), "usage": e.get("usage", 0),
                                                **({"banned": True} if e.get("banned") else {})} for e in els}
    else:
        out["elements"] = [str(e.get("name")) for e in els]
    return out


def compact_observation(obs: Mapping[str, Any]) -> dict[str, Any]:
    out = compact_view(obs, _character, scene_keys=("title", "goal", "turn", "turn_duration", "successes", "achieved",
                                                    "declarers"), gm_keys=("gm_notes", "scene_secret", "expected_checks"))
    if obs.get("banned_this_game"):
        out["banned_this_game"] = list(obs["banned_this_game"])
    return out
