"""Writing an Anthropic Messages stream on a server: ``MessageStreamBuilder``.

Each call returns the SSE bytes to write next: the events
anthropic-sdk-python's ``accumulate_event`` and every Messages client read
(``message_start``, one content block at a time with its deltas and
``content_block_stop``, ``message_delta`` with the stop reason and
cumulative usage, ``message_stop``), and the builder keeps the Message a
client assembles from them (``builder.message``). It is the neutral encoder
for ``anthropic`` (``agentcodec.events.Encoder``) driven by simple calls.
"""

from __future__ import annotations

from typing import Any

from .. import encode_sse
from .._backend import impl
from .._ids import base62
from .._message_builder import MESSAGE, MessageBuilder

__all__ = ["MessageStreamBuilder", "encode"]


def encode(event: dict[str, Any]) -> bytes:
    """One event as the API writes it: an ``event:`` line naming its type,
    and one ``data:`` line of compact JSON."""
    kind = event.get("type")
    return encode_sse(event, event=kind if isinstance(kind, str) else None)


class MessageStreamBuilder(MessageBuilder):
    """Builds one Messages stream: text, thinking (with its signature) and
    tool calls, one block after another, then ``finish()`` or ``fail()``."""

    def __init__(self, *, message_id: str | None = None, model: str | None = None) -> None:
        super().__init__(
            "anthropic",
            impl.AnthropicAssembler(),
            encode,
            response_id=f"msg_01{base62(22)}" if message_id is None else message_id,
            model=model,
        )

    @property
    def message(self) -> dict[str, Any]:
        """The Message written so far, as a client assembles it."""
        return self._assembler.message  # type: ignore[no-any-return]

    def add_text_delta(self, text: str) -> bytes:
        """Appends to the text block being written, or starts one."""
        return self._delta("text", text)

    def add_thinking_delta(self, text: str) -> bytes:
        """Appends to the thinking block being written, or starts one."""
        return self._delta("reasoning", text)

    def add_signature(self, signature: str) -> bytes:
        """Signs the thinking block being written (``signature_delta``)."""
        index = self._require(
            "reasoning", "add_signature() needs a thinking block: call add_thinking_delta() first"
        )
        return self._write(
            {"type": "block_replaced", "message_id": MESSAGE, "index": index, "encrypted": signature}
        )

    def add_tool_use(self, name: str, input_json: str = "", *, tool_use_id: str | None = None) -> bytes:
        """Starts a ``tool_use`` block; ``add_input_json_delta`` streams its
        input, which a client parses when the block stops."""
        call_id = tool_use_id or f"toolu_01{base62(22)}"
        out = self._open("tool_call", call_id=call_id, name=name, tool="function")
        return (out + self.add_input_json_delta(input_json)) if input_json else out

    def add_input_json_delta(self, partial_json: str) -> bytes:
        """Appends to the input of the ``tool_use`` block being written."""
        self._require("tool_call", "add_input_json_delta() needs a tool_use block: call add_tool_use() first")
        return self._append(partial_json)

    def finish(self, stop_reason: str | None = None, usage: dict[str, Any] | None = None) -> bytes:
        """Stops the block being written, then ``message_delta`` (the stop
        reason: ``tool_use`` after a tool call, else ``end_turn``, unless
        given; ``usage`` in neutral terms: ``input_tokens`` counting every
        input token, ``output_tokens``, ``cached_input_tokens``) and
        ``message_stop``."""
        status = "incomplete" if stop_reason == "max_tokens" else "completed"
        return self._finish(stop_reason, status, usage)

    def fail(self, message: str, error_type: str = "api_error") -> bytes:
        """An ``error`` event, as the API sends one mid-stream (``overloaded_error``, say)."""
        return self._fail(error_type, message)
