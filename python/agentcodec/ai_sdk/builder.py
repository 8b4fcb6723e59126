"""Writing a Vercel AI SDK UI message stream on a server:
``UIMessageStreamBuilder``.

Each call returns the SSE bytes to write next: the chunks ``useChat`` and
``readUIMessageStream`` read (``start``, a step, ``text-*`` and
``reasoning-*`` parts, ``tool-input-*`` with the input parsed once at the
call's end, ``tool-output-available``, data parts, ``finish`` and
``data: [DONE]``), and the builder keeps the UIMessage a client assembles
from them (``builder.message``). It is the neutral encoder for ``ai-sdk``
(``agentcodec.events.Encoder``) driven by simple calls; send it with
``ai_sdk.HEADERS``.
"""

from __future__ import annotations

from typing import Any

from .. import encode_sse
from .._backend import impl
from .._ids import base62
from .._message_builder import MESSAGE, MessageBuilder

__all__ = ["UIMessageStreamBuilder", "encode"]

# The AI SDK's finish reasons, as the neutral vocabulary says them.
_NEUTRAL_REASONS = {"tool-calls": "tool_calls", "content-filter": "content_filter"}


def encode(chunk: dict[str, Any]) -> bytes:
    """One chunk as the SDK's ``JsonToSseTransformStream`` writes it: one
    ``data:`` line of compact JSON."""
    return encode_sse(chunk)


class UIMessageStreamBuilder(MessageBuilder):
    """Builds one UI message stream: text, reasoning, tool calls and their
    outputs, data parts, then ``finish()`` or ``fail()``."""

    def __init__(self, *, message_id: str | None = None) -> None:
        super().__init__("ai-sdk", impl.AISDKAssembler(), encode, message_id=message_id)
        self._results = 0

    @property
    def message(self) -> dict[str, Any]:
        """The UIMessage written so far, as a client assembles it."""
        return self._assembler.message  # type: ignore[no-any-return]

    def add_text_delta(self, text: str) -> bytes:
        """Appends to the text part being written, or starts one."""
        return self._delta("text", text)

    def add_reasoning_delta(self, text: str) -> bytes:
        """Appends to the reasoning part being written, or starts one."""
        return self._delta("reasoning", text)

    def add_tool_call(self, name: str, input_json: str = "", *, tool_call_id: str | None = None) -> bytes:
        """Starts a tool call (``tool-input-start``); ``add_tool_input_delta``
        streams its input, parsed once when the next part starts or the
        stream finishes (``tool-input-available``)."""
        call_id = tool_call_id or f"call_{base62(24)}"
        out = self._open("tool_call", call_id=call_id, name=name, tool="function")
        return (out + self.add_tool_input_delta(input_json)) if input_json else out

    def add_tool_input_delta(self, fragment: str) -> bytes:
        """Appends to the input of the tool call being written."""
        self._require("tool_call", "add_tool_input_delta() needs a tool call: call add_tool_call() first")
        return self._append(fragment)

    def add_tool_output(self, tool_call_id: str, output: Any) -> bytes:
        """A tool's result (``tool-output-available``) for a call written
        before; a client throws on a result for any other call."""
        out = self._start() + self._finish_current()
        self._results += 1
        result_id = f"{MESSAGE}-result-{self._results}"
        out += self._write(
            {"type": "message_started", "message_id": result_id, "role": "tool", "kind": "tool_result"}
        )
        block = {"message_id": result_id, "index": 0}
        out += self._write(
            {"type": "block_started", **block, "kind": "tool_result", "call_id": tool_call_id, "name": None,
             "tool": "function"}
        )  # fmt: skip
        out += self._write({"type": "block_replaced", **block, "output": output})
        out += self._write({"type": "block_finished", **block})
        return out + self._write({"type": "message_finished", "message_id": result_id})

    def add_data(self, name: str, data: Any, *, id: str | None = None, transient: bool = False) -> bytes:
        """A ``data-<name>`` part: with an ``id``, a later one of the same
        name and id replaces its data in the client's message; a transient
        one reaches the client's ``onData`` and is not kept."""
        chunk: dict[str, Any] = {"type": f"data-{name}"}
        if id is not None:
            chunk["id"] = id
        chunk["data"] = data
        if transient:
            chunk["transient"] = True
        out = self._open("data", value=chunk)
        return out + self._finish_current()

    def finish(self, finish_reason: str | None = None, metadata: Any = None) -> bytes:
        """Ends the part being written, the step, and the message:
        ``finish`` (``finish_reason`` one of ``ai_sdk.FINISH_REASONS``,
        ``stop`` unless given; ``metadata`` merged into the message's) and
        ``data: [DONE]``."""
        reason = _NEUTRAL_REASONS.get(finish_reason, finish_reason) if finish_reason else None
        out = self._start() + self._finish_current()
        out += self._write({"type": "message_finished", "message_id": MESSAGE, "stop_reason": reason})
        status = "incomplete" if finish_reason == "length" else "completed"
        out += self._write({"type": "run_finished", "status": status, "metadata": metadata})
        tail = self._encoder.close()
        if tail:
            self._assembler.feed(tail)
        return out + tail

    def fail(self, message: str) -> bytes:
        """An ``error`` chunk (the client's ``onError``), then ``data: [DONE]``."""
        out = self._fail("error", message)
        tail = self._encoder.close()
        if tail:
            self._assembler.feed(tail)
        return out + tail
