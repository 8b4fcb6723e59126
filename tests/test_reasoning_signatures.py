"""A reasoning block's signature (Anthropic's thinking signature, the
encrypted content of a Responses reasoning item, AG-UI's
REASONING_ENCRYPTED_VALUE) crosses a conversion wherever the target has a
place for it, so that a conversation converted midway can go on upstream.
The rows' ``cannot_carry`` says where it has none ("signatures")."""

from __future__ import annotations

import json
from types import ModuleType
from typing import Any

import pytest

from conversion import OPTIONS
from protocol_table import TABLE


def sse(events: list[dict[str, Any]]) -> bytes:
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


ANTHROPIC = sse(
    [
        {
            "type": "message_start",
            "message": {"id": "msg_1", "type": "message", "role": "assistant", "model": "m", "content": []},
        },
        {"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": ""}},
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "thinking_delta", "thinking": "let me think"},
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "signature_delta", "signature": "SIG123"},
        },
        {"type": "content_block_stop", "index": 0},
        {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "answer"}},
        {"type": "content_block_stop", "index": 1},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 3}},
        {"type": "message_stop"},
    ]
)

RESPONSES = sse(
    [
        {
            "type": "response.created",
            "response": {"id": "resp_1", "object": "response", "status": "in_progress", "output": []},
        },
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {"id": "rs_1", "type": "reasoning"},
        },
        {
            "type": "response.reasoning_summary_part.added",
            "item_id": "rs_1",
            "output_index": 0,
            "summary_index": 0,
            "part": {"type": "summary_text", "text": ""},
        },
        {
            "type": "response.reasoning_summary_text.delta",
            "item_id": "rs_1",
            "output_index": 0,
            "summary_index": 0,
            "delta": "thinking",
        },
        {
            "type": "response.reasoning_summary_part.done",
            "item_id": "rs_1",
            "output_index": 0,
            "summary_index": 0,
            "part": {"type": "summary_text", "text": "thinking"},
        },
        {
            "type": "response.output_item.done",
            "output_index": 0,
            "item": {
                "id": "rs_1",
                "type": "reasoning",
                "summary": [{"type": "summary_text", "text": "thinking"}],
                "encrypted_content": "ENC42",
            },
        },
        {
            "type": "response.output_item.added",
            "output_index": 1,
            "item": {"id": "msg_1", "type": "message", "role": "assistant", "content": []},
        },
        {
            "type": "response.output_text.delta",
            "item_id": "msg_1",
            "output_index": 1,
            "content_index": 0,
            "delta": "hi",
        },
        {
            "type": "response.completed",
            "response": {"id": "resp_1", "object": "response", "status": "completed"},
        },
    ]
)


def round_trip(backend: ModuleType, source: str, through: str, stream: bytes) -> bytes:
    """The stream converted into ``through`` and back; a signature the way
    there loses is reported there."""
    there = backend.Transcoder(source, through, **OPTIONS[through])
    converted = there.feed(stream) + there.close()
    lost = [loss["why"] for loss in there.losses if loss["what"] == "signatures"]
    carried = "signatures" not in TABLE[through].cannot_carry
    assert lost == ([] if carried else [f"{through} has no place for a reasoning signature"])
    back = backend.Transcoder(through, source, **OPTIONS[source])
    return back.feed(converted) + back.close()  # type: ignore[no-any-return]


@pytest.mark.parametrize("through", [name for name in TABLE if name != "anthropic"])
def test_a_thinking_signature_comes_back_from_every_target_with_a_place(
    backend: ModuleType, through: str
) -> None:
    assembler = backend.AnthropicAssembler()
    assembler.feed(round_trip(backend, "anthropic", through, ANTHROPIC))
    message = assembler.close()
    (thinking,) = [block for block in message["content"] if block["type"] == "thinking"]
    assert thinking["thinking"] == "let me think"
    carried = "signatures" not in TABLE[through].cannot_carry
    assert thinking["signature"] == ("SIG123" if carried else "")


@pytest.mark.parametrize("through", [name for name in TABLE if name != "openai-responses"])
def test_encrypted_reasoning_comes_back_from_every_target_with_a_place(
    backend: ModuleType, through: str
) -> None:
    assembler = backend.OpenAIResponsesAssembler()
    assembler.feed(round_trip(backend, "openai-responses", through, RESPONSES))
    response = assembler.close()
    (reasoning,) = [item for item in response["output"] if item["type"] == "reasoning"]
    carried = "signatures" not in TABLE[through].cannot_carry
    assert reasoning.get("encrypted_content") == ("ENC42" if carried else None)
