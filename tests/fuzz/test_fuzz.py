"""CI entry of the fuzzers: every decoder target, both twins, a few seconds each.

Each run is a subprocess (a crash or a hang cannot take pytest down) seeded with
the committed corpus. Findings are collected rather than fatal, so one run lists
every distinct bug it met; the test fails if there is any, or if an input took
over 1 s, or if atheris is missing (never a silent skip). The long run toward a
million inputs per target is ``scripts/fuzz.sh``; its figures are in
docs/reliability.md.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fuzz.longrun import SEEDS

HERE = Path(__file__).parent
# 5 targets x 2 twins: about 100 s of CI in all.
SECONDS = int(os.environ.get("GCXWIRE_FUZZ_SECONDS", "8"))


@pytest.mark.slow
@pytest.mark.parametrize("twin", ["pure", "cython"])
@pytest.mark.parametrize("target", sorted(SEEDS))
def test_fuzz_target_briefly(target: str, twin: str, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "GCXWIRE_NO_EXTENSIONS"}
    if twin == "pure":
        env["GCXWIRE_NO_EXTENSIONS"] = "1"
    findings = tmp_path / "findings"
    findings.mkdir()
    env["GCXWIRE_FUZZ_FINDINGS"] = str(findings)
    work = tmp_path / "corpus"
    work.mkdir()
    seeds = [HERE / "corpus" / kind for kind in SEEDS[target]]
    argv = [
        sys.executable,
        str(HERE / "fuzz.py"),
        target,
        f"-max_total_time={SECONDS}",
        "-timeout=10",
        "-max_len=4096",
        f"-artifact_prefix={findings}/",
        str(work),
        *map(str, seeds),
    ]
    proc = subprocess.run(argv, env=env, capture_output=True, timeout=SECONDS + 120)
    log = proc.stderr.decode("utf-8", "replace")
    # Ours are <kind>-<key>.txt/.bin pairs; libFuzzer's own artifacts (timeout-*) count too.
    reports = sorted(findings.iterdir())
    details = "\n".join(
        f"{p.name}:\n{p.read_text('utf-8', 'replace') if p.suffix == '.txt' else p.read_bytes()!r}"
        for p in reports
    )
    assert proc.returncode == 0 and not reports, (
        f"{details}\n--- fuzzer log tail ---\n{log[-3000:]}"
    )
    done = re.search(r"Done (\d+) runs", log)
    assert done is not None, log[-3000:]
    # More inputs than seeds: the fuzzer got past loading the corpus and mutated.
    assert int(done.group(1)) > sum(len(list(s.iterdir())) for s in seeds), log[-3000:]
