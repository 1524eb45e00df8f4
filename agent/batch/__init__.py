"""Batch playtests (issue #6): run a scenario many times and report what a designer should know.

- ``summary.summarize(session)``: a small picklable summary of one finished session;
- ``aggregate.Aggregator``: streaming statistics over summaries (memory flat in the number of sessions);
- ``runner.run_batch(...)``: seeds, rule options, chunks, a local process pool or Dask (LLM seats: one event loop in
  this process), aggregation as results arrive;
- ``sessions``: one session played synchronously or on an event loop, LLM agents shared by the sessions of a batch;
- ``report.write_report(report, out_dir)``: ``report.json`` and a self-contained ``report.html``.

matplotlib and dask are imported lazily (the ``batch`` extra), so ``import agent.batch`` needs neither.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = ["summarize", "Aggregator", "run_batch", "write_report", "session_seeds", "SEED_SCHEME"]

from .aggregate import Aggregator
from .runner import SEED_SCHEME, run_batch, session_seeds
from .summary import summarize


def write_report(report: Mapping[str, Any], out_dir: str | Path) -> dict[str, Path]:
    """``report.json`` and ``report.html`` in ``out_dir`` (imports matplotlib and jinja2 only when called)."""
    from .report import write_report as _write

    return _write(report, out_dir)
