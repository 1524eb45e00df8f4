"""Where the top-level data directories (``prompts/``, ``scenarios/``) are, in a source tree or an installed copy.

They are plain files that designers edit in the repository, so they are not Python package data: an editable
install (``pip install -e .``) reads them from the source tree, a normal install finds the copy that the
``data_files`` of ``setup.py`` (every file under both, in every subdirectory) put under ``<prefix>/share/trpg-agents/``.
"""

from __future__ import annotations

import sys
import sysconfig
from pathlib import Path

__all__ = ["resource_dir", "DATA_DIRS"]

DATA_DIRS = ("prompts", "scenarios")
_SOURCE_ROOT = Path(__file__).resolve().parent.parent


def resource_dir(name: str) -> Path:
    """The directory ``prompts`` or ``scenarios``; raises FileNotFoundError naming the places looked at."""
    if name not in DATA_DIRS:
        raise ValueError(f"unknown data directory {name!r}; known: {', '.join(DATA_DIRS)}")
    candidates = [_SOURCE_ROOT / name]
    for prefix in dict.fromkeys((sysconfig.get_path("data"), sys.prefix, sys.base_prefix)):
        candidates.append(Path(prefix) / "share" / "trpg-agents" / name)
    for c in candidates:
        if c.is_dir():
            return c
    raise FileNotFoundError(f"data directory {name!r} not found; looked in: {', '.join(str(c) for c in candidates)}")
