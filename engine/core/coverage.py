"""The runs that take every drawn edge of a system's machines, declared by the system.

ARCHITECTURE.md, core contract 6: "so the diagrams are the flow". Every drawn edge of a system's flow machines
(``MachineSpec.moves()``) must be taken by some run. Besides the golden playthroughs, a system declares seeded
sessions that reach its rare branches in ``engine/systems/<id>/coverage.py``: a module-level ``RUNS: tuple[Run, ...]``
(sample scenarios with scripted, random and mixed seats, rule options, session options, and scenario variants built
from the samples). ``tests/test_machine_coverage.py`` imports ``engine.systems.<id>.coverage`` for every registered
system with machines and plays its runs; nothing outside the system's folder names its runs or scenarios.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .registry import SystemInfo
    from .scenario import LoadedScenario

__all__ = ["Edit", "Options", "Run", "MIXES", "sample", "scene", "coverage_module"]

#: a scenario variant: changes the sample's raw YAML (a dict, as ``yaml.safe_load`` reads it) in place
Edit = Callable[[dict[str, Any]], None]
#: session options, or a function of the loaded scenario returning them
Options = Mapping[str, Any] | Callable[["LoadedScenario"], Mapping[str, Any]]

#: seat mixes by name: the roles (gm, pc, npc) that play uniformly at random; the other seats play scripted
MIXES: dict[str, tuple[str, ...]] = {
    "scripted": (), "random_gm": ("gm",), "random_pcs": ("pc",), "random_npcs": ("npc",), "random": ("gm", "pc", "npc"),
}


@dataclass(frozen=True)
class Run:
    """Sessions of one scenario (a sample, or a variant: the sample's YAML changed by ``edit``) over seeds and seats."""

    id: str
    scenario: Path  # a sample scenario file (``SystemInfo.sample_scenarios``; see ``sample``)
    seeds: Iterable[int]
    mixes: tuple[str, ...] = ("scripted",)  # names in ``MIXES``
    edit: Edit | None = None
    config: Mapping[str, Any] = field(default_factory=dict)  # rule options
    options: Options = field(default_factory=dict)
    why: str = ""  # the edges the run is there for

    def __post_init__(self) -> None:
        unknown = [m for m in self.mixes if m not in MIXES]
        if unknown:
            raise ValueError(f"run {self.id!r}: unknown seat mixes {unknown} (known: {', '.join(MIXES)})")

    def session_options(self, sc: LoadedScenario) -> dict[str, Any]:
        """The session options for the loaded scenario."""
        return dict(self.options(sc) if callable(self.options) else self.options)


def sample(info: SystemInfo, stem: str) -> Path:
    """The system's sample scenario named ``stem`` (file name without suffix), from ``info.sample_scenarios``: the
    same file in a source tree and in an installed copy."""
    for path in info.sample_scenarios:
        if Path(path).stem == stem:
            return Path(path)
    known = ", ".join(Path(p).stem for p in info.sample_scenarios)
    raise ValueError(f"{info.id}: no sample scenario {stem!r} (samples: {known or 'none'})")


def scene(raw: dict[str, Any], sid: str) -> dict[str, Any]:
    """The scene ``sid`` of a raw scenario whose ``scenes`` is a list of mappings with an ``id`` (for ``Edit``s)."""
    try:
        return next(s for s in raw["scenes"] if s["id"] == sid)
    except StopIteration:
        raise KeyError(f"no scene {sid!r} in the scenario") from None


def coverage_module(system_id: str) -> str:
    """The module that declares the system's ``RUNS``."""
    return f"engine.systems.{system_id}.coverage"
