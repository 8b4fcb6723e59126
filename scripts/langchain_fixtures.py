"""Regenerates tests/fixtures/langchain/ from langchain-core itself.

Each fixture is the protocol stream langchain-core's compat bridge
(``chunks_to_events``) produces from a sequence of model chunks, framed as
a server frames it (SSE: ``event: messages``, ``id: <seq>``, the envelope as
data), and the message langchain-core's own ``ChatModelStream`` assembles
from the same events.

Run it in an environment with langchain-core (the test suite reads the
recorded fixtures instead):

    python3 -m venv /tmp/lc
    /tmp/lc/bin/pip install langchain-core==1.8.2 langchain-protocol==0.0.20
    /tmp/lc/bin/python scripts/langchain_fixtures.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from langchain_core import __version__ as core_version
from langchain_core.language_models._compat_bridge import chunks_to_events
from langchain_core.language_models.chat_model_stream import ChatModelStream
from langchain_core.messages import AIMessageChunk
from langchain_core.outputs import ChatGenerationChunk

OUT = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "langchain"


def chunk(content: Any = "", **kwargs: Any) -> AIMessageChunk:
    return AIMessageChunk(content=content, id="run-1", **kwargs)


def tool(index: int, args: str, call_id: str | None = None, name: str | None = None) -> dict[str, Any]:
    return {"name": name, "args": args, "id": call_id, "index": index}


SCENARIOS: dict[str, list[AIMessageChunk]] = {
    "text": [chunk(piece) for piece in ["Hel", "lo, ", "wörld", " 🙂", "\n", '"quoted"']],
    "parallel_tool_calls": [
        chunk("Let me check."),
        chunk(tool_call_chunks=[tool(0, '{"city":', "call_1", "weather")]),
        chunk(tool_call_chunks=[tool(1, '{"expr":', "call_2", "calc")]),
        chunk(tool_call_chunks=[tool(0, ' "Paris"}')]),
        chunk(tool_call_chunks=[tool(1, ' "2+2"}')]),
        chunk(usage_metadata={"input_tokens": 12, "output_tokens": 9, "total_tokens": 21},
              response_metadata={"finish_reason": "tool_calls", "model_name": "m"}),
    ],
    "invalid_tool_args": [
        chunk(tool_call_chunks=[tool(0, '{"q": ', "call_1", "search")]),
        chunk(tool_call_chunks=[tool(0, "oops")]),
        chunk(response_metadata={"finish_reason": "tool_calls"}),
    ],
    "reasoning_then_text": [
        chunk([{"type": "reasoning", "reasoning": "Let me", "index": 0}]),
        chunk([{"type": "reasoning", "reasoning": " think.", "index": 0}]),
        chunk([{"type": "text", "text": "The answer", "index": 1}]),
        chunk([{"type": "text", "text": " is 4.", "index": 1}]),
        chunk(usage_metadata={"input_tokens": 3, "output_tokens": 5, "total_tokens": 8,
                              "output_token_details": {"reasoning": 2}}),
    ],
    "many_tokens": [chunk(f"tok{i} ") for i in range(500)],
}  # fmt: skip


def envelope(seq: int, data: Any) -> dict[str, Any]:
    return {
        "type": "event",
        "event_id": f"evt-{seq}",
        "seq": seq,
        "method": "messages",
        "params": {"namespace": ["agent:1"], "timestamp": 1763700000000 + seq, "node": "model", "data": data},
    }


def assembled(events: list[Any]) -> dict[str, Any]:
    stream = ChatModelStream(namespace=["agent:1"], node="model", message_id="run-1")
    for event in events:
        stream.dispatch(event)
    message = stream.output
    return {
        "content": message.content,
        "tool_calls": message.tool_calls,
        "invalid_tool_calls": message.invalid_tool_calls,
        "usage": message.usage_metadata,
        "response_metadata": message.response_metadata,
    }


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, chunks in SCENARIOS.items():
        events = [
            json.loads(json.dumps(e))
            for e in chunks_to_events(ChatGenerationChunk(message=c) for c in chunks)
        ]
        frames = []
        for seq, data in enumerate(events, 1):
            body = json.dumps(envelope(seq, data), ensure_ascii=False, separators=(",", ":"))
            frames.append(f"event: messages\nid: {seq}\ndata: {body}\n\n")
        (OUT / f"{name}.sse").write_text("".join(frames), encoding="utf-8")
        expected = {"source": f"langchain-core {core_version}: chunks_to_events -> ChatModelStream",
                    "message": assembled(events)}  # fmt: skip
        text = json.dumps(expected, indent=2, ensure_ascii=False, default=str) + "\n"
        (OUT / f"{name}.json").write_text(text, encoding="utf-8")
    print(f"wrote {len(SCENARIOS)} fixtures to {OUT}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
