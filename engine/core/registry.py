"""The system registry: adding a rule system is one ``register_system`` call (python-chess ``VARIANTS``,
OpenSpiel ``register_game``)."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

if TYPE_CHECKING:
    from .machine import MachineSpec
    from .session import GameContext

__all__ = ["SystemInfo", "register_system", "get_system", "systems", "KNOWN_SYSTEM_MODULES"]

#: modules that register a system when imported (systems not implemented yet are simply absent)
KNOWN_SYSTEM_MODULES = ("engine.systems.bloodberry", "engine.systems.yogaribito")


@dataclass(frozen=True)
class SystemInfo:
    id: str
    name: str
    version: str
    capabilities: frozenset[str]
    scenario_model: type[BaseModel]
    #: builds the rules object for one session
    new_game: Callable[[GameContext], Any]
    machines: Sequence[MachineSpec]
    config_model: type[BaseModel]
    spec: str  # rules spec file name in shared/rules
    sample_scenarios: Sequence[Path] = field(default_factory=tuple)
    examples: Sequence[Path] = field(default_factory=tuple)
    description: str = ""
    #: mechanical reaction windows (reroll, concede, ...) an LLM seat may leave to the scripted policy
    #: (``--llm-reactions scripted``); narrative decisions are never in here
    reaction_kinds: frozenset[str] = frozenset()


_REGISTRY: dict[str, SystemInfo] = {}
_loaded = False


def register_system(info: SystemInfo) -> SystemInfo:
    if info.id in _REGISTRY and _REGISTRY[info.id] is not info:
        raise ValueError(f"system {info.id!r} is registered twice")
    _REGISTRY[info.id] = info
    return info


def _load_all() -> None:
    global _loaded
    if not _loaded:
        for mod in KNOWN_SYSTEM_MODULES:
            importlib.import_module(mod)
        _loaded = True


def get_system(system_id: str) -> SystemInfo:
    _load_all()
    try:
        return _REGISTRY[system_id]
    except KeyError:
        raise ValueError(f"unsupported system: {system_id!r} (registered: {', '.join(sorted(_REGISTRY))})") from None


def systems() -> list[SystemInfo]:
    _load_all()
    return [_REGISTRY[k] for k in sorted(_REGISTRY)]
