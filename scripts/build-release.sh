#!/usr/bin/env bash
# Builds what a release publishes, into the directory given (default dist/):
#   - the native wheel for each supported CPython this machine has (one per
#     version: the limited API would cost the text path 3-5% and cannot read
#     buffers before 3.11, see docs/install.md), tagged manylinux for this
#     machine's glibc;
#   - the pure-Python py3-none-any wheel, for platforms with no native wheel;
#   - the sdist, which builds the extension where a Rust toolchain is on PATH
#     and falls back to the pure package where none is;
# then checks them all with twine. Prints the versions it built and the ones
# this machine does not have.
#
# The native wheels are built with profile-guided optimisation (PGO), as
# jiter's are: an instrumented build for PYTHON first runs
# scripts/pgo_train.py (the hot paths on the benchmarks' streams), and the
# wheels are compiled for the profile it records. 12% to 40% fewer
# instructions on every benchmark workload, 17% to 29% faster on the real
# producers' streams of examples/, which it does not train on
# (docs/performance.md). It needs an llvm-profdata that reads rustc's
# profiles (LLVM 19 or newer; Debian's llvm-19 package); without one, the
# wheels are built without PGO and the script says so.
#
# Environment: PYTHON (the Python running the tools, default python3),
# AGENTCODEC_PYTHONS (the versions, default "3.10 3.11 3.12 3.13"),
# AGENTCODEC_PGO=0 (build without PGO), LLVM_PROFDATA (the llvm-profdata
# to use).
#
# With several versions, the wheels are built by two maturin processes at
# once, each with a target directory of its own: a release build spends most
# of its time in one rustc (fat LTO, one codegen unit), so a second one keeps
# the other core busy (2m31s to 1m40s for four wheels on two cores).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
out=$(mkdir -p "${1:-dist}" && cd "${1:-dist}" && pwd)
python=${PYTHON:-python3}
versions=${AGENTCODEC_PYTHONS:-3.10 3.11 3.12 3.13}
export PIP_DISABLE_PIP_VERSION_CHECK=1

# shellcheck source=scripts/pythons.sh
. "$root/scripts/pythons.sh"

tools=$(mktemp -d)
trap 'rm -rf "$tools"' EXIT
"$python" -m venv "$tools/venv"
"$tools/venv/bin/python" -m pip install --quiet "maturin>=1.9,<2" "twine>=5"

# Two groups of interpreters, alternating, one maturin process each.
first=()
second=()
found=0
for version in $versions; do
    if interpreter=$(find_python "$version"); then
        if [ $((found % 2)) -eq 0 ]; then first+=(--interpreter "$interpreter"); else second+=(--interpreter "$interpreter"); fi
        found=$((found + 1))
        echo "CPython $version: $interpreter"
    else
        echo "CPython $version: not installed here, no wheel built for it"
    fi
done
if [ "$found" -eq 0 ]; then
    echo "none of the supported CPythons ($versions) is installed" >&2
    exit 1
fi

rm -f "$out"/agentcodec-*
target=${CARGO_TARGET_DIR:-$root/target}

# find_profdata: an llvm-profdata that can merge the profiles rustc writes
# (each LLVM reads its own raw format and older ones, not newer ones: try the
# newest first, and check on a profile rustc wrote).
find_profdata() {
    local candidate probe="$tools/probe"
    mkdir -p "$probe"
    echo 'fn main() {}' > "$probe/main.rs"
    rustc -O -Cprofile-generate="$probe/raw" "$probe/main.rs" -o "$probe/main" 2> /dev/null || return 1
    "$probe/main"
    for candidate in ${LLVM_PROFDATA:-} \
        "$(rustc --print sysroot)"/lib/rustlib/*/bin/llvm-profdata \
        $(ls -d /usr/lib/llvm-*/bin/llvm-profdata 2> /dev/null | sort -t- -k2 -n -r) llvm-profdata; do
        if [ -x "$candidate" ] || command -v "$candidate" > /dev/null 2>&1; then
            if "$candidate" merge -o "$probe/merged" "$probe"/raw/*.profraw > /dev/null 2>&1; then
                echo "$candidate"
                return 0
            fi
        fi
    done
    return 1
}

if [ "${AGENTCODEC_PGO:-1}" = 1 ]; then
    if profdata=$(find_profdata); then
        echo "PGO: instrumented build, training run (scripts/pgo_train.py), merged by $profdata"
        CARGO_TARGET_DIR=$target/pgo-instrumented RUSTFLAGS="-Cprofile-generate=$tools/profiles" \
            "$tools/venv/bin/maturin" build --quiet --release --locked \
            --interpreter "$("$python" -c 'import sys; print(sys.executable)')" --out "$tools/instrumented"
        "$python" -m venv "$tools/train"
        "$tools/train/bin/python" -m pip install --quiet "$tools"/instrumented/agentcodec-*.whl
        # The profiles land in $tools/profiles, whatever the working directory.
        (cd "$tools" && "$tools/train/bin/python" "$root/scripts/pgo_train.py")
        "$profdata" merge -o "$tools/agentcodec.profdata" "$tools"/profiles/*.profraw
        # The profile is of the main Python's build; the other versions' glue
        # code (PyO3's, compiled for each CPython) differs where it does, and
        # LLVM drops the profile of those functions: expected, not warned of.
        export RUSTFLAGS="${RUSTFLAGS:-} -Cprofile-use=$tools/agentcodec.profdata -Cllvm-args=-no-pgo-warn-mismatch"
    else
        echo "PGO: no llvm-profdata reads this rustc's profiles (install LLVM 19 or newer): building without it"
    fi
fi

# wheels TARGET_DIR INTERPRETER_ARGUMENTS...: the release wheels of those
# interpreters. manylinux_2_34: the glibc this machine builds against
# (Debian 12 has 2.36); maturin checks that the extension needs nothing newer.
wheels() {
    local target_dir=$1
    shift
    CARGO_TARGET_DIR=$target_dir "$tools/venv/bin/maturin" build --quiet --release --locked \
        --compatibility manylinux_2_34 "$@" --out "$out"
}
if [ ${#second[@]} -eq 0 ]; then
    wheels "$target" "${first[@]}"
else
    # The second process's output is shown once it ends, so that the two do not interleave.
    wheels "$target/second-build" "${second[@]}" > "$tools/second.log" 2>&1 &
    second_build=$!
    status=0
    wheels "$target" "${first[@]}" || status=$?
    wait "$second_build" || status=$?
    cat "$tools/second.log"
    [ "$status" -eq 0 ] || exit "$status"
fi
AGENTCODEC_NO_EXTENSIONS=1 "$python" -m pip wheel --quiet --no-deps \
    --wheel-dir "$out" .
"$tools/venv/bin/maturin" sdist --out "$out" > /dev/null
"$tools/venv/bin/twine" check --strict "$out"/agentcodec-*
ls -1 "$out"
