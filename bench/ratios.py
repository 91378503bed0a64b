"""Print the speed ratio table: gcxwire against orjson and TOON, extension against pure twin.

Everything is measured in this one process on the same rows (bench/speed/workloads.py).
Throughput ratios: ``ours/orjson = time(orjson) / time(ours)``, so 0.5 means half
orjson's speed and 2 means twice it. Usage::

    python bench/ratios.py            # all sizes, plus the 50 MB streaming decode
    python bench/ratios.py --quick    # 5 and 50 rows, 2 MB stream
    python bench/ratios.py --targets  # GCX1 typed against orjson and the pure twin,
                                      # DCP against orjson, 500 and 5,000 rows,
                                      # 3 runs: each ratio's spread
"""

from __future__ import annotations

import argparse
import contextlib
import platform
import sys
import time
import timeit
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent / "speed"))

from streaming import stream_decode  # noqa: E402
from workloads import QUICK_SIZES, SHAPES, SIZES, TOOL, TWINS, carries, codecs, twin  # noqa: E402

import gcxwire  # noqa: E402


def best_time(fn: Callable[[Any], Any], arg: Any, budget: float) -> float:
    """CPU seconds per call: the best of 7 repeats of a loop lasting about ``budget / 7``.

    CPU time (``time.process_time``), not wall time, so other processes on a
    busy machine do not count; timeit turns the garbage collector off meanwhile.
    """
    timer = timeit.Timer(lambda: fn(arg), timer=time.process_time)
    number = 1
    while True:
        if timer.timeit(number) * 7 >= budget or number >= 1 << 20:
            break
        number *= 2
    return min(timer.repeat(7, number)) / number


def measure(
    shape: str, size: int, budget: float, only: tuple[str, ...] | None = None
) -> dict[str, float]:
    """Seconds per call for every codec (or those in ``only``)/direction/twin on one table."""
    rows = SHAPES[shape](size)
    times: dict[str, float] = {}
    for name, (encode, decode) in codecs(TOOL[shape]).items():
        if (only is not None and name not in only) or not carries(name, shape):
            continue
        text = encode(rows)
        # The official TOON package is ~100x slower; one short budget is plenty.
        b = budget / 4 if name == "toon-format" else budget
        for t in TWINS if name.startswith("gcx") else ("",):
            suffix = f"[{t}]" if t else ""
            with twin(t) if t else contextlib.nullcontext():
                times[f"{name}{suffix} enc"] = best_time(encode, rows, b)
                times[f"{name}{suffix} dec"] = best_time(decode, text, b)
    return times


def ratio(a: float | None, b: float | None) -> str:
    return "n/a" if a is None or b is None else f"{a / b:.2f}"


def table(results: dict[tuple[str, int], dict[str, float]]) -> list[str]:
    best = "gcx-typed[ext]" if "ext" in TWINS else "gcx-typed[py]"
    lines = [
        "| table | rows | dir | GCX1 typed µs | ours/orjson | ours/toons | ext/py | "
        "reference ours/orjson | reference ext/py | DCP/orjson | toons/orjson | "
        "toon-format/orjson |",
        "|---|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for (shape, size), t in results.items():
        for d in ("enc", "dec"):
            ours = t[f"{best} {d}"]
            orj = t[f"orjson {d}"]
            toons = t.get(f"toons {d}")
            py = t.get(f"gcx-typed[py] {d}")
            ref = t.get(f"gcx-reference[ext] {d}", t.get(f"gcx-reference[py] {d}"))
            ref_py = t.get(f"gcx-reference[py] {d}")
            lines.append(
                f"| {shape} | {size:,} | {d} | {ours * 1e6:,.0f} | {ratio(orj, ours)} | "
                f"{ratio(toons, ours)} | {ratio(py, ours) if 'ext' in TWINS else 'n/a'} | "
                f"{ratio(orj, ref)} | {ratio(ref_py, ref) if 'ext' in TWINS else 'n/a'} | "
                f"{ratio(orj, t.get('dcp ' + d))} | {ratio(orj, toons)} | "
                f"{ratio(orj, t.get(f'toon-format {d}'))} |"
            )
    return lines


def spread(values: list[float]) -> str:
    low, high = min(values), max(values)
    return f"{low:.2f}" if f"{low:.2f}" == f"{high:.2f}" else f"{low:.2f}–{high:.2f}"


def targets(shapes: list[str], sizes: tuple[int, ...], runs: int, budget: float) -> list[str]:
    """GCX1 typed against orjson and ext against py, and DCP against orjson, each
    ratio's spread over ``runs`` runs."""
    only = ("gcx-typed", "orjson", "dcp")
    found: dict[tuple[str, int], list[dict[str, float]]] = {}
    for _ in range(runs):  # whole passes, so a slow spell on the machine hits one run
        for shape in shapes:
            for size in sizes:
                found.setdefault((shape, size), []).append(measure(shape, size, budget, only))
    ours = "gcx-typed[ext]" if "ext" in TWINS else "gcx-typed[py]"
    lines = [
        "| shape | rows | encode µs | decode µs | encode /orjson | decode /orjson | "
        "encode ext/py | decode ext/py | DCP encode /orjson | DCP decode /orjson |",
        "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for (shape, size), ts in found.items():
        cells = [f"{min(t[f'{ours} {d}'] for t in ts) * 1e6:,.0f}" for d in ("enc", "dec")]
        for d in ("enc", "dec"):
            cells.append(spread([t[f"orjson {d}"] / t[f"{ours} {d}"] for t in ts]))
        for d in ("enc", "dec"):
            if "ext" in TWINS:
                cells.append(spread([t[f"gcx-typed[py] {d}"] / t[f"{ours} {d}"] for t in ts]))
            else:
                cells.append("n/a")
        for d in ("enc", "dec"):
            if f"dcp {d}" in ts[0]:
                cells.append(spread([t[f"orjson {d}"] / t[f"dcp {d}"] for t in ts]))
            else:
                cells.append("n/a")  # DCP takes lists of records only
        lines.append(f"| {shape} | {size:,} | " + " | ".join(cells) + " |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small tables and a 2 MB stream")
    parser.add_argument("--budget", type=float, default=0.5, help="seconds per measurement")
    parser.add_argument("--targets", action="store_true", help="ours/orjson and ext/py spreads")
    parser.add_argument("--runs", type=int, default=3, help="runs for --targets")
    parser.add_argument("--shapes", nargs="*", choices=list(SHAPES), help="default: all")
    parser.add_argument("--sizes", nargs="*", type=int, help="rows per table")
    args = parser.parse_args()
    shapes = args.shapes or list(SHAPES)
    print(
        f"gcxwire {gcxwire.__version__}, Python {platform.python_version()}, "
        f"{platform.machine()}, twins measured: {', '.join(TWINS)}\n"
    )
    if args.targets:
        sizes = tuple(args.sizes or (500, 5000))
        print("\n".join(targets(shapes, sizes, args.runs, args.budget)))
        return
    sizes = tuple(args.sizes or (QUICK_SIZES if args.quick else SIZES))
    results = {(s, n): measure(s, n, args.budget) for s in shapes for n in sizes}
    print("\n".join(table(results)))

    total = (2 if args.quick else 50) << 20
    print()
    for chunk in (64 << 10, 4 << 10):
        fast = stream_decode(total, chunk, trace=False)
        traced = stream_decode(total, chunk)
        print(
            f"Streaming decode (gcx.Decoder.feed, {chunk >> 10} KiB chunks): "
            f"{fast.size / 2**20:.1f} MB, {fast.rows:,} rows, "
            f"{fast.size / fast.seconds / 2**20:.1f} MB/s; "
            f"tracemalloc peak {traced.peak / 1024:,.0f} KiB"
        )


if __name__ == "__main__":
    main()
