"""夜狩り人 rules as a pull-based generator: the session (rules/yogaribito.md §6, §7.1, §7.2, §7.10.2).

``YogaribitoGame.run`` yields ``Decision``s and receives checked ``Answer``s. This module owns the phases, scenes,
entry, GM-called checks, social checks and the between-scenes purchase; checks (checks.py), combat (combat.py),
creation (creation.py) and afterplay (afterplay.py) are mixins with the API of DESIGN.md.
"""

from __future__ import annotations

import functools
from typing import Any, Literal

from pydantic import BaseModel, Field, create_model

from ...core.session import GameContext
from ...core.visibility import GM, Secret
from .afterplay import AfterplayMixin
from .arms import ITEMS
from .base import GameBase, Gen
from .campaign import CampaignError, YogaribitoCampaign, read_campaign
from .checks import ChecksMixin
from .combat import CombatMixin
from .config import YogaribitoConfig
from .creation import CreationMixin, character_from_sheet, enemy_character
from .data import ABILITY_NAMES
from .flow import SCENE, SESSION
from .scenario import PHASES, InfoData, SceneData, YogaribitoScenario
from .state import Character, ItemState, Table

__all__ = ["YogaribitoGame", "PHASE_NAMES"]

class CallCheck(BaseModel):
    """D19: a check the GM calls on a PC in the scene (a generic check: its outcome is narrated, §5.6)."""

    pc: str = Field(description="a PC present in the scene and able to act")
    ability: Literal["mind", "tech", "body"]
    target: int = Field(1, ge=1, le=5, description="target number (basic checks: 1; §9.12 guideline)")
    label: str = Field("判定", min_length=1, max_length=60, description="what the check is about")


PHASE_NAMES = {"opening": "オープニングフェイズ", "middle": "ミドルフェイズ", "climax": "クライマックスフェイズ",
               "ending": "エンディングフェイズ"}
SOCIAL_NAMES = {"information": "情報収集", "negotiation": "交渉", "purchase": "購入"}


#: table paths every seat sees change (the observation shows them to everyone)
_PUBLIC_PATHS = frozenset({"battlefield", "previous_scene_pcs", "info", "xp", "afterplay", "attack"})


class YogaribitoGame(AfterplayMixin, CreationMixin, CombatMixin, ChecksMixin, GameBase):
    def __init__(self, ctx: GameContext):
        self.ctx = ctx
        self.cfg: YogaribitoConfig = ctx.config
        self.sc: YogaribitoScenario = ctx.scenario.model
        self.t = Table()
        self.phase = ctx.flow(SESSION)
        self.scene_m = ctx.flow(SCENE)
        self.scene: SceneData | None = None
        self.scene_player: str | None = None
        self.objective_achieved = False
        self.played: list[str] = []
        self.skipped: list[str] = []
        self.fights: dict[str, str] = {}  # scene id -> combat outcome
        self.info_level: dict[str, int] = {}  # info id -> highest tier index disclosed (0-based), PCs share it
        self.proposals: list[str] = []
        self._camp: YogaribitoCampaign | None = None  # the campaign option, checked on first use (_campaign)
        self._camp_pcs: dict[str, Character] = {}
        # the PCs are built at the table (D01–D16): the scenario has a creation section and no PCs, or the player
        # asked for it (``--create``): then the scenario's PCs are built anew under their ids (the scenes name them)
        self.creating = (bool(self.sc.creation) and not self.sc.pcs) or bool(ctx.options.get("create_pcs"))

    # ==========================================================================================================
    # the contract
    # ==========================================================================================================
    def actors(self) -> list[str]:
        pcs = [c.id for c in self.t.pcs()]
        if self.creating:
            pcs += [p for p in self._creation_ids() if p not in pcs]
        pcs += [p for p in self.creating_ids() if p not in pcs]
        return ["gm"] + pcs + [c.id for c in self.t.gm_side()]

    def actor_role(self, actor: str) -> str:
        if actor == "gm":
            return "gm"
        c = self.t.chars.get(actor)
        if c is None:
            if actor in self.actors():
                return "pc"
            raise KeyError(f"unknown actor {actor!r}")
        return "pc" if c.is_pc else "npc"

    def _info_view(self, gm: bool) -> list[dict[str, Any]]:
        out = []
        for inf in self.sc.info:
            level = self.info_level.get(inf.id, -1)
            tiers = [t.text for k, t in enumerate(inf.tiers) if gm or k <= level]
            if gm or tiers:
                out.append({"id": inf.id, "topic": inf.topic, "known": tiers, "tiers_total": len(inf.tiers)})
        return out

    def observation(self, actor: str) -> dict[str, Any]:
        """What ``actor`` may know: the GM everything; others the table (sheets, the battlefield, who is where),
        the information the PCs gathered — never NPC secrets, undisclosed information or scene notes."""
        gm = actor == "gm"
        bf = self.t.battlefield
        obs: dict[str, Any] = {
            "system": "yogaribito",
            "scenario": {"title": self.sc.title, "summary": self.sc.summary, "objective": self.sc.objective},
            "phase": self.phase.state,
            "scene": None,
            "characters": {cid: self._char_view(c) for cid, c in self.t.chars.items()
                           if c.is_pc or c.in_scene or gm},
            "battlefield": bf.snap() if bf is not None else None,
            "info": self._info_view(gm),
            "previous_scene_pcs": list(self.t.previous_scene_pcs),
        }
        if self.scene is not None:
            s = self.scene
            obs["scene"] = {"id": s.id, "title": s.title, "text": s.text, "phase": s.phase,
                            "scene_player": self.scene_player, "time_of_day": self.t.time_of_day,
                            "tags": list(self.t.env_tags), "present": list(self.t.present),
                            "npcs": [{"id": n.id, "name": n.name, "description": n.description}
                                     for n in self.sc.npcs if n.id in s.npcs]}
        me = self.t.chars.get(actor)
        if me is not None:
            obs["me"] = self._char_view(me)
            if me.secret:
                obs["me"]["secret"] = me.secret  # an NPC's player knows its own secret
        if gm:
            obs["gm"] = {"npc_secrets": {n.id: n.secret for n in self.sc.npcs if n.secret},
                         "objective_achieved": self.objective_achieved, "played": list(self.played)}
        return obs

    #: always shown in a character's view, even when empty or zero
    _VIEW_KEEP = frozenset({"id", "name", "side", "kind", "base", "current", "feats", "items", "statuses"})

    def _char_view(self, c: Character) -> dict[str, Any]:
        """A character as others see it: its snapshot without empty bookkeeping (false flags, zero counters, empty
        maps), so that observations stay readable for people and short for models."""
        d = c.snap()
        d.pop("creation", None)
        return {k: v for k, v in d.items() if k in self._VIEW_KEEP or v not in (False, None, 0, "", [], {})}

    def secrets(self) -> list[Secret]:
        """Private facts and their holders: information tiers not disclosed yet (the GM's), an NPC's secret (the
        GM's and that NPC's own), the GM's scene notes."""
        out: list[Secret] = []
        for inf in self.sc.info:
            level = self.info_level.get(inf.id, -1)
            out += [Secret.of(t.text, GM) for k, t in enumerate(inf.tiers) if k > level and t.text]
        for c in self.t.chars.values():
            if c.secret:
                out.append(Secret.of(c.secret, c.id, GM))
        return out

    def state_audience(self, path: str) -> list[str] | None:
        """Who sees a state change: a character's values as its view shows them (everyone, while the character is
        in view: a PC, or in the scene), a sheet being made only by its player; the table's bookkeeping of
        characters out of view and anything unknown, the GM only."""
        head, _, rest = path.partition(".")
        c = self.t.chars.get(head)
        if c is not None:
            if rest.startswith("creation."):
                return [head, GM]
            return None if c.is_pc or c.in_scene else [GM]
        if head in _PUBLIC_PATHS:
            return None
        if rest.startswith("creation.") or head in self.creating_ids():
            return [head, GM]
        return [GM]

    def prompt_role(self, actor: str) -> str:
        return self.actor_role(actor)

    def snapshot(self) -> dict[str, Any]:
        return {
            "table": self.t.snap(),
            "phase": self.phase.state,
            "scene": self.scene.id if self.scene else None,
            "scene_player": self.scene_player,
            "played": list(self.played),
            "skipped": list(self.skipped),
            "fights": dict(self.fights),
            "info_level": dict(self.info_level),
            "objective_achieved": self.objective_achieved,
        }

    # ==========================================================================================================
    # characters
    # ==========================================================================================================
    def add_character(self, c: Character) -> Character:
        if c.id in self.t.chars:
            raise ValueError(f"character id {c.id!r} used twice")
        self.t.chars[c.id] = c
        return c

    def _campaign(self) -> YogaribitoCampaign:
        """The session option ``campaign`` (``--campaign FILE``) checked by ``campaign.read_campaign`` (an empty
        campaign when there is none); its PCs are kept for ``_load_pcs``."""
        if self._camp is None:
            data = self.ctx.options.get("campaign")
            if data is None:
                self._camp, self._camp_pcs = YogaribitoCampaign(), {}
            else:
                source = str(self.ctx.options.get("campaign_file") or "campaign")
                self._camp, self._camp_pcs = read_campaign(data, cfg=self.cfg, source=source)
        return self._camp

    def _load_pcs(self) -> None:
        """The scenario's PCs; in a campaign (``--campaign``) the PCs carried over replace the scenario's sheets of
        the same id and the others join them (a replacement PC of an earlier session, for instance). A scenario PC
        the campaign lists as dead is not seated (§7.11.4: a dead PC is removed; its replacement plays instead)."""
        camp = self._campaign()
        carried = dict(self._camp_pcs)
        for sheet in self.sc.pcs:
            c = carried.pop(sheet.id, None)
            if c is not None:
                self.add_character(c)
            elif sheet.id not in camp.dead:
                self.add_character(self._pc_from(sheet.model_dump(exclude_none=True, by_alias=True), sheet.id))
        for c in carried.values():
            self.add_character(c)
        if self.ctx.options.get("campaign") is not None:
            if not self.t.pcs():
                raise CampaignError(str(self.ctx.options.get("campaign_file") or "campaign"),
                                    [("pcs", "no PC is left to play this scenario (dead: "
                                             f"{', '.join(camp.dead) or 'none'})")])
            self.ctx.info("campaign", f"キャンペーンの継続（セッション {camp.sessions_played + 1}）",
                          carried=sorted(self._camp_pcs), dead=list(camp.dead))

    def _pc_from(self, sheet: dict[str, Any], pid: str) -> Character:
        try:
            return character_from_sheet({**sheet, "id": pid}, cfg=self.cfg)
        except ValueError as e:
            raise ValueError(f"PC {pid!r}: {e}") from None

    def _load_gm_side(self) -> None:
        for n in self.sc.npcs:
            ab = {"mind": 2, "tech": 2, "body": 2, **n.abilities}
            c = Character(id=n.id, name=n.name, side="gm", kind="npc", awaken_eligible=False,
                          base={**ab, "life": 5, "soul": 5, "luck": 0, "wealth": 0},
                          current={**ab, "life": 5, "soul": 5, "luck": 0, "wealth": 0, "kagaribi": 0})
            c.profile = n.description
            c.secret = n.secret
            self.add_character(c)
        for e in self.sc.enemies:
            c = enemy_character(e.enemy, e.id, e.name)
            for stat, v in e.base.items():
                c.base[stat] = v
                c.current[stat] = v
            if e.awaken is not None:
                c.awaken_eligible = e.awaken
            self.add_character(c)

    def _creation_ids(self) -> list[str]:
        """The PCs built at the table: the scenario's PC ids (``--create``), else pc1..pcN of its creation section."""
        if self.sc.pcs:
            return [p.id for p in self.sc.pcs]
        return [f"pc{i + 1}" for i in range(self.sc.creation.pc_count)] if self.sc.creation else []

    def living_pcs(self) -> list[Character]:
        return [c for c in self.t.pcs() if not c.dead]

    # ==========================================================================================================
    # the session (§6)
    # ==========================================================================================================
    def run(self) -> Gen:
        proc = self.ctx.options.get("procedure")
        if proc is not None:
            from .procedures import apply_setup, run_procedure

            if "creation" not in proc:
                self._load_pcs()
                self._load_gm_side()
            apply_setup(self, self.ctx.options.get("setup") or {})
            out = yield from run_procedure(self, proc)
            return {"ending": "procedure", **(out or {}), "snapshot": self.snapshot()}
        yield from self._preplay()
        self.phase.fire("characters_ready")
        yield from self._scenario_start()
        self.phase.fire("begin")
        for k, phase in enumerate(PHASES):
            if k:
                self.phase.fire("advance")
            self.t.phase = phase
            self.ctx.info("phase", f"{PHASE_NAMES[phase]}", phase=phase)
            for s in [x for x in self.sc.scenes if x.phase == phase]:
                if not self.living_pcs():
                    break
                yield from self._maybe_play(s)
            if phase == "middle" and self.living_pcs():
                yield from self._proposals()
        self.phase.fire("advance")  # → afterplay
        self.t.phase = "afterplay"
        self.scenario_end()
        result = yield from self.afterplay(self.objective_achieved)
        self.phase.fire("done")
        return self._outcome(result)

    def _outcome(self, result: dict[str, Any]) -> dict[str, Any]:
        pcs = {c.id: ("dead" if c.dead else "doomed" if c.doomed else "alive") for c in self.t.pcs()}
        ending = "objective_achieved" if self.objective_achieved else "objective_failed"
        out = {"ending": ending, "pcs": pcs, "fights": dict(self.fights), "scenes_played": list(self.played),
               "scenes_skipped": list(self.skipped), **(result or {})}
        # what the next session of a campaign loads (agent/cli.py --campaign writes it to the campaign file)
        camp = self._campaign()
        dead = list(camp.dead) + [c.id for c in self.t.pcs() if c.dead and c.id not in camp.dead]
        out["campaign"] = {"system": "yogaribito", "pcs": dict((result or {}).get("campaign") or {}),
                           "sessions_played": camp.sessions_played + 1, "dead": dead,
                           "replacements": {**camp.replacements, **dict((result or {}).get("replacements") or {})}}
        return out

    def _preplay(self) -> Gen:
        if self.creating:
            sheets = {p.id: p for p in self.sc.pcs}
            for pid in self._creation_ids():
                sheet = sheets.get(pid)
                suggested = None
                if sheet is not None:  # --create: the scenario's PC is built anew; its classes are the suggestion
                    d = sheet.model_dump(exclude_none=True, by_alias=True)
                    suggested = {k: d[f"{k}_class"] for k in ("main", "sub") if d.get(f"{k}_class")}
                c = yield from self.create_character(pid, suggested=suggested)
                self.add_character(c)
            self.creating = False
        else:
            self._load_pcs()
        self._load_gm_side()

    def _scenario_start(self) -> Gen:
        """§6 scenario_start: D11 loadout; current = base for life/soul/luck/wealth/bullets;
        燎 = max(0, 6 − occupied slots)."""
        for c in self.t.pcs():
            yield from self.choose_loadout(c)
        for c in self.t.pcs():
            for stat in ("life", "soul", "luck", "wealth", "bullets"):
                if stat in c.base:
                    self.set_current(c, stat, c.base[stat], "§6 scenario_start")
            occupied = self._occupied_slots(c)
            self.set_current(c, "kagaribi", max(0, c.base.get("kagaribi", 6) - len(occupied)), "§3.1 step 7, §4.3")
            used = {s: s in occupied for s in c.slots_used_this_scenario}
            if used != c.slots_used_this_scenario:
                self.ctx.state(f"{c.id}.slots_used_this_scenario", dict(c.slots_used_this_scenario), dict(used),
                               "§4.3", "scenario start")
                c.slots_used_this_scenario = used
            for st in list(c.statuses):
                self.remove_status(c, st, rule="§6 scenario_start", cause="scenario start")
        self.t.previous_scene_pcs = []

    @staticmethod
    def _occupied_slots(c: Character) -> set[str]:
        out: set[str] = set()
        for it in c.items:
            if it.slot is None:
                continue
            if ITEMS[it.item].slots == "two_hands":
                out.update(("right_hand", "left_hand"))
            else:
                out.add(it.slot)
        return out

    # ==========================================================================================================
    # scenes (§7.1)
    # ==========================================================================================================
    def _maybe_play(self, s: SceneData) -> Gen:
        """D17/D58 after a scene: the GM plays the next scene of the phase, or skips an optional one."""
        if s.optional:
            ch = yield from self.choose("gm", "gm.scene", f"シーン「{s.title}」を行う?", "§6 D17/D58",
                                        [("play", f"「{s.title}」を行う"), ("skip", "このシーンを省略する")],
                                        context={"scene": s.id, "phase": s.phase, "optional": True},
                                        always_ask=True)
            if ch == "skip":
                self.skipped.append(s.id)
                # names a scene the players never see: the GM's
                self.ctx.info("scene_skipped", f"シーン「{s.title}」は省略された", to=[GM], scene=s.id)
                return
        yield from self._scene(s)

    def _pick_scene_player(self, s: SceneData) -> Gen:
        living = [c for c in self.living_pcs()]
        if s.master or not living:
            return None
        if s.scene_player not in (None, "any"):
            c = self.t.chars.get(s.scene_player)
            if c is not None and not c.dead:
                return c.id
        pairs = [(c.id, c.name) for c in living]
        ch = yield from self.choose("gm", "gm.scene_player", f"シーン「{s.title}」のシーンプレイヤーは?", "§7.1 D17",
                                    pairs, context={"scene": s.id})
        return ch

    def _scene(self, s: SceneData) -> Gen:
        self.scene = s
        self.t.scene_id = s.id
        self.scene_m.fire("setup")
        self.scene_player = yield from self._pick_scene_player(s)
        self.t.time_of_day = s.time_of_day
        self.t.env_tags = list(s.tags)
        self.ctx.info("scene", f"{PHASE_NAMES[s.phase]}「{s.title}」", scene=s.id, phase=s.phase,
                      scene_player=self.scene_player, master=s.master, time_of_day=s.time_of_day, tags=list(s.tags))
        if s.text:
            self.ctx.narrate("gm", s.text)
        self.scene_m.fire("ready")
        yield from self._entry(s)
        self.scene_m.fire("entered")
        if s.concentration and not s.master:
            yield from self._concentration(True)
        if not s.master:
            yield from self._active(s)
        if self.t.concentration:
            yield from self._concentration(False)
        self.scene_m.fire("close")
        self._scene_end(s)
        self.played.append(s.id)
        self.scene_m.fire("closed")
        if s.closing:
            self.ctx.narrate("gm", s.closing)
        yield from self._between_scenes(s)
        self.scene_m.fire("leave")
        self.scene = None
        self.scene_player = None

    def _set_present(self, c: Character, present: bool) -> None:
        if present and c.id not in self.t.present:
            self.t.present.append(c.id)
        if not present and c.id in self.t.present:
            self.t.present.remove(c.id)
        self.set_flag(c, "in_scene", present, "§7.1 entry")

    def _entry(self, s: SceneData) -> Gen:
        """§7.1 entry: the scene player appears; other PCs by the scene's mode (open / check / scene player only)."""
        self.t.present = []
        if s.master or self.scene_player is None:
            return
        sp = self.t.chars[self.scene_player]
        self._set_present(sp, True)
        others = [c for c in self.living_pcs() if c.id != sp.id]
        for c in others:
            if s.entry.mode == "scene_player_only" or not c.able:
                continue
            ch = yield from self.choose(c.id, "pc.entry", f"シーン「{s.title}」に登場する?", "§7.1 D18",
                                        [("attempt", "登場する" + ("（登場判定）" if self._needs_entry_check(s) else "")),
                                         ("stay_out", "登場しない")],
                                        context={"scene": s.id, "entry": s.entry.model_dump()}, always_ask=True)
            if ch == "stay_out":
                continue
            if not self._needs_entry_check(s):
                self._set_present(c, True)
                continue
            ability = s.entry.ability
            if ability == "choice":
                pairs = [(a, f"{ABILITY_NAMES[a]} {c.current.get(a, 0)}") for a in ("mind", "tech", "body")]
                ability = yield from self.choose(c.id, "pc.entry_ability", "登場判定の能力値を選ぶ", "§7.1 D56", pairs,
                                                 context={"current": {a: c.current.get(a, 0)
                                                                      for a in ("mind", "tech", "body")}})
            res = yield from self.run_check(c, "entry", ability, s.entry.target,
                                            label=f"登場判定（{ABILITY_NAMES[ability]}）", rule="§7.1 entry, AMB-33")
            if res.success:
                self._set_present(c, True)
            else:
                self.ctx.info("entry_failed", f"{c.name} は登場できなかった", pc=c.id, scene=s.id)

    @staticmethod
    def _needs_entry_check(s: SceneData) -> bool:
        return s.entry.mode == "check" and s.entry.target > 0

    def _concentration(self, opening: bool) -> Gen:
        """D22 / §7.3.1: a psychic concentration situation; psychic main-class characters present make a 魂 check."""
        self.t.concentration = opening
        self.ctx.info("concentration", "精神集中が要される場面" + ("が始まる" if opening else "が終わる"),
                      open=opening)
        for cid in list(self.t.present):
            c = self.t.chars[cid]
            if c.main_class != "psychic" or not c.able:
                continue
            if opening:
                res = yield from self.run_check(c, "psychic_focus", "soul", 1, label="サイキック（精神集中）",
                                                rule="§7.3.1 AMB-22")
                self.set_flag(c, "psychic_focus", 1 if res.success else -1, "§7.3.1")
            else:
                self.set_flag(c, "psychic_focus", 0, "§7.3.1 situation ends")

    def _present_pcs(self) -> list[Character]:
        return [self.t.chars[i] for i in self.t.present if self.t.chars[i].is_pc]

    def _active(self, s: SceneData) -> Gen:
        """The scene's active state: GM-called checks (D19), social checks (§7.2, D20), combat (D58)."""
        for chk in s.checks:
            yield from self._scene_check(s, chk)
        fought = False
        for _ in range(self.cfg.max_scene_actions):
            yield from self._social_round(s)
            pairs: list[tuple[str, str]] = []
            able = [c for c in self._present_pcs() if c.able]
            if s.combat is not None and not fought and self._present_pcs():
                pairs.append(("start_combat", "戦闘を開始する"))
            if any(not c.social_check_used for c in able) and not pairs:
                pairs.append(("continue", "シーンを続ける"))
            pairs.append(("close_scene", "シーンを終了する"))
            if able:
                pairs.append(("call_check", "PC に判定を求める（D19）"))
            psychics = [self.t.chars[i] for i in self.t.present if self.t.chars[i].main_class == "psychic"]
            if psychics and not self.t.concentration:
                pairs.append(("concentration_on", "精神集中が要される場面にする（D22）"))
            if self.t.concentration:
                pairs.append(("concentration_off", "精神集中の場面を終える（D22）"))
            # the scene machine decides which phase moves are open (a fight, the scene's end)
            pairs = self.scene_m.offer(pairs, {"start_combat": "start_combat", "close_scene": "close"})
            ch = yield from self.choose("gm", "gm.scene_flow", f"シーン「{s.title}」: 次は?", "§7.1 D58", pairs,
                                        context={"scene": s.id, "combat_pending": s.combat is not None and not fought},
                                        speech=True)
            if ch == "call_check":
                yield from self._gm_called_check(able)
                continue
            if ch in ("concentration_on", "concentration_off"):
                yield from self._concentration(ch == "concentration_on")
                continue
            if ch == "start_combat":
                fought = True
                yield from self._combat(s)
                if not self.living_pcs():
                    return
                continue
            if ch == "close_scene":
                return
        self.ctx.info("scene_cap", f"シーン「{s.title}」は上限に達したため終了する（独自の安全上限）", scene=s.id)

    def _targets_of(self, s: SceneData, who: str) -> list[Character]:
        present = [c for c in self._present_pcs() if c.able]
        if who == "scene_player":
            return [c for c in present if c.id == self.scene_player]
        if who == "each_present":
            return present
        return [c for c in present if c.id == who]

    def _scene_check(self, s: SceneData, chk: Any) -> Gen:
        """D19: a check the scenario has the GM call."""
        for c in self._targets_of(s, chk.who):
            res = yield from self.run_check(c, "generic", chk.ability, chk.target,
                                            label=f"{chk.label}（{ABILITY_NAMES[chk.ability]}）", rule="§5.6 D19")
            if res.success:
                if chk.on_success:
                    self.ctx.narrate("gm", chk.on_success)
                if chk.reveals:
                    self._disclose(self._info(chk.reveals), res.ach, c)
            else:
                if chk.on_failure:
                    self.ctx.narrate("gm", chk.on_failure)
                if chk.failure_damage is not None and chk.failure_damage.amount:
                    yield from self.damage(c, chk.failure_damage.amount, chk.failure_damage.stat,
                                           rule="§9.12 failure penalty", cause=chk.id)

    def _gm_called_check(self, able: list[Character]) -> Gen:
        """D19: the GM calls a check on a present PC (ability, target); the result is narrated."""
        ids = tuple(c.id for c in able)
        # the legal PCs as an enum in the schema, so that every kind of agent sees them
        model = _call_check_model(ids)
        spec = yield from self.ask_payload("gm", "gm.call_check_free", "どの PC に、どの能力値で、目標値いくつの判定を求める?",
                                           "§5.6 D19", model,
                                           context={"pcs": {c.id: {a: c.current.get(a, 0) for a in ("mind", "tech",
                                                                                                   "body")}
                                                            for c in able}})
        assert isinstance(spec, CallCheck)
        c = self.t.chars[spec.pc]
        yield from self.run_check(c, "generic", spec.ability, spec.target,
                                  label=f"{spec.label}（{ABILITY_NAMES[spec.ability]}）", rule="§5.6 D19")

    def _info(self, iid: str) -> InfoData:
        return next(i for i in self.sc.info if i.id == iid)

    def _disclose(self, inf: InfoData, ach: int, who: Character) -> None:
        """D23: tiers by achievement (≥1 base, ≥2 more detail; the scenario's tiers)."""
        level = -1
        for k, tier in enumerate(inf.tiers):
            if ach >= tier.min_achievement:
                level = k
        old = self.info_level.get(inf.id, -1)
        if level <= old:
            if level >= 0:
                self.ctx.info("info", f"「{inf.topic}」: 新しい情報はない", info=inf.id, pc=who.id)
            return
        self.info_level[inf.id] = level
        self.ctx.state(f"info.{inf.id}", old, level, "§7.2 D23", who.id)
        for k in range(old + 1, level + 1):
            self.ctx.info("info", f"「{inf.topic}」: {inf.tiers[k].text}", info=inf.id, tier=k + 1, pc=who.id)
        if inf.id not in self.t.disclosed:
            self.t.disclosed.append(inf.id)

    def _shop(self) -> list[str]:
        if self.sc.shop is not None:
            return list(self.sc.shop)
        return [i for i, d in ITEMS.items() if d.purchase is not None]

    def _social_round(self, s: SceneData) -> Gen:
        """§7.2 / D20: each present PC whose social check is unused may request one."""
        for c in self._present_pcs():
            if c.social_check_used or not c.able or (self.t.battlefield is not None):
                continue
            pairs: list[tuple[str, str]] = [("none", "何もしない")]
            for iid in s.info:
                inf = self._info(iid)
                if self.info_level.get(iid, -1) < len(inf.tiers) - 1:
                    pairs.append((f"information:{iid}", f"情報収集: {inf.topic}"))
            for nid in s.npcs:
                n = next(x for x in self.sc.npcs if x.id == nid)
                pairs.append((f"negotiation:{nid}", f"交渉: {n.name}"))
            if s.shop:
                pairs += _purchase_pairs(tuple(self._shop()))
            if len(pairs) == 1:
                continue
            ch = yield from self.choose(c.id, "pc.social", "交渉・情報収集・購入判定をする?（1シーン1回）",
                                        "§7.2 D20", pairs,
                                        context={"undisclosed_info": [p[0] for p in pairs
                                                                      if p[0].startswith("information:")],
                                                 "wealth": c.current.get("wealth", 0),
                                                 "owned": [it.item for it in c.items]})
            if ch == "none":
                continue
            kind, _, ref = ch.partition(":")
            self.set_flag(c, "social_check_used", True, "§7.2 one social check per PC per scene (AMB-32)")
            yield from self._social(c, kind, ref)

    def _gm_ability(self, c: Character, prompt: str, rule: str, allowed: tuple[str, ...]) -> Gen:
        pairs = [(a, f"{ABILITY_NAMES[a]}（{c.name} {c.current.get(a, 0)}）") for a in allowed]
        ch = yield from self.choose("gm", "gm.call_check", prompt, rule, pairs,
                                    context={"pc": c.id, "current": {a: c.current.get(a, 0) for a in allowed}})
        return ch

    def _social(self, c: Character, kind: str, ref: str) -> Gen:
        if kind == "information":
            inf = self._info(ref)
            ability = inf.ability
            if ability == "mind_or_tech":
                ability = yield from self._gm_ability(c, f"情報収集「{inf.topic}」の能力値", "§5.6 D19",
                                                      ("mind", "tech"))
            res = yield from self.run_check(c, "information", ability, inf.target,
                                            label=f"情報収集「{inf.topic}」（{ABILITY_NAMES[ability]}）",
                                            rule="§7.2 information")
            if res.success:
                self._disclose(inf, res.ach, c)
            else:
                self.ctx.info("info", f"「{inf.topic}」: 何もわからなかった", info=inf.id, pc=c.id)
        elif kind == "negotiation":
            n = next(x for x in self.sc.npcs if x.id == ref)
            ability = yield from self._gm_ability(c, f"{n.name} との交渉の能力値", "§5.6 D19", ("mind", "tech"))
            if n.opposed:
                npc = self.t.chars[n.id]
                pairs = [(a, f"{ABILITY_NAMES[a]} {npc.current.get(a, 0)}") for a in ("mind", "tech", "body")]
                npc_ab = yield from self.choose("gm", "gm.npc_ability", f"{n.name} の対決の能力値", "§7.2 D55", pairs,
                                                context={"npc": n.id})
                res = yield from self.opposed(c, "negotiation", ability, npc, "negotiation", npc_ab,
                                              label=f"{n.name} との交渉（対決）", rule="§5.5 §7.2")
                ok = res.winner == "active"
            else:
                r = yield from self.run_check(c, "negotiation", ability, 1,
                                              label=f"{n.name} との交渉（{ABILITY_NAMES[ability]}）", rule="§7.2")
                ok = r.success
            if ok:
                if n.on_success:
                    self.ctx.narrate("gm", n.on_success)
                if n.gives_info:
                    self._disclose(self._info(n.gives_info), max(1, self._info(n.gives_info).tiers[0].min_achievement),
                                   c)
            else:
                self.ctx.info("negotiation", f"{n.name} との交渉は不調に終わった", npc=n.id, pc=c.id)
        elif kind == "purchase":
            yield from self._purchase(c, ref, "§7.2 purchase")
        else:  # pragma: no cover - options come from _social_round
            raise RuntimeError(f"unknown social check {kind!r}")

    def _purchase(self, c: Character, item_id: str, rule: str) -> Gen:
        d = ITEMS[item_id]
        assert d.purchase is not None
        res = yield from self.run_check(c, "purchase", "tech", d.purchase,
                                        label=f"購入判定: {d.name}（目標値 {d.purchase}）", rule=rule)
        if not res.success:
            self.ctx.info("purchase", f"{c.name} は {d.name} を手に入れられなかった", pc=c.id, item=item_id)
            return
        n = sum(1 for it in c.items if it.item == item_id)
        uid = item_id if n == 0 else f"{item_id}#{n + 1}"
        while c.item(uid) is not None:
            n += 1
            uid = f"{item_id}#{n + 1}"
        c.items.append(ItemState(uid=uid, item=item_id, origin="purchased",
                                 uses_left=1 if d.type == "consumable" else None))
        self.ctx.state(f"{c.id}.items", None, uid, rule, "purchased")
        self.ctx.info("purchase", f"{c.name} は {d.name} を手に入れた（このシナリオの間）", pc=c.id, item=item_id)

    def _combat(self, s: SceneData) -> Gen:
        assert s.combat is not None
        cb = s.combat
        pcs = [c.id for c in self._present_pcs()]
        for eid in cb.enemies:
            e = self.t.chars[eid]
            if not e.dead:
                self._set_present(e, True)
        layout = None
        if cb.layout is not None:
            layout = {}
            for eng, members in cb.layout.items():
                ids: list[str] = []
                for m in members:
                    if m == "pcs":
                        ids += [p for p in pcs if p not in ids]
                    elif m in self.t.present:
                        ids.append(m)
                if ids:
                    layout[eng] = ids
            placed = {i for v in layout.values() for i in v}
            stray = [p for p in pcs if p not in placed]
            if stray:
                layout.setdefault("E1", []).extend(stray)
        self.scene_m.fire("start_combat")
        outcome = yield from self.combat({"enemies": [e for e in cb.enemies if not self.t.chars[e].dead],
                                          "layout": layout, "flying": list(cb.flying),
                                          "escape_allowed": cb.escape_allowed, "end_condition": None})
        self.scene_m.fire("combat_over")
        self.fights[s.id] = outcome
        if outcome == "pcs_win":
            if cb.on_win:
                self.ctx.narrate("gm", cb.on_win)
            if cb.objective:
                self.objective_achieved = True
                self.ctx.info("objective", f"シナリオの目的を達成した: {self.sc.objective}")
        elif cb.on_lose:
            self.ctx.narrate("gm", cb.on_lose)

    def _scene_end(self, s: SceneData) -> None:
        """§7.10.2: awakening ends (life +1), 戦闘不能 recovers (HOUSE), per-scene counters reset."""
        for cid in list(self.t.present):
            c = self.t.chars[cid]
            self.end_of_scene_for(c)
        for c in self.t.chars.values():
            if c.social_check_used:
                self.set_flag(c, "social_check_used", False, "§7.10.2 per-scene counters reset")
            if c.uses_scene:
                self.ctx.state(f"{c.id}.uses_scene", dict(c.uses_scene), {}, "§7.10.2 step 3", "scene limits reset")
                c.uses_scene.clear()
            kept = [e for e in c.effects if e.get("until") not in ("scene", "turn", "round")]
            if len(kept) != len(c.effects):
                self.ctx.state(f"{c.id}.effects", [dict(e) for e in c.effects], [dict(e) for e in kept],
                               "§7.10.2 step 3", "scene-duration effects end")
                c.effects = kept
        prev = [] if s.master else [c.id for c in self._present_pcs()]
        self.ctx.state("previous_scene_pcs", list(self.t.previous_scene_pcs), list(prev), "§7.10.2 step 3")
        self.t.previous_scene_pcs = prev
        for cid in list(self.t.present):
            self._set_present(self.t.chars[cid], False)

    def _between_scenes(self, s: SceneData) -> Gen:
        """§6 between scenes: every living PC absent from the scene just closed may make one purchase check (D21)."""
        if s.phase == "ending":
            return
        master_counts = s.master and self.cfg.master_scene_counts_for_purchase
        for c in self.living_pcs():
            if c.id in self.t.previous_scene_pcs or not c.able:
                continue
            if s.master and not master_counts:
                continue
            pairs = [("none", "何もしない")] + [(it, f"{ITEMS[it].name}（目標値 {ITEMS[it].purchase}）")
                                              for it in self._shop()]
            ch = yield from self.choose(c.id, "pc.purchase", "シーンの合間: 購入判定をする?", "§6 between scenes D21",
                                        pairs, context={"owned": [it.item for it in c.items],
                                                        "wealth": c.current.get("wealth", 0)})
            if ch != "none":
                yield from self._purchase(c, ch, "§6 between-scenes purchase D21")

    def _proposals(self) -> Gen:
        """D59 / D17: at the end of the middle phase each PC may propose a scene; the GM accepts or rejects it.
        An accepted scene is played with that PC as scene player (entry open; social checks as usual)."""
        for c in self.living_pcs():
            if not c.able or c.id in self.proposals:
                continue
            ch = yield from self.choose(c.id, "pc.propose", "シーンを提案する?", "§6 D59",
                                        [("none", "提案しない"), ("propose", "自分がシーンプレイヤーのシーンを提案する")],
                                        always_ask=True)
            if ch == "none":
                continue
            self.proposals.append(c.id)
            ok = yield from self.choose("gm", "gm.proposal", f"{c.name} のシーン提案を受け入れる?", "§6 D17",
                                        [("accept", "受け入れる"), ("reject", "却下する")], context={"pc": c.id},
                                        always_ask=True)
            if ok != "accept":
                self.ctx.info("proposal", f"{c.name} のシーン提案は却下された", pc=c.id)
                continue
            base = next((x for x in self.sc.scenes if x.phase == "middle"), self.sc.scenes[0])
            extra = SceneData(id=f"proposal_{c.id}", phase="middle", title=f"{c.name} の提案したシーン",
                              scene_player=c.id, time_of_day=base.time_of_day, tags=list(base.tags),
                              info=list(base.info), npcs=list(base.npcs), shop=True)
            yield from self._scene(extra)


@functools.lru_cache(maxsize=256)
def _call_check_model(ids: tuple[str, ...]) -> type[CallCheck]:
    """``CallCheck`` with the legal PCs as an enum (one class per list of PCs: building a pydantic model is slow)."""
    return create_model("CallCheck", __base__=CallCheck,
                        pc=(Literal[ids], Field(description="a PC present in the scene and able to act")))  # type: ignore[valid-type,arg-type]


@functools.lru_cache(maxsize=64)
def _purchase_pairs(shop: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """The purchase options of a shop (asked of every PC in every scene with a shop; the same labels every time)."""
    return tuple((f"purchase:{it}", f"購入: {ITEMS[it].name}（目標値 {ITEMS[it].purchase}）") for it in shop)
