"""One finished session → a small, picklable, JSON-able summary (what the batch aggregator needs, nothing more).

The events are read as the session keeps them (``(class, fields)`` tuples until someone materializes them), so a
summary costs no pydantic model construction. Per-system knowledge (how to read a check's success probability,
which resources matter, which outcomes are losses) lives in ``HOOKS``, keyed by system id; unknown systems get the
generic hooks (counts only).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from math import comb
from typing import Any

from engine.core.events import (
    CheckEvent,
    DecisionEvent,
    EndEvent,
    InfoEvent,
    ModelCallEvent,
    RollEvent,
    PhaseEvent,
    StateEvent,
)

__all__ = [
    "summarize",
    "SystemHooks",
    "HOOKS",
    "hooks_for",
    "CAP_TOPICS",
    "yogaribito_success_probability",
    "bloodberry_success_probability",
    "CheckEntry",
]

#: info topics that mean a safety cap cut something short
CAP_TOPICS = frozenset({"round_cap", "scene_cap"})
#: the label of a session the table stopped at its decision cap (a rules or policy loop)
DECISION_CAP = "decision_cap"

#: (check key, success or None if the check has no success, theoretical probability of the first roll or None if not
#: applicable, success of the first roll as rolled or None)
CheckEntry = tuple[str, bool | None, float | None, bool | None]


# -- exact probabilities ---------------------------------------------------------------------------------------------
@lru_cache(maxsize=4096)
def yogaribito_success_probability(pool: int, target: int) -> float:
    """夜狩り人 §5.2: n d6, success iff #(5 or 6) >= target, or at least two 6s (a critical always succeeds).

    Exact, by summing over (number of 6s, number of 5s): P(k6 sixes, k5 fives) is multinomial with p=1/6, 1/6, 4/6.
    A pool of 0 rolls nothing (success only if the target is 0 or less, as the engine evaluates it)."""
    if pool <= 0:
        return 1.0 if target <= 0 else 0.0
    total = 0
    for k6 in range(pool + 1):
        for k5 in range(pool - k6 + 1):
            if k6 >= 2 or k5 + k6 >= target:
                rest = pool - k6 - k5
                total += comb(pool, k6) * comb(pool - k6, k5) * 4**rest
    return total / 6**pool


@lru_cache(maxsize=4096)
def bloodberry_success_probability(pool: int, threshold: int) -> float:
    """ブラッドベリー §5.3 (judge.py): achievement = number of dice showing 5 or 6; a basic check succeeds iff
    achievement >= threshold. P(Binomial(pool, 1/3) >= threshold), exactly."""
    if threshold <= 0:
        return 1.0
    if pool <= 0:
        return 0.0
    good = sum(comb(pool, k) * 2 ** (pool - k) for k in range(threshold, pool + 1))
    return good / 3**pool


# -- per-system hooks ------------------------------------------------------------------------------------------------
# A check hook returns entries (key, final success or None, theoretical probability or None, raw success or None).
# "raw" is the success of the first roll as the dice fell (before 【運】, rerolls, effects and concessions): the
# only thing the exact probability describes. Comparing only rolls nobody touched would be biased (players spend
# luck and rerolls on failures), so the theory is always compared with the raw first roll.
Rolls = Mapping[str, list[int]]


def _generic_checks(check: str, data: Mapping[str, Any], rolls: Rolls) -> list[CheckEntry]:
    s = data.get("success")
    return [(check, bool(s) if isinstance(s, bool) else None, None, None)]


def _yogaribito_checks(check: str, data: Mapping[str, Any], rolls: Rolls) -> list[CheckEntry]:
    s = data.get("success")
    if not isinstance(s, bool):
        return [(check, None, None, None)]  # attack_result, damage, crit_table: results, not rolls
    pool, target = data.get("pool"), data.get("target")
    made = data.get("rolls") or []
    if check == "luck" or not isinstance(pool, int) or not isinstance(target, int) or data.get("cancelled"):
        return [(check, s, None, None)]  # "luck": the same roll again, after a deferred 【運】
    if pool <= 0:
        return [(check, s, yogaribito_success_probability(pool, target), target <= 0)]
    # one roll (two with a 【運】 reroll); 束縛 defense rolls twice and keeps the lower one: not a plain roll
    if len(made) != (2 if data.get("luck") == "reroll" else 1) or len(made[0]) != pool:
        return [(check, s, None, None)]
    first = made[0]
    raw = sum(1 for f in first if f == 6) >= 2 or sum(1 for f in first if f >= 5) >= target
    return [(check, s, yogaribito_success_probability(pool, target), raw)]


def _bloodberry_checks(check: str, data: Mapping[str, Any], rolls: Rolls) -> list[CheckEntry]:
    rollers = data.get("rollers")
    if not isinstance(rollers, list):
        return _generic_checks(check, data, rolls)
    kind = str(data.get("kind") or "")
    out: list[CheckEntry] = []
    for r in rollers:
        if not isinstance(r, Mapping):
            continue
        key = f"{check}:{kind}:{r.get('side', '')}" if kind == "opposed" else f"{check}:{kind}"
        s = bool(r.get("success"))
        pool, thr = r.get("pool"), r.get("threshold")
        first = rolls.get(f"{check}:{r.get('who')}") or []  # the judge rolls purpose "<check>:<who>" first
        if isinstance(pool, int) and isinstance(thr, int) and pool > 0 and len(first) >= pool and not r.get("abandoned"):
            raw = sum(1 for f in first[:pool] if f >= 5) >= thr
            out.append((key, s, bloodberry_success_probability(pool, thr), raw))
        else:  # abandoned, not rolled (unopposed), no threshold
            out.append((key, s, None, None))
    return out


def _current_stats(stats: tuple[str, ...], where: str) -> Callable[[Mapping[str, Any], str], dict[str, float]]:
    def read(snap: Mapping[str, Any], pc: str) -> dict[str, float]:
        ch = ((snap.get("table") or {}).get("chars") or {}).get(pc) or {}
        out: dict[str, float] = {}
        for st in stats:
            src = ch.get(where) if st in (ch.get(where) or {}) else ch
            v = (src or {}).get(st)
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                out[st] = v
        return out

    return read


def _yogaribito_outcomes(outcome: Mapping[str, Any]) -> dict[str, str]:
    out: dict[str, str] = {}
    for fid, res in (outcome.get("fights") or {}).items():
        out[f"fight {fid}"] = str(res)
    return out


def _bloodberry_outcomes(outcome: Mapping[str, Any]) -> dict[str, str]:
    out: dict[str, str] = {}
    for pc, info in (outcome.get("pcs") or {}).items():
        if isinstance(info, Mapping):
            for i, v in enumerate(info.get("victory") or []):
                if isinstance(v, Mapping):
                    out[f"victory goal {pc}[{i}]"] = "achieved" if v.get("achieved") else "not achieved"
    return out


def _yogaribito_feats(snap: Mapping[str, Any], pcs: list[str]) -> list[str]:
    chars = (snap.get("table") or {}).get("chars") or {}
    return sorted(f"{pc}:{f}" for pc in pcs for f in (chars.get(pc) or {}).get("feats") or [] if isinstance(f, str))


def _yogaribito_check_effects(check: str, data: Mapping[str, Any]) -> list[str]:
    """Constant feats that applied (``<who>:<feat>``): a static dice modifier of a check (``mods``), or a damage
    modifier of a damage determination (``parts``: the target's for damage received, the attacker's for dealt)."""
    from engine.systems.yogaribito.arms import FEATS

    out: list[str] = []
    if check == "damage":
        for part in data.get("parts") or []:
            f = FEATS.get(part[0]) if part else None
            if f is not None and f.timing == "constant" and f.damage_mods:
                received = any(m.direction == "received" for m in f.damage_mods)
                out.append(f"{data.get('target' if received else 'attacker', '?')}:{f.id}")
        return out
    for mod in data.get("mods") or []:
        f = FEATS.get(mod[0]) if mod else None
        if f is not None and f.timing == "constant":
            out.append(f"{data.get('who', '?')}:{f.id}")
    return out


def _bloodberry_effect_spent(path: str, new: Any) -> str | None:
    # §7.3: declaring a sublimated skill's effect spends it (``<pc>.skill.<id>.effect``: available → spent)
    parts = path.split(".")
    if len(parts) == 4 and parts[1] == "skill" and parts[3] == "effect" and new == "spent":
        return f"{parts[0]}:{parts[2]}"
    return None


def _bloodberry_sublimated(snap: Mapping[str, Any], pcs: list[str]) -> list[str]:
    chars = (snap.get("table") or {}).get("chars") or {}
    return sorted(f"{pc}:{sk['id']}" for pc in pcs for sk in (chars.get(pc) or {}).get("skills") or []
                  if isinstance(sk, Mapping) and sk.get("sublimated") and isinstance(sk.get("id"), str))


def _pc_label(v: Any) -> str:
    if isinstance(v, Mapping):
        return str(v.get("status", "?"))
    return str(v)


@dataclass(frozen=True)
class SystemHooks:
    #: check event → entries (key, success, theoretical probability)
    checks: Callable[[str, Mapping[str, Any], Rolls], list[CheckEntry]] = _generic_checks
    #: resources of a PC worth following (state paths ``<pc>.<stat>``)
    stats: tuple[str, ...] = ()
    #: final values from the end snapshot
    read_stats: Callable[[Mapping[str, Any], str], dict[str, float]] | None = None
    #: extra named outcomes (fights, goals) from the session outcome
    outcomes: Callable[[Mapping[str, Any]], dict[str, str]] = lambda o: {}
    #: outcome labels that are a loss for the PCs (warned about when they dominate)
    losses: frozenset[str] = frozenset()
    #: ending labels that mean a safety cap ended the session
    cap_endings: frozenset[str] = frozenset()
    #: fight / contest labels that mean a safety cap
    cap_outcomes: frozenset[str] = frozenset()
    #: info topics that are rules/effects firing (counted by data[field]) — e.g. feats paid for
    effect_topics: Mapping[str, str] = field(default_factory=dict)
    #: a state change that is an effect firing: (path, new value) -> ``<who>:<effect>`` or None
    effect_from_state: Callable[[str, Any], str | None] | None = None
    #: a check event that shows effects applying: (check, data) -> ``<who>:<effect>`` entries (constant feats)
    effects_from_check: Callable[[str, Mapping[str, Any]], list[str]] | None = None
    #: the effects the PCs could fire (``<pc>:<effect>``), from the end snapshot
    available_effects: Callable[[Mapping[str, Any], list[str]], list[str]] | None = None
    #: the session phase whose start freezes the "end" values (夜狩り人: ``afterplay`` — scenario end restores every
    #: survivor to base, which would hide what the scenario did to them); None: the end snapshot
    end_before_phase: str | None = None


_YOGARIBITO_STATS = ("life", "soul", "luck", "wealth", "kagaribi")
_BLOODBERRY_STATS = ("passion", "grace", "maturity", "willpower")

HOOKS: dict[str, SystemHooks] = {
    "yogaribito": SystemHooks(
        checks=_yogaribito_checks,
        end_before_phase="afterplay",
        stats=_YOGARIBITO_STATS,
        read_stats=_current_stats(_YOGARIBITO_STATS, "current"),
        outcomes=_yogaribito_outcomes,
        losses=frozenset({"objective_failed", "pcs_lose", "dead", "doomed", "escaped"}),
        cap_outcomes=frozenset({"round_cap"}),
        effect_topics={"feat": "feat", "auto_feat": "feat", "cost": "feat"},
        effects_from_check=_yogaribito_check_effects,
        available_effects=_yogaribito_feats,
    ),
    "bloodberry": SystemHooks(
        checks=_bloodberry_checks,
        stats=_BLOODBERRY_STATS,
        read_stats=_current_stats(_BLOODBERRY_STATS, "abilities"),
        outcomes=_bloodberry_outcomes,
        losses=frozenset({"defeat", "rival_victory", "dropped", "cursed", "not achieved"}),
        cap_endings=frozenset({"withdrawn"}),
        effect_from_state=_bloodberry_effect_spent,
        available_effects=_bloodberry_sublimated,
    ),
}
GENERIC = SystemHooks()


def hooks_for(system_id: str) -> SystemHooks:
    return HOOKS.get(system_id, GENERIC)


# -- reading the events ----------------------------------------------------------------------------------------------
def _raw_events(session: Any) -> Iterator[tuple[type, Mapping[str, Any]]]:
    """(event class, fields) without building pydantic models for the events the session kept lazily."""
    for e in getattr(session, "_events", None) or session.events:
        if type(e) is tuple:
            yield e[0], e[1]
        else:
            yield type(e), e.__dict__


def summarize(session: Any, *, stall: str | None = None, table: Any = None) -> dict[str, Any]:
    """A small summary of one session (finished, or stopped by the table's decision cap: ``stall``)."""
    system = session.system.id
    hooks = hooks_for(system)
    outcome: dict[str, Any] = dict(session.outcome or {})
    pcs_out = outcome.get("pcs") if isinstance(outcome.get("pcs"), Mapping) else {}
    pcs = list(pcs_out) if pcs_out else [a for a in session.game.actors() if session.actor_role(a) == "pc"]
    tracked = {f"{pc}.{st}": (pc, st) for pc in pcs for st in hooks.stats}

    kinds: Counter[str] = Counter()
    rules: Counter[str] = Counter()
    topics: Counter[str] = Counter()
    effects: Counter[str] = Counter()
    checks: dict[str, list[Any]] = {}
    scenes: list[str] = []
    rolls: dict[str, list[int]] = {}
    caps: list[str] = []
    first_old: dict[str, Any] = {}
    current: dict[str, Any] = {}
    at_scene: list[tuple[str, dict[str, Any]]] = []
    llm = {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "latency_us": 0, "reasks": 0, "errors": 0,
           "fallbacks": 0}

    frozen: dict[str, Any] | None = None  # values when hooks.end_before_phase began
    for cls, f in _raw_events(session):
        if cls is PhaseEvent:
            if frozen is None and hooks.end_before_phase is not None and f.get("machine") == "session" \
                    and f.get("dst") == hooks.end_before_phase:
                frozen = dict(current)
        elif cls is DecisionEvent:
            kinds[f["kind"]] += 1
        elif cls is StateEvent:
            rules[f.get("rule") or "(no rule)"] += 1
            path = f["path"]
            if hooks.effect_from_state is not None:
                eid = hooks.effect_from_state(path, f.get("new"))
                if eid:
                    effects[eid] += 1
            if path in tracked:
                if path not in first_old:
                    first_old[path] = f.get("old")
                current[path] = f.get("new")
        elif cls is InfoEvent:
            topic = f["topic"]
            topics[topic] += 1
            data = f.get("data") or {}
            if topic == "scene" and data.get("scene") is not None:
                sid = str(data["scene"])
                scenes.append(sid)
                at_scene.append((sid, dict(current)))
            elif topic in CAP_TOPICS:
                caps.append(topic)
            elif topic == "fallback":
                llm["fallbacks"] += 1
            if topic in hooks.effect_topics:
                eid = data.get(hooks.effect_topics[topic])
                if eid:
                    effects[f"{data.get('who', '?')}:{eid}"] += 1
        elif cls is RollEvent:
            rolls.setdefault(f["purpose"], []).append(f["value"])
        elif cls is CheckEvent:
            if hooks.effects_from_check is not None:
                for eid in hooks.effects_from_check(f["check"], f.get("data") or {}):
                    effects[eid] += 1
            entries = hooks.checks(f["check"], f.get("data") or {}, rolls)
            rolls = {}
            for key, success, p, raw in entries:
                c = checks.setdefault(key, [0, 0, 0, 0, 0, 0.0, 0.0])  # n, judged, succ, p_n, p_succ, p_sum, p_var
                c[0] += 1
                if success is not None:
                    c[1] += 1
                    c[2] += int(success)
                if p is not None and raw is not None:
                    c[3] += 1
                    c[4] += int(raw)
                    c[5] += p
                    c[6] += p * (1.0 - p)
        elif cls is ModelCallEvent:
            d = f.get("data") or {}
            tok = d.get("tokens") or {}
            llm["calls"] += 1
            llm["prompt_tokens"] += int(tok.get("prompt") or 0)
            llm["completion_tokens"] += int(tok.get("completion") or 0)
            llm["latency_us"] += int(round(float(d.get("latency_s") or 0.0) * 1e6))
            llm["reasks"] += int((d.get("reask_index") or 0) > 0)
            llm["errors"] += int(bool(d.get("error")))
        elif cls is EndEvent:
            pass
    llm["illegal"] = int(getattr(session, "illegal_answers", 0))

    # resources: the end values from the snapshot; the value before the first change is that change's ``old``
    end: dict[str, float] = {}
    snap: Mapping[str, Any] = {}
    if (hooks.read_stats is not None and tracked) or hooks.available_effects is not None:
        try:
            snap = session.snapshot()
        except Exception:
            snap = {}
    if hooks.read_stats is not None and tracked:
        for pc in pcs:
            for st, v in hooks.read_stats(snap, pc).items():
                end[f"{pc}.{st}"] = v
    initial: dict[str, Any] = {k: first_old.get(k, end.get(k)) for k in tracked}
    if frozen is not None:  # the values when the end phase began (replacement PCs made later keep the snapshot's)
        for k in list(end):
            val = frozen.get(k, initial.get(k) if k in first_old else end[k])
            if isinstance(val, (int, float)) and not isinstance(val, bool):
                end[k] = val
    # over the scenes: the scenario's own PCs (a replacement PC joins after the session; it has no trajectory)
    listed = {str(getattr(p, "id", "")) for p in getattr(session.scenario.model, "pcs", None) or []}
    from_start = [k for k, (pc, _) in tracked.items() if not listed or pc in listed]
    by_scene: dict[str, dict[str, float]] = {}
    for sid, cur in at_scene:
        if sid in by_scene:
            continue  # first visit
        vals: dict[str, float] = {}
        for k in from_start:
            val = cur.get(k, initial.get(k))
            if isinstance(val, (int, float)) and not isinstance(val, bool):
                vals[k] = val
        by_scene[sid] = vals

    ending = str(outcome.get("ending")) if outcome.get("ending") is not None else ("(stalled)" if stall else "(none)")
    named = hooks.outcomes(outcome) if outcome else {}
    if ending in hooks.cap_endings:
        caps.append(f"ending {ending}")
    capped = [f"{k}: {v}" for k, v in named.items() if v in hooks.cap_outcomes]
    if capped:  # the outcome names the fight; the info notice said the same thing without the name
        caps = [c for c in caps if c not in hooks.cap_outcomes] + capped
    if stall:
        caps.append(DECISION_CAP)
    return {
        "system": system,
        "scenario": session.scenario.id,
        "seed": int(session.seed),
        "ending": ending,
        "finished": session.outcome is not None,
        "pcs": {pc: _pc_label(pcs_out.get(pc)) for pc in pcs} if pcs_out else {},
        "outcomes": named,
        "decisions": int(session.decisions),
        "decision_kinds": dict(kinds),
        "rules": dict(rules),
        "topics": dict(topics),
        "effects": dict(effects),
        "effects_available": hooks.available_effects(snap, pcs) if hooks.available_effects is not None else [],
        "checks": {k: {"n": v[0], "judged": v[1], "succ": v[2], "p_n": v[3], "p_succ": v[4], "p_sum": v[5],
                       "p_var": v[6]}
                   for k, v in checks.items()},
        "scenes": scenes,
        "resources_end": end,
        "resources_by_scene": by_scene,
        "caps": sorted(set(caps)),
        "stall": stall,
        "llm": llm,
        "fallbacks": int(getattr(table, "fallbacks", 0) or 0),
    }
