"""Atheris (libFuzzer) harness for one decoder target.

    python tests/fuzz/fuzz.py TARGET [libFuzzer options] [corpus dirs...]

TARGET is a key of ``tests.fuzz.targets.TARGETS`` (``gcx.decode``, ``gcx.parse``,
``gcx.Decoder``, ``dcp.decode``, ``gcxwire.decode``). ``GCXWIRE_NO_EXTENSIONS=1``
selects the pure-Python twin, as at any import of gcxwire.

Any exception other than ``DecodeError`` is a crash: libFuzzer stops and saves the
input. With ``GCXWIRE_FUZZ_FINDINGS=DIR`` (the long run) such inputs, and inputs
that take over ``GCXWIRE_FUZZ_SLOW`` seconds (default 1), are saved in DIR with
their traceback instead, and fuzzing goes on.
"""

from __future__ import annotations

import hashlib
import os
import sys
import time
import traceback
from pathlib import Path

import atheris

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

with atheris.instrument_imports(include=["gcxwire"]):
    import gcxwire  # noqa: F401  (instrumented before the targets import it)
    from tests.fuzz.targets import TARGETS

USAGE = f"usage: fuzz.py {{{','.join(TARGETS)}}} [libFuzzer options] [corpus dirs]"


def main() -> None:
    if len(sys.argv) < 2 or sys.argv[1] not in TARGETS:
        sys.exit(USAGE)
    target = TARGETS[sys.argv[1]]
    findings = os.environ.get("GCXWIRE_FUZZ_FINDINGS")
    twin = "pure" if gcxwire._impl.NO_EXTENSIONS else "cython"
    if not gcxwire._impl.NO_EXTENSIONS and not gcxwire._impl.USE_EXTENSIONS:
        sys.exit("the Cython extension is not built: refusing to fuzz the pure twin as 'cython'")
    print(f"fuzzing {sys.argv[1]} on the {twin} twin", file=sys.stderr, flush=True)

    def one_input(data: bytes) -> None:
        if findings is None:
            target(data)
            return
        start = time.perf_counter()
        try:
            target(data)
        except Exception as exc:  # the long run records every bug and goes on
            frame = traceback.extract_tb(exc.__traceback__)[-1]
            where = f"{type(exc).__name__} at {frame.filename}:{frame.lineno}"
            _save(Path(findings), "crash", data, traceback.format_exc(), where)
        elapsed = time.perf_counter() - start
        if elapsed > float(os.environ.get("GCXWIRE_FUZZ_SLOW", "1")):
            _save(Path(findings), "slow", data, f"{elapsed:.3f} s on one input\n", "")

    atheris.Setup([sys.argv[0], *sys.argv[2:]], one_input)
    atheris.Fuzz()


def _save(folder: Path, kind: str, data: bytes, report: str, where: str) -> None:
    """Keep one input per distinct bug (exception type and raising line), every slow one."""
    key = hashlib.sha1((where or repr(data)).encode()).hexdigest()[:10]
    name = f"{kind}-{key}"
    folder.mkdir(parents=True, exist_ok=True)
    if not (folder / f"{name}.bin").exists():
        (folder / f"{name}.bin").write_bytes(data)
        (folder / f"{name}.txt").write_text(report, encoding="utf-8")
        print(f"FINDING {name}: {where or report.strip()}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
