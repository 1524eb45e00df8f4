"""「A」 rules as a pull-based generator: one game (= session) of rules/a_game.md §6.

``AGame.run`` yields ``Decision``s and receives checked ``Answer``s. This module owns the game's phases —
campaign_load, game_setup (cast assignment D01, §3.2 validation), character_creation (D02–D04), the scenes
(scenes.py), game_end (§7.11: usage bans D33, un-realize D34/D35, the post-game window) — and the contract
(``observation``, ``snapshot``, ``secrets``, ``actors``, ``actor_role``, ``state_audience``). Checks (checks.py),
hero points (hero.py) and the element registry (elements.py) are mixins (DESIGN.md).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ...core.session import GameContext
from ...core.visibility import GM, Secret
from .base import Gen
from .config import CAST_IDS, AGameConfig
from .data import CAST_NAMES, CASTS, CATEGORY_IDS
from .flow import CHECK, GAME
from .names import form_problem, normalize, similar
from .scenario import AGameScenario, ElementSpec, cast_problems, scenario_problems
from .scenes import ScenesMixin
from .state import Character, Element, Precedent, Table

__all__ = ["AGame", "Background", "sheet_problems"]


class Background(BaseModel):
    """D02 (§3.1 step 4): a PC's name and 設定."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field("名無し", min_length=1, max_length=30, description="名前（1〜30文字）")
    background: str = Field("", max_length=400, description="設定（自由記述）")


def sheet_problems(c: Character, cfg: AGameConfig, blacklist: list[str]) -> list[str]:
    """§3.2: what makes a PC's sheet illegal."""
    out: list[str] = []
    if not c.name.strip():
        out.append("empty name")
    if len(c.elements) > cfg.max_elements:
        out.append(f"{len(c.elements)} success elements, at most {cfg.max_elements}")
    seen: set[str] = set()
    for e in c.elements:
        problem = form_problem(e.name, cfg.element_max_len)
        if problem:
            out.append(f"{e.name!r}: {problem}")
        if e.key in seen:
            out.append(f"{e.name!r}: two elements with the same name")
        seen.add(e.key)
        if any(similar(e.key, b) for b in blacklist):
            out.append(f"{e.name!r}: similar to an element of the omnipotent blacklist")
        if not e.categories or any(x not in CATEGORY_IDS for x in e.categories):
            out.append(f"{e.name!r}: categories must be 1..10 of §9.7")
    return out


class AGame(ScenesMixin):
    def __init__(self, ctx: GameContext):
        self.ctx = ctx
        self.cfg: AGameConfig = ctx.config
        self.sc: AGameScenario = ctx.scenario.model
        # the scenario was checked with its own flags when it was loaded (its model's validator); a session with
        # other flags (--config) is checked again
        problems = [] if self.cfg == AGameConfig(**self.sc.config) else scenario_problems(self.sc, self.cfg)
        if problems:  # a --config override the scenario cannot be played with
            raise ValueError(f"{ctx.scenario.path}: not playable with this configuration: " + "; ".join(problems))
        self.t = Table()
        self.game_m = ctx.flow(GAME)
        self.check_m = ctx.flow(CHECK)
        self.scene_index = 0
        self.b_pending = {}
        self._queued_redos = []
        self.refused_names = {}
        self.creating = (bool(self.sc.creation) and not self.sc.pcs) or bool(ctx.options.get("create_pcs"))
        self.t.facts = {f.id: f.text for f in self.sc.setting_facts}

    # ==========================================================================================================
    # the contract
    # ==========================================================================================================
    def actors(self) -> list[str]:
        pcs = [c.id for c in self.t.pcs()] or list(self.sc.pc_ids())
        sdcs = [c.id for c in self.t.sdcs()] or [s.id for s in self.sc.sdcs]
        return ["gm", *pcs, *sdcs]

    def actor_role(self, actor: str) -> str:
        if actor == GM:
            return "gm"
        c = self.t.chars.get(actor)
        if c is not None:
            return "pc" if c.is_pc else "npc"
        if actor in self.sc.pc_ids():
            return "pc"
        if actor in {s.id for s in self.sc.sdcs}:
            return "npc"
        raise KeyError(f"unknown actor {actor!r}")

    def prompt_role(self, actor: str) -> str:
        return self.actor_role(actor)

    def _char_view(self, c: Character) -> dict[str, Any]:
        d: dict[str, Any] = {"id": c.id, "name": c.name, "kind": c.kind,
                             "elements": [{"id": e.id, "name": e.name, "categories": list(e.categories),
                                           "usage": e.usage, **({"banned": True} if e.key in self.t.banned else {})}
                                          for e in c.elements]}
        if c.is_pc:
            d.update(cast=c.cast, hp=c.hp, background=c.background, acted=c.acted,
                     created_this_turn=c.created_this_turn)
            if c.busy_until is not None:
                d["busy_until"] = c.busy_until
            if c.precedents:
                d["precedents"] = [{"id": p.id, "category": p.category, "target": p.target, "difficulty": p.difficulty,
                                    "action": p.action} for p in c.precedents]
        else:
            spec = next((s for s in self.sc.sdcs if s.id == c.id), None)
            d["description"] = spec.description if spec else ""
        return d

    def _scene_view(self, gm: bool) -> dict[str, Any] | None:
        s = self.t.scene
        if s is None:
            return None
        sc = self.scene_spec()
        active = {h.id for h in self.active_hazards()}
        return {
            "index": s.index, "id": s.id, "title": s.title, "situation": sc.situation if sc else "",
            "goal": {"text": s.goal_text, "category": s.category, "difficulty": s.difficulty, "mode": s.mode,
                     "required_successes": s.required},
            "turn_duration": s.turn_duration, "turn": s.turn, "successes": s.successes, "achieved": s.achieved,
            "declarers": [c.id for c in self.slot_order(self.t.pcs()) if self.may_declare(c, s.turn)],
            "declarations": [{"pc": d.pc, "target": d.target, "category": d.category, "text": d.text,
                              **({"continued_until": d.completes} if d.continued else {})}
                             for d in s.declarations if not d.cancelled],
            "hazards": [{"text": h.text, "categories": list(h.categories)} for h in (sc.hazards if sc else [])
                        if h.id in active],
            "advantage_hints": [{"text": h.text, "categories": list(h.categories)}
                                for h in (sc.advantage_hints if sc else [])],
        }

    def observation(self, actor: str) -> dict[str, Any]:
        """What ``actor`` may know: at a table of 「A」 everything is said aloud — sheets, usage counts, casts, hero
        points, declarations, rulings — except the SD's notes: its anticipated checks, the scenario's and the
        scenes' secrets, the SDCs' secrets (an SDC's player knows its own)."""
        gm = actor == GM
        scenario: dict[str, Any] = {"title": self.sc.title, "summary": self.sc.summary, "setting": self.sc.setting,
                                    "world": self.sc.world.summary,
                                    "forbidden_keywords": list(self.sc.world.forbidden_keywords),
                                    "scenes": min(len(self.sc.scenes), self.cfg.scenes_per_game)}
        if self.sc.public_expected_checks:
            scenario["expected_checks"] = self.expected_categories()
        obs: dict[str, Any] = {
            "system": "a_game",
            "scenario": scenario,
            "phase": self.game_m.state,
            "game_no": self.t.game_no,
            "scene": self._scene_view(gm),
            "characters": {c.id: self._char_view(c) for c in self.t.chars.values()},
            "banned_this_game": sorted(self.t.banned),
            "blacklist": list(self.t.blacklist),
            "facts": dict(self.t.facts),
            "checks": [r.view() for r in self.t.records[-10:]],
            "scenes_done": [dict(o) for o in self.t.outcomes],
        }
        me = self.t.chars.get(actor)
        if me is not None:
            obs["me"] = self._char_view(me)
            if me.secret:
                obs["me"]["secret"] = me.secret
        if gm:
            sc = self.scene_spec()
            obs["gm"] = {"gm_notes": self.sc.gm_notes, "scene_secret": sc.secret if sc else "",
                         "expected_checks": [{"category": e.category, "note": e.note} for e in self.sc.expected_checks]
                         or [{"category": c, "note": ""} for c in self.expected_categories()],
                         "immutable_facts": list(self.sc.immutable_facts),
                         "sdc_secrets": {c.id: c.secret for c in self.t.sdcs() if c.secret},
                         "bans_next_game": list(self.t.bans_next)}
        return obs

    def secrets(self) -> list[Secret]:
        """The SD's private notes (the GM holds them; an SDC its own secret)."""
        out: list[Secret] = []
        if self.sc.gm_notes:
            out.append(Secret.of(self.sc.gm_notes, GM))
        for s in self.sc.scenes:
            if s.secret:
                out.append(Secret.of(s.secret, GM))
        if not self.sc.public_expected_checks:
            out += [Secret.of(e.note, GM) for e in self.sc.expected_checks if e.note]
        for c in self.t.sdcs():
            if c.secret:
                out.append(Secret.of(c.secret, c.id, GM))
        return out

    def state_audience(self, path: str) -> list[str] | None:
        """Every change of the table is public in 「A」 (the SD's notes never change)."""
        return None

    def snapshot(self) -> dict[str, Any]:
        s = self.t.scene
        return {
            "game_no": self.t.game_no,
            "phase": self.game_m.state,
            "check_phase": self.check_m.state,
            "turn": s.turn if s is not None else None,
            "table": self.t.snap(),
            "banned_this_game": sorted(self.t.banned),
            "bans_next_game": list(self.t.bans_next),
            "blacklist": list(self.t.blacklist),
            "scene": s.snap() if s is not None else None,
            "scenes": [dict(o) for o in self.t.outcomes],
            "checks": [r.snap() for r in self.t.records],
            "facts": dict(self.t.facts),
        }

    # ==========================================================================================================
    # characters (§3)
    # ==========================================================================================================
    def _load_element(self, c: Character, e: ElementSpec | dict[str, Any], where: str) -> Element:
        """An element as the scenario or the campaign gives it (no event: the log's header names both)."""
        d = e.model_dump() if isinstance(e, BaseModel) else dict(e)
        eid = str(d.get("id") or f"e{c.next_element}")
        order = int(d["order"]) if d.get("order") else self.t.element_counter + 1
        self.t.element_counter = max(self.t.element_counter, order)
        num = int(eid[1:]) if eid[1:].isdigit() else 0
        c.next_element = max(c.next_element, num + 1)
        el = Element(id=eid, name=str(d["name"]), key=normalize(str(d["name"])), categories=list(d["categories"]),
                     order=order, registered_at=str(d.get("registered_at") or where))
        c.elements.append(el)
        return el

    def load_table(self) -> None:
        """campaign_load (§6): the scenario's PCs (a campaign's sheets replace them), SDCs, bans, blacklist."""
        camp = self.campaign()
        carried = dict(camp.get("pcs") or {})
        creating = self.creating
        for k, pid in enumerate(self.sc.pc_ids()):
            sheet = next((p for p in self.sc.pcs if p.id == pid), None)
            c = Character(id=pid, name=sheet.name if sheet else pid, kind="pc",
                          player=(sheet.player if sheet and sheet.player else pid), seat=k + 1,
                          background=sheet.background if sheet else "", opposes=sheet.opposes if sheet else False)
            self.t.chars[pid] = c
            if pid in carried and not creating:
                d = carried[pid]
                c.name = str(d.get("name") or c.name)
                c.background = str(d.get("background", c.background))
                c.player = str(d.get("player") or c.player)
                for e in d.get("elements") or []:
                    self._load_element(c, e, "campaign")
                c.precedents = [Precedent(**p) for p in d.get("precedents") or []]
                c.next_element = max(c.next_element, int(d.get("next_element", 1)))
            elif sheet is not None and not creating:
                for e in sheet.elements:
                    self._load_element(c, e, f"g{self.t.game_no}:creation")
        for s in self.sc.sdcs:
            c = Character(id=s.id, name=s.name, kind="sdc", player=GM, opposes=s.opposes, secret=s.secret)
            self.t.chars[s.id] = c
            for e in s.elements:
                self._load_element(c, e, "scenario")
        if camp:
            self.t.game_no = int(camp.get("games_played", camp.get("sessions_played", 0))) + 1
            self.t.bans_next = [normalize(x) for x in camp.get("bans_next_game") or []]
            self.t.blacklist = [normalize(x) for x in camp.get("omnipotent_blacklist") or []]
            self.t.next_precedent = max(1, int(camp.get("next_precedent", 1)))
            self.t.element_counter = max(self.t.element_counter, int(camp.get("element_counter", 0)))
            self.ctx.info("campaign", f"キャンペーンの継続: ゲーム {self.t.game_no}", game=self.t.game_no,
                          bans=list(self.t.bans_next), blacklist=list(self.t.blacklist))

    def campaign(self) -> dict[str, Any]:
        camp = self.ctx.options.get("campaign") or {}
        if not isinstance(camp, dict):
            return {}
        if camp.get("system") not in (None, "a_game"):
            raise ValueError(f"campaign data is for system {camp.get('system')!r}, not a_game")
        return camp

    def start_game(self) -> None:
        """game_setup (§6): game_no, banned_this_game := bans_next_game, usage 0, hero points hp_initial."""
        old = sorted(self.t.banned)
        self.t.banned = set(self.t.bans_next)
        self.ctx.state("table.banned_this_game", old, sorted(self.t.banned), "§4-1-3 §6 game_setup")
        self.t.bans_next = []
        for c in self.t.chars.values():
            for e in c.elements:
                if e.usage:
                    self.ctx.state(f"{c.id}.usage.{e.name}", e.usage, 0, "§6 game_setup")
                e.usage = 0
                e.used_in = []
            if c.is_pc:
                self.set_hp(c, self.cfg.hp_initial, "§6 game_setup (A19 hp_initial)")
        if self.t.banned:
            self.ctx.info("banned", "このゲームで全PLが使用不可能な成功要素: " + "".join(f"【{b}】" for b in sorted(self.t.banned)),
                          banned=sorted(self.t.banned))

    def assign_casts(self) -> Gen:
        """D01 (§1 役割分担): every PC gets a cast; the options keep the table legal (§3.2: one 主人公, ≤1 相棒)."""
        pcs = self.t.pcs()
        assigned: dict[str, str] = {}
        for k, c in enumerate(pcs):
            left = len(pcs) - k - 1
            legal = []
            for cast in CAST_IDS:
                trial = {**assigned, c.id: cast}
                if cast_problems(trial, self.cfg, complete=False):
                    continue
                if self.cfg.require_protagonist and "protagonist" not in trial.values() and left == 0:
                    continue
                if self.cfg.require_protagonist and cast == "protagonist" and "protagonist" in assigned.values():
                    continue
                legal.append(cast)
            pairs = [(x, f"{CAST_NAMES[x]}（{x}）: {CASTS[x].effect}") for x in legal]
            default = ["protagonist", "partner", "expert", "companion", "mascot", "guest"][k % 6]
            ch = yield from self.choose("gm", "sd.assign_cast", f"{c.name} のキャスト（役割）を決める", "§1 役割分担 D01", pairs,
                                        context={"pc": c.id, "seat": c.seat, "suggested": self.sc.cast_assignment.get(c.id),
                                                 "seat_default": default, "assigned": dict(assigned)})
            assigned[c.id] = ch
            self.set_attr(c, "cast", ch, "§1 役割分担 D01")
            if ch == "protagonist":
                self.set_attr(c, "decisive_left", self.cfg.protagonist_decisive_uses, "G8 protagonist_decisive_uses")
        problems = cast_problems(assigned, self.cfg, complete=True)
        if problems:  # pragma: no cover - the options above keep the table legal
            raise RuntimeError("cast assignment: " + "; ".join(problems))
        self.ctx.info("casts", "キャスト: " + "、".join(f"{c.name}＝{CAST_NAMES[c.cast or '']}" for c in pcs),
                      casts={c.id: c.cast for c in pcs})

    def validate_table(self) -> list[str]:
        """§3.2: table-level and sheet-level problems (a campaign sheet or a scenario sheet)."""
        out: list[str] = []
        n = len(self.t.pcs())
        if not self.cfg.pc_count_min <= n <= self.cfg.pc_count_max:
            out.append(f"{n} PCs; a table has {self.cfg.pc_count_min}–{self.cfg.pc_count_max}")
        casts = {c.id: c.cast for c in self.t.pcs() if c.cast}
        out += cast_problems(casts, self.cfg, complete=len(casts) == n)  # type: ignore[arg-type]
        names: dict[str, list[str]] = {}
        for c in self.t.chars.values():
            names.setdefault(c.name.strip(), []).append(c.id)
        out += [f"the name {name!r} is used by {', '.join(who)}; each character needs its own name"
                for name, who in names.items() if len(who) > 1]
        for c in self.t.pcs():
            if not self.creating:
                out += [f"{c.id}: {p}" for p in sheet_problems(c, self.cfg, self.t.blacklist)]
            if c.hp != self.cfg.hp_initial:
                out.append(f"{c.id}: hero points {c.hp}, the game starts with {self.cfg.hp_initial}")
        return out

    def create_backgrounds(self) -> Gen:
        """D02 (§3.1 step 4): name and 設定 of each PC built at the table."""
        for c in self.t.pcs():
            sheet = next((p for p in self.sc.pcs if p.id == c.id), None)
            default = {"name": sheet.name if sheet else f"PC{c.seat}",
                       "background": (sheet.background if sheet and sheet.background else
                                      f"{sheet.name if sheet else f'PC{c.seat}'}、{self.sc.title}の住人")}
            taken = {x.name.strip(): x.id for x in self.t.chars.values() if x is not c}
            if default["name"] in taken:
                default["name"] = f"PC{c.seat}" if f"PC{c.seat}" not in taken else c.id

            def free_name(b: BaseModel, taken: dict[str, str] = taken) -> str | None:
                name = b.name.strip()  # type: ignore[attr-defined]
                if name in taken:
                    return f"the name {name!r} is {taken[name]}'s; each character needs its own name (§3.1 D02)"
                return None

            p = yield from self.ask_payload(c.id, "pc.background", f"{CAST_NAMES.get(c.cast or '', '')}の PC の名前と設定を書く",
                                            "§3.1 D02", Background, free_name,
                                            context={"cast": c.cast, "suggested": default, "names_taken": sorted(taken)},
                                            samples=[default])
            assert isinstance(p, Background)
            self.set_attr(c, "name", p.name.strip() or default["name"], "§3.1 D02")
            self.set_attr(c, "background", p.background, "§3.1 D02")

    # ==========================================================================================================
    # the game (§6)
    # ==========================================================================================================
    def run(self) -> Gen:
        proc = self.ctx.options.get("procedure")
        if proc is not None:
            from .procedures import apply_setup, run_procedure

            self.load_table()
            apply_setup(self, self.ctx.options.get("setup") or {})
            out = yield from run_procedure(self, proc)
            return {"ending": "procedure", **(out or {}), "snapshot": self.snapshot()}
        self.load_table()
        self.game_m.fire("start")
        self.start_game()
        yield from self.assign_casts()
        problems = self.validate_table()
        if problems:
            raise ValueError("the table is not legal (§3.2): " + "; ".join(problems))
        self.game_m.fire("valid")
        if self.creating:
            yield from self.create_backgrounds()
        for c in self.t.pcs():
            yield from self.free_window(c, "creation", "§3.1 D03 (キャラクター作成時)")
        self.game_m.fire("created")
        yield from self.play_scenes()
        result = yield from self.end_game()
        self.game_m.fire("over")
        return result

    def end_game(self) -> Gen:
        """§7.11: bans for the next game (D33), un-realize (D34/D35), the post-game registration window, hero points
        lost; what the campaign carries."""
        bans = yield from self.compute_bans()
        for c in self.t.pcs():
            yield from self.unrealize_window(c)
        for c in self.t.pcs():
            yield from self.free_window(c, "post", "§4-1-2 D03 (ゲームの終了後)")
        for c in self.t.pcs():
            self.set_hp(c, 0, "§4-5-2 そのゲーム終了時まで有効")
        goals = {o["id"]: o["outcome"] for o in self.t.outcomes}
        achieved = sum(1 for o in self.t.outcomes if o["achieved"])
        total = len(self.t.outcomes)
        played_all = total == min(len(self.sc.scenes), self.cfg.scenes_per_game)
        ending = ("all_goals" if achieved == total else "no_goals" if achieved == 0 else "some_goals") if played_all \
            else "ended_early"
        usage = {c.id: {e.name: e.usage for e in c.elements if e.usage} for c in self.t.pcs()}
        return {"ending": ending, "goals": goals, "goals_achieved": achieved, "scenes_played": total,
                "game_no": self.t.game_no, "bans_next_game": list(bans), "usage": usage,
                "campaign": self.campaign_state()}

    def campaign_state(self) -> dict[str, Any]:
        """What the next game of a campaign loads (agent/cli.py --campaign writes it to the campaign file):
        characters (elements, 設定, precedents), the usage bans, the omnipotent blacklist."""
        prev = self.campaign()
        pcs: dict[str, Any] = {k: v for k, v in (prev.get("pcs") or {}).items() if k not in self.t.chars}
        for c in self.t.pcs():
            pcs[c.id] = {"name": c.name, "player": c.player, "background": c.background,
                         "elements": [e.sheet() for e in c.elements], "precedents": [p.snap() for p in c.precedents],
                         "next_element": c.next_element}
        games = int(prev.get("games_played", prev.get("sessions_played", 0))) + 1
        return {"format": 1, "system": "a_game", "games_played": games, "sessions_played": games,
                "last_scenario": self.sc.id, "pcs": pcs, "bans_next_game": list(self.t.bans_next),
                "omnipotent_blacklist": list(self.t.blacklist), "next_precedent": self.t.next_precedent,
                "element_counter": self.t.element_counter}
