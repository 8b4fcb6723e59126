"""Records tests/fixtures/ai_sdk/: Vercel AI SDK UI message streams, written
to the SDK's documented wire format, and what the SDK's own accumulator
makes of them.

The streams: a few written by hand as an AI SDK server sends them
(``data: <json>`` per chunk, then ``data: [DONE]``; the chunk types and
fields of ``uiMessageChunkSchema`` in ``ai/src/ui-message-stream/
ui-message-chunks.ts``), and generated ones (``tests/ai_sdk_streams.py``,
by seed), a third of them with a chunk the SDK throws on.

The reference is the SDK's ``processUIMessageStream`` (``ai/src/ui/
process-ui-message-stream.ts``, the accumulator behind
``readUIMessageStream`` and ``useChat``), run under Node: its message
state after the last chunk, or at the chunk it threw on, with its finish
reason. The SDK is TypeScript from npm, which this project's machines do
not reach, so the judge is not part of the repository: ``--judge`` names a
command that reads a JSON list of chunk lists on stdin and writes, for
each, ``{"message", "finishReason", "errors"}`` on stdout. The fixtures
were recorded with the SDK at vercel/ai ``ed857f5`` (``ai`` 7.0.77),
bundled with esbuild and run under Node 20; ``tests/test_ai_sdk.py`` reads
them on both backends.

    python scripts/ai_sdk_fixtures.py --judge "node /path/to/judge.cjs"
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "fixtures" / "ai_sdk"
sys.path.insert(0, str(ROOT / "tests"))

from ai_sdk_streams import chunks_digest, random_stream  # noqa: E402

#: Generated streams recorded: seeds 0 .. GENERATED - 1.
GENERATED = 300

WRITTEN: dict[str, list[dict[str, Any]]] = {
    # streamText with reasoning and a tool the client runs, over two steps,
    # as toUIMessageStream writes it.
    "ai_sdk_tool_turn": [
        {"type": "start", "messageId": "msg_1", "messageMetadata": {"model": "claude"}},
        {"type": "start-step"},
        {"type": "reasoning-start", "id": "r0"},
        {"type": "reasoning-delta", "id": "r0", "delta": "The user wants "},
        {"type": "reasoning-delta", "id": "r0", "delta": "the weather."},
        {"type": "reasoning-end", "id": "r0", "providerMetadata": {"anthropic": {"signature": "EqQBCg=="}}},
        {"type": "text-start", "id": "t0"},
        {"type": "text-delta", "id": "t0", "delta": "Let me "},
        {"type": "text-delta", "id": "t0", "delta": "check."},
        {"type": "text-end", "id": "t0"},
        {"type": "tool-input-start", "toolCallId": "call_1", "toolName": "getWeather"},
        {"type": "tool-input-delta", "toolCallId": "call_1", "inputTextDelta": ""},
        {"type": "tool-input-delta", "toolCallId": "call_1", "inputTextDelta": '{"city": "Par'},
        {"type": "tool-input-delta", "toolCallId": "call_1", "inputTextDelta": 'is \\u00e9t\\u00e9"}'},
        {
            "type": "tool-input-available",
            "toolCallId": "call_1",
            "toolName": "getWeather",
            "input": {"city": "Paris été"},
        },
        {"type": "tool-output-available", "toolCallId": "call_1", "output": {"temperature": 21, "unit": "C"}},
        {"type": "finish-step"},
        {"type": "start-step"},
        {"type": "text-start", "id": "t1"},
        {"type": "text-delta", "id": "t1", "delta": "It is 21 °C in Paris. 🌤"},
        {"type": "text-end", "id": "t1"},
        {"type": "source-url", "sourceId": "src_1", "url": "https://weather.example/paris", "title": "Paris"},
        {"type": "finish-step"},
        {
            "type": "finish",
            "finishReason": "stop",
            "messageMetadata": {"usage": {"inputTokens": 30, "outputTokens": 12}},
        },
    ],
    # Data parts reconciled by id, a transient one, files, sources, custom
    # parts, metadata merged deeply, a provider-executed dynamic tool.
    "ai_sdk_data_parts": [
        {"type": "start", "messageMetadata": {"session": {"id": "s1", "tags": ["a"]}}},
        {"type": "data-status", "id": "st", "data": {"stage": "searching"}},
        {"type": "data-notice", "data": {"text": "shown once"}, "transient": True},
        {
            "type": "tool-input-start",
            "toolCallId": "ws_1",
            "toolName": "web_search",
            "dynamic": True,
            "providerExecuted": True,
            "title": "Search",
        },
        {"type": "tool-input-delta", "toolCallId": "ws_1", "inputTextDelta": '{"query":"ai sdk"}'},
        {
            "type": "tool-output-available",
            "toolCallId": "ws_1",
            "output": [{"url": "https://ai-sdk.dev"}],
            "providerExecuted": True,
            "providerMetadata": {"openai": {"itemId": "ws_1"}},
        },
        {
            "type": "source-document",
            "sourceId": "doc_1",
            "mediaType": "application/pdf",
            "title": "Spec",
            "filename": "spec.pdf",
        },
        {"type": "file", "url": "data:image/png;base64,iVBORw0KGgo=", "mediaType": "image/png"},
        {"type": "reasoning-file", "url": "https://files.example/plot.png", "mediaType": "image/png"},
        {"type": "custom", "kind": "acme.card", "providerMetadata": {"acme": {"size": 2}}},
        {"type": "data-status", "id": "st", "data": {"stage": "done"}},
        {"type": "message-metadata", "messageMetadata": {"session": {"tags": ["b"], "user": "u"}}},
        {"type": "finish", "finishReason": "stop"},
    ],
    # A tool that needs approval, approved, then its result; a second one
    # denied; a third whose input the server could not parse.
    "ai_sdk_approvals": [
        {"type": "start", "messageId": "msg_2"},
        {"type": "start-step"},
        {"type": "tool-input-start", "toolCallId": "c1", "toolName": "deleteFile"},
        {"type": "tool-input-delta", "toolCallId": "c1", "inputTextDelta": '{"path":"/tmp/x"}'},
        {
            "type": "tool-input-available",
            "toolCallId": "c1",
            "toolName": "deleteFile",
            "input": {"path": "/tmp/x"},
        },
        {"type": "tool-approval-request", "approvalId": "ap1", "toolCallId": "c1", "signature": "sig"},
        {"type": "tool-approval-response", "approvalId": "ap1", "approved": True, "reason": "user said yes"},
        {"type": "tool-output-available", "toolCallId": "c1", "output": "partial", "preliminary": True},
        {"type": "tool-output-available", "toolCallId": "c1", "output": "deleted"},
        {
            "type": "tool-input-available",
            "toolCallId": "c2",
            "toolName": "deleteFile",
            "input": {"path": "/"},
        },
        {"type": "tool-approval-request", "approvalId": "ap2", "toolCallId": "c2", "isAutomatic": True},
        {"type": "tool-approval-response", "approvalId": "ap2", "approved": False},
        {"type": "tool-output-denied", "toolCallId": "c2"},
        {
            "type": "tool-input-error",
            "toolCallId": "c3",
            "toolName": "deleteFile",
            "input": "{path:",
            "errorText": "Invalid JSON",
        },
        {"type": "tool-input-start", "toolCallId": "c4", "toolName": "flaky", "dynamic": True},
        {"type": "tool-input-delta", "toolCallId": "c4", "inputTextDelta": "{}"},
        {"type": "tool-output-error", "toolCallId": "c4", "errorText": "timed out"},
        {"type": "finish-step"},
        {"type": "finish", "finishReason": "tool-calls"},
    ],
    # A step retried: reset-step retracts its parts, the retry writes new
    # ones; an error chunk and an abort on the way.
    "ai_sdk_retried_step": [
        {"type": "start", "messageId": "msg_3"},
        {"type": "start-step"},
        {"type": "text-start", "id": "a"},
        {"type": "text-delta", "id": "a", "delta": "First answer"},
        {"type": "text-end", "id": "a"},
        {"type": "finish-step"},
        {"type": "start-step"},
        {"type": "text-start", "id": "b"},
        {"type": "text-delta", "id": "b", "delta": "Half a"},
        {"type": "data-progress", "id": "p", "data": 50},
        {"type": "error", "errorText": "upstream reset"},
        {"type": "reset-step"},
        {"type": "text-start", "id": "b"},
        {"type": "text-delta", "id": "b", "delta": "A whole second answer"},
        {"type": "text-end", "id": "b"},
        {"type": "data-progress", "id": "p", "data": 100},
        {"type": "finish-step"},
        {"type": "abort", "reason": "user stopped"},
    ],
}


def sse(chunks: list[dict[str, Any]]) -> bytes:
    """The wire, as the SDK's JsonToSseTransformStream writes it."""
    body = "".join(
        f"data: {json.dumps(chunk, ensure_ascii=False, separators=(',', ':'))}\n\n" for chunk in chunks
    )
    return (body + "data: [DONE]\n\n").encode()


def judge(command: str, cases: list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    done = subprocess.run(
        shlex.split(command), input=json.dumps(cases).encode(), capture_output=True, check=True
    )
    results: list[dict[str, Any]] = json.loads(done.stdout)
    return results


def reference(result: dict[str, Any]) -> dict[str, Any]:
    """What the tests compare: the message, the finish reason, and whether
    the SDK threw (the errors of ``error`` chunks go to ``onError`` only)."""
    threw = [error for error in result["errors"] if error.startswith(("Received", "No tool"))]
    return {
        "message": result["message"],
        "finish_reason": result["finishReason"],
        "threw": threw[0] if threw else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--judge", required=True, help="the command that runs the SDK's processUIMessageStream"
    )
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    names = list(WRITTEN)
    results = judge(args.judge, [WRITTEN[name] for name in names])
    for name, result in zip(names, results, strict=True):
        (OUT / f"{name}.sse").write_bytes(sse(WRITTEN[name]))
        (OUT / f"{name}.json").write_text(json.dumps(reference(result), indent=1, ensure_ascii=False) + "\n")
    seeds = range(GENERATED)
    streams = [random_stream(seed, valid=seed % 3 != 0) for seed in seeds]
    results = judge(args.judge, streams)
    generated = [
        {"seed": seed, "valid": seed % 3 != 0, "digest": chunks_digest(stream), **reference(result)}
        for seed, stream, result in zip(seeds, streams, results, strict=True)
    ]
    (OUT / "generated.json").write_text(
        json.dumps(generated, ensure_ascii=False, separators=(",", ":")) + "\n"
    )
    print(
        f"wrote {len(names)} written streams and {len(generated)} generated ones to {OUT.relative_to(ROOT)}"
    )


if __name__ == "__main__":
    main()
