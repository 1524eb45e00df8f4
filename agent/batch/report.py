"""``report.json`` (every number) and ``report.html`` (one self-contained page: inline CSS, inline SVG plots drawn
with matplotlib's Agg backend, no scripts, no network)."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable, Mapping, MutableMapping
from pathlib import Path
from typing import Any

from .runner import config_text, replay_command

__all__ = ["write_report", "render_html", "svg_plots", "add_replay_commands", "replayer", "LLM_ROWS"]

#: the LLM accounting shown first (key, label); the other counters follow
LLM_ROWS = (("calls", "model calls"), ("tokens", "tokens"), ("prompt_tokens", "prompt tokens"),
            ("completion_tokens", "completion tokens"), ("cached_prompt_tokens", "prompt tokens from the endpoint's cache"),
            ("median_latency_s", "median latency (s)"),
            ("reasks", "re-asks"), ("fallbacks", "scripted fallbacks"),
            ("illegal_per_100_decisions", "illegal or unreadable replies per 100 LLM decisions"),
            ("llm_seat_decisions", "decisions of the LLM seats"))


def _svg(fig: Any) -> str:
    """A figure as an inline ``<svg>`` element: no XML prolog, DOCTYPE, namespaces URLs or metadata."""
    import matplotlib.pyplot as plt

    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None, "Creator": None, "Format": None,
                                                                    "Type": None})
    plt.close(fig)
    text = buf.getvalue()
    text = text[text.index("<svg"):]
    text = re.sub(r"<metadata>.*?</metadata>", "", text, flags=re.S)
    text = re.sub(r'\s+xmlns(:\w+)?="[^"]*"', "", text)
    return text


def svg_plots(rep: Mapping[str, Any]) -> dict[str, str]:
    """name → inline SVG: endings, resources at the end, resources over the scenes."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    plt.rcParams.update({"svg.fonttype": "none", "svg.hashsalt": "trpg-batch", "font.size": 8})
    out: dict[str, str] = {}
    endings = rep.get("endings") or []
    if endings:
        fig, ax = plt.subplots(figsize=(6, 0.4 + 0.35 * len(endings)))
        labels = [r["label"] for r in endings][::-1]
        rates = [r["rate"] for r in endings][::-1]
        err = [[r["rate"] - r["ci"][0] for r in endings][::-1], [r["ci"][1] - r["rate"] for r in endings][::-1]]
        ax.barh(labels, rates, xerr=err, color="#4c72b0", capsize=3)
        ax.set_xlim(0, 1)
        ax.set_xlabel("share of sessions (95% Wilson CI)")
        out["endings"] = _svg(fig)
    res = rep.get("resources_end") or {}
    if res:
        keys = list(res)
        cols = 4
        rows = -(-len(keys) // cols)
        fig, axes = plt.subplots(rows, cols, figsize=(2.2 * cols, 1.7 * rows), squeeze=False)
        for i, ax in enumerate(axes.flat):
            if i >= len(keys):
                ax.axis("off")
                continue
            k = keys[i]
            h = res[k]["hist"]
            xs = [int(v) for v in h]
            ax.bar(xs, list(h.values()), color="#55a868", width=0.8)
            ax.axvline(res[k]["mean"], color="#c44e52", lw=1)
            ax.set_title(f"{k} (mean {res[k]['mean']:.2f})", fontsize=7)
            ax.tick_params(labelsize=6)
        fig.tight_layout()
        out["resources_end"] = _svg(fig)
    over = rep.get("resources_over_time") or {}
    if over:
        pcs = sorted({k.split(".", 1)[0] for k in over})
        fig, axes = plt.subplots(len(pcs), 1, figsize=(7, 2.0 * len(pcs)), squeeze=False)
        for ax, pc in zip(axes.flat, pcs):
            for k, pts in over.items():
                if k.split(".", 1)[0] != pc or not pts:
                    continue
                ax.plot([p["scene"] for p in pts], [p["mean"] for p in pts], marker="o", ms=3, label=k.split(".", 1)[1])
            ax.set_title(f"{pc}: mean at the start of each scene reached", fontsize=8)
            ax.tick_params(axis="x", labelrotation=30, labelsize=6)
            ax.legend(fontsize=6, loc="upper left", bbox_to_anchor=(1.0, 1.0))
        fig.tight_layout()
        out["resources_over_time"] = _svg(fig)
    scenes = rep.get("scenes") or []
    if scenes:
        fig, ax = plt.subplots(figsize=(7, 0.4 + 0.25 * len(scenes)))
        ax.barh([s["scene"] for s in scenes][::-1], [s["rate"] for s in scenes][::-1], color="#8172b2")
        ax.set_xlim(0, 1)
        ax.set_xlabel("share of sessions reaching the scene")
        out["scenes"] = _svg(fig)
    return out


_TEMPLATE = """<!DOCTYPE html>
<html lang="ja"><head><meta charset="utf-8">
<title>playtest: {{ sc.title }} ({{ sc.id }})</title>
<style>
body{font-family:system-ui,-apple-system,"Segoe UI","Hiragino Sans","Noto Sans CJK JP",sans-serif;margin:2em auto;max-width:1100px;color:#222;padding:0 1em}
h1{font-size:1.5em}h2{font-size:1.2em;border-bottom:1px solid #ccc;margin-top:1.6em}
table{border-collapse:collapse;margin:.5em 0;font-size:.9em}th,td{border:1px solid #ddd;padding:.2em .6em;text-align:left}
th{background:#f3f3f3}td.n{text-align:right;font-variant-numeric:tabular-nums}
.warnings{background:#fff4e5;border:2px solid #f0a030;padding:.6em 1.2em;border-radius:6px}
.ok{background:#eef8ee;border:1px solid #7c7;padding:.6em 1.2em;border-radius:6px}
code{background:#f5f5f5;padding:0 .3em}.small{color:#666;font-size:.85em}
svg{max-width:100%;height:auto}
</style></head><body>
<h1>Playtest report: {{ sc.title }} <span class="small">({{ sc.id }}, {{ sc.system }} {{ sc.system_version }})</span></h1>
<table>
<tr><th>scenario file</th><td><code>{{ sc.path }}</code> (sha256 {{ sc.sha256[:12] }}…)</td></tr>
<tr><th>sessions</th><td>{{ s.runs }} run, {{ s.finished }} finished, {{ s.stalled }} hit a safety cap, {{ s.failed }} failed</td></tr>
{% for k, v in run.items() %}<tr><th>{{ k }}</th><td>{{ v }}</td></tr>
{% endfor %}<tr><th>decisions per session</th><td>mean {{ "%.1f"|format(rep.decisions.mean) }} (95% CI {{ "%.1f"|format(rep.decisions.ci[0]) }}–{{ "%.1f"|format(rep.decisions.ci[1]) }}), min {{ rep.decisions.min }}, max {{ rep.decisions.max }}{% if rep.decisions.standing_mean %}; besides, {{ "%.1f"|format(rep.decisions.standing_mean) }} reaction windows per session resolved by standing answers (not asked){% endif %}</td></tr>
</table>

<h2 id="warnings">Warnings</h2>
{% if rep.warnings %}<div class="warnings"><ul>{% for w in rep.warnings %}<li>{{ w }}</li>{% endfor %}</ul></div>
{% else %}<div class="ok">Nothing to warn about.</div>{% endif %}

<h2>Endings</h2>
{{ rates(rep.endings) }}
{{ plots.endings|default("")|safe }}

<h2>Per-PC outcomes</h2>
{% for pc, rows in rep.pcs.items() %}<h3>{{ pc }}</h3>{{ rates(rows) }}{% endfor %}
{% if rep.outcomes %}<h3>Fights, confrontations and goals</h3>
{% for k, rows in rep.outcomes.items() %}<h4>{{ k }}</h4>{{ rates(rows) }}{% endfor %}{% endif %}

<h2>Resources</h2>
<p class="small">Values of the PCs' resources at the end (histogram; red line: mean) and their mean at the start of each scene reached.</p>
<table><tr><th>resource</th><th>mean</th><th>95% CI</th><th>min</th><th>max</th></tr>
{% for k, r in rep.resources_end.items() %}<tr><td>{{ k }}</td><td class="n">{{ "%.2f"|format(r.mean) }}</td><td class="n">{{ "%.2f"|format(r.ci[0]) }}–{{ "%.2f"|format(r.ci[1]) }}</td><td class="n">{{ r.min }}</td><td class="n">{{ r.max }}</td></tr>
{% endfor %}</table>
{{ plots.resources_end|default("")|safe }}
{{ plots.resources_over_time|default("")|safe }}

<h2>Scenes reached</h2>
<table><tr><th>scene</th><th>sessions</th><th>share</th><th>95% CI</th><th>visits</th></tr>
{% for r in rep.scenes %}<tr><td>{{ r.scene }}</td><td class="n">{{ r.sessions }}</td><td class="n">{{ pct(r.rate) }}</td><td class="n">{{ pct(r.ci[0]) }}–{{ pct(r.ci[1]) }}</td><td class="n">{{ r.visits }}</td></tr>
{% endfor %}</table>
{% if rep.scenes_never_reached %}<p><b>Never reached:</b> {{ rep.scenes_never_reached|join(", ") }}</p>{% endif %}
{{ plots.scenes|default("")|safe }}

<h2>Checks</h2>
<p class="small">Observed: the final result (after luck, rerolls, effects, concessions). First roll: success of the first roll as the dice fell, next to the exact probability the rules give for its pool and target (z: how far apart, in standard deviations).</p>
<table><tr><th>check</th><th>count</th><th>observed success</th><th>95% CI</th><th>first rolls</th><th>first-roll success</th><th>95% CI</th><th>theory</th><th>z</th></tr>
{% for c in rep.checks %}<tr><td>{{ c.check }}</td><td class="n">{{ c.n }}</td>
<td class="n">{{ pct(c.observed_rate) if c.observed_rate is not none else "—" }}</td><td class="n">{{ (pct(c.ci[0]) ~ "–" ~ pct(c.ci[1])) if c.ci else "—" }}</td>
<td class="n">{{ c.theory_n }}</td><td class="n">{{ pct(c.theory_observed_rate) if c.theory_observed_rate is not none else "n/a" }}</td>
<td class="n">{{ (pct(c.theory_ci[0]) ~ "–" ~ pct(c.theory_ci[1])) if c.theory_ci else "" }}</td>
<td class="n">{{ pct(c.theory_rate) if c.theory_rate is not none else "n/a" }}</td><td class="n">{{ "%.2f"|format(c.z) if c.z is not none else "" }}</td></tr>
{% endfor %}</table>

<h2>Decisions</h2>
{{ freq(rep.decision_kinds, "kind") }}

<h2>Rules and effects fired</h2>
<h3>State changes by rule</h3>
{{ freq(rep.rules, "rule") }}
<h3>Notices by topic</h3>
{{ freq(rep.topics, "topic") }}
{% if rep.effects or rep.effects_never_fired %}<h3>Effects (use and cost notices)</h3>
{{ freq(rep.effects, "effect") }}
{% if rep.effects_never_fired %}<p><b>Never fired:</b> {{ rep.effects_never_fired|join(", ") }}</p>{% endif %}{% endif %}

<h2>Stalls and safety caps</h2>
{% if rep.stalled.count %}<p>{{ rep.stalled.count }} sessions hit a cap: {% for k, v in rep.caps.items() %}{{ k }} ×{{ v }}{% if not loop.last %}, {% endif %}{% endfor %}. The first {{ rep.stalled["items"]|length }} by seed:</p>
<table><tr><th>seed</th><th>caps</th><th>replay</th><th>log</th></tr>
{% for x in rep.stalled["items"] %}<tr><td class="n">{{ x.seed }}</td><td>{{ x.caps|join(", ") }}</td><td><code>{{ replay(x.seed) }}</code></td><td>{{ x.log or "" }}</td></tr>{% endfor %}
</table>{% else %}<p>None.</p>{% endif %}

<h2>Failures</h2>
{% if rep.failures.count %}<p>{{ rep.failures.count }} sessions raised an error. The first {{ rep.failures["items"]|length }} by seed:</p>
<table><tr><th>seed</th><th>error</th><th>replay</th><th>log</th></tr>
{% for x in rep.failures["items"] %}<tr><td class="n">{{ x.seed }}</td><td>{{ x.error }}</td><td><code>{{ replay(x.seed) }}</code></td><td>{{ x.log or "" }}</td></tr>{% endfor %}
</table>{% else %}<p>None.</p>{% endif %}

<h2>Longest sessions</h2>
<table><tr><th>seed</th><th>decisions</th><th>replay</th></tr>
{% for x in rep.decisions.longest %}<tr><td class="n">{{ x.seed }}</td><td class="n">{{ x.decisions }}</td><td><code>{{ replay(x.seed) }}</code></td></tr>{% endfor %}
</table>
{% if rep.llm.calls or rep.llm.llm_seat_decisions %}<h2 id="llm">LLM accounting</h2><table>
{% for k, label in llm_rows if k in rep.llm %}<tr><th>{{ label }}</th><td class="n">{{ "—" if rep.llm[k] is none else rep.llm[k] }}</td></tr>
{% endfor %}{% for k, v in rep.llm.items() if k not in llm_keys %}<tr><th>{{ k }}</th><td class="n">{{ "—" if v is none else v }}</td></tr>
{% endfor %}</table>{% endif %}
</body></html>
"""

_MACROS = """
{% macro rates(rows) %}<table><tr><th>outcome</th><th>sessions</th><th>share</th><th>95% CI (Wilson)</th></tr>
{% for r in rows %}<tr><td>{{ r.label }}</td><td class="n">{{ r.count }}</td><td class="n">{{ pct(r.rate) }}</td><td class="n">{{ pct(r.ci[0]) }}–{{ pct(r.ci[1]) }}</td></tr>
{% endfor %}</table>{% endmacro %}
{% macro freq(rows, name) %}<table><tr><th>{{ name }}</th><th>total</th><th>per session</th><th>sessions where it happened</th></tr>
{% for r in rows %}<tr><td>{{ r[name] }}</td><td class="n">{{ r.total }}</td><td class="n">{{ "%.2f"|format(r.per_session) }}</td><td class="n">{{ pct(r.session_rate) }}</td></tr>
{% endfor %}</table>{% endmacro %}
"""


def _pct(x: float | None) -> str:
    return "—" if x is None else f"{x * 100:.1f}%"


def replayer(rep: Mapping[str, Any]) -> Callable[[int], str]:
    """seed → the ``trpg play`` command replaying that session of the report (its seats and rule options)."""
    run = rep.get("run") or {}
    seats = [str(s) for s in run.get("seats") or ["all=scripted"]]
    cfg = run.get("config")
    config = cfg if isinstance(cfg, Mapping) else None
    sc = rep.get("scenario") or {}
    path = str(sc.get("replay_path") or sc.get("path", "SCENARIO"))
    return lambda seed: replay_command(path, seats, seed, config)


def add_replay_commands(rep: MutableMapping[str, Any]) -> None:
    """Give every seed the report lists (stalled, failed, longest sessions) its ``replay`` command."""
    replay = replayer(rep)
    for items in (rep["stalled"]["items"], rep["failures"]["items"], rep["decisions"]["longest"]):
        for x in items:
            x["replay"] = replay(int(x["seed"]))


def render_html(rep: Mapping[str, Any], plots: Mapping[str, str] | None = None) -> str:
    import jinja2

    env = jinja2.Environment(autoescape=True, undefined=jinja2.ChainableUndefined)
    env.globals["pct"] = _pct
    env.globals["llm_rows"] = LLM_ROWS
    env.globals["llm_keys"] = {k for k, _ in LLM_ROWS}
    run = dict(rep.get("run") or {})
    env.globals["replay"] = replayer(rep)
    tmpl = env.from_string(_MACROS + _TEMPLATE)
    shown_run = {k: (", ".join(map(str, v)) if isinstance(v, list) else v) for k, v in run.items()}
    if "config" in shown_run:
        shown_run["config"] = config_text(run["config"])
    return tmpl.render(rep=rep, sc=rep.get("scenario") or {}, s=rep.get("sessions") or {}, run=shown_run,
                       plots=dict(plots if plots is not None else svg_plots(rep)))


def write_report(rep: Mapping[str, Any], out_dir: str | Path) -> dict[str, Path]:
    """Write ``report.json`` and ``report.html`` into ``out_dir``; returns their paths."""
    d = Path(out_dir)
    d.mkdir(parents=True, exist_ok=True)
    pj = d / "report.json"
    pj.write_text(json.dumps(rep, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    ph = d / "report.html"
    ph.write_text(render_html(rep), encoding="utf-8")
    return {"json": pj, "html": ph}
