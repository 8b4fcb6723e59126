#!/usr/bin/env bash
# Builds what a release publishes, into the directory given (default dist/):
#   - the native wheel for each supported CPython this machine has (one per
#     version: the limited API would cost the text path 3-5% and cannot read
#     buffers before 3.11, see the README), tagged manylinux for this
#     machine's glibc;
#   - the pure-Python py3-none-any wheel, for platforms with no native wheel;
#   - the sdist, which builds the extension where a Rust toolchain is on PATH
#     and falls back to the pure package where none is;
# then checks them all with twine. Prints the versions it built and the ones
# this machine does not have.
#
# Environment: PYTHON (the Python running the tools, default python3),
# AGENTCODEC_PYTHONS (the versions, default "3.10 3.11 3.12 3.13").
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

interpreters=()
for version in $versions; do
    if interpreter=$(find_python "$version"); then
        interpreters+=(--interpreter "$interpreter")
        echo "CPython $version: $interpreter"
    else
        echo "CPython $version: not installed here, no wheel built for it"
    fi
done
if [ ${#interpreters[@]} -eq 0 ]; then
    echo "none of the supported CPythons ($versions) is installed" >&2
    exit 1
fi

rm -f "$out"/agentcodec-*
# manylinux_2_34: the glibc this machine builds against (Debian 12 has 2.36);
# maturin checks that the extension needs nothing newer.
"$tools/venv/bin/maturin" build --quiet --release --locked --compatibility manylinux_2_34 \
    "${interpreters[@]}" --out "$out"
AGENTCODEC_NO_EXTENSIONS=1 "$python" -m pip wheel --quiet --no-deps \
    --wheel-dir "$out" .
"$tools/venv/bin/maturin" sdist --out "$out" > /dev/null
"$tools/venv/bin/twine" check --strict "$out"/agentcodec-*
ls -1 "$out"
