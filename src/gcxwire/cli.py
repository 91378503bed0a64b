"""The ``gcxwire`` command: encode, decode, check, stats, scorecard, proxy.

Exit status: 0 on success, 1 when ``check`` finds a mismatch, 2 on a usage or
input error (reported on stderr in one line, never as a traceback).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import os
import sys
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any, TextIO

from . import _auto, _measure
from ._values import difference
from ._version import __version__
from .errors import DecodeError, GcxwireError

__all__ = ["main"]

EXAMPLES = """\
examples:
  gcxwire encode results.json                 fewest-token lossless form (format=auto)
  gcxwire encode --format gcx --tool search_symbols results.json
  curl -s https://api.example.com/items | gcxwire encode -
  gcxwire decode payload.gcx                  back to JSON, whatever the format
  gcxwire check results.json more.json        round-trip every format, exit 1 on a mismatch
  gcxwire stats results.json                  bytes and tokens per format
  gcxwire scorecard > scorecard.md            the token scorecard of bench/cases
  gcxwire proxy -- npx -y @modelcontextprotocol/server-memory
"""

# The formats `check` round-trips: every one gcxwire can write.
CHECKED: tuple[_auto.Format, ...] = ("json", "gcx", "dcp", "auto")
STATS_FORMATS = ("json", "gcx", "dcp", "toon", "auto")


class UserError(Exception):
    """Bad input or arguments: reported in one line on stderr, exit status 2."""


def _read(source: str) -> str:
    try:
        if source == "-":
            return sys.stdin.read()
        return Path(source).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"Cannot read {source}: {exc}") from None


def _load_json(text: str, source: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise UserError(f"{source}: not JSON: {exc}") from None


def _tool_name(args: argparse.Namespace, source: str) -> str:
    if args.tool:
        return str(args.tool)
    return "result" if source == "-" else Path(source).stem


def _dump(value: Any, indent: int | None = None) -> str:
    return json.dumps(
        value, ensure_ascii=False, indent=indent, separators=None if indent else (",", ":")
    )


def _cmd_encode(args: argparse.Namespace, out: TextIO) -> int:
    value = _load_json(_read(args.file), args.file)
    out.write(_auto.encode(value, tool=_tool_name(args, args.file), format=args.format) + "\n")
    return 0


def _cmd_decode(args: argparse.Namespace, out: TextIO) -> int:
    text = _read(args.file)
    # `encode` ends its output with one newline, as every line tool does; drop it.
    value = _auto.decode(text[:-1] if text.endswith("\n") else text)
    out.write(_dump(value, args.indent) + "\n")
    return 0


def _bundled_samples() -> list[str]:
    root = resources.files("gcxwire") / "samples"
    return sorted(str(entry) for entry in root.iterdir() if entry.name.endswith(".json"))


def _cmd_check(args: argparse.Namespace, out: TextIO) -> int:
    failed = False
    for source in args.files or _bundled_samples():
        value = _load_json(_read(source), source)
        tool = _tool_name(args, source)
        notes = []
        for fmt in CHECKED:
            try:
                text = _auto.encode(value, tool=tool, format=fmt)
            except GcxwireError as exc:  # the format cannot carry this value: not a mismatch
                notes.append(f"{fmt} cannot encode ({exc})")
                continue
            try:
                found = difference(value, _auto.decode(text))
                where = None if found is None else found[0]
            except DecodeError as exc:
                where = f"$ (its own output does not decode: {exc})"
            if where is None:
                notes.append(f"{fmt} ok" + (f" ({_auto.detect(text)})" if fmt == "auto" else ""))
            else:
                failed = True
                notes.append(f"{fmt} MISMATCH at {where}")
        out.write(f"{source}: {', '.join(notes)}\n")
    return 1 if failed else 0


def _cmd_stats(args: argparse.Namespace, out: TextIO) -> int:
    text = _read(args.file)
    _load_json(text, args.file)  # a clear error before measuring
    case = _measure.Case("", Path(args.file).stem, _tool_name(args, args.file), "", text)
    available = _measure.available_formats()
    result = _measure.measure_case(case, [f for f in STATS_FORMATS if f in available])
    out.write(f"{args.file} (tool={case.tool}, tokens: cl100k_base)\n\n")
    out.write("| format | bytes | tokens | Δ tokens | round trip |\n|---|--:|--:|--:|:-:|\n")
    for fmt, measure in result.measures.items():
        if measure.text is None:
            out.write(f"| {_measure.LABELS[fmt]} | — | — | — | cannot encode |\n")
            continue
        delta = "" if fmt == "json" else _measure.format_delta(result.savings(fmt))
        mark = _measure.ROUNDTRIP_MARKS[measure.roundtrip]
        out.write(
            f"| {_measure.LABELS[fmt]} | {measure.bytes} | {measure.tokens} | {delta} | {mark} |\n"
        )
    return 0


def _bench() -> Path | None:
    """``bench/`` of the checkout gcxwire runs from (an editable install), if there is one."""
    bench = Path(__file__).resolve().parents[2] / "bench"
    return bench if (bench / "scorecard.py").is_file() else None


def _cmd_scorecard(args: argparse.Namespace, out: TextIO) -> int:
    bench = _bench()
    if bench is None:
        return _plain_scorecard(args, out)
    # The full report lives with the cases in the checkout, outside the package.
    spec = importlib.util.spec_from_file_location("gcxwire_bench_scorecard", bench / "scorecard.py")
    assert spec is not None and spec.loader is not None
    report = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = report  # dataclasses look their module up while it loads
    spec.loader.exec_module(report)
    argv = [args.cases_dir or str(bench / "cases"), "--format", args.format]
    argv += ["--plot", args.plot] if args.plot else []
    argv += ["--quiet"] if args.quiet else []
    status: int = report.main(argv, out)
    return status


def _plain_scorecard(args: argparse.Namespace, out: TextIO) -> int:
    """Median token change and round trips per format, for an install without the bench."""
    if args.format != "md" or args.plot:
        raise UserError("--format json and --plot need the full report: bench/scorecard.py")
    if args.cases_dir:
        cases = _measure.load_cases(args.cases_dir)
    elif Path("bench", "cases").is_dir():
        cases = _measure.load_cases(Path("bench", "cases"))
    else:
        sample = resources.files("gcxwire") / "samples" / "search_results.json"
        cases = [_measure.Case("sample", "search_results", "search", "", sample.read_text("utf-8"))]
    card = _measure.run(cases)
    out.write(f"gcxwire {__version__}: {len(cases)} cases, tokens: cl100k_base\n\n")
    out.write("| format | median Δ tokens | more tokens than JSON | exact round trips |\n")
    out.write("|---|--:|--:|--:|\n")
    for fmt in card.formats:
        if fmt in ("json", "tsv"):
            continue
        summary = card.summary(fmt)
        median = _measure.format_delta(summary.median_tokens)
        out.write(
            f"| {_measure.LABELS[fmt]} | {median} | {summary.worse} | "
            f"{summary.exact}/{summary.encoded} |\n"
        )
    out.write(
        "\nThe full report (per group, per case, plots): bench/scorecard.py in the repository\n"
    )
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gcxwire",
        description="Token-cheap, lossless wire formats (GCX1, DCP) for MCP tool results.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"gcxwire {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, help: str, example: str) -> argparse.ArgumentParser:
        return commands.add_parser(
            name,
            help=help,
            description=help,
            epilog=f"example:\n  {example}",
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )

    file_help = "JSON input file, or - for stdin (default)"
    encode = command(
        "encode",
        "encode a JSON document as GCX1, DCP, or whichever is cheapest",
        "gcxwire encode --format auto --tool list_issues issues.json",
    )
    encode.add_argument("--format", choices=_auto.FORMATS, default="auto", help="default: auto")
    encode.add_argument("--tool", help="tool name for the header (default: the file's name)")
    encode.add_argument("file", nargs="?", default="-", metavar="FILE", help=file_help)
    encode.set_defaults(run=_cmd_encode)

    decode = command(
        "decode",
        "decode GCX1, DCP or JSON text (recognised by its header) and print the JSON",
        "gcxwire encode data.json | gcxwire decode --indent 2",
    )
    decode.add_argument("--indent", type=int, help="pretty-print with this indent")
    decode.add_argument("file", nargs="?", default="-", metavar="FILE", help="text file, or -")
    decode.set_defaults(run=_cmd_decode)

    check = command(
        "check",
        "round-trip JSON files through every format; exit 1 on any mismatch",
        "gcxwire check results.json   (no FILE: the samples bundled with gcxwire)",
    )
    check.add_argument("--tool", help="tool name for the header (default: each file's name)")
    check.add_argument("files", nargs="*", metavar="FILE", help="JSON files to check")
    check.set_defaults(run=_cmd_check)

    stats = command(
        "stats",
        "bytes and cl100k tokens of a JSON file in each format",
        "gcxwire stats results.json",
    )
    stats.add_argument("--tool", help="tool name for the header (default: the file's name)")
    stats.add_argument("file", metavar="FILE", help="JSON input file, or -")
    stats.set_defaults(run=_cmd_stats)

    card = command(
        "scorecard",
        "measure every case in every format: bytes, tokens, gzip, round trip",
        "gcxwire scorecard bench/cases --format json > scorecard.json",
    )
    card.add_argument(
        "cases_dir",
        nargs="?",
        metavar="CASES_DIR",
        help="folder of case files (default: bench/cases)",
    )
    card.add_argument("--format", choices=("md", "json"), default="md", help="default: md")
    card.add_argument("--plot", metavar="FILE.png", help="also draw savings per case (matplotlib)")
    card.add_argument("--quiet", action="store_true", help="no progress bar on stderr")
    card.set_defaults(run=_cmd_scorecard)

    # Listed for --help; the arguments go to gcxwire.proxy untouched (see main).
    command("proxy", "run the stdio MCP proxy (gcxwire proxy --help)", "gcxwire proxy -- CMD ...")
    return parser


def _proxy(argv: Sequence[str]) -> int:
    try:
        proxy_cli = importlib.import_module("gcxwire.proxy.cli")
    except ModuleNotFoundError as exc:
        raise UserError(f"The proxy is not available in this build of gcxwire ({exc})") from None
    status: int = proxy_cli.main(list(argv))
    return status


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    try:
        if args_list[:1] == ["proxy"]:
            return _proxy(args_list[1:])
        args = _parser().parse_args(args_list)
        status: int = args.run(args, sys.stdout)
        sys.stdout.flush()  # a full disk shows here, not at exit as a traceback
        return status
    except (UserError, GcxwireError) as exc:
        sys.stderr.write(f"gcxwire: error: {exc}\n")
        return 2
    except UnicodeEncodeError as exc:
        char = exc.object[exc.start : exc.start + 1]
        sys.stderr.write(
            f"gcxwire: error: the output holds {char!r}, which {exc.encoding} cannot carry "
            "(a lone surrogate); --format json writes it as an escape\n"
        )
        return 2
    except BrokenPipeError:  # e.g. `gcxwire scorecard | head`
        _drop_stdout()
        return 0
    except OSError as exc:
        _drop_stdout()
        sys.stderr.write(f"gcxwire: error: cannot write the output: {exc.strerror or exc}\n")
        return 1
    except KeyboardInterrupt:
        return 130


def _drop_stdout() -> None:
    # What is still buffered cannot be written; without this Python retries at exit and
    # prints "Exception ignored" with a traceback.
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):  # no real file descriptor (tests capture stdout)
        pass
