"""ラストフラグメント's decision table (rules/last_fragment.md §8): every decision kind the rules of this package ask.

A kind is the spec's §8 id under a group prefix, as the other systems name theirs (「A」 ``sd.assign_cast`` for D01
assign_casts): ``cc.`` character creation (``cc_*``), ``gm.`` the GM (``gm_*``, and ``combat_participants``),
``pc.`` a PC's player (``pc_*``, ``climax_declaration``), ``ck.`` whoever rolls a check (``check_*``,
``fumble_item_choice``), ``sf.`` the holder of a secret fragment (``sf_*``), ``ps.`` the personal scene (``ps_*``,
``personal_scene_end``), ``bond.`` bonds (``bond_*``), ``cb.`` the climax combat (``sp_choice``, ``combat_action``,
``aftermath_action``, ``withdrawal_declaration``, ``winner_loot``, ``dart_use``), ``inv.`` the inventory (``inventory_overflow``), ``cont.`` the continuation (``continue_pc``,
``growth_*``, ``respec``, ``memorialize``, ``next_session_items``). The ``doc`` of each entry names its §8 id.

``gm_handout_assignment`` and ``gm_shock_targets`` are ``gm.`` kinds (default: the scenario's); ``dart_use`` is
``cb.dart_use``, asked after the free action ``dart``.
Sheets, dice and results are public at this table; choices a player makes about its own fragments and items are
its own (the engine publishes what they change).
"""

from __future__ import annotations

from collections.abc import Mapping

from ...core.decision_table import DecisionSpec, decision_table
from .standing import STANDING, TITLES

__all__ = ["DECISIONS"]

D = DecisionSpec

DECISIONS: Mapping[str, DecisionSpec] = decision_table([
    # -- creation (§3) -------------------------------------------------------------------------------------------
    D("cc.profile", "pc", "payload", "§3 1 cc_profile", public=True, doc="cc_profile: name, 肩書, age, sex, memo"),
    D("cc.ap_allocation", "pc", "payload", "§3 4 cc_ap_allocation", public=True, doc="cc_ap_allocation: 能力/知識 levels"),
    D("cc.skill_choice", "pc", "many", "§3 5", public=True, doc="cc_skill_choice (creation, respec)"),
    D("cc.initial_item_names", "pc", "payload", "§3 6 cc_initial_item_names", public=True, doc="cc_initial_item_names"),
    D("gm.item_name_veto", "gm", "one", "§3 6 (WIKI)", public=True, no="keep", doc="gm_item_name_veto: keep (accept) / rename"),
    # -- the main phase (§6, §7.1–§7.6) ----------------------------------------------------------------------------
    D("gm.handout_assignment", "gm", "one", "§6 setup", no="keep",
      doc="gm_handout_assignment: keep (the scenario's PC) / another PC"),
    D("gm.shock_targets", "gm", "many", "§7.3 対象", public=True,
      doc="gm_shock_targets: any set (≥ 1) of the appearing characters; the trigger's targets are the default"),
    D("gm.scene_appearance", "gm", "many", "§6 scene_enter (HOUSE)", public=True,
      doc="all_pcs_in_every_scene = false: the PCs who appear in the scene (≥ 1; default all)"),
    D("gm.next_scene", "gm", "one", "§6 scene_select", public=True, doc="gm_next_scene"),
    D("gm.stuck_resolution", "gm", "one", "§6 gm_stuck (HOUSE)", public=True,
      doc="gm_stuck_resolution: force:<scene> / end_main_phase"),
    D("gm.scene_events", "gm", "one", "§6 triggers", no="skip", doc="gm_scene_events: fire / skip"),
    D("gm.npc_investigation", "gm", "one", "§6 scene_play (AMB-46)", public=True, no="none", doc="gm_npc_investigation"),
    D("pc.discovery", "pc", "one", "§7.2 発見", public=True, no="skip", doc="pc_discovery: attempt / skip"),
    D("pc.take_loose_item", "pc", "one", "§7.2 発見（アイテム）", public=True, no="skip", doc="pc_take_loose_item: take / skip"),
    D("pc.main_action", "pc", "one", "§6 scene_play", public=True, no="pass",
      doc="pc_main_action: investigate:<target> / personal_scene / skill:<skill>:<target> / skill2:… (with ②) / pass"),
    D("pc.free_action", "any", "one", "§6 / §7.9.4 フリーアクション", no="none",
      doc="pc_free_action: none / share:<fragment>:<pcs|char> / come_out:<secret> / give:<i>:<char> / "
          "discard:<i> / take:<item> / bp:<bond power> / dart (then cb.dart_use) / memorialize:<i> "
          "(memorialize_timing = anytime) / skill:<skill>:<target> (a round_start / round_end skill in the combat's "
          "window)"),
    D("pc.climax_declaration", "pc", "one", "§6 climax_declaration", public=True, no="pass",
      doc="climax_declaration: yes / pass (not yet)"),
    # -- checks (§5.1, §7.6) ---------------------------------------------------------------------------------------
    D("ck.item_request", "any", "one", "§7.6 アイテム", reaction=True, public=True, no="none",
      doc="check_item_request: none / item:<i> / lend:<owner>:<i> (item_use_on_others)"),
    D("ck.item_lend", "any", "one", "§7.6 アイテム (AMB-22 item_use_on_others)", public=True, no="refuse",
      doc="check_item_request for another's check (item_use_on_others): the owner's accept / refuse"),
    D("gm.item_approval", "gm", "one", "§7.6", speech=True, public=True, doc="gm_item_approval: approve / reject"),
    D("ck.ability_choice", "any", "one", "§5.1 右端の異能", reaction=True, public=True,
      doc="check_ability_choice: the designated ability or its row's 異能 (non-daily)"),
    D("ck.token_spend", "any", "one", "§5.1 トークン (AMB-1)", reaction=True, public=True,
      doc="check_token_spend: 0..tokens"),
    D("ck.fumble_item_choice", "any", "one", "§9.2 ファンブル表 3 (AMB-14)", public=True, doc="fumble_item_choice"),
    D("sf.designate_ability", "any", "one", "§7.5 シークレットフラグメント", public=True, doc="sf_designate_ability"),
    D("sf.come_out", "any", "many", "§7.5 カミングアウト", public=True, doc="sf_come_out: recipients of a come-out"),
    # -- personal scenes and bonds (§7.4) --------------------------------------------------------------------------
    D("ps.scene_type", "pc", "one", "§7.4 (AMB-11 owner_choice)", public=True,
      doc="personal_scene_type=owner_choice: the personal scene's type, daily / nondaily (the owner's choice)"),
    D("ps.appearance_request", "pc", "many", "§7.4 1 登場要請", public=True, doc="ps_appearance_request"),
    D("ps.appearance_response", "any", "one", "§7.4 1 登場要請", public=True, no="refuse",
      doc="ps_appearance_response: accept / refuse"),
    D("bond.check_target", "pc", "one", "§7.4 2", public=True, no="none", doc="bond_check_target"),
    D("bond.check_designate_ability", "any", "one", "§7.4 3 (相手が指定)", public=True, doc="bond_check_designate_ability"),
    D("bond.type_choice", "any", "one", "§7.4 5 絆表 (AMB-8)", public=True, no="roll", doc="bond_type_choice: roll / a type"),
    D("bond.type_change", "any", "one", "§7.4 5 (AMB-10)", public=True, no="keep", doc="bond_type_change"),
    D("ps.personal_scene_end", "pc", "one", "§7.4 6–7", public=True, no="done",
      doc="personal_scene_end: done (end now) / investigate:<char>"),
    # -- the climax (§7.9, §7.10) ----------------------------------------------------------------------------------
    D("gm.combat_participants", "gm", "many", "§7.9.1 combat.start", public=True, doc="combat_participants"),
    D("cb.sp_choice", "any", "one", "§7.9.2 SP", simultaneous=True, doc="sp_choice: 1..10 (secret, simultaneous)"),
    D("cb.combat_action", "any", "one", "§7.9.1 action_step", public=True, no="done",
      doc="combat_action: one skill:<skill>:<target> (skill2: with ②) at a time, then done"),
    D("cb.withdrawal_declaration", "any", "one", "§7.9.1 round_end", simultaneous=True, no="pass",
      doc="withdrawal_declaration: pass (stay) / withdraw (secret, simultaneous)"),
    D("cb.dart_use", "any", "one", "§7.9.5 ダート", public=True, no="none",
      doc="dart_use: none / dart:<abnormality>:<target> (after the free action dart)"),
    D("cb.aftermath_action", "any", "one", "§6 climax_aftermath", public=True, no="pass", doc="aftermath_action"),
    D("cb.winner_loot", "any", "one", "§7.10 勝者", public=True, no="none", doc="winner_loot"),
    # -- inventory, ending, continuation (§7.6, §7.11, §7.12) -----------------------------------------------------
    D("inv.inventory_overflow", "any", "one", "§7.6 アイテム枠", public=True, doc="inventory_overflow: discard / give"),
    D("gm.bonus_items", "gm", "one", "§7.11 gm_bonus_items", public=True, no="none",
      doc="gm_bonus_items: none / item:<scenario item> / new (then gm.bonus_item_name), asked until none"),
    D("gm.bonus_item_name", "gm", "payload", "§7.11 gm_bonus_items", public=True,
      doc="gm_bonus_items: the name of a new item the GM gives"),
    D("cont.continue_pc", "any", "one", "§7.12 継続", public=True, no="none",
      doc="continue_pc: continue / retire (生還); none / npc (the GM, 失踪)"),
    D("cont.respec", "pc", "one", "§7.12 振り直し (AMB-44)", public=True, no="none", doc="respec"),
    D("cont.growth_ap_spend", "pc", "one", "§7.12 成長 (AMB-43)", public=True, no="keep", doc="growth_ap_spend"),
    D("cont.growth_skill_learn", "pc", "one", "§7.12 成長", public=True, no="none", doc="growth_skill_learn"),
    D("cont.memorialize", "pc", "many", "§7.12 思い出化 (AMB-42)", public=True, doc="memorialize"),
    D("cont.next_session_items", "pc", "many", "§7.12 (AMB-41)", public=True, doc="next_session_items"),
], standing=STANDING, titles=TITLES)
