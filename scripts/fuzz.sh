#!/usr/bin/env bash
# The long fuzz run: every decoder target on both twins toward RUNS inputs each,
# JOBS at a time. Summaries land in OUT/<twin>/<target>/summary.json.
#   scripts/fuzz.sh [RUNS=1000000] [OUT=fuzz-out] [JOBS=2] [TWINS="pure cython"]
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-1000000}
OUT=${2:-fuzz-out}
JOBS=${3:-2}
TWINS=${4:-pure cython}
PY=${PYTHON:-python}
TARGETS="gcx.decode gcx.parse gcx.Decoder dcp.decode gcxwire.decode"

jobs=()
for twin in $TWINS; do
    for target in $TARGETS; do
        jobs+=("$twin $target")
    done
done

run_one() {
    twin=$1 target=$2
    if [ "$twin" = pure ]; then export GCXWIRE_NO_EXTENSIONS=1; else unset GCXWIRE_NO_EXTENSIONS; fi
    "$PY" tests/fuzz/longrun.py "$target" "$RUNS" "$OUT/$twin/$target"
}
export -f run_one
export RUNS OUT PY

printf '%s\n' "${jobs[@]}" | xargs -P "$JOBS" -L 1 bash -c 'run_one $0 $1'

# One line per target; a non-zero exit if anything but DecodeError escaped or hung.
"$PY" - "$OUT" <<'PYEOF'
import json, sys, pathlib
bad = 0
for path in sorted(pathlib.Path(sys.argv[1]).glob("*/*/summary.json")):
    s = json.loads(path.read_text())
    bad += len(s["crashes"]) + len(s["slow_over_1s"]) + s["hangs"]
    print(f'{s["twin"]:6} {s["target"]:15} {s["inputs"]:>9} inputs {s["seconds"]:>6} s  '
          f'crashes={len(s["crashes"])} slow>1s={len(s["slow_over_1s"])} hangs={s["hangs"]}')
sys.exit(1 if bad else 0)
PYEOF
