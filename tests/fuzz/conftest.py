from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent.cli import main


@pytest.fixture
def fuzz(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Any:
    """Run ``trpg fuzz ARGS --out TMP --quiet``: (exit code, stdout, the JSON summary)."""

    def run(*args: str) -> tuple[int, str, dict[str, Any]]:
        out = tmp_path / "out"
        rc = main(["fuzz", *args, "--out", str(out), "--quiet"])
        text = capsys.readouterr().out
        summary = json.loads((out / f"fuzz-{args[0]}.json").read_text(encoding="utf-8"))
        return rc, text, summary

    return run
