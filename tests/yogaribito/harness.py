"""The stand-in for ``engine.core.session.GameContext`` that the 夜狩り人 mixin unit tests drive the rules with:
real ``Dice`` (scripted faces or a seed), every event kept as a tuple, a version bumped by each state change."""

from __future__ import annotations

from typing import Any

from engine.core.dice import Dice
from engine.core.machine import FlowState, MachineSpec

__all__ = ["FakeCtx"]


class FakeCtx:
    def __init__(self, dice: Dice, options: dict[str, Any] | None = None):
        self.version = 0  # as GameContext: bumped by every state change
        self.dice = dice
        self.options: dict[str, Any] = dict(options or {})
        self.events: list[tuple[Any, ...]] = []

    def state(self, path: str, old: Any, new: Any, rule: str = "", cause: str = "") -> None:
        self.version += 1
        self.events.append(("state", path, old, new, rule))

    def check(self, check: str, rule: str, data: dict[str, Any]) -> None:
        self.events.append(("check", check, data))

    def info(self, topic: str, text: str, **data: Any) -> None:
        self.events.append(("info", topic, data))

    def narrate(self, actor: str, text: str, source: str = "scenario") -> None:
        self.events.append(("narration", actor, text))

    def flow(self, spec: MachineSpec) -> FlowState:
        return FlowState(spec, lambda m, trig, src, dst: self.events.append(("phase", trig, src, dst)))
