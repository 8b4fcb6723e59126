"""Records Anthropic Messages streams in tests/fixtures/sdk/ (``anthropic_*``):
every stream event, content block and delta type, built as
anthropic-sdk-python's own event classes and framed as the API frames them
(``event: <type>`` + ``data: <json>``); the reference is the Message
anthropic-sdk-python's ``accumulate_event`` (behind
``client.messages.stream``) builds from them, as ``to_dict()`` gives it.

Run it where anthropic is installed:

    pip install anthropic==2.12.0
    python scripts/anthropic_fixtures.py
"""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path
from typing import Any

import anthropic
import anthropic.types as claude
from anthropic.lib.streaming._messages import accumulate_event
from openai._models import construct_type

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "fixtures" / "sdk"
sys.path.insert(0, str(ROOT / "tests"))


def claude_start(**usage: Any) -> claude.RawMessageStartEvent:
    message = claude.Message(
        id="msg_1",
        type="message",
        role="assistant",
        model="claude-sonnet-4-5",
        content=[],
        stop_reason=None,
        stop_sequence=None,
        usage=claude.Usage(
            input_tokens=25,
            output_tokens=1,
            cache_read_input_tokens=7,
            cache_creation_input_tokens=0,
            **usage,
        ),
    )
    return claude.RawMessageStartEvent(type="message_start", message=message)


def block_start(index: int, block: Any) -> claude.RawContentBlockStartEvent:
    return claude.RawContentBlockStartEvent(type="content_block_start", index=index, content_block=block)


def block_delta(index: int, delta: Any) -> claude.RawContentBlockDeltaEvent:
    return claude.RawContentBlockDeltaEvent(type="content_block_delta", index=index, delta=delta)


def block_stop(index: int) -> claude.RawContentBlockStopEvent:
    return claude.RawContentBlockStopEvent(type="content_block_stop", index=index)


def claude_events() -> list[Any]:
    """A message with every content block and delta type the API streams."""
    text = 'Héllo "world" 🙂\n数据'
    arguments = ["", '{"city": "Par', 'is", "units": ["c', '"], "note": "\\u00e9\\n", "n": 1.5e3}']
    search = '{"query": "weather paris"}'
    citation = claude.CitationCharLocation(
        type="char_location",
        cited_text="It is sunny.",
        document_index=0,
        document_title="Report",
        start_char_index=0,
        end_char_index=12,
        file_id=None,
    )
    result = claude.WebSearchToolResultBlock(
        type="web_search_tool_result",
        tool_use_id="srvtoolu_1",
        content=[
            claude.WebSearchResultBlock(
                type="web_search_result",
                title="Weather",
                url="https://w.example",
                encrypted_content="enc",
                page_age=None,
            )
        ],
    )
    return [
        claude_start(),
        block_start(0, claude.ThinkingBlock(type="thinking", thinking="", signature="")),
        block_delta(0, claude.ThinkingDelta(type="thinking_delta", thinking="Let me ")),
        block_delta(0, claude.ThinkingDelta(type="thinking_delta", thinking="think.")),
        block_delta(0, claude.SignatureDelta(type="signature_delta", signature="sig-abc")),
        block_stop(0),
        block_start(1, claude.RedactedThinkingBlock(type="redacted_thinking", data="opaque==")),
        block_stop(1),
        block_start(2, claude.ServerToolUseBlock(type="server_tool_use", id="srvtoolu_1", name="web_search",
                                                 input={})),
        block_delta(2, claude.InputJSONDelta(type="input_json_delta", partial_json=search[:9])),
        block_delta(2, claude.InputJSONDelta(type="input_json_delta", partial_json=search[9:])),
        block_stop(2),
        block_start(3, result),
        block_stop(3),
        block_start(4, claude.TextBlock(type="text", text="", citations=None)),
        *[block_delta(4, claude.TextDelta(type="text_delta", text=piece + " ")) for piece in text.split(" ")],
        block_delta(4, claude.CitationsDelta(type="citations_delta", citation=citation)),
        block_delta(4, claude.TextDelta(type="text_delta", text="Done.")),
        block_stop(4),
        block_start(5, claude.ToolUseBlock(type="tool_use", id="toolu_1", name="get_weather", input={})),
        *[block_delta(5, claude.InputJSONDelta(type="input_json_delta", partial_json=piece)) for piece in arguments],
        block_stop(5),
        block_start(6, claude.ToolUseBlock(type="tool_use", id="toolu_2", name="no_arguments", input={})),
        block_delta(6, claude.InputJSONDelta(type="input_json_delta", partial_json="")),
        block_stop(6),
        claude.RawMessageDeltaEvent(
            type="message_delta", delta={"stop_reason": "tool_use", "stop_sequence": None},
            usage=claude.MessageDeltaUsage(output_tokens=89, input_tokens=25, cache_read_input_tokens=7,
                                           server_tool_use=claude.ServerToolUsage(web_search_requests=1, web_fetch_requests=0)),
        ),
        claude.RawMessageStopEvent(type="message_stop"),
    ]  # fmt: skip


def claude_error_events() -> list[Any]:
    """A stream the API ends with an ``error`` event after a 200, as when it is overloaded."""
    return [
        claude_start(),
        block_start(0, claude.TextBlock(type="text", text="")),
        block_delta(0, claude.TextDelta(type="text_delta", text="Partial ")),
        block_delta(0, claude.TextDelta(type="text_delta", text="answer")),
        # The SDK has no class for the stream's error event: it is the wire's dict.
        {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
    ]


def claude_sse(events: list[Any]) -> str:
    frames = []
    for event in events:
        body = event if isinstance(event, dict) else event.to_dict()
        frames.append(f"event: {body['type']}\ndata: {json.dumps(body, ensure_ascii=False)}\n\n")
        if body["type"] == "content_block_start" and body["index"] == 0:
            frames.append('event: ping\ndata: {"type": "ping"}\n\n')
    return "".join(frames)


def claude_reference(stream: str) -> dict[str, Any]:
    snapshot: Any = None
    json_bufs: dict[int, bytes] = {}
    for block in stream.split("\n\n"):
        if not block:
            continue
        data = json.loads(block.split("data: ", 1)[1])
        if data["type"] in ("ping", "error"):
            continue  # the stream helper answers these itself: no accumulation
        event = construct_type(type_=claude.RawMessageStreamEvent, value=data)
        snapshot = accumulate_event(event=event, current_snapshot=snapshot, json_bufs=json_bufs)
    return {"message": snapshot.to_dict() if snapshot is not None else None}


def record_claude(name: str, events: list[Any]) -> None:
    stream = claude_sse(events)
    (OUT / f"{name}.sse").write_text(stream, encoding="utf-8")
    (OUT / f"{name}.json").write_text(
        json.dumps({"source": f"anthropic {anthropic.__version__} event classes and accumulate_event",
                    **claude_reference(stream)}, indent=1, ensure_ascii=False) + "\n",
        encoding="utf-8",
    )  # fmt: skip


def main() -> int:
    # to_dict() of the SDK's parsed snapshots warns about its own unions.
    warnings.filterwarnings("ignore", message="Pydantic serializer warnings")
    OUT.mkdir(parents=True, exist_ok=True)
    record_claude("anthropic_every_block", claude_events())
    record_claude("anthropic_overloaded", claude_error_events())
    return 0


if __name__ == "__main__":
    sys.exit(main())
