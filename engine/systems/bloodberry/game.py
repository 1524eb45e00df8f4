"""ブラッドベリー rules as a pull-based generator (rules/bloodberry.md §3–§9).

``BloodberryGame.run`` yields ``Decision``s and receives checked ``Answer``s. Every legality rule is applied when a
decision's options are built, so an answer that passes ``Decision.check`` is legal; rule effects happen only after
the answer is accepted, so a refused answer changes nothing. Section references name the spec.
"""

from __future__ import annotations

from collections.abc import Generator, Mapping, Sequence
from functools import partial
from typing import Any

from pydantic import BaseModel, Field

from ...core import ask
from ...core.decision import Answer, Decision, Label
from ...core.session import GameContext
from ...core.visibility import GM, Secret
from .cards import numbered
from .config import BloodberryConfig
from .data import (
    ABILITIES, ABILITY_NAMES, BASIC_SKILLS, CLASS_SKILLS, CURSE_ABILITY, CURSE_TYPE_NAMES,
    CURSE_TYPES, RACE_SKILLS, RELATION_BASE, RELATION_TYPE_NAMES, RELATION_TYPES, EMOTION_TABLE,
)
from .flow import BETWEEN, CONFRONTATION, ROUNDS, SCENE, SESSION
from .judge import CheckSpec, JudgeMixin, Roller
from .scenario import BloodberryScenario, SceneAction, SceneData
from .state import SECOND, Char, SkillState, Table, majority_classes, pair, rel_key, split_ref

__all__ = ["BloodberryGame", "ring_partners", "FreeAction", "JudgeCall", "TextPayload", "TimeStop"]

Gen = Generator[Decision, Answer, Any]
EMOTION_IDS = [e[0] for e in EMOTION_TABLE]
EMOTION_NAME = {e[0]: e[1] for e in EMOTION_TABLE}
MAX_SCENE_CYCLES = 6  # HOUSE safety cap so that no GM can keep a scene open forever
#: the GM's choice of turn progression (§7.4): round progression moves the round_progression machine
_PROGRESSIONS = (("normal_order", "通常の進行"), ("round_progression", "ラウンド進行 (トランプ)"))
#: table state every seat sees change (the observations show it to everyone)
_PUBLIC_HEADS = frozenset({"clock", "clues", "camp"})
#: a character's fields its snapshot shows to everyone (``Char.snap(private=False)``); the rest are its player's
_PUBLIC_CHAR_FIELDS = frozenset({
    "abilities", "passion", "grace", "maturity", "doubt", "malice", "anxiety", "willpower", "status", "skill", "sheet",
    "has_key", "foam_bonus", "no_relation_until", "absent_sessions", "hosted_by", "lost_wish",
})


def ring_partners(ids: Sequence[str], double: bool = False) -> dict[str, list[str]]:
    """§3 step 2: PC1–PC2, …, PCn–PC1; two PCs share one relation (A34 single), or have the ring's two, PC1–PC2 and
    the closing PC2–PC1 (A34 double: the second named ``"<partner>#2"``, state.SECOND); one PC has none."""
    n = len(ids)
    if n < 2:
        return {i: [] for i in ids}
    if n == 2:
        if double:
            return {ids[0]: [ids[1], ids[1] + SECOND], ids[1]: [ids[0], ids[0] + SECOND]}
        return {ids[0]: [ids[1]], ids[1]: [ids[0]]}
    return {ids[i]: [ids[i - 1], ids[(i + 1) % n]] for i in range(n)}


class TextPayload(BaseModel):
    text: str = Field(min_length=1, max_length=400)


class FreeAction(BaseModel):
    text: str = Field(min_length=1, max_length=400, description="what your character does (an ordinary person's act)")


class JudgeCall(BaseModel):
    """gm.call_judge: how the GM resolves an uncertain free action (§5.3 [1])."""

    mode: str = Field(pattern="^(none|auto_success|auto_failure|basic)$")
    bases: tuple[str, str] = ("passion", "maturity")
    difficulty: int = Field(2, ge=0, le=10)


class TimeStop(BaseModel):
    hours: int = Field(ge=1, le=20, description="X: hours of stopped time; costs X 情熱 (情熱 stays ≥ 1)")


class BloodberryGame(JudgeMixin):
    def __init__(self, ctx: GameContext):
        self.ctx = ctx
        self.cfg: BloodberryConfig = ctx.config
        self.sc: BloodberryScenario = ctx.scenario.model
        self.t = Table()
        self.phase = ctx.flow(SESSION)
        self.scene_m = ctx.flow(SCENE)
        self.bs_m = ctx.flow(BETWEEN)
        self.cf_m = ctx.flow(CONFRONTATION)
        self.rp_m = ctx.flow(ROUNDS)
        self.scene: SceneData | None = None
        self.scene_index = -1
        self.window_id = 0  # useful-bonus window (§5.6, A38): each scene and each between-scene
        self.in_between = False
        self.participants: list[str] = []
        self.scene_actors: list[str] = []
        self.prev_actors: list[str] = []
        self.npcs_present: list[str] = []
        self.known_npcs: set[str] = set()
        self.actions_done: set[str] = set()
        self.cf_curses: list[str] = []
        self.cf_camp = "pcs"
        self.cf_special_used: set[str] = set()
        self.cf_result: str | None = None
        self.result: dict[str, Any] = {}
        self.emotion_changed = False
        self.creating = bool(ctx.options.get("create_pcs"))
        self.rejections: dict[str, int] = {}
        self.creating_ids: list[str] = []
        self.approved_proposals: list[str] = []
        self._ring: tuple[list[Char], dict[str, list[str]]] | None = None

    # ==========================================================================================================
    # decision helpers
    # ==========================================================================================================
    def choose(self, actor: str, kind: str, prompt: str, rule: str, pairs: Sequence[tuple[str, Label]],
               context: Mapping[str, Any] | None = None, refused: dict[str, str] | None = None,
               always_ask: bool = False) -> Gen:
        """Ask for one option; a decision with a single legal option is not asked (nothing to decide)."""
        return ask.choose(actor, kind, prompt, rule, pairs, context=context, refused=refused, always_ask=always_ask,
                          ctx=self.ctx)

    def choose_many(self, actor: str, kind: str, prompt: str, rule: str, pairs: Sequence[tuple[str, str]], lo: int,
                    hi: int, context: dict[str, Any] | None = None) -> Gen:
        return ask.choose_many(actor, kind, prompt, rule, pairs, lo, hi, context=context, ctx=self.ctx)

    def ask_payload(self, actor: str, kind: str, prompt: str, rule: str, model: type[BaseModel], check: Any = None,
                    context: dict[str, Any] | None = None, samples: Sequence[Any] | None = None) -> Gen:
        return ask.ask_payload(actor, kind, prompt, rule, model, check, context=context, samples=samples)

    # ==========================================================================================================
    # the contract
    # ==========================================================================================================
    def actors(self) -> list[str]:
        # PCs being created keep their place (PC1 first) while their sheets fill the table
        return ["gm"] + list(self.creating_ids) + [c for c in self.t.chars if c not in self.creating_ids]

    def prompt_role(self, actor: str) -> str:
        """A formed curse is an NPC to the rules and has its own prompt (curse)."""
        c = self.t.chars.get(actor)
        if c is not None and c.is_curse:
            return "curse"
        return self.actor_role(actor)

    def actor_role(self, actor: str) -> str:
        if actor == "gm":
            return "gm"
        c = self.t.chars.get(actor)
        if c is None:
            if actor in self.creating_ids:
                return "pc"  # a PC still being created (§3)
            raise KeyError(f"unknown actor {actor!r}")
        return "pc" if c.is_pc else "npc"

    def observation(self, actor: str) -> dict[str, Any]:
        """What ``actor`` may know (§ Appendix A): the GM sees everything; a PC sees the public table, its own
        sheet, emotions and victory conditions, the clues handed out; never GM secrets or others' private notes."""
        gm = actor == "gm"
        me = self.t.chars.get(actor)
        chars = {}
        for cid, c in self.t.chars.items():
            chars[cid] = c.snap(private=gm or cid == actor)
        obs: dict[str, Any] = {
            "system": "bloodberry",
            "scenario": {"title": self.sc.title, "setting": self.sc.setting, "summary": self.sc.summary},
            "phase": self.phase.state,
            "scene": None,
            "characters": chars,
            "relations": [
                {"between": [a, b], "name": r.name, "strength": r.strength, **({"second": True} if n == 2 else {})}
                for (a, ref), r in sorted(self.t.relations.items()) for b, n in (split_ref(ref),)
                if gm or (self.t.chars[a].is_pc and self.t.chars[b].is_pc) or actor in (a, b)
            ],
            "camp_strength": {f"{c}|{k}": v for (c, k), v in sorted(self.t.camp_strength.items())},
            "clock_minutes": self.t.clock,
            "clues": list(self.t.clues),
        }
        if self.scene is not None:
            s = self.scene
            obs["scene"] = {
                "id": s.id, "title": s.title, "place": s.place, "text": s.text, "participants": list(self.participants),
                "scene_actors": list(self.scene_actors), "npcs": list(self.npcs_present),
            }
        if self.rp is not None:
            obs["cards"] = self.rp.view(actor)
        if self.fm is not None:
            obs["flag_map"] = self.fm.view(actor)
        if me is not None:
            obs["me"] = me.snap(private=True)
        if gm:
            obs["gm"] = {
                "gm_notes": self.sc.gm_notes, "flags": sorted(self.t.flags), "scene_secret": self.scene.gm_secret if self.scene else "",
                "hama": {f"{u}|{t}": k for (u, t), k in self.t.hama.items()},
            }
        return obs

    def secrets(self) -> list[Secret]:
        """Private facts and their holders (the conformance suite checks every seat's view): the GM's notes and
        scene secrets; an NPC's secret (its player's and the GM's); a PC's profile, personal curse and the victory
        conditions it wrote (its player's and the GM's)."""
        out = [Secret.of(x, GM) for x in [self.sc.gm_notes] + [sc.gm_secret for sc in self.sc.scenes] if x]
        for c in self.t.chars.values():
            if not c.is_pc and c.secret:
                out.append(Secret.of(c.secret, c.id, GM))
        for c in self.t.pcs():
            mine = [c.profile, c.personal_curse or ""] + [v["text"] for v in c.victory if v.get("source") == "pc"]
            out += [Secret.of(x, c.id, GM) for x in mine if x]
        return out

    def state_audience(self, path: str) -> list[str] | None:
        """Who sees a state change, as the observations show the table: the clock, clues, camp strengths, the flag
        map's layouts and every character's public fields to everyone; a relation to its pair (to everyone between
        two PCs); a character's private fields (profile, emotions, victory conditions, curse) to its player; a hand
        to its holder (a camp's to its members); scenario flags, 破魔 bookkeeping and anything new to the GM only."""
        head, _, rest = path.partition(".")
        if head in _PUBLIC_HEADS:
            return None
        if head == "relation":
            pair_ = [split_ref(x)[0] for x in rest.split(".", 1)[0].split("|")]
            if len(pair_) == 2 and all(self.t.chars.get(p) is not None and self.t.chars[p].is_pc for p in pair_):
                return None
            return [*pair_, GM]
        if head == "cards":
            return [rest.split(".", 1)[0], GM]
        if head == "flag_map":
            camp, _, what = rest.partition(".")
            if what == "hand":
                members: list[str] = next((cs.members for cs in (self.fm.camps if self.fm is not None else [])
                                           if cs.id == camp), [])
                return [*members, GM]
            return None
        if head in self.t.chars or head in self.creating_ids:
            field_name = rest.split(".", 1)[0].split("[", 1)[0]
            return None if field_name in _PUBLIC_CHAR_FIELDS else [head, GM]
        return [GM]

    def snapshot(self) -> dict[str, Any]:
        return {
            "table": self.t.snap(),
            "phase": self.phase.state,
            "scene": self.scene.id if self.scene else None,
            "participants": list(self.participants),
            "scene_actors": list(self.scene_actors),
            "result": dict(self.result),
        }

    # ==========================================================================================================
    # state changes (every one logged)
    # ==========================================================================================================
    def set_ability(self, c: Char, ab: str, new: int, rule: str, cause: str = "") -> None:
        old = c.ab[ab]
        if old != new:
            c.ab[ab] = new
            self.ctx.state(f"{c.id}.{ab}", old, new, rule, cause)

    def set_willpower(self, c: Char, new: int, rule: str) -> None:
        new = max(0, min(3, new))  # §4.3: 0..3, gains above 3 are lost
        if new != c.willpower:
            self.ctx.state(f"{c.id}.willpower", c.willpower, new, rule)
            c.willpower = new

    def set_strength(self, a: str, b: str, new: int, rule: str) -> None:
        """``b``: the partner, or ``"<partner>#2"`` for the second relation of two PCs (A34 double)."""
        r = self.t.rel(a, b)
        new = max(0, min(3, new))
        if new != r.strength:
            self.ctx.state(f"relation.{'|'.join(rel_key(a, b))}", r.strength, new, rule)
            r.strength = new

    def rel_refs(self, a: str, b: str) -> list[str]:
        """``a``'s relations with ``b``: ``[b]``, and ``b#2`` when two PCs have two relations (A34 double)."""
        second = b + SECOND
        return [b, second] if second in self.ring().get(a, ()) else [b]

    def rel_label(self, a: str, ref: str) -> str:
        """The partner of ``a``'s relation ``ref`` as players read it; with two relations to one partner, the
        relation's name tells them apart (A34 double)."""
        b, _n = split_ref(ref)
        name = self.t.chars[b].name
        if len(self.rel_refs(a, b)) > 1:
            name += f"（{self.t.rel(a, ref).name or ('二つ目の関係' if _n == 2 else '一つ目の関係')}）"
        return name

    def set_status(self, c: Char, status: str, rule: str) -> None:
        if c.status != status:
            self.ctx.state(f"{c.id}.status", c.status, status, rule)
            c.status = status
            if status != "active" and c.id in self.participants and status in ("dropped", "vanished", "hosted"):
                self.participants.remove(c.id)
                if c.id in self.scene_actors:
                    self.scene_actors.remove(c.id)

    def cost_floor(self) -> int:
        return 2 if self.cfg.cost_floor_reading == "floor_2" else 1

    def can_spend(self, c: Char, ab: str, n: int) -> bool:
        """§4.1 self-spending (消費): never below 1 (A14)."""
        return c.ab[ab] - n >= self.cost_floor()

    def spend(self, c: Char, ab: str, n: int, rule: str) -> None:
        assert self.can_spend(c, ab, n), (c.id, ab, n)
        self.set_ability(c, ab, c.ab[ab] - n, rule, "spend")

    def present_pcs(self) -> list[Char]:
        """PCs present now: the scene's participants; between scenes every PC still in play."""
        if self.in_between:
            return [c for c in self.t.pcs() if c.in_play]
        return [self.t.chars[i] for i in self.participants if self.t.chars[i].is_pc and self.t.chars[i].in_play]

    def sublimate(self, c: Char, sid: str, rule: str) -> None:
        """§5.4 sublimate(skill), §7.3."""
        sk = c.skill(sid)
        assert sk is not None and not sk.sublimated
        sk.sublimated = True
        sk.effect_available = True
        self.ctx.state(f"{c.id}.skill.{sid}", "unsublimated", "sublimated", rule)
        ab = BASIC_SKILLS[sid].sub_ability
        c.full[ab] += 1
        self.set_ability(c, ab, c.ab[ab] + 1, rule, "sublimation")

    def declare_effect(self, c: Char, sid: str) -> Gen:
        """A sublimation effect is declared: it is spent, then the 忘却 window opens (§9.1). True = it happens."""
        sk = c.skill(sid)
        assert sk is not None and sk.effect_available and sk.sublimated
        sk.effect_available = False
        self.ctx.state(f"{c.id}.skill.{sid}.effect", "available", "spent", "§7.3", "declared")
        if sid == "bokyaku":
            return True  # 忘却 cannot be cancelled
        for other in self.present_pcs():
            if other.id == c.id or not other.effect_ready("bokyaku"):
                continue
            ch = yield from self.choose(
                other.id, "j.forget", f"{c.name} が {BASIC_SKILLS[sid].name} を宣言した。忘却で打ち消す?", "§9.1 忘却",
                [("pass", "見送る"), ("cancel", f"忘却: {BASIC_SKILLS[sid].name} を打ち消す")],
                context={"user": c.id, "effect": sid, "in_confrontation": self.cf_m.state == "cf_loop",
                         "user_is_opponent": self._opponents(other, c)},
            )
            if ch == "cancel":
                yield from self.declare_effect(other, "bokyaku")
                self.ctx.info("effect_cancelled", f"{other.name} の忘却が {c.name} の{BASIC_SKILLS[sid].name}を打ち消した",
                              user=c.id, effect=sid, by=other.id)
                return False
        return True

    def _opponents(self, a: Char, b: Char) -> bool:
        """Rival camps only exist in confrontations; members of one camp are allies."""
        if self.cf_m.state != "cf_loop":
            return False
        ca, cb = self.cf_camp_of.get(a.id), self.cf_camp_of.get(b.id)
        return ca is not None and cb is not None and ca != cb

    # -- ability decrease, guard, drop (§7.9) ------------------------------------------------------------------
    def decrease(self, target: Char, ab: str, amount: int, cause: str, rule: str) -> Gen:
        guard: Char | None = None
        for g in self.present_pcs():
            if g.id == target.id or g.willpower < 1 or not g.in_play or g.status == "dead":
                continue
            if self.cfg.guard_floor == "forbid_below_1" and g.ab[ab] - amount < 1:
                continue
            ch = yield from self.choose(
                g.id, "kiryoku.guard", f"{target.name} の{ABILITY_NAMES[ab]}が{amount}減少する。気力1で肩代わりする?", "§4.3 #2, §7.9",
                [("pass", "見送る"), ("guard", f"肩代わり: 自分の{ABILITY_NAMES[ab]} −{amount}")],
                context={"target": target.id, "ability": ab, "amount": amount, "target_value": target.ab[ab],
                         "my_value": g.ab[ab], "willpower": g.willpower},
            )
            if ch == "guard":
                guard = g
                break
        if guard is not None:
            self.set_willpower(guard, guard.willpower - 1, "§4.3 #2 guard")
            self.ctx.info("guard", f"{guard.name} が {target.name} の減少を肩代わりした", guard=guard.id, target=target.id)
            target = guard
            cause = f"guard for {cause}"
        self.set_ability(target, ab, max(0, target.ab[ab] - amount), rule, cause)
        yield from self.zero_check(target)

    def zero_check(self, c: Char) -> Gen:
        if not c.is_pc or not c.any_zero() or c.status in ("dropped", "vanished", "absent"):
            return
        if (c.ab["passion"] == 0 and self.cfg.allow_self_rescue_at_zero and c.effect_ready("byojaku")):
            ch = yield from self.choose(
                c.id, "rescue.byojaku", "情熱が0になった。病弱で情熱を2回復する?", "§7.9 self-rescue",
                [("use", "病弱を使う"), ("pass", "使わない")], context={"abilities": dict(c.ab)},
            )
            if ch == "use":
                yield from self.use_byojaku(c)
        if c.any_zero():
            self.set_status(c, "dropped", "§4.1 ability 0 → dropped")

    def use_byojaku(self, c: Char) -> Gen:
        ok = yield from self.declare_effect(c, "byojaku")
        if ok:
            cap = c.full["passion"] if self.cfg.heal_cap == "full" else 10**6
            self.set_ability(c, "passion", min(cap, c.ab["passion"] + 2), "§9.1 病弱", "recover")
        if c.status == "dropped" and not c.any_zero():
            self.set_status(c, "active", "§4.1 ability above 0 again")

    # ==========================================================================================================
    # the session (§6)
    # ==========================================================================================================
    def run(self) -> Gen:
        proc = self.ctx.options.get("procedure")
        if proc is not None:
            from .procedures import apply_setup, run_procedure

            if "creation" in proc:
                self.creating = True
                self.ctx.options = {**self.ctx.options, **(proc["creation"] or {})}
            else:
                self._load_pregenerated()
                apply_setup(self, self.ctx.options.get("setup") or {})
            out = yield from run_procedure(self, proc)
            return {"ending": "procedure", **out, "snapshot": self.snapshot()}
        if self.creating:
            from .creation import create_pcs

            yield from create_pcs(self)
        else:
            self._load_pregenerated()
        if not self.ctx.options.get("campaign"):  # a continuing campaign's sheets were approved at creation
            yield from self._approve_sheets()
        self.phase.fire("start_session")
        yield from self._session_start()
        scenes = list(self.sc.scenes)
        i = self._next_playable(0)
        if i is not None:
            yield from self._scene_setup(scenes[i])  # §6 SESSION_START: the GM designates the first scene's cast
        while i is not None:
            if scenes[i].flag_map is not None:
                after_bs = yield from self._flag_map_segment(i, scenes[i])
                if not self._any_pc_in_play() or self.cf_result == "defeat":  # §6: a confrontation defeat → ENDING
                    break
                j = self._next_playable(i + 1)
                if j is None:
                    break
                if not after_bs:  # the map ended without a flag event: the next scene's cast is chosen now
                    yield from self._scene_setup(scenes[j])
                i = j
                continue
            go_ending = yield from self._scene(i, scenes[i])
            if go_ending or not self._any_pc_in_play() or self.cf_result == "defeat":
                break
            j = self._next_playable(i + 1)
            if j is None:
                break
            self.phase.fire("end_scene")
            if scenes[j].flag_map is not None:
                yield from self._between_scenes(None)
            else:
                yield from self._between_scenes(scenes[j])
            i = j
        self.phase.fire("to_ending")
        yield from self._ending()
        self.phase.fire("finish")
        return self._session_end()

    def ring(self) -> dict[str, list[str]]:
        pcs = self.t.pcs()
        if self._ring is None or self._ring[0] is not pcs:
            self._ring = (pcs, ring_partners([p.id for p in pcs], self.cfg.two_pc_relations == "double"))
        return self._ring[1]

    def _next_playable(self, start: int, emit: bool = True) -> int | None:
        for k in range(start, len(self.sc.scenes)):
            sc = self.sc.scenes[k]
            if all(f in self.t.flags for f in sc.requires_flags):
                return k
            if emit:
                self.ctx.info("scene_skipped", f"シーン「{sc.title}」は条件を満たさないため飛ばされた", to=[GM], scene=sc.id,
                              requires=list(sc.requires_flags))
        return None

    fm: Any = None

    def _flag_map_segment(self, index: int, s: SceneData) -> Gen:
        """§7.6: the flag map as a stretch of the session; flag events are scenes followed by between-scenes.
        Returns True when it ended with between-scenes (after the end flag's event)."""
        from .flagmap import FlagMap

        assert s.flag_map is not None
        self.phase.fire("open_flag_map")
        self.in_between = False
        self.scene = None
        if s.text:
            self.ctx.narrate("gm", s.text)
        fm = self.fm = FlagMap(self, s.flag_map)
        yield from fm.setup()
        ended_with_bs = False

        def play_flag_event(flag: Any, camp: Any, is_end: bool) -> Gen:
            nonlocal ended_with_bs
            scene = next((x for x in self.sc.flag_scenes if x.id == flag.scene), None)
            if scene is None:
                scene = SceneData(id=f"flag_{flag.id}", title=flag.name, text=flag.text, cycles=0)
            members = [m for m in camp.members if self.t.chars[m].is_pc and self.t.chars[m].status == "active"]
            self.participants = members
            self.scene_actors = [a for a in scene.scene_actors if a in members][:2]
            self.ctx.info("flag_event", f"フラグ「{flag.name}」のイベント", flag=flag.id, camp=camp.id, end=is_end)
            yield from self._scene(index, scene, closed=True)
            if not self._any_pc_in_play() or self.cf_result == "defeat":
                # §6: all PCs dropped, or the flag event's confrontation lost: the session goes to the ending
                return
            self.phase.fire("end_scene")
            nxt = None
            if is_end:
                j = self._next_playable(index + 1, emit=False)
                nxt = self.sc.scenes[j] if j is not None and self.sc.scenes[j].flag_map is None else None
            yield from self._between_scenes(nxt)
            if is_end:
                ended_with_bs = True
            else:
                self.phase.fire("resume_flag_map")

        yield from fm.run(play_flag_event)
        self.result.setdefault("flag_maps", {})[s.flag_map.id] = {"result": fm.ended, "winner": fm.winner, "raised": list(fm.raised)}
        self.fm = None
        return ended_with_bs

    def _any_pc_in_play(self) -> bool:
        return any(c.status == "active" for c in self.t.pcs())

    # -- creation ----------------------------------------------------------------------------------------------
    def _load_pregenerated(self) -> None:
        ids = [p.id for p in self.sc.pcs]
        for n, p in enumerate(self.sc.pcs, 1):
            cls = p.class_ or majority_classes(p.basic_skills)[0]
            cskills = list(CLASS_SKILLS[cls])
            rskills: list[str] = []
            if p.race == "fairy":
                drop = p.fairy_drop or cskills[2]
                cskills = [s for s in cskills if s != drop]
                rskills = list(RACE_SKILLS)
            c = Char(
                id=p.id, name=p.name, kind="pc", number=n, ab=p.abilities.model_dump(), full=p.abilities.model_dump(),
                willpower=1, skills=[SkillState(s) for s in p.basic_skills], cls=cls, race=p.race,
                class_skills=cskills, race_skills=rskills, otherworldly=p.race == "fairy", profile=p.profile,
                personal_curse=p.personal_curse, emotions={k: list(v) for k, v in p.emotions.items()},
                victory=[{"text": v, "source": "pc", "achieved": None} for v in p.victory_conditions],
            )
            c.has_key = "spare_key" in cskills
            self.t.chars[c.id] = c
        names: dict[tuple[str, str], list[str]] = {}
        for r in self.sc.relations:  # A34 double: a pair's first name is PC1–PC2's, its second the closing PC2–PC1's
            names.setdefault(pair(*r.between), []).append(r.name)
        for a, partners in ring_partners(ids, self.cfg.two_pc_relations == "double").items():
            for b in partners:
                pid, n = split_ref(b)
                given = names.get(pair(a, pid), [])
                self.t.rel(a, b).name = given[n - 1] if len(given) >= n else ""
        self._load_npcs()
        campaign = self.ctx.options.get("campaign")
        if campaign:
            self._apply_campaign(campaign)

    def _apply_campaign(self, data: dict[str, Any]) -> None:
        """Campaign persistence (§4.4, §6 SESSION_END, G12): full abilities, sublimations, relation strengths,
        emotions and absence counters carry over; 気力 and effect availability are reset at session start."""
        if data.get("system") not in (None, "bloodberry"):
            raise ValueError(f"campaign data is for system {data.get('system')!r}, not bloodberry")
        for pid, st in (data.get("pcs") or {}).items():
            c = self.t.chars.get(pid)
            if c is None or not c.is_pc:
                continue  # a PC of the campaign that this scenario does not seat
            for a in ABILITIES:
                if a in st.get("full", {}):
                    c.full[a] = int(st["full"][a])
                    c.ab[a] = c.full[a]
            for sid in st.get("sublimated", []):
                sk = c.skill(sid)
                if sk is not None:
                    sk.sublimated = True
                    sk.effect_available = True
            if st.get("emotions"):
                c.emotions = {k: list(v) for k, v in st["emotions"].items()}
            c.absent_sessions = int(st.get("absent_sessions", 0))
            if c.absent_sessions > 0:
                c.status = "absent"  # A15: sits out this session
            if st.get("status") == "vanished":
                c.status = "vanished"
        for key, strength in (data.get("relations") or {}).items():
            a, b = key.split("|")
            if a in self.t.chars and split_ref(b)[0] in self.t.chars:
                self.t.rel(a, b).strength = int(strength)
        self.ctx.info("campaign", f"キャンペーンの継続 (セッション {int(data.get('sessions_played', 0)) + 1})",
                      absent=[c.id for c in self.t.pcs() if c.status == "absent"])

    def _load_npcs(self) -> None:
        for npc in self.sc.npcs:
            self.t.chars[npc.id] = Char(
                id=npc.id, name=npc.name, kind="npc", ab=npc.abilities.model_dump(), full=npc.abilities.model_dump(),
                willpower=npc.willpower, otherworldly=npc.otherworldly, lost_wish=npc.lost_wish,
                description=npc.description, secret=npc.secret,
            )
        for cu in self.sc.curses:
            stats = {"doubt": cu.doubt, "malice": cu.malice, "anxiety": cu.anxiety}
            self.t.chars[cu.id] = Char(id=cu.id, name=cu.name, kind="curse", ab=dict(stats), full=dict(stats),
                                       otherworldly=True, description=cu.description, secret=cu.secret)

    def sheet_problems(self, c: Char) -> list[tuple[str, str]]:
        from .state import sheet_problems

        partners = self.ring()[c.id]
        base = list(CLASS_SKILLS.get(c.cls or "", ()))
        drop = next((s for s in base if s not in c.class_skills), None) if c.race == "fairy" else None
        return sheet_problems(
            abilities=c.full, skills=[s.id for s in c.skills], cls=c.cls, race=c.race,
            class_skills=c.class_skills + c.race_skills, fairy_drop=drop, partners=partners, emotions=c.emotions,
            relation_strengths={p: self.t.strength(c.id, p) for p in partners},
            sublimated=[s.id for s in c.skills if s.sublimated], willpower=None,
        )

    def _approve_sheets(self) -> Gen:
        """gm.approve_sheet (§3 Finish): approve iff V1–V8 hold; an illegal sheet can never be approved."""
        for c in self.t.pcs():
            while True:
                problems = self.sheet_problems(c)
                if problems:
                    pairs = [("reject", "却下")]
                    refused = {"approve": "; ".join(f"{k}: {p}" for k, p in problems)}
                else:
                    from .creation import MAX_REJECTIONS

                    can_reject = self.creating and self.rejections.get(c.id, 0) < MAX_REJECTIONS
                    pairs = [("approve", "承認")] + ([("reject", "却下")] if can_reject else [])
                    refused = None
                ch = yield from self.choose("gm", "gm.approve_sheet", f"{c.name} のキャラクターシートを承認する?", "§3 V1–V8", pairs,
                                            context={"pc": c.id, "problems": [list(p) for p in problems]}, refused=refused)
                if ch == "approve":
                    break
                if not self.creating:
                    raise ValueError(f"pregenerated PC {c.id} is illegal: {problems}")
                from .creation import recreate_pc

                yield from recreate_pc(self, c)

    # -- session start -----------------------------------------------------------------------------------------
    def _session_start(self) -> Gen:
        """§6 SESSION_START."""
        for c in self.t.pcs():
            if c.status == "absent":
                continue
            if self.cfg.session_start_restore:
                for a in ABILITIES:
                    self.set_ability(c, a, c.full[a], "§4.1 session_start_restore")
            c.willpower = 1
            for s in c.skills:
                if s.sublimated:
                    s.effect_available = True
        for c in self.t.pcs():
            text = self.sc.gm_victory_conditions.get(c.id)
            if text is None or c.status == "absent":
                continue
            ch = yield from self.choose("gm", "gm.assign_victory", f"{c.name} に勝利条件を与える?", "§4.7",
                                        [("scenario", f"与える: {text}"), ("none", "与えない")], context={"pc": c.id, "text": text})
            if ch == "scenario" and len(c.victory) < 2:
                c.victory.insert(0, {"text": text, "source": "gm", "achieved": None})
                self.ctx.state(f"{c.id}.victory", None, text, "§4.7", "gm")
        if self.sc.setting:
            self.ctx.narrate("gm", self.sc.setting)

    # -- scenes ------------------------------------------------------------------------------------------------
    def _scene(self, index: int, s: SceneData, closed: bool = False) -> Gen:
        """§6 SCENE with §7.1 normal order. Returns True when the GM goes to the ending."""
        self.phase.fire("open_scene")
        self.scene_m.fire("frame")
        self.in_between = False
        self.window_id += 1
        self.scene, self.scene_index = s, index
        self.emotion_changed = False
        self.participants = [p for p in self.participants if self.t.chars[p].status == "active"]
        self.scene_actors = [a for a in self.scene_actors if a in self.participants or a in s.npcs]
        self.npcs_present = [n for n in s.npcs if self.t.chars[n].status in ("active", "dead")]
        self.known_npcs.update(self.npcs_present)
        self.ctx.info("scene", f"シーン「{s.title}」", scene=s.id, participants=list(self.participants),
                      scene_actors=list(self.scene_actors), npcs=list(self.npcs_present))
        if s.text:
            self.ctx.narrate("gm", s.text)
        # entry requests from PCs left out (§5.7 登場判定)
        self.scene_m.fire("entries")
        if not closed:  # a flag event happens where the moving camp is: nobody else can ask to enter (HOUSE)
            yield from self._entry_requests(s)
        self.scene_m.fire("run_events")
        for ev in s.events:
            yield from self._scene_event(s, ev)
            if not self._any_pc_in_play():
                break
        go_ending = False
        if s.confrontation is not None and self._any_pc_in_play():
            self.scene_m.fire("confront")
            yield from self._confrontation(s)
        elif self._any_pc_in_play():
            self.scene_m.fire("take_turns")
            go_ending = yield from self._turns(s)
        self.scene_m.fire("close")
        self.prev_actors = [a for a in self.scene_actors if self.t.chars[a].is_pc]
        if self.fm is None:  # inside a flag map the clock runs in 20-minute units (§7.6), not per scene (G9)
            self._advance_clock(self.cfg.hours_per_scene * 60)
        return go_ending

    proposers: list[str] = []

    def _scene_setup(self, s: SceneData) -> Gen:
        """gm.scene_setup (§6 SESSION_START, §7.7 BS_4): the next scene's participants, then 0–2 scene actors
        (approved proposers count toward the 2)."""
        active = [c.id for c in self.t.pcs() if c.status == "active"]
        default_parts = active if s.participants == "all" else [p for p in s.participants if p in active]
        parts = yield from self.choose_many(
            "gm", "gm.scene_setup", f"シーン「{s.title}」の参加者を選ぶ", "§6, §7.7 BS_4",
            [(p, self.t.chars[p].name) for p in active], 0, len(active),
            context={"scene": s.id, "scenario_participants": default_parts, "proposers": list(self.proposers)},
        )
        npcs = [n for n in s.npcs if self.t.chars[n].status in ("active", "dead")]
        cands = list(parts) + npcs
        if cands:
            wanted = [a for a in list(self.proposers) + list(s.scene_actors) if a in cands]
            actors = yield from self.choose_many(
                "gm", "gm.scene_setup", f"シーン「{s.title}」のシーンアクター (0–2)", "§6 scene actors ≤ 2, A41",
                [(p, self.t.chars[p].name) for p in cands], 0, min(2, len(cands)),
                context={"scene": s.id, "suggested": list(dict.fromkeys(wanted))[:2], "approved_proposers": list(self.proposers)},
            )
        else:
            actors = []
        self.participants = list(parts)
        self.scene_actors = list(actors)
        self.proposers = []

    def _advance_clock(self, minutes: int) -> None:
        frozen = min(self.t.frozen_minutes, minutes)
        if frozen:
            self.t.frozen_minutes -= frozen
            self.ctx.info("time_stop", f"時間が止まっている ({frozen} 分)", minutes=frozen)
        if minutes - frozen:
            old = self.t.clock
            self.t.clock += minutes - frozen
            self.ctx.state("clock", old, self.t.clock, "§11 G9")

    def _entry_requests(self, s: SceneData) -> Gen:
        for c in self.t.pcs():
            if c.status != "active" or c.id in self.participants:
                continue
            ch = yield from self.choose(c.id, "pc.entry_request", f"シーン「{s.title}」に登場を申し出る?", "§5.7 登場判定",
                                        [("stay_out", "登場しない"), ("request", "登場を申し出る")],
                                        context={"scene": s.id, "participants": list(self.participants)})
            if ch != "request":
                continue
            ruling = yield from self.choose("gm", "gm.entry_ruling", f"{c.name} の登場の申し出", "§5.7",
                                            [("check", "登場判定 (情熱+大人, 難易度1)"), ("allow", "そのまま許可"), ("deny", "却下")],
                                            context={"pc": c.id, "scene": s.id})
            if ruling == "deny":
                continue
            if ruling == "check":
                spec = CheckSpec("basic", "entry", f"{c.name} 登場判定", "§5.7 entry_check")
                r = Roller(c, "basic", ("passion", "maturity"), threshold=1)
                yield from self.judge(spec, [r])
                if not r.success:
                    self.ctx.info("entry", f"{c.name} はこのシーンに登場できなかった", pc=c.id, success=False)
                    continue
            self.participants.append(c.id)
            self.ctx.info("entry", f"{c.name} がシーンに登場した", pc=c.id, success=True)

    def _scene_event(self, s: SceneData, ev: Any) -> Gen:
        if ev.narration is not None:
            self.ctx.narrate("gm", ev.narration)
            return
        if ev.npc_entry is not None:
            npc = self.t.chars[ev.npc_entry]
            ch = yield from self.choose("gm", "gm.npc_entry", f"{npc.name} を登場させる?", "§8 gm.npc_entry",
                                        [("enter", "登場させる"), ("skip", "登場させない")], context={"npc": npc.id})
            if ch == "enter" and npc.id not in self.npcs_present and npc.in_play:
                self.npcs_present.append(npc.id)
                self.known_npcs.add(npc.id)
                self.ctx.info("npc_entry", f"{npc.name} が登場した", npc=npc.id)
            return
        cc = ev.curse_check
        if cc.target == "scene_actors":
            targets = [a for a in self.scene_actors if self.t.chars[a].is_pc] or list(self.participants)[:1]
        elif cc.target == "participants":
            targets = list(self.participants)
        else:
            targets = [cc.target] if cc.target in self.participants else []
        for tid in targets:
            target = self.t.chars[tid]
            if target.status != "active":
                continue
            if cc.curse == "formless":
                ctype, diff = cc.type, cc.difficulty if cc.difficulty is not None else self.cfg.formless_curse_default_difficulty
                label = f"形なき呪い ({CURSE_TYPE_NAMES[ctype]})"
            else:
                curse = self.t.chars[cc.curse]
                if not curse.in_play:
                    continue
                usable = [k for k in CURSE_TYPES if not self.blocked(curse, k)]
                if cc.type is not None and cc.type not in usable or not usable:
                    self.ctx.info("blocked", f"{curse.name} の呪い判定は破魔で封じられている", curse=curse.id, type=cc.type)
                    continue
                ctype = cc.type or max(usable, key=lambda k: curse.ab[k])
                diff = curse.ab[ctype]
                label = f"{curse.name} ({CURSE_TYPE_NAMES[ctype]} {diff})"
            ch = yield from self.choose("gm", "gm.curse_event", f"呪い判定: {target.name} に {label}", "§5.5, §8 gm.curse_event",
                                        [("run", "行う"), ("skip", "行わない")],
                                        context={"target": tid, "type": ctype, "difficulty": diff, "text": cc.text})
            if ch != "run":
                continue
            if cc.text:
                self.ctx.narrate("gm", cc.text)
            yield from self.curse_check(target, ctype, diff, label)

    def _turns(self, s: SceneData) -> Gen:
        """§7.1 normal order (scene-actor PCs, then the other PCs; NPCs act through the GM's narration), or §7.4
        round progression for the rest of the scene when the GM adopts it."""
        mode = yield from self.choose("gm", "gm.adopt_rounds", f"シーン「{s.title}」の手番の進行", "§8 gm.adopt_rounds, §7.4",
                                      self.rp_m.offer(_PROGRESSIONS, {"round_progression": "start"}),
                                      context={"scene": s.id, "scenario_default": s.progression})
        if mode == "round_progression":
            from .rounds import RoundProgression

            actors = [p for p in self.participants if self.t.chars[p].status == "active"]
            actors += [n for n in self.npcs_present if self.t.chars[n].kind == "npc" and self.t.chars[n].status == "active"]
            self.rp = RoundProgression(self, actors, f"scene:{s.id}")
            self.rp_m.fire("start")
            yield from self.rp.setup()
            self.rp_m.fire("cycle")

        def act(c: Char, restrict: str | None) -> Gen:
            if c.is_pc:
                yield from self._pc_turn(c, s, restrict)
            else:
                self.ctx.info("npc_action", f"{c.name} の行動 (GM が演出する)", npc=c.id, restrict=restrict)

        cycle = 0
        try:
            while True:
                cycle += 1
                if self.rp is not None:
                    yield from self.rp.cycle(act, lambda: not self._any_pc_in_play())
                else:
                    order = [a for a in self.scene_actors if self.t.chars[a].is_pc] + [
                        p for p in self.participants if p not in self.scene_actors
                    ]
                    for pid in order:
                        c = self.t.chars[pid]
                        if not c.can_act or pid not in self.participants:
                            continue
                        yield from self._pc_turn(c, s)
                        if not self._any_pc_in_play():
                            return False
                if not self._any_pc_in_play():
                    return False
                yield from self._gm_interjections(s)
                if not self._any_pc_in_play():
                    return False
                pairs = [("end_scene", "シーンを終える"), ("ending", "エンディングへ")]
                if cycle < MAX_SCENE_CYCLES:
                    pairs.insert(0, ("continue", "続ける"))
                open_actions = [a.id for a in s.actions if self._action_open(a)]
                # the session machine decides which phase moves are open (from a scene: end it, or go to the ending)
                pairs = self.phase.offer(pairs, {"end_scene": ("end_scene", "to_ending"), "ending": "to_ending"})
                ch = yield from self.choose("gm", "gm.end_scene", f"シーン「{s.title}」: 続ける?", "§6 scene-ending guidance", pairs,
                                            context={"cycle": cycle, "planned_cycles": s.cycles, "open_actions": open_actions,
                                                     "emotion_changed": self.emotion_changed, "is_last_scene": self._is_last(s)})
                if ch == "continue":
                    continue
                return ch == "ending"
        finally:
            if self.rp is not None:
                self.rp_m.fire("end")
                self.rp = None

    def _gm_interjections(self, s: SceneData) -> Gen:
        """Between two cycles the GM may bring in an NPC or a formless curse check of its own (§8 gm.npc_entry,
        gm.curse_event: "any time"); scripted scenarios put theirs in the scene's events instead."""
        absent = [n for n in self.t.chars.values() if not n.is_pc and n.in_play and n.id not in self.npcs_present]
        if absent:
            ch = yield from self.choose("gm", "gm.npc_entry", "NPCを登場させる?", "§8 gm.npc_entry",
                                        [("none", "しない")] + [(f"enter:{n.id}", f"{n.name} を登場させる") for n in absent],
                                        context={"scene": s.id})
            if ch != "none":
                nid = ch.split(":", 1)[1]
                self.npcs_present.append(nid)
                self.known_npcs.add(nid)
                self.ctx.info("npc_entry", f"{self.t.chars[nid].name} が登場した", npc=nid)
        targets = [p for p in self.participants if self.t.chars[p].status == "active"]
        if targets:
            d = self.cfg.formless_curse_default_difficulty
            ch = yield from self.choose(
                "gm", "gm.curse_event", f"形なき呪い: 呪い判定を起こす? (難易度 {d})", "§5.5, §8 gm.curse_event",
                [("none", "しない")] + [(f"{p}:{k}", f"{self.t.chars[p].name} に{CURSE_TYPE_NAMES[k]}") for p in targets for k in CURSE_TYPES],
                context={"scene": s.id, "difficulty": d},
            )
            if ch != "none":
                pid, k = ch.split(":")
                yield from self.curse_check(self.t.chars[pid], k, d, f"形なき呪い ({CURSE_TYPE_NAMES[k]})")

    def _is_last(self, s: SceneData) -> bool:
        return s is self.sc.scenes[-1]

    def _action_open(self, a: SceneAction) -> bool:
        if a.once and a.id in self.actions_done:
            return False
        flags = self.t.flags
        for f in a.requires_flags:
            if f not in flags:
                return False
        return True

    # -- PC turn actions in a scene (§7.8) ---------------------------------------------------------------------
    def _skill_options(self, c: Char, in_cf: bool) -> list[tuple[str, str]]:
        s = self.scene
        out: list[tuple[str, str]] = []
        others = [self.t.chars[i] for i in self.participants + self.npcs_present if i != c.id]
        if c.effect_ready("ganbariya"):
            for o in self.t.chars.values():
                if o.id == c.id or not o.in_play:  # §4.1: dropped cannot be targeted
                    continue
                for ref in self.rel_refs(c.id, o.id):
                    if self.t.strength(c.id, ref) == 1:
                        out.append((f"effect:ganbariya:{ref}", f"頑張り屋: {self.rel_label(c.id, ref)} との関係を1→2"))
        if c.effect_ready("byojaku") and c.ab["passion"] < c.full["passion"]:
            out.append(("effect:byojaku", "病弱: 情熱を2回復"))
        if s is not None and not in_cf:
            if c.has_class_skill("into_distant_dream") and "otherworld" in s.tags:
                out.append(("skill:into_distant_dream", "遠き夢の中へ (情熱+情熱, 難易度3)"))
            if c.has_class_skill("afterimage_of_past") and "tools_at_hand" in s.tags:
                out.append(("skill:afterimage_of_past", "過去の残像 (気品+大人, 難易度3)"))
        if c.has_class_skill("words") and self.can_spend(c, "maturity", 1):
            for o in others:
                if o.kind != "curse" and o.lost_wish and o.in_play:
                    out.append((f"skill:words:{o.id}", f"言葉: {o.name} の問いに答える (大人 −1)"))
        if c.has_class_skill("time_stop") and self.can_spend(c, "passion", 1):
            out.append(("skill:time_stop", "時間: X時間、時を止める (情熱 −X)"))
        if c.has_class_skill("foam_on_stagnant_water"):
            for o in others:
                if o.otherworldly and o.in_play:  # curses, otherworldly NPCs, fairy PCs (§9.3)
                    out.append((f"skill:foam:{o.id}", f"淀みに浮かぶ泡沫の: {o.name} を魂に匿う (情熱+情熱, 難易度3)"))
        if c.has_class_skill("exorcism"):
            for o in others:
                if o.otherworldly and o.in_play and (c.id, o.id) not in self.t.hama:
                    for ref in self.rel_refs(c.id, o.id):  # A34 double: which relation the block wears down
                        out.append((f"skill:exorcism:{ref}", f"破魔: {self.rel_label(c.id, ref)} の判定を一つ封じる"))
        if c.has_class_skill("total_domination") and self.can_spend(c, "grace", 1):
            for o in others:
                if o.in_play and o.status != "dead":
                    out.append((f"skill:domination:{o.id}", f"完全支配: {o.name} (気品 −1)"))
            if not in_cf:
                out.append(("skill:domination_object", "完全支配: 手の届く物を握り潰す (気品 −1)"))
        if c.has_class_skill("spare_key") and not in_cf:
            for o in self.present_pcs():
                if o.id != c.id and not o.has_key:
                    out.append((f"skill:give_key:{o.id}", f"合い鍵を {o.name} に渡す"))
        return out

    def _pc_turn(self, c: Char, s: SceneData, restrict: str | None = None) -> Gen:
        yield from self._hama_turn_start(c)  # A20: a maintained 破魔 on this PC costs −1 again
        yield from self._hama_release_window(c, "own_turn")  # A20: its own 破魔 may be released at any time
        pairs: list[tuple[str, str]] = []
        if c.status == "active":
            for a in s.actions:
                if self._action_open(a):
                    pairs.append((f"act:{a.id}", a.label))
        pairs += self._skill_options(c, in_cf=False)
        pairs = self._restricted(c, pairs, restrict)
        if c.status == "active":
            pairs.append(("free", "自由な行動を宣言する"))
        pairs.append(("pass", "何もしない"))
        ch = yield from self.choose(
            c.id, "pc.declare", f"{c.name} の手番: 何をする?", "§7.8, §8 pc.declare", pairs,
            context={"scene": s.id, "actions": {a.id: {"bases": list(a.bases) if a.bases else None, "difficulty": a.difficulty,
                                                        "door": a.door} for a in s.actions if self._action_open(a)}},
        )
        if ch == "pass":
            return
        if ch == "free":
            yield from self._free_action(c)
        elif ch.startswith("act:"):
            yield from self._scene_action(c, next(a for a in s.actions if a.id == ch[4:]))
        else:
            yield from self.use_skill(c, ch)

    def _free_action(self, c: Char) -> Gen:
        act = yield from self.ask_payload(c.id, "pc.declare", "どんな行動をする?（自由記述）", "§7.8", FreeAction,
                                          context={"free_text": True})
        self.ctx.narrate(c.id, act.text, source="player")
        ruling = yield from self.choose("gm", "gm.permit", f"{c.name} の行動を許可する? 「{act.text}」", "§8 gm.permit (ordinary people only)",
                                        [("permit", "許可"), ("deny", "却下（常人にはできない行動）")], context={"pc": c.id, "text": act.text},
                                        always_ask=True)
        if ruling == "deny":
            self.ctx.info("denied", f"GM は {c.name} の行動を認めなかった", pc=c.id)
            return

        def check(p: BaseModel) -> str | None:
            assert isinstance(p, JudgeCall)
            if p.mode == "basic" and any(b not in ABILITIES for b in p.bases):
                return f"基準は次のうち2つ: {', '.join(ABILITIES)}"
            return None

        call = yield from self.ask_payload("gm", "gm.call_judge", f"{c.name} の行動「{act.text}」の判定", "§5.3 [1], §9.5", JudgeCall,
                                           check, context={"pc": c.id, "text": act.text},
                                           samples=[{"mode": "basic", "bases": ["passion", "maturity"], "difficulty": 2},
                                                    {"mode": "none"}])
        if call.mode in ("none", "auto_success"):
            self.ctx.info("free_action", f"{c.name} の行動は成功した", pc=c.id, success=True)
        elif call.mode == "auto_failure":
            self.ctx.info("free_action", f"{c.name} の行動は失敗した", pc=c.id, success=False)
        else:
            spec = CheckSpec("basic", "generic", f"{c.name}: {act.text[:30]}", "§5.7 generic")
            r = Roller(c, "basic", (call.bases[0], call.bases[1]), threshold=call.difficulty)
            yield from self.judge(spec, [r])
            self.ctx.info("free_action", f"{c.name} の行動は{'成功' if r.success else '失敗'}した", pc=c.id, success=r.success)

    def _scene_action(self, c: Char, a: SceneAction) -> Gen:
        self.ctx.narrate(c.id, a.label, source="declare")
        if a.bases is None:
            success = True
        else:
            spec = CheckSpec("basic", "generic", f"{c.name}: {a.label}", "§5.7 generic", door=a.door)
            r = Roller(c, "basic", (a.bases[0], a.bases[1]), threshold=a.difficulty)
            yield from self.judge(spec, [r])
            success = r.success
        out = a.success if success else a.failure
        if success:
            self.actions_done.add(a.id)
        self._apply_outcome(out)
        self.ctx.info("scene_action", f"{c.name}: {a.label} → {'成功' if success else '失敗'}", pc=c.id, action=a.id, success=success)

    def _apply_outcome(self, out: Any) -> None:
        if out.text:
            self.ctx.narrate("gm", out.text)
        for f in out.set_flags:
            if f not in self.t.flags:
                self.t.flags.add(f)
                self.ctx.state(f"flag.{f}", False, True, "scenario")
        if out.clue and out.clue not in self.t.clues:
            self.t.clues.append(out.clue)
            self.ctx.state("clues", None, out.clue, "scenario")

    # -- class / race skills and anytime effects (§9.1–9.3) ----------------------------------------------------
    def use_skill(self, c: Char, ch: str) -> Gen:
        parts = ch.split(":")
        kind, sid = parts[0], parts[1]
        ref = parts[2] if len(parts) > 2 else None  # a character, or a second relation "<id>#2" (A34 double)
        target = self.t.chars[split_ref(ref)[0]] if ref is not None else None
        s = self.scene
        if kind == "effect" and sid == "ganbariya":
            assert target is not None
            assert ref is not None
            ok = yield from self.declare_effect(c, "ganbariya")
            if ok and self.t.strength(c.id, ref) == 1:
                self.set_strength(c.id, ref, 2, "§9.1 頑張り屋 (A44: no sublimation)")
            return
        if kind == "effect" and sid == "byojaku":
            yield from self.use_byojaku(c)
            return
        if sid == "into_distant_dream":
            r = yield from self._skill_check(c, "遠き夢の中へ", ("passion", "passion"), 3)
            if r and s is not None and s.otherworld_voices:
                self._clue(s.otherworld_voices)
            return
        if sid == "afterimage_of_past":
            r = yield from self._skill_check(c, "過去の残像", ("grace", "maturity"), 3)
            if r and s is not None and s.past_event:
                self._clue(s.past_event)
            return
        if sid == "words":
            assert target is not None
            self.spend(c, "maturity", 1, "§9.2 言葉 cost (A21: paid on declaration)")
            target.lost_wish = False
            self.ctx.state(f"{target.id}.lost_wish", True, False, "§9.2 言葉")
            self.t.flags.add(f"words_{target.id}")
            self.ctx.narrate(c.id, f"{c.name} は {target.name} の問いに答えを与えた。{target.name} はそれを受け入れる。", source="skill")
            return
        if sid == "time_stop":
            maxx = c.ab["passion"] - self.cost_floor()
            p = yield from self.ask_payload(
                c.id, "sk.time", f"時間: 何時間止める? (1–{maxx})", "§9.2 時間", TimeStop,
                lambda p: None if p.hours <= maxx else f"時間は 1〜{maxx} で指定する（情熱は {self.cost_floor()} 以上残る）",
                context={"max_hours": maxx}, samples=[{"hours": h} for h in range(1, maxx + 1)],
            )
            self.spend(c, "passion", p.hours, "§9.2 時間 cost")
            self.t.frozen_minutes += 60 * p.hours
            self.ctx.state("clock.frozen_minutes", self.t.frozen_minutes - 60 * p.hours, self.t.frozen_minutes, "§9.2 時間")
            return
        if sid == "foam":
            assert target is not None
            r = yield from self._skill_check(c, "淀みに浮かぶ泡沫の", ("passion", "passion"), 3)
            if r:
                target.hosted_by = c.id
                self.set_status(target, "hosted", "§9.2 淀みに浮かぶ泡沫の")
                if target.id in self.npcs_present:
                    self.npcs_present.remove(target.id)
                if target.kind != "curse":  # a person: +1 to an ability (A19)
                    owner = c if self.cfg.foam_bonus_owner == "user" else target
                    ab = yield from self.choose(c.id, "sk.foam", "どの能力値を+1する?", "§9.2, A19",
                                                [(a, ABILITY_NAMES[a]) for a in ABILITIES])
                    owner.foam_bonus[ab] = owner.foam_bonus.get(ab, 0) + 1
                    self.ctx.state(f"{owner.id}.foam_bonus.{ab}", 0, owner.foam_bonus[ab], "A19")
            return
        if sid == "exorcism":
            assert target is not None
            kinds = list(CURSE_TYPES) + list(RELATION_TYPES)
            k = yield from self.choose(c.id, "sk.hama", f"破魔: {target.name} のどの判定を封じる?", "§9.2 破魔, A20",
                                       [(x, CURSE_TYPE_NAMES.get(x) or RELATION_TYPE_NAMES[x]) for x in kinds],
                                       context={"target": target.id, "target_stats": dict(target.ab)})
            self.t.hama[(c.id, target.id)] = k
            if ref is not None and ref != target.id:
                self.t.hama_rel[(c.id, target.id)] = ref
            self.ctx.state(f"hama.{c.id}|{target.id}", None, k, "§9.2 破魔")
            self._hama_decrement(c, target)
            return
        if sid == "domination":
            assert target is not None
            self.spend(c, "grace", 1, "§9.2 完全支配 cost")
            consent = "refuse"
            if target.kind != "curse":
                consent = yield from self.choose(target.id, "sk.domination_consent", f"{c.name} の完全支配を受け入れる?",
                                                 "§9.2 完全支配", [("refuse", "拒む"), ("consent", "受け入れる (即死)")])
            if consent == "consent":
                self.set_status(target, "dead", "§9.2 完全支配 (A21)")
                return
            r = Roller(c, "basic", ("grace", "grace"), threshold=0)
            spec = CheckSpec("basic", "skill", f"{c.name}: 完全支配", "§9.2 完全支配")
            yield from self.judge(spec, [r])
            hours = r.ach if r.success else 0
            if hours:
                old = target.no_relation_until
                target.no_relation_until = self.t.clock + 60 * hours
                self.ctx.state(f"{target.id}.no_relation_until", old, target.no_relation_until, "§9.2 完全支配 (A21)")
            return
        if sid == "domination_object":
            self.spend(c, "grace", 1, "§9.2 完全支配 cost")
            self.ctx.narrate(c.id, f"{c.name} の手の届く範囲の物が握り潰された。", source="skill")
            return
        if sid == "give_key":
            assert target is not None
            target.has_key = True
            self.ctx.state(f"{target.id}.has_key", False, True, "§9.2 合い鍵")
            return
        raise AssertionError(ch)

    def _clue(self, text: str) -> None:
        self.ctx.narrate("gm", text)
        if text not in self.t.clues:
            self.t.clues.append(text)
            self.ctx.state("clues", None, text, "scenario")

    def _skill_check(self, c: Char, name: str, bases: tuple[str, str], diff: int) -> Gen:
        spec = CheckSpec("basic", "skill", f"{c.name}: {name}", f"§9.2 {name}")
        r = Roller(c, "basic", bases, threshold=diff)
        yield from self.judge(spec, [r])
        return r.success

    def _hama_decrement(self, user: Char, target: Char) -> None:
        """A20: on use and at the start of each later turn action of the target, the relation drops by 1 (floor 0)."""
        if self.cf_m.state == "cf_loop" and target.is_curse and self.cfg.hama_relation_scope == "camp_in_confrontation":
            camp = self.cf_camp_of.get(user.id, self.cf_camp)
            key = (camp, target.id)
            old = self.t.camp_strength.get(key, 0)
            if old > 0:
                self.t.camp_strength[key] = old - 1
                self.ctx.state(f"camp.{camp}|{target.id}", old, old - 1, "§9.2 破魔 (A20)")
        else:
            ref = self.t.hama_rel.get((user.id, target.id), target.id)  # the relation chosen at use (A34 double)
            self.set_strength(user.id, ref, self.t.strength(user.id, ref) - 1, "§9.2 破魔 (A20)")

    def _hama_turn_start(self, target: Char) -> Gen:
        for (uid, tid), kind in list(self.t.hama.items()):
            if tid != target.id:
                continue
            user = self.t.chars[uid]
            # a user who cannot act (§4.8: dropped, absent, ...) keeps nothing up: released without being asked
            ch = "release" if not user.in_play else (yield from self.choose(
                uid, "sk.hama", f"破魔を {target.name} に維持する? (関係 −1)", "§9.2 破魔, A20",
                [("maintain", "維持する"), ("release", "解除する")],
                context={"target": tid, "blocked": kind, "when": "target_turn", "costs": 1}))
            if ch == "release":
                self._hama_release(uid, tid, kind)
            else:
                self._hama_decrement(user, target)

    def _hama_release_window(self, user: Char, when: str) -> Gen:
        """A20 / §9.2 破魔: "the user may release the block at any time (before the next decrement)". Besides the
        start of each of the target's turn actions (``_hama_turn_start``, just before the decrement), "any time" is
        offered as a free release (not a turn action) where the user itself acts: at the start of each of its own turn
        actions (``when="own_turn"``: a scene's pc.declare, a confrontation's pc.cf_action, a role's actions in round
        progression), once in each between-scenes (``"between_scenes"``: BS_3, with the other anytime effects of
        skill.anytime) and at each 20-minute unit of its camp on a flag map (``"flag_map"``). Only a user holding a
        block is asked, one ``sk.hama`` (maintain / release) per block; maintaining here costs nothing."""
        if not user.can_act:
            return
        for (uid, tid), kind in list(self.t.hama.items()):
            if uid != user.id:
                continue
            target = self.t.chars[tid]
            label = CURSE_TYPE_NAMES.get(kind) or RELATION_TYPE_NAMES[kind]
            ch = yield from self.choose(
                uid, "sk.hama", f"破魔: {target.name} の{label}を封じている。解除する?", "§9.2 破魔, A20 (any time)",
                [("maintain", "維持する"), ("release", "解除する")],
                context={"target": tid, "blocked": kind, "when": when, "costs": 0})
            if ch == "release":
                self._hama_release(uid, tid, kind)

    def _hama_release(self, uid: str, tid: str, kind: str) -> None:
        del self.t.hama[(uid, tid)]
        self.t.hama_rel.pop((uid, tid), None)
        self.ctx.state(f"hama.{uid}|{tid}", kind, None, "A20 release")

    def blocked(self, c: Char, kind: str) -> bool:
        return any(t == c.id and k == kind for (_u, t), k in self.t.hama.items())

    # -- curse check (§5.5) ------------------------------------------------------------------------------------
    def curse_check(self, target: Char, ctype: str, diff: int, label: str) -> Gen:
        ab = CURSE_ABILITY[ctype]
        spec = CheckSpec("basic", "curse", f"{target.name}: 呪い判定 {label}", "§5.5 curse_check", curse_type=ctype,
                         in_cf=self.cf_m.state == "cf_loop")
        r = Roller(target, "basic", (ab, ab), threshold=diff)
        yield from self.judge(spec, [r])
        if not r.success:
            yield from self.decrease(target, ab, 1, f"curse:{ctype}", "§5.5 failure → −1 (A40 by type)")
        return r.success

    # -- relation check (§5.4) ---------------------------------------------------------------------------------
    def relation_targets(self, a: Char) -> list[Char]:
        """BS_3b targets (§7.7): known PCs and NPCs, not self, below the cap unless A11 allows. Formed curses count
        as NPCs here (§2: "npc includes formed curses for most purposes"; the individual relation, not the camp
        relation, which exists only inside a confrontation, A46)."""
        out = []
        for o in self.t.chars.values():
            if o.id == a.id or not o.in_play or o.status == "dead":
                continue
            if not o.is_pc and o.id not in self.known_npcs:
                continue
            if all(self.t.strength(a.id, r) >= 3 for r in self.rel_refs(a.id, o.id)) and not self.cfg.relation_check_at_max_allowed:
                continue
            out.append(o)
        return out

    def can_relation(self, a: Char, rtype: str) -> bool:
        return self.t.clock >= a.no_relation_until and not self.blocked(a, rtype)

    def second_basis(self, a: Char, rtype: str) -> Gen:
        base = RELATION_BASE[rtype]
        others = [x for x in ABILITIES if x != base]
        return (yield from self.choose(
            a.id, "j.second_basis", f"{RELATION_TYPE_NAMES[rtype]}: 2つ目の基準を選ぶ", "§5.4",
            [(x, f"{ABILITY_NAMES[x]} ({a.value(x)})") for x in others], context={"values": {x: a.value(x) for x in others}},
            always_ask=True,
        ))

    def relation_check(self, a: Char, p: Char, rtype: str, second: str, *, in_cf: bool, rel: str | None = None) -> Gen:
        """``rel``: which of ``a``'s relations with ``p`` (``"<p>#2"``: the second of two PCs, A34 double)."""
        base = RELATION_BASE[rtype]
        ref = rel or p.id
        if in_cf:
            key = (self.cf_camp, p.id)
            s = self.t.camp_strength.get(key, 0)
        else:
            s = self.t.strength(a.id, ref)
        tau = s + 1
        who = p.name if in_cf else self.rel_label(a.id, ref)
        spec = CheckSpec("opposed", "relation", f"{a.name} → {who} {RELATION_TYPE_NAMES[rtype]}", "§5.4 relation_check",
                         rel_type=rtype, in_cf=in_cf)
        ra = Roller(a, "active", (base, second), threshold=tau)
        rp = Roller(p, "passive", (base, base), threshold=tau if self.cfg.relation_passive_needs_threshold else None)
        yield from self.judge(spec, [ra, rp])
        # 忠告バスター after any 誘惑 result (§9.1, A17)
        if rtype == "seduction":
            for u in self.present_pcs():
                if not u.effect_ready("chukoku_buster"):
                    continue
                if self.cfg.chukoku_scope == "own_checks" and u.id not in (a.id, p.id):
                    continue
                ch = yield from self.choose(u.id, "j.chukoku", f"{spec.label} の結果を忠告バスターで打ち消す?", "§9.1 忠告バスター",
                                            [("pass", "見送る"), ("cancel", "打ち消す")],
                                            context={"active": a.id, "passive": p.id, "active_success": ra.success,
                                                     "passive_success": rp.success})
                if ch == "cancel":
                    ok = yield from self.declare_effect(u, "chukoku_buster")
                    if ok:
                        self.ctx.info("check_cancelled", "忠告バスター: 判定の結果は打ち消された", by=u.id)
                        return "cancelled"
        if ra.success:
            if in_cf:
                old = self.t.camp_strength.get(key, 0)
                self.t.camp_strength[key] = old + 1
                self.ctx.state(f"camp.{self.cf_camp}|{p.id}", old, old + 1, "§7.5 camp relation")
                if self.cfg.confrontation_sublimation and a.is_pc:
                    yield from self._sublimate_side(a, old + 1)
            elif s >= 3:  # A11 relation_check_at_max_allowed: an active success at the maximum does nothing
                self.ctx.info("relation_at_max", "関係の強さは最大: 能動側の成功は何も起こさない", active=a.id, passive=p.id)
            else:
                self.set_strength(a.id, ref, s + 1, "§5.4 active success")
                for side in (a, p):
                    if side.is_pc:
                        yield from self._sublimate_side(side, s + 1)
            # both sides successful (only through a grant): A4 relation_both_success
            if rp.success and not in_cf and self.cfg.relation_both_success == "both":
                yield from self._passive_choice(a, p, ref)
                return "both"
            return "active"
        if rp.success and not in_cf:
            yield from self._passive_choice(a, p, ref)
            return "passive"
        return "none"

    def _sublimate_side(self, side: Char, new_s: int) -> Gen:
        while side.sublimated_count < new_s:
            cands = [sk.id for sk in side.skills if not sk.sublimated]
            if not cands:
                return
            sid = yield from self.choose(side.id, "rc.sublimate", "昇華する基本特技を選ぶ", "§5.4 sublimate, A47",
                                         [(x, f"{BASIC_SKILLS[x].name} ({ABILITY_NAMES[BASIC_SKILLS[x].sub_ability]}+1)") for x in cands],
                                         context={"count": side.sublimated_count, "strength": new_s}, always_ask=True)
            self.sublimate(side, sid, "§5.4 sublimation")
            if self.cfg.sublimations_per_success == "one":
                return

    def _passive_choice(self, a: Char, p: Char, ref: str | None = None) -> Gen:
        ref = ref or p.id
        s = self.t.strength(a.id, ref)
        if self.cfg.passive_raise_count_mode == "sum":
            raise_ok = p.sublimated_count + a.sublimated_count >= s + 1
        else:
            raise_ok = p.sublimated_count >= s + 1 and a.sublimated_count >= s + 1
        raise_ok = raise_ok and s + 1 <= 3
        pairs = []
        refused = {}
        if raise_ok:
            pairs.append(("raise", "関係の強さを上げる (+1)"))
        else:
            refused["raise"] = f"needs sublimated counts ({self.cfg.passive_raise_count_mode}) ≥ {s + 1} and strength < 3 (§5.4, A9)"
        pairs.append(("lower", "関係の強さを下げる (−1)"))
        if not p.is_curse:
            pairs.append(("willpower", "気力 +1"))
        else:
            refused["willpower"] = "a formed curse has no 気力 (§11 G4)"
        ch = yield from self.choose(p.id, "rc.passive_choice", f"受動側の成功: {a.name} との関係をどうする?", "§5.4 passive success",
                                    pairs, context={"strength": s, "raise_allowed": raise_ok, "willpower": p.willpower}, refused=refused,
                                    always_ask=True)
        if ch == "raise":
            self.set_strength(a.id, ref, s + 1, "§5.4 passive RAISE")
        elif ch == "lower":
            self.set_strength(a.id, ref, s - 1, "§5.4 passive LOWER")
        else:
            self.set_willpower(p, p.willpower + 1, "§5.4 passive WILLPOWER")

    # -- confrontation (§7.5) ----------------------------------------------------------------------------------
    def _confrontation(self, s: SceneData) -> Gen:
        """§7.5: camps race to settle the formed curses; normal order or round progression (GM's choice)."""
        cf = s.confrontation
        assert cf is not None
        self.cf_m.fire("setup")
        self.cf_curses = [k for k in cf.curses if self.t.chars[k].in_play]
        for k in self.cf_curses:
            if k not in self.npcs_present:
                self.npcs_present.append(k)
        self.known_npcs.update(self.cf_curses)
        active_pcs = [p for p in self.participants if self.t.chars[p].is_pc and self.t.chars[p].status == "active"]
        camps: dict[str, list[str]] = {}
        npc_camps: set[str] = set()
        if cf.camps:
            for camp in cf.camps:
                members = [m for m in camp.members if self.t.chars[m].status == "active"
                           and (not self.t.chars[m].is_pc or m in active_pcs)]
                camps[camp.id] = members
                if all(not self.t.chars[m].is_pc for m in camp.members):
                    npc_camps.add(camp.id)
                    for m in members:
                        if m not in self.npcs_present:
                            self.npcs_present.append(m)
                        self.known_npcs.add(m)
            placed = {m for ms in camps.values() for m in ms}
            for p in active_pcs:
                if p not in placed:  # PCs the scenario did not place join the first PC camp
                    first = next((c for c in camps if c not in npc_camps), None)
                    camps.setdefault(first or "pcs", []).append(p)
        else:
            camps["pcs"] = list(active_pcs)
        self.cf_camps = camps
        self.cf_npc_camps = npc_camps
        self.cf_camp_of = {m: c for c, ms in camps.items() for m in ms}
        for c, ms in camps.items():
            self.t.camps[c] = list(ms)
            # A29: PCs in the camp at the start (NPC-only camps: their members)
            self.t.camp_cap[c] = len(ms) if c in npc_camps else sum(1 for m in ms if self.t.chars[m].is_pc)
            for k in self.cf_curses:
                self.t.camp_strength[(c, k)] = 0
        self.cf_camp = next(iter(camps), "pcs")
        self.ctx.info("confrontation", "対峙が始まった", camps={c: list(ms) for c, ms in camps.items()},
                      caps={c: self.t.camp_cap[c] for c in camps}, curses=list(self.cf_curses))
        self.cf_special_used = set()
        mode = yield from self.choose("gm", "gm.confrontation_setup", "対峙の進行方法", "§7.5 CF_SETUP, §8 gm.adopt_rounds",
                                      self.rp_m.offer(_PROGRESSIONS, {"round_progression": "start"}),
                                      context={"scenario_default": cf.progression, "camps": {c: list(ms) for c, ms in camps.items()}})
        self.cf_m.fire("loop")
        result: str | None = None
        if not self.cf_curses or not any(camps.values()):
            result = "victory"
        cycle = 0
        if mode == "round_progression" and result is None:
            from .rounds import RoundProgression

            actors = [m for ms in camps.values() for m in ms] + [k for k in self.cf_curses]
            self.rp = RoundProgression(self, actors, "confrontation")
            self.rp_m.fire("start")
            yield from self.rp.setup()
            self.rp_m.fire("cycle")
            state: dict[str, str | None] = {"result": None}

            def done() -> bool:
                return state["result"] is not None

            def act(c: Char, restrict: str | None) -> Gen:
                yield from self._cf_actor_turn(c, cf, restrict)
                state["result"] = self._cf_status()

            while result is None:
                cycle += 1
                if cycle > cf.max_cycles:
                    result = "withdrawn"
                    break
                yield from self.rp.cycle(act, done)
                result = state["result"] or self._cf_status()
            self.rp_m.fire("end")
            self.rp = None
        while result is None:
            cycle += 1
            if cycle > cf.max_cycles:
                result = "withdrawn"
                break
            members = [m for ms in camps.values() for m in ms]
            order = [a for a in self.scene_actors if a in members and self.t.chars[a].is_pc]
            order += [p for p in members if self.t.chars[p].is_pc and p not in order]
            order += [a for a in self.scene_actors if a in members and a not in order]
            order += [m for m in members if m not in order]
            order += [k for k in self.cf_curses if k not in order]
            for cid in order:
                yield from self._cf_actor_turn(self.t.chars[cid], cf, None)
                result = self._cf_status()
                if result:
                    break
        trig = {"victory": "win", "rival_victory": "win", "defeat": "lose", "withdrawn": "withdraw"}[result]
        self.cf_m.fire(trig)
        self.cf_result = result
        self.result["confrontation"] = result
        text = {"victory": cf.victory_text, "defeat": cf.defeat_text, "rival_victory": cf.rival_victory_text}.get(result, "")
        self.ctx.info("confrontation_end", {"victory": "呪いに勝利した", "rival_victory": "対立する陣営が先に呪いを鎮めた",
                                            "defeat": "呪われてしまった", "withdrawn": "呪いは退いた（進行の上限に達した）"}[result],
                      result=result, winner=self.cf_winner)
        if text:
            self.ctx.narrate("gm", text)

    cf_camps: dict[str, list[str]] = {}
    cf_npc_camps: set[str] = set()
    cf_camp_of: dict[str, str] = {}
    cf_winner: str | None = None
    rp: Any = None

    def _cf_actor_turn(self, c: Char, cf: Any, restrict: str | None) -> Gen:
        """One turn action in a confrontation (normal order or a role's action in round progression)."""
        if c.is_curse:
            if c.id in self.cf_curses and c.in_play and not all(self._settled(c.id, camp) for camp in self.cf_camps):
                yield from self._hama_turn_start(c)
                yield from self._curse_turn(c, restrict)
            return
        camp = self.cf_camp_of.get(c.id)
        if camp is None or c.status not in ("active", "dead"):
            return
        if c.is_pc and c.id not in self.participants:
            return
        self.cf_camp = camp
        if c.is_pc:
            yield from self._cf_pc_turn(c, cf, restrict)
        else:
            yield from self._cf_npc_turn(c, cf, restrict)

    def _settled(self, k: str, camp: str | None = None) -> bool:
        c = self.t.chars[k]
        if not c.in_play:
            return True  # hosted by 淀み (HOUSE: counts as settled)
        camp = camp or self.cf_camp
        return self.t.camp_strength.get((camp, k), 0) >= self.camp_cap(camp)

    def camp_cap(self, camp: str | None = None) -> int:
        """A29: the camp's PC count at the start (default) or now; NPC-only camps: their members."""
        camp = camp or self.cf_camp
        if self.cfg.camp_cap_basis == "pcs_current" and camp not in self.cf_npc_camps:
            return sum(1 for p in self.t.camps.get(camp, []) if self.t.chars[p].status == "active" and self.t.chars[p].is_pc)
        return self.t.camp_cap.get(camp, 0)

    def _cf_status(self) -> str | None:
        for camp in self.cf_camps:
            if self.cf_camps[camp] and all(self._settled(k, camp) for k in self.cf_curses):
                self.cf_winner = camp
                return "rival_victory" if camp in self.cf_npc_camps else "victory"
        pc_camps = [c for c in self.cf_camps if c not in self.cf_npc_camps]
        if pc_camps and all(
            all(self.t.chars[p].any_zero() or self.t.chars[p].status in ("dropped", "vanished", "hosted")
                for p in self.cf_camps[c] if self.t.chars[p].is_pc)
            for c in pc_camps
        ):
            return "defeat"
        return None

    @staticmethod
    def _target_of(option_id: str) -> str | None:
        """The character an option targets (for the change restriction of §7.4), or None."""
        parts = option_id.split(":")
        if parts[0] in ("rc", "sp") and len(parts) == 3:
            return parts[1] if parts[0] == "rc" else parts[2]
        if parts[0] in ("skill", "effect") and len(parts) == 3:
            return parts[2]
        return None

    def _restricted(self, c: Char, pairs: list[tuple[str, str]], restrict: str | None) -> list[tuple[str, str]]:
        if restrict is None:
            return pairs
        allowed = {c.id, restrict}
        return [(i, l) for i, l in pairs if (t := self._target_of(i)) is None or split_ref(t)[0] in allowed]

    def _cf_relation_options(self, c: Char, ctx_pools: dict[str, Any]) -> list[tuple[str, str]]:
        pairs: list[tuple[str, str]] = []
        for k in self.cf_curses:
            cu = self.t.chars[k]
            if self._settled(k):
                continue
            for rt in RELATION_TYPES:
                if not self.can_relation(c, rt):
                    continue
                pairs.append((f"rc:{k}:{rt}", f"{cu.name} に{RELATION_TYPE_NAMES[rt]}"))
                base = RELATION_BASE[rt]
                mine = c.value(base) + max(c.value(x) for x in ABILITIES if x != base) + sum(
                    1 for sk in c.skills if not sk.sublimated and BASIC_SKILLS[sk.id].affirm == rt)
                ctx_pools[f"rc:{k}:{rt}"] = {"my_pool": mine, "curse_pool": 2 * cu.value(base)}
        return pairs

    def _cf_pc_turn(self, c: Char, cf: Any, restrict: str | None = None) -> Gen:
        yield from self._hama_turn_start(c)
        yield from self._hama_release_window(c, "own_turn")
        pairs: list[tuple[str, str]] = []
        ctx_pools: dict[str, Any] = {}
        ctx_specials: dict[str, Any] = {}
        if c.status == "active":
            pairs += self._cf_relation_options(c, ctx_pools)
            for k in self.cf_curses:
                if self._settled(k):
                    continue
                for sp in cf.special_actions:
                    if sp.once and sp.id in self.cf_special_used:
                        continue
                    pairs.append((f"sp:{sp.id}:{k}", f"{sp.label} ({self.t.chars[k].name})"))
                    # what the special action's check and effect are (§11 G14: scenario data, known to the table)
                    ctx_specials[f"sp:{sp.id}:{k}"] = {"pool": c.value(sp.bases[0]) + c.value(sp.bases[1]),
                                                      "difficulty": sp.difficulty,
                                                      "camp_strength": sp.success_camp_strength}
        pairs += [(i, l) for i, l in self._skill_options(c, in_cf=True)]
        pairs = self._restricted(c, pairs, restrict)
        pairs.append(("pass", "何もしない"))
        ch = yield from self.choose(c.id, "pc.cf_action", f"対峙: {c.name} の手番", "§7.5 PC turn action", pairs,
                                    context={"pools": ctx_pools, "specials": ctx_specials, "camp": self.cf_camp,
                                             "camp_strength": {k: self.t.camp_strength.get((self.cf_camp, k), 0) for k in self.cf_curses},
                                             "cap": self.camp_cap(), "restrict": restrict})
        yield from self._cf_do(c, cf, ch)

    def _cf_npc_turn(self, c: Char, cf: Any, restrict: str | None = None) -> Gen:
        """A member of an NPC camp races its camp relation up (§7.5 rival camps; the GM plays it)."""
        yield from self._hama_turn_start(c)
        ctx_pools: dict[str, Any] = {}
        pairs = self._restricted(c, self._cf_relation_options(c, ctx_pools), restrict)
        pairs.append(("pass", "何もしない"))
        ch = yield from self.choose(c.id, "npc.cf_action", f"対峙: {c.name}（NPCの陣営）の手番", "§7.5 rival camps", pairs,
                                    context={"pools": ctx_pools, "camp": self.cf_camp, "cap": self.camp_cap(), "restrict": restrict})
        yield from self._cf_do(c, cf, ch)

    def _cf_do(self, c: Char, cf: Any, ch: str) -> Gen:
        if ch == "pass":
            return
        if ch.startswith("rc:"):
            _, k, rt = ch.split(":")
            second = yield from self.second_basis(c, rt)
            yield from self.relation_check(c, self.t.chars[k], rt, second, in_cf=True)
        elif ch.startswith("sp:"):
            _, spid, k = ch.split(":")
            sp = next(x for x in cf.special_actions if x.id == spid)
            spec = CheckSpec("basic", "special", f"{c.name}: {sp.label}", "§11 G14 special action")
            r = Roller(c, "basic", (sp.bases[0], sp.bases[1]), threshold=sp.difficulty)
            yield from self.judge(spec, [r])
            if r.success:
                self.cf_special_used.add(sp.id)
                key = (self.cf_camp, k)
                old = self.t.camp_strength.get(key, 0)
                new = min(self.camp_cap(), old + sp.success_camp_strength)
                if new != old:
                    self.t.camp_strength[key] = new
                    self.ctx.state(f"camp.{self.cf_camp}|{k}", old, new, "§11 G14 special action")
                if sp.success_text:
                    self.ctx.narrate("gm", sp.success_text)
            elif sp.failure_text:
                self.ctx.narrate("gm", sp.failure_text)
        else:
            yield from self.use_skill(c, ch)

    def _curse_turn(self, k: Char, restrict: str | None = None) -> Gen:
        """curse.action: a curse check on one PC of a camp it has not been settled with (§7.5)."""
        pairs = []
        targets: dict[str, dict[str, int]] = {}
        for camp, members in self.cf_camps.items():
            if self._settled(k.id, camp):
                continue
            for pid in members:
                p = self.t.chars[pid]
                if not p.is_pc or p.status != "active" or pid not in self.participants:
                    continue
                if restrict is not None and pid != restrict:
                    continue
                targets[pid] = dict(p.ab)
                for stat in CURSE_TYPES:
                    if self.blocked(k, stat):
                        continue
                    pairs.append((f"{pid}:{stat}", f"{p.name} に{CURSE_TYPE_NAMES[stat]} (難易度 {k.ab[stat]})"))
        if not pairs:
            return
        ch = yield from self.choose(k.id, "curse.action", f"{k.name} の手番: 誰にどの呪い判定?", "§7.5 curse turn", pairs,
                                    context={"stats": dict(k.ab), "targets": targets, "restrict": restrict})
        pid, stat = ch.split(":")
        yield from self.curse_check(self.t.chars[pid], stat, k.ab[stat], f"{k.name} ({CURSE_TYPE_NAMES[stat]} {k.ab[stat]})")

    # -- between scenes (§7.7) ---------------------------------------------------------------------------------
    def _between_scenes(self, next_scene: SceneData | None) -> Gen:
        self.in_between = True
        self.window_id += 1
        self.scene = None
        self.participants = []
        self.bs_m.fire("emotions")
        for c in self.t.pcs():
            if c.in_play:
                yield from self._bs_emotions(c)
        self.bs_m.fire("actor_willpower")
        for aid in self.prev_actors:
            c = self.t.chars[aid]
            if not c.in_play:
                continue
            claim = yield from self.choose(c.id, "bs.actor_claim", "シーンアクターらしく行動した? (気力+1)", "§7.7 BS_2",
                                           [("claim", "主張する"), ("no_claim", "主張しない")])
            if claim == "claim":
                ok = yield from self.choose("gm", "gm.actor_ruling", f"{c.name} はシーンアクターらしく行動した?", "§7.7 BS_2",
                                            [("confirm", "認める"), ("deny", "認めない")], context={"pc": c.id}, always_ask=True)
                if ok == "confirm":
                    self.set_willpower(c, c.willpower + 1, "§7.7 BS_2 scene actor")
        self.bs_m.fire("pl_processing")
        self.proposers = []
        for c in self.t.pcs():
            if c.status not in ("active",):
                continue
            yield from self._bs_pl(c)
        if self.cfg.npc_initiated_relation_checks:  # A37 flag: NPCs may also be active (one check each)
            for n in self.t.chars.values():
                if n.kind == "npc" and n.in_play and n.status != "dead" and n.id in self.known_npcs:
                    yield from self._bs_relation(n)
        self.bs_m.fire("gm_processing")
        self.approved_proposals = list(self.proposers)
        if next_scene is not None:  # BS_4 (inside a flag map the camps decide who goes where)
            yield from self._scene_setup(next_scene)
        self.bs_m.fire("finish")
        self.in_between = False

    def _bs_emotions(self, c: Char) -> Gen:
        changed: set[str] = set()
        for _ in range(8):
            pairs: list[tuple[str, Label]] = [("done", "変更しない")]
            for partner, emos in c.emotions.items():
                if partner in changed:
                    continue
                # a partner, or "<partner>#2": the second of two PCs' relations (A34 double); labels made when read
                pairs.append((f"change:{partner}", partial(self._emotion_label, c.id, partner, "変える")))
                if len(emos) < 2 and self.t.strength(c.id, partner) >= 1:
                    pairs.append((f"add:{partner}", partial(self._emotion_label, c.id, partner, "加える")))
            ch = yield from self.choose(c.id, "bs.emotions", "感情を変更する?", "§7.7 BS_1", pairs,
                                        context={"emotions": {k: list(v) for k, v in c.emotions.items()},
                                                 "strengths": {k: self.t.strength(c.id, k) for k in c.emotions}})
            if ch == "done":
                return
            op, partner = ch.split(":")
            changed.add(partner)
            emo = yield from self.choose(c.id, "bs.emotions", "どの感情?", "§7.7 BS_1, §9.7",
                                         [(e, f"{EMOTION_NAME[e]}") for e in EMOTION_IDS], always_ask=True)
            old = list(c.emotions[partner])
            if op == "add":
                c.emotions[partner].append(emo)
            else:
                c.emotions[partner] = [emo]
            self.ctx.state(f"{c.id}.emotions.{partner}", old, list(c.emotions[partner]), "§7.7 BS_1")
            if c.id in self.prev_actors:
                self.emotion_changed = True

    def _bs_relation(self, c: Char) -> Gen:
        """BS_3b: at most one relation check per between-scene (§7.7), the declaration is the decision."""
        targets = self.relation_targets(c)
        if not c.is_pc:
            targets = [o for o in targets if o.is_pc]
        pairs: list[tuple[str, Label]] = [("skip", "しない")]
        # one relation per target, two with the other PC under A34 double ("<id>#2": the ring's closing PC2–PC1)
        strength = self.t.strength
        at_max = self.cfg.relation_check_at_max_allowed
        strengths = {r: strength(c.id, r) for o in targets for r in self.rel_refs(c.id, o.id)}
        refs = [r for r, n in strengths.items() if n < 3 or at_max]
        types = [rt for rt in RELATION_TYPES if self.can_relation(c, rt)]
        for ref in refs:
            for rt in types:  # labels made when read (a scripted seat reads the ids)
                pairs.append((f"rc:{ref}:{rt}", partial(self._rc_label, c.id, ref, rt)))
        if len(pairs) == 1:
            return
        ch = yield from self.choose(
            c.id, "bs.relation", "関係判定を行う?", "§7.7 BS_3b, §5.4", pairs,
            context={"strengths": {ref: strengths[ref] for ref in refs},
                     "ring": self.ring().get(c.id, []),
                     "affirm_counts": {rt: sum(1 for sk in c.skills if not sk.sublimated and BASIC_SKILLS[sk.id].affirm == rt)
                                       for rt in RELATION_TYPES}},
        )
        if ch != "skip":
            _, ref, rt = ch.split(":")
            second = yield from self.second_basis(c, rt)
            yield from self.relation_check(c, self.t.chars[split_ref(ref)[0]], rt, second, in_cf=False, rel=ref)

    def _emotion_label(self, a: str, partner: str, verb: str) -> str:
        return f"{self.rel_label(a, partner)} への感情を{verb}"

    def _rc_label(self, a: str, ref: str, rt: str) -> str:
        return f"{self.rel_label(a, ref)} に{RELATION_TYPE_NAMES[rt]} (強さ {self.t.strength(a, ref)})"

    def _bs_pl(self, c: Char) -> Gen:
        yield from self._hama_release_window(c, "between_scenes")  # A20: release 破魔 at any time
        # anytime effects usable between scenes (skill.anytime)
        any_pairs = [(i, l) for i, l in self._skill_options(c, in_cf=False) if i.startswith("effect:")]
        if any_pairs:
            ch = yield from self.choose(c.id, "skill.anytime", "シーン間: 効果を使う?", "§8 skill.anytime",
                                        [("none", "使わない")] + any_pairs)
            if ch != "none":
                yield from self.use_skill(c, ch)
        # a) sublimation refresh (§4.3 #3)
        used = [sk.id for sk in c.skills if sk.sublimated and not sk.effect_available]
        if used and c.willpower >= 1:
            ch = yield from self.choose(c.id, "bs.refresh", "気力1で昇華の効果を再使用可能にする?", "§7.7 BS_3a",
                                        [("none", "しない")] + [(f"refresh:{x}", BASIC_SKILLS[x].name) for x in used],
                                        context={"willpower": c.willpower})
            if ch != "none":
                sid = ch.split(":")[1]
                self.set_willpower(c, c.willpower - 1, "§4.3 #3 refresh")
                sk = c.skill(sid)
                assert sk is not None
                sk.effect_available = True
                self.ctx.state(f"{c.id}.skill.{sid}.effect", "spent", "available", "§7.7 BS_3a")
        # b) one relation check
        yield from self._bs_relation(c)
        # c) next-scene proposal
        ch = yield from self.choose(c.id, "bs.proposal", "次のシーンを提案する?", "§7.7 BS_3c",
                                    [("none", "しない"), ("propose", "提案する (シーンアクターになる)")])
        if ch == "propose":
            ok = yield from self.choose("gm", "gm.proposal_ruling", f"{c.name} の提案を認める?", "§7.7 BS_3c",
                                        [("approve", "認める"), ("deny", "認めない")], context={"pc": c.id, "approved": list(self.proposers)},
                                        always_ask=True)
            if ok == "approve":
                self.proposers.append(c.id)
        # d) victory conditions
        pairs = [("none", "しない")]
        if len(c.victory) < 2:
            pairs.append(("create", "勝利条件を作る"))
        own = [i for i, v in enumerate(c.victory) if v["source"] == "pc"]
        for i, text in zip(own, numbered([c.victory[i]["text"] for i in own])):  # the same text twice: （1つ目）（2つ目）
            pairs.append((f"change:{i}", f"変更: {text}"))
            pairs.append((f"delete:{i}", f"削除: {text}"))
        ch = yield from self.choose(c.id, "bs.victory", "勝利条件を作る・変える?", "§7.7 BS_3d, §4.7", pairs)
        if ch == "none":
            return
        if ch.startswith("delete:"):
            i = int(ch.split(":")[1])
            old = c.victory.pop(i)
            self.ctx.state(f"{c.id}.victory", old["text"], None, "§7.7 BS_3d")
            return
        text = yield from self.ask_payload(c.id, "bs.victory", "勝利条件の文", "§4.7", TextPayload,
                                           samples=[{"text": "みんなで無事に帰る"}])
        ok = yield from self.choose("gm", "gm.victory_ruling", f"{c.name} の勝利条件「{text.text}」を認める?", "§7.7 BS_3d",
                                    [("approve", "認める"), ("deny", "認めない")], context={"pc": c.id, "text": text.text},
                                    always_ask=True)
        if ok != "approve":
            return
        if ch == "create":
            c.victory.append({"text": text.text, "source": "pc", "achieved": None})
            self.ctx.state(f"{c.id}.victory", None, text.text, "§7.7 BS_3d")
        else:
            i = int(ch.split(":")[1])
            old_text = c.victory[i]["text"]
            c.victory[i] = {"text": text.text, "source": "pc", "achieved": None}
            self.ctx.state(f"{c.id}.victory", old_text, text.text, "§7.7 BS_3d")

    # -- ending and session end (§6, G1) -----------------------------------------------------------------------
    def _ending(self) -> Gen:
        self.scene = None
        self.in_between = False
        self.participants = [c.id for c in self.t.pcs() if c.in_play]
        if self.sc.ending:
            self.ctx.narrate("gm", self.sc.ending)
        for c in self.t.pcs():
            if c.status == "absent":
                continue
            self.ctx.info("ending", f"{c.name} のエンディング", pc=c.id, status=c.status)
            if c.has_class_skill("fairy_guardian") and c.status == "active":
                partners = [o for o in self.t.chars.values() if o.id != c.id and o.in_play
                            and any(self.t.strength(c.id, r) == 3 for r in self.rel_refs(c.id, o.id))]
                if partners:
                    pairs = [("none", "使わない")] + [(f"{o.id}:{a}", f"守護: {o.name} の{ABILITY_NAMES[a]} +2 (消失する)")
                                                   for o in partners for a in ABILITIES if not o.is_curse]
                    ch = yield from self.choose(c.id, "race.guardian", "守護を使う?", "§9.3 守護", pairs)
                    if ch != "none":
                        oid, a = ch.split(":")
                        o = self.t.chars[oid]
                        o.full[a] += 2
                        self.set_ability(o, a, o.ab[a] + 2, "§9.3 守護 (permanent)")
                        self.set_status(c, "vanished", "§9.3 守護")
        for c in self.t.pcs():
            if not c.victory:
                continue
            pairs = [(str(i), text) for i, text in enumerate(numbered([v["text"] for v in c.victory]))]
            got = yield from self.choose_many("gm", "end.victory_eval", f"{c.name} の勝利条件: 達成されたものを選ぶ", "§4.7", pairs,
                                              0, len(pairs), context={"pc": c.id, "status": c.status,
                                                                       "confrontation": self.cf_result})
            for i, v in enumerate(c.victory):
                v["achieved"] = str(i) in got
                self.ctx.state(f"{c.id}.victory[{i}].achieved", None, v["achieved"], "§4.7 end.victory_eval")

    def _session_end(self) -> dict[str, Any]:
        """§6 SESSION_END: absence rolls (A15), outcome, and the campaign state carried to the next session."""
        for c in self.t.pcs():
            if c.status == "absent":
                old = c.absent_sessions
                c.absent_sessions = max(0, old - 1)  # one of the missed sessions has passed
                self.ctx.state(f"{c.id}.absent_sessions", old, c.absent_sessions, "A15 a missed session")
                continue
            if c.any_zero() and c.status in ("dropped", "active"):
                n = self.ctx.dice.d6(f"absence:{c.id}")
                c.absent_sessions = n if self.cfg.absence_mode == "miss_n" else max(0, n - 1)
                self.ctx.state(f"{c.id}.absent_sessions", 0, c.absent_sessions, "§6 SESSION_END, A15")
        pcs = {c.id: {"status": c.status, "abilities": dict(c.ab), "sublimated": [s.id for s in c.skills if s.sublimated],
                      "willpower": c.willpower, "absent_sessions": c.absent_sessions,
                      "victory": [dict(v) for v in c.victory]} for c in self.t.pcs()}
        out = {
            "ending": self.cf_result or "no_confrontation",
            "pcs": pcs,
            "relations": {f"{a}|{b}": r.strength for (a, b), r in sorted(self.t.relations.items()) if r.strength},
            "flags": sorted(self.t.flags),
            "clock_minutes": self.t.clock,
        }
        out["campaign"] = self._campaign_state()
        self.result.update(out)
        return out

    def _campaign_state(self) -> dict[str, Any]:
        prev = self.ctx.options.get("campaign") or {}
        pcs: dict[str, Any] = {k: v for k, v in (prev.get("pcs") or {}).items() if k not in self.t.chars}  # PCs not seated now
        relations = {k: v for k, v in (prev.get("relations") or {}).items()
                     if any(split_ref(x)[0] not in self.t.chars for x in k.split("|"))}
        return {
            "format": 1,
            "system": "bloodberry",
            "sessions_played": int(prev.get("sessions_played", 0)) + 1,
            "last_scenario": self.sc.id,
            "pcs": pcs | {c.id: {"name": c.name, "full": dict(c.full), "sublimated": [s.id for s in c.skills if s.sublimated],
                                 "emotions": {k: list(v) for k, v in c.emotions.items()}, "absent_sessions": c.absent_sessions,
                                 "status": "vanished" if c.status == "vanished" else ("absent" if c.absent_sessions else "active")}
                          for c in self.t.pcs()},
            "relations": relations | {f"{a}|{b}": r.strength for (a, b), r in sorted(self.t.relations.items()) if r.strength},
        }


