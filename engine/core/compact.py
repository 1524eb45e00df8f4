"""Lean observations for small context windows (an LLM seat with ``--llm-max-prompt``): the shared skeleton.

A system's ``SystemInfo.compact_observation`` keeps what a small model needs to decide: names without readings,
current values, the scene in a few keys, the GM's notes cut short. This module has the parts every system shares
(the observation's common keys ``scenario``, ``phase``, ``gm``, ``characters``, ``me``, ``scene``); a system adds
its own character view and its own table keys.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

__all__ = ["short_name", "cut", "compact_view"]


def short_name(name: Any) -> str:
    """七瀬 葵（ななせ あおい） -> 七瀬 葵: the reading adds nothing for a model."""
    return str(name).split("（", 1)[0].split("(", 1)[0].strip() or str(name)


def cut(text: str, limit: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def compact_view(obs: Mapping[str, Any], character: Callable[[Mapping[str, Any], bool], Any], *,
                 keep: Sequence[str] = ("scenario", "phase"), scene_keys: Sequence[str] = ("title",),
                 gm_keys: Sequence[str] = ("gm_notes", "scene_secret"), hidden_status: Sequence[str] = ()) -> dict[str, Any]:
    """The common keys of ``obs`` made lean: ``keep`` as they are, ``gm`` and ``scene`` cut to their keys, every
    character (``character(c, mine)``; those whose status is in ``hidden_status`` left out) and ``me``."""
    out: dict[str, Any] = {k: obs[k] for k in keep if k in obs}
    gm_part = obs.get("gm")
    if isinstance(gm_part, Mapping):
        out["gm"] = {k: gm_part[k] for k in gm_keys if k in gm_part}
    chars = obs.get("characters")
    if isinstance(chars, Mapping):
        out["characters"] = {cid: character(c, False) if isinstance(c, Mapping) else c for cid, c in chars.items()
                             if not isinstance(c, Mapping) or c.get("status") not in hidden_status}
    scene = obs.get("scene")
    if isinstance(scene, Mapping):
        out["scene"] = {k: scene[k] for k in scene_keys if k in scene}
    if isinstance(obs.get("me"), Mapping):
        out["me"] = character(obs["me"], True)
    return out
