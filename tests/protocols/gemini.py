"""Gemini, for the cross-cutting tests."""

from __future__ import annotations

from typing import Any

from . import GatewayCase, Row, list_length


def record(parts: list[dict[str, Any]], index: int = 0, **fields: Any) -> dict[str, Any]:
    """A record of one candidate's newest parts."""
    candidate = {"content": {"parts": parts, "role": "model"}, "index": index, **fields}
    return {"candidates": [candidate], "modelVersion": "m", "responseId": "r"}


def _parts(assembler: Any) -> int:
    return sum(
        list_length((candidate.get("content") or {}).get("parts"))
        for candidate in assembler.response.get("candidates") or ()
    )


ROW = Row(
    name="gemini",
    carries_stop_reasons=True,
    stop_reason_words={
        "refusal": "safety",
        "tool_use": "stop",
        "max_tokens": "max_tokens",
        "end_turn": "stop",
    },
    # (Its statuses are google.rpc.Code's names.)
    error_code_words={
        "throttlingException": "RESOURCE_EXHAUSTED",
        "rate_limit_error": "RESOURCE_EXHAUSTED",
        "overloaded_error": "UNAVAILABLE",
        "serviceUnavailableException": "UNAVAILABLE",
        "api_error": "INTERNAL",
        "invalid_request_error": "INVALID_ARGUMENT",
        "validationException": "INVALID_ARGUMENT",
        "NOT_FOUND": "NOT_FOUND",
        "E_BOOM": "INTERNAL",
    },
    assembler="GeminiAssembler",
    result="response",
    stream="gemini/text_signature.sse",
    recorded_streams=("gemini/*.sse",),
    reads=("response",),
    framing="array",
    three_messages=(record([{"text": "x"}], 0), record([{"text": "x"}], 1), record([{"text": "x"}], 2)),
    fixed_options={"model": "m", "response_id": "r"},
    # (a tool call is written whole when its block finishes, its arguments an
    # object: Gemini's calls come whole, bar Vertex AI's streamed arguments)
    cannot_carry=frozenset(
        {
            "message_boundary",
            "block_ends",
            "signatures",
            "data",
            "tool_result",
            "refusal_kind",
            "corrections",
            "broken_arguments",
            "annotations",
            "tool_server",
            "usage",
            "error_code",
        }
    ),
    encrypted_by="gemini",
    # (as the AI SDK's packages for Google AI and Vertex AI write them: under
    # each of their keys, on reasoning, text and tool-call parts alike)
    provider_metadata=(
        (
            {"encrypted": "SIG", "encrypted_by": "gemini"},
            {
                "google": {"thoughtSignature": "SIG"},
                "googleVertex": {"thoughtSignature": "SIG"},
                "vertex": {"thoughtSignature": "SIG"},
            },
        ),
    ),
    provider_metadata_read=(
        ({"encrypted": "SIG", "encrypted_by": "gemini"}, {"google": {"thoughtSignature": "SIG"}}),
        (
            {"encrypted": "SIG", "encrypted_by": "gemini"},
            {"googleVertex": {"thoughtSignature": "SIG"}, "vertex": {"thoughtSignature": "SIG"}},
        ),
        ({"encrypted": "SIG", "encrypted_by": "gemini"}, {"vertex": {"thoughtSignature": "SIG"}}),
    ),
    signatures_own_only=True,
    carries_choices=True,
    status_as_carried={"cancelled": "completed", "interrupted": "completed"},
    count_blocks=_parts,
    block_opening=(),
    one_block=lambda n: record([{"functionCall": {"name": "f", "args": {"n": n}}}]),
    text_opening=(),
    text_delta=record([{"text": "b"}], x=0),
    gateway=GatewayCase(
        "/v1beta/models/m:streamGenerateContent?alt=sse",
        lambda question: {"contents": [{"role": "user", "parts": [{"text": question}]}]},
        converts_with={"executed_tool_calls": "omit", "message_separator": "\n\n", "model": "m"},
        resumes=False,
    ),
)
