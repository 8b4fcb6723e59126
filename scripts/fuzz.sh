#!/usr/bin/env bash
# Runs every cargo-fuzz target (fuzz/fuzz_targets) for SECONDS each, seeded
# with the test fixtures; a crash leaves its input under fuzz/artifacts and
# fails the run. Inputs are at most 16 KiB (longer fixtures are cut there):
# a target runs hundreds of them a second, not a few. Needs the nightly
# toolchain and cargo-fuzz (`cargo +nightly install cargo-fuzz`).
#   scripts/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../fuzz"
seconds=${1:-60}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    mapfile -t targets < <(cargo +nightly fuzz list)
fi
seeds=(../tests/fixtures/sdk ../tests/fixtures/agentscope ../tests/fixtures/langchain ../tests/fixtures/ai_sdk ../tests/fixtures/agentapp)
cargo +nightly fuzz build -O
for target in "${targets[@]}"; do
    mkdir -p "corpus/$target"
    echo "fuzzing $target for ${seconds}s"
    cargo +nightly fuzz run -O "$target" "corpus/$target" "${seeds[@]}" -- \
        -max_total_time="$seconds" -max_len=16384 -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 2>&1 \
        | grep -E '^(Done|stat::number_of_executed_units)|SUMMARY|panicked|==[0-9]+== ERROR' || true
    # libFuzzer's status is the run's: a crash writes an artifact.
    if compgen -G "artifacts/$target/*" > /dev/null; then
        echo "fuzz target $target failed: see fuzz/artifacts/$target" >&2
        exit 1
    fi
done
