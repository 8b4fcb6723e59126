"""``/compatible-mode/v1/responses``, the AgentApp's Responses endpoint.

Its reference: what openai-python's own stream helper
(``ResponseStreamState``, the state behind ``client.responses.stream``)
accumulates from the bytes, decoded by openai-python's own SSE decoder:
``get_final_response()`` for a completed stream, and for every stream its
last snapshot and the terminal response it hands out.

The gateway's stream against the AgentApp's, both through that helper: the
same status at the end; for a completed run the same answer, plus the tool
call and its result the AgentApp drops (agentscope-runtime #486).
"""

from __future__ import annotations

import json
from typing import Any

from agentapp import QUESTION, Check, Endpoint


def reference(stream: bytes) -> dict[str, Any]:
    """What openai-python's stream helper makes of the bytes."""
    from openai._models import construct_type
    from openai._streaming import SSEDecoder
    from openai._types import omit
    from openai.lib.streaming.responses._responses import ResponseStreamState
    from openai.types.responses import ResponseStreamEvent

    state: Any = ResponseStreamState(input_tools=omit, text_format=omit)
    decoder = SSEDecoder()
    handed_out: list[dict[str, Any]] = []
    for sse in decoder.iter_bytes(iter([stream])):
        if sse.data == "[DONE]":
            break
        event = construct_type(type_=ResponseStreamEvent, value=json.loads(sse.data))
        for out in state.handle_event(event):
            if out.type in ("response.completed", "response.failed", "response.incomplete"):
                handed_out.append(out.response.to_dict())
    completed = state._completed_response
    snapshot = state._ResponseStreamState__current_snapshot
    return {
        # get_final_response(): only a stream with response.completed has one.
        "final_response": completed.to_dict() if completed is not None else None,
        "output_text": completed.output_text if completed is not None else None,
        # What the helper accumulated as the events came (only output text and
        # function-call arguments are appended; items are not replaced).
        "snapshot": snapshot.to_dict() if snapshot is not None else None,
        # The terminal event's response as the helper hands it out.
        "terminal_response": handed_out[-1] if handed_out else None,
    }


def judge(label: str, theirs: bytes, ours: bytes, fail: bool, check: Check) -> None:
    their_run, our_run = reference(theirs), reference(ours)
    their_final, our_final = their_run["terminal_response"], our_run["terminal_response"]
    check(f"{label}: Responses end with the same status", our_final["status"] == their_final["status"])
    if not fail:
        types = [item["type"] for item in our_final["output"]]
        check(
            f"{label}: Responses give the AgentApp's answer",
            our_run["output_text"] == their_run["output_text"],
        )
        check(
            f"{label}: Responses keep the tool call and result the AgentApp drops",
            "function_call" in types
            and "function_call_output" in types
            and "function_call" not in [item["type"] for item in their_final["output"]],
        )


ENDPOINT = Endpoint(
    key="responses",
    path="/compatible-mode/v1/responses",
    body={"model": "friday", "input": QUESTION, "stream": True},
    reference=reference,
    judge=judge,
)
