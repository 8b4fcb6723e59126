#!/usr/bin/env bash
# Sets agentcodec up in ./.venv (building the native extension when a Rust
# toolchain is on PATH) and runs the main job: the gateway, serving its
# built-in demo agent on loopback as /process and every protocol with a
# gateway endpoint; then one request to its AG-UI endpoint, whose events are
# printed as they stream, followed by the run they assemble to.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
python=${PYTHON:-python3}

"$python" -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet ".[gateway]"
.venv/bin/agentcodec --version

port=${PORT:-$(.venv/bin/python -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}
base="http://127.0.0.1:$port"
.venv/bin/agentcodec gateway --port "$port" --log-level warning &
gateway=$!
trap 'kill "$gateway" 2> /dev/null; wait "$gateway" 2> /dev/null || true' EXIT
.venv/bin/python - "$base/health" <<'PY'
import sys, time, httpx
deadline = time.monotonic() + 30
while True:
    try:
        httpx.get(sys.argv[1]).raise_for_status()
        break
    except httpx.HTTPError:
        if time.monotonic() > deadline:
            sys.exit("the gateway did not start")
        time.sleep(0.1)
PY

echo "==> POST $base/ag-ui: the events as they stream, then the run they assemble to"
.venv/bin/agentcodec stream "$base/ag-ui" --protocol agui --assemble --data \
    '{"threadId": "thread-1", "runId": "run-1", "messages": [{"id": "u1", "role": "user", "content": "How many words are in this question?"}]}'
echo "==> The same agent is served as $base/process and as every protocol with a gateway endpoint:"
.venv/bin/agentcodec gateway --help | sed -n '/^Front an/,/^$/p' 
