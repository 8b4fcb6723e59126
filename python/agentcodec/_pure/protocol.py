"""What a protocol's pure module declares of itself (its ``PROTOCOL``), and
how its events are framed as SSE. The mirror of ``rust/registry.rs``'s
``Descriptor``; ``_pure/registry.py`` collects them."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .. import _json
from .._errors import AgentCodecError, _EventError
from .events import as_int

__all__ = ["Protocol", "check_option", "data_frame", "frame", "sse_field", "typed_frame"]


@dataclass(frozen=True)
class Protocol:
    """A protocol, as its module describes it."""

    #: Its name, as the CLI, the Transcoder and the docs spell it.
    name: str
    #: Its assembler, and the name both backends' modules export it by.
    assembler: type
    exported_as: str
    #: A new decoder of its events into neutral ones.
    decoder: Callable[[], Any]
    #: A new encoder of neutral events into its own, from keyword options.
    encoder: Callable[..., Any]
    #: The options the encoder takes and their types (each may be None),
    #: in the order messages list them: a type's name, or the strs an
    #: option may be.
    options: Mapping[str, str | tuple[str, ...]]
    #: The exception of one of its events, and of the stream as a whole.
    event_error: type[_EventError]
    base_error: type[AgentCodecError]
    #: One of its events as SSE bytes.
    frame: Callable[[dict[str, Any]], bytes]


def sse_field(value: Any) -> str | None:
    """A value fit for an SSE field line: a str without CR, LF or NUL."""
    if isinstance(value, str) and not any(char in value for char in "\r\n\0"):
        return value
    return None


def frame(event: dict[str, Any], name: str | None = None, id: str | None = None) -> bytes:
    """One event as an SSE frame: ``id:`` and ``event:`` lines when given,
    then the event as one ``data:`` line."""
    head = "" if id is None else f"id: {id}\n"
    if name is not None:
        head += f"event: {name}\n"
    return (head + "data: " + _json.dumps(event) + "\n\n").encode()


def data_frame(event: dict[str, Any]) -> bytes:
    """An event as a bare ``data:`` line."""
    return frame(event)


def typed_frame(event: dict[str, Any]) -> bytes:
    """An event named by its ``type``."""
    return frame(event, name=sse_field(event.get("type")))


def check_option(name: str, value: Any, kind: str | tuple[str, ...]) -> None:
    """Refuses an option's value (None is always taken) that is not of its
    ``kind``: ``"str"``, ``"int"`` (64-bit), ``"bool"``, ``"list[str]"``, or a tuple of
    the strs it may be; the messages are ``registry::OptionError``'s."""
    if value is None:
        return
    if isinstance(kind, tuple):
        # One of a few strs (``registry::OptionKind::Choice``).
        if not isinstance(value, str):
            raise TypeError(f"{name} must be str or None, not {type(value).__name__}")
        if value not in kind:
            raise ValueError(f"{name} must be one of {', '.join(map(repr, kind))} or None, not {value!r}")
        return
    if kind == "str":
        fits = isinstance(value, str)
    elif kind == "bool":
        fits = isinstance(value, bool)
    elif kind == "int":
        fits = type(value) is int
        if fits and as_int(value) is None:
            raise ValueError(f"{name} does not fit in 64 bits")
    else:
        fits = isinstance(value, (list, tuple)) and all(isinstance(part, str) for part in value)
    if not fits:
        raise TypeError(f"{name} must be {kind} or None, not {type(value).__name__}")
