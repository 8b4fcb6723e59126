"""Writing an OpenAI Chat Completions stream on a server:
``ChatCompletionBuilder``.

Each call returns the SSE bytes to write next: the chunks openai-python's
``ChatCompletionStreamState`` and every compatible client read (``role``
once, a tool call's ``id`` and ``name`` in its first fragment, the
``finish_reason``, a ``usage`` chunk, ``data: [DONE]``), and the builder
keeps the ChatCompletion a client assembles from them
(``builder.completion``). It is the neutral encoder for ``openai-chat``
(``agentcodec.events.Encoder``) driven by simple calls.
"""

from __future__ import annotations

from typing import Any

from .. import encode_sse, events
from .._backend import impl

__all__ = ["ChatCompletionBuilder", "encode"]

MESSAGE = "message"


def encode(chunk: dict[str, Any]) -> bytes:
    """One chunk as the API writes it: one ``data:`` line of compact JSON."""
    return encode_sse(chunk)


class ChatCompletionBuilder:
    """Builds one Chat Completions stream (one choice): content, reasoning,
    refusal and tool calls in any order, then ``finish()`` or ``fail()``."""

    def __init__(
        self, *, completion_id: str | None = None, model: str | None = None, created: int | None = None
    ) -> None:
        self._encoder = events.Encoder(
            "openai-chat", response_id=completion_id, model=model, created_at=created
        )
        self._assembler = impl.OpenAIChatAssembler()
        self._blocks = 0
        # The block being written: (index, kind), or None.
        self._current: tuple[int, str] | None = None
        self._started = False

    @property
    def completion(self) -> dict[str, Any]:
        """The ChatCompletion written so far, as a client assembles it."""
        return self._assembler.completion  # type: ignore[no-any-return]

    def add_content_delta(self, text: str) -> bytes:
        """Appends to the message's ``content``."""
        return self._delta("text", text)

    def add_reasoning_delta(self, text: str) -> bytes:
        """Appends to its ``reasoning_content`` (as DeepSeek, vLLM and
        DashScope's compatible mode write reasoning)."""
        return self._delta("reasoning", text)

    def add_refusal_delta(self, text: str) -> bytes:
        """Appends to its ``refusal``."""
        return self._delta("refusal", text)

    def add_tool_call(self, name: str, arguments: str = "", *, call_id: str | None = None) -> bytes:
        """Starts a tool call (the next ``index``); ``add_arguments_delta``
        streams its arguments."""
        out = self._start() + self._finish_current()
        index = self._blocks
        self._blocks += 1
        out += self._write(
            {
                "type": "block_started",
                "message_id": MESSAGE,
                "index": index,
                "kind": "tool_call",
                "call_id": call_id or f"call_{index}",
                "name": name,
                "tool": "function",
            }
        )
        self._current = (index, "tool_call")
        return (out + self.add_arguments_delta(arguments)) if arguments else out

    def add_arguments_delta(self, delta: str) -> bytes:
        """Appends to the arguments of the tool call being written."""
        if self._current is None or self._current[1] != "tool_call":
            raise ValueError("add_arguments_delta() needs a tool call: call add_tool_call() first")
        return self._write(
            {"type": "block_delta", "message_id": MESSAGE, "index": self._current[0], "delta": delta}
        )

    def finish(self, finish_reason: str | None = None, usage: dict[str, Any] | None = None) -> bytes:
        """The ``finish_reason`` chunk (``tool_calls`` after a tool call,
        else ``stop``, unless given), the ``usage`` chunk when ``usage``
        (neutral keys: ``input_tokens``, ``output_tokens``, ``total_tokens``)
        is given, and ``data: [DONE]``."""
        out = self._start() + self._finish_current()
        out += self._write({"type": "message_finished", "message_id": MESSAGE, "stop_reason": finish_reason})
        status = "incomplete" if finish_reason == "length" else "completed"
        out += self._write({"type": "run_finished", "status": status, "usage": usage})
        tail = self._encoder.close()
        self._assembler.feed(tail)
        return out + tail

    def fail(self, message: str, code: str | None = None) -> bytes:
        """An ``error`` chunk, as the API sends one mid-stream."""
        return self._write({"type": "run_failed", "code": code, "message": message})

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
