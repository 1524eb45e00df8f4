"""「A」 (rules/a_game.md): a cast-based, stat-less TRPG — success elements approved by the SD, checks of one d6 per
element against twice the difficulty, cooperation, greed rolls, hero points with retcons, usage bans across games.

The system's ``SystemInfo`` is built and registered in ``info.py``; DESIGN.md shows how the package is split."""

from __future__ import annotations

from .config import AGameConfig
from .info import INFO, VERSION
from .scenario import AGameScenario

__all__ = ["INFO", "AGameConfig", "AGameScenario", "VERSION"]
