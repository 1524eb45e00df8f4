"""The data files of a normal install; everything else is in pyproject.toml.

``prompts/`` and ``scenarios/`` stay at the top of the repository, where designers edit them. A normal install
(``pip install .``, a wheel) copies every file under them, in every subdirectory, to
``<prefix>/share/trpg-agents/``, where ``engine.resources.resource_dir()`` finds them; an editable install reads the
source tree. ``[tool.setuptools.data-files]`` cannot recurse (it would need a line per directory, so per system):
setuptools merges the ``data_files`` computed here with the pyproject metadata.
"""

from __future__ import annotations

from pathlib import Path

from setuptools import setup

ROOT = Path(__file__).resolve().parent
#: the same names as engine.resources.DATA_DIRS (not imported: the build must not import the package)
DATA_DIRS = ("prompts", "scenarios")
SHARE = "share/trpg-agents"
_SKIP_DIRS = {"__pycache__"}
_SKIP_SUFFIXES = (".pyc", ".pyo", "~", ".swp", ".orig", ".rej")


def _shipped(rel: Path) -> bool:
    if any(part.startswith(".") or part in _SKIP_DIRS for part in rel.parts):
        return False
    return not rel.name.endswith(_SKIP_SUFFIXES)


def data_files(root: Path = ROOT) -> list[tuple[str, list[str]]]:
    """``[(install dir, [source file, ...]), ...]``: one entry per directory under the data directories, paths
    relative to ``root`` with ``/`` (as setuptools wants them)."""
    by_dir: dict[str, list[str]] = {}
    for top in DATA_DIRS:
        for f in sorted((root / top).rglob("*")):
            rel = f.relative_to(root)
            if f.is_file() and _shipped(rel):
                by_dir.setdefault(f"{SHARE}/{rel.parent.as_posix()}", []).append(rel.as_posix())
    return sorted(by_dir.items())


if __name__ == "__main__":
    setup(data_files=data_files())
