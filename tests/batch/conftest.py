from __future__ import annotations

import json
from pathlib import Path
from typing import Any

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


def run(capsys: pytest.CaptureFixture[str], *argv: Any) -> tuple[int, str, str]:
    """``trpg ARGV...`` in this process: exit code, stdout, stderr."""
    from agent.cli import main

    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def first_choice(req: Any) -> str:
    """A fake model's reply: the first legal option (or the fewest allowed), an unreadable reply for payloads."""
    props = req.schema["properties"]
    if "choice" in props:
        return json.dumps({"choice": props["choice"]["enum"][0]})
    if "choices" in props:
        c = props["choices"]
        return json.dumps({"choices": c["items"]["enum"][: max(1, c.get("minItems", 0))]})
    return "{}"  # payloads: unreadable, re-asked, then the scripted fallback


def fake_llm_agent(policy: str) -> Any:
    """An LLM seat's agent on an in-process model answering ``first_choice`` (no network)."""
    from agent.llm import LLMAgent
    from agent.models.testing import FunctionModel

    return LLMAgent(FunctionModel(first_choice, name="fake"), name=policy, reactions="scripted")
