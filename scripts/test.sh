#!/usr/bin/env bash
# Runs the whole test suite from a clean checkout, installing what it needs:
#   1. Rust: rustfmt, clippy, cargo test (the core, without Python); every
#      cargo-fuzz target for 10 s (scripts/fuzz.sh).
#   2. The release artifacts (scripts/build-release.sh): a native wheel for
#      each supported CPython on the machine, the pure wheel, the sdist,
#      twine-checked. Everything below installs and tests those files.
#   3. On the main Python: its native wheel with the test and lint tools;
#      ruff, mypy, pytest on both backends, the backends fuzzed against each
#      other (atheris, 2,000 inputs from a fixed seed), the benchmarks once
#      and their instruction counts against the committed baseline; then the
#      pure wheel in a fresh environment, pytest again there.
#   4. On every other supported CPython: the same suite, native and pure
#      wheel, property tests at a fifth of their examples.
#   5. The sdist: builds the extension with a Rust toolchain, installs the
#      pure package without one.
#   6. agentscope-runtime's real AgentApp in an environment of its own
#      (scripts/agentapp-constraints.txt), the gateway checked against it
#      live and its load bench run once.
# Any failure fails the run; pytest collecting no tests is a failure too.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
python=${PYTHON:-python3}
work=${AGENTCODEC_TEST_DIR:-$root/.venv-test}
versions=${AGENTCODEC_PYTHONS:-3.10 3.11 3.12 3.13}
export PIP_DISABLE_PIP_VERSION_CHECK=1

step() { printf '\n==> %s\n' "$*"; }

# shellcheck source=scripts/pythons.sh
. "$root/scripts/pythons.sh"

step "Services and tools the tests use: redis-server, valgrind (Debian's packages)"
if ! command -v redis-server > /dev/null; then
    if command -v apt-get > /dev/null && [ "$(id -u)" = 0 ]; then
        apt-get install -y -qq redis-server > /dev/null \
            || { apt-get update -qq && apt-get install -y -qq redis-server > /dev/null; }
    else
        echo "redis-server is missing and cannot be installed here: the Redis tests will fail" >&2
    fi
fi
# The instruction counts of the benchmarks are callgrind's.
if ! command -v valgrind > /dev/null && command -v apt-get > /dev/null && [ "$(id -u)" = 0 ]; then
    apt-get install -y -qq valgrind > /dev/null \
        || { apt-get update -qq && apt-get install -y -qq valgrind > /dev/null; }
fi
# The tests start their own redis-server; without one they fail, not skip.
export AGENTCODEC_REQUIRE_REDIS=1

step "Rust: format, lint, unit tests"
cargo fmt --all --check
cargo clippy --all-targets --locked -- -D warnings
cargo clippy --all-targets --locked --features python -- -D warnings
cargo test --locked

step "Fuzzing: every cargo-fuzz target for 10 s, seeded from the fixtures (nightly)"
cargo +nightly fmt --manifest-path fuzz/Cargo.toml --check
command -v cargo-fuzz > /dev/null || cargo +nightly install cargo-fuzz --locked --quiet
rm -rf fuzz/artifacts
./scripts/fuzz.sh 10

step "Release artifacts: a native wheel per CPython, the pure wheel, the sdist"
rm -rf "$work"
dist="$work/dist"
PYTHON="$python" AGENTCODEC_PYTHONS="$versions" ./scripts/build-release.sh "$dist"
pure_wheel=$(ls "$dist"/agentcodec-*-py3-none-any.whl)
sdist=$(ls "$dist"/agentcodec-*.tar.gz)

# native_wheel PYTHON: the wheel built for that interpreter's version.
native_wheel() {
    local tag
    tag=$("$1" -c 'import sys; print(f"cp{sys.version_info[0]}{sys.version_info[1]}")')
    ls "$dist"/agentcodec-*-"$tag"-"$tag"-*.whl
}

# fresh_env DIR PYTHON REQUIREMENT...: a virtual environment with those installed.
fresh_env() {
    local dir=$1 interpreter=$2
    shift 2
    "$interpreter" -m venv "$dir"
    "$dir/bin/python" -m pip install --quiet --upgrade pip
    "$dir/bin/python" -m pip install --quiet "$@"
}

main_version=$("$python" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')
step "Python $main_version: the native wheel with the test and lint tools"
fresh_env "$work/native" "$python" "$(native_wheel "$python")[test,lint,bench]"
native="$work/native/bin/python"
"$native" -c 'import agentcodec, sys; sys.exit(agentcodec.backend != "native")' \
    || { echo "the native extension was not installed" >&2; exit 1; }

step "Python $main_version: ruff, mypy, and the native stubs checked against the extension"
"$work/native/bin/ruff" check .
"$work/native/bin/ruff" format --check .
"$work/native/bin/mypy"
"$native" -m mypy.stubtest agentcodec._native

step "Python $main_version: tests on both backends (native extension required)"
AGENTCODEC_REQUIRE_NATIVE=1 "$native" -m pytest -q -p no:cacheprovider

step "Python $main_version: the backends fuzzed against each other (atheris), 2,000 inputs from a fixed seed"
"$native" -m pip install --quiet --only-binary atheris atheris
rm -rf fuzz/artifacts/backends fuzz/corpus/backends
PYTHON="$native" RUNS=2000 ./scripts/fuzz-backends.sh

step "Benchmarks: a smoke run (each once), and the report on small workloads"
"$native" -m pytest -q -p no:cacheprovider --benchmark-disable benches
"$native" benches/report.py --quick --min-time 0.01 --chart "$work/charts" > /dev/null
"$native" benches/linearity.py --quick --min-time 0.01 > /dev/null
cargo bench --locked --bench sse -- --quick
cargo bench --locked --bench assemble -- --quick
"$native" benches/memory.py --megabytes 2 --protocol all
"$native" benches/memory.py --blocks 2000 --protocol all
step "Benchmarks: instructions counted by callgrind against the committed baseline (3% tolerance)"
"$native" benches/instructions.py

step "Python $main_version: the pure wheel in a fresh environment"
fresh_env "$work/pure" "$python" "$pure_wheel[test]"
pure="$work/pure/bin/python"
"$pure" -c 'import agentcodec, sys; sys.exit(agentcodec.backend != "python")' \
    || { echo "the pure wheel did not select the python backend" >&2; exit 1; }
# The sources live under python/, so nothing here shadows the installed wheel.
"$pure" -m pytest -q -p no:cacheprovider

tested=("$main_version: the whole suite, native and pure wheel")
for version in $versions; do
    [ "$version" = "$main_version" ] && continue
    if ! interpreter=$(find_python "$version"); then
        tested+=("$version: NOT TESTED, not installed on this machine")
        continue
    fi
    step "Python $version ($interpreter): native and pure wheel, properties at a fifth of their examples"
    fresh_env "$work/native-$version" "$interpreter" "$(native_wheel "$interpreter")[test]"
    "$work/native-$version/bin/python" -c 'import agentcodec, sys; sys.exit(agentcodec.backend != "native")'
    AGENTCODEC_EXAMPLES=0.2 AGENTCODEC_REQUIRE_NATIVE=1 \
        "$work/native-$version/bin/python" -m pytest -q -p no:cacheprovider
    fresh_env "$work/pure-$version" "$interpreter" "$pure_wheel[test]"
    "$work/pure-$version/bin/python" -c 'import agentcodec, sys; sys.exit(agentcodec.backend != "python")'
    AGENTCODEC_EXAMPLES=0.2 "$work/pure-$version/bin/python" -m pytest -q -p no:cacheprovider
    tested+=("$version: the suite with a fifth of the examples, native and pure wheel")
done

step "The sdist: the extension built with Rust, the pure package without"
fresh_env "$work/sdist-native" "$python" "$sdist"
"$work/sdist-native/bin/python" -c 'import agentcodec, sys; sys.exit(agentcodec.backend != "native")' \
    || { echo "the sdist did not build the extension with Rust on PATH" >&2; exit 1; }
"$python" -m venv "$work/sdist-pure"
# No cargo on PATH: the build backend makes the pure package.
env PATH="$work/sdist-pure/bin:/usr/bin:/bin" "$work/sdist-pure/bin/python" -m pip install --quiet "$sdist"
"$work/sdist-pure/bin/python" -c 'import agentcodec, sys; sys.exit(agentcodec.backend != "python")' \
    || { echo "the sdist did not fall back to the pure package without Rust" >&2; exit 1; }

step "The gateway in front of agentscope-runtime's real AgentApp"
fresh_env "$work/agentapp" "$python" -c scripts/agentapp-constraints.txt \
    agentscope-runtime agentscope mcp pydantic greenlet tqdm uvicorn httpx openai ag-ui-protocol \
    jsonpatch "$(native_wheel "$python")[gateway]"
agentapp="$work/agentapp/bin/python"
"$agentapp" scripts/gateway_vs_agentapp.py
"$native" benches/gateway_load.py --streams 2 --agentapp-python "$agentapp"

step "Python versions"
printf '  %s\n' "${tested[@]}"

step "All checks passed"
