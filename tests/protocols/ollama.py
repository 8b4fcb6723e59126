"""Ollama, for the cross-cutting tests."""

from __future__ import annotations

from typing import Any

from . import GatewayCase, Row, list_length

STAMP = "2026-11-20T10:00:00.123456789+01:00"


def chat_line(message: dict[str, Any], **fields: Any) -> dict[str, Any]:
    """A line of /api/chat carrying ``message``."""
    return {
        "model": "m",
        "created_at": STAMP,
        "message": {"role": "assistant", "content": "", **message},
        "done": False,
        **fields,
    }


def _calls(assembler: Any) -> int:
    message = assembler.answer.get("message") or {}
    return list_length(message.get("tool_calls")) + list_length(message.get("images"))


ROW = Row(
    name="ollama",
    carries_stop_reasons=True,
    stop_reason_words={"max_tokens": "length", "end_turn": "stop", "tool_calls": "stop"},
    assembler="OllamaAssembler",
    result="answer",
    stream="ollama/chat_answer.ndjson",
    recorded_streams=("ollama/*.ndjson",),
    reads=("answer", "done"),
    ndjson=True,
    framing="lines",
    fixed_options={"model": "m", "created_at": "2026-11-20T10:00:00Z", "endpoint": "chat"},
    # (a tool call is written whole when its block finishes, its arguments an
    # object: Ollama's blocks have no ends of their own)
    cannot_carry=frozenset(
        {
            "message_boundary",
            "error_code",
            "block_ends",
            "signatures",
            "media",
            "data",
            "tool_result",
            "refusal_kind",
            "corrections",
            "broken_arguments",
            "annotations",
            "tool_server",
            "usage",
        }
    ),
    status_as_carried={"cancelled": "completed", "interrupted": "completed"},
    count_blocks=_calls,
    block_opening=(chat_line({}),),
    one_block=lambda n: chat_line(
        {"tool_calls": [{"id": f"c{n}", "function": {"index": n, "name": "f", "arguments": {}}}]}
    ),
    text_opening=(),
    text_delta=chat_line({"content": "b"}, x=0),
    gateway=GatewayCase(
        "/api/chat",
        lambda question: {"model": "m", "messages": [{"role": "user", "content": question}]},
        converts_with={"executed_tool_calls": "omit", "message_separator": "\n\n", "endpoint": "chat"},
        resumes=False,
    ),
)
