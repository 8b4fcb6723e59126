"""A run of the agent as langgraph-api streams a thread's run of a graph of
one node: the modes a request asks for, its input messages as the thread's
values hold them, and the run's events rewritten so."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any

from .._backend import impl
from ._callback_events import EVENTS_MODE, CallbackEvents
from ._legacy import LegacyMessages
from ._steps import STEP_MODES, Steps

__all__ = ["as_the_threads", "asked_modes", "inputs_of", "serialized"]

# The modes this endpoint writes, by what a request asks for.
_MODES = {
    "values": {"values"},
    "updates": {"updates"},
    "messages": {"messages"},
    "messages-tuple": {"messages"},
    **{mode: {mode} for mode in STEP_MODES},
    EVENTS_MODE: {EVENTS_MODE},
}
# The serialized message types of LangChain's roles.
_TYPES = {
    "user": "human",
    "human": "human",
    "assistant": "ai",
    "ai": "ai",
    "system": "system",
    "developer": "system",
    "tool": "tool",
}


def serialized(message: Any) -> dict[str, Any]:
    """An input message as the thread's values hold it (LangChain's serialized form)."""
    if isinstance(message, str):
        message = {"role": "user", "content": message}
    role = message.get("role", message.get("type"))
    kept: dict[str, Any] = {
        "content": message.get("content", ""),
        "additional_kwargs": message.get("additional_kwargs") or {},
        "response_metadata": message.get("response_metadata") or {},
        "type": _TYPES.get(role, role),
        "name": message.get("name"),
        "id": message.get("id") or str(uuid.uuid4()),
    }
    if kept["type"] == "tool":
        kept["tool_call_id"] = message.get("tool_call_id")
    return kept


def inputs_of(body: Mapping[str, Any]) -> list[dict[str, Any]]:
    given = body.get("input")
    if isinstance(given, Mapping) and "messages" in given:
        given = given["messages"]
    items = given if isinstance(given, list) else [given]
    return [serialized(item) for item in items]


def asked_modes(body: Mapping[str, Any]) -> tuple[set[str], bool]:
    """The events a request's ``stream_mode`` asks for (langgraph-sdk's
    default is ``values``), and whether its messages are the legacy mode's
    (``messages`` asked for, ``messages-tuple`` not: langgraph-api writes
    the tuples when both are)."""
    modes = body.get("stream_mode", "values")
    names = [modes] if isinstance(modes, str) else modes if isinstance(modes, list) else []
    kept = {"metadata", "error"}
    for name in names:
        kept |= _MODES.get(name, set()) if isinstance(name, str) else set()
    return kept, "messages" in names and "messages-tuple" not in names


async def as_the_threads(
    frames: AsyncIterator[bytes],
    before: list[Any],
    modes: set[str],
    node: str,
    cancelled: Callable[[], bool],
    *,
    legacy: LegacyMessages | None = None,
    unsent_values: Callable[[bytes], Awaitable[object]] | None = None,
    steps: Steps | None = None,
    callbacks: CallbackEvents | None = None,
) -> AsyncIterator[bytes]:
    """The run's events as langgraph-api streams a thread's run of a graph
    of one node, ``node``: only the modes asked for; after the run's
    metadata, the thread's values as the run starts (``before``: its
    messages so far and the input); at its end, the node's update (the
    messages it added), then the thread's values holding them after those
    before; unless the run was ``cancelled``: a node cut short writes no
    update, and the thread stays as the run found it. Its messages are the
    legacy mode's when ``legacy`` rewrites them. The values, when not asked
    for, are given to ``unsent_values`` instead. ``steps`` writes the
    checkpoints and the node's task, if asked for, and ``callbacks`` the
    ``events`` mode's callbacks. (A chunk holds whole
    events; once the run has started, one that needs none of this passes
    untouched.)"""
    filtered = not {"messages", "values"} <= modes or legacy is not None or callbacks is not None
    kept = "values" in modes
    started = False
    async for chunk in frames:
        if started and not filtered and b"event: values\n" not in chunk:
            yield chunk
            continue
        decoder = impl.SSEDecoder(max_line_bytes=None, max_event_bytes=None)
        out = []
        for event in [*decoder.feed(chunk), *decoder.close()]:
            if event.event == "messages" and callbacks is not None and started:
                out.append(callbacks.message(json.loads(event.data)))
            if event.event == "values":
                if cancelled():
                    continue
                data = json.loads(event.data)
                if isinstance(data, dict):
                    added = data.get("messages", [])
                    if "updates" in modes:
                        out.append(bytes(impl.encode_sse({node: {"messages": added}}, event="updates")))
                    if steps is not None:
                        out.append(steps.result({"messages": added}, data.get("__interrupt__")))
                    data["messages"] = [*before, *added]
                if kept:
                    out.append(bytes(impl.encode_sse(data, event="values")))
                elif unsent_values is not None:
                    await unsent_values(bytes(impl.encode_sse(data, event="values")))
                if steps is not None and isinstance(data, dict):
                    out.append(steps.ended(data))
                if callbacks is not None and isinstance(data, dict):
                    out.append(callbacks.ended({"messages": added}, data))
            elif event.event == "error" and steps is not None and started:
                error = json.loads(event.data)
                out.append(steps.failed(error) + bytes(impl.encode_sse(error, event="error")))
            elif event.event == "messages" and legacy is not None:
                out.append(legacy.rewrite(json.loads(event.data)))
            elif event.event in modes:
                out.append(bytes(impl.encode_sse(json.loads(event.data), event=event.event)))
            if event.event == "metadata" and not started:
                started = True
                if steps is not None:
                    out.append(steps.input())
                first = bytes(impl.encode_sse({"messages": before}, event="values"))
                if kept:
                    out.append(first)
                elif unsent_values is not None:
                    await unsent_values(first)
                if steps is not None:
                    out.append(steps.started({"messages": before}))
                if callbacks is not None:
                    out.append(callbacks.started({"messages": before}))
        if out:
            yield b"".join(out)
