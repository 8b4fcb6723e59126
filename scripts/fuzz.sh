#!/usr/bin/env bash
# Runs every cargo-fuzz target (fuzz/fuzz_targets) for SECONDS each, seeded
# with the test fixtures; a crash leaves its input under fuzz/artifacts and
# fails the run. Inputs are at most 16 KiB (longer fixtures are cut there):
# a target runs hundreds of them a second, not a few. Needs the nightly
# toolchain and cargo-fuzz (`cargo +nightly install cargo-fuzz`).
#   scripts/fuzz.sh [SECONDS] [TARGET...]
# The environment may set RUNS (stop after that many inputs, not SECONDS),
# MAX_LEN (bytes an input, 16384) and SANITIZER (address, which also finds
# leaks; or none, several times faster: the core is safe Rust, so what
# AddressSanitizer would find there a panic finds first).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../fuzz"
seconds=${1:-60}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    mapfile -t targets < <(cargo +nightly fuzz list)
fi
# Every protocol's recorded streams (and what they were judged by) seed every target.
seeds=(../tests/fixtures/*/)
sanitizer=${SANITIZER:-address}
max_len=${MAX_LEN:-16384}
if [ -n "${RUNS:-}" ]; then stop=(-runs="$RUNS"); else stop=(-max_total_time="$seconds"); fi
cargo +nightly fuzz build -O -s "$sanitizer"
for target in "${targets[@]}"; do
    mkdir -p "corpus/$target"
    echo "fuzzing $target (${stop[*]}, -max_len=$max_len, sanitizer $sanitizer)"
    cargo +nightly fuzz run -O -s "$sanitizer" "$target" "corpus/$target" "${seeds[@]}" -- \
        "${stop[@]}" -max_len="$max_len" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 2>&1 \
        | grep -E '^(Done|stat::number_of_executed_units|stat::average_exec_per_sec|stat::peak_rss_mb)|SUMMARY|panicked|==[0-9]+== ERROR' || true
    # libFuzzer's status is the run's: a crash writes an artifact.
    if compgen -G "artifacts/$target/*" > /dev/null; then
        echo "fuzz target $target failed: see fuzz/artifacts/$target" >&2
        exit 1
    fi
done
