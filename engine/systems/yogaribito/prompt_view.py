"""夜狩り人's lean observation for small context windows (``SystemInfo.compact_observation``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...core.compact import compact_view, short_name

__all__ = ["compact_observation"]


def _character(c: Mapping[str, Any], mine: bool) -> dict[str, Any]:
    """Values current/base, statuses and what is true of the character; its own classes, feats and items."""
    cur, base = c.get("current") or {}, c.get("base") or {}
    out: dict[str, Any] = {"name": short_name(c.get("name", "")), "side": c.get("side")}
    out["values"] = {k: (f"{v}/{base[k]}" if k in ("life", "soul") and k in base else v) for k, v in cur.items()}
    if c.get("statuses"):
        out["statuses"] = list(c["statuses"])
    flags = [k for k in ("dead", "incapacitated", "awakened", "flying", "legs_broken") if c.get(k)]
    if flags:
        out["flags"] = flags
    if mine:
        out["class"] = [c.get("main_class"), c.get("sub_class")]
        out["feats"] = list(c.get("feats") or [])
        out["items"] = [i.get("item") if isinstance(i, Mapping) else i for i in c.get("items") or []]
    return out


def compact_observation(obs: Mapping[str, Any]) -> dict[str, Any]:
    out = compact_view(obs, _character, scene_keys=("title", "present", "time_of_day", "tags"),
                       gm_keys=("gm_notes", "scene_secret", "flags"))
    bf = obs.get("battlefield")
    if isinstance(bf, Mapping):
        out["battlefield"] = {k: bf[k] for k in ("engagements", "round", "order") if k in bf}
    return out
