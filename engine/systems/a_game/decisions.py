"""「A」's decision table (rules/a_game.md §8, D01–D39): every decision kind the rules of this package ask.

Kinds are named after who answers (``sd.`` the session designer, ``pc.`` a PC's player, ``ck.`` whoever rolls or
builds a side of a check: a PC's player or, for an SDC, the SDC's actor — played by the SD's policy unless a seat
names it, ``ban.`` a PL or the SD per ``usage_ban_tie``). D06 行動宣言 is asked in three parts (target, category,
elements); its text is the answer's note. At a table of 「A」 everything is said aloud, so every answer is public.
"""

from __future__ import annotations

from collections.abc import Mapping

from ...core.decision_table import DecisionSpec, decision_table
from .standing import STANDING, TITLES

__all__ = ["DECISIONS", "OTHER_SHAPES"]

D = DecisionSpec

#: kinds also asked as a payload after a choice (free text after ``new`` / ``adjust`` / ``custom``)
OTHER_SHAPES: Mapping[str, frozenset[str]] = {
    "pc.propose_element": frozenset({"payload"}),
    "pc.register_between_scenes": frozenset({"payload"}),
    "sd.scene_frame": frozenset({"payload"}),
    "sd.sdc_declare": frozenset({"payload"}),
    "ck.temporary": frozenset({"payload"}),
    "sd.reverse_elements": frozenset({"payload"}),
    "sd.passive": frozenset({"payload"}),
}

DECISIONS: Mapping[str, DecisionSpec] = decision_table([
    # -- game setup and characters (§3, D01–D04) -------------------------------------------------------------------
    D("sd.assign_cast", "gm", "one", "§1 役割分担 D01", public=True, doc="D01 assign_casts: one PC's cast"),
    D("pc.background", "pc", "payload", "§3.1 D02", public=True, doc="D02 write_background: name and 設定"),
    D("pc.propose_element", "pc", "one", "§4-1-1 D03", public=True, no="none",
      doc="D03 propose_element: none, a suggestion, or a new element (then its payload)"),
    D("sd.approve_element", "gm", "one", "§7.7 D04", speech=True, public=True,
      doc="D04 approve_element: approve or reject with too_long/meaningless/setting_conflict/omnipotent/other"),
    # -- scenes and declarations (§3, §6, D05–D12) ------------------------------------------------------------------
    D("sd.scene_frame", "gm", "one", "§3 D05", public=True, no="keep", doc="D05 set_scene_frame: keep or adjust"),
    D("pc.declare", "pc", "one", "§3-1 D06", speech=True, public=True, no="pass",
      doc="D06 declare_action: pass or a target (the action's words: the note)"),
    D("pc.declare_category", "pc", "one", "§3-1 D06", public=True, doc="D06 declare_action: the check category"),
    D("pc.declare_elements", "pc", "many", "§3-1 D06", public=True, doc="D06 declare_action: the elements proposed"),
    D("sd.duration", "gm", "one", "§3-2 D07", public=True, no="none", doc="D07 set_action_duration (none: 1 turn)"),
    D("pc.continue_or_split", "pc", "one", "§3-2 D08", public=True,
      doc="D08 choose_continue_or_split: continued, split, shorten, withdraw"),
    D("pc.hero_point", "pc", "one", "§4-5-3 D09", public=True, no="none",
      doc="D09 declare_hero_point: none, A, B:<target> (the statement: the note)"),
    D("sd.approve_hp_b", "gm", "one", "§4-5-3 D10", speech=True, public=True, doc="D10 approve_hp_b"),
    D("sd.new_fact", "gm", "one", "§4-5-3 D11", public=True, doc="D11 state_new_fact: adopt or revise"),
    D("sd.sdc_declare", "gm", "one", "§3-1 D12", public=True, no="pass", doc="D12 sdc_declare: pass, plan, custom"),
    # -- the check (§5, §7.1–§7.4, D13–D24, D39) ---------------------------------------------------------------------
    D("sd.check_category", "gm", "one", "§7.1 C0 D13", public=True, no="keep", doc="D13 set_check_category"),
    D("sd.difficulty", "gm", "payload", "§4-2 D14", public=True, doc="D14 set_difficulty 1..100"),
    D("sd.opposed", "gm", "one", "§4-4-5 D15", public=True, no="none", doc="D15 decide_opposed"),
    D("sd.confirm_element", "gm", "one", "§7.1 C1 D16", speech=True, public=True, doc="D16 confirm_elements: one"),
    D("ck.temporary", "any", "one", "§4-3-A D17", public=True, no="none",
      doc="D17 propose_temporaries: none, a hint, or new words (then its payload)"),
    D("sd.approve_temporary", "gm", "one", "§4-3-A D18", speech=True, public=True, doc="D18 approve_temporary"),
    D("sd.reverse_elements", "gm", "many", "§4-3-B D19", public=True, doc="D19 set_reverse_elements"),
    D("pc.offer_cooperation", "pc", "many", "§4-3-C D20", public=True,
      doc="D20 offer_cooperation: own elements (the method: the note)"),
    D("sd.approve_cooperation", "gm", "one", "§4-3-C D21", speech=True, public=True, doc="D21 approve_cooperation"),
    D("ck.fixed", "any", "one", "§4-4-2 D22", reaction=True, public=True, no="roll", doc="D22 choose_fixed"),
    D("ck.greed", "any", "one", "§4-4-3 D23", reaction=True, public=True, no="stop", doc="D23 choose_greed"),
    D("sd.intermediate", "gm", "one", "§4-4-1 D24", speech=True, public=True, no="none",
      doc="D24 resolve_intermediate"),
    D("sd.judge_goal", "gm", "one", "§3 D25", public=True, doc="D25 judge_goal (mode gm_judgement)"),
    D("sd.passive", "gm", "one", "§4-4-7 D26", public=True, no="none", doc="D26 trigger_passive_check"),
    D("pc.record_precedent", "pc", "one", "§4-4-4 D27", public=True, no="none", doc="D27 record_precedent"),
    D("sd.follow_precedent", "gm", "one", "§4-4-4 D28", public=True,
      doc="D28 follow_precedent: follow or deviate (the reason: the note)"),
    D("pc.invoke_precedent", "pc", "one", "§4-4-4 D28", public=True, no="none", doc="D28a invoke_precedent"),
    D("sd.cast_violation", "gm", "one", "§1 キャスト違反 D29", public=True, no="none", doc="D29 flag_cast_violation"),
    D("sd.award_hp", "gm", "one", "§4-5-2 D30", public=True, no="none", doc="D30 award_hero_points: one PC"),
    D("sd.omnipotent_review", "gm", "many", "§4-1-6 D31", public=True, doc="D31 omnipotent_review"),
    D("pc.register_between_scenes", "pc", "one", "§4-1-2 D32", public=True, no="none",
      doc="D32 register_between_scenes (as D03)"),
    D("ban.choose_tie", "any", "one", "§4-1-3 D33", public=True, doc="D33 choose_ban_among_ties"),
    D("pc.propose_unrealize", "pc", "many", "§4-1-5 D34", public=True,
      doc="D34 propose_unrealize (the setting change: the note)"),
    D("sd.approve_unrealize", "gm", "one", "§4-1-5 D35", speech=True, public=True, doc="D35 approve_unrealize"),
    D("pc.guest_suggestion", "pc", "one", "§1 ゲスト D36", public=True, no="none", doc="D36 guest_suggestion (house)"),
    D("pc.decisive_success", "pc", "one", "§1 主人公 D37", public=True, no="none",
      doc="D37 use_decisive_success (house)"),
    D("sd.narrate", "gm", "one", "§7.1 C5 D38", speech=True, public=True, no="none",
      doc="D38 narrate: the template, or the SD's words (the note)"),
    D("ck.elements", "any", "many", "§7.1 C1 D39", public=True, doc="D39 propose_check_elements"),
], OTHER_SHAPES, STANDING, TITLES)
