"""Hypothesis strategies for AG-UI event streams: well-formed events whose
ids come from small pools, so that streams start, continue, interleave,
reference messages that were never started, and patch state that may not
fit, as real and broken producers do."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

message_ids = st.sampled_from(["m1", "m2", "m3", "tc1"])
call_ids = st.sampled_from(["tc1", "tc2", "tc3"])
words = st.text(st.characters(blacklist_categories=("Cs",)), max_size=5)
keys = st.sampled_from(["a", "b", "c", "list"])
scalars = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from([1.5, 0.25]), words)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(keys, inner, max_size=3),
    max_leaves=8,
)
metadata = st.dictionaries(st.sampled_from(["usage", "model", "k"]), scalars, max_size=2)
pointers = st.lists(st.sampled_from(["a", "b", "list", "0", "1", "-"]), min_size=1, max_size=2).map(
    lambda parts: "/" + "/".join(parts)
)


@st.composite
def patch_operations(draw: st.DrawFn) -> dict[str, Any]:
    op = draw(st.sampled_from(["add", "remove", "replace", "move", "copy", "test"]))
    operation: dict[str, Any] = {"op": op, "path": draw(pointers)}
    if op in ("move", "copy"):
        operation["from"] = draw(pointers)
    if op in ("add", "replace", "test"):
        operation["value"] = draw(values)
    return operation


def _with_metadata(draw: st.DrawFn, event: dict[str, Any]) -> dict[str, Any]:
    if draw(st.integers(0, 4)) == 0:
        event["metadata"] = draw(metadata)
    return event


@st.composite
def agui_events(draw: st.DrawFn) -> dict[str, Any]:
    """One well-formed AG-UI event (its required fields present and typed)."""
    kind = draw(
        st.sampled_from(
            [
                "TEXT_MESSAGE_START",
                "TEXT_MESSAGE_CONTENT",
                "TEXT_MESSAGE_CONTENT",
                "TEXT_MESSAGE_END",
                "TEXT_MESSAGE_CHUNK",
                "TOOL_CALL_START",
                "TOOL_CALL_ARGS",
                "TOOL_CALL_ARGS",
                "TOOL_CALL_END",
                "TOOL_CALL_CHUNK",
                "TOOL_CALL_RESULT",
                "REASONING_MESSAGE_START",
                "REASONING_MESSAGE_CONTENT",
                "REASONING_MESSAGE_END",
                "REASONING_MESSAGE_CHUNK",
                "REASONING_ENCRYPTED_VALUE",
                "STATE_SNAPSHOT",
                "STATE_DELTA",
                "MESSAGES_SNAPSHOT",
                "ACTIVITY_SNAPSHOT",
                "ACTIVITY_DELTA",
                "RUN_STARTED",
                "RUN_FINISHED",
                "RUN_ERROR",
                "STEP_STARTED",
                "RAW",
                "CUSTOM",
            ]
        )
    )
    event: dict[str, Any] = {"type": kind}
    if kind in ("TEXT_MESSAGE_START", "REASONING_MESSAGE_START"):
        event["messageId"] = draw(message_ids)
        if kind == "TEXT_MESSAGE_START" and draw(st.booleans()):
            event["role"] = draw(st.sampled_from(["assistant", "user", "system", "developer"]))
    elif kind in ("TEXT_MESSAGE_CONTENT", "REASONING_MESSAGE_CONTENT"):
        event["messageId"] = draw(message_ids)
        event["delta"] = draw(words)
    elif kind in ("TEXT_MESSAGE_END", "REASONING_MESSAGE_END"):
        event["messageId"] = draw(message_ids)
    elif kind in ("TEXT_MESSAGE_CHUNK", "REASONING_MESSAGE_CHUNK"):
        if draw(st.booleans()):
            event["messageId"] = draw(message_ids)
        if draw(st.booleans()):
            event["delta"] = draw(words)
    elif kind == "TOOL_CALL_START":
        event["toolCallId"] = draw(call_ids)
        event["toolCallName"] = draw(st.sampled_from(["f", "g"]))
        if draw(st.booleans()):
            event["parentMessageId"] = draw(message_ids)
    elif kind == "TOOL_CALL_ARGS":
        event["toolCallId"] = draw(call_ids)
        event["delta"] = draw(words)
    elif kind == "TOOL_CALL_END":
        event["toolCallId"] = draw(call_ids)
    elif kind == "TOOL_CALL_CHUNK":
        if draw(st.booleans()):
            event["toolCallId"] = draw(call_ids)
            event["toolCallName"] = draw(st.sampled_from(["f", "g"]))
        if draw(st.booleans()):
            event["delta"] = draw(words)
    elif kind == "TOOL_CALL_RESULT":
        event.update(messageId=draw(st.sampled_from(["r1", "r2", "m1"])), toolCallId=draw(call_ids))
        event["content"] = draw(words | st.just([{"type": "text", "text": "x"}]))
    elif kind == "REASONING_ENCRYPTED_VALUE":
        subtype = draw(st.sampled_from(["message", "tool-call"]))
        entity = draw(message_ids if subtype == "message" else call_ids)
        event.update(subtype=subtype, entityId=entity, encryptedValue=draw(words))
    elif kind == "STATE_SNAPSHOT":
        event["snapshot"] = draw(st.dictionaries(keys, values, max_size=3))
    elif kind == "STATE_DELTA":
        event["delta"] = draw(st.lists(patch_operations(), max_size=3))
    elif kind == "MESSAGES_SNAPSHOT":
        event["messages"] = draw(
            st.lists(
                st.fixed_dictionaries(
                    {
                        "id": st.sampled_from(["m1", "m2", "u1", "tc1"]),
                        "role": st.sampled_from(["assistant", "user", "reasoning", "activity"]),
                        "content": words,
                    }
                ),
                max_size=3,
            )
        )
    elif kind == "ACTIVITY_SNAPSHOT":
        event.update(messageId=draw(st.sampled_from(["act1", "m1"])), activityType="PLAN")
        event["content"] = draw(st.dictionaries(keys, values, max_size=2))
        if draw(st.booleans()):
            event["replace"] = draw(st.booleans())
    elif kind == "ACTIVITY_DELTA":
        event.update(messageId=draw(st.sampled_from(["act1", "m1"])), activityType="PLAN")
        event["patch"] = draw(st.lists(patch_operations(), max_size=2))
    elif kind == "RUN_STARTED":
        event.update(threadId="t", runId=draw(st.sampled_from(["r1", "r2"])))
    elif kind == "RUN_FINISHED":
        event.update(threadId="t", runId="r1")
        if draw(st.booleans()):
            event["result"] = draw(values)
    elif kind == "RUN_ERROR":
        event["message"] = draw(words)
    elif kind == "STEP_STARTED":
        event["stepName"] = draw(words)
    elif kind == "RAW":
        event["event"] = draw(values)
    else:
        event.update(name="n", value=draw(values))
    return _with_metadata(draw, event)


agui_streams = st.lists(agui_events(), max_size=25)
