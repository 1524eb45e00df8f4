"""The model seam: one ``Model`` protocol, the OpenAI-compatible adapter, settings, and test doubles.

``OpenAIModel`` is loaded on first use (``from agent.models import OpenAIModel`` or ``make_model``), so importing
this package does not import the ``openai`` SDK.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .base import OUTPUT_MODES, Model, ModelError, ModelReply, ModelRequest, OutputMode
from .config import ConfigError, ModelSettings, make_model, resolve_settings
from .testing import FunctionModel, ScriptedOutputsExhausted, ScriptedOutputsModel

if TYPE_CHECKING:
    from .openai_model import OpenAIModel

__all__ = [
    "OutputMode",
    "OUTPUT_MODES",
    "ModelRequest",
    "ModelReply",
    "Model",
    "ModelError",
    "OpenAIModel",
    "ModelSettings",
    "ConfigError",
    "resolve_settings",
    "make_model",
    "FunctionModel",
    "ScriptedOutputsModel",
    "ScriptedOutputsExhausted",
]


def __getattr__(name: str) -> Any:
    if name == "OpenAIModel":
        from .openai_model import OpenAIModel

        return OpenAIModel
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
