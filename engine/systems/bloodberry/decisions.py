"""ブラッドベリー's decision table (rules/bloodberry.md §8): every decision kind the rules of this package ask.

``who`` is the seat role of the actor the code asks: ``any`` where the rules ask whichever character is concerned
(a judge window asked of any roller, PC, NPC or formed curse; a flag-map camp decided by its lowest-numbered PC or
by the GM for an NPC camp). Ids of §8 that are not kinds of their own:

- ``rc.declare`` is the option ``rc:<target>:<type>`` of ``bs.relation`` and of ``pc.cf_action``/``npc.cf_action``;
- ``rp.actions`` are the turn actions themselves (``pc.declare``, ``pc.cf_action``, ``npc.cf_action``,
  ``curse.action``) asked once per action of a role;
- ``sk.into_dream``, ``sk.afterimage``, ``sk.words``, ``sk.domination`` and ``sk.spare_key`` (giving a key) are
  ``skill:...`` options of ``pc.declare``/``pc.cf_action``; using 合い鍵 in a door check is ``j.post_mods``;
- ``gm.flagmap_setup``, ``gm.place_ruling``, ``gm.subevent_content`` and ``fm.request_place`` are scenario data
  (the flag map's places, conditions, gates and sub-event texts), not asked.
"""

from __future__ import annotations

from collections.abc import Mapping

from ...core.decision_table import DecisionSpec, decision_table
from .standing import STANDING, TITLES

__all__ = ["DECISIONS", "OTHER_SHAPES"]

D = DecisionSpec

#: kinds the rules also ask in another shape, after the entry's own: a choice whose "free" option is followed by a
#: free-text payload of the same kind
OTHER_SHAPES: Mapping[str, frozenset[str]] = {
    "cc.relation_name": frozenset({"payload"}),
    "cc.curse": frozenset({"payload"}),
    "cc.emotions": frozenset({"payload"}),
    "pc.declare": frozenset({"payload"}),
    "bs.victory": frozenset({"payload"}),
}

DECISIONS: Mapping[str, DecisionSpec] = decision_table([
    # -- character creation (§3) -----------------------------------------------------------------------------------
    D("cc.profile", "pc", "payload", "§3 step 1", doc="name and profile"),
    D("cc.relation_name", "pc", "one", "§3 step 2, §9.6", no="roll", doc="a ring pair's relation name"),
    D("cc.abilities", "pc", "payload", "§3 step 3, V1", doc="4 ability points"),
    D("cc.basic_skills", "pc", "many", "§3 step 4, V2", doc="3 basic skills"),
    D("cc.class_tiebreak", "pc", "one", "§3 step 4, V3", doc="class on a 1-1-1 split"),
    D("cc.race", "pc", "one", "§3 step 5, V5", doc="human or fairy"),
    D("cc.fairy_drop", "pc", "one", "§3 step 5, V4", doc="class skill a fairy loses"),
    D("cc.curse", "pc", "one", "§3 step 6, §9.8", no="roll", doc="personal curse"),
    D("cc.emotions", "pc", "one", "§3 step 7, V7", no="roll", doc="an emotion for a ring partner"),
    D("gm.approve_sheet", "gm", "one", "§3 V1–V8", doc="approve or reject a sheet"),
    # -- session start, scenes (§4.7, §5.5, §5.7, §6, §7.1, §7.8) ------------------------------------------------
    D("gm.assign_victory", "gm", "one", "§4.7", no="none", doc="give the scenario's victory condition"),
    D("gm.scene_setup", "gm", "many", "§6, §7.7 BS_4", public=True, doc="scene participants, then scene actors"),
    D("pc.entry_request", "pc", "one", "§5.7 登場判定", public=True, no="stay_out", doc="ask to enter a scene"),
    D("gm.entry_ruling", "gm", "one", "§5.7", public=True, doc="rule on an entry request"),
    D("gm.npc_entry", "gm", "one", "§8 gm.npc_entry", no="none", doc="bring an NPC in"),
    D("gm.curse_event", "gm", "one", "§5.5, §8 gm.curse_event", no="none", doc="run a curse check on a PC"),
    D("gm.adopt_rounds", "gm", "one", "§8 gm.adopt_rounds, §7.4", public=True, no="normal_order",
      doc="normal order or round progression"),
    D("gm.end_scene", "gm", "one", "§6 scene-ending guidance", public=True, doc="continue, end the scene, ending"),
    D("pc.declare", "pc", "one", "§7.8, §8 pc.declare", speech=True, public=True, no="pass",
      doc="a PC's turn action (free text follows)"),
    D("gm.permit", "gm", "one", "§8 gm.permit (ordinary people only)", public=True, doc="permit a free action"),
    D("gm.call_judge", "gm", "payload", "§5.3 [1], §9.5", public=True, doc="how a free action is judged"),
    # -- class / race skills (§9.2, §9.3) --------------------------------------------------------------------------
    D("sk.time", "pc", "payload", "§9.2 時間", doc="hours of stopped time"),
    D("sk.foam", "pc", "one", "§9.2, A19", doc="ability +1 for a hosted person"),
    D("sk.hama", "pc", "one", "§9.2 破魔, A20",
      doc="check kind to seal; maintain or release (at the target's turns, the user's own turns, between scenes)"),
    D("sk.domination_consent", "any", "one", "§9.2 完全支配", no="refuse", doc="accept total domination"),
    D("race.guardian", "pc", "one", "§9.3 守護", reaction=True, no="none", doc="fairy's guardian at the ending"),
    # -- the judge and its windows (§5.3–§5.6, §9.1, §9.3) ---------------------------------------------------------
    D("j.abandon", "any", "one", "§5.3 step 1", reaction=True, no="roll", doc="roll or abandon"),
    D("j.second_basis", "any", "one", "§5.4", reaction=True, doc="second basis of a relation check"),
    D("j.claim_useful", "pc", "many", "§5.6", reaction=True, doc="claim useful sublimated skills"),
    D("gm.approve_useful", "gm", "many", "§5.6", doc="approve useful-skill claims"),
    D("j.pre_effects", "pc", "one", "§9.1", reaction=True, no="none", doc="pre-roll sublimation effect"),
    D("j.forget", "pc", "one", "§9.1 忘却", reaction=True, no="pass", doc="cancel an effect with 忘却"),
    D("j.reroll", "any", "one", "§5.3 step 3", reaction=True, no="stop", doc="stop or reroll"),
    D("j.fairy_offer", "pc", "one", "§9.3 妖精の呪い, A22", reaction=True, no="pass", doc="offer 妖精の呪い"),
    D("j.fairy_consent", "any", "one", "§9.3 妖精の呪い", reaction=True, no="refuse", doc="accept 妖精の呪い"),
    D("j.post_mods", "pc", "one", "§9.1 教師", reaction=True, no="none", doc="教師 or 合い鍵 after the roll"),
    D("j.concede", "any", "one", "§5.3.2", reaction=True, no="keep", doc="keep or concede a success"),
    D("j.grant", "any", "one", "§5.3.2", reaction=True, no="none", doc="grant a lower roller success"),
    D("j.chukoku", "pc", "one", "§9.1 忠告バスター", reaction=True, no="pass", doc="cancel a 誘惑 result"),
    D("rc.passive_choice", "any", "one", "§5.4 passive success", doc="raise, lower or willpower"),
    D("rc.sublimate", "pc", "one", "§5.4 sublimate, A47", doc="basic skill to sublimate"),
    D("kiryoku.guard", "pc", "one", "§4.3 #2, §7.9", reaction=True, no="pass", doc="take another's ability loss"),
    D("rescue.byojaku", "pc", "one", "§7.9 self-rescue", no="pass", doc="use 病弱 at 情熱 0"),
    # -- confrontation (§7.5) --------------------------------------------------------------------------------------
    D("gm.confrontation_setup", "gm", "one", "§7.5 CF_SETUP, §8 gm.adopt_rounds", public=True, no="normal_order",
      doc="confrontation progression"),
    D("pc.cf_action", "pc", "one", "§7.5 PC turn action", speech=True, public=True, no="pass",
      doc="a PC's confrontation action"),
    D("npc.cf_action", "npc", "one", "§7.5 rival camps", public=True, no="pass", doc="an NPC camp member's action"),
    D("curse.action", "npc", "one", "§7.5 curse turn", speech=True, public=True, doc="a curse's target and stat"),
    # -- between scenes (§7.7) -------------------------------------------------------------------------------------
    D("bs.emotions", "pc", "one", "§7.7 BS_1", no="done", doc="change or add an emotion"),
    D("bs.actor_claim", "pc", "one", "§7.7 BS_2", public=True, no="no_claim", doc="claim acting as a scene actor"),
    D("gm.actor_ruling", "gm", "one", "§7.7 BS_2", public=True, doc="confirm a scene-actor claim"),
    D("skill.anytime", "pc", "one", "§8 skill.anytime", no="none", doc="an anytime effect between scenes"),
    D("bs.refresh", "pc", "one", "§7.7 BS_3a", no="none", doc="refresh a used effect for 1 気力"),
    D("bs.relation", "any", "one", "§7.7 BS_3b, §5.4", speech=True, public=True, no="skip",
      doc="declare a relation check (NPCs too with npc_initiated_relation_checks)"),
    D("bs.proposal", "pc", "one", "§7.7 BS_3c", speech=True, public=True, no="none", doc="propose the next scene"),
    D("gm.proposal_ruling", "gm", "one", "§7.7 BS_3c", public=True, doc="approve a scene proposal"),
    D("bs.victory", "pc", "one", "§7.7 BS_3d, §4.7", no="none", doc="create, change or delete a victory condition"),
    D("gm.victory_ruling", "gm", "one", "§7.7 BS_3d", doc="approve a victory condition"),
    # -- ending (§4.7) ---------------------------------------------------------------------------------------------
    D("end.victory_eval", "gm", "many", "§4.7", doc="victory conditions achieved"),
    # -- round progression (§7.4) ----------------------------------------------------------------------------------
    D("rp.initiative", "any", "one", "§7.4 RP_INITIATIVE, A26", doc="initiative card to reveal"),
    D("rp.discard", "any", "one", "§7.4 X_DISCARD", doc="card to discard"),
    D("rp.change", "any", "one", "§7.4 CHANGE_WINDOW, A27", reaction=True, no="pass", doc="take a discarded card"),
    # -- flag map (§7.6) -------------------------------------------------------------------------------------------
    D("fm.bid", "any", "one", "§7.6 FM_SETUP, A32", simultaneous=True, doc="face-down bid card"),
    D("fm.place", "any", "one", "§7.6 [2]", no="done", doc="place a fragment card"),
    D("fm.subevent", "any", "one", "§7.6 [2] sub-event", no="done", doc="place a sub-event card"),
    D("fm.step3", "any", "one", "§7.6 [3]", public=True, doc="move or draw"),
    D("fm.gate_roller", "any", "one", "§7.6 [3], §8 fm.gate_roller", doc="who rolls a gate check"),
], OTHER_SHAPES, STANDING, TITLES)
