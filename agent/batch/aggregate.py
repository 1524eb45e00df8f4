"""Streaming statistics over session summaries.

``Aggregator.add(summary)`` folds one summary in; ``merge(other)`` folds another aggregator in. Memory is flat in the
number of sessions: counters, integer sums and bounded histograms; the only per-session lists are seeds of failures,
stalls and the longest sessions, each capped (the smallest seeds / the largest values are kept, so the result does
not depend on the order sessions arrive in). Probabilities and latencies are summed as fixed-point integers, so
``merge`` is exactly commutative and associative and the report is the same for any split of the work.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from .summary import hooks_for

__all__ = ["Aggregator", "wilson", "mean_ci", "agent_stats", "llm_accounting", "KEEP_SEEDS", "P_SCALE", "WARN_LOSS_RATE",
           "WARN_Z"]

#: seeds kept per list (failures, stalls, longest sessions)
KEEP_SEEDS = 20
KEEP_LONGEST = 5
#: probabilities are summed as integers in units of 1 / P_SCALE (exact, order-independent sums)
P_SCALE = 1 << 32
#: histogram values are clipped to ±HIST_LIMIT (bounded memory whatever the data)
HIST_LIMIT = 1000
#: a loss label at or above this rate is a warning
WARN_LOSS_RATE = 0.9
#: |z| of observed vs theoretical successes above this is a warning (with at least WARN_MIN_CHECKS checks)
WARN_Z = 4.0
WARN_MIN_CHECKS = 30
#: an effect never used is a warning only if it was available in at least this many sessions
WARN_MIN_SESSIONS = 20
Z95 = 1.959963984540054


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion k/n (95% by default); (0, 1) when n is 0."""
    if n <= 0:
        return (0.0, 1.0)
    p = k / n
    z2 = z * z
    den = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / den
    lo = 0.0 if k <= 0 else max(0.0, centre - half)
    hi = 1.0 if k >= n else min(1.0, centre + half)
    return (lo, hi)


def mean_ci(n: int, s: float, ss: float, z: float = Z95) -> tuple[float, float, float]:
    """(mean, low, high) from count, sum and sum of squares (normal approximation)."""
    if n <= 0:
        return (0.0, 0.0, 0.0)
    m = s / n
    if n < 2:
        return (m, m, m)
    var = max(0.0, (ss - s * s / n) / (n - 1))
    half = z * math.sqrt(var / n)
    return (m, m - half, m + half)


def _r(x: float) -> float:
    return round(float(x), 6)


def agent_stats(agents: Iterable[Any]) -> dict[str, Any]:
    """What only the in-process LLM agents know (plain numbers): the median latency of their model calls, their
    illegal and unreadable replies, the decisions of their seats and how many the model was asked."""
    agents = list(agents)
    sums = [a.summary() for a in agents if hasattr(a, "summary")]
    latencies = [float(x) for a in agents for x in getattr(a, "latencies", [])]
    return {
        "median_latency_s": _r(statistics.median(latencies)) if latencies else None,
        "illegal": sum(int(s.get("illegal") or 0) for s in sums),
        "invalid": sum(int(s.get("invalid") or 0) for s in sums),
        "llm_seat_decisions": sum(int(s.get("decisions") or 0) for s in sums),
        "asked": sum(int(s.get("asked") or 0) for s in sums),
    }


def llm_accounting(llm: Mapping[str, int], decisions: int, agents: Mapping[str, Any]) -> dict[str, Any]:
    """Calls, tokens, re-asks, errors and fallbacks from the sessions' events (``llm``: the summed ``model_call`` and
    ``fallback`` counters), the median latency and illegal / unreadable replies from ``agent_stats``.
    ``illegal_per_100_decisions``: replies the rules refused or nobody could read (+ illegal answers that reached
    the session), per 100 decisions of the LLM seats; ``decisions``: every decision of the sessions."""
    illegal = int(agents.get("illegal") or 0) + int(llm.get("illegal", 0))
    invalid = int(agents.get("invalid") or 0)
    seat_decisions = int(agents.get("llm_seat_decisions") or 0)
    return {
        "calls": int(llm.get("calls", 0)),
        "prompt_tokens": int(llm.get("prompt_tokens", 0)),
        "completion_tokens": int(llm.get("completion_tokens", 0)),
        # prompt tokens the endpoint served from its prompt cache (only where it reports them)
        "cached_prompt_tokens": int(llm.get("cached_tokens", 0)),
        "tokens": int(llm.get("prompt_tokens", 0) + llm.get("completion_tokens", 0)),
        "median_latency_s": agents.get("median_latency_s"),
        "reasks": int(llm.get("reasks", 0)),
        "errors": int(llm.get("errors", 0)),
        "fallbacks": int(llm.get("fallbacks", 0)),
        "illegal": illegal,
        "invalid": invalid,
        "llm_seat_decisions": seat_decisions,
        "asked": int(agents.get("asked") or 0),
        "illegal_per_100_decisions": _r(100.0 * (illegal + invalid) / seat_decisions) if seat_decisions else 0.0,
        "decisions": int(decisions),
    }


def _add_counter(a: dict[str, Counter[str]], key: str, label: str, n: int = 1) -> None:
    a.setdefault(key, Counter())[label] += n


def _keep_smallest(items: list[dict[str, Any]], limit: int = KEEP_SEEDS) -> list[dict[str, Any]]:
    items.sort(key=lambda x: (x["seed"], str(x)))
    del items[limit:]
    return items


class Aggregator:
    """See the module docstring. ``meta``: scenario facts (id, system, path, title, scene_ids) fixed for the batch."""

    def __init__(self, meta: Mapping[str, Any] | None = None):
        self.meta: dict[str, Any] = dict(meta or {})
        self.runs = 0
        self.finished = 0
        self.failed = 0
        self.failures: list[dict[str, Any]] = []
        self.stalled = 0
        self.stalls: list[dict[str, Any]] = []
        self.caps: Counter[str] = Counter()
        self.endings: Counter[str] = Counter()
        self.pcs: dict[str, Counter[str]] = {}
        self.outcomes: dict[str, Counter[str]] = {}
        self.dec_n = 0
        self.dec_sum = 0
        self.dec_sumsq = 0
        #: reaction windows resolved by standing answers (not asked, so not in the decisions)
        self.std_sum = 0
        self.dec_min: int | None = None
        self.dec_max: int | None = None
        self.longest: list[dict[str, Any]] = []
        self.kinds: Counter[str] = Counter()
        self.kinds_sessions: Counter[str] = Counter()
        self.rules: Counter[str] = Counter()
        self.rules_sessions: Counter[str] = Counter()
        self.topics: Counter[str] = Counter()
        self.topics_sessions: Counter[str] = Counter()
        self.effects: Counter[str] = Counter()
        self.effects_sessions: Counter[str] = Counter()
        self.effects_available: Counter[str] = Counter()
        #: key -> [n, judged, succ, p_n, p_succ, p_sum (fixed point), p_var (fixed point)]
        self.checks: dict[str, list[int]] = {}
        self.scenes: Counter[str] = Counter()
        self.scene_visits: Counter[str] = Counter()
        #: key -> [histogram, n, sum, sumsq, min, max]
        self.res_end: dict[str, list[Any]] = {}
        #: key -> scene -> [n, sum, sumsq]
        self.res_scene: dict[str, dict[str, list[float]]] = {}
        self.llm: Counter[str] = Counter()
        #: ``agent_stats`` of the LLM agents of a batch that seated models (set on the batch total by the runner)
        self.llm_agents: dict[str, Any] = {}
        self.fallbacks = 0

    # -- folding in ----------------------------------------------------------------------------------------------
    def add_failure(self, seed: int, error: str, log: str | None = None) -> None:
        self.runs += 1
        self.failed += 1
        item: dict[str, Any] = {"seed": int(seed), "error": error}
        if log:
            item["log"] = log
        self.failures.append(item)
        _keep_smallest(self.failures)

    def add(self, s: Mapping[str, Any], log: str | None = None) -> None:
        self.runs += 1
        if s.get("finished"):
            self.finished += 1
        seed = int(s["seed"])
        caps = list(s.get("caps") or [])
        if caps:
            self.stalled += 1
            item: dict[str, Any] = {"seed": seed, "caps": caps}
            if log:
                item["log"] = log
            self.stalls.append(item)
            _keep_smallest(self.stalls)
            for c in caps:
                self.caps[c] += 1
        self.endings[str(s.get("ending"))] += 1
        for pc, label in (s.get("pcs") or {}).items():
            _add_counter(self.pcs, pc, str(label))
        for key, label in (s.get("outcomes") or {}).items():
            _add_counter(self.outcomes, key, str(label))
        d = int(s.get("decisions") or 0)
        self.dec_n += 1
        self.dec_sum += d
        self.dec_sumsq += d * d
        self.std_sum += int(s.get("standing") or 0)
        self.dec_min = d if self.dec_min is None else min(self.dec_min, d)
        self.dec_max = d if self.dec_max is None else max(self.dec_max, d)
        self.longest.append({"seed": seed, "decisions": d})
        self._trim_longest()
        for src, total, sess in (("decision_kinds", self.kinds, self.kinds_sessions), ("rules", self.rules, self.rules_sessions),
                                 ("topics", self.topics, self.topics_sessions), ("effects", self.effects, self.effects_sessions)):
            for k, v in (s.get(src) or {}).items():
                total[k] += int(v)
                sess[k] += 1
        for e in s.get("effects_available") or []:
            self.effects_available[e] += 1
        for key, c in (s.get("checks") or {}).items():
            acc = self.checks.setdefault(key, [0] * 7)
            acc[0] += int(c["n"])
            acc[1] += int(c["judged"])
            acc[2] += int(c["succ"])
            acc[3] += int(c["p_n"])
            acc[4] += int(c["p_succ"])
            acc[5] += int(round(float(c["p_sum"]) * P_SCALE))
            acc[6] += int(round(float(c["p_var"]) * P_SCALE))
        for sc in set(s.get("scenes") or []):
            self.scenes[sc] += 1
        for sc in s.get("scenes") or []:
            self.scene_visits[sc] += 1
        for key, v in (s.get("resources_end") or {}).items():
            acc2 = self.res_end.setdefault(key, [Counter(), 0, 0.0, 0.0, None, None])
            acc2[0][max(-HIST_LIMIT, min(HIST_LIMIT, int(round(v))))] += 1
            acc2[1] += 1
            acc2[2] += v
            acc2[3] += v * v
            acc2[4] = v if acc2[4] is None else min(acc2[4], v)
            acc2[5] = v if acc2[5] is None else max(acc2[5], v)
        for sc, vals in (s.get("resources_by_scene") or {}).items():
            for key, v in vals.items():
                acc3 = self.res_scene.setdefault(key, {}).setdefault(sc, [0, 0.0, 0.0])
                acc3[0] += 1
                acc3[1] += v
                acc3[2] += v * v
        for k, v in (s.get("llm") or {}).items():
            self.llm[k] += int(v)
        self.fallbacks += int(s.get("fallbacks") or 0)

    def _trim_longest(self) -> None:
        self.longest.sort(key=lambda x: (-x["decisions"], x["seed"]))
        del self.longest[KEEP_LONGEST:]

    def merge(self, o: Aggregator) -> Aggregator:
        if not self.meta:
            self.meta = dict(o.meta)
        self.runs += o.runs
        self.finished += o.finished
        self.failed += o.failed
        self.failures = _keep_smallest(self.failures + o.failures)
        self.stalled += o.stalled
        self.stalls = _keep_smallest(self.stalls + o.stalls)
        for mine, theirs in ((self.caps, o.caps), (self.endings, o.endings), (self.kinds, o.kinds),
                             (self.kinds_sessions, o.kinds_sessions), (self.rules, o.rules),
                             (self.rules_sessions, o.rules_sessions), (self.topics, o.topics),
                             (self.topics_sessions, o.topics_sessions), (self.effects, o.effects),
                             (self.effects_sessions, o.effects_sessions), (self.effects_available, o.effects_available),
                             (self.scenes, o.scenes), (self.scene_visits, o.scene_visits), (self.llm, o.llm)):
            mine.update(theirs)
        for mine_d, theirs_d in ((self.pcs, o.pcs), (self.outcomes, o.outcomes)):
            for k, c in theirs_d.items():
                mine_d.setdefault(k, Counter()).update(c)
        self.dec_n += o.dec_n
        self.dec_sum += o.dec_sum
        self.dec_sumsq += o.dec_sumsq
        self.std_sum += o.std_sum
        for v in (o.dec_min, o.dec_max):
            if v is not None:
                self.dec_min = v if self.dec_min is None else min(self.dec_min, v)
                self.dec_max = v if self.dec_max is None else max(self.dec_max, v)
        self.longest = self.longest + o.longest
        self._trim_longest()
        for key, chk in o.checks.items():
            acc_c = self.checks.setdefault(key, [0] * 7)
            for i, x in enumerate(chk):
                acc_c[i] += x
        for key, theirs_e in o.res_end.items():
            acc_e = self.res_end.setdefault(key, [Counter(), 0, 0.0, 0.0, None, None])
            acc_e[0].update(theirs_e[0])
            for i in (1, 2, 3):
                acc_e[i] += theirs_e[i]
            for i, pick in ((4, min), (5, max)):
                if theirs_e[i] is not None:
                    acc_e[i] = theirs_e[i] if acc_e[i] is None else pick(acc_e[i], theirs_e[i])
        for key, scenes in o.res_scene.items():
            mine_s = self.res_scene.setdefault(key, {})
            for sc, vals in scenes.items():
                acc_s = mine_s.setdefault(sc, [0, 0.0, 0.0])
                for i in range(3):
                    acc_s[i] += vals[i]
        self.fallbacks += o.fallbacks
        if not self.llm_agents:
            self.llm_agents = dict(o.llm_agents)
        return self

    # -- the report ----------------------------------------------------------------------------------------------
    @staticmethod
    def _rates(c: Counter[str], n: int) -> list[dict[str, Any]]:
        rows = []
        for label, k in sorted(c.items(), key=lambda x: (-x[1], x[0])):
            lo, hi = wilson(k, n)
            rows.append({"label": label, "count": k, "rate": _r(k / n if n else 0.0), "ci": [_r(lo), _r(hi)]})
        return rows

    def _freq(self, total: Counter[str], sess: Counter[str], n: int, name: str) -> list[dict[str, Any]]:
        return [{name: k, "total": v, "per_session": _r(v / n if n else 0.0), "sessions": sess[k],
                 "session_rate": _r(sess[k] / n if n else 0.0)}
                for k, v in sorted(total.items(), key=lambda x: (-x[1], x[0]))]

    def report(self) -> dict[str, Any]:
        n = self.runs - self.failed  # sessions with a summary
        scene_ids = [str(x) for x in self.meta.get("scene_ids") or []]
        scene_order = scene_ids + sorted(set(self.scenes) - set(scene_ids))
        dm, dlo, dhi = mean_ci(self.dec_n, self.dec_sum, self.dec_sumsq)
        checks = []
        for key in sorted(self.checks):
            c = self.checks[key]
            lo, hi = wilson(c[2], c[1])
            row: dict[str, Any] = {"check": key, "n": c[0], "judged": c[1], "successes": c[2],
                                   "observed_rate": _r(c[2] / c[1]) if c[1] else None, "ci": [_r(lo), _r(hi)] if c[1] else None,
                                   "theory_n": c[3], "theory_successes": c[4], "theory_observed_rate": None,
                                   "theory_rate": None, "theory_ci": None, "z": None}
            if c[3]:
                exp = c[5] / P_SCALE
                var = c[6] / P_SCALE
                tlo, thi = wilson(c[4], c[3])
                row.update(theory_observed_rate=_r(c[4] / c[3]), theory_rate=_r(exp / c[3]), theory_ci=[_r(tlo), _r(thi)],
                           z=_r((c[4] - exp) / math.sqrt(var)) if var > 0 else None)
            checks.append(row)
        res_end = {}
        for key in sorted(self.res_end):
            h, k, s, ss, lo_v, hi_v = self.res_end[key]
            m, lo, hi = mean_ci(k, s, ss)
            if lo_v is not None and hi_v is not None:  # the normal approximation can leave the observed range
                lo, hi = max(lo, lo_v), min(hi, hi_v)
            res_end[key] = {"n": k, "mean": _r(m), "ci": [_r(lo), _r(hi)], "min": lo_v, "max": hi_v,
                            "hist": {str(v): h[v] for v in sorted(h)}}
        res_time = {}
        for key in sorted(self.res_scene):
            per = self.res_scene[key]
            res_time[key] = [{"scene": sc, "n": int(per[sc][0]), "mean": _r(per[sc][1] / per[sc][0])}
                             for sc in scene_order if sc in per and per[sc][0]]
        llm: dict[str, Any] = dict(sorted(self.llm.items()))
        if self.llm_agents:
            llm.update(llm_accounting(self.llm, self.dec_sum, self.llm_agents))
        rep: dict[str, Any] = {
            "scenario": dict(self.meta),
            "sessions": {"runs": self.runs, "summarized": n, "finished": self.finished, "failed": self.failed,
                         "stalled": self.stalled},
            "endings": self._rates(self.endings, n),
            "pcs": {pc: self._rates(c, sum(c.values())) for pc, c in sorted(self.pcs.items())},
            "outcomes": {k: self._rates(c, sum(c.values())) for k, c in sorted(self.outcomes.items())},
            "decisions": {"mean": _r(dm), "ci": [_r(dlo), _r(dhi)], "min": self.dec_min, "max": self.dec_max,
                          "longest": list(self.longest),
                          "standing_mean": _r(self.std_sum / self.dec_n) if self.dec_n else 0.0},
            "decision_kinds": self._freq(self.kinds, self.kinds_sessions, n, "kind"),
            "rules": self._freq(self.rules, self.rules_sessions, n, "rule"),
            "topics": self._freq(self.topics, self.topics_sessions, n, "topic"),
            "effects": [{**row, "available_sessions": self.effects_available[row["effect"]]}
                        for row in self._freq(self.effects, self.effects_sessions, n, "effect")],
            "effects_never_fired": sorted(e for e in self.effects_available if not self.effects_sessions[e]),
            "checks": checks,
            "scenes": [{"scene": sc, "sessions": self.scenes[sc], "rate": _r(self.scenes[sc] / n if n else 0.0),
                        "ci": [_r(x) for x in wilson(self.scenes[sc], n)], "visits": self.scene_visits[sc]}
                       for sc in scene_order],
            "scenes_never_reached": [sc for sc in scene_ids if not self.scenes[sc]],
            "resources_end": res_end,
            "resources_over_time": res_time,
            "caps": dict(sorted(self.caps.items())),
            "stalled": {"count": self.stalled, "items": list(self.stalls)},
            "failures": {"count": self.failed, "items": list(self.failures)},
            "llm": llm,
            "fallbacks": self.fallbacks,
        }
        rep["warnings"] = self._warnings(rep, n)
        return rep

    def _warnings(self, rep: Mapping[str, Any], n: int) -> list[str]:
        w: list[str] = []
        losses = hooks_for(str(self.meta.get("system", ""))).losses
        if self.failed:
            seeds = ", ".join(str(f["seed"]) for f in self.failures[:5])
            w.append(f"{self.failed} of {self.runs} sessions raised an error (seeds {seeds}{', ...' if self.failed > 5 else ''}); "
                     "see Failures for the replay commands.")
        if self.stalled:
            seeds = ", ".join(str(f["seed"]) for f in self.stalls[:5])
            caps = ", ".join(f"{k} ×{v}" for k, v in sorted(self.caps.items()))
            w.append(f"{self.stalled} of {n} sessions hit a safety cap ({caps}); seeds {seeds}"
                     f"{', ...' if self.stalled > 5 else ''}: a fight or scene that cannot end?")
        if n:
            for sc in rep["scenes_never_reached"]:
                w.append(f"scene {sc!r} was never reached in {n} sessions.")
            groups: list[tuple[str, list[dict[str, Any]]]] = [("the ending", rep["endings"])]
            groups += [(f"PC {pc}", rows) for pc, rows in rep["pcs"].items()]
            groups += [(k, rows) for k, rows in rep["outcomes"].items()]
            for what, rows in groups:
                total = sum(r["count"] for r in rows)
                for r in rows:
                    if r["label"] in losses and total >= 10 and r["count"] / total >= WARN_LOSS_RATE:
                        w.append(f"{what} is {r['label']!r} in {r['rate']:.0%} of {total} sessions "
                                 f"(95% CI {r['ci'][0]:.0%}–{r['ci'][1]:.0%}): too hard?")
            for e in rep["effects_never_fired"]:
                if self.effects_available[e] < WARN_MIN_SESSIONS:
                    continue  # e.g. a replacement PC that played a few sessions
                w.append(f"effect {e} was available to a PC in {self.effects_available[e]} sessions and never used "
                         "(fine for a passive effect; otherwise nothing calls for it, or the seated policies never choose it).")
        for c in rep["checks"]:
            if c["z"] is not None and c["theory_n"] >= WARN_MIN_CHECKS and abs(c["z"]) > WARN_Z:
                w.append(f"check {c['check']}: observed success {c['theory_observed_rate']:.1%} over {c['theory_n']} plain rolls, "
                         f"theory {c['theory_rate']:.1%} (z = {c['z']:.1f}): the dice or the rule are not what the rules say.")
        if self.fallbacks:
            w.append(f"{self.fallbacks} answers fell back to the scripted policy after illegal answers.")
        return w
