"""Vercel AI SDK UI message streams, generated from a seed: every chunk type
of the SDK's ``uiMessageChunkSchema``, in the orders a server writes them
and in the odd ones a client must survive (a part id reused after its end,
a tool call spanning steps, a step retracted, data reconciled, metadata
merged, a delta for a part that is not streaming).

One rule keeps the generated streams inside what both the SDK and
agentcodec read the same way: a tool call's input fragments are all sent
before anything else happens to that call or to the steps, so the input is
complete JSON whenever the SDK would show it (agentcodec parses it once,
where the SDK re-parses every prefix and repairs what is incomplete).
"""

from __future__ import annotations

import hashlib
import json
import random
from typing import Any

__all__ = ["chunks_digest", "random_stream", "split_json"]

WORDS = ["Hel", "lo", " wor", "ld", "", "é", "😀", "\n", '"q"', "\\"]
TOOL_NAMES = ["weather", "search", "get-time"]


def chunks_digest(chunks: list[dict[str, Any]]) -> str:
    """A short digest of a stream, so that a recorded result notices when
    the generator changes."""
    return hashlib.sha256(json.dumps(chunks, sort_keys=True).encode()).hexdigest()[:16]


def split_json(rng: random.Random, value: Any) -> list[str]:
    text = json.dumps(value, ensure_ascii=rng.random() < 0.5)
    cuts = sorted(rng.sample(range(len(text) + 1), k=min(len(text), rng.randint(0, 4))))
    pieces, last = [], 0
    for cut in [*cuts, len(text)]:
        pieces.append(text[last:cut])
        last = cut
    return pieces


def _metadata(rng: random.Random) -> dict[str, Any]:
    return rng.choice(
        [
            {"model": "m1", "usage": {"input": rng.randint(0, 9)}},
            {"usage": {"output": rng.randint(0, 9)}, "tags": [rng.randint(0, 3)]},
            {"createdAt": rng.randint(1, 5), "nested": {"a": {"b": rng.random() < 0.5}}},
            {"tags": None},
        ]
    )


def _provider_metadata(rng: random.Random) -> dict[str, Any]:
    return {"anthropic": {"signature": f"sig{rng.randint(0, 9)}"}}


def random_stream(seed: int, *, valid: bool = True) -> list[dict[str, Any]]:
    """A stream of UI message chunks. With ``valid`` false, some chunks name
    parts or calls that are not there (the SDK throws on them)."""
    rng = random.Random(seed)
    chunks: list[dict[str, Any]] = []
    text_ids: set[str] = set()
    reasoning_ids: set[str] = set()
    # call id -> "step:name:dynamic"
    calls: dict[str, str] = {}
    fragments: dict[str, list[str]] = {}
    approvals: list[str] = []
    counter = 0
    quiet = [0]  # where no call's input is streaming
    step = 0  # the step calls start in

    def fresh(prefix: str) -> str:
        nonlocal counter
        counter += 1
        return f"{prefix}{counter}"

    def maybe(chunk: dict[str, Any], key: str, value: Any, chance: float = 0.3) -> dict[str, Any]:
        if rng.random() < chance:
            chunk[key] = value
        return chunk

    if rng.random() < 0.8:
        start: dict[str, Any] = {"type": "start"}
        maybe(start, "messageId", f"msg-{seed}", 0.8)
        maybe(start, "messageMetadata", _metadata(rng))
        chunks.append(start)
    if rng.random() < 0.8:
        chunks.append({"type": "start-step"})
    for _ in range(rng.randint(1, 40)):
        streaming = [call for call, left in fragments.items() if left]
        if not streaming:
            quiet.append(len(chunks))
        roll = rng.random()
        if streaming and roll < 0.35:
            call = rng.choice(streaming)
            chunks.append(
                {"type": "tool-input-delta", "toolCallId": call, "inputTextDelta": fragments[call].pop(0)}
            )
            continue
        kind = rng.choice(
            [
                "text",
                "text",
                "reasoning",
                "tool",
                "tool",
                "tool-next",
                "data",
                "source",
                "file",
                "step",
                "metadata",
                "error",
            ]
        )
        if kind in ("text", "reasoning"):
            ids = text_ids if kind == "text" else reasoning_ids
            action = rng.random()
            if not ids or action < 0.25:
                part_id = rng.choice(["a", "b", fresh("p")])
                chunk = {"type": f"{kind}-start", "id": part_id}
                maybe(chunk, "providerMetadata", _provider_metadata(rng), 0.2)
                ids.add(part_id)
                chunks.append(chunk)
            elif action < 0.85:
                chunk = {"type": f"{kind}-delta", "id": rng.choice(sorted(ids)), "delta": rng.choice(WORDS)}
                maybe(chunk, "providerMetadata", _provider_metadata(rng), 0.1)
                chunks.append(chunk)
            else:
                part_id = rng.choice(sorted(ids))
                ids.discard(part_id)
                chunk = {"type": f"{kind}-end", "id": part_id}
                maybe(chunk, "providerMetadata", _provider_metadata(rng), 0.3)
                chunks.append(chunk)
        elif kind == "tool":
            call = fresh("call")
            name = rng.choice(TOOL_NAMES)
            dynamic = rng.random() < 0.3
            chunk = {"type": "tool-input-start", "toolCallId": call, "toolName": name}
            if dynamic:
                chunk["dynamic"] = True
            maybe(chunk, "title", f"Title {call}", 0.2)
            maybe(chunk, "providerExecuted", rng.random() < 0.5, 0.2)
            maybe(chunk, "toolMetadata", {"k": call}, 0.2)
            maybe(chunk, "providerMetadata", _provider_metadata(rng), 0.2)
            chunks.append(chunk)
            calls[call] = f"{step}:{name}:{int(dynamic)}"
            fragments[call] = split_json(
                rng, {"q": rng.choice(WORDS), "n": rng.randint(0, 99), "l": [1, {"x": None}]}
            )
        elif kind == "tool-next" and calls:
            settled = [call for call in calls if not fragments.get(call)]
            if not settled:
                continue
            call = rng.choice(settled)
            _, name, dynamic_flag = calls[call].split(":")
            roll = rng.random()
            if roll < 0.3:
                chunk = {
                    "type": "tool-input-available",
                    "toolCallId": call,
                    "toolName": name,
                    "input": {"q": "final", "n": rng.randint(0, 9)},
                }
                if dynamic_flag == "1":
                    chunk["dynamic"] = True
                maybe(chunk, "providerMetadata", _provider_metadata(rng), 0.2)
                maybe(chunk, "title", "Late title", 0.1)
                chunks.append(chunk)
            elif roll < 0.45:
                approval = fresh("ap")
                approvals.append(approval)
                chunk = {"type": "tool-approval-request", "approvalId": approval, "toolCallId": call}
                maybe(chunk, "isAutomatic", rng.random() < 0.5, 0.3)
                maybe(chunk, "signature", "s1", 0.3)
                chunks.append(chunk)
            elif roll < 0.55 and approvals:
                chunk = {
                    "type": "tool-approval-response",
                    "approvalId": rng.choice(approvals),
                    "approved": rng.random() < 0.7,
                }
                maybe(chunk, "reason", "ok", 0.3)
                maybe(chunk, "providerExecuted", True, 0.2)
                chunks.append(chunk)
            elif roll < 0.8:
                chunk = {
                    "type": "tool-output-available",
                    "toolCallId": call,
                    "output": {"result": rng.randint(0, 9)},
                }
                maybe(chunk, "preliminary", rng.random() < 0.5, 0.4)
                maybe(chunk, "providerMetadata", _provider_metadata(rng), 0.2)
                chunks.append(chunk)
            elif roll < 0.9:
                chunks.append({"type": "tool-output-error", "toolCallId": call, "errorText": "it failed"})
            elif roll < 0.95:
                chunks.append({"type": "tool-output-denied", "toolCallId": call})
            else:
                chunk = {
                    "type": "tool-input-error",
                    "toolCallId": call if rng.random() < 0.7 else fresh("call"),
                    "toolName": name,
                    "input": "{not json",
                    "errorText": "invalid input",
                }
                maybe(chunk, "dynamic", True, 0.3)
                chunks.append(chunk)
        elif kind == "data":
            chunk = {"type": rng.choice(["data-weather", "data-status"]), "data": {"v": rng.randint(0, 9)}}
            maybe(chunk, "id", rng.choice(["d1", "d2", "d3"]), 0.7)
            maybe(chunk, "transient", rng.random() < 0.5, 0.2)
            chunks.append(chunk)
        elif kind == "source":
            if rng.random() < 0.5:
                chunk = {"type": "source-url", "sourceId": fresh("s"), "url": "https://example.com"}
                maybe(chunk, "title", "Example", 0.5)
            else:
                chunk = {
                    "type": "source-document",
                    "sourceId": fresh("s"),
                    "mediaType": "text/plain",
                    "title": "Doc",
                }
                maybe(chunk, "filename", "doc.txt", 0.5)
            maybe(chunk, "providerMetadata", _provider_metadata(rng), 0.2)
            chunks.append(chunk)
        elif kind == "file":
            chunk = {
                "type": rng.choice(["file", "reasoning-file", "custom"]),
                "url": "data:image/png;base64,iVBORw0KGgo=",
                "mediaType": "image/png",
            }
            if chunk["type"] == "custom":
                chunk = {"type": "custom", "kind": "acme.widget"}
            maybe(chunk, "providerMetadata", _provider_metadata(rng), 0.3)
            chunks.append(chunk)
        elif kind == "step":
            if any(fragments.values()):
                continue  # a call's input is streaming: see the module's rule
            chunks.append({"type": rng.choice(["start-step", "finish-step", "finish-step", "reset-step"])})
            if chunks[-1]["type"] != "start-step":
                text_ids.clear()  # no longer streaming
                reasoning_ids.clear()
            if chunks[-1]["type"] == "start-step":
                step += 1
            if chunks[-1]["type"] == "reset-step":
                # The step's calls are gone; calls of earlier steps stay, and
                # are found in them.
                fragments.clear()
                calls = {call: state for call, state in calls.items() if not state.startswith(f"{step}:")}
        elif kind == "metadata":
            chunks.append({"type": "message-metadata", "messageMetadata": _metadata(rng)})
        elif kind == "error":
            chunks.append(rng.choice([{"type": "error", "errorText": "rate limited"}, {"type": "abort"}]))
    for call, left in fragments.items():
        chunks.extend(
            {"type": "tool-input-delta", "toolCallId": call, "inputTextDelta": piece} for piece in left
        )
    finish: dict[str, Any] = {"type": "finish"}
    maybe(finish, "finishReason", rng.choice(["stop", "tool-calls", "length"]), 0.7)
    maybe(finish, "messageMetadata", _metadata(rng), 0.4)
    if rng.random() < 0.9:
        chunks.append({"type": "finish-step"})
        chunks.append(finish)
    if not valid:
        at = rng.choice([*quiet, len(chunks)])
        chunks.insert(
            at,
            rng.choice(
                [
                    {"type": "text-delta", "id": "nowhere", "delta": "x"},
                    {"type": "reasoning-end", "id": "nowhere"},
                    {"type": "tool-input-delta", "toolCallId": "nowhere", "inputTextDelta": "{"},
                    {"type": "tool-output-available", "toolCallId": "nowhere", "output": 1},
                    {"type": "tool-approval-response", "approvalId": "nowhere", "approved": True},
                ]
            ),
        )
    return chunks
