"""ラストフラグメント rules as a pull-based generator: one session of rules/last_fragment.md §6.

``LastFragmentGame.run`` yields ``Decision``s and receives checked ``Answer``s. This module owns setup (the table,
handouts and secret fragments delivered privately, character creation §3), the opening (initial items), the ending
phase (§7.11), the continuation between sessions (§7.12: growth, respec, memory-ization, carried over through the
campaign file) and the contract (``observation``, ``snapshot``, ``secrets``, ``actors``, ``actor_role``,
``state_audience``). The main phase is scenes.py, the climax combat.py (DESIGN.md).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ...core import ask
from ...core.decision import Label
from ...core.session import GameContext
from ...core.visibility import GM, Secret
from .base import Gen
from .combat import CombatMixin
from .conditions import condition_text
from .config import LastFragmentConfig
from .data import CATEGORY_NAMES, ENDINGS, SCENE_TYPE_NAMES, SKILL_ORDER
from .flow import CHECK, COMBAT, SESSION
from .scenario import LastFragmentScenario, scenario_problems, sheet_problems
from .state import Abn, Char, Table
from .tables import Tables

__all__ = ["LastFragmentGame", "Profile", "Allocation", "ItemNames", "DEFAULT_ALLOCATION"]

#: §8 cc_ap_allocation default: 推理, 観察, 運動, 話術, 精神 = 3; 数学, 医学, 心理 = 2; 直感, 隠密, 科学, 歴史, オカルト = 1;
#: then +1 to 推理, 観察, 運動, 話術 (30)
DEFAULT_ALLOCATION = {"suiri": 4, "kansatsu": 4, "undou": 4, "wajutsu": 4, "seishin": 3, "sugaku": 2, "igaku": 2,
                      "shinri": 2, "chokkan": 1, "onmitsu": 1, "kagaku": 1, "rekishi": 1, "okaruto": 1}


class Profile(BaseModel):
    """cc_profile (§3 step 1): no mechanics."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1, max_length=30, description="PC の名前")
    title: str = Field("", max_length=40, description="肩書")
    age: str = Field("", max_length=20)
    sex: str = Field("", max_length=20)
    memo: str = Field("", max_length=400)


class Allocation(BaseModel):
    """cc_ap_allocation (§3 step 4): levels of 能力/知識 abilities (異能 derived)."""

    model_config = ConfigDict(extra="forbid")
    abilities: dict[str, int] = Field(default_factory=dict, description="ability id → level")


class ItemNames(BaseModel):
    """cc_initial_item_names (§3 step 6): the initial items, named freely."""

    model_config = ConfigDict(extra="forbid")
    names: list[str] = Field(default_factory=list, max_length=5)


class BonusItem(BaseModel):
    """gm_bonus_items (§7.11): a new item the GM names for a survivor."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1, max_length=40, pattern=r"\S", description="アイテムの名前")


class LastFragmentGame(CombatMixin):
    def __init__(self, ctx: GameContext):
        self.ctx = ctx
        self.cfg: LastFragmentConfig = ctx.config
        self.sc: LastFragmentScenario = ctx.scenario.model
        # the scenario was checked with its own flags when it was loaded (its model's validator); a session with
        # other flags (--config) is checked again
        own = LastFragmentConfig(**self.sc.config_overrides)
        problems = [] if self.cfg == own else scenario_problems(self.sc, self.cfg)
        if problems:
            raise ValueError(f"{ctx.scenario.path}: not playable with this configuration: " + "; ".join(problems))
        self.tb = Tables(self.cfg, self.sc.skills)
        self.t = Table()
        self.session_m = ctx.flow(SESSION)
        self.combat_m = ctx.flow(COMBAT)
        self.check_m = ctx.flow(CHECK)
        self.scenes = {s.id: s for s in self.sc.scenes}
        self.objs = {o.id: o for o in self.sc.objects}
        self.items = {i.id: i for i in self.sc.items}
        #: held items are kept by name: the scenario's description of each named item (B.3), for the sheets
        self.item_looks = {i.name: i.description for i in self.sc.items if i.description}
        self.frag = {f.id: f for f in self.sc.fragments}
        #: fragment → recipient (a character id, or ``pcs``) → its share option's (id, label maker) pair, made on
        #: first offer (``free_options``): the pairs depend on nothing but the two ids
        self._share_pairs: dict[str, dict[str, tuple[str, Label]]] = {}
        self.info = {c.id: c.info for c in [*self.sc.npcs, *self.sc.enemies] if c.info is not None}
        self.looks = {c.id: c.description for c in [*self.sc.npcs, *self.sc.enemies] if c.description}
        self.last_id = next(f.id for f in self.sc.fragments if f.kind == "last")
        self.secret_ids = [f.id for f in self.sc.fragments
                           if any(f.id in h.secret_fragments for h in self.sc.handouts)
                           or any(f.id in c.secret_fragments for c in [*self.sc.npcs, *self.sc.enemies])]
        self.continuing: list[str] = []
        self.missing_npcs: list[str] = []

    # ==========================================================================================================
    # the contract
    # ==========================================================================================================
    def actors(self) -> list[str]:
        pcs = [c.id for c in self.t.pcs()] or list(self.sc.pc_ids())
        others = [c.id for c in self.t.others()] or [c.id for c in [*self.sc.npcs, *self.sc.enemies]]
        return [GM, *pcs, *others]

    def actor_role(self, actor: str) -> str:
        if actor == GM:
            return "gm"
        c = self.t.chars.get(actor)
        if c is not None:
            return "pc" if c.is_pc else "npc"
        if actor in self.sc.pc_ids():
            return "pc"
        if actor in {c.id for c in [*self.sc.npcs, *self.sc.enemies]}:
            return "npc"
        raise KeyError(f"unknown actor {actor!r}")

    def prompt_role(self, actor: str) -> str:
        """An enemy's seat reads the ``curse`` template (prompts/last_fragment/curse.md.j2); NPCs ``npc``."""
        c = self.t.chars.get(actor)
        if c is not None and c.kind == "enemy":
            return "curse"
        return self.actor_role(actor)

    def state_audience(self, path: str) -> list[str] | None:
        """Sheets, dice and results are public (§6 opening, §7.1 HOUSE); fragment holders are given explicitly."""
        return None

    def _sheet(self, c: Char) -> dict[str, Any]:
        d: dict[str, Any] = {
            "id": c.id, "name": c.name, "kind": c.kind, "hp": c.hp, "max_hp": c.max_hp,
            "abilities": {a: self.level(c, a) for a in self.tb.order if self.level(c, a)},
            "skills": [self.tb.skills[s].name for s in c.skills if s in self.tb.skills],
            "items": list(c.items), "tokens": c.tokens,
            "abnormalities": [{"id": a.id, "name": self.tb.abn[a.id]["name"], "level": a.level,
                               **({"dart_used": True} if a.dart_used else {})} for a in c.abnormalities],
            "abnormality_level": c.abnormality_level,
            "bonds": {self.who(k): self.bond_label(v) for k, v in c.bonds.items()},
            "bond_powers_used": list(c.bp_used),
        }
        if c.is_pc:
            d.update(seat=c.seat, title=c.title, ap_unspent=c.ap_unspent, skill_slots=c.skill_slots,
                     personal_scenes_used=c.personal_used, memories=list(c.memories))
        if c.incapacitated:
            d["incapacitated"] = True
        if c.withdrawn:
            d["withdrawn"] = True
        if c.combatant and self.t.phase == "climax":
            d.update(sp=c.sp, sp_left=c.sp_left)
        if c.announced:
            d["secret_ability"] = self.aname(c.announced)
        if c.id in self.looks:
            d["description"] = self.txt(self.looks[c.id])
        notes = {n: self.txt(self.item_looks[n]) for n in dict.fromkeys(c.items) if n in self.item_looks}
        if notes:
            d["item_notes"] = notes
        return d

    def _frag_view(self, fid: str) -> dict[str, Any]:
        f = self.frag[fid]
        return {"id": f.id, "name": f.name, "text": self.txt(f.text), "kind": f.kind,
                **({"secret": True} if fid in self.secret_ids else {})}

    def observation(self, actor: str) -> dict[str, Any]:
        """What ``actor`` may know: every sheet (public from the opening), the scene and what discovery revealed,
        the dice; its own fragments (texts) and handout. The GM sees every fragment with its holders, the unlock
        conditions and the notes."""
        s = self.scenes.get(self.t.scene or "")
        scene = None
        if s is not None:
            scene = {"id": s.id, "name": s.name, "type": SCENE_TYPE_NAMES[self.t.scene_type],
                     "description": self.txt(s.description) if s.description else s.description,
                     "revealed": [{"kind": p.kind, "id": p.ref, "name": self.placed_name(p.kind, p.ref)}
                                  for p in s.placed if p.ref in self.t.revealed],
                     "loose_items": [self.items[r].name for r in self.t.loose], "cycle": self.t.cycle,
                     **({"absent": [self.who(x) for x in self.t.absent]} if self.t.absent else {})}
        obs: dict[str, Any] = {
            "system": "last_fragment",
            "scenario": {"title": self.sc.title, "summary": self.txt(self.sc.summary), "setting": self.txt(self.sc.setting)},
            "phase": self.session_m.state, "session_no": self.t.session_no, "scene": scene,
            "visited": [self.scenes[v].name for v in self.t.visited],
            "characters": {c.id: self._sheet(c) for c in self.t.chars.values() if actor == GM or self.known(actor, c)},
            "attempts": [f"{self.who(a)}→{self.who(b) if b in self.t.chars else self.objs[b].name}"
                         for a, b in (x.split(">") for x in self.t.attempts)],
        }
        if self.t.phase == "climax":
            obs["combat"] = {"round": self.t.round, "state": self.combat_m.state, "winner": self.t.winner,
                             "losers": list(self.t.losers)}
        #: the names of the abilities on the sheets this seat sees, in the ability-list order
        shown = {a for c in obs["characters"].values() for a in c["abilities"]}
        obs["ability_names"] = {a: self.tb.names.get(a, a) for a in self.tb.order if a in shown}
        me = self.t.chars.get(actor)
        if me is not None:
            obs["me"] = {**self._sheet(me), "fragments": [self._frag_view(f) for f in self.held(actor)],
                         "handouts": list(me.handouts),
                         "holds_last_fragment": self.holds(actor, self.last_id)}
        if actor == GM:
            obs["gm"] = {
                "gm_notes": self.txt(self.sc.gm_notes),
                "fragments": {f: {**self._frag_view(f), "holders": list(self.t.holders.get(f, []))} for f in self.frag},
                "unlock": {s.id: condition_text(s.unlock) for s in self.sc.scenes},
                "handouts": {c.id: list(c.handouts) for c in self.t.pcs() if c.handouts},
            }
        return obs

    def secrets(self) -> list[Secret]:
        """Every fragment text with its holders (and the GM); handouts; the GM's notes."""
        out = [Secret(self.txt(f.text), frozenset([*self.t.holders.get(f.id, []), GM])) for f in self.sc.fragments]
        for c in self.t.pcs():
            for h in c.handouts:
                out.append(Secret.of(h, c.id, GM))
        if self.sc.gm_notes:
            out.append(Secret.of(self.txt(self.sc.gm_notes), GM))
        # an NPC or enemy not met yet: its id is known to the GM, itself and whoever has met it (``known``)
        actors = [a for a in self.actors() if a != GM]
        for c in self.t.chars.values():
            if not c.is_pc:
                out.append(Secret(c.id, frozenset([GM, *(a for a in actors if self.known(a, c))]), ident=True))
        return out

    def snapshot(self) -> dict[str, Any]:
        return {"phase": self.session_m.state, "combat_phase": self.combat_m.state, "check_phase": self.check_m.state,
                "table": self.t.snap()}

    # ==========================================================================================================
    # setup (§3, §6 setup)
    # ==========================================================================================================
    def campaign(self) -> dict[str, Any]:
        camp = self.ctx.options.get("campaign") or {}
        if not isinstance(camp, dict):
            return {}
        if camp.get("system") not in (None, "last_fragment"):
            raise ValueError(f"campaign data is for system {camp.get('system')!r}, not last_fragment")
        return camp

    def new_pc(self, pid: str, seat: int) -> Char:
        cfg = self.cfg
        return Char(id=pid, name=pid, kind="pc", seat=seat, max_hp=cfg.base_max_hp, hp=cfg.base_max_hp,
                    ap_total=cfg.initial_ap, ap_unspent=cfg.initial_ap, skill_slots=cfg.initial_skill_slots)

    def load_table(self) -> list[Char]:
        """Register PCs (seat order), NPCs and enemies; returns the PCs to build at the table."""
        camp = self.campaign()
        carried = dict(camp.get("pcs") or {})
        build: list[Char] = []
        retired = set(camp.get("retired") or []) - set(carried)
        if camp:
            self.t.session_no = int(camp.get("sessions_played", 0)) + 1
        seats = [p for p in self.sc.pc_ids() if p not in retired] or list(self.sc.pc_ids())
        for k, pid in enumerate(seats):
            c = self.new_pc(pid, k + 1)
            self.t.chars[pid] = c
            sheet = next((p for p in self.sc.pcs if p.id == pid), None)
            if pid in carried and not self.ctx.options.get("create_pcs"):
                self.load_carried(c, carried[pid])
                self.continuing.append(pid)
            elif sheet is not None and not self.ctx.options.get("create_pcs"):
                c.name, c.title = sheet.name, sheet.title
                c.abilities = {a: v for a, v in sheet.abilities.items() if v}
                c.skills = ["tsuujou_kougeki", *sheet.skills]
                c.items = list(sheet.items)
                c.tokens = sheet.tokens
                c.abnormalities = [Abn(a, self.tb.abn[a]["level"]) for a in sheet.abnormalities]
                c.ap_unspent = c.ap_total - sum(c.abilities.values()) * self.cfg.ap_cost_per_level
            else:
                build.append(c)
        for spec in [*self.sc.npcs, *self.sc.enemies]:
            kind = "enemy" if (spec.is_enemy or spec in self.sc.enemies) else "npc"
            c = Char(id=spec.id, name=spec.name, kind=kind, hp=spec.hp, max_hp=spec.max_hp or max(spec.hp, 1),
                     abilities=dict(spec.abilities), skills=["tsuujou_kougeki", *spec.skills],
                     items=[self.items[i].name for i in spec.items], tokens=spec.tokens, hostile=spec.hostile,
                     abnormalities=[Abn(a, self.tb.abn[a]["level"]) for a in spec.abnormalities],
                     secrets=list(spec.secret_fragments))
            self.t.chars[spec.id] = c
        return build

    def load_carried(self, c: Char, d: dict[str, Any]) -> None:
        """§7.12 / §9.9: what a continued PC carries; HP full, tokens 0, bond powers and darts reset."""
        c.name = str(d.get("name") or c.name)
        c.title = str(d.get("title", ""))
        c.abilities = {str(k): int(v) for k, v in (d.get("abilities") or {}).items()}
        c.skills = ["tsuujou_kougeki", *[s for s in d.get("skills") or [] if s != "tsuujou_kougeki"]]
        c.items = [str(x) for x in d.get("items") or []]
        c.memories = [str(x) for x in d.get("memories") or []]
        c.bonds = {str(k): str(v) for k, v in (d.get("bonds") or {}).items()}
        c.abnormalities = [Abn(str(a["id"]), int(a["level"])) for a in d.get("abnormalities") or []]
        c.ap_total = int(d.get("ap_total", c.ap_total))
        c.ap_unspent = int(d.get("ap_unspent", 0))
        c.skill_slots = int(d.get("skill_slots", c.skill_slots))
        c.survived = int(d.get("survived", 0))
        c.max_hp = int(d.get("max_hp", c.max_hp))
        c.hp = c.max_hp

    def assign_handouts(self) -> Gen:
        """gm_handout_assignment (§6 setup): each handout to a PC; the scenario's PC unless the GM gives it to another
        PC. A PC may hold several handouts (a scenario may give one PC two); the GM's options are every PC at the
        table. Returns handout index → PC id."""
        out: dict[int, str] = {}
        for k, h in enumerate(self.sc.handouts):
            pcs = self.t.pcs()
            if not pcs:
                break
            pairs: list[tuple[str, Label]] = []
            if h.pc in self.t.chars:
                pairs.append(("keep", f"シナリオどおり {self.who(h.pc)} に渡す"))
            pairs += [(p.id, f"{p.name} に渡す") for p in pcs if p.id != h.pc]
            ch = yield from self.choose("gm", "gm.handout_assignment", f"ハンドアウト{k + 1}を渡す PC", "§6 setup",
                                        pairs, context={"handout": k, "scenario_pc": h.pc})
            out[k] = h.pc if ch == "keep" else ch
        return out

    def deliver(self, assignment: dict[int, str] | None = None) -> None:
        """§6 setup: handouts and secret fragments privately; fragments NPCs hold."""
        for k, h in enumerate(self.sc.handouts):
            pid = h.pc if assignment is None else assignment.get(k)
            if pid is None or pid not in self.t.chars:  # a PC retired from the campaign (死亡, 失踪, 引退) does not appear
                continue
            c = self.t.chars[pid]
            text = self.txt(h.text)
            c.handouts.append(text)
            self.ctx.whisper([c.id], f"ハンドアウト: {text}")
            for f in h.secret_fragments:
                if f not in c.secrets:
                    c.secrets.append(f)
                self.acquire(c.id, f, "§6 setup（ハンドアウト）", "ハンドアウト")
        for spec in [*self.sc.npcs, *self.sc.enemies]:
            for f in [*spec.secret_fragments, *spec.fragments_held]:
                self.acquire(spec.id, f, "§6 setup", "シナリオ")

    def create(self, c: Char) -> Gen:
        """§3 creation: cc_profile, cc_ap_allocation, cc_skill_choice."""
        taken = {x.name for x in self.t.chars.values() if x is not c}
        default = f"PC{c.seat}" if f"PC{c.seat}" not in taken else c.id

        def free(p: BaseModel) -> str | None:
            return f"the name {p.name!r} is taken" if p.name.strip() in taken else None  # type: ignore[attr-defined]

        p = yield from ask.ask_payload(c.id, "cc.profile", "プロフィール（名前・肩書など）", "§3 1 cc_profile", Profile, free,
                                        context={"suggested": {"name": default}}, samples=[{"name": default}])
        self.set_attr(c, "name", p.name.strip(), "§3 1")
        self.set_attr(c, "title", p.title, "§3 1")
        yield from self.allocate(c, c.ap_unspent)
        yield from self.choose_skills(c, "§3 5 cc_skill_choice")

    def allocate(self, c: Char, budget: int) -> Gen:
        cfg, tb = self.cfg, self.tb

        def check(a: BaseModel) -> str | None:
            probs = sheet_problems("abilities", a.abilities, [], [], tb, cfg, ap_total=budget)  # type: ignore[attr-defined]
            return "; ".join(probs) or None

        default = {k: v for k, v in DEFAULT_ALLOCATION.items() if k in tb.where}
        if sum(default.values()) * cfg.ap_cost_per_level > budget or (
                cfg.max_ability_level is not None and any(v > cfg.max_ability_level for v in default.values())):
            default = {}
        a = yield from ask.ask_payload(c.id, "cc.ap_allocation", f"AP {budget} を能力・知識に振る（1AP = Lv+1）",
                                       "§3 4 cc_ap_allocation", Allocation, check,
                                       context={"budget": budget, "buyable": list(tb.buyable),
                                                "max": cfg.max_ability_level, "default": default},
                                       samples=[{"abilities": default}])
        levels = {k: v for k, v in a.abilities.items() if v}
        spent = sum(levels.values()) * cfg.ap_cost_per_level
        self.set_attr(c, "abilities", levels, "§3 4")
        self.set_attr(c, "ap_unspent", budget - spent, "§3 4 ap_unspent")

    def choose_skills(self, c: Char, rule: str) -> Gen:
        free = c.skill_slots - (len(c.skills) - 1)
        cands = [s for s in self.tb.skills if s != "tsuujou_kougeki" and s not in c.skills]
        if free <= 0 or not cands:
            return
        pairs: list[tuple[str, Label]] = [(s, f"{self.tb.skills[s].name}（{self.aname(self.tb.skills[s].ability)}、"
                                              f"SP{self.tb.skills[s].sp_cost}: {self.tb.skills[s].effect_text}）")
                                          for s in cands]
        picks = yield from self.choose_many(c.id, "cc.skill_choice", f"スキルを{free}つまで選ぶ", rule, pairs, 0, min(free, len(pairs)),
                                            context={"order": list(SKILL_ORDER), "slots": free})
        if picks:
            self.set_attr(c, "skills", [*c.skills, *picks], rule)

    def name_items(self, c: Char, n: int) -> Gen:
        names = yield from self.ask_item_names(c, n)
        for name in names:
            yield from self.add_item(c, name, "§3 6 初期取得アイテム")

    def ask_item_names(self, c: Char, n: int, first: int = 1) -> Gen:
        """cc_initial_item_names and gm_item_name_veto (WIKI: the GM may demand a rename; HOUSE safety: at most
        ``max_item_name_vetoes`` demands per PC, then the names stand)."""
        if n <= 0:
            return []
        default = [f"持ち物{first + i}" for i in range(n)]

        def check(p: BaseModel) -> str | None:
            names = [x.strip() for x in p.names]  # type: ignore[attr-defined]
            if len(names) > n or any(not x for x in names):
                return f"name at most {n} items, none empty"
            return None

        vetoes = 0
        while True:
            p = yield from ask.ask_payload(c.id, "cc.initial_item_names", f"初期取得アイテムを{n}つ名付ける",
                                           "§3 6 cc_initial_item_names", ItemNames, check,
                                           context={"count": n, "default": default,
                                                    **({"renames_asked": vetoes} if vetoes else {})},
                                           samples=[{"names": default}])
            names = [x.strip() for x in p.names]
            if not names or vetoes >= self.cfg.max_item_name_vetoes:
                break
            ch = yield from self.choose("gm", "gm.item_name_veto", f"{c.name} の初期アイテム: " + "、".join(names),
                                        "§3 6 (WIKI)", [("keep", "認める"), ("rename", "名前の変更を求める")],
                                        context={"names": names, "renames_asked": vetoes,
                                                 "max": self.cfg.max_item_name_vetoes}, always_ask=True)
            if ch != "rename":
                break
            vetoes += 1
            self.ctx.narrate(GM, f"語り部が {c.name} に初期アイテムの名前の変更を求めた（" + "、".join(names) + "）。", "rules")
        return names

    # ==========================================================================================================
    # the session (§6)
    # ==========================================================================================================
    def run(self) -> Gen:
        proc = self.ctx.options.get("procedure")
        if proc is not None:
            from .procedures import apply_setup, run_procedure

            self.load_table()
            apply_setup(self, self.ctx.options.get("setup") or {})
            out = yield from run_procedure(self, proc)
            return {"ending": "procedure", **(out or {}), "snapshot": self.snapshot()}
        build = self.load_table()
        for c in build:
            yield from self.create(c)
        for pid in self.continuing:
            yield from self.continuation(self.t.chars[pid])
        assignment = yield from self.assign_handouts()
        self.deliver(assignment)
        self.session_m.fire("open")
        yield from self.opening(build)
        self.session_m.fire("begin_main")
        self.set_t("phase", "main", "§6 main_phase")
        climax = yield from self.main_phase_loop()
        if climax:
            yield from self.climax_phase()
        result = yield from self.ending()
        self.session_m.fire("finish")
        return result

    def opening(self, build: list[Char]) -> Gen:
        self.set_t("phase", "opening", "§6 opening")
        if self.sc.setting:
            self.ctx.narrate(GM, self.txt(self.sc.setting), "scenario")
        for c in self.t.pcs():
            self.ctx.narrate(c.id, f"{c.name}" + (f"（{c.title}）" if c.title else "") + " の自己紹介。", "rules")
        for c in self.t.pcs():
            if c.id in self.continuing:
                yield from self.next_session_items(c)
            elif c in build or not c.items:
                yield from self.name_items(c, min(self.cfg.initial_items, self.cfg.inventory_max - len(c.items)))
        if self.cfg.secret_ability_announced_at_opening:
            for c in self.t.pcs():
                if self.secret_held(c):
                    yield from self.announce(c)

    # ==========================================================================================================
    # the ending (§7.11) and the continuation (§7.12)
    # ==========================================================================================================
    def ending(self) -> Gen:
        self.set_t("phase", "ending", "§6 ending_phase")
        endings: dict[str, str] = {}
        for c in self.t.pcs():
            if c.incapacitated and c.abnormality_level >= 4:
                e = "death" if self.cfg.ending_precedence == "death_first" else "missing"
            elif c.incapacitated:
                e = "death"
            elif c.abnormality_level >= 4:
                e = "missing"
            else:
                e = "survive"
            endings[c.id] = e
            self.set_attr(c, "ending", e, "§7.11 エンディング")
            self.ctx.narrate(GM, f"{c.name}: {ENDINGS[e]}", "rules")
            if e == "survive":
                self.set_attr(c, "ap_unspent", c.ap_unspent + 1, "§7.11 生還 +1AP")
                self.set_attr(c, "ap_total", c.ap_total + 1, "§7.11 生還 +1AP")
                self.set_attr(c, "skill_slots", c.skill_slots + 1, "§7.11 生還 +1スキル枠")
                self.set_attr(c, "survived", c.survived + 1, "§7.11")
                yield from self.bonus_items(c)
        cont: dict[str, bool] = {}
        for c in self.t.pcs():
            e = endings[c.id]
            if e == "survive":
                ch = yield from self.choose(c.id, "cont.continue_pc", f"{c.name} を次のセッションでも使う?", "§7.12 継続",
                                            [("continue", "継続する"), ("retire", "引退する")], always_ask=True)
                cont[c.id] = ch == "continue"
            elif e == "missing":
                ch = yield from self.choose("gm", "cont.continue_pc", f"失踪した {c.name} を NPC として使う?", "§7.11 失踪",
                                            [("none", "使わない"), ("npc", "NPC として使う")],
                                            context={"pc": c.id}, always_ask=True)
                if ch == "npc":
                    self.missing_npcs.append(c.id)
        holders = {f: list(self.t.holders.get(f, [])) for f in self.frag}
        lf_pcs = [p for p in holders[self.last_id] if self.t.chars[p].is_pc]
        return {"ending": "climax" if self.t.phase == "ending" and self.combat_m.state == "end" else "no_climax",
                "endings": endings, "winner": self.t.winner, "losers": list(self.t.losers),
                "last_fragment_holders": lf_pcs, "visited": list(self.t.visited),
                "scenes": [s.id for s in self.sc.scenes],
                "fragments": {f: len([h for h in hs if self.t.chars[h].is_pc]) for f, hs in holders.items()},
                "rounds": self.t.round, "session_no": self.t.session_no,
                "campaign": self.campaign_state(cont)}

    def bonus_items(self, c: Char) -> Gen:
        """§7.11 gm_bonus_items: the GM may give a survivor 0..n items, one at a time: a scenario item or a new one it
        names (gm.bonus_item_name); the overflow rule applies after each. HOUSE: at most ``inventory_max`` gifts per
        survivor, so that the question ends."""
        for k in range(self.cfg.inventory_max):
            pairs: list[tuple[str, Label]] = [("none", "渡さない" if k == 0 else "これ以上渡さない")]
            pairs += [(f"item:{i.id}", f"「{i.name}」を渡す") for i in self.sc.items]
            pairs.append(("new", "新しいアイテムを名付けて渡す"))
            ch = yield from self.choose("gm", "gm.bonus_items", f"{c.name} にアイテムを渡す?", "§7.11 gm_bonus_items", pairs,
                                        context={"pc": c.id, "given": k, "held": len(c.items),
                                                 "max": self.cfg.inventory_max})
            if ch == "none":
                return
            if ch == "new":
                p = yield from ask.ask_payload("gm", "gm.bonus_item_name", f"{c.name} に渡す新しいアイテムの名前",
                                               "§7.11 gm_bonus_items", BonusItem, None, context={"pc": c.id},
                                               samples=[{"name": "記念品"}])
                name = p.name.strip()
                self.ctx.narrate(GM, f"語り部が {c.name} に「{name}」を渡した。", "rules")
                yield from self.add_item(c, name, "§7.11 gm_bonus_items")
            else:
                ref = ch.split(":", 1)[1]
                self.ctx.narrate(GM, f"語り部が {c.name} に「{self.items[ref].name}」を渡した。", "rules")
                yield from self.add_item(c, self.items[ref].name, "§7.11 gm_bonus_items")
                self.describe([ref])

    def campaign_state(self, cont: dict[str, bool]) -> dict[str, Any]:
        """What the next session of a campaign loads (§9.9): surviving, continued PCs' sheets."""
        prev = self.campaign()
        pcs: dict[str, Any] = {}
        for c in self.t.pcs():
            if not cont.get(c.id):
                continue
            pcs[c.id] = {"name": c.name, "title": c.title, "abilities": dict(c.abilities),
                         "skills": [s for s in c.skills if s != "tsuujou_kougeki"], "items": list(c.items),
                         "memories": list(c.memories), "bonds": dict(c.bonds),
                         "abnormalities": [{"id": a.id, "level": a.level} for a in c.abnormalities],
                         "ap_total": c.ap_total, "ap_unspent": c.ap_unspent, "skill_slots": c.skill_slots,
                         "survived": c.survived, "max_hp": c.max_hp}
        n = int(prev.get("sessions_played", 0)) + 1
        retired = [*(x for x in prev.get("retired") or [] if x not in pcs), *(c.id for c in self.t.pcs() if c.id not in pcs)]
        return {"format": 1, "system": "last_fragment", "sessions_played": n, "last_scenario": self.sc.id, "pcs": pcs,
                "retired": list(dict.fromkeys(retired)),
                "npcs_from_missing": [*(prev.get("npcs_from_missing") or []), *self.missing_npcs]}

    def continuation(self, c: Char) -> Gen:
        """§7.12 between sessions (run at the next session's setup): respec, growth, new skills, memory-ization."""
        self.ctx.narrate(GM, f"{c.name} の継続（セッション{self.t.session_no}）", "rules")
        can_respec = c.ap_unspent >= 1 or not self.cfg.respec_requires_unspent_ap
        if can_respec:
            ch = yield from self.choose(c.id, "cont.respec", "振り直し（1AP）をする?", "§7.12 振り直し (AMB-44)",
                                        [("none", "しない"), ("respec", "振り直す（1AP）")], always_ask=True)
            if ch == "respec":
                refund = sum(c.abilities.values()) * self.cfg.ap_cost_per_level
                self.set_attr(c, "ap_total", c.ap_total - 1, "§7.12 振り直し 1AP")
                self.set_attr(c, "abilities", {}, "§7.12 振り直し")
                self.set_attr(c, "skills", ["tsuujou_kougeki"], "§7.12 振り直し（通常攻撃は残る）")
                yield from self.allocate(c, c.ap_unspent - 1 + refund)
                yield from self.choose_skills(c, "§7.12 振り直し")
        while c.ap_unspent >= self.cfg.ap_cost_per_level:
            cap = self.cfg.max_ability_level
            pairs: list[tuple[str, Label]] = [("keep", "振らずに残す")]
            pairs += [(a, f"{self.aname(a)} Lv{c.abilities.get(a, 0)} → {c.abilities.get(a, 0) + 1}")
                      for a in self.tb.buyable if cap is None or c.abilities.get(a, 0) < cap]
            ch = yield from self.choose(c.id, "cont.growth_ap_spend", f"成長: AP {c.ap_unspent} を振る?", "§7.12 成長 (AMB-43)",
                                        pairs, context={"levels": dict(c.abilities)}, always_ask=True)
            if ch == "keep":
                break
            self.set_attr(c, "abilities", {**c.abilities, ch: c.abilities.get(ch, 0) + 1}, "§7.12 成長")
            self.set_attr(c, "ap_unspent", c.ap_unspent - self.cfg.ap_cost_per_level, "§7.12 成長")
        while len(c.skills) - 1 < c.skill_slots:
            cands = [s for s in self.tb.skills if s not in c.skills]
            if not cands:
                break
            pairs = [("none", "覚えない")]
            pairs += [(s, self.tb.skills[s].name) for s in cands]
            ch = yield from self.choose(c.id, "cont.growth_skill_learn", "新しいスキル枠: スキルを覚える?", "§7.12 成長", pairs,
                                        context={"order": list(SKILL_ORDER)})
            if ch == "none":
                break
            self.set_attr(c, "skills", [*c.skills, ch], "§7.12 成長（スキル）")
        if c.items:
            pairs = [(f"item:{i}", self.iname(c.items, i)) for i in range(len(c.items))]
            picks = yield from self.choose_many(c.id, "cont.memorialize", "思い出化するアイテム", "§7.12 思い出化 (AMB-42)",
                                                pairs, 0, len(pairs))
            if picks:
                idx = {int(p.split(":")[1]) for p in picks}
                moved = [n for i, n in enumerate(c.items) if i in idx]
                self.set_attr(c, "items", [n for i, n in enumerate(c.items) if i not in idx], "§7.12 思い出化")
                self.set_attr(c, "memories", [*c.memories, *moved], "§7.12 思い出化")

    def next_session_items(self, c: Char) -> Gen:
        """§7.12 next_session_items: 0–2 picks (AMB-41), new names or memorialized items, then the overflow rule."""
        n = self.cfg.initial_items
        k = len(c.items) + len(c.memories) + 1
        pairs: list[tuple[str, Label]] = [(f"new:{i + 1}", f"新しいアイテム（{i + 1}つ目: 名前はこのあと付ける）")
                                          for i in range(n)]
        pairs += [(f"memory:{i}", f"思い出の{self.iname(c.memories, i)}を再取得する") for i in range(len(c.memories))]
        picks = yield from self.choose_many(c.id, "cont.next_session_items", f"新たな初期取得アイテム（{n}つまで）",
                                            "§7.12 (AMB-41)", pairs, 0, min(n, len(pairs)),
                                            context={"held": len(c.items), "max": self.cfg.inventory_max})
        # the new ones are named freely, as at creation (cc_initial_item_names, with the GM's veto); a player may
        # name fewer than it picked (AMB-41: taking them is optional)
        names = yield from self.ask_item_names(c, sum(1 for p in picks if p.startswith("new:")), first=k)
        mem = list(c.memories)
        for p in picks:
            kind, x = p.split(":")
            if kind == "new":
                if not names:
                    continue
                name = names.pop(0)
            else:
                name = c.memories[int(x)]
                mem.remove(name)
                self.set_attr(c, "memories", list(mem), "§7.12 再取得")
            yield from self.add_item(c, name, "§7.12 新たな初期取得アイテム")


_ = CATEGORY_NAMES
