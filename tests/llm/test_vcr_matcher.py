"""The cassettes' body matcher (tests/llm/conftest.py ``json_body``): the bodies vcrpy's ``body`` matches, it matches;
the others it refuses with where they differ."""

from __future__ import annotations

import json

import pytest
from vcr.request import Request

from tests.llm.conftest import json_body

URL = "http://127.0.0.1:8765/v1/chat/completions"


def _req(body: bytes | str | None) -> Request:
    return Request("POST", URL, body, {"Content-Type": "application/json"})


def test_the_same_bodies_match():
    body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "ブラッドベリー"}]}).encode()
    json_body(_req(body), _req(bytes(body)))
    # the same JSON value written differently (spacing, key order) matches, as with vcrpy's own matcher
    other = json.dumps({"messages": [{"content": "ブラッドベリー", "role": "user"}], "model": "m"}, indent=1).encode()
    json_body(_req(body), _req(other))
    json_body(_req(None), _req(None))


def test_different_bodies_are_refused_with_where_they_differ():
    a = json.dumps({"messages": [{"role": "user", "content": "x" * 500 + "roll"}]}).encode()
    b = json.dumps({"messages": [{"role": "user", "content": "x" * 500 + "abandon"}]}).encode()
    with pytest.raises(AssertionError) as e:
        json_body(_req(a), _req(b))
    at = a.index(b"roll")
    assert f"from byte {at}" in str(e.value) and "roll" in str(e.value) and "abandon" in str(e.value)
    with pytest.raises(AssertionError):
        json_body(_req(b"not json"), _req(b"not json either"))
    with pytest.raises(AssertionError):
        json_body(_req(a), _req(None))
    with pytest.raises(AssertionError):  # a prefix of the other
        json_body(_req(b"abc"), _req(b"abcd"))
