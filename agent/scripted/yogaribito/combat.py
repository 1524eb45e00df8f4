"""Scripted defaults of rules/yogaribito.md §8 for combat (D29–D42, D47, D48, D57, D60) and the §11.7 enemy policy.

Every function reads only the decision: its options and its context (``engine/systems/yogaribito/combat.py``
``battle_context``: the engagements, every combatant's visible values, the decider's attacks, items and costs). The
GM side answers the same kinds for its characters, so the enemy policy is the same code with the §11.7 twists
(vampire mist_form only with two or more PCs engaged; the sorcerer's brand_of_malice first).

HOUSE rules of play (not rules of the game: what this policy chooses where §8's defaults left fights running to the
HOUSE 12-round cap; engine/systems/yogaribito/DESIGN.md, "Scripted play and the round cap"):

- **Re-arm** (D34, ``_rearm``): a weapon that cannot be used where it is (its hand disabled by 痛打表 row 2, or put
  away) goes back into a usable slot by a weapon swap when it beats every usable attack by half again. Before, a
  witch hunter whose gun hand was hit stabbed with his knife (4 dice against the count's 6) for the rest of the fight.
- **Go to a fallen ally** (D34/D35, ``_rescue_dest``): a PC carrying a close-range heal (賦活剤, 《応急手当》,
  《野戦治療》) moves or withdraws into the engagement of an ally who is 戦闘不能; D35's heal then lifts it (AMB-27).
  Before, the one left standing never reached the other.
- **Withdraw for range** (D35, ``_withdraw_for_range``, older): a ranged fighter stuck in melee steps back while an
  ally holds the enemy.
- **Keep soul for the climax** (``_spendable``, D33 blessing): outside the climax phase a PC pays no soul cost that
  leaves it under half its base, and casts no 《祝福》; the climax is where the caster's 【魂】 decides the fight.
- **End a stalemate** (D47, ``end_combat``): after 4 full rounds in which nobody lost 【命】 or 【魂】, the GM ends the
  fight (§11.6 (d)).
- **Press the attack with 【運】** (agent/scripted/yogaribito/checks.py ``_press_the_attack``): a successful hit
  check in the climax spends 【運】 to raise itself by one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from engine.core.decision import Decision
from engine.core.session import Session
from agent.scripted import standing_defaults
from engine.systems.yogaribito.standing import STANDING as _STANDING
from engine.core.standing import first_of as _first

__all__ = ["POLICY", "attack_score", "best_attack"]

#: healing options in order of preference (D35: heal an ally with life ≤ 1/3 base)
HEALS = ("healing_prayer", "field_dressing", "first_aid", "revitalizer")


def _chars(c: Mapping[str, Any]) -> Mapping[str, Any]:
    return c.get("chars") or {}


def _me(c: Mapping[str, Any]) -> dict[str, Any]:
    m = _memo(c)
    me = m.get("me")
    if me is None:
        me = m["me"] = _chars(c).get(c.get("me", ""), {})
    return me


#: (the context, its memo): values derived from the context of the decision being answered, computed once (a
#: context never changes; a new decision brings a new context object)
_MEMO: list[Any] = [None, {}]


def _memo(c: Mapping[str, Any]) -> dict[Any, Any]:
    if _MEMO[0] is not c:
        _MEMO[0] = c
        _MEMO[1] = {}
    return _MEMO[1]


def _foes(c: Mapping[str, Any]) -> frozenset[str]:
    """The ids of the characters of the other side (once per context)."""
    m = _memo(c)
    foes = m.get("foes")
    if foes is None:
        ch = _chars(c)
        side = c.get("side")
        foes = m["foes"] = frozenset([i for i in ch if ch[i].get("side") != side])
    return foes


def _hostile(c: Mapping[str, Any], other: str) -> bool:
    return other in _foes(c)


def _option_set(d: Decision) -> frozenset[str]:
    """The decision's option ids as a set (once per context)."""
    m = _memo(d.context)
    ids = m.get("option_set")
    if ids is None:
        ids = m["option_set"] = frozenset(d.option_ids)
    return ids


def _enemies_in(c: Mapping[str, Any], eid: str | None) -> list[str]:
    m = _memo(c)
    key = ("enemies", eid)
    out = m.get(key)
    if out is None:
        ch = _chars(c)
        out = m[key] = [i for i in (c.get("engagements") or {}).get(eid, []) if _hostile(c, i) and ch[i].get("able")]
    return out


def _low(x: Mapping[str, Any]) -> bool:
    """life ≤ 1/3 of base (D35 / D48 threshold)."""
    return 3 * int(x.get("life", 0)) <= int(x.get("life_base", 0))


def attack_score(a: Mapping[str, Any], c: Mapping[str, Any]) -> float:
    """Expected damage, roughly: average damage (vs the best legal target tag bonus) times a hit factor from the
    pool; area attacks count the enemies they can reach in the best engagement. Computed once per attack and
    decision (the policy compares the same attacks several times)."""
    m = _memo(c)
    key = ("score", id(a))
    hit = m.get(key)
    if hit is not None and hit[0] is a:
        return hit[1]
    score = _attack_score(a, c)
    m[key] = (a, score)  # keeps ``a`` alive, so its id is not reused while the memo lives
    return score


def _attack_score(a: Mapping[str, Any], c: Mapping[str, Any]) -> float:
    if a.get("no_damage"):
        return 0.5
    dmg = float(a.get("avg_damage", 0.0))
    bonus = a.get("bonus_vs_tag")
    ch = _chars(c)
    hostile = _foes(c)
    foes = [t for t in a.get("targets", []) if t in hostile]
    if bonus and any(bonus[0] in ch[t].get("tags", []) for t in foes):
        dmg += float(bonus[1])
    hit = min(1.0, 0.35 + 0.12 * int(a.get("pool", 0)))
    n = 1
    if a.get("target") == "area" and foes:
        per: dict[str, int] = {}
        for t in foes:
            e = ch[t].get("engagement")
            per[e] = per.get(e, 0) + 1
        n = max(per.values())
    elif a.get("target") == "scene_all":
        n = max(1, len(foes))
    return dmg * hit * n


def _affordable(a: Mapping[str, Any], me: Mapping[str, Any]) -> bool:
    """Never pay a cost that brings life or soul to 0 (the scripted side avoids its own zero trigger)."""
    cost = a.get("cost")
    if not cost:
        return True
    for s, n in cost.items():
        if s in ("life", "soul") and int(me.get(s, 0)) <= int(n):
            return False
    return True


def _spendable(a: Mapping[str, Any], c: Mapping[str, Any]) -> bool:
    """``_affordable``, and [HOUSE play] a PC keeps half its 【魂】 (rounded up) for the climax: outside the climax
    phase it pays no soul cost that would leave less."""
    me = _me(c)
    if not _affordable(a, me):
        return False
    n = int((a.get("cost") or {}).get("soul", 0))
    if not n or c.get("side") != "pc" or c.get("phase") in (None, "climax"):
        return True
    return int(me.get("soul", 0)) - n >= -(-int(me.get("soul_base", 0)) // 2)


def best_attack(c: Mapping[str, Any], *, legal_only: bool = False) -> dict[str, Any] | None:
    m = _memo(c)
    key = ("best", legal_only)
    if key not in m:
        m[key] = _best_attack(c, legal_only)
    return m[key]


def _best_attack(c: Mapping[str, Any], legal_only: bool) -> dict[str, Any] | None:
    atts = [a for a in c.get("attacks") or [] if _spendable(a, c) and not a.get("no_damage")]
    if legal_only:
        hostile = _foes(c)
        atts = [a for a in atts if not hostile.isdisjoint(a.get("targets", ()))]
    if not atts:
        return None
    return max(atts, key=lambda a: (attack_score(a, c), -int(sum((a.get("cost") or {}).values()))))


def _needs_to_move(c: Mapping[str, Any]) -> bool:
    best = best_attack(c)
    return best is not None and best.get("range") == "close" and not _enemies_in(c, c.get("engagement"))


def _most_enemies_dest(d: Decision, c: Mapping[str, Any], prefix: str) -> str | None:
    best: tuple[int, str] | None = None
    for o in d.option_ids:
        if not o.startswith(prefix):
            continue
        dest = o[len(prefix):]
        if dest == "new":
            continue
        n = len(_enemies_in(c, dest))
        if n and (best is None or n > best[0]):
            best = (n, o)
    return best[1] if best else None


# -- D29–D33 -------------------------------------------------------------------------------------------------------
def layout(d: Decision, s: Session) -> Any:
    return _first(d, "split")




def tie_order(d: Decision, s: Session) -> Any:
    """D31 / D32: roster / data order (the options come in that order)."""
    return d.option_ids[0]


def setup_feat(d: Decision, s: Session) -> Any:
    """D33: none, except ward / mist_form when engaged with an enemy (GM side: mist_form only with two or more PCs
    engaged, §11.7), blessing on the ally with the highest attack ability (keeping soul for an attack)."""
    c = d.context
    me = _me(c)
    ids = _option_set(d)
    if "feat:mist_form" in ids or "feat:ward" in ids:  # the enemies here matter only for these two
        foes = _enemies_in(c, c.get("engagement"))
        gm_side = c.get("side") != "pc"
        if "feat:mist_form" in ids and len(foes) >= (2 if gm_side else 1):
            return "feat:mist_form"
        if "feat:ward" in ids and foes and int(me.get("soul", 0)) > 3:
            return "feat:ward"
    bless = [o for o in d.option_ids if o.startswith("feat:blessing:")]
    if bless and int(me.get("soul", 0)) >= 6 and (c.get("phase") == "climax" or c.get("side") != "pc"):
        abilities = c.get("attack_abilities") or {}
        return max(bless, key=lambda o: (abilities.get(o.split(":")[2], 0),
                                         -bless.index(o)))
    return "none"


# -- D34 / D35 -----------------------------------------------------------------------------------------------------
def minor(d: Decision, s: Session) -> Any:
    """D34 (+ D48): a revitalizer when own life ≤ 1/3 base (an amplifier for soul); if the best attack is close and
    no enemy is here, move to the engagement with the most enemies; else a minor damage-boost feat for the coming
    attack; else none."""
    c = d.context
    me = _me(c)
    mine = f":{c.get('me')}"
    own = [o for o in d.option_ids if o.startswith("item:") and o.endswith(mine)]
    soul_low = 3 * int(me.get("soul", 0)) <= int(me.get("soul_base", 0))
    for want, low in (("revitalizer", _low(me)), ("amplifier", soul_low)):
        # D48: a revitalizer when own life ≤ 1/3 base; [HOUSE policy] likewise an amplifier for soul
        if not low or me.get("awakened"):
            continue
        for o in own:
            uid = o.split(":")[1]
            if any(it.get("uid") == uid and it.get("item") == want for it in c.get("items") or []):
                return o
    rescue = _rescue_dest(d, c, "move:")
    if rescue:
        return rescue
    rearm = _rearm(d, c)
    if rearm:
        return rearm
    # (the best attack is worked out only when an option depends on it: a move, or a damage-boost feat)
    if any(o.startswith("move:") for o in d.option_ids) and _needs_to_move(c):
        dest = _most_enemies_dest(d, c, "move:")
        if dest:
            return dest
    ids = _option_set(d)
    if "feat:silver_bullet" not in ids and "feat:all_out_attack" not in ids:
        return "none"
    best = best_attack(c, legal_only=True)
    if best is not None:
        if "feat:silver_bullet" in ids and "firearm" in (best.get("categories") or []):
            return "feat:silver_bullet"
        if "feat:all_out_attack" in ids and _affordable({"cost": (c.get("costs") or {}).get(
                "all_out_attack", {})}, me) and not _low(me):
            return "feat:all_out_attack"
    return "none"


#: heals that need the healer in the patient's engagement (range close); healing_prayer reaches the whole scene
CLOSE_HEALS = ("field_dressing", "first_aid")


def _close_heal(c: Mapping[str, Any]) -> bool:
    """The decider can heal someone else at close range now: a revitalizer left, or a close heal feat it can pay
    for without its own zero trigger."""
    if any(it.get("item") == "revitalizer" and (it.get("uses_left") or 0) > 0 for it in c.get("items") or []):
        return True
    ok = c.get("cost_ok") or {}
    me = _me(c)
    return any(ok.get(f) and _affordable({"cost": (c.get("costs") or {}).get(f, {})}, me) for f in CLOSE_HEALS)


def _rescue_dest(d: Decision, c: Mapping[str, Any], prefix: str) -> str | None:
    """[HOUSE play, beyond D34/D35] Go to a fallen ally: an ally who is 戦闘不能 (not dead, not awakened) in another
    engagement, and the decider carries a close-range heal (賦活剤, 《応急手当》, 《野戦治療》: healing by 1 point
    lifts 戦闘不能, AMB-27) → move (minor) or withdraw (major) into that engagement; D35's heal rule then treats the
    ally there. Without it a pair of PCs whose healer fell stays split: the one left standing cannot reach the
    other's revitalizer range, and the fight can run to the round cap."""
    opts = [o for o in d.option_ids if o.startswith(prefix)]
    if not opts or _memo(c).get("no_rescue"):
        return None
    me = _me(c)
    ch = _chars(c)
    mine = c.get("engagement")
    down = [i for i, x in ch.items() if i != c.get("me") and not _hostile(c, i) and not x.get("able")
            and not x.get("dead") and not x.get("awakened") and x.get("engagement") not in (None, mine)]
    if not down or me.get("awakened") or not _close_heal(c):
        _memo(c)["no_rescue"] = True
        return None
    for i in down:
        o = f"{prefix}{ch[i]['engagement']}"
        if o in opts:
            return o
    return None


def _rearm(d: Decision, c: Mapping[str, Any]) -> str | None:
    """[HOUSE play, beyond D34] Take a better weapon back in hand: when a weapon the decider owns cannot be used
    where it is (its hand was disabled by 痛打表 row 2, or it was put away) and a weapon swap puts it into a usable
    slot, and its expected damage beats every attack usable now by half again, swap it (minor action; a slot used
    for the first time costs 【燎】 1, §4.3). Without it a witch hunter whose gun hand was hit fights on with a knife
    against a defense it can hardly beat."""
    swaps = [o for o in d.option_ids if o.startswith("swap:")]
    if not swaps:
        return None
    usable = {a.get("source") for a in c.get("attacks") or []}
    now = best_attack(c)
    now_score = attack_score(now, c) if now is not None else 0.0
    items = {it.get("uid"): it for it in c.get("items") or []}
    best: tuple[float, str] | None = None
    for o in swaps:
        _, uid, _slot = o.split(":", 2)
        it = items.get(uid)
        w = (it or {}).get("weapon")
        if not w or uid in usable:
            continue
        pool = int(w.get("pool", 0))
        score = float(w.get("avg_damage", 0.0)) * min(1.0, 0.35 + 0.12 * pool)
        if score >= 1.5 * now_score + 0.5 and (best is None or score > best[0]):
            best = (score, o)
    return best[1] if best else None


def _heal_option(d: Decision, c: Mapping[str, Any]) -> str | None:
    ch = _chars(c)
    best: tuple[tuple[int, float], str] | None = None
    items: dict[str, Any] | None = None
    for o in d.option_ids:
        if not o.startswith(("feat:", "item:")):
            continue
        parts = o.split(":")
        if len(parts) != 3:
            continue
        what, tid = parts[1], parts[2]
        if parts[0] == "item":
            if items is None:  # uid → item id (the first item with that uid)
                items = {}
                for it in c.get("items") or []:
                    items.setdefault(it.get("uid"), it.get("item"))
            if items.get(what) != "revitalizer":
                continue
            what = "revitalizer"
        elif what not in HEALS:
            continue
        if tid not in ch or ch[tid].get("awakened") or ch[tid].get("dead"):
            continue
        x = ch[tid]
        if not _low(x):
            continue
        if what != "revitalizer" and not _affordable({"cost": (c.get("costs") or {}).get(what, {})}, _me(c)):
            continue
        key = (HEALS.index(what), int(x.get("life", 0)) / max(1, int(x.get("life_base", 1))))
        if best is None or key < best[0]:
            best = (key, o)
    return best[1] if best else None


def _sorcerer_brand(d: Decision, c: Mapping[str, Any]) -> bool:
    """§11.7: brand_of_malice first on the PC with most supernatural feats (while it has no 刻印)."""
    att = next((a for a in c.get("attacks") or [] if a.get("feat") == "brand_of_malice"), None)
    if att is None or "attack:brand_of_malice" not in d.option_ids or not _affordable(att, _me(c)):
        return False
    target = _brand_target(c, [t for t in att.get("targets", []) if _hostile(c, t)])
    return target is not None


def _brand_target(c: Mapping[str, Any], legal: list[str]) -> str | None:
    ch = _chars(c)
    foes = [t for t in legal if ch[t].get("side") == "pc" or _hostile(c, t)]
    if not foes:
        return None
    top = max(foes, key=lambda t: (ch[t].get("sn_feats", 0), -foes.index(t)))
    if "brand" in ch[top].get("statuses", []) or ch[top].get("sn_feats", 0) == 0:
        return None
    return top


def major(d: Decision, s: Session) -> Any:
    """D35: the forced release check; else heal an ally with life ≤ 1/3 base; else remove 束縛 when it needs to
    move, or 武器封じ on its only weapon; else attack (the best expected damage; the sorcerer brands first); else
    move toward the enemies if a close attack needs it; else pass."""
    c = d.context
    rel = [o for o in d.option_ids if o.startswith("release:")]
    if rel:
        return rel[0]
    heal = _heal_option(d, c)
    if heal:
        return heal
    rescue = _rescue_dest(d, c, "withdraw:") or _rescue_dest(d, c, "move:")
    if rescue:
        return rescue
    if "remove:bound" in d.option_ids and _needs_to_move(c):
        return "remove:bound"
    if "remove:weapon_sealed" in d.option_ids and not any(o.startswith("attack:") for o in d.option_ids):
        return "remove:weapon_sealed"
    if _sorcerer_brand(d, c):
        return "attack:brand_of_malice"
    offered = _option_set(d)
    hostile = _foes(c)
    atts = [a for a in c.get("attacks") or [] if f"attack:{a['source']}" in offered]
    atts = [a for a in atts if not hostile.isdisjoint(a.get("targets", ())) and _spendable(a, c)
            and not a.get("no_damage")]
    best = max(atts, key=lambda a: (attack_score(a, c), -int(sum((a.get("cost") or {}).values())))) if atts else None
    step_back = _withdraw_for_range(d, c, attack_score(best, c) if best else 0.0)
    if step_back:
        return step_back
    if best is not None:
        return f"attack:{best['source']}"
    if _needs_to_move(c):
        dest = _most_enemies_dest(d, c, "move:") or _most_enemies_dest(d, c, "withdraw:")
        if dest:
            return dest
    if "remove:poison" in d.option_ids:
        return "remove:poison"
    return _first(d, "pass")


def _withdraw_for_range(d: Decision, c: Mapping[str, Any], now: float) -> str | None:
    """[HOUSE policy, beyond §8] A fighter whose best attack is ranged, stuck in an engagement with enemies where
    its legal attacks are much weaker, withdraws to an engagement without enemies while an able ally stays to hold
    the enemies (close-range enemies then stay where they are, §11.7)."""
    if not any(o.startswith("withdraw:") for o in d.option_ids):
        return None  # nowhere to withdraw to (every way below ends in a withdraw option)
    best = best_attack(c)
    if best is None or best.get("range") == "close" or attack_score(best, c) < 1.5 * now + 0.5:
        return None
    ch = _chars(c)
    here = (c.get("engagements") or {}).get(c.get("engagement"), [])
    allies = [i for i in here if i != c.get("me") and not _hostile(c, i) and ch[i].get("able")]
    if not allies or not _enemies_in(c, c.get("engagement")):
        return None
    quiet = [o for o in d.option_ids if o.startswith("withdraw:") and o != "withdraw:new"
             and not _enemies_in(c, o.split(":", 1)[1])]
    if quiet:
        return quiet[0]
    return "withdraw:new" if "withdraw:new" in d.option_ids else None


def targets(d: Decision, s: Session) -> Any:
    """D36: single → the enemy with the lowest current life (brand_of_malice: the PC with most SN feats); area →
    the engagement with most enemies, then all its enemies; scene_all → all enemies."""
    c = d.context
    ch = _chars(c)
    stage = c.get("stage")
    if stage == "engagement":
        return max(d.option_ids, key=lambda e: (len(_enemies_in(c, e)), -d.option_ids.index(e)))
    foes = [o for o in d.option_ids if _hostile(c, o)]
    if stage == "members":
        return foes or d.option_ids[:1]
    if c.get("source_feat") == "brand_of_malice":
        t = _brand_target(c, d.option_ids)
        if t is not None:
            return t
    pool = foes or d.option_ids
    return min(pool, key=lambda t: (ch.get(t, {}).get("life", 0), pool.index(t)))


# -- D37–D42, D47, D57, D60 -------------------------------------------------------------------------------------------
def seal_item(d: Decision, s: Session) -> Any:
    dmg = d.context.get("damage") or {}
    return max(d.option_ids, key=lambda u: (dmg.get(u, 0), -d.option_ids.index(u)))




def blockade_opponent(d: Decision, s: Session) -> Any:
    bodies = d.context.get("bodies") or {}
    return max(d.option_ids, key=lambda b: (bodies.get(b, 0), -d.option_ids.index(b)))




def crit_hand(d: Decision, s: Session) -> Any:
    weapons = d.context.get("weapons") or {}
    for slot in ("right_hand", "left_hand"):
        if slot in d.option_ids and weapons.get(slot):
            return slot
    return d.option_ids[0]





#: [HOUSE play] completed rounds in which nobody lost 【命】 or 【魂】 before the scripted GM ends the fight (D47)
STALEMATE_ROUNDS = 4


def end_combat(d: Decision, s: Session) -> Any:
    """D47: continue (the automatic conditions of §11.6 end a fight), except [HOUSE play] a stalemate: after
    ``STALEMATE_ROUNDS`` full rounds in which nobody was harmed (a PC with both hands disabled against an enemy that
    cannot get through his defense), the GM ends it (§11.6 (d)), as a table would, instead of the round cap."""
    quiet = d.context.get("rounds_without_damage") if "end" in d.option_ids else None
    if quiet is not None and int(quiet) >= STALEMATE_ROUNDS:
        return "end"
    return _first(d, "none")

POLICY: dict[str, Callable[[Decision, Session], Any]] = {
    "cb.layout": layout,
    "cb.pc_order": tie_order,
    "cb.gm_order": tie_order,
    "cb.setup_feat": setup_feat,
    "cb.minor": minor,
    "cb.major": major,
    "cb.targets": targets,
    "cb.seal_item": seal_item,
    "cb.blockade_opponent": blockade_opponent,
    "cb.crit_hand": crit_hand,
    "cb.end": end_combat,
    "cb.crit_row6": lambda d, s: _first(d, "incapacitate"),
}

# the reaction windows: the system's default standing answers (engine.systems.yogaribito.standing), which the agent
# also declares (ScriptedAgent.standing_answers), so that the engine resolves them without asking
POLICY.update(standing_defaults(_STANDING, "cb."))
