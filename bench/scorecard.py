"""The full token scorecard: every case in every format, as Markdown or JSON, and a plot.

    python bench/scorecard.py [CASES_DIR] [--format md|json] [--plot FILE.png] [--quiet]

The measuring is gcxwire's own (``gcxwire._measure``, also behind ``gcxwire
stats``); this file lays the results out: summary tables per group, the
reproduction of the gortex scorecard's layout, per-case tables and a bar chart.
``gcxwire scorecard`` runs this file when gcxwire runs from a checkout, and
prints a plain summary otherwise. docs/scorecard.md explains every column.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from gcxwire import dcp, tokens
from gcxwire._measure import (
    LABELS,
    ROUNDTRIP_MARKS,
    Case,
    Measure,
    Scorecard,
    Summary,
    format_delta,
    load_cases,
    reference_median,
    run,
    savings,
)
from gcxwire.errors import GcxwireError, ScorecardError, TokenizerUnavailableError
from gcxwire.proxy.codecs import DcpCodec

__all__ = [
    "CASES",
    "REGISTRY_SIZE",
    "Progress",
    "RegistryCost",
    "ShapeTotal",
    "main",
    "measure",
    "plot",
    "registry_cost",
    "registry_schemas",
    "registry_section",
    "render_json",
    "render_markdown",
    "shape_totals",
]

#: The repository's cases, one folder per group.
CASES = Path(__file__).resolve().parent / "cases"


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
    except TokenizerUnavailableError:
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


# ---------------------------------------------------------------- the schema registry

#: Schemas in the registry whose token cost the report measures.
REGISTRY_SIZE = 50
#: The groups of recorded real tool results the registry's schemas are learned from.
REGISTRY_GROUPS = ("real", "mcp")


def _record_lists(
    value: Any, path: tuple[str, ...] = ()
) -> Iterable[tuple[tuple[str, ...], list[Any]]]:
    """Every list of objects in ``value`` with its path (list indexes left out)."""
    if isinstance(value, list):
        if value and all(isinstance(item, dict) for item in value):
            yield path, value
        for item in value:
            yield from _record_lists(item, path)
    elif isinstance(value, dict):
        for key, member in value.items():
            yield from _record_lists(member, (*path, key))


def registry_schemas(cases: Iterable[Case], size: int = REGISTRY_SIZE) -> list[dcp.DcpSchema]:
    """The schemas of the first ``size`` record lists of the recorded real tool
    results: outer lists before nested ones, then case by case; each is the
    schema the proxy learns when a tool returns that list (``DcpCodec.build``),
    named after the case and the list's path."""
    found: dict[tuple[int, str], list[Any]] = {}
    order: list[tuple[int, int, str]] = []
    real = [case for case in cases if case.group in REGISTRY_GROUPS]
    for number, case in enumerate(real):
        for path, rows in _record_lists(json.loads(case.text)):
            name = ".".join((case.name, *path))  # tools repeat across servers; files do not
            key = (number, name)
            if key not in found:
                found[key] = []
                order.append((len(path), number, name))
            found[key].extend(rows)
    build = DcpCodec(dcp).build
    chosen = sorted(order, key=lambda k: (k[0], k[1]))[:size]
    return [build(name, 1, found[(number, name)], ()) for _, number, name in chosen]


@dataclass(frozen=True)
class RegistryCost:
    """One form of the registry and what it costs."""

    form: str
    bytes: int
    cl100k: int
    o200k: int | None  # None when no o200k ranks are installed


def registry_cost(schemas: Sequence[dcp.DcpSchema]) -> tuple[list[RegistryCost], bool]:
    """The registry as DCP (what ``gcxwire://schemas`` serves) and as DcpSchemaDef
    JSON (each schema with its mapping), compact and pretty; and whether the DCP
    decodes back to exactly the entries."""
    entries = [schema.to_entry("provisional") for schema in schemas]
    text = dcp.encode(entries, dcp.REGISTRY_SCHEMA)
    exact = dcp.decode(text, schema=dcp.REGISTRY_SCHEMA) == entries
    defs = [schema.to_def(with_mapping=True) for schema in schemas]
    forms = [
        ("DCP (dcp-schemas:v1)", text),
        ("DcpSchemaDef JSON, compact", json.dumps(defs, separators=(",", ":"), ensure_ascii=False)),
        ("DcpSchemaDef JSON, pretty (indent 2)", json.dumps(defs, indent=2, ensure_ascii=False)),
    ]
    costs = [
        RegistryCost(form, len(body.encode()), tokens.count(body), _o200k(body))
        for form, body in forms
    ]
    return costs, exact


def registry_section(cases: Iterable[Case]) -> list[str]:
    """The report's section on the registry's token cost (none without real cases)."""
    schemas = registry_schemas(cases)
    if not schemas:
        return []
    costs, exact = registry_cost(schemas)
    compact = costs[1]
    header = ["form", "bytes", "cl100k", "Δ cl100k", "o200k", "Δ o200k"]
    lines = [
        f"## A schema registry of {len(schemas)} real tool schemas",
        "",
        f"The registry the proxy serves as `gcxwire://schemas`: {len(schemas)} schemas learned "
        "(as the proxy learns them) from the record lists of the recorded real tool results "
        f"({', '.join(REGISTRY_GROUPS)} groups; outer lists first), one row each, against the "
        "same schemas as a JSON array of DcpSchemaDef objects with their mappings. "
        f"Δ is against compact DcpSchemaDef JSON. The DCP decodes back to the entries "
        f"{'exactly' if exact else 'NOT exactly'}.",
        "",
        _row(header),
        _row(["---", *["--:"] * (len(header) - 1)]),
    ]
    for cost in costs:
        o200k = cost.o200k is not None and compact.o200k is not None
        cl100k_delta = format_delta(savings(compact.cl100k, cost.cl100k))
        o200k_delta = format_delta(savings(compact.o200k or 0, cost.o200k or 0))
        if cost is compact:
            cl100k_delta = o200k_delta = "baseline"
        shown = [cost.o200k, o200k_delta] if o200k else ["n/a", "n/a"]
        lines.append(_row([cost.form, cost.bytes, cost.cl100k, cl100k_delta, *shown]))
    return [*lines, ""]


def render_markdown(card: Scorecard) -> str:
    """The scorecard as Markdown: summary, reproduction, per-case tables."""
    meta = card.meta
    toon = meta.get("toon_format")
    lines = [
        "# gcxwire token scorecard",
        "",
        f"Generated by `python bench/scorecard.py` (gcxwire {meta.get('gcxwire')}); tokens are "
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
    lines += _reproduction(card)
    lines += registry_section(r.case for r in card.results)
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
        raise ScorecardError("--plot needs matplotlib: pip install matplotlib") from None
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


def measure(
    directory: str | Path = CASES,
    formats: Sequence[str] | None = None,
    progress: TextIO | None = None,
) -> Scorecard:
    """Load the cases under ``directory`` and measure them, with a progress bar on ``progress``."""
    cases = load_cases(directory)
    bar = Progress(len(cases), progress)
    card = run(cases, formats, step=bar.step)
    bar.close()
    return card


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    """Run the report; returns the exit status. Bad cases raise ``ScorecardError``."""
    parser = argparse.ArgumentParser(prog="bench/scorecard.py", description=__doc__.split("\n")[0])
    parser.add_argument("cases_dir", nargs="?", default=str(CASES), metavar="CASES_DIR")
    parser.add_argument("--format", choices=("md", "json"), default="md", help="default: md")
    parser.add_argument("--plot", metavar="FILE.png", help="also draw savings per case")
    parser.add_argument("--quiet", action="store_true", help="no progress bar on stderr")
    args = parser.parse_args(argv)
    out = sys.stdout if out is None else out
    card = measure(args.cases_dir, progress=None if args.quiet else progress_stream())
    out.write(render_json(card) if args.format == "json" else render_markdown(card))
    if args.plot:
        plot(card, args.plot)
    return 0


if __name__ == "__main__":
    try:
        raise SystemExit(main())
    except GcxwireError as exc:
        sys.stderr.write(f"scorecard: error: {exc}\n")
        raise SystemExit(2) from None
