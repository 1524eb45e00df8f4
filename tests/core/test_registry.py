"""The registry finds the systems itself: every subpackage of ``engine.systems``, with no list to keep up to date."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import engine.systems
from engine.core import registry
from engine.core.registry import get_system, system_modules, systems

SYSTEMS_DIR = Path(engine.systems.__file__).resolve().parent


def _packages_on_disk() -> list[str]:
    return sorted(f"engine.systems.{p.name}" for p in SYSTEMS_DIR.iterdir()
                  if (p / "__init__.py").is_file() and not p.name.startswith("_"))


def test_the_registry_lists_exactly_the_subpackages_of_engine_systems(toy_system) -> None:
    want = _packages_on_disk()
    assert {"engine.systems.bloodberry", "engine.systems.yogaribito"} <= set(want)
    assert system_modules() == want
    # every package registered its system, and every registered system (but the tests' toy) comes from one
    real = [s for s in systems() if s is not toy_system]
    assert sorted({".".join(s.new_game.__module__.split(".")[:3]) for s in real}) == want
    assert [s.id for s in real] == sorted(s.id for s in real)
    for s in real:
        assert get_system(s.id) is s


def test_a_new_system_package_is_found_without_being_listed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            toy_system) -> None:
    """A package dropped into engine/systems/ registers on the next load; a ``_name`` package and a plain module
    there are not imported."""
    new = tmp_path / "zz_newsys"
    new.mkdir()
    (new / "__init__.py").write_text(
        "import dataclasses\n"
        "from engine.core.registry import register_system\n"
        "from tests.core.fake_system import TOY\n"
        "INFO = register_system(dataclasses.replace(TOY, id='zz_newsys'))\n", encoding="utf-8")
    (tmp_path / "_zz_private").mkdir()
    (tmp_path / "_zz_private" / "__init__.py").write_text("raise RuntimeError('a _package is not a system')\n",
                                                           encoding="utf-8")
    (tmp_path / "zz_helper.py").write_text("raise RuntimeError('a plain module is not a system')\n", encoding="utf-8")
    monkeypatch.setattr(engine.systems, "__path__", [*engine.systems.__path__, str(tmp_path)])
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    monkeypatch.setattr(registry, "_loaded", False)
    try:
        assert system_modules() == sorted([*_packages_on_disk(), "engine.systems.zz_newsys"])
        assert get_system("zz_newsys").id == "zz_newsys"
        assert "zz_newsys" in [s.id for s in systems()]
        assert "engine.systems._zz_private" not in sys.modules and "engine.systems.zz_helper" not in sys.modules
    finally:
        sys.modules.pop("engine.systems.zz_newsys", None)
        if getattr(engine.systems, "zz_newsys", None) is not None:
            delattr(engine.systems, "zz_newsys")
