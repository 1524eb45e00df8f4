"""One procedure of ラストフラグメント on a prepared table, for worked examples (``trpg examples``;
docs/examples-format.md, section ラストフラグメント). A case gives ``setup`` (how the table differs from the base
scenario) and ``procedure`` (one rules procedure, or ``steps``: a list of them); the outcome's ``result`` is what
the procedure returns.

**setup** (every key optional): ``phase`` (``main`` default, ``climax``, ``ending``), ``scene`` (a scene id: the
current scene, visited, its placed things revealed unless ``revealed`` says otherwise), ``scene_type``
(``daily``/``nondaily``), ``revealed`` (refs), ``visited`` (scene ids), ``attempts`` (``"aoi>o1"``), ``flags``,
``holders: {fragment: [ids]}``, ``remove: [character ids]``, ``add_pcs: [{id, name}]`` (seated after the others), ``chars: {id: {hp, max_hp, tokens, items, abilities
(merged; 0 removes), skills (besides 通常攻撃), abnormalities: [ids], darts_used: [ids], bonds: {target: type},
bond_powers_used, incapacitated, ap_unspent, ap_total, skill_slots, memories, personal_scenes_used, combatant, sp,
sp_left}}``.

**procedure**: ``investigate {actor, target}``, ``shock {ability, targets}``, ``check {actor, kind, ability}``
(then the fumble table), ``enter {scene}`` (scene_enter: discovery, triggers), ``scene_play {}``, ``main_action
{actor}``, ``free {actor}``, ``personal_scene {owner}``, ``gate {}`` (the climax gate; when true the declarations),
``main_phase {stop_at_enter}`` (from the start scene; stops before entering the N-th scene), ``climax {}`` (combat,
aftermath, loot), ``combat {participants}``, ``aftermath {}``, ``loot {winner, losers}``,
``ending {}``, ``continuation {pc, items}`` (§7.12 then next_session_items), ``new_character {}``, ``steps [...]``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...core.examples import dispatch_procedure
from .base import Gen
from .state import Abn

if TYPE_CHECKING:
    from .game import LastFragmentGame

__all__ = ["apply_setup", "run_procedure", "PROCEDURES"]


def _char(game: LastFragmentGame, cid: str, where: str) -> Any:
    c = game.t.chars.get(cid)
    if c is None:
        raise ValueError(f"{where}: unknown character {cid!r}; characters: {', '.join(game.t.chars)}")
    return c


def apply_setup(game: LastFragmentGame, setup: dict[str, Any]) -> None:
    t = game.t
    for cid in setup.get("remove") or []:
        _char(game, cid, "setup.remove")
        del t.chars[cid]
    for k, spec in enumerate(setup.get("add_pcs") or []):
        cid = str(spec["id"])
        if cid in t.chars:
            raise ValueError(f"setup.add_pcs[{k}]: the id {cid!r} is taken")
        c = game.new_pc(cid, len(t.pcs()) + 1)
        c.name = str(spec.get("name", cid))
        chars = list(t.chars.items())
        n = len(t.pcs())
        t.chars = dict([*chars[:n], (cid, c), *chars[n:]])
    t.phase = str(setup.get("phase", "main"))
    game.session_m.state = {"main": "scene_play", "climax": "climax_phase", "ending": "ending_phase"}.get(
        t.phase, "scene_play")
    if t.phase == "climax":
        t.scene_type = game.sc.climax.scene_type or "nondaily"
    sid = setup.get("scene")
    if sid is not None:
        s = game.scenes[sid]
        t.scene = sid
        t.scene_type = s.type
        t.visited = [sid]
        t.revealed = [p.ref for p in s.placed]
    if "scene_type" in setup:
        t.scene_type = setup["scene_type"]
    if "revealed" in setup:
        t.revealed = list(setup["revealed"])
    if "visited" in setup:
        t.visited = list(setup["visited"])
    t.attempts = list(setup.get("attempts") or [])
    t.flags = list(setup.get("flags") or [])
    game.deliver() if setup.get("deliver", True) else None
    for fid, hs in (setup.get("holders") or {}).items():
        if fid not in game.frag:
            raise ValueError(f"setup.holders: unknown fragment {fid!r}")
        t.holders[fid] = list(hs)
    for cid, d in (setup.get("chars") or {}).items():
        c = _char(game, cid, "setup.chars")
        for k, v in d.items():
            if k == "abilities":
                c.abilities = {a: lv for a, lv in {**c.abilities, **v}.items() if lv}
            elif k == "skills":
                c.skills = ["tsuujou_kougeki", *v]
            elif k == "abnormalities":
                c.abnormalities = [Abn(a, game.tb.abn[a]["level"]) for a in v]
            elif k == "darts_used":
                for a in c.abnormalities:
                    a.dart_used = a.id in v
            elif k == "bond_powers_used":
                c.bp_used = list(v)
            elif k == "personal_scenes_used":
                c.personal_used = int(v)
            elif k == "hp":
                c.hp = int(v)
                c.incapacitated = c.hp <= 0
            elif k in ("max_hp", "tokens", "items", "bonds", "incapacitated", "ap_unspent", "ap_total", "skill_slots",
                       "memories", "combatant", "sp", "sp_left", "title", "name"):
                setattr(c, k, v if not isinstance(v, list) else list(v))
            else:
                raise ValueError(f"setup.chars.{cid}: unknown key {k!r}")


def _investigate(game: LastFragmentGame, a: dict[str, Any]) -> Gen:
    c = _char(game, a["actor"], "investigate.actor")
    legal = [t for t, _, _ in game.inv_targets(c, game.scenes.get(game.t.scene or ""))]
    if a["target"] not in legal:
        return {"result": "already_attempted" if f"{c.id}>{a['target']}" in game.t.attempts else "illegal"}
    before = game.ctx.checks
    yield from game.investigate(c, a["target"], game.scenes.get(game.t.scene or ""))
    return {"result": "attempted" if game.ctx.checks == before else _last(game)}


def _last(game: LastFragmentGame) -> Any:
    return game.last_result


def _shock(game: LastFragmentGame, a: dict[str, Any]) -> Gen:
    targets = [_char(game, x, "shock.targets") for x in a.get("targets") or [p.id for p in game.t.pcs()]]
    yield from game.shock(targets, a["ability"])
    return {"result": {c.id: c.abnormality_level for c in targets}}


def _check(game: LastFragmentGame, a: dict[str, Any]) -> Gen:
    c = _char(game, a["actor"], "check.actor")
    out = yield from game.check(c, a.get("kind", "investigation"), a["ability"], rule="procedure")
    yield from game.after_check(c, out)
    return {"result": out["result"], "check": {k: v for k, v in out.items() if k != "cid"}}


def _enter(game: LastFragmentGame, a: dict[str, Any]) -> Gen:
    yield from game.enter_scene(game.scenes[a["scene"]])
    return {"result": list(game.t.revealed)}


def _scene_play(game: LastFragmentGame, a: dict[str, Any]) -> Gen:
    r = yield from game.scene_play(game.scenes[game.t.scene or game.sc.start_scene])
    return {"result": r}


def _main_action(game: LastFragmentGame, a: dict[str, Any]) -> Gen:
    c = _char(game, a["actor"], "main_action.actor")
    acted = yield from game.main_action(c, game.scenes[game.t.scene or game.sc.start_scene])
    return {"result": acted}


def _free(game: LastFragmentGame, a: dict[str, Any]) -> Gen:
    c = _char(game, a["actor"], "free.actor")
    yield from game.free_window(c, str(a.get("window", "main")))
    return {"result": None}


def _personal(game: LastFragmentGame, a: dict[str, Any]) -> Gen:
    c = _char(game, a["owner"], "personal_scene.owner")
    if c.personal_used >= game.cfg.personal_scenes_per_session:
        return {"result": "rejected"}
    yield from game.personal_scene(c, game.scenes[game.t.scene or game.sc.start_scene])
    return {"result": "done"}


def _gate(game: LastFragmentGame, a: dict[str, Any]) -> Gen:
    if not game.gate():
        return {"result": "closed"}
    ok = yield from game.climax_declaration()
    return {"result": "climax" if ok else "declined"}


def _main_phase(game: LastFragmentGame, a: dict[str, Any]) -> Gen:
    game.t.visited, game.t.scene = [], None
    game.stop_at_enter = a.get("stop_at_enter")
    game.session_m.state = "scene_select"
    r = yield from game.main_phase_loop()
    return {"result": {"climax": r, "visited": list(game.t.visited), "next": game.next_scene,
                       "forced": list(game.t.forced)}}


def _climax(game: LastFragmentGame, a: dict[str, Any]) -> Gen:
    game.session_m.state = "climax_phase"
    game.t.phase = "main"
    yield from game.climax_phase()
    return {"result": {"winner": game.t.winner, "losers": list(game.t.losers), "rounds": game.t.round}}


def _combat(game: LastFragmentGame, a: dict[str, Any]) -> Gen:
    game.t.phase = "climax"
    parts = [_char(game, x, "combat.participants") for x in a.get("participants") or list(game.t.chars)]
    for p in parts:
        p.combatant = True
    yield from game.combat(parts)
    return {"result": {"winner": game.t.winner, "losers": list(game.t.losers), "rounds": game.t.round}}


def _aftermath(game: LastFragmentGame, a: dict[str, Any]) -> Gen:
    game.t.phase = "climax"
    yield from game.aftermath()
    return {"result": None}


def _loot(game: LastFragmentGame, a: dict[str, Any]) -> Gen:
    if "winner" in a:
        game.t.winner = a["winner"]
        game.t.losers = list(a.get("losers") or [])
    yield from game.loot()
    return {"result": None}


def _ending(game: LastFragmentGame, a: dict[str, Any]) -> Gen:
    game.session_m.state = "ending_phase"
    out = yield from game.ending()
    return {"result": out["endings"], "campaign": out["campaign"]}


def _continuation(game: LastFragmentGame, a: dict[str, Any]) -> Gen:
    c = _char(game, a["pc"], "continuation.pc")
    for attr, v in (("hp", c.max_hp), ("tokens", 0), ("bp_used", []), ("personal_used", 0), ("incapacitated", False)):
        setattr(c, attr, v)
    for x in c.abnormalities:
        x.dart_used = False
    yield from game.continuation(c)
    yield from game.next_session_items(c)
    return {"result": {"items": list(c.items), "memories": list(c.memories)}}


def _new_character(game: LastFragmentGame, a: dict[str, Any]) -> Gen:
    from .creation import create_character

    sheet = yield from create_character(game, str(a.get("id", "pc1")))
    return {"result": sheet["name"], "sheet": sheet}


def _steps(game: LastFragmentGame, a: Any) -> Gen:
    out = []
    for step in a:
        r = yield from run_procedure(game, step)
        out.append(r.get("result"))
    return {"result": out}


PROCEDURES = {
    "investigate": _investigate, "shock": _shock, "check": _check, "enter": _enter, "scene_play": _scene_play,
    "main_action": _main_action, "free": _free, "personal_scene": _personal, "gate": _gate, "main_phase": _main_phase,
    "climax": _climax, "combat": _combat, "aftermath": _aftermath, "loot": _loot, "ending": _ending, "continuation": _continuation,
    "new_character": _new_character, "steps": _steps,
}


def run_procedure(game: LastFragmentGame, proc: dict[str, Any]) -> Gen:
    return (yield from dispatch_procedure(PROCEDURES, game, proc))
