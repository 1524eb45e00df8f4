"""A normal install (a wheel, not the editable install of development) carries everything a user runs.

The wheel is built from a clean copy of the sources (the files git knows, tracked or new, as they are in the working
tree: no build/, egg-info or logs), installed with ``--no-deps`` into a fresh virtualenv that sees the running
interpreter's dependencies but not its editable trpg-agents, and exercised from an unrelated folder with that
virtualenv's ``trpg``: ``systems``, ``examples``, a scripted session of every sample scenario of every system with
``replay --verify``, and a session with an LLM seat (the fake OpenAI-compatible server of tests/llm) for every
system, which renders that system's prompts. Each system's prompts, sample scenarios and worked examples must come
from the install, never from this repository.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import site
import subprocess
import sys
import sysconfig
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest

from tests.llm.conftest import FAKE_SERVER, running_fake_server

ROOT = Path(__file__).resolve().parents[1]
#: never copied into the clean source tree (when it is not made from `git ls-files`)
_JUNK = {".git", ".venv", "venv", "build", "dist", "logs", "__pycache__", ".pytest_cache", ".mypy_cache",
         ".ruff_cache", ".hypothesis", ".benchmarks"}
TIMEOUT = 120


# ======================================================================================================================
# the install
# ======================================================================================================================
def _run(cmd: list[str], *, cwd: Path, env: dict[str, str] | None = None, timeout: float = TIMEOUT,
         check: bool = True) -> subprocess.CompletedProcess[str]:
    p = subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, capture_output=True, text=True, encoding="utf-8",
                       errors="replace", timeout=timeout)
    if check and p.returncode != 0:
        pytest.fail(f"{' '.join(map(str, cmd))} exited with {p.returncode}\n--- stdout\n{p.stdout[-4000:]}\n"
                    f"--- stderr\n{p.stderr[-4000:]}", pytrace=False)
    return p


def _source_files() -> list[Path]:
    """The files of a clean checkout plus the new ones not ignored (relative paths); without git, the tree minus
    the usual junk."""
    try:
        out = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                             capture_output=True, check=True, timeout=60).stdout.decode("utf-8")
        files = [Path(f) for f in out.split("\0") if f]
    except (OSError, subprocess.CalledProcessError):
        files = [p.relative_to(ROOT) for p in ROOT.rglob("*")
                 if p.is_file() and not any(part in _JUNK or part.endswith(".egg-info") for part in
                                            p.relative_to(ROOT).parts)]
    return [f for f in files if (ROOT / f).is_file()]  # a tracked file deleted in the working tree is not there


def _copy_sources(dest: Path) -> Path:
    for rel in _source_files():
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, dest / rel)
    return dest


def _build_wheel(src: Path, out: Path) -> Path:
    """Build the wheel with this interpreter's setuptools (pyproject's build requirement, setuptools>=77, comes with
    the dev extra): no build isolation, so no network."""
    try:
        major = int(metadata.version("setuptools").split(".")[0])
    except (metadata.PackageNotFoundError, ValueError):
        major = 0
    assert major >= 77, "the wheel is built offline with setuptools>=77: pip install -e '.[dev]' brings it"
    cmd = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--disable-pip-version-check",
           "-q", "-w", out, src]
    _run(cmd, cwd=out.parent, timeout=300)
    (wheel,) = out.glob("trpg_agents-*.whl")
    return wheel


def _dependency_dirs() -> list[str]:
    """Where the running interpreter finds the dependencies (pydantic, openai, ...): its site directories and any
    other site-packages on its path, in its order."""
    dirs = [sysconfig.get_path("purelib"), sysconfig.get_path("platlib"), *site.getsitepackages()]
    if site.ENABLE_USER_SITE:
        dirs.append(site.getusersitepackages())
    dirs += [p for p in sys.path if Path(p).name in ("site-packages", "dist-packages")]
    return [d for d in dict.fromkeys(dirs) if Path(d).is_dir()]


@dataclass
class Install:
    venv: Path
    python: Path
    trpg: Path
    cwd: Path  # an unrelated folder
    env: dict[str, str]
    info: dict[str, Any]

    def run(self, *args: Any, env: dict[str, str] | None = None, timeout: float = TIMEOUT) -> subprocess.CompletedProcess[str]:
        return _run([self.trpg, *args], cwd=self.cwd, env=env or self.env, timeout=timeout)


_PROBE = r"""
import json, sys
import agent, engine
from engine.core.registry import system_modules, systems
from engine.resources import resource_dir
print(json.dumps({
    "prefix": sys.prefix,
    "modules": {"engine": engine.__file__, "agent": agent.__file__},
    "system_modules": system_modules(),
    "systems": {s.id: {"sample_scenarios": [str(p) for p in s.sample_scenarios], "examples": [str(p) for p in s.examples]}
                for s in systems()},
    "data": {name: str(resource_dir(name)) for name in ("prompts", "scenarios")},
}))
"""


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Install:
    base = tmp_path_factory.mktemp("wheel")
    src = _copy_sources(base / "src")
    dist = base / "dist"
    dist.mkdir()
    wheel = _build_wheel(src, dist)

    venv = base / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", venv], cwd=base)
    bindir = venv / ("Scripts" if os.name == "nt" else "bin")
    python = next(p for p in (bindir / "python", bindir / "python.exe") if p.exists())
    # pip of this interpreter installs into the new venv (pip --python): before the new venv sees this
    # interpreter's site-packages, so the editable trpg-agents there is not "already installed"
    _run([sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "--no-index",
          "--disable-pip-version-check", "-q", wheel], cwd=base)
    purelib = _run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], cwd=base).stdout.strip()
    # the dependencies: this interpreter's site-packages as plain path entries. A directory named in a .pth file is
    # not a site directory, so the .pth files in it (the editable install's finder) are not run.
    Path(purelib, "zz_trpg_test_dependencies.pth").write_text("\n".join(_dependency_dirs()) + "\n", encoding="utf-8")

    cwd = base / "elsewhere"
    cwd.mkdir()
    env = {k: v for k, v in os.environ.items()
           if k not in {"PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONSAFEPATH", "OPENAI_BASE_URL", "TRPG_LLM_MODEL"}}
    env.update(VIRTUAL_ENV=str(venv), PATH=os.pathsep.join([str(bindir), env.get("PATH", "")]),
               PYTHONDONTWRITEBYTECODE="1", PYTHONIOENCODING="utf-8")
    info = json.loads(_run([python, "-c", _PROBE], cwd=cwd, env=env).stdout)
    trpg = next(p for p in (bindir / "trpg", bindir / "trpg.exe") if p.exists())
    return Install(venv=venv, python=python, trpg=trpg, cwd=cwd, env=env, info=info)


def _under(path: str | Path, root: Path) -> bool:
    return Path(path).resolve().is_relative_to(root.resolve())


# ======================================================================================================================
# the tests
# ======================================================================================================================
def test_the_install_is_the_wheel_not_this_repository(installed: Install) -> None:
    info = installed.info
    assert _under(info["prefix"], installed.venv)
    for name, where in {**info["modules"], **info["data"]}.items():
        assert _under(where, installed.venv), f"{name} comes from {where}, not from the install"
        assert not _under(where, ROOT), f"{name} comes from the repository: {where}"
    # the registry found every system package of the wheel, as in the sources
    assert info["system_modules"] == sorted(f"engine.systems.{p.name}" for p in (ROOT / "engine" / "systems").iterdir()
                                            if (p / "__init__.py").is_file() and not p.name.startswith("_"))


def test_every_prompt_and_scenario_file_is_installed(installed: Install) -> None:
    """Every file under prompts/ and scenarios/, of every system, in every subdirectory (no list in pyproject)."""
    share = {name: Path(d) for name, d in installed.info["data"].items()}
    want = sorted(f.as_posix() for f in _source_files() if f.parts[0] in share and f.name != ".gitkeep")
    assert want, "no prompt or scenario file in the sources?"
    missing = [f for f in want if not (share[Path(f).parts[0]] / Path(*Path(f).parts[1:])).is_file()]
    assert not missing, f"not installed: {missing}"


def test_systems_and_their_files_come_from_the_install(installed: Install) -> None:
    systems = installed.info["systems"]
    assert systems
    out = installed.run("systems").stdout
    for sid, s in systems.items():
        assert sid in out
        assert s["sample_scenarios"] and s["examples"], sid
        for p in s["sample_scenarios"] + s["examples"]:
            assert Path(p).is_file(), f"{sid}: {p} is not installed"
            assert _under(p, installed.venv) and not _under(p, ROOT), f"{sid}: {p} is not in the install"


def test_examples_run_from_the_install(installed: Install) -> None:
    out = installed.run("examples").stdout  # exit code 0: no case failed or xpassed
    summary = out.strip().splitlines()[-1]
    assert re.fullmatch(r"[1-9]\d* passed, 0 failed.*", summary), summary


def test_every_sample_scenario_plays_and_replays(installed: Install) -> None:
    for sid, s in installed.info["systems"].items():
        for i, scenario in enumerate(s["sample_scenarios"]):
            log = installed.cwd / f"{sid}-{i}.jsonl"
            installed.run("play", scenario, "--seat", "all=scripted", "--seed", "1", "--log", log, "--quiet")
            assert log.is_file()
            installed.run("replay", log, "--verify")


@pytest.fixture
def fake_llm(installed: Install) -> Iterator[str]:
    """The fake OpenAI-compatible server of tests/llm/conftest.py, on 127.0.0.1; its base URL."""
    script = installed.cwd / "fake_openai_server.py"
    script.write_text(FAKE_SERVER, encoding="utf-8")
    with running_fake_server(script) as base:
        yield base


def test_an_llm_seat_plays_every_system_from_the_install(installed: Install, fake_llm: str) -> None:
    """The GM is an LLM seat: every one of its decisions renders the system's installed prompts."""
    env = {**installed.env, "OPENAI_API_KEY": "dummy"}
    for sid, s in installed.info["systems"].items():
        log = installed.cwd / f"{sid}-llm.jsonl"
        installed.run("play", s["sample_scenarios"][0], "--seat", "all=scripted", "--seat", "gm=llm",
                      "--llm-base-url", fake_llm, "--llm-model", "fake", "--seed", "1", "--log", log, "--quiet", env=env)
        policies = [json.loads(line).get("policy") for line in log.read_text(encoding="utf-8").splitlines()]
        assert any(p and str(p).startswith("llm") for p in policies), f"{sid}: no decision answered by the LLM seat"
