"""The OpenAI-compatible adapter of the model seam (OpenAI, vLLM, Ollama, llama.cpp server).

The only module that imports ``openai``. The SDK's own retry loop is switched off (``max_retries=0``) and
transport faults are retried here with ``tenacity``, so the retry budget, the backoff and the count of retries
spent are ours to bound, test and report (``ModelReply.retries``).

Failures become ``ModelError`` with a one-line message (endpoint, model, what failed, attempts):

- ``kind="transport"``: timeouts, refused connections, 429 and 5xx (also 408/409, which the SDK itself
  treats as transient) still failing when the attempts or the total time ran out;
- ``kind="api"``: the endpoint refused the request (400, 401, 403, 404, 422, ...): never retried;
- ``kind="response"``: a 200 reply we cannot read (no choices).

The API key is never logged, stored outside the SDK client, nor put into a message: error texts are scrubbed
of it (a misconfigured proxy may echo it back) and raised without the SDK exception attached as their cause,
because that exception carries the request and its ``Authorization`` header.
"""

from __future__ import annotations

import asyncio
import email.utils
import inspect
import json
import logging
import math
import os
import re
import threading
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

import openai
from openai.types.chat import ChatCompletion
from tenacity import (
    AsyncRetrying,
    RetryCallState,
    RetryError,
    Retrying,
    retry_if_exception,
    wait_exponential_jitter,
)
from tenacity.stop import stop_base

from .base import ModelError, ModelReply, ModelRequest

if TYPE_CHECKING:
    import httpx2

__all__ = ["OpenAIModel", "PROMPT_ONLY_INSTRUCTION"]

log = logging.getLogger(__name__)

#: appended to the last user message in ``prompt_only`` mode; ``{schema}`` is the JSON schema
PROMPT_ONLY_INSTRUCTION = "Reply with one JSON object matching this schema:\n{schema}"

#: the key used when none is configured: local servers (vLLM, Ollama, llama.cpp) accept any key
LOCAL_API_KEY = "not-needed"

_DEFAULT_BASE_URL = "https://api.openai.com/v1"
_NAME_OK = re.compile(r"[^A-Za-z0-9_-]")  # OpenAI's function / json_schema name pattern is ^[a-zA-Z0-9_-]{1,64}$
_BEARER = re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._~+/=-]+")
_TRANSIENT_STATUS = (408, 409)  # retried by the SDK's own policy too
_MIN_ATTEMPT_S = 1.0  # do not start an attempt with less time than this left in the total budget

SleepFn = Callable[[float], "Awaitable[None] | None"]


def _schema_name(name: str) -> str:
    return _NAME_OK.sub("_", name)[:64] or "answer"


def _public_url(url: str) -> str:
    """The endpoint as it may be shown: no user:password, no query string."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path.rstrip("/"), "", ""))


def _retry_after_s(exc: BaseException | None) -> float | None:
    """The server's requested wait (``retry-after-ms``, then ``retry-after`` in seconds or as an HTTP date)."""
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    for header, divisor in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(header)
        if value is None:
            continue
        try:
            delay = float(value) / divisor
        except ValueError:
            continue
        return delay if math.isfinite(delay) and delay >= 0 else None
    value = headers.get("retry-after")
    if value:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
        return max(0.0, when.timestamp() - time.time())
    return None


def _is_retryable(exc: BaseException) -> bool:
    if isinstance(exc, openai.APIStatusError):
        should_retry = exc.response.headers.get("x-should-retry")
        if should_retry in ("true", "false"):  # the server says so explicitly (the SDK obeys this too)
            return should_retry == "true"
        return isinstance(exc, (openai.RateLimitError, openai.InternalServerError)) or (
            exc.status_code in _TRANSIENT_STATUS
        )
    # APITimeoutError is a subclass of APIConnectionError
    return isinstance(exc, openai.APIConnectionError)


class _StopAfter(stop_base):
    """Stop after ``max_attempts``, or when the next attempt could not start (after its wait) inside the total budget."""

    def __init__(self, max_attempts: int, max_total: float):
        self.max_attempts = max_attempts
        self.max_total = max_total

    def __call__(self, retry_state: RetryCallState) -> bool:
        if retry_state.attempt_number >= self.max_attempts:
            return True
        elapsed = retry_state.seconds_since_start or 0.0
        return elapsed + retry_state.upcoming_sleep > self.max_total - _MIN_ATTEMPT_S


class OpenAIModel:
    """A chat-completions endpoint behind the ``Model`` seam.

    ``timeout`` bounds one attempt, ``max_attempts`` the number of attempts, ``max_wait`` one backoff wait (also
    a server's ``retry-after``), ``max_total`` the whole call including waits (default: two timeouts plus one
    ``max_wait``; an attempt never runs past it). ``http_client`` / ``async_http_client`` are ``httpx2`` clients
    handed to the SDK (tests pass ``httpx2.MockTransport``); ``sleep`` replaces the backoff sleep (tests record
    the waits instead of sleeping; it may return an awaitable for the async path).

    ``ModelReply.latency_s`` is the whole call as the table waited for it, retries and waits included.
    """

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        timeout: float = 60.0,
        max_attempts: int = 4,
        max_wait: float = 30.0,
        max_total: float | None = None,
        http_client: httpx2.Client | None = None,
        async_http_client: httpx2.AsyncClient | None = None,
        sleep: SleepFn | None = None,
        name: str | None = None,
    ) -> None:
        if max_attempts < 1:
            raise ValueError(f"max_attempts must be at least 1, got {max_attempts}")
        if timeout <= 0 or max_wait < 0:
            raise ValueError(f"timeout must be > 0 and max_wait >= 0, got timeout={timeout}, max_wait={max_wait}")
        self.model = model
        self.name = name or f"openai:{model}"
        self.base_url = base_url
        self.timeout = float(timeout)
        self.max_attempts = max_attempts
        self.max_wait = float(max_wait)
        self.max_total = float(max_total) if max_total is not None else 2 * self.timeout + self.max_wait
        # resolved now so that the SDK never falls back to its own "missing credentials" error for local servers
        self.__api_key = api_key or os.environ.get("OPENAI_API_KEY") or LOCAL_API_KEY
        self._http_client = http_client
        self._async_http_client = async_http_client
        self._sleep = sleep
        self._client: openai.OpenAI | None = None
        self._async_client: openai.AsyncOpenAI | None = None
        self._async_loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()
        self._backoff = wait_exponential_jitter(multiplier=0.5, max=self.max_wait, jitter=0.5)

    def __repr__(self) -> str:
        return (
            f"OpenAIModel(model={self.model!r}, endpoint={self.endpoint!r}, timeout={self.timeout}, "
            f"max_attempts={self.max_attempts})"
        )

    @property
    def endpoint(self) -> str:
        """The base URL requests go to, safe to show (no credentials)."""
        return _public_url(self.base_url or os.environ.get("OPENAI_BASE_URL") or _DEFAULT_BASE_URL)

    # -- clients (built on first use) ------------------------------------------------------------------------------

    def _sync_client(self) -> openai.OpenAI:
        with self._lock:
            if self._client is None:
                self._client = openai.OpenAI(
                    api_key=self.__api_key,
                    base_url=self.base_url,
                    timeout=self.timeout,
                    max_retries=0,
                    http_client=self._http_client,
                )
            return self._client

    def _aclient(self) -> openai.AsyncOpenAI:
        # An SDK-made async connection pool is bound to the event loop it first ran on; a new loop (another
        # asyncio.run) gets a new client. A caller-provided async_http_client is the caller's to manage.
        loop = asyncio.get_running_loop()
        if self._async_client is None or (self._async_http_client is None and self._async_loop is not loop):
            self._async_client = openai.AsyncOpenAI(
                api_key=self.__api_key,
                base_url=self.base_url,
                timeout=self.timeout,
                max_retries=0,
                http_client=self._async_http_client,
            )
            self._async_loop = loop
        return self._async_client

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    async def aclose(self) -> None:
        if self._async_client is not None:
            await self._async_client.close()
            self._async_client = None

    # -- the request ---------------------------------------------------------------------------------------------

    def build_kwargs(self, request: ModelRequest) -> dict[str, Any]:
        """The ``chat.completions.create`` arguments for ``request`` (public so the agent can log the exact ask)."""
        messages: list[dict[str, Any]] = [dict(m) for m in request.messages]
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "temperature": request.temperature,
            "max_tokens": request.max_tokens,
        }
        if request.seed is not None:
            kwargs["seed"] = request.seed
        name = _schema_name(request.schema_name)
        mode = request.mode
        if mode == "json_schema":
            kwargs["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": name, "schema": request.schema, "strict": False},
            }
        elif mode == "json_object_schema":
            # llama-cpp-python's server turns the schema into a grammar; the SDK passes the extra key through as is
            kwargs["response_format"] = {"type": "json_object", "schema": request.schema}
        elif mode == "tools":
            kwargs["tools"] = [
                {
                    "type": "function",
                    "function": {
                        "name": name,
                        "description": "Give your answer by calling this function.",
                        "parameters": request.schema,
                    },
                }
            ]
            kwargs["tool_choice"] = {"type": "function", "function": {"name": name}}
        elif mode == "prompt_only":
            instruction = PROMPT_ONLY_INSTRUCTION.format(schema=json.dumps(request.schema, ensure_ascii=False))
            for message in reversed(messages):
                if message.get("role") == "user":
                    message["content"] = f"{message.get('content') or ''}\n\n{instruction}"
                    break
            else:
                messages.append({"role": "user", "content": instruction})
        else:
            raise ValueError(
                f"unknown output mode {mode!r}; expected json_schema, json_object_schema, tools or prompt_only"
            )
        return kwargs

    def generate(self, request: ModelRequest) -> ModelReply:
        kwargs = self.build_kwargs(request)
        client = self._sync_client()
        start = time.monotonic()
        attempts = 0
        response: object = None
        failure: ModelError | None = None
        retrying = Retrying(
            stop=_StopAfter(self.max_attempts, self.max_total),
            wait=self._wait,
            retry=retry_if_exception(_is_retryable),
            sleep=self._sleep_sync,
            before_sleep=self._log_retry,
        )
        try:
            for attempt in retrying:
                with attempt:
                    attempts = attempt.retry_state.attempt_number
                    response = client.chat.completions.create(**kwargs, timeout=self._attempt_timeout(start))
        except RetryError as exc:
            failure = self._transport_failure(exc, attempts, start)
        except openai.APIError as exc:
            failure = self._api_failure(exc, attempts)
        except json.JSONDecodeError as exc:
            failure = self._unreadable(f"body is not valid JSON ({exc.msg} at char {exc.pos})", attempts)
        if failure is not None:
            raise failure  # outside the except blocks: no SDK exception (with its request headers) attached
        return self._reply(request, response, attempts - 1, start)

    async def agenerate(self, request: ModelRequest) -> ModelReply:
        kwargs = self.build_kwargs(request)
        client = self._aclient()
        start = time.monotonic()
        attempts = 0
        response: object = None
        failure: ModelError | None = None
        retrying = AsyncRetrying(
            stop=_StopAfter(self.max_attempts, self.max_total),
            wait=self._wait,
            retry=retry_if_exception(_is_retryable),
            sleep=self._sleep_async,
            before_sleep=self._log_retry,
        )
        try:
            async for attempt in retrying:
                with attempt:
                    attempts = attempt.retry_state.attempt_number
                    response = await client.chat.completions.create(**kwargs, timeout=self._attempt_timeout(start))
        except RetryError as exc:
            failure = self._transport_failure(exc, attempts, start)
        except openai.APIError as exc:
            failure = self._api_failure(exc, attempts)
        except json.JSONDecodeError as exc:
            failure = self._unreadable(f"body is not valid JSON ({exc.msg} at char {exc.pos})", attempts)
        if failure is not None:
            raise failure
        return self._reply(request, response, attempts - 1, start)

    # -- retry policy ------------------------------------------------------------------------------------------------

    def _wait(self, retry_state: RetryCallState) -> float:
        exc = retry_state.outcome.exception() if retry_state.outcome is not None else None
        hinted = _retry_after_s(exc)
        if hinted is not None:
            return min(hinted, self.max_wait)
        return float(self._backoff(retry_state))

    def _attempt_timeout(self, start: float) -> float:
        left = self.max_total - (time.monotonic() - start)
        return max(_MIN_ATTEMPT_S, min(self.timeout, left))

    def _sleep_sync(self, seconds: float) -> None:
        if self._sleep is None:
            time.sleep(seconds)
            return
        result = self._sleep(seconds)
        if inspect.isawaitable(result):
            if inspect.iscoroutine(result):
                result.close()  # no "never awaited" warning on top of the error
            raise TypeError("OpenAIModel(sleep=...) returned an awaitable in generate(); give a plain function")

    async def _sleep_async(self, seconds: float) -> None:
        if self._sleep is None:
            await asyncio.sleep(seconds)
            return
        result = self._sleep(seconds)
        if inspect.isawaitable(result):
            await result

    def _log_retry(self, retry_state: RetryCallState) -> None:
        exc = retry_state.outcome.exception() if retry_state.outcome is not None else None
        log.warning(
            "%s: %s; retrying in %.1f s (attempt %d of %d)",
            self.endpoint,
            self._describe(exc),
            retry_state.upcoming_sleep,
            retry_state.attempt_number,
            self.max_attempts,
        )

    # -- results and failures ----------------------------------------------------------------------------------------

    def _scrub(self, text: str) -> str:
        """The text without the key (a real key only: the local placeholder and very short keys are no secret,
        and replacing them would mangle ordinary text)."""
        key = self.__api_key
        if key != LOCAL_API_KEY and len(key) >= 8 and key in text:
            return text.replace(key, "***")
        return text

    def _redact(self, text: str) -> str:
        return _BEARER.sub(r"\1***", self._scrub(text))

    def _redact_tree(self, value: Any) -> Any:
        if isinstance(value, str):
            return self._scrub(value)
        if isinstance(value, dict):
            return {k: self._redact_tree(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self._redact_tree(v) for v in value]
        return value

    def _describe(self, exc: BaseException | None) -> str:
        if exc is None:
            return "no result"
        if isinstance(exc, openai.APITimeoutError):
            text = f"timed out after {self.timeout:g} s"
        elif isinstance(exc, openai.APIConnectionError):
            cause = exc.__cause__
            text = f"connection failed ({cause})" if cause is not None else "connection failed"
        elif isinstance(exc, openai.APIStatusError):
            text = f"HTTP {exc.status_code} {type(exc).__name__}: {exc.message}"
        else:
            text = f"{type(exc).__name__}: {exc}"
        return self._redact(" ".join(text.split()))

    def _transport_failure(self, exc: RetryError, attempts: int, start: float) -> ModelError:
        last = exc.last_attempt.exception()
        elapsed = time.monotonic() - start
        budget = "attempts" if attempts >= self.max_attempts else f"{self.max_total:g} s total budget"
        message = (
            f"model {self.model!r} at {self.endpoint}: {self._describe(last)}; gave up after {attempts} "
            f"attempt{'s' if attempts != 1 else ''} in {elapsed:.1f} s ({budget} exhausted)"
        )
        return ModelError(message, retries=attempts - 1, kind="transport")

    def _api_failure(self, exc: openai.APIError, attempts: int) -> ModelError:
        message = (
            f"model {self.model!r} at {self.endpoint}: request refused, {self._describe(exc)} "
            f"(not retried; attempt {attempts} of {self.max_attempts})"
        )
        return ModelError(message, retries=max(0, attempts - 1), kind="api")

    def _unreadable(self, what: str, attempts: int) -> ModelError:
        message = f"model {self.model!r} at {self.endpoint}: unreadable reply, {self._redact(what)}"
        return ModelError(message, retries=max(0, attempts - 1), kind="response")

    def _reply(self, request: ModelRequest, response: object, retries: int, start: float) -> ModelReply:
        latency = time.monotonic() - start
        if not isinstance(response, ChatCompletion):
            # e.g. an HTML login page from a proxy, or a JSON body of another shape
            snippet = " ".join(str(response).split())[:80]
            raise self._unreadable(f"not a chat completion: {snippet!r}", retries + 1)
        if not response.choices:
            raise self._unreadable("no choices", retries + 1)
        message = response.choices[0].message
        text = message.content or ""
        if request.mode == "tools" and message.tool_calls:
            function = getattr(message.tool_calls[0], "function", None)
            text = getattr(function, "arguments", None) or ""
        text = self._scrub(text)  # only a leaking proxy could put the key here, but then it stays out of the log
        usage = response.usage
        details = getattr(usage, "prompt_tokens_details", None) if usage is not None else None
        cached = getattr(details, "cached_tokens", None) if details is not None else None
        return ModelReply(
            text=text,
            model=response.model or self.model,
            prompt_tokens=usage.prompt_tokens if usage is not None else None,
            completion_tokens=usage.completion_tokens if usage is not None else None,
            cached_tokens=cached if isinstance(cached, int) and not isinstance(cached, bool) else None,
            latency_s=latency,
            retries=retries,
            raw=self._redact_tree(response.model_dump(mode="json", exclude_unset=True)),
        )
