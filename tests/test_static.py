"""The type checker and the linter are part of the suite (house style: type hints everywhere, mypy in CI)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _run(*cmd: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_mypy_is_clean():
    r = _run(sys.executable, "-m", "mypy", "engine", "agent")
    assert r.returncode == 0, r.stdout + r.stderr


def test_ruff_is_clean():
    exe = shutil.which("ruff")
    r = _run(exe, "check", ".") if exe else _run(sys.executable, "-m", "ruff", "check", ".")
    assert r.returncode == 0, r.stdout + r.stderr
