"""A toy rule system for core tests: three flow states, a choice, a pick and a payload decision, dice and checks.

Registered only by the tests (``register_toy``), never a package of ``engine.systems`` (the registry imports every
one), so core tests do not depend on any real system being finished.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Generator
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from engine.core import Decision, MachineSpec, Option, SystemInfo, register_system
from engine.core.decision import Answer
from engine.core.registry import _REGISTRY
from engine.core.scenario import ScenarioBase
from engine.core.session import GameContext, Session

__all__ = ["TOY", "register_toy", "unregister_toy", "register_test_system", "unregister_test_system", "write_scenario", "ToyBid", "TOY_POLICY", "ACTORS"]

ACTORS = {"gm": "gm", "aoi": "pc", "beni": "pc", "npc1": "npc"}


class ToyConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    rounds: int = Field(3, ge=1, le=50)


class ToyScenario(ScenarioBase):
    goal: int = Field(3, ge=1, le=100, description="score the PCs need")
    intro: str = "人形たちが目を覚ます。"
    config: ToyConfig = Field(default_factory=ToyConfig)


class ToyBid(BaseModel):
    model_config = ConfigDict(extra="forbid")
    amount: int = Field(ge=1, le=6, description="how much to bid")
    word: str = Field(min_length=1, max_length=8, description="a short word")
    mood: Literal["calm", "angry"] = "calm"


FLOW = MachineSpec(
    "toy_flow",
    states=["setup", "play", "done"],
    transitions=[("start", "setup", "play"), ("next_round", "play", "play"), ("finish", "play", "done")],
    initial="setup",
    doc="toy session flow",
)


class ToyGame:
    def __init__(self, ctx: GameContext):
        self.ctx = ctx
        self.score = 0
        self.round = 0
        self.flow = ctx.flow(FLOW)
        self.secret = {"aoi": "赤い糸", "beni": "青い鍵"}

    def actors(self) -> list[str]:
        return list(ACTORS)

    def actor_role(self, actor: str) -> str:
        return ACTORS[actor]

    def observation(self, actor: str) -> dict[str, Any]:
        me: dict[str, Any] = {"id": actor, "role": ACTORS[actor]}
        if actor in self.secret:
            me["secret"] = self.secret[actor]
            me["abilities"] = {"passion": 3, "grace": 2, "maturity": 2}
            me["willpower"] = 1
        return {
            "me": me,
            "scene": {"round": self.round, "score": self.score},
            "characters": [{"id": a, "role": r} for a, r in ACTORS.items()],
            "relations": [{"between": ["aoi", "beni"], "strength": 1, "emotions": ["友情", "嫉妬"]}],
        }

    def snapshot(self) -> dict[str, Any]:
        return {"score": self.score, "round": self.round, "flow": self.flow.state}

    def run(self) -> Generator[Decision, Answer, dict[str, Any]]:
        ctx = self.ctx
        model = ctx.scenario.model
        ctx.narrate("gm", model.intro)
        self.flow.fire("start")
        try:
            for r in range(1, ctx.config.rounds + 1):
                self.round = r
                ans = yield Decision(
                    actor="gm",
                    kind="toy.choose",
                    prompt="道を選んでください",
                    rule="toy §1",
                    options=[Option("left", "左の扉"), Option("right", "右の扉"), Option("wait", "待つ")],
                    refused={"back": "戻れない"},
                    context={"round": r},
                )
                a, b = ctx.dice.d6("toy check"), ctx.dice.d6("toy check")
                ok = a + b >= 7
                ctx.check("toy.check", "toy §2", {"dice": [a, b], "target": 7, "success": ok})
                if ok and ans.choice != "wait":
                    old = self.score
                    self.score += 1
                    ctx.state("score", old, self.score, rule="toy §2", cause=str(ans.choice))
                ans = yield Decision(
                    actor="aoi",
                    kind="toy.pick",
                    prompt="持っていく物を選んでください",
                    rule="toy §3",
                    options=[Option("x", "鏡"), Option("y", "リボン"), Option("z", "鍵")],
                    pick=(1, 2),
                    speech=True,
                )
                if ans.text:
                    ctx.narrate("aoi", ans.text, source="player")
                limit = r + 3
                payloads = [{"amount": n, "word": "はい"} for n in range(1, min(limit, 6) + 1)] if r % 2 else None
                ans = yield Decision(
                    actor="npc1",
                    kind="toy.bid",
                    prompt="賭け金を決めてください",
                    rule="toy §4",
                    payload_model=ToyBid,
                    payload_check=lambda bid, limit=limit: f"amount {bid.amount} exceeds {limit}" if bid.amount > limit else None,
                    samples=payloads,
                )
                roll = ctx.dice.d6("toy bid")
                ctx.check("toy.bid", "toy §4", {"bid": ans.payload.amount, "roll": roll})  # type: ignore[union-attr]
                if r < ctx.config.rounds:
                    self.flow.fire("next_round")
            self.flow.fire("finish")
        finally:
            self.flow.close()
        return {"score": self.score, "winner": "pcs" if self.score >= model.goal else "gm"}


TOY = SystemInfo(
    id="toy",
    name="おもちゃ",
    version="0.1",
    capabilities=frozenset({"dice", "payload"}),
    scenario_model=ToyScenario,
    new_game=ToyGame,
    machines=(FLOW,),
    config_model=ToyConfig,
    spec="toy.md",
)

TOY_POLICY = {
    "toy.choose": lambda d, s: "left",
    "toy.pick": lambda d, s: ["x"],
    "toy.bid": lambda d, s: {"amount": 1, "word": "はい"},
}


def register_test_system(info: SystemInfo, policy: dict[str, Any]) -> SystemInfo:
    """Register a system of the tests and its scripted policy (idempotent)."""
    if _REGISTRY.get(info.id) is not info:
        register_system(info)
    name = f"agent.scripted.{info.id}"
    if name not in sys.modules:
        mod = types.ModuleType(name)
        mod.POLICY = policy  # type: ignore[attr-defined]
        sys.modules[name] = mod
    return info


def unregister_test_system(info: SystemInfo) -> None:
    """Leave the registry as other tests expect it (conformance tests iterate over every registered system)."""
    if _REGISTRY.get(info.id) is info:
        del _REGISTRY[info.id]
    sys.modules.pop(f"agent.scripted.{info.id}", None)
    from agent.scripted import _POLICIES

    _POLICIES.pop(info.id, None)


def register_toy() -> SystemInfo:
    """Register the toy system and its scripted policy (idempotent)."""
    return register_test_system(TOY, TOY_POLICY)


def unregister_toy() -> None:
    unregister_test_system(TOY)


SCENARIO = """\
system: toy
id: toy_demo
title: おもちゃの夜
goal: 2
config:
  rounds: 3
"""


def write_scenario(directory: Path, text: str = SCENARIO, name: str = "toy_demo.yaml") -> Path:
    p = directory / name
    p.write_text(text, encoding="utf-8")
    return p


def new_session(path: Path, seed: int = 0, **kw: Any) -> Session:
    from engine.core import load_scenario

    return Session(load_scenario(path), seed, **kw)
