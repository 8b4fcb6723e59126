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
# Environment: PYTHON (the Python running the tools, default python3),
# AGENTCODEC_PYTHONS (the versions, default "3.10 3.11 3.12 3.13").
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
# wheels TARGET_DIR INTERPRETER_ARGUMENTS...: the release wheels of those
# interpreters. manylinux_2_34: the glibc this machine builds against
# (Debian 12 has 2.36); maturin checks that the extension needs nothing newer.
wheels() {
    local target_dir=$1
    shift
    CARGO_TARGET_DIR=$target_dir "$tools/venv/bin/maturin" build --quiet --release --locked \
        --compatibility manylinux_2_34 "$@" --out "$out"
}
target=${CARGO_TARGET_DIR:-$root/target}
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
