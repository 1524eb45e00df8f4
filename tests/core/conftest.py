from __future__ import annotations

from pathlib import Path

import pytest

from .fake_system import register_toy, unregister_toy, write_scenario


@pytest.fixture(autouse=True)
def toy_system():
    yield register_toy()
    unregister_toy()


@pytest.fixture
def toy_path(tmp_path: Path) -> Path:
    return write_scenario(tmp_path)
