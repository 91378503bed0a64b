"""How GCX1 typed encode and decode scale: ns per row, per column and per character.

A codec that is linear shows a flat column of figures as the table grows; a
figure that climbs with size is a superlinear path. Every sweep holds the other
two dimensions fixed. CPU time (``time.process_time``), best of a few calls,
in one process. Usage::

    python bench/scaling.py            # rows 5 to 200,000, columns to 10,000
    python bench/scaling.py --quick    # rows to 5,000, columns to 1,000
    python bench/scaling.py --sweeps columns --encode --twins ext

The column tables' rows are built by a loop, so no two rows share a key object;
``--shared-keys`` passes them through JSON first, so that they share them as a
JSON decoder's rows do (the writer compares such keys by address).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent / "speed"))

from workloads import TWINS, cpu, symbols, twin, wide  # noqa: E402

from gcxwire import gcx  # noqa: E402


def long_cells(rows: int, length: int) -> list[dict[str, Any]]:
    text = "The relay waits on a closed pipe; the proxy passes it through. " * (length // 60 + 1)
    return [{"id": i, "text": text[:length]} for i in range(rows)]


def sweep(
    label: str,
    unit: str,
    cases: list[tuple[int, Any, int]],
    twins: Sequence[str] = TWINS,
    decode: bool = True,
) -> list[str]:
    """Rows of the report: per case, ns per ``unit`` for encode (and decode) on each twin."""
    heads = [f"{t} enc ns/{unit}" + (f" | {t} dec ns/{unit}" if decode else "") for t in twins]
    lines = [
        f"| {label} | " + " | ".join(heads) + " |",
        "|--:|" + "--:|" * ((1 + decode) * len(twins)),
    ]
    for size, value, units in cases:
        cells = []
        for t in twins:
            with twin(t):
                cells.append(f"{cpu(lambda v: gcx.encode(v, tool='t'), value) * 1e9 / units:,.1f}")
                if decode:
                    text = gcx.encode(value, tool="t")
                    cells.append(f"{cpu(gcx.decode, text) * 1e9 / units:,.1f}")
        lines.append(f"| {size:,} | " + " | ".join(cells) + " |")
    return lines


SWEEPS = ("rows", "columns", "length")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sweeps")
    parser.add_argument(
        "--sweeps", nargs="+", choices=SWEEPS, default=list(SWEEPS), help="default: all"
    )
    parser.add_argument("--encode", action="store_true", help="encode only")
    parser.add_argument("--twins", nargs="+", choices=TWINS, default=list(TWINS))
    parser.add_argument(
        "--shared-keys", action="store_true", help="column tables' rows share key objects"
    )
    args = parser.parse_args()
    row_sizes = [5, 50, 500, 5000] if args.quick else [5, 50, 500, 5000, 50_000, 200_000]
    col_sizes = [10, 100, 1000] if args.quick else [10, 100, 1000, 4000, 10_000]
    lengths = [10, 100, 1000, 10_000]

    def columns(c: int, present: float) -> Any:
        rows = wide(20, c, present)
        return json.loads(json.dumps(rows)) if args.shared_keys else rows

    keys = ", keys shared" if args.shared_keys else ""
    reports: dict[str, Callable[[], list[tuple[str, str, list[tuple[int, Any, int]]]]]] = {
        "rows": lambda: [("symbols rows", "row", [(n, symbols(n), n) for n in row_sizes])],
        "columns": lambda: [
            (
                f"columns (20 rows, all present{keys})",
                "cell",
                [(c, columns(c, 1), 20 * c) for c in col_sizes],
            ),
            (
                f"columns (20 rows, 30 % present{keys})",
                "cell",
                [(c, columns(c, 0.3), 20 * c) for c in col_sizes],
            ),
        ],
        "length": lambda: [
            ("cell length (100 rows)", "char", [(n, long_cells(100, n), 100 * n) for n in lengths])
        ],
    }
    for name in args.sweeps:  # each sweep's tables built only when it runs
        for label, unit, cases in reports[name]():
            print("\n".join(sweep(label, unit, cases, args.twins, not args.encode)))
            print()


if __name__ == "__main__":
    main()
