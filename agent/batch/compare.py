"""Compare seat policies on the same seeds (``trpg compare``): a paired design.

Every policy plays the same sessions (the seeds of ``run_batch``: ``seed_i = S * 1_000_003 + i``), so a difference
between two policies is measured seed by seed and the dice's own variance largely cancels. Per policy an
``Aggregator`` gives the usual rates and means; beside it a few numbers per seed are kept (the ending, whether a
safety cap stopped the session, the number of decisions and the PCs' resources at the end summed per stat) to
compute paired differences against the first policy.

Paired intervals (95%): a normal approximation on the per-seed differences ``d_i = y_i - x_i``: mean ± 1.96 · sd / √n.
For a binary outcome (an ending, a cap) ``d_i`` is -1, 0 or 1 and this is the Wald interval of the difference of
two paired proportions, ``(c - b) / n`` with the discordant pairs b, c. It is exactly zero-width when the two
policies agree on every seed (a policy compared with itself). With fewer than about 30 seeds, or discordant pairs
in single digits, it is optimistic: read it as a rough guide, the per-policy Wilson intervals stay valid.

Work is split in chunks of consecutive seeds; one task plays every policy on each of its seeds and returns one
``Aggregator`` per policy and the per-seed numbers (a few per seed). Results are put back in seed order, so the
numbers are the same for any executor and any ``jobs``. Rule options (``config``, as ``trpg play --config``) are
checked before any session runs and apply to every session of every policy.

LLM policies (``llm``, ``llm:<model>``): when any policy seats a model, every session runs in this process on one
asyncio event loop (``Table.run_async``; model calls are awaited), at most ``jobs`` sessions at once (the endpoint's
concurrency limit; ``executor`` is not used), with one agent (one model client) per compared policy and seat policy
shared by all its sessions. Their accounting (calls, tokens, median latency, re-asks, fallbacks, illegal and
unreadable replies per 100 decisions of the LLM seats) is reported per policy.
"""

from __future__ import annotations

import asyncio
import concurrent.futures as cf
import contextlib
import math
from array import array
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .aggregate import Z95, Aggregator, agent_stats, llm_accounting, mean_ci, wilson
from .runner import (
    SEED_SCHEME,
    BatchError,
    _executor,
    _scenario,
    check_config,
    check_seats,
    config_text,
    default_chunk,
    scenario_meta,
    session_seeds,
)
from .sessions import SharedAgents, play, play_async, run_limited

__all__ = ["PolicySpec", "parse_policy", "parse_policies", "compare", "compare_chunk", "paired_diff", "CompareError",
           "write_compare", "render_html", "rich_tables", "table_rows",
           "METHOD", "LLMFactories"]

METHOD = ("paired differences vs the first policy: normal approximation on per-seed differences "
          "(mean ± 1.96·sd/√n; for binary outcomes the Wald interval of paired proportions); "
          "per-policy rates: Wilson score intervals; per-policy means: normal approximation")
FAILED = "(failed)"
STALLED = "safety cap hit"
DECISIONS = "decisions"

#: per compared policy name: builds the agent of an LLM seat policy ("llm" or "llm:<model>")
LLMFactories = Mapping[str, Callable[[str], Any]]


class CompareError(BatchError):
    pass


@dataclass(frozen=True)
class PolicySpec:
    name: str
    seats: tuple[str, ...]

    @property
    def uses_llm(self) -> bool:
        from ..table import is_llm_policy

        return any(is_llm_policy(s.partition("=")[2]) for s in self.seats)

    def __str__(self) -> str:
        return f"{self.name}:{','.join(self.seats)}"


def parse_policy(text: str) -> PolicySpec:
    """``NAME:ROLE=POLICY[,ROLE=POLICY...]`` (seats as for ``trpg play --seat``; human seats are refused)."""
    from ..table import SeatError, SeatSpec

    name, sep, rest = text.partition(":")
    name = name.strip()
    if not sep or not name or "=" in name or not rest.strip():
        raise CompareError(f"bad --policy {text!r}: write NAME:ROLE=POLICY[,ROLE=POLICY...], "
                           "e.g. base:all=scripted or rnd:all=scripted,pcs=random")
    items = [x.strip() for x in rest.split(",") if x.strip()]
    try:
        spec = SeatSpec.parse(items)
    except SeatError as e:
        raise CompareError(f"bad --policy {text!r}: {e}") from None
    for who, pol in spec.entries:
        if pol == "human":
            raise CompareError(f"bad --policy {text!r}: {who}=human: compare seats no humans")
    return PolicySpec(name, tuple(f"{w}={p}" for w, p in spec.entries))


def parse_policies(texts: Sequence[str]) -> list[PolicySpec]:
    specs = [parse_policy(t) for t in texts]
    if len(specs) < 2:
        raise CompareError("give at least two --policy NAME:ROLE=POLICY,... to compare")
    names = [s.name for s in specs]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise CompareError(f"--policy names must differ: {', '.join(dup)} given twice")
    return specs


# -- one seed, one policy --------------------------------------------------------------------------------------------
def _record(s: Mapping[str, Any] | None) -> tuple[str, bool, float, dict[str, float]]:
    """(ending, stalled, decisions, resources at the end summed over the PCs per stat) of a summary (None: failed)."""
    if s is None:
        return FAILED, False, math.nan, {}
    res: dict[str, float] = {}
    for key, v in (s.get("resources_end") or {}).items():
        stat = str(key).rsplit(".", 1)[-1]
        res[stat] = res.get(stat, 0.0) + float(v)
    return str(s.get("ending")), bool(s.get("caps")), float(s.get("decisions") or 0), res


#: (seed index, policy index, ending, stalled, decisions, resources)
SeedRow = tuple[int, int, str, bool, float, dict[str, float]]


def compare_chunk(scenario_path: str, policies: Sequence[tuple[str, Sequence[str]]], seeds: Sequence[tuple[int, int]],
                  export_path: str | None = None, llm: LLMFactories | None = None,
                  max_decisions: int | None = None,
                  config: Mapping[str, Any] | None = None) -> tuple[list[Aggregator], list[SeedRow]]:
    """One task: play every policy on each ``(index, seed)`` with the rule options ``config``; one ``Aggregator`` per
    policy and the per-seed rows.

    ``export_path``: write every decision there as JSON lines (seed by seed, policies in order)."""
    from .export import DecisionWriter

    meta = scenario_meta(_scenario(scenario_path))
    aggs = [Aggregator(meta) for _ in policies]
    rows: list[SeedRow] = []
    with contextlib.ExitStack() as stack:
        writer = DecisionWriter(stack.enter_context(open(export_path, "w", encoding="utf-8"))) if export_path else None
        for i, seed in seeds:
            for p, (name, seats) in enumerate(policies):
                hook = writer.for_session(name, seed) if writer is not None else None
                try:
                    s = play(scenario_path, seats, seed, llm=(llm or {}).get(name), on_decision=hook,
                             max_decisions=max_decisions, config=config)
                except Exception as e:  # a rules bug: recorded with its seed
                    aggs[p].add_failure(seed, f"{type(e).__name__}: {e}")
                    rows.append((i, p, *_record(None)))
                    continue
                aggs[p].add(s)
                rows.append((i, p, *_record(s)))
    return aggs, rows


# -- statistics ------------------------------------------------------------------------------------------------------
def _r(x: float) -> float:
    return round(float(x), 6)


def paired_diff(xs: Sequence[float], ys: Sequence[float], *, binary: bool = False) -> dict[str, Any]:
    """Mean of ``y_i - x_i`` over the pairs where both are numbers, with a 95% normal interval (see the module doc);
    ``binary``: the interval is clipped to [-1, 1]."""
    d = [y - x for x, y in zip(xs, ys, strict=True) if not (math.isnan(x) or math.isnan(y))]
    n = len(d)
    if n == 0:
        return {"n": 0, "diff": None, "ci": None}
    m = math.fsum(d) / n
    if n < 2:
        return {"n": n, "diff": _r(m), "ci": [_r(m), _r(m)]}
    var = math.fsum((x - m) ** 2 for x in d) / (n - 1)
    half = Z95 * math.sqrt(var / n)
    lo, hi = m - half, m + half
    if binary:
        lo, hi = max(-1.0, lo), min(1.0, hi)
    return {"n": n, "diff": _r(m), "ci": [_r(lo), _r(hi)]}


def _mean(xs: Sequence[float]) -> dict[str, Any]:
    v = [x for x in xs if not math.isnan(x)]
    if not v:
        return {"n": 0, "mean": None, "ci": None}
    s = math.fsum(v)
    ss = math.fsum(x * x for x in v)
    m, lo, hi = mean_ci(len(v), s, ss)
    lo, hi = max(lo, min(v)), min(hi, max(v))  # the normal approximation can leave the observed range
    return {"n": len(v), "mean": _r(m), "ci": [_r(lo), _r(hi)]}


class _Store:
    """The per-seed numbers: for each policy an ending code, a stalled flag and a few floats per seed."""

    def __init__(self, n_policies: int, runs: int):
        self.runs = runs
        self.labels: dict[str, int] = {}
        self.ending = [array("i", [-1]) * runs for _ in range(n_policies)]
        self.stalled = [array("b", [0]) * runs for _ in range(n_policies)]
        self.numeric: dict[str, list[array[float]]] = {}
        self._n = n_policies

    def _col(self, key: str) -> list[array[float]]:
        col = self.numeric.get(key)
        if col is None:
            col = self.numeric[key] = [array("d", [math.nan]) * self.runs for _ in range(self._n)]
        return col

    def add(self, row: SeedRow) -> None:
        i, p, ending, stalled, decisions, res = row
        self.ending[p][i] = self.labels.setdefault(ending, len(self.labels))
        self.stalled[p][i] = int(stalled)
        self._col(DECISIONS)[p][i] = decisions
        for stat, v in res.items():
            self._col(f"{stat} at end (sum over PCs)")[p][i] = v

    def binary(self, p: int) -> dict[str, list[float]]:
        out = {f"ending {label}": [float(c == code) for c in self.ending[p]] for label, code in sorted(self.labels.items())}
        out[STALLED] = [float(x) for x in self.stalled[p]]
        return out


# -- the comparison --------------------------------------------------------------------------------------------------
Progress = Callable[[int, int], None]


def _chunks(seeds: list[tuple[int, int]], size: int) -> Iterator[list[tuple[int, int]]]:
    for i in range(0, len(seeds), size):
        yield seeds[i : i + size]


def _llm_accounting(agg: Aggregator, agents: Sequence[Any]) -> dict[str, Any]:
    """The policy's LLM accounting (``aggregate.llm_accounting``): its sessions' events and its agents' numbers."""
    return llm_accounting(agg.llm, agg.dec_sum, agent_stats(agents))


async def _compare_async(scenario_path: str, policies: Sequence[tuple[str, Sequence[str]]],
                         seeds: Sequence[tuple[int, int]], parts_dir: Path | None, llm: LLMFactories, limit: int,
                         max_decisions: int | None, fold: Callable[[tuple[list[Aggregator], list[SeedRow]], int], None],
                         config: Mapping[str, Any] | None = None) -> list[str]:
    """Every (seed, policy) session on one event loop, at most ``limit`` at once (the model endpoint's concurrency;
    ``sessions.run_limited``). Export lines go to one part file per session (returned in seed order, policies in
    order)."""
    from .export import DecisionWriter

    meta = scenario_meta(_scenario(scenario_path))
    jobs = ((i, seed, p) for i, seed in seeds for p in range(len(policies)))  # one queue, taken lazily
    remaining = {i: len(policies) for i, _ in seeds}

    async def one(job: tuple[int, int, int]) -> None:
        i, seed, p = job
        name, seats = policies[p]
        agg = Aggregator(meta)
        with contextlib.ExitStack() as stack:
            hook = None
            if parts_dir is not None:
                part = parts_dir / f"s{i:09d}-p{p:03d}.jsonl"
                writer = DecisionWriter(stack.enter_context(open(part, "w", encoding="utf-8")))
                hook = writer.for_session(name, seed)
            try:
                s = await play_async(scenario_path, seats, seed, llm=llm.get(name), on_decision=hook,
                                     max_decisions=max_decisions, config=config)
            except Exception as e:  # a rules bug: recorded with its seed
                agg.add_failure(seed, f"{type(e).__name__}: {e}")
                row: SeedRow = (i, p, *_record(None))
            else:
                agg.add(s)
                row = (i, p, *_record(s))
        aggs = [agg if q == p else Aggregator(meta) for q in range(len(policies))]
        remaining[i] -= 1
        fold((aggs, [row]), 1 if remaining[i] == 0 else 0)

    await run_limited(jobs, limit, one)
    if parts_dir is None:
        return []
    return [str(parts_dir / f"s{i:09d}-p{p:03d}.jsonl") for i, _ in seeds for p in range(len(policies))]


def _run_chunks(executor: str, jobs: int, scheduler: str | None, path: str, pol_args: Sequence[tuple[str, Sequence[str]]],
                chunks: Sequence[list[tuple[int, int]]], part_paths: Sequence[str | None], max_decisions: int | None,
                fold: Callable[[tuple[list[Aggregator], list[SeedRow]], int], None],
                config: Mapping[str, Any] | None = None) -> None:
    cfg = dict(config or {})
    with _executor(executor, jobs, scheduler) as ex:
        if ex is None:
            for part, out in zip(chunks, part_paths, strict=True):
                fold(compare_chunk(path, pol_args, part, out, None, max_decisions, cfg), len(part))
        else:
            futures = {ex.submit(compare_chunk, path, pol_args, part, out, None, max_decisions, cfg): len(part)
                       for part, out in zip(chunks, part_paths, strict=True)}
            for fut in cf.as_completed(futures):
                fold(fut.result(), futures.pop(fut))


def compare(scenario_path: str | Path, policies: Sequence[PolicySpec], runs: int, seed: int = 0, jobs: int = 1,
            executor: str = "local", scheduler: str | None = None, chunk: int | None = None,
            export_decisions: str | Path | None = None, llm: LLMFactories | None = None,
            progress: Progress | None = None, max_decisions: int | None = None,
            config: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Play ``runs`` seeds with every policy and return the comparison (JSON-able; see the module docstring).

    ``llm``: per policy name, the factory of its LLM seats' agents (required for policies with LLM seats); each
    factory is called once per seat policy and the agent serves every session of that compared policy.
    ``config``: rule options of every session (as ``trpg play --config``; checked before any session runs)."""
    if runs < 1:
        raise CompareError(f"--runs must be at least 1 (got {runs})")
    if jobs < 1:
        raise CompareError(f"--jobs must be at least 1 (got {jobs})")
    if len(policies) < 2:
        raise CompareError("compare needs at least two policies")
    cfg = check_config(scenario_path, config)
    for pol in policies:
        # who sits where is checked as for a playtest (an LLM seat is checked as a scripted one)
        check_seats(scenario_path, [f"{s.partition('=')[0]}=scripted" if PolicySpec("", (s,)).uses_llm else s
                                    for s in pol.seats], cfg)
        if pol.uses_llm and (llm is None or pol.name not in llm):
            raise CompareError(f"policy {pol.name} seats an LLM: give the model settings (--llm-base-url, --llm-model)")
    path = str(Path(scenario_path).resolve())
    scenario = _scenario(path)
    meta = scenario_meta(scenario)
    any_llm = any(p.uses_llm for p in policies)
    # LLM policies: one agent per (compared policy, seat policy), shared by all sessions, in this process
    shared = {p.name: SharedAgents(llm[p.name]) for p in policies if p.uses_llm and llm is not None}
    pol_args = [(p.name, list(p.seats)) for p in policies]
    indexed = list(enumerate(session_seeds(seed, runs)))
    size = chunk or default_chunk(runs, jobs)
    parts_dir: Path | None = None
    if export_decisions:
        parts_dir = Path(f"{export_decisions}.parts")
        parts_dir.mkdir(parents=True, exist_ok=True)
    chunks = list(_chunks(indexed, size))
    part_paths = [str(parts_dir / f"part-{k:06d}.jsonl") if parts_dir else None for k in range(len(chunks))]
    totals = [Aggregator(meta) for _ in policies]
    store = _Store(len(policies), runs)
    done = 0
    if progress:
        progress(0, runs)

    def fold(res: tuple[list[Aggregator], list[SeedRow]], n: int) -> None:
        nonlocal done
        aggs, rows = res
        for t, a in zip(totals, aggs, strict=True):
            t.merge(a)
        for row in rows:
            store.add(row)
        done += n
        if progress:
            progress(done, runs)

    if any_llm:
        part_paths = list(asyncio.run(_compare_async(path, pol_args, indexed, parts_dir, shared, jobs, max_decisions,
                                                     fold, cfg)))
    else:
        _run_chunks(executor, jobs, scheduler, path, pol_args, chunks, part_paths, max_decisions, fold, cfg)
    exported = None
    if export_decisions and parts_dir is not None:
        from .export import concat_parts

        exported = concat_parts([p for p in part_paths if p], export_decisions)
        with contextlib.suppress(OSError):
            parts_dir.rmdir()
    agents = {name: dict(sh.agents) for name, sh in shared.items()}
    return _result(meta, policies, totals, store, agents, exported)


def _result(meta: Mapping[str, Any], policies: Sequence[PolicySpec], totals: Sequence[Aggregator], store: _Store,
            agents: Mapping[str, Mapping[str, Any]], exported: int | None) -> dict[str, Any]:
    out_pols = []
    binaries = [store.binary(p) for p in range(len(policies))]
    for p, (pol, agg) in enumerate(zip(policies, totals, strict=True)):
        n = agg.runs
        binary = {}
        for key, xs in binaries[p].items():
            k = int(sum(xs))
            lo, hi = wilson(k, n)
            binary[key] = {"count": k, "n": n, "rate": _r(k / n if n else 0.0), "ci": [_r(lo), _r(hi)]}
        numeric = {key: _mean(col[p]) for key, col in sorted(store.numeric.items(), key=lambda kv: (kv[0] != DECISIONS, kv[0]))}
        row: dict[str, Any] = {
            "name": pol.name, "seats": list(pol.seats),
            "sessions": {"runs": agg.runs, "finished": agg.finished, "failed": agg.failed, "stalled": agg.stalled},
            "binary": binary, "numeric": numeric,
            "failures": list(agg.failures),
        }
        if pol.uses_llm:
            row["llm"] = _llm_accounting(agg, list(agents.get(pol.name, {}).values()))
        out_pols.append(row)
    paired = []
    base = policies[0].name
    for p in range(1, len(policies)):
        bin_rows = {}
        for key in binaries[0]:
            xs, ys = binaries[0][key], binaries[p][key]
            d = paired_diff(xs, ys, binary=True)
            d["discordant"] = [int(sum(1 for x, y in zip(xs, ys, strict=True) if x > y)),
                               int(sum(1 for x, y in zip(xs, ys, strict=True) if y > x))]
            bin_rows[key] = d
        num_rows = {key: paired_diff(col[0], col[p]) for key, col in store.numeric.items()}
        paired.append({"policy": policies[p].name, "vs": base, "binary": bin_rows,
                       "numeric": {k: num_rows[k] for k in out_pols[p]["numeric"]}})
    return {
        "scenario": dict(meta),
        "method": METHOD,
        "seeds": SEED_SCHEME,
        "policies": out_pols,
        "paired": paired,
        "exported_decisions": exported,
        "warnings": _warnings(policies, totals),
    }


def _warnings(policies: Sequence[PolicySpec], totals: Sequence[Aggregator]) -> list[str]:
    w = []
    runs = totals[0].runs if totals else 0
    if runs < 30:
        w.append(f"only {runs} paired seeds: the paired intervals (normal approximation) are optimistic below about 30")
    for pol, agg in zip(policies, totals, strict=True):
        if agg.failed:
            w.append(f"{pol.name}: {agg.failed} of {agg.runs} sessions failed (seeds in compare.json)")
    return w


# -- output ----------------------------------------------------------------------------------------------------------
def _fmt_rate(row: Mapping[str, Any]) -> str:
    return f"{row['rate']:.1%} [{row['ci'][0]:.1%}, {row['ci'][1]:.1%}]"


def _fmt_mean(row: Mapping[str, Any]) -> str:
    if row.get("mean") is None:
        return "-"
    return f"{row['mean']:.2f} [{row['ci'][0]:.2f}, {row['ci'][1]:.2f}]"


def _fmt_diff(row: Mapping[str, Any] | None, pct: bool) -> str:
    if not row or row.get("diff") is None:
        return "-"
    d, (lo, hi) = row["diff"], row["ci"]
    if pct:
        return f"{d * 100:+.1f} pp [{lo * 100:+.1f}, {hi * 100:+.1f}]"
    return f"{d:+.2f} [{lo:+.2f}, {hi:+.2f}]"


LLM_COLUMNS = ("calls", "tokens", "prompt_tokens", "completion_tokens", "median_latency_s", "reasks", "fallbacks",
               "illegal_per_100_decisions")


def table_rows(result: Mapping[str, Any]) -> tuple[list[str], list[list[str]]]:
    """The comparison as a header and text rows: metrics per policy with 95% intervals, then Δ vs the first policy."""
    pols = result["policies"]
    base = pols[0]["name"]
    header = ["metric"] + [p["name"] for p in pols] + [f"Δ {p['policy']} − {base}" for p in result["paired"]]
    rows: list[list[str]] = []
    keys = list(dict.fromkeys(k for p in pols for k in p["binary"]))
    for key in keys:
        cells = [_fmt_rate(p["binary"][key]) if key in p["binary"] else "-" for p in pols]
        rows.append([key, *cells, *(_fmt_diff(d["binary"].get(key), True) for d in result["paired"])])
    nkeys = list(dict.fromkeys(k for p in pols for k in p["numeric"]))
    for key in nkeys:
        cells = [_fmt_mean(p["numeric"][key]) if key in p["numeric"] else "-" for p in pols]
        rows.append([key, *cells, *(_fmt_diff(d["numeric"].get(key), False) for d in result["paired"])])
    return header, rows


def llm_rows(result: Mapping[str, Any]) -> tuple[list[str], list[list[str]]]:
    header = ["policy", *LLM_COLUMNS]
    rows = []
    for p in result["policies"]:
        acc = p.get("llm")
        if acc:
            rows.append([p["name"], *("-" if acc.get(c) is None else str(acc[c]) for c in LLM_COLUMNS)])
    return header, rows


def rich_tables(result: Mapping[str, Any]) -> list[Any]:
    from rich.markup import escape
    from rich.table import Table as RichTable

    header, rows = table_rows(result)
    t = RichTable(title=f"{escape(str(result['scenario'].get('title', '')))}: {result['policies'][0]['sessions']['runs']} "
                        "paired seeds (95% intervals)")
    for i, h in enumerate(header):
        t.add_column(escape(h), justify="left" if i == 0 else "right")
    for r in rows:
        t.add_row(*(escape(c) for c in r))
    out = [t]
    lh, lrows = llm_rows(result)
    if lrows:
        lt = RichTable(title="LLM accounting")
        for i, h in enumerate(lh):
            lt.add_column(h, justify="left" if i == 0 else "right")
        for r in lrows:
            lt.add_row(*(escape(c) for c in r))
        out.append(lt)
    return out


_CSS = ("body{font-family:system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse;margin:1em 0}"
        "th,td{border:1px solid #ccc;padding:.3em .6em;text-align:right}th:first-child,td:first-child{text-align:left}"
        "th{background:#f3f3f3}p.note{color:#555;max-width:60em}")


def render_html(result: Mapping[str, Any]) -> str:
    from html import escape

    def table(header: list[str], rows: list[list[str]]) -> str:
        head = "".join(f"<th>{escape(h)}</th>" for h in header)
        body = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in r) + "</tr>" for r in rows)
        return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"

    sc = result["scenario"]
    runs = result["policies"][0]["sessions"]["runs"]
    run = result.get("run") or {}
    pols = "".join(f"<li><b>{escape(p['name'])}</b>: {escape(' '.join(p['seats']))}</li>" for p in result["policies"])
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>compare {escape(str(sc.get('id', '')))}</title>"
             f"<style>{_CSS}</style></head><body>",
             f"<h1>{escape(str(sc.get('title', sc.get('id', ''))))}</h1>",
             f"<p>{runs} paired seeds ({escape(result['seeds'])}); rule options: "
             f"<code>{escape(config_text(run.get('config')))}</code>; policies:</p><ul>{pols}</ul>",
             table(*table_rows(result)),
             f"<p class='note'>{escape(result['method'])}</p>",
             *(f"<p class='note'>warning: {escape(w)}</p>" for w in result.get("warnings") or [])]
    lh, lrows = llm_rows(result)
    if lrows:
        parts += ["<h2>LLM accounting</h2>", table(lh, lrows)]
    if run.get("note"):
        parts.append(f"<p class='note'>{escape(str(run['note']))}</p>")
    parts.append("</body></html>")
    return "\n".join(parts)


def write_compare(result: Mapping[str, Any], out_dir: str | Path) -> dict[str, Path]:
    import json

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = {"json": out / "compare.json", "html": out / "compare.html"}
    paths["json"].write_text(json.dumps(result, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    paths["html"].write_text(render_html(result), encoding="utf-8")
    return paths
