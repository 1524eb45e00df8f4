"""Prompt tokens counted with the model's own tokenizer where it is known (``agent.tokens``: OpenAI's vocabularies,
offline, from the ``tokens`` extra), and the estimate for the others (``agent.prompting.approx_tokens``)."""

from __future__ import annotations

import pytest

from agent.prompting import approx_tokens
from agent.tokens import encoding_for, model_counter

pytest.importorskip("bpe_openai", reason="the tokens extra (CI installs it with dev)")


@pytest.mark.parametrize(("model", "encoding"), [
    ("gpt-4o-mini", "o200k_base"), ("gpt-4o", "o200k_base"), ("gpt-4.1-mini", "o200k_base"), ("o3-mini", "o200k_base"),
    ("openai/gpt-4o-mini", "o200k_base"), ("gpt-4", "cl100k_base"), ("gpt-3.5-turbo", "cl100k_base"),
    ("SmolLM2-135M-Instruct.Q4_1", None), ("llama3.1:8b", None), ("qwen2.5-7b-instruct", None),
])
def test_the_encoding_of_a_model(model, encoding):
    assert encoding_for(model) == encoding
    found = model_counter(model)
    assert (found[1] if found else None) == encoding


def test_counts_are_o200k_s():
    count, name = model_counter("gpt-4o-mini")
    assert name == "o200k_base"
    # fixed by OpenAI's published vocabulary (the same counts as tiktoken's o200k_base)
    assert count("Hello world, this is a test of the tokenizer.") == 11
    assert count("") == 0
    ja = "あなたは TRPG『ブラッドベリー』のプレイヤーとして、PC を演じます。"
    assert count(ja) == 22
    assert count(ja + ja) > count(ja)


def test_the_estimate_is_near_o200k_on_the_prompts_templates():
    """``approx_tokens`` was fitted against o200k (the samples' prompts, the prompt, scenario and doc files): the
    rules summaries of every system, in both languages, are within 15 % (measured: -5 % to +4 %)."""
    from engine.resources import resource_dir

    count, _ = model_counter("gpt-4o-mini")
    ratios = []
    for path in sorted(resource_dir("prompts").glob("*/rules*.md")):
        text = path.read_text(encoding="utf-8")
        ratios.append(approx_tokens(text) / count(text))
    assert len(ratios) >= 8
    assert all(0.85 <= r <= 1.15 for r in ratios), ratios


def test_an_llm_seat_counts_with_its_model_s_tokenizer():
    from agent.llm import LLMAgent

    class Named:
        def __init__(self, name: str):
            self.name = name

        def generate(self, request):  # pragma: no cover - never called
            raise AssertionError

    hello = "Hello world, this is a test of the tokenizer."
    assert LLMAgent(Named("gpt-4o-mini")).count_tokens(hello) == 11  # type: ignore[arg-type,misc]
    assert LLMAgent(Named("llama3.1:8b")).count_tokens is None  # type: ignore[arg-type]  # estimated: approx_tokens
    assert LLMAgent(Named("gpt-4o-mini"), count_tokens=len).count_tokens is len  # type: ignore[arg-type]
    from agent.models.openai_model import OpenAIModel

    client = OpenAIModel("gpt-4o-mini", base_url="http://127.0.0.1:9/v1", api_key="x")
    assert client.name == "openai:gpt-4o-mini" and LLMAgent(client).count_tokens(hello) == 11  # type: ignore[misc]
