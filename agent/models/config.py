"""Which model to talk to, and how: settings resolved from CLI flags, a config file, the environment and defaults.

Precedence, highest first: CLI flags > config file > environment > defaults.

Config file (TOML or YAML, chosen by the suffix ``.toml`` / ``.yaml`` / ``.yml``). The keys sit either at the top
level or in an ``llm`` table/section (so the same file can later hold other sections)::

    [llm]
    model = "qwen2.5:7b"                       # model name as the endpoint knows it
    base_url = "http://127.0.0.1:11434/v1"     # OpenAI-compatible endpoint; omit for api.openai.com
    api_key = "..."                            # better left to OPENAI_API_KEY
    mode = "json_schema"                       # json_schema | json_object_schema | tools | prompt_only
    timeout = 60.0                             # seconds per attempt
    max_attempts = 4                           # transport attempts per request (retries = attempts - 1)
    max_wait = 30.0                            # cap on one backoff wait, including a server's retry-after
    temperature = 0.0
    max_tokens = 512

Environment: ``OPENAI_BASE_URL``, ``OPENAI_API_KEY``, ``TRPG_LLM_MODEL``, ``TRPG_LLM_MODE``. With no key anywhere
the key is ``"not-needed"``, which local servers (vLLM, Ollama, llama.cpp) accept.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError

from .base import Model, OutputMode

__all__ = ["ModelSettings", "ConfigError", "resolve_settings", "make_model", "ENV_VARS", "CONFIG_KEYS"]

#: environment variable -> settings field
ENV_VARS: dict[str, str] = {
    "OPENAI_BASE_URL": "base_url",
    "OPENAI_API_KEY": "api_key",
    "TRPG_LLM_MODEL": "model",
    "TRPG_LLM_MODE": "mode",
}

DEFAULT_MODEL = "gpt-4o-mini"
LOCAL_API_KEY = "not-needed"


class ConfigError(ValueError):
    """A settings source is unusable; the message names the source (file or variable), the key and the problem."""


class ModelSettings(BaseModel):
    """Everything needed to build a ``Model`` and fill its requests.

    ``mode``, ``temperature`` and ``max_tokens`` belong to each ``ModelRequest`` (see ``request_kwargs``); the rest
    configures the client. ``api_key`` is a ``SecretStr``: its repr, str and JSON dump show ``**********``.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    model: str = Field(DEFAULT_MODEL, min_length=1)
    base_url: str | None = None
    api_key: SecretStr = SecretStr(LOCAL_API_KEY)
    mode: OutputMode = "json_schema"
    timeout: float = Field(60.0, gt=0)
    max_attempts: int = Field(4, ge=1)
    max_wait: float = Field(30.0, ge=0)
    temperature: float = Field(0.0, ge=0)
    max_tokens: int = Field(512, ge=1)

    def request_kwargs(self) -> dict[str, Any]:
        """The ``ModelRequest`` fields these settings decide: ``ModelRequest(messages=..., schema=..., **this)``."""
        return {"mode": self.mode, "temperature": self.temperature, "max_tokens": self.max_tokens}


CONFIG_KEYS: tuple[str, ...] = tuple(ModelSettings.model_fields)


def _read_config_file(path: Path) -> dict[str, Any]:
    suffix = path.suffix.lower()
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read model config: {exc.strerror or exc}") from None
    try:
        if suffix == ".toml":
            data: Any = tomllib.loads(text)
        elif suffix in (".yaml", ".yml"):
            data = yaml.safe_load(text)
        else:
            raise ConfigError(f"{path}: model config must be .toml, .yaml or .yml, not {suffix or 'no suffix'!r}")
    except (tomllib.TOMLDecodeError, yaml.YAMLError) as exc:
        raise ConfigError(f"{path}: not valid {suffix.lstrip('.').upper()}: {' '.join(str(exc).split())}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a table of settings, got {type(data).__name__}")
    section = data.get("llm", data)
    if not isinstance(section, dict):
        raise ConfigError(f"{path}: 'llm' must be a table of settings, got {type(section).__name__}")
    unknown = sorted(set(section) - set(CONFIG_KEYS))
    if unknown:
        raise ConfigError(f"{path}: unknown key(s) {', '.join(unknown)}; known keys: {', '.join(CONFIG_KEYS)}")
    return dict(section)


def _from_env(environ: Mapping[str, str]) -> tuple[dict[str, Any], dict[str, str]]:
    values: dict[str, Any] = {}
    origin: dict[str, str] = {}
    for var, key in ENV_VARS.items():
        value = environ.get(var, "").strip()
        if value:
            values[key] = value
            origin[key] = f"environment variable {var}"
    return values, origin


def resolve_settings(
    cli_overrides: Mapping[str, Any] | None = None,
    config_file: Path | None = None,
    *,
    environ: Mapping[str, str] | None = None,
) -> ModelSettings:
    """Merge the sources (CLI flags > config file > environment > defaults) into validated settings.

    ``cli_overrides`` uses the settings' field names; ``None`` values mean "flag not given" (argparse's default)
    and are skipped. ``environ`` defaults to ``os.environ``.
    """
    env_values, origin = _from_env(os.environ if environ is None else environ)
    merged: dict[str, Any] = dict(env_values)
    if config_file is not None:
        file_values = _read_config_file(Path(config_file))
        merged.update(file_values)
        origin.update({key: str(config_file) for key in file_values})
    cli = {key: value for key, value in (cli_overrides or {}).items() if value is not None}
    unknown = sorted(set(cli) - set(CONFIG_KEYS))
    if unknown:
        raise ConfigError(
            f"command line: unknown model setting(s) {', '.join(unknown)}; known: {', '.join(CONFIG_KEYS)}"
        )
    merged.update(cli)
    origin.update({key: "command line" for key in cli})
    if isinstance(merged.get("api_key"), SecretStr):
        merged["api_key"] = merged["api_key"].get_secret_value()
    try:
        return ModelSettings(**merged)
    except ValidationError as exc:
        problems = []
        for error in exc.errors():
            key = ".".join(str(part) for part in error["loc"]) or "settings"
            where = origin.get(str(error["loc"][0]) if error["loc"] else "", "defaults")
            # the input is left out on purpose: it may be the API key
            problems.append(f"{where}: {key}: {error['msg']}")
        raise ConfigError("invalid model settings: " + "; ".join(problems)) from None


def make_model(settings: ModelSettings) -> Model:
    """The OpenAI-compatible adapter for ``settings`` (the SDK is imported only here, when a model is made)."""
    from .openai_model import OpenAIModel

    return OpenAIModel(
        settings.model,
        base_url=settings.base_url,
        api_key=settings.api_key.get_secret_value(),
        timeout=settings.timeout,
        max_attempts=settings.max_attempts,
        max_wait=settings.max_wait,
    )
