"""The system registry: adding a rule system is one ``register_system`` call (python-chess ``VARIANTS``,
OpenSpiel ``register_game``)."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

if TYPE_CHECKING:
    from .decision_table import DecisionSpec
    from .machine import MachineSpec
    from .session import GameContext

__all__ = ["SystemInfo", "register_system", "get_system", "systems", "system_modules"]


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
    #: every decision kind the rules can ask (``engine.core.decision_table``): who answers, shape, reaction window,
    #: speech, public answer, the examples runner's "no"
    decision_table: Mapping[str, DecisionSpec] = field(default_factory=dict)
    #: the system's prompt roles (gm, pc, npc, and e.g. ``curse``): each has a ``prompts/<id>/<role>.md.j2``; a seat's
    #: role is the game's ``prompt_role(actor)``
    prompt_roles: Sequence[str] = ("gm", "pc", "npc")
    #: a lean observation for small context windows (``--llm-max-prompt``): observation → smaller observation
    compact_observation: Callable[[Mapping[str, Any]], dict[str, Any]] | None = None
    #: the playtest report's hooks (``engine.core.report_hooks.ReportHooks``), or None
    report: Any = None
    #: the terminal's panels: observation → renderable pieces (plain data, rendered by the terminal)
    panels: Callable[[Mapping[str, Any], bool], list[Any]] | None = None
    #: the game's terms for observation keys (``passion`` → 情熱), shown next to the keys by front ends
    labels: Mapping[str, str] = field(default_factory=dict)
    #: the system's own invariants, checked by ``trpg fuzz`` at every decision and at the end: ``invariants(game,
    #: decision)`` → the violations (resources out of their range, a decision asked of a character who cannot act),
    #: each one sentence; ``decision`` is the pending decision, or None once the session is over
    invariants: Callable[[Any, Any], list[str]] | None = None
    #: the story hooks (``engine.core.story.StoryHooks``): how the system's checks read as dice lines, which state
    #: changes a player is told in words, scene headings, ending words, the compact sheet; None: the generic story
    story: Any = None
    #: the rule options a scenario file sets, read off its model: model → the flags it sets (a subset of
    #: ``config_model``'s); None: the model's ``config`` field (a mapping or a config model). A system whose files
    #: name that field otherwise (ラストフラグメント's ``config_overrides``, its spec's Appendix B.1) says how here
    scenario_config: Callable[[Any], Mapping[str, Any]] | None = None

    def scenario_options(self, model: Any) -> dict[str, Any]:
        """The rule options the scenario ``model`` sets (before a session's ``--config`` overrides): what every
        session of it starts from."""
        own = self.scenario_config(model) if self.scenario_config is not None else getattr(model, "config", None)
        return own.model_dump() if isinstance(own, BaseModel) else dict(own or {})

    @property
    def reaction_kinds(self) -> frozenset[str]:
        """Mechanical reaction windows (reroll, concede, ...) an LLM seat may leave to the scripted policy
        (``--llm-reactions scripted``): the decision table's ``reaction`` entries."""
        return frozenset(k for k, spec in self.decision_table.items() if spec.reaction)


_REGISTRY: dict[str, SystemInfo] = {}
_loaded = False


def register_system(info: SystemInfo) -> SystemInfo:
    if info.id in _REGISTRY and _REGISTRY[info.id] is not info:
        raise ValueError(f"system {info.id!r} is registered twice")
    _REGISTRY[info.id] = info
    return info


def system_modules() -> list[str]:
    """The modules that register a system when imported: every subpackage of ``engine.systems`` (sorted; a name
    starting with ``_`` is skipped), so a new system is a new package there and nothing else lists it."""
    from .. import systems as package

    return sorted(
        f"{package.__name__}.{m.name}"
        for m in pkgutil.iter_modules(package.__path__)
        if m.ispkg and not m.name.startswith("_")
    )


def _load_all() -> None:
    global _loaded
    if not _loaded:
        for mod in system_modules():
            importlib.import_module(mod)
        _loaded = True


def _load_one(system_id: str) -> None:
    """Import only the package of ``system_id`` (a system's id is its package's name): a session of one system
    does not pay for importing the others."""
    if system_id in _REGISTRY or _loaded or not system_id.isidentifier() or system_id.startswith("_"):
        return
    name = f"{__package__.rpartition('.')[0]}.systems.{system_id}"
    if name in system_modules():
        importlib.import_module(name)


def get_system(system_id: str) -> SystemInfo:
    _load_one(system_id)
    if system_id not in _REGISTRY:
        _load_all()
    try:
        return _REGISTRY[system_id]
    except KeyError:
        raise ValueError(f"unsupported system: {system_id!r} (registered: {', '.join(sorted(_REGISTRY))})") from None


def systems() -> list[SystemInfo]:
    _load_all()
    return [_REGISTRY[k] for k in sorted(_REGISTRY)]
