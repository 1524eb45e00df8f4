"""Regenerate the golden playthroughs: one seeded, all-scripted session per sample scenario.

    python scripts/regen_golden.py        # rewrites tests/golden/*.jsonl

Each golden file is the session's log with, right after every ``decision`` line, a ``seat_view`` line: what the
deciding seat saw when it answered (OpenSpiel's playthroughs record every player's view) — the observation keys that
changed since that seat's previous view, and the events of its transcript since then, as the engine hands them to
the seat. A leak shows up as a diff line there. Review the diff before committing: a changed golden file means the
rules' behaviour (or what a seat is shown) changed, and the system's version should change with it."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
GOLDEN_SEED = 7


def golden_path(scenario: Path) -> Path:
    return ROOT / "tests" / "golden" / f"{scenario.parent.name}__{scenario.stem}__seed{GOLDEN_SEED}.jsonl"


def _j(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"), default=str)


def _flat(value: Any, prefix: str = "") -> dict[str, str]:
    """A nested mapping as leaf path → JSON text (lists are leaves), so that a view's changes are small."""
    if isinstance(value, dict) and value:
        out: dict[str, str] = {}
        for k, v in value.items():
            out.update(_flat(v, f"{prefix}.{k}" if prefix else str(k)))
        return out
    return {prefix: _j(value)}


class _SeatViews:
    """The ``seat_view`` lines of a session: per seat, what changed in its view since it last decided (the
    observation's leaves, by path) and the transcript events it was handed since then."""

    def __init__(self) -> None:
        self.obs: dict[str, dict[str, str]] = {}
        self.cursor: dict[str, int] = {}

    def line(self, session: Any, decision: Any) -> str:
        actor = decision.actor
        view = session.view(decision)
        obs = _flat(view.observation)
        before = self.obs.get(actor, {})
        changed = {k: json.loads(v) for k, v in obs.items() if before.get(k) != v}
        gone = sorted(k for k in before if k not in obs)
        self.obs[actor] = obs
        start = self.cursor.get(actor, 0)
        events = session.events
        self.cursor[actor] = len(events)
        # the seat's transcript since its last view, by log line (1-based): an event seen whole is its line number,
        # one seen in part (speech only) is that part; voided checks and events for others are simply absent
        seen = {id(e): e for e in view.transcript(start)}
        parts: dict[Any, Any] = {}  # the answers handed to the seat, by decision number (the first of each)
        for x in seen.values():
            if x.type == "answer":
                parts.setdefault(x.seq, x)
        transcript: list[Any] = []
        for i in range(start, len(events)):
            e = events[i]
            got = seen.get(id(e))
            if got is not None:
                transcript.append(i + 1)
            else:
                part = parts.get(e.seq) if e.type == "answer" else None
                if part is not None:
                    transcript.append({"line": i + 1, "seen": part.model_dump(mode="json")})
        record: dict[str, Any] = {"type": "seat_view", "seq": decision.seq, "actor": actor,
                                  "observation": changed, "transcript": transcript}
        if gone:
            record["gone"] = gone
        return _j(record)


def golden_lines(scenario: Path) -> list[str]:
    """The golden session's log with its seat views, the package version masked (it changes with every release)."""
    from agent.scripted import ScriptedAgent
    from engine.core import Session, load_scenario

    old = os.getcwd()
    os.chdir(ROOT)
    views = _SeatViews()
    inserted: list[tuple[int, str]] = []  # (number of log events before it, seat_view line)
    try:
        sc = load_scenario(scenario.relative_to(ROOT).as_posix())
        s = Session(sc, seed=GOLDEN_SEED, seats={"all": "scripted"})
        agent = ScriptedAgent()
        while not s.is_over:
            for d in s.pending_all():
                inserted.append((len(s.events), views.line(s, d)))
                s.answer(agent.act(s.view(d)), policy=agent.name, seq=d.seq)
    finally:
        os.chdir(old)
    lines = [e.model_dump_json() for e in s.events]
    header = s.events[0].model_copy(update={"package_version": "*"})
    lines[0] = header.model_dump_json()
    out: list[str] = []
    k = 0
    for i, line in enumerate(lines):
        out.append(line)
        while k < len(inserted) and inserted[k][0] == i + 1:
            out.append(inserted[k][1])
            k += 1
    return out


def main() -> None:
    from engine.core import systems

    for system in systems():
        for scenario in system.sample_scenarios:
            out = golden_path(scenario)
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text("\n".join(golden_lines(scenario)) + "\n", encoding="utf-8")
            print(f"wrote {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
