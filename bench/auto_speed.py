"""What ``format="auto"`` costs against writing GCX1 alone, on every benchmark shape.

Ratios of CPU time in one process (``time.process_time``, best of N, garbage
collector off): ``auto / gcx.encode`` on the speed suite's tables
(bench/speed/workloads.py: symbols and issues at 5 to 5,000 rows) and on the
recorded real responses (bench/cases/real, as one group). Also reports how
many characters auto tokenized against the candidates' total, and the peak
memory of one auto call (tracemalloc) against the size of its JSON text.

    python bench/auto_speed.py            # 3 runs, spread shown
    python bench/auto_speed.py --quick    # 5 and 50 rows, one run
"""

from __future__ import annotations

import argparse
import functools
import gc
import json
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent / "speed"))

import workloads  # noqa: E402

from gcxwire import _auto, gcx, tokens  # noqa: E402

REAL = Path(__file__).resolve().parent / "cases" / "real"


def best_of(fn: Callable[[], Any], repeat: int) -> float:
    """Least CPU seconds of one call over ``repeat`` rounds (each round runs it enough times)."""
    fn()
    start = time.process_time()
    fn()
    once = max(time.process_time() - start, 1e-6)
    loops = max(1, int(0.05 / once))
    best = float("inf")
    gc.disable()
    try:
        for _ in range(repeat):
            start = time.process_time()
            for _ in range(loops):
                fn()
            best = min(best, (time.process_time() - start) / loops)
    finally:
        gc.enable()
    return best


def tokenized_share(value: Any, tool: str) -> float:
    """Characters auto handed the tokenizer, over the characters of every candidate."""
    counted = 0
    real_count = tokens.count

    def spy(text: str, encoding: str = "cl100k_base") -> int:
        nonlocal counted
        counted += len(text)
        return real_count(text, encoding)

    tokens.count = spy
    try:
        choice = _auto._Auto(value, tool)
        choice.choose()
    finally:
        tokens.count = real_count
    total = sum(len(text) for text in choice.texts.values() if text is not None)
    return counted / max(1, total)


def peak_ratio(value: Any, tool: str) -> float:
    """tracemalloc peak of one auto call over its compact JSON's size."""
    size = len(orjson.dumps(value))
    tracemalloc.start()
    _auto.encode(value, tool=tool)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / size


def cases(quick: bool) -> list[tuple[str, str, Any]]:
    out = []
    for shape, build in workloads.SHAPES.items():
        for n in workloads.QUICK_SIZES if quick else workloads.SIZES:
            out.append((f"{shape} {n:,}", workloads.TOOL[shape], build(n)))
    return out


def real_group() -> list[tuple[str, Any]]:
    found = []
    for path in sorted(REAL.glob("*.json")):
        case = json.loads(path.read_text(encoding="utf-8"))
        found.append((case["tool"], case["input"]))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    runs = 1 if args.quick else args.runs
    repeat = 3 if args.quick else 5
    tokens.count("warm up")  # load the ranks before any timing

    rows: list[tuple[str, list[float], list[float], float, float]] = []
    for name, tool, value in cases(args.quick):
        ratios, auto_us = [], []
        for _ in range(runs):
            plain = best_of(functools.partial(gcx.encode, value, tool=tool), repeat)
            auto = best_of(functools.partial(_auto.encode, value, tool=tool), repeat)
            ratios.append(auto / plain)
            auto_us.append(auto * 1e6)
        rows.append((name, ratios, auto_us, tokenized_share(value, tool), peak_ratio(value, tool)))

    real = real_group()
    ratios, auto_us = [], []
    for _ in range(runs):
        plain = sum(best_of(functools.partial(gcx.encode, v, tool=t), repeat) for t, v in real)
        auto = sum(best_of(functools.partial(_auto.encode, v, tool=t), repeat) for t, v in real)
        ratios.append(auto / plain)
        auto_us.append(auto * 1e6)
    share = statistics.mean(tokenized_share(v, t) for t, v in real)
    peak = max(peak_ratio(v, t) for t, v in real)
    rows.append((f"real responses ({len(real)}, summed)", ratios, auto_us, share, peak))

    print("| table | auto µs | auto / gcx.encode | tokenized share | peak memory / JSON size |")
    print("|---|--:|--:|--:|--:|")
    for name, ratios, auto_us, share, peak in rows:
        print(
            f"| {name} | {statistics.median(auto_us):,.0f} | {_spread(sorted(ratios))} "
            f"| {share:.0%} | {peak:.1f} |"
        )


def _spread(values: list[float]) -> str:
    if len(values) == 1:
        return f"{values[0]:.1f}"
    return f"{statistics.median(values):.1f} ({values[0]:.1f}-{values[-1]:.1f})"


if __name__ == "__main__":
    main()
