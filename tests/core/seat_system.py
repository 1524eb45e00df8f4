"""A toy system for the seat boundary: a whisper, private hands, a GM ruling, a check voided by a hero point, and
a simultaneous face-down bid of two PCs and the GM. Registered only by the tests that use it."""

from __future__ import annotations

from collections.abc import Generator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from engine.core import MachineSpec, SystemInfo, ask
from engine.core.decision import Decision
from engine.core.scenario import ScenarioBase
from engine.core.session import GameContext
from engine.core.visibility import GM, Secret

from .fake_system import register_test_system, unregister_test_system

__all__ = ["SEAT", "register_seat_toy", "unregister_seat_toy", "write_seat_scenario", "WHISPER", "HANDS", "Choice"]

ACTORS = {"gm": "gm", "aoi": "pc", "beni": "pc"}
WHISPER = "合言葉は月影"
HANDS = {"aoi": {"a1": "赤い糸", "a2": "銀の鈴"}, "beni": {"b1": "青い鍵", "b2": "古い鏡"}, "gm": {"g1": "黒い羽", "g2": "白い骨"}}


class SeatConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SeatScenario(ScenarioBase):
    config: SeatConfig = Field(default_factory=SeatConfig)


class Choice(BaseModel):
    """A payload whose fields are named like the answer envelope's (choice, text): still a payload."""

    model_config = ConfigDict(extra="forbid")
    choice: str = Field(min_length=1, max_length=8)
    text: str = Field("", max_length=20)


FLOW = MachineSpec("seat_flow", states=["start", "bid", "done"],
                   transitions=[("bid", "start", "bid"), ("finish", "bid", "done")], initial="start")


class SeatGame:
    def __init__(self, ctx: GameContext):
        self.ctx = ctx
        self.flow = ctx.flow(FLOW)
        self.hands = {a: dict(h) for a, h in HANDS.items()}
        self.table: dict[str, str] = {}

    def actors(self) -> list[str]:
        return list(ACTORS)

    def actor_role(self, actor: str) -> str:
        return ACTORS[actor]

    def observation(self, actor: str) -> dict[str, Any]:
        obs: dict[str, Any] = {"table": dict(self.table), "hand_sizes": {a: len(h) for a, h in self.hands.items()}}
        if actor == GM:
            obs["hands"] = {a: dict(h) for a, h in self.hands.items() if a != GM}
        obs["my_hand"] = dict(self.hands[actor])
        return obs

    def snapshot(self) -> dict[str, Any]:
        return {"hands": {a: dict(h) for a, h in self.hands.items()}, "table": dict(self.table)}

    def secrets(self) -> list[Secret]:
        out = [Secret.of(WHISPER, "aoi", GM)]
        for a, h in self.hands.items():
            holders = (a,) if a == GM else (a, GM)
            out += [Secret.of(text, *holders) for text in h.values()]
        return out

    def state_audience(self, path: str) -> list[str] | None:
        head, _, rest = path.partition(".")
        if head == "hand":
            return [rest] if rest == GM else [rest, GM]
        return None

    def run(self) -> Generator[Any, Any, dict[str, Any]]:
        ctx = self.ctx
        ctx.narrate(GM, "月の夜、三人が集まった。")
        ctx.whisper(["aoi"], WHISPER)
        k1 = ctx.check("seat.check", "seat §1", {"label": "葵の判定"}, label="葵の判定",
                       rolls=[{"who": "aoi", "pool": 2, "faces": [1, 2], "target": 3, "ach": 1, "success": False,
                               "result": "failure"}])
        verdict = yield from ask.approve(ctx, GM, "seat.approve", "紅のヒーローポイント", "紅がヒーローポイントで判定をやり直す。認める?",
                                         "seat §2", {"omnipotent": "万能すぎる", "off_cast": "キャストに合わない"})
        if verdict.approved:
            ctx.void(k1, "seat §2", "実は成功していた", by="beni")
            ctx.check("seat.check", "seat §2", {"label": "葵の判定（やり直し）"}, label="葵の判定（やり直し）",
                      rolls=[{"who": "aoi", "pool": 2, "faces": [6, 5], "target": 3, "ach": 2, "success": True,
                              "result": "success"}])
        said = yield from ask.ask_payload("aoi", "seat.say", "合図を決める", "seat §3", Choice)
        ctx.narrate("aoi", f"合図: {said.choice}", source="player")
        self.flow.fire("bid")
        members = [Decision(a, "seat.bid", "伏せて出すカード", "seat §4",
                            options=ask.options(list(self.hands[a].items()))) for a in ("aoi", "beni", GM)]
        answers = yield from ask.simultaneous(members, "seat.bid", "seat §4")
        for a, ans in answers.items():
            card = ans.choice
            old = sorted(self.hands[a])
            self.table[a] = self.hands[a].pop(card)
            ctx.state(f"hand.{a}", old, sorted(self.hands[a]), "seat §4")
        self.flow.fire("finish")
        return {"table": dict(self.table)}


SEAT = SystemInfo(id="seat_toy", name="席", version="0.1", capabilities=frozenset({"simultaneous"}),
                  scenario_model=SeatScenario, new_game=SeatGame, machines=(FLOW,), config_model=SeatConfig,
                  spec="seat_toy.md")

SEAT_POLICY = {
    "seat.approve": lambda d, v: "approve",
    "seat.say": lambda d, v: {"payload": {"choice": "月", "text": "小声で"}},
    "seat.bid": lambda d, v: d.option_ids[-1],
}


def register_seat_toy() -> SystemInfo:
    return register_test_system(SEAT, SEAT_POLICY)


def unregister_seat_toy() -> None:
    unregister_test_system(SEAT)


def write_seat_scenario(directory: Path) -> Path:
    p = directory / "seat_demo.yaml"
    p.write_text("system: seat_toy\nid: seat_demo\ntitle: 席の夜\n", encoding="utf-8")
    return p
