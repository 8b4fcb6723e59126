"""Assembling a LangGraph Agent Server stream (langgraph-api's
``/runs/stream``, any stream modes) into what the run leaves: the
pure-Python mirror of ``rust/langgraph/assembler.rs``.

The result holds the run's id (the ``metadata`` event), and for the root
graph (and under ``namespaces``, for each subgraph that streamed) its last
``values`` (the thread's state after the run, when the run streamed its
values), its interrupts (the last ``__interrupt__`` of its ``values`` or
``updates``) and its messages:

- ``messages`` (``messages-tuple``): each message's chunks added as
  langchain-core adds them (``AIMessageChunk.__add__``), so that the message
  is the one the model's own ``invoke`` makes of them and the graph keeps,
  serialized as the server serializes it (``type: "ai"``, tool calls parsed
  from their chunks); a whole message (a tool's) is kept as it came.
  langchain-core ends a streamed message with an empty chunk marked
  ``chunk_position: "last"``, whose id is its run's when the provider's
  chunks had their own: it ends the message streamed before it;
- ``messages/partial`` and ``messages/complete`` (the legacy mode): each
  message as the server last sent it whole (the empty message with a run's
  id that ends another is dropped alike).

An ``error`` event is the run's ``error``, recorded; what came before it
stands.
"""

from __future__ import annotations

from typing import Any

from ..._json import dumps
from ..accumulate import render
from ..article import article
from ..json_values import JSONValueError, json_kind, loads
from ..partial_json import PartialJSON
from ..stream import AssemblerBase, EventProblemError
from .errors import LangGraphError, LangGraphEventError
from .merge import (
    LC_RUN_PREFIX,
    Held,
    MergeError,
    add_usage,
    best_id,
    hold,
    merge_content,
    merge_dicts,
    merge_lists,
)
from .wire import CHUNK_TYPES, Part, read, recognizes

__all__ = ["Assembler", "ChunkedMessage", "empty_end"]

ROOT = ""


class ChunkedMessage:
    """An AI message being added up from its chunks."""

    __slots__ = (
        "additional_kwargs",
        "chunks",
        "content",
        "id",
        "name",
        "response_metadata",
        "tool_call_chunks",
        "usage_metadata",
    )

    def __init__(self, chunk: dict[str, Any]) -> None:
        _check(chunk)
        self.chunks = 1
        content = chunk.get("content")
        self.content: Any = hold(content) if isinstance(content, list) else (content or "")
        self.additional_kwargs: dict[str, Any] = hold(chunk.get("additional_kwargs") or {})
        self.response_metadata: dict[str, Any] = hold(chunk.get("response_metadata") or {})
        # (one chunk's tool-call chunks are kept as they are: only adding merges)
        self.tool_call_chunks = Held(hold(item) for item in _tool_call_chunks(chunk))
        usage = chunk.get("usage_metadata")
        self.usage_metadata: dict[str, Any] | None = hold(usage) if usage else None
        self.id: str | None = chunk.get("id") if isinstance(chunk.get("id"), str) and chunk["id"] else None
        self.name = chunk.get("name")

    def add(self, chunk: dict[str, Any]) -> None:
        _check(chunk)
        self.chunks += 1
        content = chunk.get("content")
        self.content = merge_content(self.content, "" if content is None else content)
        merge_dicts(self.additional_kwargs, chunk.get("additional_kwargs") or {})
        merge_dicts(self.response_metadata, chunk.get("response_metadata") or {})
        merge_lists(self.tool_call_chunks, _tool_call_chunks(chunk))
        self.usage_metadata = add_usage(self.usage_metadata, chunk.get("usage_metadata"))
        self.id = best_id(self.id, chunk.get("id"))

    def blocks(self) -> int:
        """The content blocks and tool-call chunks it holds (``max_blocks``)."""
        content = len(self.content) if isinstance(self.content, Held) else 0
        return content + len(self.tool_call_chunks)

    def message(self) -> dict[str, Any]:
        """The message, as the server serializes the one the graph keeps."""
        tool_calls: list[dict[str, Any]] = []
        invalid: list[dict[str, Any]] = []
        for chunk in self.tool_call_chunks:
            args = render(chunk.get("args"))
            parsed = _arguments(args) if args else {}
            name, call_id = render(chunk.get("name")), render(chunk.get("id"))
            if isinstance(parsed, dict):
                tool_calls.append({"name": name or "", "args": parsed, "id": call_id, "type": "tool_call"})
            else:
                invalid.append(
                    {"name": name, "args": args, "id": call_id, "error": None, "type": "invalid_tool_call"}
                )
        return {
            "content": render(self.content),
            "additional_kwargs": render(self.additional_kwargs),
            "response_metadata": render(self.response_metadata),
            "type": "ai",
            # (adding chunks keeps no name: a message of one chunk has its own)
            "name": render(self.name) if self.chunks == 1 else None,
            "id": self.id,
            "tool_calls": tool_calls,
            "invalid_tool_calls": invalid,
            "usage_metadata": render(self.usage_metadata),
        }


def _check(chunk: dict[str, Any]) -> None:
    """Refuses a chunk whose fields are not of the types langchain-core's are."""
    content = chunk.get("content")
    if content is not None and not isinstance(content, (str, list)):
        raise EventProblemError(f"has content that is {json_kind(content)}, not a string or a list")
    for key in ("additional_kwargs", "response_metadata", "usage_metadata"):
        value = chunk.get(key)
        if value is not None and not isinstance(value, dict):
            raise EventProblemError(f"has {article(key)} {key} that is {json_kind(value)}, not an object")
    for key in ("tool_call_chunks", "tool_calls", "invalid_tool_calls"):
        value = chunk.get(key)
        if value is not None and not (
            isinstance(value, list) and all(isinstance(item, dict) for item in value)
        ):
            raise EventProblemError(f"has {key} that are not a list of objects")


def _tool_call_chunks(chunk: dict[str, Any]) -> list[dict[str, Any]]:
    """A chunk's tool-call chunks; a chunk with none but whole tool calls
    has them as chunks, as langchain-core makes them (their arguments as
    JSON text, no index)."""
    chunks = chunk.get("tool_call_chunks")
    if chunks:
        return [
            {
                "name": item.get("name"),
                "args": item.get("args"),
                "id": item.get("id"),
                "index": item.get("index"),
            }
            for item in chunks
        ]
    made = []
    for call in chunk.get("tool_calls") or ():
        # (as JSON text, parsed again when the message is made)
        made.append(
            {"name": call.get("name"), "args": dumps(call.get("args")), "id": call.get("id"), "index": None}
        )
    for call in chunk.get("invalid_tool_calls") or ():
        made.append({"name": call.get("name"), "args": call.get("args"), "id": call.get("id"), "index": None})
    return made


def _arguments(text: Any) -> Any:
    """A call's arguments as langchain-core's ``parse_partial_json`` reads
    them: the JSON, or what its prefix holds; None when it holds nothing."""
    if not isinstance(text, str):
        return None
    try:
        return loads(text)
    except JSONValueError:
        pass
    parser = PartialJSON()
    try:
        parser.feed(text.encode())
    except ValueError:
        return None
    return parser.value


def _blocks(held: ChunkedMessage | dict[str, Any]) -> int:
    """The blocks a message holds (``max_blocks``): its content's, and its tool calls."""
    if isinstance(held, ChunkedMessage):
        return held.blocks()
    return sum(
        len(value)
        for key in ("content", "tool_calls", "invalid_tool_calls")
        if isinstance(value := held.get(key), list)
    )


def empty_end(message: dict[str, Any]) -> bool:
    """The empty message langchain-core ends another with (its run's id)."""
    content = message.get("content")
    return (
        not content
        and isinstance(message.get("id"), str)
        and message["id"].startswith(LC_RUN_PREFIX)
        and not message.get("tool_call_chunks")
        and not message.get("tool_calls")
        and not message.get("invalid_tool_calls")
    )


class _Namespace:
    __slots__ = ("interrupts", "last", "messages", "values")

    def __init__(self) -> None:
        self.values: Any = None
        self.interrupts: list[Any] = []
        # Each message by id, in the order first seen: a ChunkedMessage, or a whole message.
        self.messages: dict[str, ChunkedMessage | dict[str, Any]] = {}
        self.last: str | None = None  # the id of the message streamed last

    def result(self) -> dict[str, Any]:
        """A new, independent copy of what the graph left."""
        return {
            "values": render(self.values),
            "messages": [
                held.message() if isinstance(held, ChunkedMessage) else render(held)
                for held in self.messages.values()
            ],
            "interrupts": render(self.interrupts),
        }


class Assembler(AssemblerBase):
    """Assembles a LangGraph Agent Server stream into what the run leaves."""

    _recognizes = staticmethod(recognizes)

    _event_error = LangGraphEventError
    _base_error = LangGraphError
    _framing = "named"

    def _init_state(self) -> None:
        self._run_id: str | None = None
        self._error: Any = None
        self._namespaces: dict[str, _Namespace] = {ROOT: _Namespace()}
        self._message_total = 0

    # --- output --------------------------------------------------------------

    def _result(self) -> dict[str, Any]:
        root = self._namespaces[ROOT].result()
        return {
            "run_id": self._run_id,
            **root,
            "error": render(self._error),
            "namespaces": {
                name: namespace.result() for name, namespace in self._namespaces.items() if name != ROOT
            },
        }

    @property
    def run(self) -> dict[str, Any]:
        """What the run left so far: a new dict on every access."""
        return self._result()

    @property
    def values(self) -> Any:
        """The root graph's last values: the thread's state (None before any)."""
        return render(self._namespaces[ROOT].values)

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The root graph's messages so far: a new list on every access."""
        messages: list[dict[str, Any]] = self._namespaces[ROOT].result()["messages"]
        return messages

    @property
    def interrupts(self) -> list[Any]:
        """The root graph's interrupts: what the run waits for."""
        return render(self._namespaces[ROOT].interrupts)  # type: ignore[no-any-return]

    @property
    def run_id(self) -> str | None:
        """The run's id (the metadata event's)."""
        return self._run_id

    @property
    def error(self) -> Any:
        """The ``error`` event's data, if the run failed."""
        return render(self._error)

    # --- for the driver ------------------------------------------------------

    def _message_count(self) -> int:
        return self._message_total

    def _apply_object(self, event: dict[str, Any]) -> None:
        part = read(event)
        if not isinstance(part, Part):
            raise EventProblemError(part)
        mode, data = part.mode, part.data
        if mode == "metadata":
            if isinstance(data, dict) and isinstance(data.get("run_id"), str):
                self._run_id = data["run_id"]
            return
        if mode == "error":
            self._error = data
            message = data.get("message") if isinstance(data, dict) else data
            code = data.get("error") if isinstance(data, dict) else None
            self._record(
                {
                    "event": self._events,
                    "code": code if isinstance(code, str) else "error",
                    "message": message if isinstance(message, str) else dumps(message),
                }
            )
            return
        namespace = self._namespaces.get(part.namespace)
        if namespace is None:
            namespace = self._namespaces[part.namespace] = _Namespace()
        if mode == "values":
            if not isinstance(data, dict):
                raise EventProblemError(f"holds values that are {json_kind(data)}, not an object")
            values = dict(data)
            interrupts = values.pop("__interrupt__", None)
            namespace.values = values
            found = part.interrupts if part.interrupts is not None else interrupts
            namespace.interrupts = list(found) if isinstance(found, list) else []
        elif mode == "updates":
            if isinstance(data, dict) and isinstance(data.get("__interrupt__"), list):
                namespace.interrupts = list(data["__interrupt__"])
        elif mode == "messages":
            self._messages_tuple(namespace, data)
        elif mode in ("messages/partial", "messages/complete"):
            if not isinstance(data, list):
                raise EventProblemError(f"holds {json_kind(data)}, not a list of messages")
            for message in data:
                self._whole(namespace, message)

    def _whole(self, namespace: _Namespace, message: Any) -> None:
        """A whole message: it replaces the one of its id."""
        if not isinstance(message, dict) or not isinstance(message.get("id"), str):
            raise EventProblemError("holds a message that is not an object with an id")
        message_id = message["id"]
        held = namespace.messages.get(message_id)
        if held is None:
            if empty_end(message) and namespace.last is not None:
                return
            self._message_total += 1
        self._blocks_held += _blocks(message) - (0 if held is None else _blocks(held))
        namespace.messages[message_id] = message
        namespace.last = message_id

    def _messages_tuple(self, namespace: _Namespace, data: Any) -> None:
        if not (isinstance(data, list) and len(data) == 2 and isinstance(data[0], dict)):
            raise EventProblemError("holds no [message, metadata] pair")
        message = data[0]
        kind = message.get("type")
        if kind not in CHUNK_TYPES:
            self._whole(namespace, message)
            return
        message_id = message.get("id") if isinstance(message.get("id"), str) and message["id"] else None
        key = message_id
        held = namespace.messages.get(key) if key is not None else None
        if held is None and message.get("chunk_position") == "last" and empty_end(message):
            last = namespace.messages.get(namespace.last) if namespace.last is not None else None
            if isinstance(last, ChunkedMessage):
                # The end of the message streamed before it.
                key, held = namespace.last, last
        try:
            if isinstance(held, ChunkedMessage):
                before = held.blocks()
                try:
                    held.add(message)
                finally:
                    # (what a chunk refused midway added stays, counted)
                    self._blocks_held += held.blocks() - before
                namespace.last = key
                return
            chunked = ChunkedMessage(message)
        except MergeError as exc:
            raise EventProblemError(str(exc)) from None
        if key is None:  # (langchain-core gives every chunk an id: a stream may not)
            key = f"{LC_RUN_PREFIX}{len(namespace.messages)}"
        replaced = namespace.messages.get(key)
        if replaced is None:
            self._message_total += 1
        self._blocks_held += chunked.blocks() - (0 if replaced is None else _blocks(replaced))
        namespace.messages[key] = chunked
        namespace.last = key

    def _finish(self) -> None:
        pass
