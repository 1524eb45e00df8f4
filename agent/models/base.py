"""The one model seam (Inspect AI's ``ModelAPI.generate``, pydantic-ai's ``Model.request``).

Every LLM-backed agent talks to a ``Model``. Adapters: the OpenAI-compatible client (``openai_model.py``: OpenAI,
vLLM, Ollama, llama.cpp server) and two test doubles (``testing.py``: a function-driven model and a
scripted-outputs model that fails loudly when it runs out). The SDK is imported only by the adapter that uses it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

__all__ = ["OutputMode", "OUTPUT_MODES", "ModelRequest", "ModelReply", "Model", "ModelError"]

#: how structured output is asked for (per endpoint):
#: json_schema        response_format={"type": "json_schema", "json_schema": {...}}  (OpenAI, vLLM, Ollama)
#: json_object_schema response_format={"type": "json_object", "schema": {...}}       (llama-cpp-python server)
#: tools              one forced function call whose parameters are the schema
#: prompt_only        the schema is described in the prompt; the reply is parsed leniently
OutputMode = Literal["json_schema", "json_object_schema", "tools", "prompt_only"]
OUTPUT_MODES: tuple[str, ...] = ("json_schema", "json_object_schema", "tools", "prompt_only")


@dataclass(frozen=True)
class ModelRequest:
    messages: list[dict[str, str]]  # [{"role": "system"|"user"|"assistant", "content": "..."}]
    schema: dict[str, Any]  # JSON schema of the expected reply object
    schema_name: str = "answer"
    mode: OutputMode = "json_schema"
    temperature: float = 0.0
    max_tokens: int = 512
    seed: int | None = None


@dataclass
class ModelReply:
    text: str  # the raw reply text (or the tool call's arguments)
    model: str = ""
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    #: prompt tokens the endpoint served from its prompt cache (``usage.prompt_tokens_details.cached_tokens``),
    #: when it says so
    cached_tokens: int | None = None
    latency_s: float = 0.0
    retries: int = 0  # transport retries spent on this request
    raw: dict[str, Any] = field(default_factory=dict)


class ModelError(RuntimeError):
    """The model could not be reached or answered unusably after the retry budget (the agent then falls back)."""

    def __init__(self, message: str, *, retries: int = 0, kind: str = "transport"):
        super().__init__(message)
        self.retries = retries
        self.kind = kind


@runtime_checkable
class Model(Protocol):
    name: str

    def generate(self, request: ModelRequest) -> ModelReply: ...

    async def agenerate(self, request: ModelRequest) -> ModelReply: ...
