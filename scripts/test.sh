#!/usr/bin/env bash
# The test suite, from a clean checkout, installing what it needs into
# .venv-test/. Prints at the end how long each step took.
#
#   ./scripts/test.sh          the quick suite, before every push:
#       1. Rust: rustfmt, clippy, cargo test (the core, without Python).
#       2. The release artifacts (scripts/build-release.sh) for the main
#          Python: its native wheel, the pure wheel and the sdist,
#          twine-checked. Everything below installs and tests those files.
#       3. In the native wheel's environment: ruff, mypy, stubtest, and
#          pytest on the native backend; in a fresh environment with the pure
#          wheel: pytest on the pure backend. AGENTCODEC_TEST_WORKERS
#          processes each (pytest-xdist, default 2); every test that takes a
#          backend runs once on each.
#   ./scripts/test.sh --full   what CI runs: the quick suite, with a native
#   wheel built in step 2 for every supported CPython, then
#       4. the docs site built (mkdocs build --strict); every cargo-fuzz
#          target for 10 s (scripts/fuzz.sh), the backends fuzzed against
#          each other (atheris, 1,000 inputs from a fixed seed);
#       5. the benchmarks once, and their instruction counts (callgrind)
#          against the committed baseline;
#       6. every other supported CPython: the suite once in its native
#          wheel's environment, both backends' cases there, each test's
#          cases split between these versions (pytest --cases K/N: every
#          test on each, every case on one; the property tests at a fifth
#          of their examples), and its pure wheel installed alone,
#          converting every example into its own protocol;
#       7. the sdist installed: with Rust, the extension built; without,
#          the pure package;
#       8. agentscope-runtime's real AgentApp in an environment of its own
#          (scripts/agentapp-constraints.txt), the gateway checked against
#          it live and its load bench run once.
# Longer campaigns are scripts of their own: scripts/fuzz.sh SECONDS (the
# Rust core), scripts/fuzz-backends.sh SECONDS (the backends against each
# other), and the property tests at any scale: AGENTCODEC_EXAMPLES=10 pytest.
# Any failure fails the run; pytest collecting no tests is a failure too.
set -euo pipefail

full=0
case "${1:-}" in
    "") ;;
    --full) full=1 ;;
    -h | --help)
        sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
        exit 0
        ;;
    *)
        echo "usage: $0 [--full]" >&2
        exit 2
        ;;
esac

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
python=${PYTHON:-python3}
work=${AGENTCODEC_TEST_DIR:-$root/.venv-test}
versions=${AGENTCODEC_PYTHONS:-3.10 3.11 3.12 3.13}
export PIP_DISABLE_PIP_VERSION_CHECK=1
# Every process of the run (each test worker, each subprocess a test or a
# bench starts) imports the same packages. Where Python is told not to keep
# what it compiles (PYTHONDONTWRITEBYTECODE, which some machines set), each
# compiled them all again: collecting the suite took 28 s, not 11. Compiled
# once, they are kept under the work directory, not beside the checkout's
# sources.
unset PYTHONDONTWRITEBYTECODE
export PYTHONPYCACHEPREFIX="$work/pycache"
# Both cores: the suite's tests are independent of each other.
workers=${AGENTCODEC_TEST_WORKERS:-2}

# Each step's time, printed at the end (and on failure) so that a slow step
# shows itself.
step_titles=()
step_seconds=()
step_started=$SECONDS
end_step() {
    if [ ${#step_titles[@]} -gt 0 ]; then
        step_seconds+=($((SECONDS - step_started)))
    fi
}
step() {
    end_step
    step_titles+=("$*")
    step_started=$SECONDS
    printf '\n==> %s\n' "$*"
}
print_times() {
    local status=$? i
    end_step
    printf '\n==> Time each step took (%s)\n' "$([ $status = 0 ] && echo passed || echo FAILED)"
    for i in "${!step_seconds[@]}"; do
        printf '  %4dm%02ds  %s\n' $((step_seconds[i] / 60)) $((step_seconds[i] % 60)) "${step_titles[i]}"
    done
    printf '  %4dm%02ds  in all\n' $((SECONDS / 60)) $((SECONDS % 60))
    # CI stops the run at 90 minutes: past 60, the next additions will not fit.
    if [ $SECONDS -gt 3600 ]; then
        echo "WARNING: the run took more than 60 minutes; CI stops it at 90" >&2
    fi
}
trap print_times EXIT

# shellcheck source=scripts/pythons.sh
. "$root/scripts/pythons.sh"

step "Services and tools the tests use: redis-server, LLVM 19 (Debian's packages)"
# install_package NAME: Debian's package of that name, where apt-get can.
install_package() {
    if command -v apt-get > /dev/null && [ "$(id -u)" = 0 ]; then
        apt-get install -y -qq "$1" > /dev/null \
            || { apt-get update -qq && apt-get install -y -qq "$1" > /dev/null; }
    else
        echo "$1 is missing and cannot be installed here" >&2
        return 1
    fi
}
command -v redis-server > /dev/null || install_package redis-server \
    || echo "without redis-server, the Redis tests will fail" >&2
# The release wheels' profile-guided build needs an llvm-profdata as new as
# rustc's profiles (scripts/build-release.sh): LLVM 19 or newer.
compgen -G "/usr/lib/llvm-[1-9][0-9]/bin/llvm-profdata" | grep -qvE "llvm-1[0-8]/" \
    || install_package llvm-19 \
    || echo "without LLVM 19, the wheels are built without PGO and the instruction counts will fail" >&2
# The tests start their own redis-server; without one they fail, not skip.
export AGENTCODEC_REQUIRE_REDIS=1

step "Rust: format, lint, unit tests"
# Every tracked file, not what `cargo fmt` reaches from the crate roots: it
# skips the fuzz crate and any module declared inside a macro.
git ls-files -z '*.rs' | xargs -0 rustfmt --edition 2021 --check
cargo clippy --all-targets --locked -- -D warnings
cargo clippy --all-targets --locked --features python -- -D warnings
cargo test --locked

main_version=$("$python" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')
rm -rf "$work"
dist="$work/dist"
if [ $full = 1 ]; then
    step "Release artifacts: a native wheel per CPython, the pure wheel, the sdist"
    built_versions=$versions
else
    step "Release artifacts for Python $main_version: its native wheel, the pure wheel, the sdist"
    built_versions=$main_version
fi
PYTHON="$python" AGENTCODEC_PYTHONS="$built_versions" ./scripts/build-release.sh "$dist"
pure_wheel=$(ls "$dist"/agentcodec-*-py3-none-any.whl)
sdist=$(ls "$dist"/agentcodec-*.tar.gz)

# native_wheel PYTHON: the wheel built for that interpreter's version.
native_wheel() {
    local tag
    tag=$("$1" -c 'import sys; print(f"cp{sys.version_info[0]}{sys.version_info[1]}")')
    ls "$dist"/agentcodec-*-"$tag"-"$tag"-*.whl
}

# The test environments' packages are installed by uv, from a tools
# environment of its own: the same versions pip picks (compared when it came
# in), in a tenth of the time (43 s to 3 s for a native wheel's test extra
# here), which the full run's dozen environments need under CI's 90 minutes.
"$python" -m venv "$work/tools"
"$work/tools/bin/python" -m pip install --quiet "uv>=0.5"
uv=$work/tools/bin/uv

# fresh_env DIR PYTHON REQUIREMENT...: a virtual environment (pip in it, as
# any has) with those installed.
fresh_env() {
    local dir=$1 interpreter=$2
    shift 2
    "$interpreter" -m venv "$dir"
    "$uv" pip install --quiet --python "$dir/bin/python" "$@"
}

# check_backend PYTHON NAME: that environment's agentcodec runs on that backend.
check_backend() {
    "$1" -c "import agentcodec, sys; sys.exit(agentcodec.backend != '$2')" \
        || { echo "$1 does not run agentcodec on its $2 backend" >&2; exit 1; }
}

# suite NATIVE_PYTHON PURE_PYTHON: pytest on the native backend in the native
# wheel's environment, then on the pure backend in the pure wheel's: each
# test that takes a backend runs once on each, every other test on both.
suite() {
    AGENTCODEC_REQUIRE_NATIVE=1 "$1" -m pytest -q -p no:cacheprovider -n "$workers" --backend native
    "$2" -m pytest -q -p no:cacheprovider -n "$workers"
}

extras="test,lint"
[ $full = 1 ] && extras="test,lint,bench,docs"
step "Python $main_version: environments with the native wheel ($extras) and with the pure wheel (test)"
fresh_env "$work/native" "$python" "$(native_wheel "$python")[$extras]"
native="$work/native/bin/python"
check_backend "$native" native
fresh_env "$work/pure" "$python" "$pure_wheel[test]"
pure="$work/pure/bin/python"
check_backend "$pure" python

step "Python $main_version: ruff, mypy, the protocols' spread, and the native stubs checked against the extension"
"$work/native/bin/ruff" check .
"$work/native/bin/ruff" format --check .
"$work/native/bin/mypy"
# A protocol is a plug-in: one added after the first two is named in at most
# 8 files outside its own places (docs/architecture.md).
"$native" scripts/protocol_spread.py --shared --check 8
"$native" -m mypy.stubtest agentcodec._native

# The sources live under python/, so nothing here shadows the installed wheels.
step "Python $main_version: the suite on the native backend, then on the pure wheel"
suite "$native" "$pure"

if [ $full = 0 ]; then
    step "The quick suite passed (./scripts/test.sh --full runs everything CI runs)"
    exit 0
fi

step "The docs: the site built by mkdocs, strict (a broken link or a missing page fails)"
NO_MKDOCS_2_WARNING=1 "$native" -m mkdocs build --strict --quiet --site-dir "$work/site"

step "Fuzzing: every cargo-fuzz target for 10 s, seeded from the fixtures (nightly)"
cargo +nightly fmt --manifest-path fuzz/Cargo.toml --check
command -v cargo-fuzz > /dev/null || cargo +nightly install cargo-fuzz --locked --quiet
rm -rf fuzz/artifacts
./scripts/fuzz.sh 10

step "Python $main_version: the backends fuzzed against each other (atheris), 1,000 inputs from a fixed seed"
"$uv" pip install --quiet --python "$native" --only-binary atheris atheris
rm -rf fuzz/artifacts/backends fuzz/corpus/backends
PYTHON="$native" RUNS=1000 ./scripts/fuzz-backends.sh

step "Benchmarks: a smoke run (each once), and the report on small workloads"
"$native" -m pytest -q -p no:cacheprovider --benchmark-disable benches
"$native" benches/report.py --quick --min-time 0.01 --chart "$work/charts" > /dev/null
"$native" benches/report.py --bound --min-time 0.01 > /dev/null
"$native" benches/linearity.py --quick --min-time 0.01 --phases > /dev/null
cargo bench --locked --bench sse -- --quick
cargo bench --locked --bench assemble -- --quick
"$native" benches/memory.py --megabytes 2 --protocol all
"$native" benches/memory.py --blocks 2000 --protocol all
"$native" benches/gateway_latency.py --streams 2 --rounds 1 > /dev/null

step "Benchmarks: instructions counted by callgrind against the committed baseline (3% tolerance)"
command -v valgrind > /dev/null || install_package valgrind
"$native" benches/instructions.py

tested=("$main_version: the whole suite, native and pure wheel")
# The other versions split each test's cases between them (pytest --cases
# K/N): every test runs on each version, every case on one of them besides
# the main one. The whole suite on each took 7m46s of a 9-minute step here
# (2026-12-02); a third of the cases is some 58% of the suite's time, as the
# slowest tests have a case or two, which every share runs.
others=0
for version in $versions; do
    if [ "$version" != "$main_version" ] && find_python "$version" > /dev/null; then
        others=$((others + 1))
    fi
done
share=0
for version in $versions; do
    [ "$version" = "$main_version" ] && continue
    if ! interpreter=$(find_python "$version"); then
        tested+=("$version: NOT TESTED, not installed on this machine")
        continue
    fi
    share=$((share + 1))
    step "Python $version ($interpreter): every test, share $share/$others of their cases, on both backends, properties at a fifth of their examples; the pure wheel alone"
    fresh_env "$work/native-$version" "$interpreter" "$(native_wheel "$interpreter")[test]"
    check_backend "$work/native-$version/bin/python" native
    # Once, not once per wheel as above: the cases of both backends run in
    # the native wheel's environment (which holds the pure backend too), and
    # the tests that take no backend on the native one. Running the suite
    # again in the pure wheel's would repeat those, and took half the run.
    AGENTCODEC_EXAMPLES=0.2 AGENTCODEC_REQUIRE_NATIVE=1 \
        "$work/native-$version/bin/python" -m pytest -q -p no:cacheprovider -n "$workers" --cases "$share/$others"
    # The pure wheel installs and works on its own: every example converted.
    fresh_env "$work/pure-$version" "$interpreter" "$pure_wheel"
    check_backend "$work/pure-$version/bin/python" python
    for example in examples/*.*; do
        # Each example is named after its protocol: decoded and written again
        # in it. What the conversion cannot carry is reported on stderr,
        # shown only on failure.
        protocol=$(basename "${example%.*}")
        "$work/pure-$version/bin/agentcodec" convert --from "$protocol" --to "$protocol" "$example" \
            > /dev/null 2> "$work/convert.err" || { cat "$work/convert.err" >&2; exit 1; }
    done
    tested+=("$version: every test, share $share/$others of their cases, on both backends with a fifth of the examples; the pure wheel converting every example")
done

step "The sdist: the extension built with Rust, the pure package without"
# Installed by pip, as its users install it. A debug build: what this
# checks is that the sdist holds what the build needs; the release wheels
# were built from the same sources above.
"$python" -m venv "$work/sdist-native"
MATURIN_PEP517_ARGS="--profile dev" "$work/sdist-native/bin/python" -m pip install --quiet "$sdist"
check_backend "$work/sdist-native/bin/python" native
"$python" -m venv "$work/sdist-pure"
# No cargo on PATH: the build backend makes the pure package.
env PATH="$work/sdist-pure/bin:/usr/bin:/bin" "$work/sdist-pure/bin/python" -m pip install --quiet "$sdist"
check_backend "$work/sdist-pure/bin/python" python

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
