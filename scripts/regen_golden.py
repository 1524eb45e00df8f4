"""Regenerate the golden playthroughs: one seeded, all-scripted session per sample scenario.

    python scripts/regen_golden.py        # rewrites tests/golden/*.jsonl

Review the diff before committing: a changed golden file means the rules' behaviour changed."""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
GOLDEN_SEED = 7


def golden_path(scenario: Path) -> Path:
    return ROOT / "tests" / "golden" / f"{scenario.parent.name}__{scenario.stem}__seed{GOLDEN_SEED}.jsonl"


def golden_lines(scenario: Path) -> list[str]:
    """The log of the golden session, with the package version masked (it changes with every release)."""
    from agent.scripted import ScriptedAgent
    from engine.core import Session, load_scenario

    old = os.getcwd()
    os.chdir(ROOT)
    try:
        sc = load_scenario(scenario.relative_to(ROOT).as_posix())
        s = Session(sc, seed=GOLDEN_SEED, seats={"all": "scripted"})
        agent = ScriptedAgent()
        while not s.is_over:
            s.answer(agent.act(s.pending, s), policy=agent.name)
    finally:
        os.chdir(old)
    lines = [e.model_dump_json() for e in s.events]
    header = s.events[0].model_copy(update={"package_version": "*"})
    lines[0] = header.model_dump_json()
    return lines


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
