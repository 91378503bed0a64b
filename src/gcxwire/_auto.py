"""The top-level API: pick the cheapest wire format for a value, read back any of them.

``format="auto"`` considers compact JSON, typed GCX1 and DCP in the gateway
dialect, and returns the one with the fewest cl100k tokens among those that
decode back to exactly the same value. Compact JSON wins ties and is the
fallback, so no response ever grows and nothing is ever lost. Candidates whose
counts are far apart are told apart from a sample of each text; where they are
close (within ``_MARGIN``) every token is counted.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence, ValuesView
from typing import Any, Literal

import orjson

from . import dcp, gcx, tokens
from ._auto_sample import (
    RowSample,
    dcp_rows,
    first_section_end,
    gcx_rows,
    json_rows,
    paired_difference,
    spread_of_total,
    spreads,
    strata,
)
from ._gcx_encode import lines_fit_go
from ._impl import plain_json
from ._values import check_value, dumps, loads, same, with_default
from .errors import DecodeError, EncodeError
from .limits import DEFAULT_LIMITS, Limits, as_text, check_json_numbers, check_size, depth_exceeds

__all__ = ["FORMATS", "Format", "compact_json", "decode", "detect", "encode"]

Format = Literal["auto", "gcx", "dcp", "json"]
FORMATS: tuple[str, ...] = ("auto", "gcx", "dcp", "json")


def compact_json(value: Any, /) -> str:
    """The JSON a server would send: compact, keys in their order, UTF-8 as is.

    Ints of any size are written exactly. What JSON cannot carry (NaN, infinities,
    datetime, UUID, Enum, sets, non-string keys, cycles) raises EncodeError naming
    its path, as the other formats do; orjson alone would write some of them.
    """
    return dumps(value)


def _encode_gcx(value: Any, tool: str) -> str:
    # Unchecked for Go's line limit: auto drops such a text rather than refusing the value.
    return gcx._encode_unchecked(value, tool)


def _encode_dcp(value: Any, tool: str) -> str:
    text = dcp.encode(value)  # the schema id comes from the data (wrapper key), not the tool
    # A header alone (no records) reads as a JSON array; its newline marks it as DCP.
    return text if "\n" in text else text + "\n"


# The candidates besides JSON, in tie-break order.
_ENCODERS: dict[str, Callable[[Any, str], str]] = {"gcx": _encode_gcx, "dcp": _encode_dcp}


def encode(
    value: Any,
    /,
    *,
    tool: str,
    format: Format = "auto",
    default: Callable[[Any], Any] | None = None,
) -> str:
    """Encode ``value`` (a JSON value) as the result of ``tool``.

    ``format`` is ``"gcx"``, ``"dcp"`` or ``"json"`` to force one, or
    ``"auto"`` for the lossless candidate with the fewest tokens. Every format
    refuses what JSON cannot carry with EncodeError naming its path; ``default``,
    as in ``json.dumps``, is called instead for each object of a type JSON has
    no form for (a datetime, a UUID...) and returns a JSON value for it.
    """
    if default is not None:
        value = with_default(value, default)
    if format == "json":
        return compact_json(value)
    if format == "gcx":
        return gcx.encode(value, tool=tool)
    if format in _ENCODERS:
        return _ENCODERS[format](value, tool)
    if format != "auto":
        raise ValueError(f"Unknown format {format!r}: expected one of {', '.join(FORMATS)}")
    return _Auto(value, tool).choose()


# How auto avoids counting every token of every candidate (tiktoken costs
# about 100 ns a character, 30-100 times what writing GCX1 costs; ASCII text
# whose pieces tokens.count remembers, a few ns):
# - a short ASCII value is counted whole in every format (_COUNT_WHOLE), and
#   so are ASCII rows still close after their first sample (_COUNT_CLOSE);
# - a long list of objects is estimated from the same sampled rows in every
#   format (_auto_sample: each row an exact unit of each text), so two formats
#   are compared by the spread of their paired differences, far smaller than
#   either one's own; when 16 rows cannot decide, as many more as their
#   differences and spreads say would (up to just under half of the rows) are
#   sampled before any whole text is counted, unless a difference is already
#   within _MARGIN;
# - any other long text is estimated from windows of it (tokens.estimate);
# - a DCP text whose cl100k pre-split pieces are already as many as the best
#   exact count so far is left out uncounted (_Auto.cannot_win: a proof);
# - a candidate is left out on its estimate only when it is more than _MARGIN
#   above the best plus the errors Student's t asks for at the sample's size
#   (4 where the spread is well measured, 5.5 on 16 rows); every other one is
#   counted exactly, where the texts differ, so a choice closer than _MARGIN is
#   always the true minimum.
_MARGIN = 0.01
# A pick other than JSON, compared with it on window estimates only (not on
# paired rows), whose estimate is within this much of JSON's is counted exactly
# against it: "never above JSON" is the promise.
_VERIFY = 0.25
_SAMPLE_ROWS = 16
_GROWTH = 4  # how much bigger the next sample is, when one has not decided
_ORDER = ("json", "gcx", "dcp")  # the tie-break: JSON first
# Texts shorter than this are counted whole in a close race (once each, however
# many others they are compared with) rather than where they differ.
_SHARED_TEXT = 8192
# DCP's text is proved no better (_Auto.cannot_win) only where it is this much
# longer than the best exact count's text: shorter, the bound rarely reaches it.
_LONGER = 1.1
# A value whose compact JSON is at most this long has every candidate counted
# whole: counting ASCII text (a few ns a character once its pieces are
# remembered, see tokens.count) costs less there than sampling rows and
# bounding the rest (quotes-50: 1225 -> 291 us; at 500 rows sampling wins but
# on quotes).
_COUNT_WHOLE = 32_768
# Candidates still close after a row sample, whose texts are ASCII and this
# long at most together, are counted whole rather than sampled again: a larger
# sample costs microseconds of Python a row in each format, counting them a few
# nanoseconds a character.
_COUNT_CLOSE = 262_144
_spread_of_total = spread_of_total  # the proxy's DCP-against-GCX1 sample uses it too

Count = tuple[float, float]  # (tokens, standard error); an error of 0 is an exact count


_CONTINUATION = bytes(range(0x80, 0xC0))  # UTF-8 bytes that continue a character


class _Texts(dict[str, "str | None"]):
    """The candidates' texts by name (None: the format cannot carry the value);
    JSON's is decoded from its orjson bytes only when first read."""

    json_bytes: bytes | None = None

    def __missing__(self, name: str) -> str | None:
        if name != "json" or self.json_bytes is None:
            raise KeyError(name)
        text = self["json"] = self.json_bytes.decode()
        return text

    def get(self, name: str, default: str | None = None) -> str | None:  # type: ignore[override]
        return self[name] if name in self or name == "json" else default

    def values(self) -> ValuesView[str | None]:  # type: ignore[override]
        self["json"]  # noqa: B018 -- decoded: every text is there
        return super().values()


class _Auto:
    """One ``format="auto"`` choice: candidates written, estimated, counted where close."""

    def __init__(self, value: Any, tool: str) -> None:
        self.value = value
        self.tool = tool
        self.plain = plain_json(value)  # the walk in C (Python's is_plain: 1 µs a cell)
        if not self.plain:
            check_value(value)  # refuse NaN, datetime, UUID, Enum... with the path, as gcx does
        self.texts = _Texts()
        try:
            self.json_bytes: bytes | None = orjson.dumps(value)
            self.texts.json_bytes = self.json_bytes
        except orjson.JSONEncodeError:
            self.json_bytes = None
            self.texts["json"] = dumps(
                value
            )  # big ints, lone surrogates; or the error with its path
        self.json_size: int | None = None  # JSON's length in characters, once asked
        self.estimates: dict[str, Count] = {}
        self.exact: dict[str, int] = {}
        self.windows: dict[str, list[tokens.Window]] = {}  # counted by a window estimate
        self.differences: dict[tuple[str, str], int] = {}  # (a, b) -> count(a) - count(b)
        # name -> its units of the sampled rows: the same rows in every format
        self.sampled: dict[str, RowSample] = {}
        self.sections = False  # GCX1 wrote child sections: estimated apart from its rows
        self.first_section: int | None = None  # where GCX1's first section ends, once found
        self.ruled_out: set[str] = set()  # clearly worse on an earlier, smaller sample
        self.units: dict[str, int] = {}  # sampled units' counts, by their text
        self.pieces: dict[str, bool] = {}  # name -> counted mostly by pieces (by_pieces)

    def text(self, name: str) -> str | None:
        """The candidate's text, written on first use; None if it cannot carry the value."""
        if name not in self.texts and name != "json":  # JSON's, written first, decoded when read
            try:
                text = _ENCODERS[name](self.value, self.tool)
                self.texts[name] = text if name != "gcx" or lines_fit_go(text) else None
            except EncodeError:
                self.texts[name] = None  # this format cannot carry the value; another one will
        return self.texts[name]

    def above(self, name: str, other: str) -> int:
        """Exactly how many tokens ``name`` has more than ``other``, counted only
        where their texts differ (they share most of their cell text)."""
        if name == other:
            return 0
        a, b = self.text(name), self.text(other)
        assert a is not None and b is not None
        if (
            min(len(a), len(b)) < _SHARED_TEXT
            or (name in self.exact and other in self.exact)
            or self.cheap_to_count((name, other))
        ):
            # Short, or rows in ASCII: each counted once. ASCII text's pieces
            # are remembered (tokens.count): counted whole, rows of short cells
            # cost a fraction of finding what the texts share (quotes-500 GCX1
            # and DCP: 155 against 756 us); long shared cells (nested) do not.
            return self.exact_count(name) - self.exact_count(other)
        if (other, name) in self.differences:  # counted the other way round already
            return -self.differences[other, name]
        key = (name, other)
        if key not in self.differences:
            self.differences[key] = tokens.count_difference(a, b)
        return self.differences[key]

    def exact_count(self, name: str) -> int:
        if name not in self.exact:
            text = self.text(name)
            assert text is not None
            if name in self.windows:  # only the text between the counted windows
                self.exact[name] = tokens.count_around(text, self.windows[name])
            elif name in self.sampled and self.sampled[name].pieces:  # or the sampled rows
                found = tokens.windows_of(text, list(self.sampled[name].pieces))
                self.exact[name] = tokens.count_around(text, found)
            else:
                self.exact[name] = tokens.count(text)
        return self.exact[name]

    def sample(self, name: str, picked: list[int]) -> RowSample | None:
        """``name``'s units for the sampled rows, if it writes one line per row.

        None also when the sampled units' lengths do not add up to the whole
        text's (within the sampler's fit): rows the sample missed are unlike it.
        """
        if name == "json":
            if not self.json_bytes:
                return None
            return json_rows(self.value, self.json_length(), picked, self.count_unit)
        if name == "dcp":
            return dcp_rows(self.value, picked, self.sampled.get("json"), self.count_unit)
        text = self.text(name)
        if text is None:
            return None
        if self.first_section is None:
            self.first_section = first_section_end(text)
        self.sections = self.first_section < len(text)
        return gcx_rows(text, len(self.value), picked, self.first_section, self.count_unit)

    def count_unit(self, unit: str) -> int:
        """A sampled unit's count, counted once for every sample that draws its row."""
        if unit not in self.units:
            self.units[unit] = tokens.count(unit)
        return self.units[unit]

    def estimate(self, size: int = _SAMPLE_ROWS, among: Sequence[str] = _ORDER) -> bool:
        """Estimates of the candidates ``among``; False when a sample of ``size``
        rows was refused as unlike the table (window estimates stand in then)."""
        self.sampled.clear()
        self.estimates.clear()
        rows = self.value
        refused = False
        if (
            isinstance(rows, list)
            and len(rows) > 2 * size
            and all(isinstance(rows[i], dict) and rows[i] for i in (0, len(rows) // 2, -1))
        ):
            picked = strata(len(rows), size)
            for name in _ORDER:
                if name in among and (name == "json" or name in _ENCODERS):
                    found = self.sample(name, picked)
                    if found is None and name != "dcp" and self.texts.get(name) is not None:
                        self.sampled.clear()  # an unlike sample misleads every format
                        self.estimates.clear()
                        refused = True
                        break
                    if found is not None:
                        self.sampled[name] = found
                        self.estimates[name] = (found.total(), found.spread())
        for name in _ORDER:
            if name in self.estimates or name not in among:
                continue
            if name != "json" and name not in _ENCODERS:
                continue
            text = self.texts["json"] if name == "json" else self.text(name)
            if text is not None and not self.cannot_win(name, text, among):
                guess, spread, self.windows[name] = tokens.estimate_windows(text)
                self.estimates[name] = (guess, spread)
                if not spread:
                    self.exact[name] = int(self.estimates[name][0])
        return not refused

    def cannot_win(self, name: str, text: str, among: Sequence[str]) -> bool:
        """Whether DCP's ``text`` is proved no better than a candidate counted
        exactly before it: its count is at least ``tokens.least_count`` (one token
        per pre-split piece), and an equal count loses the tie-break to JSON and
        GCX1. A proof, not an estimate: it is left out before it is counted.
        The proof (a Python regex, about as slow as counting) is tried only
        where DCP's text is _LONGER than that candidate's: it fails on the others."""
        if name != "dcp":
            return False
        counted = [other for other in ("json", "gcx") if other in among and other in self.exact]
        if not counted:
            return False
        best = min(counted, key=lambda other: self.exact[other])
        best_text = self.texts.get(best)
        if best_text is None or len(text) <= _LONGER * len(best_text):
            return False
        least = tokens.least_count(text)
        return least is not None and least >= self.exact[best]

    def paired(self, name: str, other: str) -> bool:
        return name in self.sampled and other in self.sampled

    def clearly_worse(self, name: str, best: str) -> bool:
        """Whether ``name``'s estimate is above ``best``'s by more than its error can explain."""
        (count, spread), (least, least_spread) = self.estimates[name], self.estimates[best]
        if self.paired(name, best):  # the same rows
            sample = self.sampled[name]
            above, error = paired_difference(sample, self.sampled[best])
            times = spreads(len(sample.units))
        else:  # spreads of 16 windows, or of a row sample against them
            above, error = count - least, (spread**2 + least_spread**2) ** 0.5
            times = spreads(tokens._WINDOWS)
        return above > _MARGIN * least + times * error

    def next_size(self, size: int, best: str, close: list[str]) -> int | None:
        """How many rows would decide the race, judged from this sample's
        differences and spreads (a quarter more, at least twice ``size``);
        None when one is within the margin already: only counting decides it."""
        rows = len(self.value)
        least = self.estimates[best][0]
        need = 2 * size
        for name in close:
            if name == best:
                continue
            above, error = paired_difference(self.sampled[name], self.sampled[best])
            gap = above - _MARGIN * least
            if gap <= 0:
                return None
            per_row = error**2 / (1 / size - 1 / rows)  # the variance, less the sample's size
            need = max(need, _rows_to_decide(gap, per_row, rows, 2 * size))
        return need

    def near_json(self, name: str) -> bool:
        """Whether ``name``'s estimate leaves JSON's within _VERIFY of it."""
        return bool(self.estimates["json"][0] <= self.estimates[name][0] * (1 + _VERIFY))

    def json_length(self) -> int:
        """JSON's length in characters, without decoding its bytes: a str of
        text past ASCII costs ~2 ns a byte to decode (unicode-5,000, 1 MB: 1.9
        ms), and a table sampled by rows needs only its length (_Texts decodes
        it when the text itself is read). Where the text will be read (a short
        value, one estimated by windows), it is decoded here."""
        if self.json_size is None:
            if (
                "json" in self.texts
                or self.json_bytes is None
                or len(self.json_bytes) <= _COUNT_WHOLE  # its text is read: counted whole
                or not isinstance(self.value, list)  # or its windows estimated
                or len(self.value) <= 2 * _SAMPLE_ROWS
                or self.json_bytes.isascii()  # decoded at the speed of a copy
            ):
                self.json_size = len(self.texts["json"] or "")
            else:  # one character a byte that does not continue one
                self.json_size = len(self.json_bytes.translate(None, _CONTINUATION))
        return self.json_size

    def choose(self) -> str:
        # Text with many characters that are not ASCII is counted by tiktoken
        # whole: ~20 times slower. Only a length between the two bounds asks.
        if (self.json_bytes is not None and len(self.json_bytes) <= _COUNT_WHOLE // 8) or (
            self.json_length() <= _COUNT_WHOLE // 8
            or (self.json_length() <= _COUNT_WHOLE and self.by_pieces("json"))
        ):
            return self.choose_counted()
        size = _SAMPLE_ROWS
        fits = self.estimate(size)
        refused: set[str] = set()  # written, but not exact
        while True:
            for name in refused | self.ruled_out:
                self.estimates.pop(name, None)
            order = sorted(
                self.estimates, key=lambda name: (self.estimates[name][0], _ORDER.index(name))
            )
            best = order[0]
            close = [name for name in order if not self.clearly_worse(name, best)]
            if (
                len(close) > 1
                and (not fits or all(n in self.sampled for n in close))
                and not self.cheap_to_count(close)
            ):
                # Undecided on a sample: a larger one (up to just under half of the
                # rows) costs a fraction of counting whole texts. Only the
                # candidates still in the race are sampled again.
                larger = self.next_size(size, best, close) if fits else size * _GROWTH
                if larger is not None and isinstance(self.value, list):
                    larger = min(larger, len(self.value) // 2 - 1)
                if larger is not None and larger > size:
                    self.ruled_out.update(name for name in order if name not in close)
                    size = larger
                    fits = self.estimate(size, close)
                    continue
            if len(close) > 1:
                best = min(close, key=lambda name: (self.above(name, close[0]), _ORDER.index(name)))
            if (
                best != "json"
                and "json" not in self.ruled_out
                and not self.paired(best, "json")
                and self.near_json(best)
                and self.above(best, "json") > 0
            ):
                best = "json"
            text = self.texts["json"] if best == "json" else self.text(best)
            assert text is not None
            if best == "json" or _decodes_to(text, self.value, self.json_bytes, self.plain):
                return text
            refused.add(best)  # not exact after all: choose among the others
            if self.ruled_out:  # they were ruled out against ``best``: back in the race
                self.ruled_out.clear()
                size = _SAMPLE_ROWS
                fits = self.estimate(size, [name for name in _ORDER if name not in refused])

    def cheap_to_count(self, names: Sequence[str]) -> bool:
        """Whether ``names`` are sampled rows written in ASCII, _COUNT_CLOSE
        characters at most together: counted whole faster than sampled again.
        A text not written yet is written only where JSON's length leaves room."""
        if self.json_length() * len(names) > 2 * _COUNT_CLOSE:
            return False
        total = 0
        for name in names:
            if name not in self.sampled:
                return False
            if name == "json":
                total += self.json_length()
                continue
            text = self.text(name)
            if text is None:
                return False
            total += len(text)
        # The lengths first: finding how a text is counted costs a search of it.
        return total <= _COUNT_CLOSE and all(self.by_pieces(name) for name in names)

    def by_pieces(self, name: str) -> bool:
        """Whether ``name``'s text is counted mostly by its remembered pieces
        (tokens.counted_by_pieces), asked once per choice."""
        if name not in self.pieces:
            text = self.texts[name]
            assert text is not None
            size = len(self.json_bytes) if name == "json" and self.json_bytes else None
            self.pieces[name] = tokens.counted_by_pieces(text, size)
        return self.pieces[name]

    def choose_counted(self) -> str:
        """The candidate with the fewest tokens, every one counted whole (ties to
        the earlier in _ORDER) among those that decode back to the value."""
        written = [
            name
            for name in _ORDER
            if name == "json" or (name in _ENCODERS and self.text(name) is not None)
        ]
        for name in sorted(written, key=lambda name: (self.exact_count(name), _ORDER.index(name))):
            text = self.texts[name]
            assert text is not None
            if name == "json" or _decodes_to(text, self.value, self.json_bytes, self.plain):
                return text
        raise AssertionError("JSON is always a candidate")


def _rows_to_decide(gap: float, per_row: float, rows: int, least: int) -> int:
    """The fewest rows (at least ``least``) whose sample would put ``gap`` past
    the errors Student's t asks for at that sample's size, a quarter more for
    luck. t steps down at each power of two: each step is tried with its own t
    (t at ``least`` alone asked a fifth more rows than needed on quotes-500)."""

    def enough(size: int) -> int:
        target = gap / spreads(size)  # the error that would let ``gap`` decide
        return max(size, math.ceil(1.25 / (target**2 / per_row + 1 / rows)))

    steps = [least, *(1 << k for k in range(1, rows.bit_length() + 1) if least < 1 << k < rows)]
    return min(enough(size) for size in steps)


def _decodes_to(
    text: str, value: Any, value_json: bytes | None = None, plain: bool = False
) -> bool:
    """Whether ``text`` reads back as exactly ``value`` (_values.same).

    ``plain``: ``value`` is plain JSON (plain_json), ``value_json`` its orjson
    bytes. Then what reads back as the same bytes and is plain JSON too is the
    same value: plain values that orjson writes alike have the same types (1,
    1.0 and true differ in text), key order, strs and numbers (a finite float's
    shortest text is its own), and neither holds the NaN or infinity that write
    as null. So plain_json of the value read back (a walk in C) stands in for
    same's search of the bytes for null and its == over the whole value.
    """
    try:
        got = decode(text)
    except DecodeError:
        return False
    if plain and value_json is not None:
        try:
            got_json = orjson.dumps(got)
        except orjson.JSONEncodeError:
            got_json = None
        if got_json is not None:
            if got_json != value_json:
                return False
            if plain_json(got):
                return True
    return same(value, got, value_json)


def detect(text: str, /) -> Literal["gcx", "dcp", "json"]:
    """Which format ``text`` is in, judged from its first line or two.

    A DCP payload is a ``["$S",...]`` header line followed by rows, optionally
    after one wrapper-metadata object line. A single line is always JSON: a
    JSON array may well start with the string ``"$S"``.
    """
    # GCX1 readers skip blank lines before the header, as JSON parsers skip whitespace.
    text = text.lstrip("\r\n")
    if text.startswith("GCX"):
        return "gcx"
    first, newline, rest = text.partition("\n")
    if not newline:
        return "json"
    if first.startswith('["$S",'):
        return "dcp"
    if first.startswith("{") and rest.startswith('["$S",') and _is_json_object(first):
        return "dcp"
    return "json"


def _is_json_object(line: str) -> bool:
    try:
        return isinstance(orjson.loads(line), dict)
    except orjson.JSONDecodeError:
        return False


def decode(text: str | bytes | bytearray, /, *, limits: Limits = DEFAULT_LIMITS) -> Any:
    """The JSON value carried by ``text``, whichever of the formats it is in.

    ``text`` is a str, or bytes/bytearray in UTF-8 (TypeError for anything else).
    Raises DecodeError with line and column on malformed input or past ``limits``.
    """
    doc = as_text(text)
    return _DECODERS[detect(doc)](doc, limits)


def _loads_json(text: str, limits: Limits = DEFAULT_LIMITS) -> Any:
    check_size(text, limits)
    if text.count("[") + text.count("{") > limits.max_depth and depth_exceeds(
        text, limits.max_depth
    ):
        raise DecodeError(f"JSON nests deeper than {limits.max_depth} levels", text)
    check_json_numbers(text, limits)
    try:
        return loads(text)
    except json.JSONDecodeError as exc:  # orjson's error is a subclass
        raise DecodeError.at(f"Invalid JSON: {exc.msg}", text, exc.pos) from None
    except ValueError as exc:  # too deeply nested, or a NaN constant
        raise DecodeError(f"Invalid JSON: {exc}", text) from None


_DECODERS: dict[str, Callable[[str, Limits], Any]] = {
    "gcx": lambda text, limits: gcx.decode(text, limits=limits),
    "dcp": lambda text, limits: dcp.decode(text, limits=limits),
    "json": _loads_json,
}
