"""The long fuzz run: drive one target toward N inputs and summarise what it found.

    python tests/fuzz/longrun.py TARGET RUNS OUTDIR

Runs ``fuzz.py`` with findings collected (crashes and inputs over 1 s are saved and
fuzzing goes on). An input that hangs past libFuzzer's ``-timeout`` kills the run; it
is counted as a hang, saved, and the run restarts for the inputs still to do. The
twin is whatever ``GCXWIRE_NO_EXTENSIONS`` selects. ``GCXWIRE_FUZZ_DEADLINE`` (Unix
time) stops the run there, short of RUNS if need be. Writes ``OUTDIR/summary.json``.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SEEDS = {
    "gcx.decode": ["gcx"],
    "gcx.parse": ["gcx"],
    "gcx.Decoder": ["gcx"],
    "dcp.decode": ["dcp"],
    "gcxwire.decode": ["gcx", "dcp", "json"],
}
HARD_TIMEOUT = 10  # seconds on one input before libFuzzer calls it a hang and stops
MAX_LEN = 4096
DONE = re.compile(rb"Done (\d+) runs in (\d+) second")
STATUS = re.compile(rb"^#(\d+)\s", re.M)


def run(target: str, runs: int, out: Path) -> dict[str, object]:
    out.mkdir(parents=True, exist_ok=True)
    work = out / "corpus"
    work.mkdir(exist_ok=True)
    findings = out / "findings"
    env = {**os.environ, "GCXWIRE_FUZZ_FINDINGS": str(findings)}
    done = hangs = restarts = 0
    started = time.monotonic()
    deadline = float(os.environ.get("GCXWIRE_FUZZ_DEADLINE", "inf"))
    while done < runs and time.time() < deadline - 1:
        budget = (
            [] if deadline == float("inf") else [f"-max_total_time={int(deadline - time.time())}"]
        )
        argv = [
            sys.executable,
            str(HERE / "fuzz.py"),
            target,
            f"-runs={runs - done}",
            *budget,
            f"-timeout={HARD_TIMEOUT}",
            f"-max_len={MAX_LEN}",
            f"-artifact_prefix={findings}/",
            "-print_final_stats=1",
            str(work),
            *(str(HERE / "corpus" / kind) for kind in SEEDS[target]),
        ]
        findings.mkdir(exist_ok=True)
        proc = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        (out / f"log-{restarts}.txt").write_bytes(proc.stderr[-20000:])
        finished = DONE.search(proc.stderr)
        if finished:
            done += int(finished.group(1))
            break
        # Stopped early: count the inputs its last status line reported.
        status = STATUS.findall(proc.stderr)
        done += int(status[-1]) if status else 0
        if b"timeout" in proc.stderr.lower():
            hangs += 1
        restarts += 1
        if restarts > 50:
            break
    crashes = sorted(p.stem for p in findings.glob("crash-*.txt"))
    slow = sorted(p.stem for p in findings.glob("slow-*.txt"))
    summary: dict[str, object] = {
        "target": target,
        "twin": "pure" if os.environ.get("GCXWIRE_NO_EXTENSIONS") else "cython",
        "inputs": done,
        "seconds": round(time.monotonic() - started),
        "crashes": crashes,
        "slow_over_1s": slow,
        "hangs": hangs + len(list(findings.glob("timeout-*"))),
        "restarts": restarts,
        "stopped_at_deadline": done < runs and time.time() >= deadline - 1,
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    return summary


def main() -> None:
    if len(sys.argv) != 4 or sys.argv[1] not in SEEDS:
        sys.exit(f"usage: longrun.py {{{','.join(SEEDS)}}} RUNS OUTDIR")
    print(json.dumps(run(sys.argv[1], int(sys.argv[2]), Path(sys.argv[3]))))


if __name__ == "__main__":
    main()
