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

from .. import encode_sse, events
from .._backend import impl

__all__ = ["MessageStreamBuilder", "encode"]

MESSAGE = "message"


def encode(event: dict[str, Any]) -> bytes:
    """One event as the API writes it: an ``event:`` line naming its type,
    and one ``data:`` line of compact JSON."""
    kind = event.get("type")
    return encode_sse(event, event=kind if isinstance(kind, str) else None)


class MessageStreamBuilder:
    """Builds one Messages stream: text, thinking (with its signature) and
    tool calls, one block after another, then ``finish()`` or ``fail()``."""

    def __init__(self, *, message_id: str | None = None, model: str | None = None) -> None:
        self._encoder = events.Encoder("anthropic", response_id=message_id, model=model)
        self._assembler = impl.AnthropicAssembler()
        self._blocks = 0
        # The block being written: (index, kind), or None.
        self._current: tuple[int, str] | None = None
        self._started = False

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
        if self._current is None or self._current[1] != "reasoning":
            raise ValueError("add_signature() needs a thinking block: call add_thinking_delta() first")
        return self._write(
            {
                "type": "block_replaced",
                "message_id": MESSAGE,
                "index": self._current[0],
                "encrypted": signature,
            }
        )

    def add_tool_use(self, name: str, input_json: str = "", *, tool_use_id: str | None = None) -> bytes:
        """Starts a ``tool_use`` block; ``add_input_json_delta`` streams its
        input, which a client parses when the block stops."""
        out = self._start() + self._finish_current()
        index = self._blocks
        self._blocks += 1
        out += self._write(
            {
                "type": "block_started",
                "message_id": MESSAGE,
                "index": index,
                "kind": "tool_call",
                "call_id": tool_use_id or f"toolu_{index}",
                "name": name,
                "tool": "function",
            }
        )
        self._current = (index, "tool_call")
        return (out + self.add_input_json_delta(input_json)) if input_json else out

    def add_input_json_delta(self, partial_json: str) -> bytes:
        """Appends to the input of the ``tool_use`` block being written."""
        if self._current is None or self._current[1] != "tool_call":
            raise ValueError("add_input_json_delta() needs a tool_use block: call add_tool_use() first")
        return self._write(
            {"type": "block_delta", "message_id": MESSAGE, "index": self._current[0], "delta": partial_json}
        )

    def finish(self, stop_reason: str | None = None, usage: dict[str, Any] | None = None) -> bytes:
        """Stops the block being written, then ``message_delta`` (the stop
        reason: ``tool_use`` after a tool call, else ``end_turn``, unless
        given; ``usage`` in neutral terms: ``input_tokens`` counting every
        input token, ``output_tokens``, ``cached_input_tokens``) and
        ``message_stop``."""
        out = self._start() + self._finish_current()
        out += self._write({"type": "message_finished", "message_id": MESSAGE, "stop_reason": stop_reason})
        status = "incomplete" if stop_reason == "max_tokens" else "completed"
        return out + self._write({"type": "run_finished", "status": status, "usage": usage})

    def fail(self, message: str, error_type: str = "api_error") -> bytes:
        """An ``error`` event, as the API sends one mid-stream (``overloaded_error``, say)."""
        return self._write({"type": "run_failed", "code": error_type, "message": message})

    # --- internals ---------------------------------------------------------------

    def _start(self) -> bytes:
        if self._started:
            return b""
        self._started = True
        out = self._write({"type": "run_started"})
        return out + self._write(
            {"type": "message_started", "message_id": MESSAGE, "role": "assistant", "kind": "message"}
        )

    def _delta(self, kind: str, text: str) -> bytes:
        out = self._start()
        if self._current is None or self._current[1] != kind:
            out += self._finish_current()
            index = self._blocks
            self._blocks += 1
            out += self._write({"type": "block_started", "message_id": MESSAGE, "index": index, "kind": kind})
            self._current = (index, kind)
        return out + self._write(
            {"type": "block_delta", "message_id": MESSAGE, "index": self._current[0], "delta": text}
        )

    def _finish_current(self) -> bytes:
        if self._current is None:
            return b""
        index = self._current[0]
        self._current = None
        return self._write({"type": "block_finished", "message_id": MESSAGE, "index": index})

    def _write(self, event: dict[str, Any]) -> bytes:
        out = []
        for written in self._encoder.encode_events(event):
            self._assembler.feed_event(written)
            out.append(encode(written))
        return b"".join(out)
