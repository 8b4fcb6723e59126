"""The gateway in front of a real agentscope-runtime AgentApp, against that
AgentApp's own three endpoints.

One AgentApp (the fixture script's handler: reasoning, a streamed tool call,
its result, a long answer; and the handler that fails midway) runs under
uvicorn on loopback; ``agentcodec.gateway.Gateway`` runs beside it with the
AgentApp's ``/process`` as its upstream. The same requests go to the
AgentApp's ``/process``, ``/ag-ui`` and ``/compatible-mode/v1/responses``
and to the gateway's, and each pair is judged by its protocol's own SDK:

- ``/process``: the same events (the gateway passes them through);
- ``/ag-ui``: both validated by ag-ui-protocol's models; the AG-UI client's
  messages carry the same answer, tool call and result, and the gateway's
  reasoning is reasoning (the AgentApp's is text, agentscope-runtime #504);
- Responses: openai-python's stream helper over both; the same answer and
  reasoning, plus the tool call and its result the AgentApp drops (#486);
  a failed run is ``failed`` on both.

Prints each check; exits non-zero if one fails. Run it where
agentcodec[gateway] and agentscope-runtime are installed; scripts/test.sh --full
does, in an environment made from scripts/agentapp-constraints.txt:

    python3 -m venv /tmp/asr
    /tmp/asr/bin/pip install -c scripts/agentapp-constraints.txt agentscope-runtime \
        agentscope mcp pydantic greenlet tqdm uvicorn httpx openai ag-ui-protocol jsonpatch \
        '.[gateway]'
    /tmp/asr/bin/python scripts/gateway_vs_agentapp.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

from agentapp_fixtures import Server, agui_reference, make_app, post, responses_reference  # noqa: E402

from agentcodec.gateway import Gateway  # noqa: E402

QUESTION = "What is the weather in Paris?"
PROCESS = {"input": [{"role": "user", "content": [{"type": "text", "text": QUESTION}]}], "session_id": "s1"}
AGUI = {
    "threadId": "thread_1",
    "runId": "run_1",
    "messages": [{"id": "u1", "role": "user", "content": QUESTION}],
}
RESPONSES = {"model": "friday", "input": QUESTION, "stream": True}

failures: list[str] = []


def check(what: str, ok: bool) -> None:
    if not ok:
        failures.append(what)
    print(f"{'ok  ' if ok else 'FAIL'} {what}")


def data(stream: bytes) -> list[dict[str, Any]]:
    from agentcodec import SSEDecoder

    decoder = SSEDecoder(max_line_bytes=None, max_event_bytes=None)
    return [json.loads(event.data) for event in [*decoder.feed(stream), *decoder.close()]]


def data_only(stream: bytes) -> bytes:
    """The stream as bare ``data:`` events: agui_reference reads no ``id:`` lines."""
    return b"".join(b"data: " + json.dumps(event).encode() + b"\n\n" for event in data(stream))


def without_ids(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{key: value for key, value in message.items() if key != "id"} for message in messages]


def compare(fail: bool) -> None:
    label = "failing run" if fail else "agent turn"
    with Server(make_app(fail)) as agentapp, Server(Gateway(agentapp)) as gateway:
        streams = {
            name: (post(agentapp, path, body)[1], post(gateway, path, body)[1])
            for name, path, body in (
                ("process", "/process", PROCESS),
                ("agui", "/ag-ui", AGUI),
                ("responses", "/compatible-mode/v1/responses", RESPONSES),
            )
        }

    theirs, ours = streams["process"]
    kinds = [(e.get("object"), e.get("type"), e.get("status")) for e in data(theirs)]
    check(
        f"{label}: /process passes the AgentApp's events through",
        kinds == [(e.get("object"), e.get("type"), e.get("status")) for e in data(ours)],
    )

    theirs_agui, ours_agui = (agui_reference(data_only(stream)) for stream in streams["agui"])
    mine, yours = without_ids(ours_agui["messages"]), without_ids(theirs_agui["messages"])
    answer = [m for m in mine if m["role"] == "assistant" and m.get("content")]
    # agui_reference raises on any event ag-ui-protocol's models reject.
    check(f"{label}: /ag-ui validates with ag-ui-protocol on both", bool(ours_agui["validated_events"]))
    check(
        f"{label}: /ag-ui gives the AgentApp's answer",
        answer[-1:] == [m for m in yours if m["role"] == "assistant" and m.get("content")][-1:],
    )
    check(
        f"{label}: /ag-ui gives the AgentApp's tool result",
        [m for m in mine if m["role"] == "tool"] == [m for m in yours if m["role"] == "tool"],
    )
    check(f"{label}: /ag-ui keeps reasoning as reasoning", any(m["role"] == "reasoning" for m in mine))
    check(
        f"{label}: /ag-ui streams tool arguments in pieces",
        sum(e["type"] == "TOOL_CALL_ARGS" for e in ours_agui["validated_events"]) > 1,
    )
    check(
        f"{label}: /ag-ui ends as the AgentApp's does",
        ours_agui["validated_events"][-1]["type"] == theirs_agui["validated_events"][-1]["type"],
    )

    theirs_responses, ours_responses = (responses_reference(stream) for stream in streams["responses"])
    their_final, our_final = theirs_responses["terminal_response"], ours_responses["terminal_response"]
    check(f"{label}: Responses end with the same status", our_final["status"] == their_final["status"])
    if not fail:
        types = [item["type"] for item in our_final["output"]]
        check(
            f"{label}: Responses give the AgentApp's answer",
            ours_responses["output_text"] == theirs_responses["output_text"],
        )
        check(
            f"{label}: Responses keep the tool call and result the AgentApp drops",
            "function_call" in types
            and "function_call_output" in types
            and "function_call" not in [item["type"] for item in their_final["output"]],
        )


def main() -> int:
    compare(fail=False)
    compare(fail=True)
    print("all checks passed" if not failures else f"{len(failures)} checks failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
