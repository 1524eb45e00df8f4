"""Transport faults: what is retried, how long it waits, when it gives up, and that the key never leaks.

The backoff sleep is replaced by a recorder, so waits are checked as numbers and the tests do not sleep.
"""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import time
import traceback
import httpx2
import pytest

from agent.models import ModelError, ModelReply, OpenAIModel

from .test_models import SECRET, MockEndpoint, completion, request
from .test_models import no_network  # noqa: F401  (the autouse socket guard applies here too)


def error(status: int, message: str = "boom", **headers: str) -> httpx2.Response:
    return httpx2.Response(status, json={"error": {"message": message, "type": "server_error"}}, headers=headers)


class Sleeps(list[float]):
    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def everything_said(exc: BaseException) -> str:
    """Every text an exception can show: message, repr, attributes, and the whole formatted chain."""
    return "\n".join([str(exc), repr(exc), repr(vars(exc)), *traceback.format_exception(exc)])


def test_timeout_then_success_counts_one_retry_with_default_backoff():
    endpoint = MockEndpoint(httpx2.ReadTimeout("read timed out"), completion())
    sleeps = Sleeps()
    reply = endpoint.model(sleep=sleeps).generate(request())
    assert reply.retries == 1
    assert reply.text.startswith('{"option"')
    assert len(endpoint.requests) == 2
    assert len(sleeps) == 1 and 0.5 <= sleeps[0] <= 1.0  # exponential backoff with jitter, first step


def test_backoff_grows_and_is_capped_by_max_wait():
    endpoint = MockEndpoint(error(503), error(503), error(503), error(503), completion())
    sleeps = Sleeps()
    reply = endpoint.model(sleep=sleeps, max_attempts=5, max_wait=1.6).generate(request())
    assert reply.retries == 4
    assert 0.5 <= sleeps[0] <= 1.0 and 1.0 <= sleeps[1] <= 1.5
    assert sleeps[2] == sleeps[3] == 1.6


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"retry-after": "2"}, 2.0),
        ({"retry-after-ms": "1500"}, 1.5),
        ({"retry-after-ms": "250", "retry-after": "9"}, 0.25),  # milliseconds win, as in the SDK
        ({"retry-after": "120"}, 30.0),  # capped by max_wait
    ],
)
def test_429_honours_retry_after(headers: dict[str, str], expected: float):
    endpoint = MockEndpoint(error(429, "Rate limit reached", **headers), completion())
    sleeps = Sleeps()
    reply = endpoint.model(sleep=sleeps, max_total=1000).generate(request())
    assert reply.retries == 1
    assert sleeps == [pytest.approx(expected)]


def test_429_with_retry_after_as_http_date():
    # a date far enough ahead that the wait is capped by max_wait whatever the machine's speed (no timing luck)
    when = time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime(time.time() + 600))
    sleeps = Sleeps()
    MockEndpoint(error(429, **{"retry-after": when}), completion()).model(sleep=sleeps, max_wait=7.0, max_total=1000).generate(request())
    assert sleeps == [pytest.approx(7.0)]


def test_500_then_success():
    endpoint = MockEndpoint(error(500), completion())
    reply = endpoint.model().generate(request())
    assert reply.retries == 1 and len(endpoint.requests) == 2


def test_persistent_500_gives_up_after_max_attempts():
    endpoint = MockEndpoint(error(500, "upstream exploded"))
    sleeps = Sleeps()
    with pytest.raises(ModelError) as info:
        endpoint.model(sleep=sleeps, max_attempts=3).generate(request())
    err = info.value
    assert err.kind == "transport" and err.retries == 2
    assert len(endpoint.requests) == 3 and len(sleeps) == 2
    message = str(err)
    assert "\n" not in message
    assert "3 attempts" in message and "llm.invalid" in message and "mock-model" in message
    assert "HTTP 500" in message and "upstream exploded" in message
    assert err.__cause__ is None and err.__context__ is None


def test_server_can_forbid_a_retry_with_x_should_retry():
    endpoint = MockEndpoint(error(503, **{"x-should-retry": "false"}), completion())
    with pytest.raises(ModelError) as info:
        endpoint.model().generate(request())
    assert info.value.kind == "api" and len(endpoint.requests) == 1


def test_total_time_budget_stops_before_a_wait_that_would_overrun_it():
    endpoint = MockEndpoint(error(429, **{"retry-after": "20"}), completion())
    sleeps = Sleeps()
    with pytest.raises(ModelError) as info:
        endpoint.model(sleep=sleeps, max_total=10).generate(request())
    assert info.value.kind == "transport" and info.value.retries == 0
    assert sleeps == [] and len(endpoint.requests) == 1
    assert "1 attempt in" in str(info.value) and "10 s total budget" in str(info.value)


def _closed_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_connection_refused_fails_quickly_with_a_clear_message():
    port = _closed_port()
    sleeps = Sleeps()
    model = OpenAIModel(
        "local-model",
        base_url=f"http://127.0.0.1:{port}/v1",
        api_key=SECRET,
        timeout=5,
        sleep=sleeps,
        http_client=httpx2.Client(trust_env=False),  # no proxy from the environment in the way
    )
    with pytest.raises(ModelError) as info:
        model.generate(request())
    err = info.value  # no wall-clock assertion: the backoff waits are recorded by ``sleeps``, never slept
    assert err.kind == "transport" and err.retries == 3 and len(sleeps) == 3
    assert f"127.0.0.1:{port}" in str(err) and "connection failed" in str(err) and "4 attempts" in str(err)
    assert SECRET not in everything_said(err)


@pytest.mark.parametrize("status", [400, 401, 403, 404, 422])
def test_client_errors_are_not_retried(status: int):
    endpoint = MockEndpoint(error(status, f"Incorrect API key provided: {SECRET}"), completion())
    sleeps = Sleeps()
    with pytest.raises(ModelError) as info:
        endpoint.model(sleep=sleeps).generate(request())
    err = info.value
    assert err.kind == "api" and err.retries == 0
    assert len(endpoint.requests) == 1 and sleeps == []
    assert f"HTTP {status}" in str(err) and "not retried" in str(err)
    assert SECRET not in everything_said(err)  # the server echoed it; we do not


def test_api_error_after_a_transient_fault_reports_the_retry_spent():
    endpoint = MockEndpoint(error(502), error(401))
    with pytest.raises(ModelError) as info:
        endpoint.model().generate(request())
    assert info.value.kind == "api" and info.value.retries == 1


def test_api_key_never_appears_in_errors_replies_or_logs(caplog: pytest.LogCaptureFixture):
    echo = f"Bearer {SECRET} is not allowed"
    endpoint = MockEndpoint(
        error(429, echo, **{"retry-after": "1"}),
        httpx2.ConnectError(f"proxy refused Authorization: Bearer {SECRET}"),
        error(500, echo),
        completion(f"echo {SECRET}"),
    )
    model = endpoint.model()
    with caplog.at_level(logging.DEBUG, logger="agent.models"):
        reply = model.generate(request())
    assert reply.retries == 3
    assert "retrying" in caplog.text
    seen = [caplog.text, repr(reply), json.dumps(reply.raw), repr(model)]
    assert [SECRET in text for text in seen] == [False] * 4

    failing = MockEndpoint(error(500, echo)).model(max_attempts=2)
    with pytest.raises(ModelError) as info:
        failing.generate(request())
    assert SECRET not in everything_said(info.value)


def test_async_retry_after_with_an_async_sleep():
    endpoint = MockEndpoint(error(429, **{"retry-after": "2"}), httpx2.ReadTimeout("slow"), completion())
    sleeps: list[float] = []

    async def record(seconds: float) -> None:
        sleeps.append(seconds)

    reply = asyncio.run(endpoint.model(sleep=record).agenerate(request()))
    assert reply.retries == 2
    assert sleeps[0] == 2.0 and 0.5 <= sleeps[1] <= 2.0


def test_async_persistent_failure_and_api_error():
    sleeps = Sleeps()  # a plain function works for the async path too
    with pytest.raises(ModelError) as info:
        asyncio.run(MockEndpoint(error(500)).model(sleep=sleeps).agenerate(request()))
    assert info.value.kind == "transport" and info.value.retries == 3 and "4 attempts" in str(info.value)
    assert len(sleeps) == 3
    with pytest.raises(ModelError) as info:
        asyncio.run(MockEndpoint(error(401, SECRET)).model().agenerate(request()))
    assert info.value.kind == "api" and SECRET not in everything_said(info.value)


def test_sync_generate_refuses_an_async_sleep():
    async def record(seconds: float) -> None:
        pass

    with pytest.raises(TypeError, match="plain function"):
        MockEndpoint(error(500), completion()).model(sleep=record).generate(request())


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        (httpx2.Response(200, text="<html>proxy login</html>", headers={"content-type": "text/html"}), "proxy login"),
        (httpx2.Response(200, text="{not json", headers={"content-type": "application/json"}), "not valid JSON"),
        (httpx2.Response(200, json=[1, 2]), "not a chat completion"),
        (httpx2.Response(200, json={"object": "chat.completion", "choices": []}), "no choices"),
    ],
)
def test_unreadable_200_replies_are_response_errors(response: httpx2.Response, expected: str):
    endpoint = MockEndpoint(response)
    with pytest.raises(ModelError) as info:
        endpoint.model().generate(request())
    assert info.value.kind == "response" and expected in str(info.value)
    assert len(endpoint.requests) == 1 and info.value.__context__ is None


def test_the_network_guard_is_active_here():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s, pytest.raises(AssertionError, match="network"):
        s.connect(("192.0.2.1", 443))


def test_reply_type():
    assert isinstance(MockEndpoint().model().generate(request()), ModelReply)
