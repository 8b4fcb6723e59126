#!/usr/bin/env bash
# Runs the whole test suite from a clean checkout, installing what it needs:
#   1. Rust: rustfmt, clippy, cargo test (the core, without Python).
#   2. A virtual environment with the package built from source (the native
#      extension, release profile) and the test and lint tools; ruff, mypy,
#      then pytest on both backends.
#   3. The pure-Python wheel, installed in a fresh virtual environment, and
#      pytest again there.
#   4. agentscope-runtime's real AgentApp in an environment of its own
#      (scripts/agentapp-constraints.txt), the gateway checked against it
#      live and its load bench run once.
# Any failure fails the run; pytest collecting no tests is a failure too.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
python=${PYTHON:-python3}
work=${AGENTCODEC_TEST_DIR:-$root/.venv-test}
export PIP_DISABLE_PIP_VERSION_CHECK=1

step() { printf '\n==> %s\n' "$*"; }

step "Services the tests start: redis-server (Debian's package)"
if ! command -v redis-server > /dev/null; then
    if command -v apt-get > /dev/null && [ "$(id -u)" = 0 ]; then
        apt-get install -y -qq redis-server > /dev/null \
            || { apt-get update -qq && apt-get install -y -qq redis-server > /dev/null; }
    else
        echo "redis-server is missing and cannot be installed here: the Redis tests will fail" >&2
    fi
fi
# The tests start their own redis-server; without one they fail, not skip.
export AGENTCODEC_REQUIRE_REDIS=1

step "Rust: format, lint, unit tests"
cargo fmt --all --check
cargo clippy --all-targets --locked -- -D warnings
cargo clippy --all-targets --locked --features python -- -D warnings
cargo test --locked

step "Python: build and install the package with its native extension"
rm -rf "$work"
"$python" -m venv "$work/native"
native="$work/native/bin/python"
"$native" -m pip install --quiet --upgrade pip
# Built once as a wheel: the AgentApp's environment below installs it too.
"$native" -m pip wheel --quiet --no-deps --wheel-dir "$work/native-dist" .
native_wheel=$(ls "$work/native-dist"/agentcodec-*.whl)
"$native" -m pip install --quiet "$native_wheel[test,lint,bench]"
"$native" -c 'import agentcodec, sys; sys.exit(agentcodec.backend != "native")' \
    || { echo "the native extension was not built" >&2; exit 1; }

step "Python: ruff, mypy, and the native stubs checked against the extension"
"$work/native/bin/ruff" check .
"$work/native/bin/ruff" format --check .
"$work/native/bin/mypy"
"$native" -m mypy.stubtest agentcodec._native

step "Python: tests on both backends (native extension required)"
AGENTCODEC_REQUIRE_NATIVE=1 "$native" -m pytest -q -p no:cacheprovider

step "Benchmarks: a smoke run (each once), and the report on small workloads"
"$native" -m pytest -q -p no:cacheprovider --benchmark-disable benches
"$native" benches/report.py --quick --min-time 0.01 > /dev/null
cargo bench --locked --bench sse -- --quick
cargo bench --locked --bench assemble -- --quick
"$native" benches/memory.py --megabytes 2

step "Python: the pure wheel in a fresh environment"
rm -rf "$work/dist"
AGENTCODEC_NO_EXTENSIONS=1 "$native" -m pip wheel --quiet --no-deps --wheel-dir "$work/dist" .
wheel=$(ls "$work/dist"/agentcodec-*-py3-none-any.whl)
"$python" -m venv "$work/pure"
pure="$work/pure/bin/python"
"$pure" -m pip install --quiet --upgrade pip
"$pure" -m pip install --quiet "$wheel[test]"
"$pure" -c 'import agentcodec, sys; sys.exit(agentcodec.backend != "python")' \
    || { echo "the pure wheel did not select the python backend" >&2; exit 1; }
# The sources live under python/, so nothing here shadows the installed wheel.
"$pure" -m pytest -q -p no:cacheprovider

step "The gateway in front of agentscope-runtime's real AgentApp"
"$python" -m venv "$work/agentapp"
agentapp="$work/agentapp/bin/python"
"$agentapp" -m pip install --quiet --upgrade pip
"$agentapp" -m pip install --quiet -c scripts/agentapp-constraints.txt \
    agentscope-runtime agentscope mcp pydantic greenlet tqdm uvicorn httpx openai ag-ui-protocol \
    jsonpatch "$native_wheel[gateway]"
"$agentapp" scripts/gateway_vs_agentapp.py
"$native" benches/gateway_load.py --streams 2 --agentapp-python "$agentapp"

step "All checks passed"
