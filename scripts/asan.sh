#!/usr/bin/env bash
# Memory safety: build gcxwire._speedups with AddressSanitizer in a scratch directory
# (the working tree is not touched) and run the codec tests against that build.
#   scripts/asan.sh [pytest args...]     (PYTHON=..., ASAN_BUILD_DIR=... to override;
#                                         ASAN_REF=<commit> builds that commit, not the tree;
#                                         ASAN_REPLAY=<dir> also replays the long fuzz run's
#                                         corpora found there, e.g. fuzz-out)
# Any ASan report aborts the run, so a zero exit means: no report.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python}
SCRATCH=${ASAN_BUILD_DIR:-$(mktemp -d -t gcxwire-asan.XXXXXX)}
mkdir -p "$SCRATCH"

# A copy of what setup.py needs; the generated C and any built module stay behind.
rm -rf "$SCRATCH/src"
if [ -n "${ASAN_REF:-}" ]; then
    echo "== sources of $(git rev-parse --short "$ASAN_REF")"
    git archive "$ASAN_REF" setup.py pyproject.toml README.md NOTICE LICENSE src | tar -x -C "$SCRATCH"
else
    cp setup.py pyproject.toml README.md NOTICE LICENSE "$SCRATCH"/
    cp -r src "$SCRATCH"/
fi
find "$SCRATCH/src" \( -name '*.so' -o -name '_speedups.c' -o -name __pycache__ \) -prune \
    -exec rm -rf {} +

echo "== building the extension with -fsanitize=address in $SCRATCH"
(
    cd "$SCRATCH"
    CFLAGS="-fsanitize=address -fno-omit-frame-pointer -O1 -g" LDFLAGS="-fsanitize=address" \
        GCXWIRE_REQUIRE_EXTENSIONS=1 "$PY" setup.py -q build_ext --inplace
)

# CPython itself is not instrumented: the runtime must be loaded first. Leak checking
# is off (the interpreter keeps memory until exit); PYTHONMALLOC=malloc routes object
# allocations through ASan so overruns of Python buffers are seen too.
LIBASAN=$(gcc -print-file-name=libasan.so)
export LD_PRELOAD=$LIBASAN
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:detect_stack_use_after_return=1
export PYTHONMALLOC=malloc
export PYTHONPATH=$SCRATCH/src
unset GCXWIRE_NO_EXTENSIONS

# Make sure the tests really load the instrumented module.
"$PY" - "$SCRATCH" <<'PYEOF'
import sys
import gcxwire._impl as impl
import gcxwire._speedups as speedups
assert impl.USE_EXTENSIONS, "the extension did not load"
assert speedups.__file__.startswith(sys.argv[1]), speedups.__file__
with open(speedups.__file__, "rb") as so:
    assert b"__asan_init" in so.read(), "the module is not instrumented"
print("== instrumented module:", speedups.__file__)
PYEOF

# The codec tests on the instrumented extension only (the pure twin has no C to check),
# the slow tier included.
"$PY" -m pytest -q -p no:cacheprovider tests/codec -m "slow or not slow" -k "c]" "$@"

# Every fuzz input kept for its coverage, once each, through the instrumented build.
for target in gcx.decode gcx.parse gcx.Decoder dcp.decode gcxwire.decode; do
    case $target in
        dcp.decode) seeds=tests/fuzz/corpus/dcp ;;
        gcxwire.decode) seeds="tests/fuzz/corpus/gcx tests/fuzz/corpus/dcp tests/fuzz/corpus/json" ;;
        *) seeds=tests/fuzz/corpus/gcx ;;
    esac
    found=""
    if [ -n "${ASAN_REPLAY:-}" ]; then
        found=$(find "$ASAN_REPLAY" -type d -path "*/$target/corpus" 2>/dev/null | tr '\n' ' ')
    fi
    # shellcheck disable=SC2086
    "$PY" tests/fuzz/replay.py "$target" $seeds $found
done
echo "== ASan: no report"
