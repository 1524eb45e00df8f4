"""The model seam: request shapes per output mode, reply filling, settings, and the test doubles.

No network: the OpenAI SDK (which speaks ``httpx2``) gets an ``httpx2.MockTransport``, and a socket guard fails
any test that tries to connect anywhere but the loopback interface.
"""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from agent.models import (
    ConfigError,
    FunctionModel,
    Model,
    ModelError,
    ModelReply,
    ModelRequest,
    ModelSettings,
    OpenAIModel,
    ScriptedOutputsExhausted,
    ScriptedOutputsModel,
    make_model,
    resolve_settings,
)

SECRET = "sk-test-SECRET"
BASE_URL = "http://llm.invalid/v1"
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "option": {"type": "string", "enum": ["attack", "flee"], "description": "選んだ行動"},
        "reason": {"type": "string"},
    },
    "required": ["option", "reason"],
}
MESSAGES = [
    {"role": "system", "content": "あなたはブラッドベリーのPCです。"},
    {"role": "user", "content": "行動を選んでください。"},
]

Handler = Callable[[httpx2.Request], httpx2.Response]


# -- helpers shared with test_model_faults ---------------------------------------------------------------------


def completion(
    content: str | None = '{"option": "attack", "reason": "勝てる"}',
    *,
    tool_args: str | None = None,
    usage: bool = True,
    model: str = "mock-model",
) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_args is not None:
        message["tool_calls"] = [
            {"id": "call_1", "type": "function", "function": {"name": "answer", "arguments": tool_args}}
        ]
    body: dict[str, Any] = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": model,
        "choices": [{"index": 0, "finish_reason": "stop", "message": message}],
    }
    if usage:
        body["usage"] = {"prompt_tokens": 42, "completion_tokens": 7, "total_tokens": 49}
    return body


class MockEndpoint:
    """A scripted chat-completions endpoint: each item answers one request (a response, an exception to raise, or
    a dict sent as a 200 JSON body); the last item repeats. Records every request's headers and JSON body."""

    def __init__(self, *script: httpx2.Response | Exception | dict[str, Any]) -> None:
        self.script = list(script) or [completion()]
        self.requests: list[httpx2.Request] = []

    @property
    def bodies(self) -> list[dict[str, Any]]:
        return [json.loads(r.content) for r in self.requests]

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(request)
        item = self.script[min(len(self.requests), len(self.script)) - 1]
        if isinstance(item, Exception):
            if isinstance(item, httpx2.RequestError):
                item.request = request
            raise item
        if isinstance(item, dict):
            return httpx2.Response(200, json=item)
        return item

    def model(self, **kwargs: Any) -> OpenAIModel:
        kwargs.setdefault("sleep", lambda s: None)
        return OpenAIModel(
            "mock-model",
            base_url=BASE_URL,
            api_key=SECRET,
            http_client=httpx2.Client(transport=httpx2.MockTransport(self)),
            async_http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(self)),
            **kwargs,
        )


def request(mode: str = "json_schema", **kwargs: Any) -> ModelRequest:
    return ModelRequest(messages=[dict(m) for m in MESSAGES], schema=SCHEMA, mode=mode, **kwargs)  # type: ignore[arg-type]


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Fail on any connection beyond the loopback interface, and keep the developer's env out of the tests."""
    real_connect = socket.socket.connect

    def guarded(self: socket.socket, address: Any) -> Any:
        host = address[0] if isinstance(address, tuple) else address
        if self.family in (socket.AF_INET, socket.AF_INET6) and host not in ("127.0.0.1", "::1", "localhost"):
            raise AssertionError(f"test tried to reach the network: {address!r}")
        return real_connect(self, address)

    monkeypatch.setattr(socket.socket, "connect", guarded)
    for var in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "TRPG_LLM_MODEL", "TRPG_LLM_MODE"):
        monkeypatch.delenv(var, raising=False)
    yield


# -- request shape per output mode -------------------------------------------------------------------------------


def test_json_schema_mode_sends_response_format_json_schema():
    endpoint = MockEndpoint()
    endpoint.model().generate(request("json_schema", schema_name="bloodberry answer", seed=7, temperature=0.3))
    (body,) = endpoint.bodies
    assert body["model"] == "mock-model"
    assert body["messages"] == MESSAGES
    assert body["temperature"] == 0.3
    assert body["max_tokens"] == 512
    assert body["seed"] == 7
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "bloodberry_answer", "schema": SCHEMA, "strict": False},
    }
    assert "tools" not in body and "tool_choice" not in body


def test_json_object_schema_mode_sends_llama_cpp_response_format():
    endpoint = MockEndpoint()
    endpoint.model().generate(request("json_object_schema"))
    (body,) = endpoint.bodies
    assert body["response_format"] == {"type": "json_object", "schema": SCHEMA}
    assert body["messages"] == MESSAGES
    assert "seed" not in body


def test_tools_mode_forces_one_tool_and_returns_its_arguments():
    args = '{"option": "flee", "reason": "多勢に無勢"}'
    endpoint = MockEndpoint(completion(None, tool_args=args))
    reply = endpoint.model().generate(request("tools"))
    (body,) = endpoint.bodies
    assert body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "answer",
                "description": body["tools"][0]["function"]["description"],
                "parameters": SCHEMA,
            },
        }
    ]
    assert body["tool_choice"] == {"type": "function", "function": {"name": "answer"}}
    assert "response_format" not in body
    assert reply.text == args


def test_tools_mode_without_a_tool_call_returns_the_content():
    endpoint = MockEndpoint(completion('{"option": "attack"}'))
    assert endpoint.model().generate(request("tools")).text == '{"option": "attack"}'


def test_prompt_only_mode_puts_the_schema_in_the_last_user_message():
    endpoint = MockEndpoint()
    req = request("prompt_only")
    endpoint.model().generate(req)
    (body,) = endpoint.bodies
    assert "response_format" not in body and "tools" not in body
    system, user = body["messages"]
    assert system == MESSAGES[0]
    assert user["content"].startswith(MESSAGES[1]["content"])
    assert "Reply with one JSON object matching this schema" in user["content"]
    schema_text = user["content"].split("schema:", 1)[1].strip()
    assert json.loads(schema_text) == SCHEMA
    assert "選んだ行動" in schema_text  # Japanese stays readable, not \\u-escaped
    assert req.messages == MESSAGES  # the caller's request is not mutated


def test_prompt_only_without_a_user_message_adds_one():
    endpoint = MockEndpoint()
    endpoint.model().generate(ModelRequest(messages=[MESSAGES[0]], schema=SCHEMA, mode="prompt_only"))
    messages = endpoint.bodies[0]["messages"]
    assert messages[0] == MESSAGES[0]
    assert messages[1]["role"] == "user" and "matching this schema" in messages[1]["content"]


def test_unknown_mode_is_refused_before_any_request():
    endpoint = MockEndpoint()
    with pytest.raises(ValueError, match="unknown output mode 'xml'"):
        endpoint.model().generate(request("xml"))
    assert endpoint.requests == []


# -- the reply ---------------------------------------------------------------------------------------------------


def test_reply_has_text_usage_latency_model_and_raw():
    endpoint = MockEndpoint()
    reply = endpoint.model().generate(request())
    assert reply.text == '{"option": "attack", "reason": "勝てる"}'
    assert reply.model == "mock-model"
    assert (reply.prompt_tokens, reply.completion_tokens) == (42, 7)
    assert reply.retries == 0
    assert 0 <= reply.latency_s < 5
    assert reply.raw["choices"][0]["message"]["content"] == reply.text
    json.dumps(reply.raw)  # plain JSON data, ready for the event log


def test_cached_prompt_tokens_are_read_where_the_endpoint_reports_them():
    body = completion()
    body["usage"]["prompt_tokens_details"] = {"cached_tokens": 40}
    reply = MockEndpoint(body).model().generate(request())
    assert (reply.prompt_tokens, reply.cached_tokens) == (42, 40)
    assert MockEndpoint().model().generate(request()).cached_tokens is None  # not reported: unknown, not 0


def test_timeout_applies_to_each_attempt():
    endpoint = MockEndpoint()
    endpoint.model(timeout=7).generate(request())
    assert endpoint.requests[0].extensions["timeout"] == {"connect": 7.0, "read": 7.0, "write": 7.0, "pool": 7.0}


def test_reply_without_usage_or_content():
    endpoint = MockEndpoint(completion(None, usage=False))
    reply = endpoint.model().generate(request())
    assert reply.text == ""
    assert reply.prompt_tokens is None and reply.completion_tokens is None


def test_reply_without_choices_is_a_response_error():
    body = completion()
    body["choices"] = []
    with pytest.raises(ModelError) as info:
        MockEndpoint(body).model().generate(request())
    assert info.value.kind == "response"


def test_api_key_goes_only_into_the_authorization_header():
    endpoint = MockEndpoint()
    model = endpoint.model()
    reply = model.generate(request())
    (sent,) = endpoint.requests
    assert sent.headers["authorization"] == f"Bearer {SECRET}"
    assert SECRET not in sent.content.decode()
    assert SECRET not in json.dumps(reply.raw) and SECRET not in repr(reply)
    assert SECRET not in repr(model) and SECRET not in str(model)
    assert "authorization" not in json.dumps(reply.raw).lower()


def test_raw_is_scrubbed_even_if_the_server_echoes_the_key():
    reply = MockEndpoint(completion(f"your key is {SECRET}")).model().generate(request())
    assert SECRET not in json.dumps(reply.raw)


def test_async_path_uses_the_async_client_and_fills_the_reply():
    endpoint = MockEndpoint(completion(None, tool_args='{"option": "flee"}'))
    model = endpoint.model()

    async def two() -> list[ModelReply]:
        return list(await asyncio.gather(model.agenerate(request("tools")), model.agenerate(request("tools"))))

    replies = asyncio.run(two())
    replies.append(asyncio.run(model.agenerate(request("tools"))))  # a second event loop works too
    assert [r.text for r in replies] == ['{"option": "flee"}'] * 3
    assert len(endpoint.requests) == 3
    assert all(r.headers["x-stainless-async"] != "false" for r in endpoint.requests)
    assert replies[0].prompt_tokens == 42


def test_openai_model_satisfies_the_protocol_and_the_sdk_is_imported_lazily():
    assert isinstance(MockEndpoint().model(), Model)
    code = "import sys, agent.models; assert 'openai' not in sys.modules, 'openai imported eagerly'"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).resolve().parents[2])


# -- settings ----------------------------------------------------------------------------------------------------


def test_defaults_without_any_source():
    s = resolve_settings({}, None, environ={})
    assert (s.model, s.mode, s.base_url) == ("gpt-4o-mini", "json_schema", None)
    assert s.api_key.get_secret_value() == "not-needed"
    assert (s.timeout, s.max_attempts, s.temperature, s.max_tokens) == (60.0, 4, 0.0, 512)


ENV = {
    "OPENAI_BASE_URL": "http://127.0.0.1:8000/v1",
    "OPENAI_API_KEY": SECRET,
    "TRPG_LLM_MODEL": "env-model",
    "TRPG_LLM_MODE": "tools",
}


def test_environment_over_defaults():
    s = resolve_settings({}, None, environ=ENV)
    assert (s.model, s.mode, s.base_url) == ("env-model", "tools", "http://127.0.0.1:8000/v1")
    assert s.api_key.get_secret_value() == SECRET


def test_os_environ_is_read_by_default(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("TRPG_LLM_MODEL", "from-os-env")
    monkeypatch.setenv("OPENAI_API_KEY", "")  # empty counts as unset
    s = resolve_settings({}, None)
    assert s.model == "from-os-env" and s.api_key.get_secret_value() == "not-needed"


@pytest.mark.parametrize("suffix", [".toml", ".yaml", ".yml"])
@pytest.mark.parametrize("sectioned", [True, False])
def test_config_file_over_environment_and_cli_over_file(tmp_path: Path, suffix: str, sectioned: bool):
    values = {"model": "file-model", "mode": "prompt_only", "timeout": 12.5, "max_tokens": 300}
    if suffix == ".toml":
        lines = [f"{k} = {json.dumps(v)}" for k, v in values.items()]
        text = "\n".join((["[llm]"] if sectioned else []) + lines)
    else:
        lines = [f"{'  ' if sectioned else ''}{k}: {json.dumps(v)}" for k, v in values.items()]
        text = "\n".join((["llm:"] if sectioned else []) + lines)
    path = tmp_path / f"model{suffix}"
    path.write_text(text + "\n", encoding="utf-8")

    s = resolve_settings({}, path, environ=ENV)
    assert (s.model, s.mode, s.timeout, s.max_tokens) == ("file-model", "prompt_only", 12.5, 300)
    assert s.base_url == ENV["OPENAI_BASE_URL"]  # not in the file: the environment still counts

    s = resolve_settings({"model": "cli-model", "mode": None, "max_attempts": 2}, path, environ=ENV)
    assert (s.model, s.mode, s.max_attempts) == ("cli-model", "prompt_only", 2)  # None = flag not given


def test_bad_config_file_names_the_file_and_the_key(tmp_path: Path):
    path = tmp_path / "model.toml"
    path.write_text('[llm]\nmodle = "typo"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"model\.toml: unknown key\(s\) modle"):
        resolve_settings({}, path, environ={})
    path.write_text("[llm]\nmax_attempts = 0\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"model\.toml: max_attempts"):
        resolve_settings({}, path, environ={})
    bad = tmp_path / "model.ini"
    bad.write_text("x", encoding="utf-8")
    with pytest.raises(ConfigError, match="must be .toml, .yaml or .yml"):
        resolve_settings({}, bad, environ={})
    with pytest.raises(ConfigError, match="cannot read"):
        resolve_settings({}, tmp_path / "missing.yaml", environ={})


def test_bad_mode_in_environment_names_the_variable():
    with pytest.raises(ConfigError, match="TRPG_LLM_MODE: mode"):
        resolve_settings({}, None, environ={"TRPG_LLM_MODE": "xml"})


def test_api_key_is_hidden_in_settings_repr_str_dump_and_errors(tmp_path: Path):
    s = resolve_settings({"api_key": SECRET}, None, environ={})
    assert s.api_key.get_secret_value() == SECRET
    for text in (repr(s), str(s), s.model_dump_json(), str(s.model_dump())):
        assert SECRET not in text
    path = tmp_path / "model.yaml"
    path.write_text(f"api_key: [{SECRET}]\n", encoding="utf-8")  # wrong type: the error must not echo it
    with pytest.raises(ConfigError) as info:
        resolve_settings({}, path, environ={})
    assert SECRET not in str(info.value) and "api_key" in str(info.value)


def test_make_model_builds_the_openai_adapter_from_settings():
    s = ModelSettings(model="qwen", base_url="http://user:pw@127.0.0.1:8080/v1?x=1", timeout=5, max_attempts=2)
    model = make_model(s)
    assert isinstance(model, OpenAIModel) and isinstance(model, Model)
    assert (model.model, model.timeout, model.max_attempts) == ("qwen", 5.0, 2)
    assert model.endpoint == "http://127.0.0.1:8080/v1"  # shown without credentials or query
    assert s.request_kwargs() == {"mode": "json_schema", "temperature": 0.0, "max_tokens": 512}
    ModelRequest(messages=MESSAGES, schema=SCHEMA, **s.request_kwargs())


# -- test doubles ------------------------------------------------------------------------------------------------


def test_function_model_replies_with_fn_and_records_requests():
    model = FunctionModel(lambda req: f"{len(req.messages)} messages")
    assert isinstance(model, Model) and model.name == "function"
    reply = model.generate(request())
    assert reply.text == "2 messages" and reply.model == "function"
    full = ModelReply(text="{}", prompt_tokens=3)
    assert FunctionModel(lambda req: full).generate(request()) is full
    assert model.requests == [request()]


def test_function_model_async():
    async def fn(req: ModelRequest) -> str:
        await asyncio.sleep(0)
        return req.mode

    model = FunctionModel(fn, name="async-fn")
    assert asyncio.run(model.agenerate(request("tools"))).text == "tools"
    assert asyncio.run(FunctionModel(lambda req: "sync").agenerate(request())).text == "sync"
    with pytest.raises(TypeError, match="agenerate"):
        model.generate(request())
    with pytest.raises(TypeError, match="expected a str or ModelReply"):
        FunctionModel(lambda req: 3).generate(request())  # type: ignore[arg-type, return-value]


def test_scripted_outputs_model_in_order_raises_exceptions_and_fails_when_out():
    boom = ModelError("endpoint down", kind="transport")
    model = ScriptedOutputsModel(["first", boom, "third"])
    assert isinstance(model, Model) and model.name == "scripted-outputs"
    assert model.generate(request()).text == "first"
    with pytest.raises(ModelError) as info:
        model.generate(request())
    assert info.value is boom
    assert asyncio.run(model.agenerate(request())).text == "third"
    assert model.remaining == 0
    with pytest.raises(ScriptedOutputsExhausted) as out:
        model.generate(request())
    assert isinstance(out.value, AssertionError) and not isinstance(out.value, ModelError)
    assert out.value.kind == "exhausted"
    message = str(out.value)
    assert "ran out of scripted outputs" in message and "all 3 were used" in message and "#4" in message
    assert "行動を選んでください" in message
    assert len(model.requests) == 4
