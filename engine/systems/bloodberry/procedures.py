"""Single procedures on a prepared table, for worked examples and designers' edge-case files (``trpg examples``).

A session with ``options={"procedure": {...}, "setup": {...}}`` loads the scenario's characters, applies ``setup``
(abilities, 気力, sublimations, relation strengths, who is present...) and runs one procedure of the rules instead
of a whole session: a relation check, a curse check, an entry check, a generic opposed check, a confrontation,
between-scenes processing, character creation, a table roll or a sheet validation. The rules code is the same as
in play; only the starting point differs.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from ...core.decision import Answer, Decision
from .data import CURSE_TYPE_NAMES
from .judge import CheckSpec, Roller
from .scenario import Confrontation, SceneData
from .state import sheet_problems

if TYPE_CHECKING:
    from .game import BloodberryGame

__all__ = ["apply_setup", "run_procedure", "PROCEDURES"]

Gen = Generator[Decision, Answer, Any]
PROCEDURES = ("relation_check", "curse_check", "entry_check", "opposed", "confrontation", "between_scenes", "creation",
              "table_roll", "validate_sheet", "ability_decrease", "session_end", "pc_turn", "basic", "ending", "round_progression", "flag_map")
#: the procedures as players read them (the procedure_result info text)
PROCEDURE_NAMES = {
    "relation_check": "関係判定", "curse_check": "呪い判定", "entry_check": "登場判定", "opposed": "対抗判定", "confrontation": "対峙",
    "between_scenes": "シーン間", "creation": "キャラクター・メイキング", "table_roll": "表", "validate_sheet": "キャラクターシートの検証",
    "ability_decrease": "能力値の減少", "session_end": "セッション終了", "pc_turn": "PCの手番", "basic": "基本判定",
    "ending": "エンディング", "round_progression": "ラウンド進行", "flag_map": "フラグマップ",
}


def sheet_of(c: Any) -> dict[str, Any]:
    """A created PC in the scenario file's ``pcs:`` format (engine/systems/bloodberry/scenario.py PCSheet)."""
    d: dict[str, Any] = {"id": c.id, "name": c.name, "profile": c.profile, "abilities": dict(c.full),
                         "basic_skills": [s.id for s in c.skills], "class": c.cls, "race": c.race}
    if c.race == "fairy":
        from .data import CLASS_SKILLS

        d["fairy_drop"] = next(x for x in CLASS_SKILLS[c.cls] if x not in c.class_skills)
    if c.personal_curse:
        d["personal_curse"] = c.personal_curse
    d["emotions"] = {k: list(v) for k, v in c.emotions.items()}
    return d


def apply_setup(g: BloodberryGame, setup: dict[str, Any]) -> None:
    t = g.t
    for cid, patch in (setup.get("chars") or {}).items():
        if cid not in t.chars:
            raise ValueError(f"setup.chars: unknown character {cid!r}")
        c = t.chars[cid]
        for k, v in patch.items():
            if k == "abilities":
                c.ab.update(v)
                for a, val in v.items():
                    c.full[a] = max(c.full.get(a, 0), val)
            elif k == "full":
                c.full.update(v)
            elif k == "willpower":
                c.willpower = int(v)
            elif k == "sublimated":
                for sid in v:
                    sk = c.skill(sid)
                    if sk is None:
                        raise ValueError(f"setup.chars.{cid}.sublimated: {cid} has no skill {sid!r}")
                    sk.sublimated = True
                    sk.effect_available = True
            elif k == "spent":
                for sid in v:
                    sk = c.skill(sid)
                    if sk is None or not sk.sublimated:
                        raise ValueError(f"setup.chars.{cid}.spent: {sid!r} is not sublimated")
                    sk.effect_available = False
            elif k == "status":
                c.status = v
            elif k == "has_key":
                c.has_key = bool(v)
            elif k == "emotions":
                c.emotions = {p: list(e) for p, e in v.items()}
            else:
                raise ValueError(f"setup.chars.{cid}: unknown field {k!r}")
    for key, strength in (setup.get("relations") or {}).items():
        a, b = key.split("|")
        t.rel(a, b).strength = int(strength)
    for key, kind in (setup.get("hama") or {}).items():  # 破魔 blocks in force: {"user|target": check kind} (A20)
        user, target = key.split("|")
        if user not in t.chars or target not in t.chars:
            raise ValueError(f"setup.hama: unknown character in {key!r}")
        t.hama[(user, target)] = kind
    g.known_npcs.update(setup.get("known_npcs") or [])
    if "participants" in setup:
        g.participants = list(setup["participants"])
    g.scene_actors = list(setup.get("scene_actors") or [])
    g.prev_actors = list(setup.get("prev_actors") or [])
    g.in_between = bool(setup.get("in_between", False))
    g.npcs_present = list(setup.get("npcs_present") or [])
    t.clock = int(setup.get("clock", 0))


def run_procedure(g: BloodberryGame, proc: dict[str, Any]) -> Gen:
    if len(proc) != 1:
        raise ValueError(f"procedure: exactly one of {', '.join(PROCEDURES)}")
    (name, args), = proc.items()
    args = args or {}
    ch = g.t.chars
    out: dict[str, Any] = {"procedure": name}
    if name == "relation_check":
        a, p = ch[args["active"]], ch[args["passive"]]
        second = args.get("second")
        if second is None:
            second = yield from g.second_basis(a, args["type"])
        in_cf = bool(args.get("in_cf", False))
        if in_cf:
            g.cf_camp = args.get("camp", "pcs")
            g.t.camp_cap.setdefault(g.cf_camp, int(args.get("cap", 1)))
        # relation: which of the active's relations with the passive ("<passive>#2": the second, A34 double)
        out["result"] = yield from g.relation_check(a, p, args["type"], second, in_cf=in_cf, rel=args.get("relation"))
    elif name == "curse_check":
        target = ch[args["target"]]
        if "curse" in args:
            curse = ch[args["curse"]]
            ctype = args["stat"]
            diff = curse.ab[ctype]
            label = f"{curse.name} ({CURSE_TYPE_NAMES[ctype]} {diff})"
        else:
            ctype = args["type"]
            diff = int(args.get("difficulty", g.cfg.formless_curse_default_difficulty))
            label = f"形なき呪い ({CURSE_TYPE_NAMES[ctype]})"
        out["result"] = yield from g.curse_check(target, ctype, diff, label)
    elif name == "entry_check":
        c = ch[args["pc"]]
        r = Roller(c, "basic", tuple(args.get("bases", ("passion", "maturity"))), threshold=int(args.get("difficulty", 1)))  # type: ignore[arg-type]
        yield from g.judge(CheckSpec("basic", "entry", f"{c.name} 登場判定", "§5.7 entry_check"), [r])
        if r.success and c.id not in g.participants:
            g.participants.append(c.id)
        out["result"] = r.success
    elif name == "opposed":
        a, p = ch[args["active"]], ch[args["passive"]]
        ra = Roller(a, "active", tuple(args["bases"]))  # type: ignore[arg-type]
        rp = Roller(p, "passive", tuple(args.get("passive_bases", args["bases"])))  # type: ignore[arg-type]
        yield from g.judge(CheckSpec("opposed", "generic", args.get("label", f"{a.name} vs {p.name}"), "§5.3"), [ra, rp])
        out["result"] = {"active": ra.success, "passive": rp.success}
    elif name == "confrontation":
        scene = SceneData(id="example", title=args.get("title", "対峙"), confrontation=Confrontation(curses=args["curses"]),
                          participants=list(args["participants"]), scene_actors=list(args.get("scene_actors", [])))
        g.scene = scene
        g.participants = list(args["participants"])
        g.scene_actors = list(args.get("scene_actors", []))
        g.scene_m.fire("frame")
        g.scene_m.fire("entries")
        g.scene_m.fire("run_events")
        g.scene_m.fire("confront")
        yield from g._confrontation(scene)
        out["result"] = g.cf_result
    elif name == "between_scenes":
        g.phase.fire("start_session")
        g.phase.fire("open_scene")
        g.phase.fire("end_scene")
        yield from g._between_scenes(g.sc.scenes[int(args.get("next_scene", 0))])
        out["result"] = {"proposers": list(g.approved_proposals)}
    elif name == "creation":
        from .creation import create_pcs

        yield from create_pcs(g)
        yield from g._approve_sheets()
        out["result"] = {c.id: g.sheet_problems(c) for c in g.t.pcs()}
        out["sheets"] = [sheet_of(c) for c in g.t.pcs()]
        if len(out["sheets"]) == 1:
            out["sheet"] = out["sheets"][0]
    elif name == "table_roll":
        from .creation import roll_curse, roll_emotion, roll_relation

        table = args["table"]
        fn = {"emotion": roll_emotion, "curse": roll_curse, "relation": roll_relation}[table]
        out["result"] = fn(g, f"{table}_table")
    elif name == "validate_sheet":
        partners = list(args.get("partners", []))
        out["result"] = [code for code, _ in sheet_problems(
            abilities=args["abilities"], skills=list(args["skills"]), cls=args.get("class"), race=args.get("race", "human"),
            class_skills=args.get("class_skills"), fairy_drop=args.get("fairy_drop"), partners=partners,
            emotions=args.get("emotions", {p: ["shoso"] for p in partners}), relation_strengths=args.get("relation_strengths"),
            sublimated=args.get("sublimated"), willpower=args.get("willpower"))]
    elif name == "pc_turn":
        found = next((x for x in g.sc.scenes if x.id == args["scene"]), None)
        if found is None:
            raise ValueError(f"procedure pc_turn: unknown scene {args['scene']!r}")
        g.scene = scene = found
        if "participants" not in (g.ctx.options.get("setup") or {}):
            g.participants = [c.id for c in g.t.pcs() if c.status == "active"]
        if not g.npcs_present:
            g.npcs_present = [n for n in scene.npcs if g.t.chars[n].in_play]
        g.known_npcs.update(g.npcs_present)
        yield from g._pc_turn(ch[args["pc"]], scene)
        out["result"] = {"flags": sorted(g.t.flags), "clues": list(g.t.clues)}
    elif name == "basic":
        c = ch[args["pc"]]
        r = Roller(c, "basic", tuple(args["bases"]), threshold=int(args.get("difficulty", 2)))  # type: ignore[arg-type]
        yield from g.judge(CheckSpec("basic", "generic", args.get("label", f"{c.name}: 判定"), "§5.7 generic",
                                     door=bool(args.get("door", False))), [r])
        out["result"] = {"success": r.success, "ach": r.ach}
    elif name == "ending":
        g.phase.fire("start_session")
        g.phase.fire("to_ending")
        yield from g._ending()
        out["result"] = {c.id: c.status for c in g.t.pcs()}
    elif name == "round_progression":
        from .cards import parse_card
        from .rounds import RoundProgression

        scene = SceneData(id="example", title=args.get("title", "ラウンド進行"))
        g.scene = scene
        if "participants" not in (g.ctx.options.get("setup") or {}):
            g.participants = [aid for aid in args["actors"] if ch[aid].is_pc]
        from .cards import Shoe, full_shoe

        given = [parse_card(c) for cards in (args.get("hands") or {}).values() for c in cards]
        forced = [parse_card(c) for c in args.get("deck", [])]
        taken = {c.id for c in given + forced}
        if len(taken) != len(given) + len(forced):
            raise ValueError("procedure round_progression: aid card is listed twice (use #2 for the second deck's copy)")
        shoe = None
        if given or forced:
            # aid stacked deck: the listed cards first, then the rest in aid fixed order (no shuffle, no dice); no card twice
            rest = [c for c in full_shoe() if c.id not in taken]
            shoe = Shoe(g.ctx.dice, "example", order=forced + rest)
        prog = RoundProgression(g, list(args["actors"]), "example", shoe=shoe)
        g.rp = prog
        if "hands" in args:
            for aid, cards in args["hands"].items():
                prog.hands[aid] = [parse_card(c) for c in cards]
            prog.order = list(args.get("order") or [])
            if not prog.order:
                # initiative decisions only
                for aid in prog.actors:
                    hand = prog.hands[aid]
                    cid = yield from g.choose(aid, "rp.initiative", "イニシアチブ", "§7.4 RP_INITIATIVE", prog._card_opts(hand),
                                              context={"hand": prog._hand_ctx(hand)})
                    prog.revealed[aid] = next(c for c in hand if c.id == cid).code
                prog.order_by_initiative()
                g.ctx.info("initiative", "イニシアチブの順番", order=list(prog.order), revealed=dict(prog.revealed))
        else:
            yield from prog.setup()
        if "start_at" in args:  # begin mid-cycle at this actor's step (the cyclic order is unchanged)
            i = prog.order.index(args["start_at"])
            prog.order = prog.order[i:] + prog.order[:i]

        def act(c: Any, restrict: str | None) -> Gen:
            if c.is_pc:
                yield from g._pc_turn(c, scene, restrict)
            else:
                g.ctx.info("npc_action", f"{c.name} の行動", npc=c.id, restrict=restrict)

        for _ in range(int(args.get("cycles", 1))):
            yield from prog.cycle(act, lambda: False, max_steps=args.get("steps"))
        out["result"] = {"hands": {aid: [c.code for c in h] for aid, h in prog.hands.items()},
                         "discard": [c.code for c in prog.shoe.discard], "order": list(prog.order), "rounds": dict(prog.rounds)}
    elif name == "flag_map":
        from .scenario import FlagMapData

        data = FlagMapData.model_validate(args)
        g.phase.fire("start_session")
        yield from g._flag_map_segment(len(g.sc.scenes), SceneData(id="example", title=data.title, flag_map=data))
        out["result"] = dict(g.result["flag_maps"][data.id], clock=g.t.clock)
    elif name == "session_end":
        end = g._session_end()
        out["result"] = {pid: pc["absent_sessions"] for pid, pc in end["pcs"].items()}
    elif name == "ability_decrease":
        c = ch[args["target"]]
        yield from g.decrease(c, args["ability"], int(args.get("amount", 1)), "example", "§7.9")
        out["result"] = dict(c.ab)
    else:
        raise ValueError(f"unknown procedure {name!r}; known: {', '.join(PROCEDURES)}")
    g.ctx.info("procedure_result", f"{PROCEDURE_NAMES[name]}の結果", result=out["result"])
    return out
