#!/usr/bin/env bash
# Sets agentcodec up in ./.venv (building the native extension when a Rust
# toolchain is on PATH) and runs the main job on the sample AgentScope stream
# in examples/: its events as JSON lines, then the response they assemble to.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
python=${PYTHON:-python3}

"$python" -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet .
.venv/bin/agentcodec --version
.venv/bin/agentcodec decode --json examples/agentscope-chat.sse
.venv/bin/agentcodec assemble --protocol agentscope examples/agentscope-chat.sse
