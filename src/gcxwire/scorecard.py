"""The token scorecard: every case in every format, measured and round-tripped.

A case is a JSON file ``{"tool", "description", "input"[, "baseline", "source"]}``
whose ``input`` holds the exact JSON text of a tool result (number literals
matter to the reference profile). Cases live in group folders; the ones shipped
with gcxwire are in ``gcxwire/samples/cases`` (``bench/cases`` in the repo).

Each case is encoded in each format and measured: UTF-8 bytes, cl100k tokens,
gzip bytes, and whether decoding gives back the input value. Savings are
against the JSON baseline: compact JSON as a server sends it, or, for cases
marked ``"baseline": "go"`` (the gortex bench), Go ``json.Marshal`` text, as
the reference scorecard measures. docs/scorecard.md explains every column.
"""

from __future__ import annotations

import gzip
import json
import statistics
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from importlib import resources
from importlib.abc import Traversable
from pathlib import Path
from typing import Any, TextIO

from . import _auto, gcx, tokens
from ._version import __version__
from .errors import GcxwireError

__all__ = [
    "FORMATS",
    "LABELS",
    "Case",
    "CaseResult",
    "Measure",
    "Scorecard",
    "ScorecardError",
    "Summary",
    "format_delta",
    "load_cases",
    "reference_median",
    "render_json",
    "render_markdown",
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


class ScorecardError(GcxwireError):
    """A case file is missing or malformed."""


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


def load_cases(directory: str | Path | None = None) -> list[Case]:
    """The cases under ``directory`` (default: those shipped with gcxwire).

    ``*.json`` files directly inside form a group named after the folder; each
    sub-folder is a group of its own. Groups and cases come in name order.
    """
    root: Traversable = (
        resources.files("gcxwire") / "samples" / "cases" if directory is None else Path(directory)
    )
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
    if _auto.first_difference(got, value) is None:
        return "exact", None
    if _auto.first_difference(_canonical(got), _canonical(value)) is None:
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


class Progress:
    """A one-line progress bar on a stream, shown only once a run takes over a second."""

    def __init__(
        self,
        total: int,
        stream: TextIO | None,
        clock: Callable[[], float] = time.monotonic,
        after: float = 1.0,
    ) -> None:
        self.total, self.stream, self.clock, self.after = total, stream, clock, after
        self.start = clock()
        self.shown = False

    def step(self, done: int, label: str) -> None:
        if self.stream is None or self.clock() - self.start < self.after:
            return
        width = 30
        filled = width * done // self.total
        bar = "#" * filled + "-" * (width - filled)
        self.stream.write(f"\r[{bar}] {done}/{self.total} {label[:40]:<40}")
        self.stream.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown and self.stream is not None:
            self.stream.write("\n")
            self.stream.flush()


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
    progress: TextIO | None = None,
) -> Scorecard:
    """Measure every case in every format (default: all this install can fill)."""
    chosen = tuple(formats) if formats is not None else available_formats()
    if "json" not in chosen:
        chosen = ("json", *chosen)
    bar = Progress(len(cases), progress)
    results = []
    for done, case in enumerate(cases, 1):
        results.append(measure_case(case, chosen))
        bar.step(done, case.id)
    bar.close()
    toon = _toon()
    meta = {
        "gcxwire": __version__,
        "tokenizer": tokens.encoding().name,
        "toon_format": None if toon is None else toon.__version__,
    }
    return Scorecard(chosen, results, meta)


# ---------------------------------------------------------------- rendering


def render_json(card: Scorecard) -> str:
    """The whole scorecard for machines (texts left out)."""

    def measure(m: Measure) -> dict[str, Any]:
        if m.text is None:
            return {"encoded": False, "error": m.error}
        found = {"encoded": True, "bytes": m.bytes, "tokens": m.tokens, "gzip": m.gzip}
        return found | {"roundtrip": m.roundtrip, "parses": m.parses, "error": m.error}

    def summary(s: Summary) -> dict[str, Any]:
        return {k: getattr(s, k) for k in Summary.__dataclass_fields__}

    doc = {
        "meta": card.meta,
        "formats": list(card.formats),
        "cases": [
            {
                "id": r.case.id,
                "group": r.case.group,
                "tool": r.case.tool,
                "description": r.case.description,
                "baseline": r.case.baseline,
                "results": {f: measure(r.measures[f]) for f in card.formats},
                "token_savings": {f: r.savings(f) for f in card.formats if f != "json"},
            }
            for r in card.results
        ],
        "summary": {
            group or "all": {f: summary(card.summary(f, group)) for f in card.formats}
            for group in [None, *card.groups()]
        },
    }
    return json.dumps(doc, ensure_ascii=False, indent=2) + "\n"


def _row(cells: Iterable[object]) -> str:
    return "| " + " | ".join(str(c) for c in cells) + " |"


def _pct(value: float | None) -> str:
    return "n/a" if value is None else format_delta(value)


def _summary_table(card: Scorecard, group: str | None) -> list[str]:
    lines = [
        _row(
            [
                "format",
                "median Δ tokens (n/2 rule)",
                "true median Δ tokens",
                "median Δ bytes",
                "median Δ gzip",
                "worse than JSON",
                "round-trip exact",
                "same value, keys reordered",
            ]
        ),
        "|---|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for fmt in card.formats:
        s = card.summary(fmt, group)
        roundtrip = "n/a" if fmt == "tsv" else f"{s.exact}/{s.encoded}"
        reordered = "n/a" if fmt == "tsv" else str(s.reordered)
        encoded = "" if s.encoded == s.cases else f" ({s.encoded}/{s.cases} encoded)"
        medians = [s.median_tokens, s.true_median_tokens, s.median_bytes, s.median_gzip]
        shown = ["baseline"] * 5 if fmt == "json" else [*map(_pct, medians), s.worse]
        lines.append(_row([LABELS[fmt] + encoded, *shown, roundtrip, reordered]))
    return lines


def _metric_table(card: Scorecard, metric: str) -> list[str]:
    others = [f for f in card.formats if f != "json"]
    head = ["case", "JSON"] + [x for f in others for x in (LABELS[f], "Δ")]
    lines = [_row(head), "|---|--:|" + "--:|--:|" * len(others)]
    for r in card.results:
        cells: list[object] = [r.case.id, getattr(r.measures["json"], metric)]
        for f in others:
            m = r.measures[f]
            cells += (
                ["—", ""] if m.text is None else [getattr(m, metric), _pct(r.savings(f, metric))]
            )
        lines.append(_row(cells))
    return lines


def _roundtrip_table(card: Scorecard) -> list[str]:
    shown = [f for f in card.formats if f != "tsv"]
    lines = [_row(["case", *(LABELS[f] for f in shown)]), "|---|" + ":-:|" * len(shown)]
    for r in card.results:
        lines.append(_row([r.case.id, *(ROUNDTRIP_MARKS[r.measures[f].roundtrip] for f in shown)]))
    return lines


def _reproduction(card: Scorecard) -> list[str]:
    """The reference profile against Go JSON, laid out like gortex's scorecard.md."""
    rows = [r for r in card.results if r.case.baseline == "go" and "gcx-ref" in r.measures]
    if not rows:
        return []
    lines = [
        "## Reproduction of the gortex scorecard (GCX1 reference profile vs Go `json.Marshal`)",
        "",
        "| case | tool | bytes (json) | bytes (gcx) | Δ% | tokens (json) | tokens (gcx) | Δ% "
        "| gzip (json) | gzip (gcx) | Δ% | parses |",
        "|------|------|-------------:|------------:|---:|--------------:|-------------:|---:"
        "|------------:|-----------:|---:|:---------:|",
    ]
    for r in rows:
        base, got = r.measures["json"], r.measures["gcx-ref"]
        lines.append(
            _row(
                [
                    r.case.name,
                    r.case.tool,
                    base.bytes,
                    got.bytes,
                    _pct(r.savings("gcx-ref", "bytes")),
                    base.tokens,
                    got.tokens,
                    _pct(r.savings("gcx-ref")),
                    base.gzip,
                    got.gzip,
                    _pct(r.savings("gcx-ref", "gzip")),
                    "✓" if got.parses else "✗",
                ]
            )
        )
    token_median = reference_median([r.savings("gcx-ref") or 0.0 for r in rows])
    byte_median = reference_median([r.savings("gcx-ref", "bytes") or 0.0 for r in rows])
    parsed = sum(r.measures["gcx-ref"].parses for r in rows)
    lines += [
        "",
        f"**Summary (cl100k_base):** {len(rows)}/{len(rows)} cases. "
        f"Median token savings: {format_delta(token_median)}. "
        f"Median byte savings: {format_delta(byte_median)}. "
        f"Parses: {parsed}/{len(rows)}.",
        "",
        "Bytes and tokens match the reference byte for byte; gzip sizes come from Python's "
        "zlib, whose deflate differs from Go's `compress/gzip` by a few bytes. The reference's "
        '"round-trip" column only checks that the text parses; the true round trip is below.',
        "",
    ]
    return lines


@dataclass(frozen=True)
class ShapeTotal:
    """Token totals of auto against JSON over the cases of one shape (or all, shape "")."""

    shape: str
    cases: int
    compact: int  # compact JSON, cl100k
    pretty: int  # JSON indented by 2, cl100k
    auto: int
    worse: int  # cases where auto has more tokens than compact JSON
    exact: int
    compact_o200k: int | None  # None when no o200k ranks are installed
    auto_o200k: int | None


def _o200k(text: str) -> int | None:
    try:
        return tokens.count(text, "o200k_base")
    except tokens.TokenizerUnavailableError:
        return None


def shape_totals(card: Scorecard, group: str) -> list[ShapeTotal]:
    """The group's cases by shape, then all of them: totals of tokens, not medians.

    Empty when its cases carry no shape or the run has no auto column.
    """
    results = [r for r in card.results if r.case.group == group and r.case.shape]
    if not results or "auto" not in card.formats:
        return []
    counted: list[tuple[str, int, int, int, bool, int | None, int | None]] = []
    for r in results:
        value = json.loads(r.case.text)
        pretty = tokens.count(json.dumps(value, indent=2, ensure_ascii=False))
        compact, auto = r.measures["json"], r.measures["auto"]
        assert compact.text is not None and auto.text is not None
        counted.append((
            r.case.shape, compact.tokens, pretty, auto.tokens, auto.roundtrip == "exact",
            _o200k(compact.text), _o200k(auto.text),
        ))  # fmt: skip
    out: list[ShapeTotal] = []
    for shape in [*sorted({c[0] for c in counted}), ""]:
        rows = [c for c in counted if not shape or c[0] == shape]
        o200k = all(c[5] is not None for c in rows)
        out.append(
            ShapeTotal(
                shape=shape,
                cases=len(rows),
                compact=sum(c[1] for c in rows),
                pretty=sum(c[2] for c in rows),
                auto=sum(c[3] for c in rows),
                worse=sum(c[3] > c[1] for c in rows),
                exact=sum(c[4] for c in rows),
                compact_o200k=sum(c[5] or 0 for c in rows) if o200k else None,
                auto_o200k=sum(c[6] or 0 for c in rows) if o200k else None,
            )
        )
    return out


def _shape_table(totals: list[ShapeTotal]) -> list[str]:
    header = [
        "shape", "cases", "compact JSON", "pretty JSON", "auto", "Δ vs compact", "Δ vs pretty",
        "o200k compact JSON", "o200k auto", "o200k Δ", "above JSON", "exact",
    ]  # fmt: skip
    lines = [_row(header), _row(["---", *["--:"] * (len(header) - 1)])]
    for t in totals:
        o200k = t.compact_o200k is not None and t.auto_o200k is not None
        lines.append(
            _row(
                [
                    t.shape or "**all**",
                    t.cases,
                    t.compact,
                    t.pretty,
                    t.auto,
                    format_delta(savings(t.compact, t.auto)),
                    format_delta(savings(t.pretty, t.auto)),
                    t.compact_o200k if o200k else "n/a",
                    t.auto_o200k if o200k else "n/a",
                    format_delta(savings(t.compact_o200k or 0, t.auto_o200k or 0))
                    if o200k
                    else "n/a",
                    t.worse,
                    f"{t.exact}/{t.cases}",
                ]
            )  # fmt: skip
        )
    return lines


# Reported, never asserted: what auto should save against compact JSON, by shape.
_SHAPE_TARGETS: dict[str, float] = {"": 20, "nested": 30, "flat": 42, "text-heavy": 6}


def _targets(card: Scorecard) -> list[str]:
    """The goals of issue 4, checked against this run."""
    lines: list[str] = []

    def check(ok: bool, text: str) -> None:
        lines.append(f"- {'✓' if ok else '✗'} {text}")

    if "gortex" in card.groups() and "gcx" in card.formats:
        typed = card.summary("gcx", "gortex")
        if typed.median_tokens is not None:
            check(
                typed.median_tokens >= 30 and typed.exact == typed.cases,
                f"GCX1 typed on the gortex 20: median {format_delta(typed.median_tokens)} "
                f"(target ≤ {MINUS}30%), lossless {typed.exact}/{typed.cases}",
            )
    if "gortex" in card.groups() and "auto" in card.formats:
        auto = card.summary("auto", "gortex")
        if auto.median_tokens is not None:
            check(
                auto.median_tokens >= 32,
                f"auto on the gortex 20: median {format_delta(auto.median_tokens)} "
                f"(target ≤ {MINUS}32%)",
            )
    if "auto" in card.formats:
        every = card.summary("auto")
        check(
            every.worse == 0, f"auto above JSON on {every.worse} of {every.cases} cases (target 0)"
        )
    if "tsv" in card.formats and "gcx" in card.formats:
        flat = [r for r in card.results if r.measures["tsv"].text is not None]
        if flat:
            gaps = {r.case.id: (r.savings("gcx") or 0.0) - (r.savings("tsv") or 0.0) for r in flat}
            worst = min(gaps, key=gaps.__getitem__)
            check(
                gaps[worst] >= -3,
                f"GCX1 typed on the {len(flat)} flat tables: at worst {-gaps[worst]:.1f} points "
                f"behind plain TSV ({worst}), median {-statistics.median(gaps.values()):.1f} "
                "(target within 3)",
            )
    for group in card.groups():
        for t in shape_totals(card, group):
            if t.shape in _SHAPE_TARGETS:
                saved = savings(t.compact, t.auto) or 0.0
                goal = _SHAPE_TARGETS[t.shape]
                check(
                    saved >= goal,
                    f"auto on {group} {t.shape or 'all'} ({t.cases} cases): total "
                    f"{format_delta(saved)} against compact JSON (target ≤ {MINUS}{goal:g}%)",
                )
            if not t.shape:
                check(
                    t.worse == 0 and t.exact == t.cases,
                    f"auto on {group}: {t.worse} cases above JSON, {t.exact}/{t.cases} exact "
                    "(target 0, all)",
                )
    return ["## Targets", "", *lines, ""] if lines else []


def render_markdown(card: Scorecard) -> str:
    """The scorecard as Markdown: summary, targets, reproduction, per-case tables."""
    meta = card.meta
    toon = meta.get("toon_format")
    lines = [
        "# gcxwire token scorecard",
        "",
        f"Generated by `gcxwire scorecard` (gcxwire {meta.get('gcxwire')}); tokens are "
        f"tiktoken cl100k_base ({meta.get('tokenizer')}), ordinary text, no special tokens. "
        + (
            f"TOON is the official `toon-format` {toon} with the tab delimiter. "
            if toon
            else "TOON is left out (`toon-format` is not installed). "
        )
        + "Δ is the change against the JSON column: `−` saves, `+` grows. "
        "See docs/scorecard.md for what each column means.",
        "",
        "## Summary",
        "",
        f"### All {len(card.results)} cases",
        "",
        *_summary_table(card, None),
        "",
    ]
    for group in card.groups():
        count = sum(r.case.group == group for r in card.results)
        lines += [f"### {group} ({count} cases)", "", *_summary_table(card, group), ""]
        totals = shape_totals(card, group)
        if totals:
            lines += [
                f"### {group} by shape: auto against JSON, totals of tokens",
                "",
                "Sums over the cases of each shape, cl100k unless marked o200k; "
                "Δ vs pretty is against the same JSON indented by 2.",
                "",
                *_shape_table(totals),
                "",
            ]
    lines += _targets(card)
    lines += _reproduction(card)
    legend = ", ".join(f"{mark} {name}" for name, mark in ROUNDTRIP_MARKS.items())
    lines += [
        "## Tokens per case (cl100k_base)",
        "",
        *_metric_table(card, "tokens"),
        "",
        "## Bytes per case (UTF-8)",
        "",
        *_metric_table(card, "bytes"),
        "",
        "## gzip bytes per case (level 6)",
        "",
        *_metric_table(card, "gzip"),
        "",
        "## Round trip per case",
        "",
        f"Decoding the text must give back the input value. Legend: {legend}.",
        "",
        *_roundtrip_table(card),
        "",
    ]
    return "\n".join(lines)


def plot(card: Scorecard, path: str | Path) -> None:
    """A PNG bar chart of per-case token savings by format (needs matplotlib)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ScorecardError("--plot needs matplotlib: pip install 'gcxwire[plot]'") from None
    shown = [f for f in card.formats if f not in ("json", "tsv")]
    names = [r.case.id for r in card.results]
    height = 0.8 / max(len(shown), 1)
    fig, ax = plt.subplots(figsize=(10, 0.45 * len(names) + 1.5))
    for i, fmt in enumerate(shown):
        values = [_or_nan(r.savings(fmt)) for r in card.results]  # no bar where not encoded
        ax.barh([y + i * height for y in range(len(names))], values, height, label=LABELS[fmt])
    ax.set_yticks([y + height * (len(shown) - 1) / 2 for y in range(len(names))], names, fontsize=7)
    ax.invert_yaxis()
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_xlabel("token savings vs JSON (%), cl100k_base")
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _or_nan(value: float | None) -> float:
    return float("nan") if value is None else value


def progress_stream() -> TextIO | None:
    """stderr when it is a terminal: a bar in a log file is noise."""
    return sys.stderr if sys.stderr.isatty() else None
