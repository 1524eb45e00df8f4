"""Scripted policy for 「A」 (rules/a_game.md §8 scripted defaults and the §9.9 heuristics): ``POLICY``."""

from __future__ import annotations

from .policy import POLICY

__all__ = ["POLICY"]
