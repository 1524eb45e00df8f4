"""Single procedures on a prepared table, for the worked examples of rules/a_game.md §12 and designers' edge-case
files (``trpg examples``; docs/examples-format.md, section 「A」).

A session with ``options={"procedure": {NAME: ARGS}, "setup": {...}}`` loads the scenario's table (PCs, SDCs),
applies ``setup`` and runs one procedure of the rules instead of a whole game. The rules code is the same as in
play; only the starting point differs.

``setup`` (every key optional)::

    remove: [kyoju]                     # PCs (or SDCs) left out of the table
    add_pcs: [{id: taro, name: タロウ, elements: [{name: 釣り, categories: [technical]}]}]   # seated after the others
    casts: {yagami: protagonist, ...}   # default: the scenario's cast_assignment, the rest by seat order
    scene: s1                           # the scene in progress (id or 1-based index; default: the first), as framed
    turn: 4                             # its turn (default 1)
    game_no: 1
    hp: {yagami: 1}
    usage: {yagami: {空手: 5}}
    used_in: {yagami: {空手: [combat, athletics]}}   # the categories of the checks it was used in (D31)
    elements: {kyoju: [{name: 考古学, categories: [knowledge]}]}   # replace a PC's (or SDC's) elements
    add_elements: {kokui: [{name: 鉄扇, categories: [combat]}]}
    fill: {kyoju: 20}                   # pad the sheet with filler elements (【予備要素1】…) up to that many
    acted: [hana, suzumaru]             # PCs that have acted this turn (declared or cooperated)
    created: [suzumaru]                 # PCs that created an element this turn
    busy: {kyoju: 6}                    # in a continued action until that turn
    banned: [空手]                       # banned this game;  bans_next: [...];  blacklist: [支配]
    tallies: {yagami: {declared: 5, cooperations: 0, successes: 2, circle_turns: 7}}
    precedents: {yagami: [{category: combat, target: other, difficulty: 4, reverse: [], temporaries: [], elements: [槍]}]}
    facts: {rope: ロープは切れた}

Procedures (``procedure: {name: args}``):

| procedure | arguments | result |
|---|---|---|
| `check` | `actor`, `category`, `target` (goal / other / sdc:ID / pc:ID; default other), `elements` (names the declaration listed; omit for passive/SDC checks: D39 asks), `kind` (declared / continued / passive / sdc), `action`, `hp` (A: 1 HP is spent as at a declaration), `hp_b` (effect B for step 4 with hp_b_timing=at_step4: [[target or self, statement]]), `precedent`, `difficulty` (preset: passive events, SDC actions), `opposed_by` | the final result; `record` = the check record |
| `declare` | `pc` | the declaration (or null: passed) |
| `turn` | `turn` (default: the setup's; a later turn starts as §6 says: acted and created reset) | the records of the turn: [{id, actor, result}] |
| `start_turn` | `turn` | the turn (only its start: acted and created reset) |
| `scene` | — (the setup's scene, played from its start) | the scene's outcome |
| `register` | `pc`, `name`, `categories`, `window` (scene / creation / between / post) | approved, or the code |
| `window` | `pc`, `window` | the PC's element names after a free window |
| `hero_b` | `pc`, `target` (a record id or fact:ID), `statement` | approved (bool) |
| `scene_end` | — | hero points after the award {pc: n} |
| `between` | — | every PC's element names after the between-scenes windows |
| `game_end` | — | bans_next_game (names) |
| `new_game` | — | the game number (a new game of the same campaign starts: bans applied, usage 0) |
| `order` | `turn` | the declarers of that turn in declaration order, then `sdc` |
| `assign_casts` | — | D01 for every PC: {pc: cast} |
| `validate` | `casts` {pc: cast} (and `pcs`: the PC count) | the list of §3.2 problems |
| `new_character` | `id` (default pc1) | the name; `sheet` = the new PC's sheet for a scenario's `pcs:` |
| `steps` | a list of one-key mappings {procedure: args} | the list of results |
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...core.examples import dispatch_procedure
from .base import Gen
from .checks import CheckSpec
from .config import CAST_IDS
from .names import normalize
from .scenario import cast_problems
from .state import Character, Precedent, SceneState, Tally

if TYPE_CHECKING:
    from .game import AGame

__all__ = ["apply_setup", "run_procedure", "PROCEDURES"]


def _char(game: AGame, cid: str, what: str) -> Any:
    if cid not in game.t.chars:
        raise ValueError(f"{what}: unknown character {cid!r} (known: {', '.join(game.t.chars)})")
    return game.t.chars[cid]


def _scene_state(game: AGame, ref: Any) -> SceneState:
    scenes = game.sc.scenes
    if isinstance(ref, int):
        if not 1 <= ref <= len(scenes):
            raise ValueError(f"setup.scene: no scene {ref} (1..{len(scenes)})")
        index, spec = ref, scenes[ref - 1]
    else:
        found = [(i + 1, s) for i, s in enumerate(scenes) if s.id == ref]
        if not found:
            raise ValueError(f"setup.scene: unknown scene {ref!r} (scenes: {', '.join(s.id for s in scenes)})")
        index, spec = found[0]
    g = spec.goal
    return SceneState(index=index, id=spec.id, title=spec.title, goal_text=g.text, category=g.category,
                      difficulty=g.difficulty, mode=g.mode, required=g.required_successes, decisive=g.decisive,
                      turn_duration=spec.turn_duration, turn=1)


def apply_setup(game: AGame, setup: dict[str, Any]) -> None:
    t = game.t
    for cid in setup.get("remove") or []:
        _char(game, cid, "setup.remove")
        del t.chars[cid]
    for k, spec in enumerate(setup.get("add_pcs") or []):
        cid = str(spec["id"])
        if cid in t.chars:
            raise ValueError(f"setup.add_pcs[{k}]: the id {cid!r} is taken")
        c = Character(id=cid, name=str(spec.get("name", cid)), kind="pc", player=str(spec.get("player", cid)),
                      seat=max((x.seat for x in t.pcs()), default=0) + 1, background=str(spec.get("background", "")))
        t.chars[cid] = c
        for e in spec.get("elements") or []:
            game._load_element(c, e, f"g{t.game_no}:creation")
    pcs = t.pcs()
    casts = dict(game.sc.cast_assignment)
    casts.update(setup.get("casts") or {})
    free = [c for c in CAST_IDS if c not in casts.values()]
    for c in pcs:
        cast = casts.get(c.id) or (free.pop(0) if free else "companion")
        if cast not in CAST_IDS:
            raise ValueError(f"setup.casts.{c.id}: unknown cast {cast!r} (casts: {', '.join(CAST_IDS)})")
        c.cast = cast
        if cast == "protagonist":
            c.decisive_left = game.cfg.protagonist_decisive_uses
    game.scene_index = 0
    if "game_no" in setup:
        t.game_no = int(setup["game_no"])
    t.scene = _scene_state(game, setup.get("scene", 1))
    game.scene_index = t.scene.index
    t.scene.turn = int(setup.get("turn", 1))
    for cid, els in (setup.get("elements") or {}).items():
        c = _char(game, cid, "setup.elements")
        c.elements = []
        for e in els:
            game._load_element(c, e, f"g{t.game_no}:creation")
    for cid, els in (setup.get("add_elements") or {}).items():
        c = _char(game, cid, "setup.add_elements")
        for e in els:
            game._load_element(c, e, f"g{t.game_no}:creation")
    for cid, n in (setup.get("fill") or {}).items():
        c = _char(game, cid, "setup.fill")
        k = 1
        while len(c.elements) < int(n):
            game._load_element(c, {"name": f"予備要素{k}", "categories": ["technical"]}, f"g{t.game_no}:creation")
            k += 1
    for cid, usage in (setup.get("usage") or {}).items():
        c = _char(game, cid, "setup.usage")
        for name, n in usage.items():
            el = c.by_key(normalize(name))
            if el is None:
                raise ValueError(f"setup.usage.{cid}: {name!r} is not on the sheet")
            el.usage = int(n)
    for cid, used in (setup.get("used_in") or {}).items():
        c = _char(game, cid, "setup.used_in")
        for name, cats in used.items():
            el = c.by_key(normalize(name))
            if el is None:
                raise ValueError(f"setup.used_in.{cid}: {name!r} is not on the sheet")
            el.used_in = sorted(cats)
    for cid, n in (setup.get("hp") or {}).items():
        _char(game, cid, "setup.hp").hp = int(n)
    for cid in setup.get("acted") or []:
        _char(game, cid, "setup.acted").acted = True
    for cid in setup.get("created") or []:
        _char(game, cid, "setup.created").created_this_turn = 1
    for cid, until in (setup.get("busy") or {}).items():
        _char(game, cid, "setup.busy").busy_until = int(until)
    t.banned = {normalize(x) for x in setup.get("banned") or []}
    t.bans_next = [normalize(x) for x in setup.get("bans_next") or []]
    t.blacklist = [normalize(x) for x in setup.get("blacklist") or []]
    for cid, tally in (setup.get("tallies") or {}).items():
        _char(game, cid, "setup.tallies").tally = Tally(**tally)
    for cid, precs in (setup.get("precedents") or {}).items():
        c = _char(game, cid, "setup.precedents")
        for p in precs:
            if "id" in p:
                pid = str(p["id"])
            else:
                pid = f"p{t.next_precedent}"
                t.next_precedent += 1
            c.precedents.append(Precedent(id=pid, by=c.id, game=int(p.get("game", t.game_no)),
                                          check=str(p.get("check", "c0")), actor=str(p.get("actor", c.id)),
                                          category=p["category"], target=str(p.get("target", "other")),
                                          action=str(p.get("action", "")), difficulty=int(p["difficulty"]),
                                          temporaries=list(p.get("temporaries") or []),
                                          reverse=list(p.get("reverse") or []), elements=list(p.get("elements") or [])))
    for fid, text in (setup.get("facts") or {}).items():
        t.facts[fid] = str(text)


def _ids(c: Any, names: list[str], what: str) -> list[str]:
    out = []
    for n in names:
        el = c.by_key(normalize(n))
        if el is None:
            raise ValueError(f"{what}: {n!r} is not on {c.id}'s sheet")
        out.append(el.id)
    return out


def proc_check(game: AGame, a: dict[str, Any]) -> Gen:
    c = _char(game, a["actor"], "check.actor")
    kind = a.get("kind", "sdc" if not c.is_pc else "declared")
    els = _ids(c, list(a["elements"]), "check.elements") if a.get("elements") is not None else None
    target = str(a.get("target", "other"))
    s = game.t.scene
    category = a.get("category") or (s.category if target == "goal" and s is not None else "combat")
    spec = CheckSpec(c, kind, category, target, str(a.get("action", "")), els, hp_a=a.get("hp") == "A",
                     precedent=a.get("precedent"), difficulty=a.get("difficulty"), opposed_by=a.get("opposed_by"),
                     reason=str(a.get("action", "")),
                     hp_b=[(str(x[0]), str(x[1])) for x in a.get("hp_b") or []])
    if a.get("hp") == "A":
        game.set_hp(c, c.hp - 1, "§4-5-3 効果A", "declared")
    rec = yield from game.run_check(spec)
    return {"result": rec.result, "record": rec.snap()}


def proc_declare(game: AGame, a: dict[str, Any]) -> Gen:
    c = _char(game, a["pc"], "declare.pc")
    s = game.t.scene
    assert s is not None
    before = len(s.declarations)
    yield from game.declare(c, s.turn)
    return {"result": s.declarations[-1].snap() if len(s.declarations) > before else None}


def proc_turn(game: AGame, a: dict[str, Any]) -> Gen:
    s = game.t.scene
    assert s is not None
    if "turn" in a and int(a["turn"]) != s.turn:  # a later turn: its start resets the per-turn state (§6)
        game.ctx.state("scene.turn", s.turn, int(a["turn"]), "§3 ターン")
        s.turn = int(a["turn"])
        game.reset_created("§6 turn_declaration")
        for c in game.t.pcs():
            game.set_attr(c, "acted", False, "§6 turn_declaration")
    before = len(game.t.records)
    yield from game.declaration_phase(s.turn)
    yield from game.resolution_phase(s.turn)
    yield from game.judge_goal(s.turn)
    return {"result": [{"id": r.id, "actor": r.actor, "result": r.result} for r in game.t.records[before:]]}


def proc_scene(game: AGame, a: dict[str, Any]) -> Gen:
    s = game.t.scene
    assert s is not None
    spec = game.sc.scenes[s.index - 1]
    game.t.scene = None
    for trig in ("start", "valid", "created"):
        game.game_m.fire(trig)
    yield from game.play_scene(s.index, spec)
    return {"result": dict(game.t.outcomes[-1])}


def proc_start_turn(game: AGame, a: dict[str, Any]) -> Gen:
    """The start of a later turn (§6 turn_declaration): acted and the per-turn registrations reset."""
    s = game.t.scene
    assert s is not None
    game.ctx.state("scene.turn", s.turn, int(a["turn"]), "§3 ターン")
    s.turn = int(a["turn"])
    game.reset_created("§6 turn_declaration")
    for c in game.t.pcs():
        game.set_attr(c, "acted", False, "§6 turn_declaration")
    return {"result": s.turn}
    yield


def proc_register(game: AGame, a: dict[str, Any]) -> Gen:
    c = _char(game, a["pc"], "register.pc")
    code = yield from game.submit_element(c, str(a["name"]), list(a.get("categories") or []),
                                          str(a.get("window", "scene")))
    return {"result": code}


def proc_window(game: AGame, a: dict[str, Any]) -> Gen:
    c = _char(game, a["pc"], "window.pc")
    yield from game.free_window(c, str(a.get("window", "between")), "§4-1-2 D03")
    return {"result": [e.name for e in c.elements]}


def proc_hero_b(game: AGame, a: dict[str, Any]) -> Gen:
    c = _char(game, a["pc"], "hero_b.pc")
    ok = yield from game.hero_b(c, str(a["target"]), str(a.get("statement", "")))
    return {"result": bool(ok)}


def proc_scene_end(game: AGame, a: dict[str, Any]) -> Gen:
    s = game.t.scene
    assert s is not None
    yield from game.scene_end(game.sc.scenes[s.index - 1])
    return {"result": {c.id: c.hp for c in game.t.pcs()}}


def proc_between(game: AGame, a: dict[str, Any]) -> Gen:
    """§6 between_scenes: every PC's free registration window (and un-realize with allow_midgame_unrealize)."""
    yield from game.between_scenes()
    return {"result": {c.id: [e.name for e in c.elements] for c in game.t.pcs()}}


def proc_game_end(game: AGame, a: dict[str, Any]) -> Gen:
    out = yield from game.end_game()
    names = []
    for key in out["bans_next_game"]:
        el = next((e for c in game.t.chars.values() for e in c.elements if e.key == key), None)
        names.append(el.name if el is not None else key)
    return {"result": names, "game": {k: v for k, v in out.items() if k != "campaign"}}


def proc_new_game(game: AGame, a: dict[str, Any]) -> Gen:
    game.t.game_no += 1
    game.start_game()
    return {"result": game.t.game_no}
    yield


def proc_order(game: AGame, a: dict[str, Any]) -> Gen:
    turn = int(a["turn"])
    out: list[str] = []
    for slot in game.cfg.declaration_order:
        if slot == "sdc":
            out.append("sdc")
            continue
        out += [c.id for c in game.t.pcs() if c.cast == slot and game.may_declare(c, turn)]
    return {"result": out}
    yield


def proc_assign_casts(game: AGame, a: dict[str, Any]) -> Gen:
    """D01 for every PC (the setup's casts are replaced)."""
    for c in game.t.pcs():
        c.cast = None
    yield from game.assign_casts()
    return {"result": {c.id: c.cast for c in game.t.pcs()}}


def proc_validate(game: AGame, a: dict[str, Any]) -> Gen:
    casts = dict(a.get("casts") or {})
    n = int(a.get("pcs", len(casts)))
    problems: list[str] = []
    if not game.cfg.pc_count_min <= n <= game.cfg.pc_count_max:
        problems.append(f"{n} PCs; a table has {game.cfg.pc_count_min}–{game.cfg.pc_count_max}")
    problems += cast_problems(casts, game.cfg, complete=True)
    return {"result": problems}
    yield


def proc_new_character(game: AGame, a: dict[str, Any]) -> Gen:
    """``trpg new-character a_game``: a new PC alone at the table, D02 and the creation window."""
    from .creation import create_character

    sheet = yield from create_character(game, str(a.get("id", "pc1")))
    return {"result": sheet["name"], "sheet": sheet}


def proc_steps(game: AGame, a: Any) -> Gen:
    steps = a if isinstance(a, list) else a.get("steps", [])
    results = []
    for step in steps:
        out = yield from run_procedure(game, step)
        results.append(out.get("result"))
    return {"result": results}


PROCEDURES = {
    "check": proc_check, "declare": proc_declare, "turn": proc_turn, "start_turn": proc_start_turn, "scene": proc_scene, "register": proc_register,
    "window": proc_window, "hero_b": proc_hero_b, "scene_end": proc_scene_end, "between": proc_between,
    "game_end": proc_game_end,
    "new_game": proc_new_game, "order": proc_order, "assign_casts": proc_assign_casts, "validate": proc_validate,
    "new_character": proc_new_character, "steps": proc_steps,
}


def run_procedure(game: AGame, proc: dict[str, Any]) -> Gen:
    return (yield from dispatch_procedure(PROCEDURES, game, proc))
