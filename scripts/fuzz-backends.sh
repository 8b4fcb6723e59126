#!/usr/bin/env bash
# Fuzzes the two backends against each other through the Python API
# (fuzz/backends.py, atheris) for SECONDS, seeded with the test fixtures; an
# input on which they disagree is left under fuzz/artifacts/backends and
# fails the run. PYTHON needs agentcodec (native) and atheris installed.
# With RUNS set, it runs that many inputs from a fixed seed instead: the
# same inputs every time on a fresh checkout (what test.sh --full does, so
# that it catches a regression and never fails on a new find).
#   scripts/fuzz-backends.sh [SECONDS]
#   RUNS=1000 scripts/fuzz-backends.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
seconds=${1:-60}
python=${PYTHON:-python3}
mkdir -p fuzz/corpus/backends fuzz/artifacts/backends
if [ -n "${RUNS:-}" ]; then
    budget=(-runs="$RUNS" -seed=1)
    echo "fuzzing the backends against each other: $RUNS inputs from seed 1"
else
    budget=(-max_total_time="$seconds")
    echo "fuzzing the backends against each other for ${seconds}s"
fi
"$python" fuzz/backends.py "${budget[@]}" -max_len=16384 -rss_limit_mb=4096 -timeout=20 \
    -print_final_stats=1 -artifact_prefix=fuzz/artifacts/backends/ \
    fuzz/corpus/backends tests/fixtures/*/ 2>&1 \
    | grep -E '^(Done|stat::number_of_executed_units)|Uncaught|the backends disagree|ERROR' || true
if compgen -G "fuzz/artifacts/backends/*" > /dev/null; then
    echo "the backends disagreed: see fuzz/artifacts/backends" >&2
    exit 1
fi
