from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
YOGARIBITO = ROOT / "scenarios" / "yogaribito" / "night_of_the_count.yaml"
INOIRI = ROOT / "scenarios" / "bloodberry" / "inoiri_dolls.yaml"


def comparable(rep: dict) -> dict:
    """A report without what legitimately differs between runs of the same seeds: the run configuration and the
    paths of the logs of problem sessions."""
    out = dict(rep)
    out.pop("run", None)
    for section in ("stalled", "failures"):
        out[section] = {**out[section], "items": [{k: v for k, v in x.items() if k != "log"} for x in out[section]["items"]]}
    return out


@pytest.fixture(scope="session")
def yogaribito_path() -> Path:
    return YOGARIBITO


@pytest.fixture(scope="session")
def inoiri_path() -> Path:
    return INOIRI
