"""Builders that emit an AgentScope ``/process`` stream: drop-in counterparts
of agentscope-runtime's ``ResponseBuilder``, ``MessageBuilder`` and
``ContentBuilder`` (``engine/helpers/agent_api_builder.py``), with the same
method names, the same event sequence and the same ids.

Each call returns the protocol event as a plain dict whose keys, defaults and
nulls are those of upstream's pydantic models, in their order, so that
``agentcodec.encode_sse(event)`` writes the bytes upstream's
``f"data: {event.model_dump_json()}\\n\\n"`` writes. Unlike upstream, which
hands out the same objects and mutates them later, every event is a snapshot
of its own. ``ContentBuilder.add_text_delta_sse`` and
``ResponseBuilder.generate_streaming_sse`` go straight to SSE bytes.

The builders keep the assembled response: ``get_response_data()``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime
from typing import Any
from uuid import uuid4

from .._backend import impl
from .._json import dumps
from .types import ContentType, Role, RunStatus

__all__ = ["ContentBuilder", "MessageBuilder", "ResponseBuilder", "StreamingResponseBuilder"]

# A token's SSE bytes: the event's fixed head, the token as a JSON string,
# its tail (in Rust on the native backend).
_frame_json_string: Callable[[str, str, str], bytes] = impl.frame_json_string


def _now() -> int:
    # Upstream stamps created_at with time.time() and completed_at with
    # datetime.now(); kept apart so that both can be controlled in tests.
    return int(time.time())


def _now_datetime() -> int:
    return int(datetime.now().timestamp())


def _copy(value: Any) -> Any:
    """A snapshot of a JSON-like value."""
    if isinstance(value, dict):
        return _snapshot(value)
    if isinstance(value, list):
        return [_copy(item) for item in value]
    return value


def _snapshot(event: dict[str, Any]) -> dict[str, Any]:
    """A snapshot of an event, for the caller to keep."""
    return {key: _copy(item) for key, item in event.items()}


def _text_of(text: object) -> str:
    """A text delta's text: None counts as "", a str (or subclass) is
    itself, anything else is refused before it is kept, as upstream's model
    refuses it (the same error as both backends' frame_json_string)."""
    if text is None:
        return ""
    if isinstance(text, str):
        return text
    raise TypeError(f"text must be a str or None, not {type(text).__name__}")


def _content(content_type: str, index: int, msg_id: str, **fields: Any) -> dict[str, Any]:
    """A content event with upstream's fields, in their order."""
    event: dict[str, Any] = {
        "sequence_number": None, "object": "content", "status": None, "error": None,
        "type": content_type, "index": index, "delta": False, "msg_id": msg_id,
    }  # fmt: skip
    event.update(_CONTENT_FIELDS[content_type])
    event.update(fields)
    return event


_CONTENT_FIELDS: dict[str, dict[str, Any]] = {
    ContentType.TEXT: {"text": None},
    ContentType.IMAGE: {"image_url": None},
    ContentType.DATA: {"data": None},
    ContentType.AUDIO: {"data": None, "format": None},
    ContentType.FILE: {"file_url": None, "file_id": None, "filename": None, "file_data": None},
    ContentType.REFUSAL: {"refusal": None},
}


class _Pieces(list[str]):
    """A string being concatenated, joined once at the end."""

    __slots__ = ()


def _fold(base: dict[str, Any], delta: dict[str, Any]) -> dict[str, Any]:
    """Upstream's ``ContentBuilder._merge_data_incrementally``, in linear time:
    new keys are added, strings concatenate, numbers (not booleans) add, lists
    concatenate, dicts merge recursively, anything else is replaced."""
    result = dict(base)
    for key, value in delta.items():
        if key not in result:
            result[key] = value
            continue
        existing = result[key]
        if isinstance(existing, _Pieces) and isinstance(value, str):
            existing.append(value)  # a fold's own pieces: appending in place is safe
        elif isinstance(existing, str) and isinstance(value, str):
            result[key] = _Pieces([existing, value])
        elif (
            isinstance(existing, (int, float))
            and isinstance(value, (int, float))
            and not isinstance(existing, bool)
            and not isinstance(value, bool)
        ):
            result[key] = existing + value
        elif isinstance(existing, list) and not isinstance(existing, _Pieces) and isinstance(value, list):
            result[key] = [*existing, *value]
        elif isinstance(existing, dict) and isinstance(value, dict):
            result[key] = _fold(existing, value)
        else:
            result[key] = value
    return result


def _join_pieces(value: Any) -> Any:
    if isinstance(value, _Pieces):
        return "".join(value)
    if isinstance(value, dict):
        return {key: _join_pieces(item) for key, item in value.items()}
    return value


class ContentBuilder:
    """Builds one content part of a message: text, image, data, refusal, file
    or audio (upstream does not build video)."""

    def __init__(self, message_builder: MessageBuilder, content_type: str = ContentType.TEXT, index: int = 0):
        if content_type not in _CONTENT_FIELDS:
            raise ValueError(f"Unsupported content type: {content_type}")
        self.message_builder = message_builder
        self.content_type = content_type
        self.index = index
        self.content = _content(content_type, index, message_builder.message_id)
        self.text_tokens: list[str] = []
        self.data_deltas: list[dict[str, Any]] = []
        self._sse_prefix: str | None = None
        self._delta_event: dict[str, Any] | None = None

    def _require(self, content_type: str, method: str) -> None:
        if self.content_type != content_type:
            raise ValueError(f"{method} only supported for {content_type} content")

    def add_text_delta(self, text: str | None) -> dict[str, Any]:
        """A text fragment (None counts as ""): returns its delta event."""
        # The builders' hottest call. Every delta's event is the same but
        # for its text: a copy of one made on the first call (which checks
        # the content type) with the text set, which CPython does in under
        # half the time of building the nine-key dict.
        event = (self._delta_event or self._text_delta_event()).copy()
        if text.__class__ is not str:
            text = _text_of(text)
        event["text"] = text
        self.text_tokens.append(text)
        return event

    add_delta = add_text_delta

    def add_text_delta_sse(self, text: str | None) -> bytes:
        """``encode_sse(add_text_delta(text))``, without building the event."""
        # The event's bytes up to its text are the same for every delta:
        # made (and the content type checked) once, on the first call.
        prefix = self._sse_prefix or self._text_sse_prefix()
        if text.__class__ is not str:
            text = _text_of(text)
        self.text_tokens.append(text)
        return _frame_json_string(prefix, text, "}\n\n")

    def _text_delta_event(self) -> dict[str, Any]:
        self._require(ContentType.TEXT, "add_text_delta")
        self._delta_event = _content(
            ContentType.TEXT, self.index, self.message_builder.message_id,
            status=RunStatus.InProgress, delta=True, text="",
        )  # fmt: skip
        return self._delta_event

    def _text_sse_prefix(self) -> str:
        self._require(ContentType.TEXT, "add_text_delta")
        head = _content(
            ContentType.TEXT, self.index, self.message_builder.message_id,
            status=RunStatus.InProgress, delta=True, text="",
        )  # fmt: skip
        # 'data: {..."text":""}' without its last three characters.
        self._sse_prefix = "data: " + dumps(head)[:-3]
        return self._sse_prefix

    def _set(self, field: str, value: Any) -> dict[str, Any]:
        self.content[field] = value
        self.content["status"] = RunStatus.InProgress
        return _snapshot(self.content)

    def set_text(self, text: str) -> dict[str, Any]:
        self._require(ContentType.TEXT, "set_text")
        return self._set("text", text)

    def set_refusal(self, text: str) -> dict[str, Any]:
        self._require(ContentType.REFUSAL, "set_refusal")
        return self._set("refusal", text)

    def set_image_url(self, image_url: str) -> dict[str, Any]:
        self._require(ContentType.IMAGE, "set_image_url")
        return self._set("image_url", image_url)

    def set_data(self, data: dict[str, Any]) -> dict[str, Any]:
        self._require(ContentType.DATA, "set_data")
        return self._set("data", _copy(data))

    def update_data(self, key: str, value: Any) -> dict[str, Any]:
        self._require(ContentType.DATA, "update_data")
        if self.content["data"] is None:
            self.content["data"] = {}
        self.content["data"][key] = _copy(value)
        self.content["status"] = RunStatus.InProgress
        return _snapshot(self.content)

    def add_data_delta(self, delta_data: dict[str, Any]) -> dict[str, Any]:
        """A data fragment: returns its delta event, whose data is the fragment."""
        self._require(ContentType.DATA, "add_data_delta")
        delta_data = _copy(delta_data)
        self.data_deltas.append(delta_data)
        return _content(
            ContentType.DATA, self.index, self.message_builder.message_id,
            status=RunStatus.InProgress, delta=True, data=_copy(delta_data),
        )  # fmt: skip

    def complete(self) -> dict[str, Any]:
        """The completed content: the text so far joined, or the data with
        every delta folded in. It replaces the content in the message."""
        if self.content_type == ContentType.TEXT:
            if self.text_tokens:
                self.content["text"] = (self.content["text"] or "") + "".join(self.text_tokens)
            self.content["delta"] = False
        elif self.content_type == ContentType.DATA:
            if self.data_deltas:
                data = self.content["data"] or {}
                for delta in self.data_deltas:
                    data = _fold(data, delta)
                self.content["data"] = _join_pieces(data)
            self.content["delta"] = False
        self.content["status"] = RunStatus.Completed
        self.message_builder.add_content(self.content)
        return _snapshot(self.content)

    def get_content_data(self) -> dict[str, Any]:
        return _snapshot(self.content)


class MessageBuilder:
    """Builds one message; it joins the response's output at once."""

    def __init__(self, response_builder: ResponseBuilder, role: str = Role.ASSISTANT):
        self.response_builder = response_builder
        self.role = role
        self.message_id = f"msg_{uuid4()}"
        self.content_builders: list[ContentBuilder] = []
        self.message: dict[str, Any] = {
            "sequence_number": None, "object": "message", "status": RunStatus.InProgress, "error": None,
            "id": self.message_id, "type": "message", "role": role, "content": None, "code": None,
            "message": None, "usage": None, "metadata": None,
        }  # fmt: skip
        response_builder.add_message(self.message)

    def create_content_builder(self, content_type: str = ContentType.TEXT) -> ContentBuilder:
        builder = ContentBuilder(self, content_type, len(self.content_builders))
        self.content_builders.append(builder)
        return builder

    def add_content(self, content: dict[str, Any]) -> None:
        """Adds a content part, replacing the one with the same index."""
        if self.message["content"] is None:
            self.message["content"] = []
        parts = self.message["content"]
        for position, existing in enumerate(parts):
            if existing.get("index") == content.get("index"):
                parts[position] = content
                break
        else:
            parts.append(content)
        self.response_builder.update_message(self.message)

    def get_message_data(self) -> dict[str, Any]:
        return _snapshot(self.message)

    def complete(self) -> dict[str, Any]:
        self.message["status"] = RunStatus.Completed
        self.response_builder.update_message(self.message)
        return _snapshot(self.message)


class ResponseBuilder:
    """Builds the response: its lifecycle events and its messages."""

    def __init__(self, session_id: str | None = None, response_id: str | None = None):
        self.session_id = session_id
        self.response_id = response_id
        self.created_at = _now()
        self.message_builders: list[MessageBuilder] = []
        self.response = self._new_response(response_id)

    def _new_response(self, response_id: str | None) -> dict[str, Any]:
        return {
            "sequence_number": None, "object": "response", "status": RunStatus.Created, "error": None,
            # Upstream's model gives a response without an id a fresh one.
            "id": response_id if response_id is not None else f"response_{uuid4()}",
            "created_at": self.created_at, "completed_at": None, "output": [], "usage": None,
            "session_id": self.session_id,
        }  # fmt: skip

    def reset(self) -> None:
        """Starts a new response, with a new id (as upstream, the response_id
        given to the constructor is not reused)."""
        self.response_id = f"response_{uuid4()}"
        self.created_at = _now()
        self.message_builders = []
        self.response = self._new_response(self.response_id)

    def get_response_data(self) -> dict[str, Any]:
        """The response assembled so far."""
        return _snapshot(self.response)

    def _status(self, status: str) -> dict[str, Any]:
        self.response["status"] = status
        return _snapshot(self.response)

    def created(self) -> dict[str, Any]:
        return self._status(RunStatus.Created)

    def in_progress(self) -> dict[str, Any]:
        return self._status(RunStatus.InProgress)

    def completed(self) -> dict[str, Any]:
        self.response["completed_at"] = _now_datetime()
        if self.response["output"] is None:
            self.response["output"] = []
        return self._status(RunStatus.Completed)

    def create_message_builder(
        self, role: str = Role.ASSISTANT, message_type: str = "message"
    ) -> MessageBuilder:
        builder = MessageBuilder(self, role)
        builder.message["type"] = message_type
        self.message_builders.append(builder)
        return builder

    def add_message(self, message: dict[str, Any]) -> None:
        """Adds a message to the output, replacing the one with the same id."""
        output = self.response["output"]
        for position, existing in enumerate(output):
            if existing.get("id") == message.get("id"):
                output[position] = message
                return
        output.append(message)

    def update_message(self, message: dict[str, Any]) -> None:
        output = self.response["output"]
        for position, existing in enumerate(output):
            if existing.get("id") == message.get("id"):
                output[position] = message
                return

    def generate_streaming_response(
        self, text_tokens: Iterable[str | None], role: str = Role.ASSISTANT
    ) -> Iterator[dict[str, Any]]:
        """The whole event sequence of one streamed text answer, as upstream."""
        self.reset()
        yield self.created()
        yield self.in_progress()
        message = self.create_message_builder(role)
        yield message.get_message_data()
        content = message.create_content_builder()
        if type(content).add_delta is not ContentBuilder.add_text_delta:
            # A subclass's own add_delta is called for every token.
            yield from map(content.add_delta, text_tokens)
        else:
            # add_text_delta's work, in the loop: without a method call a
            # token, making these events and writing them with encode_sse
            # took 12% less (what is left is the copy and the text set).
            # `__class__ is str` is the cheapest exact check (1.6% of the
            # path; isinstance and type() cost more, callgrind), the rest
            # left to _text_of.
            copy = (content._delta_event or content._text_delta_event()).copy
            keep = content.text_tokens.append
            for token in text_tokens:
                event = copy()
                event["text"] = text = token if token.__class__ is str else _text_of(token)
                keep(text)
                yield event
        yield content.complete()
        yield message.complete()
        yield self.completed()

    def generate_streaming_sse(
        self, text_tokens: Iterable[str | None], role: str = Role.ASSISTANT
    ) -> Iterator[bytes]:
        """``generate_streaming_response``, written as SSE bytes."""
        self.reset()
        yield _frame(self.created())
        yield _frame(self.in_progress())
        message = self.create_message_builder(role)
        yield _frame(message.get_message_data())
        content = message.create_content_builder()
        for token in text_tokens:
            yield content.add_text_delta_sse(token)
        yield _frame(content.complete())
        yield _frame(message.complete())
        yield _frame(self.completed())


def _frame(event: dict[str, Any]) -> bytes:
    return b"data: " + dumps(event).encode() + b"\n\n"


# Upstream's alias.
StreamingResponseBuilder = ResponseBuilder
