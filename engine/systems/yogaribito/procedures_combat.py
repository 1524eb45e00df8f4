"""Procedures of the combat part (rules/yogaribito.md §7.3–§7.7, §7.10.1, §11.6) for worked examples.

Each procedure is ``fn(game, args) -> Gen`` returning a dict merged into the session outcome (``result`` is what
``expect.result`` compares). Dispatch and ``setup`` (characters, ``layout``, time of day, tags, phase) are in
procedures.py; chain several with the checks part's ``steps``. Except ``combat``, the procedures work on the prepared
table as a running combat (``CombatMixin.begin_combat_context``): the enemies are the present GM-side characters and
the battlefield is ``setup.layout`` (default: PCs in one engagement, the GM side in another). When the §11.6 end
condition is met in such a procedure it is reported as ``combat_over`` and play goes on (no §7.10.1 processing).

| procedure | arguments | result |
|---|---|---|
| `attack` | `attacker`, `source` (item uid, feat id, `unarmed`, natural weapon), `targets` (ids; default: D36 asked) | `{hit: {id: bool}, damage: {id: n}, rows: {id: row}, hit_check: {...}}` |
| `turn` | `actor` | one main phase (D60, D34, D35 …) and its cleanup: `{acted: bool}` |
| `action` | `actor`, `major` (true) | one D34/D35 decision and its execution: the option id chosen |
| `initiative` | `round` (rounds already played, default 0) | the setup phase (D30–D33): the initiative order |
| `cleanup` | `actor` | the actor's cleanup (毒, 呪詛): the actor's {life, soul, incapacitated} |
| `move` | `actor`, `dest` (engagement id or `new`), `how` (move / withdraw) | moved (bool) |
| `swap` | `actor`, `item` (uid) and `slot`, or `unequip` (uid) | the actor's 【燎】 |
| `end_phase` | — | null |
| `combat_end` | — | null (§7.10.1 on the battlefield) |
| `combat` | `enemies` (default: the present GM side), `layout` (default: setup's), `flying`, `escape_allowed`, `end_condition` | the outcome: pcs_win / pcs_lose / ended_by_gm / escaped / round_cap |
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .base import Gen

if TYPE_CHECKING:
    from .game import YogaribitoGame
    from .state import Character

__all__ = ["PROCEDURES"]


def _char(game: YogaribitoGame, cid: str, what: str) -> Character:
    if cid not in game.t.chars:
        raise ValueError(f"{what}: unknown character {cid!r}")
    return game.t.chars[cid]


def _ready(game: YogaribitoGame) -> None:
    if game._cb is None or game.t.battlefield is None:
        game.begin_combat_context({})


def _extra(game: YogaribitoGame) -> dict[str, Any]:
    cb = game._cb
    return {"combat_over": cb.outcome} if cb is not None and cb.outcome is not None else {}


def proc_attack(game: YogaribitoGame, a: dict[str, Any]) -> Gen:
    _ready(game)
    c = _char(game, a["attacker"], "attack.attacker")
    out = yield from game.attack(c, str(a["source"]), list(a["targets"]) if a.get("targets") else None)
    return {"result": {k: out[k] for k in ("hit", "damage", "rows", "hit_check") if k in out}, **_extra(game)}


def proc_turn(game: YogaribitoGame, a: dict[str, Any]) -> Gen:
    _ready(game)
    c = _char(game, a["actor"], "turn.actor")
    acted = yield from game.main_phase(c)
    if acted:
        yield from game.cleanup(c)
    return {"result": {"acted": acted}, **_extra(game)}


def proc_action(game: YogaribitoGame, a: dict[str, Any]) -> Gen:
    _ready(game)
    c = _char(game, a["actor"], "action.actor")
    major = bool(a.get("major", True))
    ans = yield from game._ask_action(c, major=major)
    if ans not in ("none", "pass"):
        yield from game._do_action(c, ans, major=major)
    return {"result": ans, **_extra(game)}


def proc_initiative(game: YogaribitoGame, a: dict[str, Any]) -> Gen:
    _ready(game)
    game.bf.round = int(a.get("round", game.bf.round))
    yield from game.setup_phase()
    return {"result": list(game.bf.order), **_extra(game)}


def proc_cleanup(game: YogaribitoGame, a: dict[str, Any]) -> Gen:
    _ready(game)
    c = _char(game, a["actor"], "cleanup.actor")
    yield from game.cleanup(c)
    return {"result": {"life": c.current.get("life", 0), "soul": c.current.get("soul", 0),
                       "incapacitated": c.incapacitated}, **_extra(game)}


def proc_move(game: YogaribitoGame, a: dict[str, Any]) -> Gen:
    _ready(game)
    c = _char(game, a["actor"], "move.actor")
    how = a.get("how", "move")
    if how not in ("move", "withdraw"):
        raise ValueError(f"move.how: move or withdraw, not {how!r}")
    moved = yield from game.move(c, str(a["dest"]), how=how, rule=f"§7.4 {how}")
    return {"result": moved, **_extra(game)}


def proc_swap(game: YogaribitoGame, a: dict[str, Any]) -> Gen:
    _ready(game)
    c = _char(game, a["actor"], "swap.actor")
    if a.get("unequip"):
        game.unequip(c, str(a["unequip"]))
    else:
        game.swap(c, str(a["item"]), str(a["slot"]))
    if False:  # pragma: no cover - every procedure is a generator
        yield
    return {"result": c.current.get("kagaribi", 0)}


def proc_end_phase(game: YogaribitoGame, a: dict[str, Any]) -> Gen:
    _ready(game)
    game.end_phase()
    if False:  # pragma: no cover
        yield
    return {"result": None, **_extra(game)}


def proc_combat_end(game: YogaribitoGame, a: dict[str, Any]) -> Gen:
    _ready(game)
    game.combat_end()
    game._cb = None
    if False:  # pragma: no cover
        yield
    return {"result": None}


def proc_combat(game: YogaribitoGame, a: dict[str, Any]) -> Gen:
    enemies = a.get("enemies")
    if enemies is None:
        present = game.t.present or list(game.t.chars)
        enemies = [i for i in present if not game.t.chars[i].is_pc]
    spec = {"enemies": list(enemies), "layout": a.get("layout"), "flying": list(a.get("flying") or []),
            "escape_allowed": bool(a.get("escape_allowed", False)), "end_condition": a.get("end_condition")}
    outcome = yield from game.combat(spec)
    return {"result": outcome}


PROCEDURES = {
    "attack": proc_attack,
    "turn": proc_turn,
    "action": proc_action,
    "initiative": proc_initiative,
    "cleanup": proc_cleanup,
    "move": proc_move,
    "swap": proc_swap,
    "end_phase": proc_end_phase,
    "combat_end": proc_combat_end,
    "combat": proc_combat,
}
