#!/usr/bin/env bash
# Sets agentcodec up in ./.venv (building the native extension when a Rust
# toolchain is on PATH) and runs the main job: decoding the sample stream in
# examples/ and printing its events as JSON lines.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
python=${PYTHON:-python3}

"$python" -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet .
.venv/bin/agentcodec --version
.venv/bin/agentcodec decode --json examples/agentscope-chat.sse
