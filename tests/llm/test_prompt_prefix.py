"""A stable prefix: every prompt an LLM seat sends in a session starts with the same system message (the role's
instructions, the rules summary, the scenario, the GM's notes), byte for byte, so that a provider's prompt cache
holds it and only the user message is new per call. Checked on every sample scenario of every registered system,
at the default settings and at those of ``--llm local``, at every decision an LLM seat would be asked, prompts cut
to fit the small model's window included (their scenario texts are the last thing cut, and none of the samples'
prompts needs it)."""

from __future__ import annotations

from collections import defaultdict

import pytest

from agent.cli import LOCAL_BUDGET, LOCAL_MAX_PROMPT, LOCAL_WINDOW
from agent.llm import LLMAgent, RenderOnly, rendered_prompts
from agent.local_llm import smollm2_estimate
from agent.scripted import ScriptedAgent
from agent.table import MAX_DECISIONS
from engine.core import Session, load_scenario, systems

SAMPLES = [pytest.param(p, id=p.stem) for info in systems() for p in info.sample_scenarios]


def _agent(local: bool) -> LLMAgent:
    if local:
        return LLMAgent(RenderOnly(), language="en", budget_tokens=LOCAL_BUDGET, max_prompt_tokens=LOCAL_MAX_PROMPT,
                        window_tokens=LOCAL_WINDOW, count_tokens=smollm2_estimate)
    return LLMAgent(RenderOnly())


@pytest.mark.parametrize("local", [False, True], ids=["default", "local"])
@pytest.mark.parametrize("path", SAMPLES)
def test_system_message_is_the_same_for_every_decision_of_a_seat(path, local):
    s = Session(load_scenario(path), 0)
    prefixes: dict[str, set[str]] = defaultdict(set)
    users: dict[str, set[str]] = defaultdict(set)
    asked = 0
    for ex in rendered_prompts(s, _agent(local), ScriptedAgent(), MAX_DECISIONS):
        asked += 1
        system_msg, user_msg = ex.prompt.messages
        assert system_msg["role"] == "system" and user_msg["role"] == "user"
        prefixes[ex.decision.actor].add(system_msg["content"])
        users[ex.decision.actor].add(user_msg["content"])
    assert asked > 20
    assert prefixes.keys() >= {"gm"}
    for actor, texts in prefixes.items():
        assert len(texts) == 1, f"{path.stem}: {actor}'s system message changed {len(texts) - 1} times"
    # the prefix is not where the decision went: the user messages differ from call to call
    assert any(len(u) > 1 for u in users.values())
