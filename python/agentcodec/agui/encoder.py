"""Writing AG-UI events as SSE, byte for byte as ag-ui-protocol's own
``EventEncoder`` writes them.

ag-ui-protocol serialises each event with pydantic
(``data: {event.model_dump_json(by_alias=True)}\\n\\n``): the model's fields
in declaration order under their camelCase aliases, optional fields without
a value left out (never ``null``), defaults written (``"role":"reasoning"``,
a tool call's ``"type":"function"``), nested models likewise, unknown keys
kept after the known ones, floats as pydantic formats them. ``encode`` does
the same from plain dicts, in either spelling, without building a model;
``text_message_content`` and ``tool_call_args`` write the hot events
straight to bytes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .. import _json
from .._backend import impl

__all__ = ["EventEncoder", "encode", "encode_event", "text_message_content", "tool_call_args"]

_REQUIRED = object()  # a field without a default
_OPTIONAL = None  # a field whose default is None: left out when it has no value


class _Model:
    """A pydantic model's fields, as ag-ui-protocol declares them: each as
    (camelCase alias, snake_case name, default, nested model)."""

    __slots__ = ("by_key", "fields")

    def __init__(self, *fields: tuple[str, Any] | tuple[str, Any, Any]) -> None:
        self.fields: list[tuple[str, str, Any, Any]] = []
        for field in fields:
            alias, default = field[0], field[1]
            nested = field[2] if len(field) > 2 else None
            self.fields.append((alias, _snake(alias), default, nested))
        self.by_key = {key for alias, name, _, _ in self.fields for key in (alias, name)}


class _Union:
    """A discriminated union: the model named by the value of ``key``."""

    __slots__ = ("key", "models")

    def __init__(self, key: str, models: dict[str, _Model]) -> None:
        self.key = key
        self.models = models


class _ListOf:
    __slots__ = ("item",)

    def __init__(self, item: Any) -> None:
        self.item = item


class _TextOrParts:
    """``str | list[ContentPart]``."""


def _snake(alias: str) -> str:
    out = []
    for char in alias:
        if char.isupper():
            out.append("_")
            out.append(char.lower())
        else:
            out.append(char)
    return "".join(out)


R, OPT = _REQUIRED, _OPTIONAL
_SOURCE = _Union(
    "type",
    {
        "data": _Model(("type", "data"), ("value", R), ("mimeType", R)),
        "url": _Model(("type", "url"), ("value", R), ("mimeType", OPT)),
        "file": _Model(("type", "file"), ("value", R), ("provider", OPT), ("mimeType", OPT)),
    },
)
_PART = _Union(
    "type",
    {
        "text": _Model(("type", "text"), ("id", OPT), ("text", R), ("metadata", OPT)),
        **{
            kind: _Model(("type", kind), ("id", OPT), ("source", R, _SOURCE), ("metadata", OPT))
            for kind in ("image", "audio", "video", "document")
        },
    },
)
_TEXT_OR_PARTS = _TextOrParts()
_TOOL_CALL = _Model(
    ("id", R),
    ("type", "function"),
    ("function", R, _Model(("name", R), ("arguments", R))),
    ("encryptedValue", OPT),
    ("metadata", OPT),
)
_MESSAGE = _Union(
    "role",
    {
        "developer": _Model(
            ("subagentRunId", OPT),
            ("id", R),
            ("role", "developer"),
            ("name", OPT),
            ("encryptedValue", OPT),
            ("metadata", OPT),
            ("content", R),
        ),
        "system": _Model(
            ("subagentRunId", OPT),
            ("id", R),
            ("role", "system"),
            ("name", OPT),
            ("encryptedValue", OPT),
            ("metadata", OPT),
            ("content", R),
        ),
        "assistant": _Model(
            ("subagentRunId", OPT),
            ("id", R),
            ("role", "assistant"),
            ("name", OPT),
            ("encryptedValue", OPT),
            ("metadata", OPT),
            ("content", OPT),
            ("toolCalls", OPT, _ListOf(_TOOL_CALL)),
        ),
        "user": _Model(
            ("subagentRunId", OPT),
            ("id", R),
            ("role", "user"),
            ("name", OPT),
            ("encryptedValue", OPT),
            ("metadata", OPT),
            ("content", R, _TEXT_OR_PARTS),
        ),
        "tool": _Model(
            ("subagentRunId", OPT),
            ("id", R),
            ("role", "tool"),
            ("content", R, _TEXT_OR_PARTS),
            ("toolCallId", R),
            ("error", OPT),
            ("encryptedValue", OPT),
            ("metadata", OPT),
        ),
        "activity": _Model(
            ("subagentRunId", OPT),
            ("id", R),
            ("role", "activity"),
            ("activityType", R),
            ("content", R),
            ("metadata", OPT),
        ),
        "reasoning": _Model(
            ("subagentRunId", OPT),
            ("id", R),
            ("role", "reasoning"),
            ("content", R),
            ("encryptedValue", OPT),
            ("metadata", OPT),
        ),
    },
)
_PATCH = _ListOf(
    _Union(
        "op",
        {
            "add": _Model(("op", "add"), ("path", R), ("value", R)),
            "remove": _Model(("op", "remove"), ("path", R)),
            "replace": _Model(("op", "replace"), ("path", R), ("value", R)),
            "move": _Model(("op", "move"), ("from", R), ("path", R)),
            "copy": _Model(("op", "copy"), ("from", R), ("path", R)),
            "test": _Model(("op", "test"), ("path", R), ("value", R)),
        },
    )
)
_USAGE = _ListOf(
    _Model(
        ("provider", OPT),
        ("model", OPT),
        ("inputTokens", OPT),
        ("outputTokens", OPT),
        ("totalTokens", OPT),
        ("reasoningTokens", OPT),
        ("cachedInputTokens", OPT),
        ("cacheWriteInputTokens", OPT),
    )
)
_INTERRUPT = _Model(
    ("subagentRunId", OPT),
    ("id", R),
    ("reason", R),
    ("message", OPT),
    ("toolCallId", OPT),
    ("responseSchema", OPT),
    ("expiresAt", OPT),
    ("metadata", OPT),
)
_RUN_OUTCOME = _Union(
    "type",
    {
        "success": _Model(("type", "success"), ("pendingToolCallIds", OPT)),
        "interrupt": _Model(("type", "interrupt"), ("interrupts", R, _ListOf(_INTERRUPT))),
        "cancelled": _Model(("type", "cancelled")),
    },
)
_SUBAGENT_OUTCOME = _Union(
    "type",
    {
        "success": _Model(("type", "success")),
        "suspended": _Model(("type", "suspended"), ("interruptIds", OPT)),
    },
)
_RUN_AGENT_INPUT = _Model(
    ("threadId", R),
    ("runId", R),
    ("protocolVersion", OPT),
    ("parentRunId", OPT),
    ("state", OPT),
    ("messages", R, _ListOf(_MESSAGE)),
    ("tools", OPT, _ListOf(_Model(("name", R), ("description", R), ("parameters", OPT), ("metadata", OPT)))),
    ("context", OPT, _ListOf(_Model(("description", R), ("value", R)))),
    ("forwardedProps", OPT),
    ("resume", OPT, _ListOf(_Model(("interruptId", R), ("status", R), ("payload", OPT), ("metadata", OPT)))),
)

_BASE = (("type", R), ("timestamp", OPT), ("rawEvent", OPT), ("metadata", OPT))
_ATTRIBUTED = (*_BASE, ("subagentRunId", OPT))


def _event(base: tuple[Any, ...], *fields: Any) -> _Model:
    return _Model(*base, *fields)


EVENTS: dict[str, _Model] = {
    "TEXT_MESSAGE_START": _event(_ATTRIBUTED, ("messageId", R), ("role", OPT), ("name", OPT)),
    "TEXT_MESSAGE_CONTENT": _event(_ATTRIBUTED, ("messageId", R), ("delta", R)),
    "TEXT_MESSAGE_END": _event(_ATTRIBUTED, ("messageId", R)),
    "TEXT_MESSAGE_CHUNK": _event(
        _ATTRIBUTED, ("messageId", OPT), ("role", OPT), ("delta", OPT), ("name", OPT)
    ),
    "TOOL_CALL_START": _event(_ATTRIBUTED, ("toolCallId", R), ("toolCallName", R), ("parentMessageId", OPT)),
    "TOOL_CALL_ARGS": _event(_ATTRIBUTED, ("toolCallId", R), ("delta", R)),
    "TOOL_CALL_END": _event(_ATTRIBUTED, ("toolCallId", R)),
    "TOOL_CALL_CHUNK": _event(
        _ATTRIBUTED, ("toolCallId", OPT), ("toolCallName", OPT), ("parentMessageId", OPT), ("delta", OPT)
    ),
    "TOOL_CALL_RESULT": _event(
        _ATTRIBUTED, ("messageId", R), ("toolCallId", R), ("content", R, _TEXT_OR_PARTS), ("role", OPT)
    ),
    "STATE_SNAPSHOT": _event(_ATTRIBUTED, ("snapshot", R)),
    "STATE_DELTA": _event(_ATTRIBUTED, ("delta", R, _PATCH)),
    "MESSAGES_SNAPSHOT": _event(_BASE, ("messages", R, _ListOf(_MESSAGE))),
    "ACTIVITY_SNAPSHOT": _event(
        _ATTRIBUTED, ("messageId", R), ("activityType", R), ("content", R), ("replace", OPT)
    ),
    "ACTIVITY_DELTA": _event(_ATTRIBUTED, ("messageId", R), ("activityType", R), ("patch", R, _PATCH)),
    "RAW": _event(_ATTRIBUTED, ("event", R), ("source", OPT)),
    "CUSTOM": _event(_ATTRIBUTED, ("name", R), ("value", R)),
    "RUN_STARTED": _event(
        _BASE,
        ("threadId", R),
        ("runId", R),
        ("protocolVersion", OPT),
        ("parentRunId", OPT),
        ("input", OPT, _RUN_AGENT_INPUT),
    ),
    "RUN_FINISHED": _event(
        _BASE,
        ("threadId", R),
        ("runId", R),
        ("result", OPT),
        ("outcome", OPT, _RUN_OUTCOME),
        ("usage", OPT, _USAGE),
    ),
    "RUN_ERROR": _event(_BASE, ("message", R), ("code", OPT), ("usage", OPT, _USAGE)),
    "STEP_STARTED": _event(_ATTRIBUTED, ("stepName", R)),
    "STEP_FINISHED": _event(_ATTRIBUTED, ("stepName", R)),
    "REASONING_START": _event(_ATTRIBUTED, ("messageId", R)),
    "REASONING_MESSAGE_START": _event(_ATTRIBUTED, ("messageId", R), ("role", "reasoning")),
    "REASONING_MESSAGE_CONTENT": _event(_ATTRIBUTED, ("messageId", R), ("delta", R)),
    "REASONING_MESSAGE_END": _event(_ATTRIBUTED, ("messageId", R)),
    "REASONING_MESSAGE_CHUNK": _event(_ATTRIBUTED, ("messageId", OPT), ("delta", OPT)),
    "REASONING_END": _event(_ATTRIBUTED, ("messageId", R)),
    "REASONING_ENCRYPTED_VALUE": _event(_ATTRIBUTED, ("subtype", R), ("entityId", R), ("encryptedValue", R)),
    "SUBAGENT_STARTED": _event(
        _BASE,
        ("subagentRunId", R),
        ("name", R),
        ("description", OPT),
        ("parentSubagentRunId", OPT),
        ("parentToolCallId", OPT),
        ("parentMessageId", OPT),
    ),
    "SUBAGENT_FINISHED": _event(
        _BASE, ("subagentRunId", R), ("result", OPT), ("outcome", OPT, _SUBAGENT_OUTCOME)
    ),
    "SUBAGENT_ERROR": _event(_BASE, ("subagentRunId", R), ("message", R), ("code", OPT)),
}
del R, OPT


def _dump(value: Any, shape: Any) -> Any:
    """``value`` as the model ``shape`` serialises it; values that do not fit
    the shape (which the models would refuse) are written as they are."""
    if shape is None or value is None:
        return value
    if isinstance(shape, _ListOf):
        return [_dump(item, shape.item) for item in value] if isinstance(value, list) else value
    if isinstance(shape, _TextOrParts):
        return [_dump(item, _PART) for item in value] if isinstance(value, list) else value
    if not isinstance(value, Mapping):
        return value
    if isinstance(shape, _Union):
        model = shape.models.get(value.get(shape.key))  # type: ignore[arg-type]
        return _fields(value, model) if model is not None else dict(value)
    return _fields(value, shape)


def _fields(value: Mapping[str, Any], model: _Model) -> dict[str, Any]:
    out: dict[str, Any] = {}
    used: set[str] = set()
    for alias, name, default, nested in model.fields:
        # The alias wins; the snake_case name is read when the alias is absent.
        if alias in value:
            key = alias
        elif name in value:
            key = name
        else:
            if default is not _REQUIRED and default is not None:
                out[alias] = default
            continue
        used.add(key)
        item = value[key]
        if item is None and default is None:
            continue  # an optional field without a value is left out
        out[alias] = _dump(item, nested)
    for key, item in value.items():
        if key not in used:
            out[key] = item  # unknown keys (and a name shadowed by its alias) are kept
    return out


def encode_event(event: Mapping[str, Any]) -> dict[str, Any]:
    """The event as ag-ui-protocol serialises it: camelCase keys in the
    models' order, optional fields without a value left out, defaults
    written, unknown keys kept after the known ones."""
    model = EVENTS.get(event.get("type"))  # type: ignore[arg-type]
    return _fields(event, model) if model is not None else dict(event)


def encode(event: Mapping[str, Any]) -> bytes:
    """One AG-UI event as SSE bytes, exactly as ag-ui-protocol's
    ``EventEncoder`` writes it: ``data: <json>\\n\\n``."""
    return b"data: " + _json.dumps(encode_event(event)).encode() + b"\n\n"


def text_message_content(message_id: str, delta: str) -> bytes:
    """A TEXT_MESSAGE_CONTENT event as SSE bytes, written directly: the same
    bytes as ``encode({"type": "TEXT_MESSAGE_CONTENT", ...})``."""
    prefix = '{"type":"TEXT_MESSAGE_CONTENT","messageId":' + _json.dumps(message_id) + ',"delta":'
    return _frame("data: " + prefix, delta, "}\n\n")


def tool_call_args(tool_call_id: str, delta: str) -> bytes:
    """A TOOL_CALL_ARGS event as SSE bytes, written directly."""
    prefix = '{"type":"TOOL_CALL_ARGS","toolCallId":' + _json.dumps(tool_call_id) + ',"delta":'
    return _frame("data: " + prefix, delta, "}\n\n")


_frame: Callable[[str, str, str], bytes] = impl.frame_json_string


class EventEncoder:
    """A drop-in for ag-ui-protocol's ``ag_ui.encoder.EventEncoder``, for
    plain dicts: ``encode`` returns the same text."""

    def __init__(self, accept: str | None = None) -> None:
        # ag-ui-protocol's Python encoder writes SSE whatever is accepted.
        self.accept = accept

    def get_content_type(self) -> str:
        return "text/event-stream"

    def encode(self, event: Mapping[str, Any]) -> str:
        return encode(event).decode()
