"""夜狩り人's decision table (rules/yogaribito.md §8, D01–D60): every decision kind the rules of this package ask.

``who`` is the seat role of the actor the code asks: ``any`` where it asks the controller of whichever character
is concerned (a PC's player, or an NPC's/enemy's actor, role ``npc``). Points of §8 that are not kinds of their
own: D22 (a psychic concentration situation) is the scene's data or the ``concentration_on``/``concentration_off``
options of ``gm.scene_flow``; D23 (info disclosure) follows the scenario's tiers; D48 (consumables) is the
``item:<uid>:<target>`` option of ``cb.minor``/``cb.major``; D54 (psychic focus resources) is the check windows
(``ck.*``) of the focus check.
"""

from __future__ import annotations

from collections.abc import Mapping

from ...core.decision_table import DecisionSpec, decision_table
from .standing import STANDING, TITLES

__all__ = ["DECISIONS", "OTHER_SHAPES"]

D = DecisionSpec

#: kinds the rules also ask in another shape, after the entry's own: a lifepath entry 任意 or a free-text encounter
#: NPC (a payload of the same kind), an area/scene-wide attack's targets (a subset)
OTHER_SHAPES: Mapping[str, frozenset[str]] = {
    "cc.origin": frozenset({"payload"}),
    "cc.purpose": frozenset({"payload"}),
    "cc.encounter": frozenset({"payload"}),
    "cc.encounter_npc": frozenset({"payload"}),
    "cb.targets": frozenset({"many"}),
}

DECISIONS: Mapping[str, DecisionSpec] = decision_table([
    # -- character creation (§3, D01–D16) --------------------------------------------------------------------------
    D("cc.mode", "pc", "one", "§3, §3.4 D01", doc="create or quickplay"),
    D("cc.fallback", "pc", "one", "§3.1 step 1 D03", doc="low-roll fallback"),
    D("cc.assign", "pc", "payload", "§3.1 step 1.3 D02", doc="ability assignment"),
    D("cc.hero_bonus", "pc", "payload", "§3.1 step 2 D04, AMB-01", doc="hero bonus 6/3/1"),
    D("cc.main_class", "pc", "one", "§3.1 step 3 D05", doc="main class"),
    D("gm.approve_common", "gm", "one", "§9.2 コモン D06, AMB-46", no="refuse", doc="allow the コモン class"),
    D("cc.sub_class", "pc", "one", "§3.1 step 4 D07", doc="sub class"),
    D("cc.patron", "pc", "payload", "§9.2 シャーマニック D08", doc="shaman patron"),
    D("cc.feats", "pc", "payload", "§3.1 step 5 D09", doc="feat selection"),
    D("cc.equipment", "pc", "payload", "§3.1 step 6 D10", doc="equipment selection"),
    D("cc.loadout", "pc", "one", "§3.1 step 6.4 D11", no="keep", doc="starting loadout"),
    D("cc.origin", "pc", "one", "§3.1 step 8, §9.5 D12", no="roll", doc="lifepath origin"),
    D("cc.purpose", "pc", "one", "§3.1 step 8, §9.5 D13", no="roll", doc="lifepath purpose"),
    D("cc.encounter", "pc", "one", "§3.1 step 8, §9.5 D14", no="roll", doc="lifepath encounter"),
    D("cc.encounter_npc", "pc", "one", "§3.1 step 8 D15", doc="the encounter's NPC"),
    D("cc.personal", "pc", "payload", "§3.1 step 8 D16", doc="personal data"),
    D("gm.approve_equivalent", "gm", "one", "◆相当品 D16", no="refuse", doc="allow 相当品 re-skins"),
    # -- scenes (§6, §7.1, §7.2, D17–D21, D55, D56, D58, D59) -----------------------------------------------------
    D("gm.scene", "gm", "one", "§6 D17/D58", public=True, no="skip", doc="play or skip an optional scene"),
    D("gm.scene_player", "gm", "one", "§7.1 D17", public=True, doc="the scene player"),
    D("pc.entry", "pc", "one", "§7.1 D18", public=True, no="stay_out", doc="enter a scene"),
    D("pc.entry_ability", "pc", "one", "§7.1 D56", doc="entry check ability"),
    D("gm.scene_flow", "gm", "one", "§7.1 D58", speech=True, public=True, doc="continue, combat, check, close"),
    D("gm.call_check_free", "gm", "payload", "§5.6 D19", public=True, doc="call a check on a PC"),
    D("pc.social", "pc", "one", "§7.2 D20", speech=True, public=True, no="none", doc="a social check"),
    D("gm.call_check", "gm", "one", "§5.6 D19", public=True, doc="ability of a social check"),
    D("gm.npc_ability", "gm", "one", "§7.2 D55", doc="an NPC's opposed ability"),
    D("pc.purchase", "pc", "one", "§6 between scenes D21", no="none", doc="between-scene purchase"),
    D("pc.propose", "pc", "one", "§6 D59", public=True, no="none", doc="propose a scene"),
    D("gm.proposal", "gm", "one", "§6 D17", public=True, doc="accept a scene proposal"),
    # -- the check pipeline (§5.2–§5.7, §7.7.2–§7.9, D24–D28, D43–D46, D49) ---------------------------------------
    D("ck.defense_ability", "any", "one", "§5.2 AMB-16 D24", reaction=True, doc="defense ability on a tie"),
    D("ck.auto_feats", "any", "many", "§5.2 A §11.2 D25", reaction=True, doc="pre-check auto feats"),
    D("ck.bought", "any", "one", "§5.2 B §5.4 D26", reaction=True, no="none", doc="bought dice"),
    D("ck.kagaribi", "any", "one", "§5.4 D27", reaction=True, no="none", doc="use 【燎】"),
    D("ck.luck", "any", "one", "§5.4 D28 AMB-08 AMB-09", reaction=True, no="none", doc="use 【運】"),
    D("ck.crit_fiat", "gm", "one", "§5.2 D43 AMB-48", speech=True, no="none", doc="GM's narrative on a crit/fumble"),
    D("ck.bullets", "any", "one", "§5.7 D46", reaction=True, doc="pay a cost with 【弾】"),
    D("ck.doom_ack", "any", "one", "§7.8 AMB-20 AMB-21 D49", doc="Arachne's doom while awakened"),
    D("ck.zero", "any", "one", "§7.7.2 D44", doc="awaken or be incapacitated"),
    D("ck.release_status", "any", "one", "§7.9 D45", no="keep", doc="release a curse/brand"),
    # -- combat (§7.3–§7.7, §11.6, D29–D42, D47, D57, D60) --------------------------------------------------------
    D("cb.layout", "gm", "one", "§7.3 combat_start D29", public=True, doc="battlefield layout"),
    D("cb.delay", "any", "one", "§7.3.2 D30", reaction=True, public=True, no="none", doc="delay or not"),
    D("cb.pc_order", "pc", "one", "§7.3.2 D31", doc="next among tied PCs"),
    D("cb.gm_order", "gm", "one", "§7.3.2 D32", doc="next among the tied GM side"),
    D("cb.setup_feat", "any", "one", "§7.3 setup_phase D33", public=True, no="none", doc="a setup feat"),
    D("cb.other_auto", "any", "one", "§11.2 D60", reaction=True, no="none", doc="auto feat outside checks"),
    D("cb.minor", "any", "one", "§7.3.3 D34", public=True, no="none", doc="minor action"),
    D("cb.major", "any", "one", "§7.3.3 D35", speech=True, public=True, no="pass", doc="major action"),
    D("cb.targets", "any", "one", "§7.5 D36", public=True, doc="attack targets (a subset for area attacks)"),
    D("cb.seal_item", "any", "one", "§7.9 D37", public=True, doc="item to seal with 武器封じ"),
    D("cb.blockade_consent", "any", "one", "§7.4 D38", reaction=True, doc="consent or contest a blockade"),
    D("cb.blockade_opponent", "any", "one", "§7.4 D39", doc="blockader who contests"),
    D("cb.crit_bonus", "any", "one", "§7.5 D40 AMB-11", reaction=True, doc="+1 achievement or +1D6"),
    D("cb.crit_table", "gm", "one", "§7.6 D41 AMB-12", reaction=True, no="roll", doc="roll the 痛打表"),
    D("cb.crit_hand", "any", "one", "§7.6 D42", doc="hand disabled by 痛打表 2"),
    D("cb.crit_row6", "gm", "one", "§7.6 D57 AMB-14", doc="痛打表 6 outcome"),
    D("cb.end", "gm", "one", "§11.6 D47", public=True, no="none", doc="end the combat"),
    # -- afterplay (§7.11, D50–D53) --------------------------------------------------------------------------------
    D("ap.xp_award", "gm", "payload", "§7.11.1 D50", doc="XP award per player"),
    D("ap.replacement", "pc", "one", "§7.11.4 D53", no="none", doc="replacement PC after a death"),
    D("ap.rebuild", "pc", "one", "§7.11.3 D52", no="keep", doc="rebuild or not"),
    D("ap.spend", "pc", "one", "§7.11.2 D51", no="done", doc="one XP purchase"),
], OTHER_SHAPES, STANDING, TITLES)
