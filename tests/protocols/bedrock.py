"""Bedrock ConverseStream, for the cross-cutting tests."""

from __future__ import annotations

from typing import Any

from . import GatewayCase, Row


def delta(index: int, piece: dict[str, Any], **fields: Any) -> dict[str, Any]:
    """A contentBlockDelta event."""
    return {"contentBlockDelta": {"delta": piece, "contentBlockIndex": index, **fields}}


def _blocks(assembler: Any) -> int:
    output = assembler.response.get("output") or {}
    return len((output.get("message") or {}).get("content") or ())


ROW = Row(
    name="bedrock",
    carries_stop_reasons=True,
    stop_reason_words={
        "refusal": "content_filtered",
        "stop": "end_turn",
        "tool_calls": "tool_use",
        "length": "max_tokens",
    },
    error_code_words={
        "rate_limit_exceeded": "throttlingException",
        "rate_limit_error": "throttlingException",
        "RESOURCE_EXHAUSTED": "throttlingException",
        "overloaded_error": "serviceUnavailableException",
        "UNAVAILABLE": "serviceUnavailableException",
        "api_error": "internalServerException",
        "invalid_request_error": "validationException",
        "invalid_prompt": "validationException",
        "E_BOOM": "internalServerException",
    },
    assembler="BedrockAssembler",
    result="response",
    stream="bedrock/text.bin",
    recorded_streams=("bedrock/*.bin",),
    reads=("response",),
    framing="eventstream",
    binary=True,
    cannot_carry=frozenset(
        {
            "error_code",
            "signatures",
            "media",
            "data",
            "tool_result",
            "refusal_kind",
            "corrections",
            "annotations",
            "tool_server",
            "usage",
        }
    ),
    encrypted_by="bedrock",
    # (as the AI SDK's Bedrock package writes them: under both its keys)
    provider_metadata=(
        (
            {"encrypted": "SIG", "encrypted_by": "bedrock"},
            {"amazonBedrock": {"signature": "SIG"}, "bedrock": {"signature": "SIG"}},
        ),
        (
            {"encrypted": "DATA", "redacted": True, "encrypted_by": "bedrock"},
            {"amazonBedrock": {"redactedContent": "DATA"}, "bedrock": {"redactedContent": "DATA"}},
        ),
    ),
    provider_metadata_read=(
        ({"encrypted": "SIG", "encrypted_by": "bedrock"}, {"bedrock": {"signature": "SIG"}}),
        (
            {"encrypted": "SIG", "encrypted_by": "bedrock"},
            {"amazonBedrock": None, "bedrock": {"signature": "SIG"}},
        ),
        (
            {"encrypted": "DATA", "redacted": True, "encrypted_by": "bedrock"},
            {"bedrock": {"redactedData": "DATA"}},
        ),
    ),
    signatures_own_only=True,
    status_as_carried={"cancelled": "completed", "interrupted": "completed"},
    count_blocks=_blocks,
    block_opening=({"messageStart": {"role": "assistant"}},),
    one_block=lambda n: delta(n, {"text": "x"}),
    text_opening=({"messageStart": {"role": "assistant"}},),
    text_delta=delta(0, {"text": "b"}, x=0),
    gateway=GatewayCase(
        "/model/m/converse-stream",
        lambda question: {"messages": [{"role": "user", "content": [{"text": question}]}]},
        converts_with={"executed_tool_calls": "omit"},
        resumes=False,
    ),
)
