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

from .. import encode_sse
from .._backend import impl
from .._ids import base62
from .._message_builder import MessageBuilder

__all__ = ["ChatCompletionBuilder", "encode"]


def encode(chunk: dict[str, Any]) -> bytes:
    """One chunk as the API writes it: one ``data:`` line of compact JSON."""
    return encode_sse(chunk)


class ChatCompletionBuilder(MessageBuilder):
    """Builds one Chat Completions stream (one choice): content, reasoning,
    refusal and tool calls in any order, then ``finish()`` or ``fail()``."""

    def __init__(
        self, *, completion_id: str | None = None, model: str | None = None, created: int | None = None
    ) -> None:
        super().__init__(
            "openai-chat",
            impl.OpenAIChatAssembler(),
            encode,
            response_id=f"chatcmpl-{base62(29)}" if completion_id is None else completion_id,
            model=model,
            created_at=created,
        )

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
        call_id = call_id or f"call_{base62(24)}"
        out = self._open("tool_call", call_id=call_id, name=name, tool="function")
        return (out + self.add_arguments_delta(arguments)) if arguments else out

    def add_arguments_delta(self, delta: str) -> bytes:
        """Appends to the arguments of the tool call being written."""
        self._require("tool_call", "add_arguments_delta() needs a tool call: call add_tool_call() first")
        return self._append(delta)

    def finish(self, finish_reason: str | None = None, usage: dict[str, Any] | None = None) -> bytes:
        """The ``finish_reason`` chunk (``tool_calls`` after a tool call,
        else ``stop``, unless given), the ``usage`` chunk when ``usage``
        (neutral keys: ``input_tokens``, ``output_tokens``, ``total_tokens``)
        is given, and ``data: [DONE]``."""
        status = "incomplete" if finish_reason == "length" else "completed"
        return self._finish(finish_reason, status, usage)

    def fail(self, message: str, code: str | None = None) -> bytes:
        """An ``error`` chunk, as the API sends one mid-stream."""
        return self._fail(code, message)
