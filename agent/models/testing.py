"""Test doubles behind the model seam (pydantic-ai's ``FunctionModel`` and a scripted-outputs model).

Both record every request they receive in ``.requests`` so tests can check the prompts an agent sent.
"""

from __future__ import annotations

import inspect
from collections import deque
from collections.abc import Awaitable, Callable, Iterable

from .base import ModelReply, ModelRequest

__all__ = ["FunctionModel", "ScriptedOutputsModel", "ScriptedOutputsExhausted"]

ReplyLike = str | ModelReply
ReplyFn = Callable[[ModelRequest], ReplyLike | Awaitable[ReplyLike]]


def _as_reply(value: object, name: str) -> ModelReply:
    if isinstance(value, ModelReply):
        return value
    if isinstance(value, str):
        return ModelReply(text=value, model=name)
    raise TypeError(f"model {name!r}: expected a str or ModelReply, got {type(value).__name__}: {value!r}")


class ScriptedOutputsExhausted(AssertionError):
    """A scripted model was asked for more outputs than the test gave it.

    An ``AssertionError`` and not a ``ModelError`` on purpose: an agent falls back to its scripted policy on
    ``ModelError``, which would hide the test's mistake. ``kind`` and ``retries`` mirror ``ModelError``.
    """

    kind = "exhausted"
    retries = 0


class FunctionModel:
    """A model whose reply is ``fn(request)``: a ``str`` (the reply text) or a whole ``ModelReply``.

    ``fn`` may be a coroutine function when the model is used through ``agenerate``.
    """

    def __init__(self, fn: ReplyFn, name: str = "function") -> None:
        self.fn = fn
        self.name = name
        self.requests: list[ModelRequest] = []

    def __repr__(self) -> str:
        return f"FunctionModel({getattr(self.fn, '__name__', self.fn)!r}, name={self.name!r})"

    def generate(self, request: ModelRequest) -> ModelReply:
        self.requests.append(request)
        result = self.fn(request)
        if inspect.isawaitable(result):
            if inspect.iscoroutine(result):
                result.close()  # no "never awaited" warning
            raise TypeError(f"model {self.name!r}: fn returned an awaitable; call agenerate() for an async fn")
        return _as_reply(result, self.name)

    async def agenerate(self, request: ModelRequest) -> ModelReply:
        self.requests.append(request)
        result = self.fn(request)
        if inspect.isawaitable(result):
            result = await result
        return _as_reply(result, self.name)


class ScriptedOutputsModel:
    """Replies with the given outputs in order; an exception in the list is raised in its turn.

    Running out raises ``ScriptedOutputsExhausted`` (the test gave too few outputs, or the agent asked more often
    than the test expected). ``remaining`` tells a test whether every output was used.
    """

    def __init__(self, outputs: Iterable[str | ModelReply | BaseException], name: str = "scripted-outputs") -> None:
        self._outputs: deque[str | ModelReply | BaseException] = deque(outputs)
        self._total = len(self._outputs)
        self.name = name
        self.requests: list[ModelRequest] = []

    def __repr__(self) -> str:
        return f"ScriptedOutputsModel(name={self.name!r}, used={self._total - self.remaining}/{self._total})"

    @property
    def remaining(self) -> int:
        return len(self._outputs)

    def generate(self, request: ModelRequest) -> ModelReply:
        self.requests.append(request)
        if not self._outputs:
            raise ScriptedOutputsExhausted(self._exhausted_message(request))
        output = self._outputs.popleft()
        if isinstance(output, BaseException):
            raise output
        return _as_reply(output, self.name)

    async def agenerate(self, request: ModelRequest) -> ModelReply:
        return self.generate(request)

    def _exhausted_message(self, request: ModelRequest) -> str:
        last_user = next((m.get("content", "") for m in reversed(request.messages) if m.get("role") == "user"), "")
        snippet = " ".join(last_user.split())
        if len(snippet) > 120:
            snippet = snippet[:117] + "..."
        return (
            f"model {self.name!r} ran out of scripted outputs: all {self._total} were used and request "
            f"#{len(self.requests)} asked for another (schema {request.schema_name!r}, last user message: {snippet!r})"
        )
