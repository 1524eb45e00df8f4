"""Procedures of creation and afterplay for worked examples (WE-01, WE-02, WE-03, WE-19) and edge-case files.

Each ``fn(game, args) -> Gen`` returns a dict merged into the session outcome; ``result`` is what
``expect.result`` compares.

| procedure | args | result |
|---|---|---|
| ``creation`` | ``pc_count`` (PCs ``pc1``…) or ``pcs: [ids]``; ``sample`` (D01's suggested sample) | ``{pc: [sheet problems]}``; also ``sheet`` / ``sheets`` |
| ``validate_sheet`` | a sheet (``YogaribitoPCSheet`` fields; ``id`` optional) | ``{ok, problems, values}`` (values: derived) |
| ``lifepath`` | ``pc`` (default ``pc1``) | the lifepath record (D12–D15) |
| ``xp`` | ``objective_achieved`` (default false), ``scenario_end`` (default true) | the afterplay result without ``campaign`` |
| ``scenario_end`` | — | ``{pc: alive / dead}`` |
| ``rebuild`` | ``pc`` | the PC's sheet after the rebuild |
| ``loadout`` | ``pc`` | ``{item uid: slot}`` after D11 |
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .base import Gen
from .creation import _derive, sheet_of

if TYPE_CHECKING:
    from .game import YogaribitoGame

__all__ = ["PROCEDURES"]


def _creation(game: YogaribitoGame, args: dict[str, Any]) -> Gen:
    ids = list(args.get("pcs") or [f"pc{i + 1}" for i in range(int(args.get("pc_count", 1)))])
    sheets = []
    for pid in ids:
        c = yield from game.create_character(pid, sample=args.get("sample"))
        game.t.chars.pop(pid, None)
        game.t.chars[pid] = c
        sheets.append(sheet_of(c))
    result = {s["id"]: _derive(s, game.cfg).problems for s in sheets}
    out: dict[str, Any] = {"result": result, "sheets": sheets}
    if len(sheets) == 1:
        out["sheet"] = sheets[0]
    return out


def _validate_sheet(game: YogaribitoGame, args: dict[str, Any]) -> Gen:
    sheet = {"id": "pc", **dict(args)}
    d = _derive(sheet, game.cfg)
    values: dict[str, Any] = {}
    if not d.problems:
        values = {**{k: v for k, v in d.base.items() if k != "kagaribi"}, "kagaribi": d.kagaribi,
                  "stock_points": d.stock_points, "clamped": list(d.clamped), "main_feats": list(d.main_feats),
                  "sub_feats": list(d.sub_feats)}
    game.ctx.info("sheet_validation", "ok" if not d.problems else "; ".join(d.problems), problems=list(d.problems))
    return {"result": {"ok": not d.problems, "problems": list(d.problems), "values": values}}
    yield  # a generator like every procedure


def _lifepath(game: YogaribitoGame, args: dict[str, Any]) -> Gen:
    pc = str(args.get("pc", "pc1"))
    lp = yield from game.choose_lifepath(pc, pc)
    c = game.t.chars.get(pc)
    if c is not None:
        game.ctx.state(f"{pc}.lifepath", dict(c.lifepath), dict(lp), "§3.1 step 8")
        c.lifepath = dict(lp)
    return {"result": lp}


def _xp(game: YogaribitoGame, args: dict[str, Any]) -> Gen:
    if args.get("scenario_end", True):
        game.scenario_end()
    r = yield from game.afterplay(bool(args.get("objective_achieved", False)))
    return {"result": {k: v for k, v in r.items() if k != "campaign"}, "campaign": r["campaign"]}


def _scenario_end(game: YogaribitoGame, args: dict[str, Any]) -> Gen:
    game.scenario_end()
    return {"result": {c.id: ("dead" if c.dead else "alive") for c in game.t.pcs()}}
    yield  # a generator like every procedure


def _rebuild(game: YogaribitoGame, args: dict[str, Any]) -> Gen:
    c = game.t.chars[str(args["pc"])]
    yield from game.rebuild(c)
    return {"result": sheet_of(c)}


def _loadout(game: YogaribitoGame, args: dict[str, Any]) -> Gen:
    c = game.t.chars[str(args["pc"])]
    lo = yield from game.choose_loadout(c)
    return {"result": lo}


PROCEDURES = {
    "creation": _creation,
    "validate_sheet": _validate_sheet,
    "lifepath": _lifepath,
    "xp": _xp,
    "scenario_end": _scenario_end,
    "rebuild": _rebuild,
    "loadout": _loadout,
}
