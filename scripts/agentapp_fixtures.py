"""Records tests/fixtures/agentapp/ from a real agentscope-runtime AgentApp.

One AgentApp (scripts/agentapp.py) serves one agent on several protocols.
This script runs one under uvicorn on loopback, with query handlers that need
no model, calls each endpoint of scripts/agentapp_endpoints/ with httpx and
writes the bytes exactly as received (``<run>.<endpoint>.sse``). Beside them,
``<run>.json`` holds the answer, each endpoint's response headers and, for
each endpoint that has one, the reference its protocol's own SDK makes of its
stream (each endpoint's module says what that is).

Two runs: ``agent_turn`` (reasoning, a streamed tool call, its result, a long
answer) and ``agent_fails`` (the handler raises midway through the answer).

Run it in an environment with agentscope-runtime (research agentscope.md
section 13 says why these pins):

    python3 -m venv /tmp/asr
    /tmp/asr/bin/pip install agentscope-runtime==1.1.6.post2 "agentscope>=1.0.14,<2" \\
        "mcp==1.19.*" "pydantic==2.12.*" greenlet tqdm uvicorn httpx openai ag-ui-protocol
    /tmp/asr/bin/python scripts/agentapp_fixtures.py
"""

from __future__ import annotations

import json
import sys
from typing import Any

from agentapp import LONG_ANSWER, OUT, Server, endpoints, make_app, post
from agentscope_runtime.version import __version__ as runtime_version


def record(name: str, fail: bool) -> None:
    called = endpoints()
    with Server(make_app(fail)) as base:
        answers = {endpoint.key: post(base, endpoint.path, endpoint.body) for endpoint in called}
    OUT.mkdir(parents=True, exist_ok=True)
    for key, (_, stream) in answers.items():
        (OUT / f"{name}.{key}.sse").write_bytes(stream)
    reference: dict[str, Any] = {
        "source": f"agentscope-runtime {runtime_version} AgentApp on loopback ({'handler raises' if fail else 'agent turn'})",
        "headers": {key: headers for key, (headers, _) in answers.items()},
        "answer": LONG_ANSWER if not fail else LONG_ANSWER[:400],
    }
    for endpoint in called:
        if endpoint.reference is not None:
            reference[endpoint.key] = endpoint.reference(answers[endpoint.key][1])
    (OUT / f"{name}.json").write_text(
        json.dumps(reference, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )


def main() -> int:
    record("agent_turn", fail=False)
    record("agent_fails", fail=True)
    print(f"wrote {len(list(OUT.glob('*.sse')))} streams to {OUT}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
