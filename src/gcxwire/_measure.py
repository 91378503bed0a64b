"""Measuring one value in every format: bytes, tokens, gzip, round trip.

The core of ``gcxwire stats``, ``check`` and ``scorecard``; the full Markdown
report (tables, the gortex reproduction, plots) is ``bench/scorecard.py`` in
the repository. A case is a JSON file ``{"tool", "description", "input"[,
"baseline", "source"]}`` whose ``input`` holds the exact JSON text of a tool
result (number literals matter to the reference profile). Cases live in group
folders; the repository's are in ``bench/cases``.

Each case is encoded in each format and measured: UTF-8 bytes, cl100k tokens,
gzip bytes, and whether decoding gives back the input value. Savings are
against the JSON baseline: compact JSON as a server sends it, or, for cases
marked ``"baseline": "go"`` (the gortex bench), Go ``json.Marshal`` text, as
the reference scorecard measures. docs/scorecard.md explains every measure.
"""

from __future__ import annotations

import gzip
import json
import statistics
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from importlib.abc import Traversable
from pathlib import Path
from typing import Any

from . import _auto, gcx, tokens
from ._values import same
from ._version import __version__
from .errors import GcxwireError, ScorecardError

__all__ = [
    "FORMATS",
    "LABELS",
    "Case",
    "CaseResult",
    "Measure",
    "Scorecard",
    "Summary",
    "available_formats",
    "format_delta",
    "load_cases",
    "measure_case",
    "reference_median",
    "run",
    "savings",
]

# Column order of every table; "tsv" is a size yardstick, not a codec.
FORMATS: tuple[str, ...] = ("json", "gcx-ref", "gcx", "dcp", "toon", "auto", "tsv")
LABELS: dict[str, str] = {
    "json": "JSON",
    "gcx-ref": "GCX1 reference",
    "gcx": "GCX1 typed",
    "dcp": "DCP gateway",
    "toon": "TOON",
    "auto": "auto",
    "tsv": "plain TSV",
}
MINUS = "\N{MINUS SIGN}"
# Round-trip outcomes, best first, and how the tables show them.
ROUNDTRIP_MARKS: dict[str, str] = {
    "exact": "✓",  # the same value, types and key order included
    "order": "↕",  # the same value with object keys in another order
    "lost": "✗",  # decodes to a different value
    "undecodable": "!",  # the decoder rejects the text
    "none": "·",  # no decoder (the TSV yardstick)
    "unsupported": "—",  # the format cannot encode this value
}


@dataclass(frozen=True)
class Case:
    """One tool result to measure."""

    group: str
    name: str
    tool: str
    description: str
    text: str
    baseline: str = "compact"  # or "go": Go json.Marshal, as the reference bench measures
    shape: str = ""  # flat, nested, graph, single-object, text-heavy, columnar (real cases)

    @property
    def id(self) -> str:
        return f"{self.group}/{self.name}"


@dataclass(frozen=True)
class Measure:
    """One case in one format. ``text`` is None when the format cannot carry it."""

    text: str | None
    bytes: int = 0
    tokens: int = 0
    gzip: int = 0
    roundtrip: str = "unsupported"
    parses: bool = False
    error: str | None = None


@dataclass(frozen=True)
class CaseResult:
    case: Case
    measures: dict[str, Measure]

    def savings(self, fmt: str, metric: str = "tokens") -> float | None:
        """Per cent saved by ``fmt`` against this case's JSON baseline (None if n/a)."""
        got = self.measures[fmt]
        if got.text is None:
            return None
        return savings(getattr(self.measures["json"], metric), getattr(got, metric))


def savings(base: int, got: int) -> float | None:
    """``(base - got) / base`` in per cent; None for an empty baseline."""
    return None if base == 0 else (base - got) / base * 100


def format_delta(saved: float | None) -> str:
    """The reference's rendering: ``−27.4%`` for savings (even 0), ``+3.4%`` for growth."""
    if saved is None:
        return "n/a"
    return f"{MINUS}{saved:.1f}%" if saved >= 0 else f"+{-saved:.1f}%"


def reference_median(values: Sequence[float]) -> float:
    """Element n/2 of the ascending values, the reference scorecard's median rule."""
    return sorted(values)[len(values) // 2]


# ---------------------------------------------------------------- loading cases


def load_cases(directory: str | Path) -> list[Case]:
    """The cases under ``directory``.

    ``*.json`` files directly inside form a group named after the folder; each
    sub-folder is a group of its own. Groups and cases come in name order.
    """
    root: Traversable = Path(directory)
    if not root.is_dir():
        raise ScorecardError(f"{root}: not a directory of scorecard cases")
    groups = [root] + sorted((d for d in root.iterdir() if d.is_dir()), key=lambda d: d.name)
    cases = [
        _read_case(group.name, entry)
        for group in groups
        for entry in sorted(group.iterdir(), key=lambda e: e.name)
        if entry.is_file() and entry.name.endswith(".json")
    ]
    if not cases:
        raise ScorecardError(f"{root}: no *.json case files found")
    return cases


def _read_case(group: str, entry: Traversable) -> Case:
    try:
        data = json.loads(entry.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ScorecardError(f"{entry}: cannot read case: {exc}") from None
    if not isinstance(data, dict) or not all(
        isinstance(data.get(key), str) for key in ("tool", "input")
    ):
        raise ScorecardError(f'{entry}: a case needs string members "tool" and "input"')
    baseline = data.get("baseline", "compact")
    if baseline not in ("compact", "go"):
        raise ScorecardError(f'{entry}: "baseline" must be "compact" or "go"')
    return Case(
        group=group,
        name=entry.name.removesuffix(".json"),
        tool=data["tool"],
        description=str(data.get("description", "")),
        text=data["input"],
        baseline=baseline,
        shape=str(data.get("shape", "")),
    )


# ---------------------------------------------------------------- measuring


def _toon() -> Any:
    try:
        import toon_format
    except ImportError:
        return None
    return toon_format


def available_formats() -> tuple[str, ...]:
    """The columns this installation can fill: TOON is an optional peer."""
    return tuple(f for f in FORMATS if f != "toon" or _toon() is not None)


def _plain_tsv(value: Any) -> str | None:
    """Header row plus one TAB-joined row per record, no escaping, no types.

    Only for a top-level list of flat records whose text holds no TAB or
    newline: the smallest honest text for a table, the yardstick for GCX1.
    """
    if not value or not isinstance(value, list) or not all(isinstance(r, dict) for r in value):
        return None
    fields: dict[str, None] = {}
    for record in value:
        fields.update(dict.fromkeys(record))
    lines = ["\t".join(fields)]
    for record in value:
        cells = []
        for name in fields:
            item = record.get(name)
            if isinstance(item, (dict, list)):
                return None
            cell = "" if item is None else item if isinstance(item, str) else json.dumps(item)
            if "\t" in cell or "\n" in cell or "\r" in cell:
                return None
            cells.append(cell)
        lines.append("\t".join(cells))
    text = "\n".join(lines)
    return None if "\t" in "".join(fields) else text


def _canonical(value: Any) -> Any:
    """``value`` with every object's keys sorted, to tell "reordered" from "lost"."""
    if isinstance(value, dict):
        return {k: _canonical(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [_canonical(v) for v in value]
    return value


def _judge(decode: Callable[[str], Any], text: str, value: Any) -> tuple[str, str | None]:
    """The round-trip outcome, and the decoder's complaint if it rejected the text."""
    try:
        got = decode(text)
    except Exception as exc:  # shown as "!" in the tables, with the message in the JSON
        return "undecodable", f"{type(exc).__name__}: {exc}"
    if same(value, got):
        return "exact", None
    if same(_canonical(value), _canonical(got)):
        return "order", None
    return "lost", None


def _parses(parse: Callable[[str], Any], text: str) -> bool:
    try:
        parse(text)
    except Exception:  # the reference harness's check: does the text parse at all?
        return False
    return True


def _toon_decode(text: str) -> Any:
    return _toon().decode(text)


# How each column's text is read back: decoded for the round trip, and parsed
# (structure only, for GCX1 the reference harness's own check) for "parses".
_DECODERS: dict[str, Callable[[str], Any] | None] = {
    "json": _auto.decode,
    "gcx-ref": _auto.decode,
    "gcx": _auto.decode,
    "dcp": _auto.decode,
    "toon": _toon_decode,
    "auto": _auto.decode,
    "tsv": None,
}
_PARSERS: dict[str, Callable[[str], Any]] = {"gcx-ref": gcx.parse, "gcx": gcx.parse}


def _measure(fmt: str, text: str, value: Any) -> Measure:
    data = text.encode("utf-8")
    decode = _DECODERS[fmt]
    roundtrip, error = ("none", None) if decode is None else _judge(decode, text, value)
    parse = _PARSERS.get(fmt, decode)
    return Measure(
        text=text,
        bytes=len(data),
        tokens=tokens.count(text),
        # Go's compress/gzip default is level 6; its deflate differs from zlib's by a few bytes.
        gzip=len(gzip.compress(data, compresslevel=6, mtime=0)),
        roundtrip=roundtrip,
        parses=parse is not None and _parses(parse, text),
        error=error,
    )


def measure_case(case: Case, formats: Iterable[str]) -> CaseResult:
    """Encode ``case`` in each of ``formats`` and measure it."""
    value = json.loads(case.text)
    encoders: dict[str, Callable[[], str | None]] = {
        "json": lambda: (
            gcx.reference_json(gcx.loads_exact(case.text))
            if case.baseline == "go"
            else _auto.compact_json(value)
        ),
        "gcx-ref": lambda: gcx.encode(
            gcx.loads_exact(case.text), tool=case.tool, profile="reference"
        ),
        "gcx": lambda: gcx.encode(value, tool=case.tool),
        "dcp": lambda: _auto.encode(value, tool=case.tool, format="dcp"),
        "toon": lambda: _toon().encode(value, delimiter="\t"),
        "auto": lambda: _auto.encode(value, tool=case.tool, format="auto"),
        "tsv": lambda: _plain_tsv(value),
    }
    measures: dict[str, Measure] = {}
    for fmt in formats:
        try:
            text = encoders[fmt]()
        except GcxwireError as exc:  # the format cannot carry this value: a result, not a crash
            measures[fmt] = Measure(text=None, error=str(exc))
            continue
        if text is None:
            measures[fmt] = Measure(text=None, error="not a flat table")
        else:
            measures[fmt] = _measure(fmt, text, value)
    return CaseResult(case, measures)


# ---------------------------------------------------------------- the run


@dataclass(frozen=True)
class Summary:
    """One format over a set of cases."""

    cases: int  # cases in the set
    encoded: int  # cases the format could encode
    median_tokens: float | None  # reference rule: element n/2 of the ascending savings
    true_median_tokens: float | None
    median_bytes: float | None
    median_gzip: float | None
    worse: int  # cases with more tokens than the JSON baseline
    exact: int  # round trips giving the same value, types and key order included
    reordered: int  # round trips giving the same value, keys in another order


@dataclass
class Scorecard:
    formats: tuple[str, ...]
    results: list[CaseResult]
    meta: dict[str, Any] = field(default_factory=dict)

    def groups(self) -> list[str]:
        return list(dict.fromkeys(r.case.group for r in self.results))

    def summary(self, fmt: str, group: str | None = None) -> Summary:
        chosen = [r for r in self.results if group is None or r.case.group == group]
        encoded = [r for r in chosen if r.measures[fmt].text is not None]

        def medians(metric: str) -> tuple[float | None, float | None]:
            # a zero baseline counts as no saving, as in the reference
            values = [r.savings(fmt, metric) or 0.0 for r in encoded]
            if not values:
                return None, None
            return reference_median(values), statistics.median(values)

        ref_tokens, true_tokens = medians("tokens")
        return Summary(
            cases=len(chosen),
            encoded=len(encoded),
            median_tokens=ref_tokens,
            true_median_tokens=true_tokens,
            median_bytes=medians("bytes")[0],
            median_gzip=medians("gzip")[0],
            worse=sum(r.measures[fmt].tokens > r.measures["json"].tokens for r in encoded),
            exact=sum(r.measures[fmt].roundtrip == "exact" for r in encoded),
            reordered=sum(r.measures[fmt].roundtrip == "order" for r in encoded),
        )


def run(
    cases: Sequence[Case],
    formats: Sequence[str] | None = None,
    step: Callable[[int, str], None] | None = None,
) -> Scorecard:
    """Measure every case in every format (default: all this install can fill).

    ``step(done, case_id)`` is called after each case (a progress bar's hook).
    """
    chosen = tuple(formats) if formats is not None else available_formats()
    if "json" not in chosen:
        chosen = ("json", *chosen)
    results = []
    for done, case in enumerate(cases, 1):
        results.append(measure_case(case, chosen))
        if step is not None:
            step(done, case.id)
    toon = _toon()
    meta = {
        "gcxwire": __version__,
        "tokenizer": tokens.encoding().name,
        "toon_format": None if toon is None else toon.__version__,
    }
    return Scorecard(chosen, results, meta)
