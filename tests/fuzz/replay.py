"""Run every input of some corpus folders through one target, once, without atheris.

    python tests/fuzz/replay.py TARGET DIR [DIR...]

Used by scripts/asan.sh to put the fuzzers' corpora (the committed seeds, or the
thousands of inputs a long run kept for their coverage) through an instrumented build.
Prints the count; exits 1 naming each input that raised anything but DecodeError.
"""

from __future__ import annotations

import sys
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.fuzz.targets import TARGETS  # noqa: E402


def main() -> None:
    if len(sys.argv) < 3 or sys.argv[1] not in TARGETS:
        sys.exit(f"usage: replay.py {{{','.join(TARGETS)}}} DIR [DIR...]")
    target = TARGETS[sys.argv[1]]
    count = failures = 0
    for folder in map(Path, sys.argv[2:]):
        for path in sorted(p for p in folder.iterdir() if p.is_file()):
            count += 1
            try:
                target(path.read_bytes())
            except Exception:
                failures += 1
                print(f"{path}:\n{traceback.format_exc()}", file=sys.stderr)
    print(f"{sys.argv[1]}: {count} inputs replayed, {failures} failures")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
