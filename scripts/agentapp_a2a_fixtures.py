"""Records tests/fixtures/agentapp/*.a2a.*: what a real agentscope-runtime
AgentApp answers on its A2A endpoint (``POST /a2a``, a2a-sdk 0.3's JSON-RPC
server), for the A2A assembler to be judged by a producer built on another
framework than a2a-sdk's own examples.

The same AgentApp and handlers as scripts/agentapp.py. The app's
card says ``streaming: false``, so a2a-sdk's server refuses
``message/stream``; ``message/send`` answers with the one Message the
runtime's executor makes of the run's last output message, and nothing at
all when the run fails (research next-protocols.md section 1). Both answers
are kept as received (``<name>.a2a.json``, a JSON-RPC response), with what
a2a-sdk 0.3's own client types make of them (``<name>.a2a.reference.json``).

Run it in the environment scripts/agentapp_fixtures.py names (its
agentscope-runtime pins a2a-sdk 0.3):

    /tmp/asr/bin/python scripts/agentapp_a2a_fixtures.py
"""

from __future__ import annotations

import json
import sys
from importlib.metadata import version
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agentapp import OUT, QUESTION, Server, make_app, make_deterministic


def rpc(base: str, method: str, params: dict[str, Any]) -> Any:
    make_deterministic()
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    with httpx.Client(timeout=60) as client:
        response = client.post(base + "/a2a", json=body)
        response.raise_for_status()
        return response.json()


def record(name: str, fail: bool) -> None:
    from a2a.types import SendMessageResponse

    message = {
        "kind": "message",
        "role": "user",
        "messageId": "m1",
        "contextId": "c1",
        "parts": [{"kind": "text", "text": QUESTION}],
    }
    with Server(make_app(fail)) as base:
        streamed = rpc(base, "message/stream", {"message": message})
        sent = rpc(base, "message/send", {"message": message})
    validated = SendMessageResponse.model_validate(sent).root
    reference = {
        "source": f"agentscope-runtime {version('agentscope-runtime')} AgentApp /a2a, a2a-sdk {version('a2a-sdk')}",
        "message/stream": streamed,
        "result": validated.model_dump(mode="json", by_alias=True, exclude_none=True).get("result"),
    }
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"{name}.a2a.json").write_text(
        json.dumps(sent, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    (OUT / f"{name}.a2a.reference.json").write_text(
        json.dumps(reference, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )


def main() -> int:
    record("agent_turn", fail=False)
    record("agent_fails", fail=True)
    print(f"wrote the A2A answers to {OUT}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
