"""Scripted policy for 夜狩り人 (rules/yogaribito.md §8): one module per part, each exporting ``POLICY``.

The modules are merged here (checks, combat, creation, game); a module that does not exist yet is skipped, so that
each part can be written and tested on its own.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from engine.core.decision import Decision
from engine.core.session import Session

__all__ = ["POLICY"]

Policy = Callable[[Decision, Session], Any]
POLICY: dict[str, Policy] = {}

for _name in ("checks", "combat", "creation", "game"):
    try:
        _mod = importlib.import_module(f"{__name__}.{_name}")
    except ModuleNotFoundError as e:
        if e.name != f"{__name__}.{_name}":
            raise
        continue
    POLICY.update(_mod.POLICY)
