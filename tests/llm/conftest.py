"""Shared fixtures for the LLM-seat tests: pytest-recording (vcrpy) settings, scenario, model doubles, fake server.

Nothing here reaches a network: model doubles answer in-process, and the fake OpenAI-compatible server listens on
127.0.0.1 only. Cassettes (recorded once against a real endpoint with ``--record-mode=once``) live in the
top-level ``cassettes/`` folder and are replayed with ``record_mode="none"`` by default.
"""

from __future__ import annotations

import contextlib
import functools
import json
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from vcr.util import read_body

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = ROOT / "scenarios" / "bloodberry" / "inoiri_dolls.yaml"


# -- pytest-recording --------------------------------------------------------------------------------------------------
def _drop_stainless_headers(request: Any) -> Any:
    """The SDK's x-stainless-* headers name the OS, Python and SDK versions: noise that breaks nothing but diffs."""
    for name in [h for h in request.headers if h.lower().startswith("x-stainless-")]:
        del request.headers[name]
    return request


_UNPARSED = object()


@functools.lru_cache(maxsize=2048)
def _parsed(body: bytes) -> Any:
    """A body's JSON value, parsed once per body (by its bytes, whose hash a bytes object keeps): a replay compares
    the request being made with every recorded one until one matches, so a recorded body is compared hundreds of
    times in a long session (a cassette has at most a few hundred; the cache is bounded all the same)."""
    try:
        return json.loads(body)
    except ValueError:
        return _UNPARSED


def _first_difference(a: bytes, b: bytes) -> int:
    """The offset of the first byte where ``a`` and ``b`` differ (a bisection over prefixes: each probe is one C
    comparison, so a 30 kB body costs ~15 of them)."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def json_body(r1: Any, r2: Any) -> None:
    """vcrpy's ``body`` matcher, without its cost: the same bodies match (the same bytes, or the same JSON value), and
    a mismatch says where the bytes first differ. vcrpy 9's own ``body`` builds a unified diff of both bodies for
    every recorded request that does not match, whether or not anyone reads it: most of a long replay's time (the
    「A」 GM session's 351 exchanges took 87 s, ~80 % of it in difflib and json.dumps)."""
    b1, b2 = read_body(r1), read_body(r2)
    if b1 == b2:
        return
    if isinstance(b1, bytes) and isinstance(b2, bytes):
        p1, p2 = _parsed(b1), _parsed(b2)
        if p1 is not _UNPARSED and p1 == p2:
            return
        at = _first_difference(b1, b2)
        here, there = b1[max(0, at - 40):at + 40], b2[max(0, at - 40):at + 40]
        raise AssertionError(f"the bodies differ from byte {at} ({len(b1)} bytes in this request, {len(b2)} "
                             f"recorded): {here.decode('utf-8', 'replace')!r} vs {there.decode('utf-8', 'replace')!r}")
    raise AssertionError(f"the bodies differ ({type(b1).__name__} in this request, {type(b2).__name__} recorded)")


def pytest_recording_configure(config: pytest.Config, vcr: Any) -> None:
    vcr.register_matcher("json_body", json_body)


@pytest.fixture
def vcr_config(request: pytest.FixtureRequest) -> dict[str, Any]:
    return {
        "match_on": ("method", "path", "json_body"),
        "filter_headers": ["authorization", "openai-organization", "openai-project", "cookie"],
        "decode_compressed_response": True,
        "before_record_request": _drop_stainless_headers,
        # "none" unless the run says otherwise (pytest --record-mode=once records missing cassettes)
        "record_mode": request.config.getoption("--record-mode", default=None) or "none",
    }


@pytest.fixture
def vcr_cassette_dir() -> str:
    return str(ROOT / "cassettes")


# -- scenario and model doubles ----------------------------------------------------------------------------------------
@pytest.fixture
def scenario_path() -> Path:
    return SCENARIO


def _fill(schema: dict[str, Any]) -> Any:
    """The first legal value of a (strict, inlined) JSON schema."""
    if "enum" in schema:
        return schema["enum"][0]
    if "anyOf" in schema:
        return _fill(schema["anyOf"][0])
    t = schema.get("type")
    if isinstance(t, list):
        t = next((x for x in t if x != "null"), "null")
    if t == "object":
        return {k: _fill(v) for k, v in schema.get("properties", {}).items()}
    if t == "integer":
        return schema.get("minimum", 1)
    if t == "number":
        return schema.get("minimum", 1.0)
    if t == "boolean":
        return False
    if t == "string":
        return "x" * max(1, schema.get("minLength", 1))
    if t == "array":
        return [_fill(schema["items"]) for _ in range(schema.get("minItems", 0))]
    return None


def first_legal_reply(schema: dict[str, Any], say: str | None = None) -> dict[str, Any]:
    """A reply that picks the first option (one), the first max(lo, min(1, hi)) options (many) or a minimal payload."""
    props = schema["properties"]
    out: dict[str, Any] = {}
    if "choice" in props:
        out["choice"] = props["choice"]["enum"][0]
    elif "choices" in props:
        c = props["choices"]
        n = max(c.get("minItems", 0), min(1, c.get("maxItems", 1)))
        out["choices"] = c["items"]["enum"][:n]
    else:
        out["payload"] = _fill(props["payload"])
    if "say" in props:
        out["say"] = say
    return out


@pytest.fixture
def first_legal() -> Callable[..., dict[str, Any]]:
    return first_legal_reply


# -- a fake OpenAI-compatible server (for the adapter and for `--llm local`) --------------------------------------------
FAKE_SERVER = r'''
import json, sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

port = int(sys.argv[1])
record = sys.argv[2] if len(sys.argv) > 2 else None

def fill(s):
    if "enum" in s: return s["enum"][0]
    if "anyOf" in s: return fill(s["anyOf"][0])
    t = s.get("type")
    if isinstance(t, list): t = next((x for x in t if x != "null"), "null")
    if t == "object": return {k: fill(v) for k, v in s.get("properties", {}).items()}
    if t == "integer": return s.get("minimum", 1)
    if t == "string": return "x" * max(1, s.get("minLength", 1))
    if t == "array": return [fill(s["items"]) for _ in range(s.get("minItems", 0))]
    return None

def answer(schema):
    props = schema.get("properties", {})
    out = {}
    if "choice" in props: out["choice"] = props["choice"]["enum"][0]
    elif "choices" in props:
        c = props["choices"]; out["choices"] = c["items"]["enum"][:max(c.get("minItems", 0), min(1, c.get("maxItems", 1)))]
    elif "payload" in props: out["payload"] = fill(props["payload"])
    if "say" in props: out["say"] = "fake server speaking"
    return out

class H(BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def _send(self, obj, code=200):
        body = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def do_GET(self):
        if self.path.rstrip("/").endswith("/v1/models"):
            self._send({"object": "list", "data": [{"id": "fake-gguf", "object": "model", "owned_by": "me"}]})
        else:
            self._send({"error": {"message": "not found"}}, 404)
    def do_POST(self):
        req = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
        if record:
            with open(record, "a", encoding="utf-8") as f:
                f.write(json.dumps({"path": self.path, "authorization": self.headers.get("authorization"), "body": req}) + "\n")
        if not self.path.rstrip("/").endswith("/chat/completions"):
            return self._send({"error": {"message": "not found"}}, 404)
        rf = req.get("response_format") or {}
        schema = (rf.get("json_schema") or {}).get("schema") or rf.get("schema")
        tools = req.get("tools")
        if schema is None and tools:
            schema = tools[0]["function"]["parameters"]
        if schema is None:  # prompt_only: the schema is at the end of the last user message
            last = [m for m in req.get("messages", []) if m.get("role") == "user"][-1]["content"]
            marker = "matching this schema:\n"
            if marker in last:
                schema = json.loads(last.rsplit(marker, 1)[1])
        content = json.dumps(answer(schema or {}))
        message = {"role": "assistant", "content": content}
        if tools:
            message = {"role": "assistant", "content": None, "tool_calls": [{"id": "call_1", "type": "function",
                       "function": {"name": tools[0]["function"]["name"], "arguments": content}}]}
        self._send({"id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": req.get("model", "fake"),
                    "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}})

ThreadingHTTPServer(("127.0.0.1", port), H).serve_forever()
'''


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def fake_server_script(tmp_path: Path) -> Path:
    """The fake server as a script: ``python SCRIPT PORT [RECORD_FILE]``."""
    p = tmp_path / "fake_openai_server.py"
    p.write_text(FAKE_SERVER, encoding="utf-8")
    return p


class FakeServer:
    def __init__(self, base_url: str, record: Path):
        self.base_url = base_url
        self.record = record

    def requests(self) -> list[dict[str, Any]]:
        if not self.record.exists():
            return []
        return [json.loads(line) for line in self.record.read_text(encoding="utf-8").splitlines() if line.strip()]


@contextlib.contextmanager
def running_fake_server(script: Path, record: Path | None = None) -> Iterator[str]:
    """Run the fake server script (``FAKE_SERVER``) on a free port of 127.0.0.1 until the block ends; its base URL.
    ``record``: a file every POST is appended to (with its Authorization header)."""
    port = _free_port()
    args = [sys.executable, str(script), str(port)] + ([str(record)] if record is not None else [])
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                with urllib.request.urlopen(f"{base}/models", timeout=1):
                    break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise RuntimeError("the fake server did not start") from None
                time.sleep(0.05)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


@pytest.fixture
def fake_server(fake_server_script: Path, tmp_path: Path) -> Iterator[FakeServer]:
    """A running fake OpenAI-compatible server on 127.0.0.1; every POST is recorded (with its Authorization)."""
    record = tmp_path / "requests.jsonl"
    with running_fake_server(fake_server_script, record) as base:
        yield FakeServer(base, record)
