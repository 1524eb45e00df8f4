"""ラストフラグメント (rules/last_fragment.md): a d4 investigation/horror TRPG — fragments delivered by whisper, daily and
non-daily scenes, bonds and bond powers, abnormalities and darts, a last-one-standing climax with secret SP budgets.

The system's ``SystemInfo`` is built and registered in ``info.py``; DESIGN.md shows how the package is split."""

from __future__ import annotations

from .config import LastFragmentConfig
from .info import INFO, VERSION
from .scenario import LastFragmentScenario

__all__ = ["INFO", "LastFragmentConfig", "LastFragmentScenario", "VERSION"]
