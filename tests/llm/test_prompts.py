"""Prompt templates: every role template renders every Bloodberry decision a scripted session reaches, prompts hold
no information their seat may not see, the transcript keeps to its token budget, and ids/hashes are logged right."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent.llm import reply_schema, speaks
from agent.prompting import (
    ROLES,
    PromptError,
    PromptLibrary,
    approx_tokens,
    build_prompt,
    default_library,
    recent_transcript,
)
from agent.scripted import ScriptedAgent
from engine.core import Session, load_scenario
from engine.core.decision import Decision
from engine.resources import resource_dir


class Recorder:
    """A scripted agent that renders prompts while it plays (the transcript must be the one at decision time)."""

    name = "scripted"

    def __init__(self, fn: Any):
        self.inner = ScriptedAgent()
        self.fn = fn

    def act(self, decision: Decision, session: Session) -> Any:
        self.fn(decision, session)
        return self.inner.act(decision, session)


def scripted_run(scenario_path: Path, fn: Any, *, seed: int = 7, create: bool = False) -> Session:
    s = Session(load_scenario(scenario_path), seed, options={"create_pcs": True} if create else None)
    agent = Recorder(fn)
    while (d := s.pending) is not None:
        s.answer(agent.act(d, s), policy=agent.name)
    return s


def role_of(session: Session, actor: str) -> str:
    role = session.actor_role(actor)
    if role == "npc" and session.game.t.chars[actor].kind == "curse":  # type: ignore[attr-defined]
        return "curse"
    return role


def render(d: Decision, session: Session, role: str, *, budget: int = 3000, language: str = "ja") -> Any:
    say = speaks(d, role)
    schema = reply_schema(d, say=say)
    return build_prompt(d, session.events, system="bloodberry", role=role, schema=schema, speaks=say,
                        language=language, budget_tokens=budget)


def _variants(text: str) -> Iterator[str]:
    """A secret as written, as JSON would escape it, and each of its longer lines."""
    yield text
    yield json.dumps(text, ensure_ascii=False)[1:-1]
    for line in text.splitlines():
        line = line.strip()
        if len(line) >= 8:
            yield line


@pytest.mark.parametrize("create", [False, True], ids=["pregenerated", "creation"])
def test_every_template_renders_every_decision_kind(scenario_path, create):
    kinds: set[str] = set()

    def check(d: Decision, s: Session) -> None:
        kinds.add(d.kind)
        for role in ROLES:
            for language in ("ja", "en"):
                p = render(d, s, role, language=language)
                user = p.messages[1]["content"]
                assert d.kind in user and d.prompt in user
                for o in d.options or ():
                    assert f"`{o.id}`" in user and o.label in user
                if d.payload_model is not None:
                    assert '"payload"' in user
                assert p.template_id == f"bloodberry/{role}.md.j2"
                assert p.messages[0]["content"] and "{{" not in user and "{%" not in user

    s = scripted_run(scenario_path, check, create=create)
    assert s.is_over
    assert len(kinds) >= (20 if create else 30), sorted(kinds)
    if create:
        assert any(k.startswith("cc.") for k in kinds)


def test_a_seat_only_sees_what_it_may(scenario_path):
    checked = {"pc": 0, "npc": 0, "curse": 0, "gm": 0}

    def check(d: Decision, s: Session) -> None:
        secrets = s.game.secrets()  # type: ignore[attr-defined]
        role = role_of(s, d.actor)
        p = render(d, s, role)
        text = "\n".join(m["content"] for m in p.messages)
        checked[role] += 1
        if role == "gm":
            gm_notes = s.scenario.model.gm_notes  # type: ignore[attr-defined]
            assert gm_notes.splitlines()[1] in text  # the GM prompt has the GM's secrets (the check below can fail)
            return
        for owner, texts in secrets.items():
            if owner == d.actor:
                continue
            for secret in texts:
                for v in _variants(secret):
                    assert v not in text, f"{d.actor} ({role}) sees {owner}'s secret in {d.kind}: {v[:40]}"

    scripted_run(scenario_path, check)
    assert checked["pc"] > 100 and checked["gm"] > 10 and checked["curse"] >= 1


def test_transcript_keeps_to_its_budget_and_to_the_newest_lines(scenario_path):
    seen: list[tuple[Decision, Session, list[Any]]] = []

    def grab(d: Decision, s: Session) -> None:
        if d.seq in (150, 400):
            seen.append((d, s, list(s.events)))

    scripted_run(scenario_path, grab)
    assert len(seen) == 2
    for d, s, events in seen:
        obs = s.game.observation(d.actor)
        full = recent_transcript(events, d.actor, obs, 10**9)
        for budget in (0, 20, 100, 400, 3000):
            lines = recent_transcript(events, d.actor, obs, budget)
            assert sum(approx_tokens(x) + 1 for x in lines) <= budget
            assert lines == full[len(full) - len(lines):]  # a suffix: the most recent lines are kept
        small, big = recent_transcript(events, d.actor, obs, 100), recent_transcript(events, d.actor, obs, 3000)
        assert len(small) < len(big) <= len(full)
        p = build_prompt(d, events, system="bloodberry", role=role_of(s, d.actor), schema=reply_schema(d, say=True),
                         speaks=True, budget_tokens=100, observation=obs)
        assert p.transcript_tokens <= 100 and all(x in p.messages[1]["content"] for x in small)
        empty = build_prompt(d, events, system="bloodberry", role=role_of(s, d.actor), schema=reply_schema(d, say=True),
                             speaks=True, budget_tokens=0, observation=obs)
        assert empty.transcript_lines == 0 and "まだ何も起きていない" in empty.messages[1]["content"]


def test_template_ids_and_hashes():
    lib = default_library()
    root = resource_dir("prompts")
    for role in ROLES:
        tid = lib.role_template_id("bloodberry", role)
        assert lib.template_hash(tid) == hashlib.sha256((root / tid).read_bytes()).hexdigest()
        deps = lib.dependencies(tid)
        assert set(deps) == {tid, "common/decision.md.j2", "common/answer_format.md.j2"}
    assert lib.rules_id("bloodberry", "ja") == "bloodberry/rules.md"
    assert lib.rules_id("bloodberry", "en") == "bloodberry/rules.en.md"
    with pytest.raises(PromptError, match="unknown prompt role"):
        lib.role_template_id("bloodberry", "dragon")


def test_a_broken_template_is_named(tmp_path, scenario_path):
    (tmp_path / "bloodberry").mkdir()
    (tmp_path / "common").mkdir()
    (tmp_path / "bloodberry" / "rules.md").write_text("rules", encoding="utf-8")
    (tmp_path / "bloodberry" / "pc.md.j2").write_text("{% block system %}{{ no_such_field }}{% endblock %}"
                                                      "{% block user %}x{% endblock %}", encoding="utf-8")
    lib = PromptLibrary(tmp_path)
    s = Session(load_scenario(scenario_path), 7)
    d = s.pending
    assert d is not None
    with pytest.raises(PromptError, match=r"no_such_field"):
        build_prompt(d, s.events, system="bloodberry", role="pc", schema=reply_schema(d, say=False), speaks=False,
                     library=lib)
    with pytest.raises(PromptError, match="not found"):
        build_prompt(d, s.events, system="bloodberry", role="gm", schema=reply_schema(d, say=False), speaks=False,
                     library=lib)


def test_prompts_say_only_listed_ids_are_accepted(scenario_path):
    s = Session(load_scenario(scenario_path), 7)
    d = s.pending
    assert d is not None
    for language, words in (("ja", "エンジンがすべて拒否する"), ("en", "The engine refuses any id that is not listed")):
        p = render(d, s, "gm", language=language)
        assert words in p.messages[1]["content"]


def test_transcript_hides_other_actors_private_answers_and_state(scenario_path):
    """aoi writes a private victory condition: aoi and the GM see it later, the other PCs never do; GM-only flags
    stay out of PC prompts."""
    secret = "紅さんに、いつかこの気持ちを自分の言葉で伝えること。"
    seen: dict[str, list[bool]] = {"aoi": [], "gm": [], "others": []}
    flags_seen: dict[str, list[bool]] = {"gm": [], "pcs": []}
    written = False

    class Writer(Recorder):
        def act(self, decision: Decision, session: Session) -> Any:
            nonlocal written
            self.fn(decision, session)
            if decision.actor == "aoi" and decision.kind == "bs.victory" and not written:
                if decision.payload_model is not None:
                    written = True
                    return {"payload": {"text": secret}}
                if "create" in decision.option_ids:
                    return "create"
            return self.inner.act(decision, session)

    def check(d: Decision, s: Session) -> None:
        if not written:
            return
        role = role_of(s, d.actor)
        text = "\n".join(m["content"] for m in render(d, s, role).messages)
        key = "aoi" if d.actor == "aoi" else ("gm" if d.actor == "gm" else "others")
        if role in ("pc", "gm"):
            seen[key].append(secret in text)
            flags_seen["gm" if role == "gm" else "pcs"].append("[state] flag." in text)

    s = Session(load_scenario(scenario_path), 7)
    agent = Writer(check)
    while (d := s.pending) is not None:
        s.answer(agent.act(d, s), policy=agent.name)
    assert written and seen["others"] and seen["aoi"] and seen["gm"]
    assert not any(seen["others"])  # never shown to beni, chika or dora
    assert seen["aoi"][0] and seen["gm"][0]  # the author and the GM know it
    assert any(flags_seen["gm"]) and not any(flags_seen["pcs"])


def test_small_context_windows_get_compacted_prompts(scenario_path):
    seen: list[Any] = []

    def grab(d: Decision, s: Session) -> None:
        if d.seq in (5, 300) or (d.actor == "gm" and d.kind == "gm.curse_event" and len(seen) < 4):
            role = role_of(s, d.actor)
            full = render(d, s, role, language="en")
            schema = reply_schema(d, say=speaks(d, role))
            small = build_prompt(d, s.events, system="bloodberry", role=role, schema=schema, speaks=speaks(d, role),
                                 language="en", budget_tokens=800, max_prompt_tokens=2000)
            roomy = build_prompt(d, s.events, system="bloodberry", role=role, schema=schema, speaks=speaks(d, role),
                                 language="en", budget_tokens=800, max_prompt_tokens=10**6)
            seen.append((d, full, small, roomy))

    scripted_run(scenario_path, grab)
    assert len(seen) >= 3
    for d, full, small, roomy in seen:
        assert not full.compacted and not roomy.compacted and small.compacted
        size = sum(len(m["content"]) for m in small.messages)
        assert size < sum(len(m["content"]) for m in full.messages) and size < 6000
        assert "bloodberry/rules.en.md" not in small.templates and "## Rules" not in small.messages[0]["content"]
        user = small.messages[1]["content"]
        assert d.kind in user and all(f"`{o.id}`" in user for o in d.options or ())
