"""Writing an OpenAI Responses stream on a server: ``ResponseBuilder``.

Each call returns the SSE bytes to write next. The builder numbers
``sequence_number`` from 0 and writes the lifecycle strict clients need
(``response.created`` and ``response.in_progress``, each item and part
added, the deltas, each part and item done with its whole value, and
``response.completed`` with the whole output), so that openai-python's
stream helper accumulates exactly the Response the builder keeps
(``builder.response``). It is the neutral encoder for ``openai-responses``
(``agentcodec.events.Encoder``) driven by simple calls.
"""

from __future__ import annotations

from typing import Any

from .. import encode_sse, events
from .._backend import impl
from .._ids import base62, hex_id

__all__ = ["ResponseBuilder", "encode"]


def encode(event: dict[str, Any]) -> bytes:
    """One Responses stream event as the API writes it: ``event: <type>``,
    then the event as one ``data:`` line of compact JSON."""
    kind = event.get("type")
    if not isinstance(kind, str):
        raise ValueError("a Responses stream event needs a type (str)")
    return encode_sse(event, event=kind)


class ResponseBuilder:
    """Builds one Response stream: ``start()``, then text, reasoning,
    refusals, function calls and their outputs in any order, then
    ``complete()``, ``incomplete()`` or ``fail()``. Starting another kind of
    output finishes the item before it."""

    def __init__(
        self, *, response_id: str | None = None, model: str | None = None, created_at: int | None = None
    ) -> None:
        self._encoder = events.Encoder(
            "openai-responses",
            response_id=hex_id("resp") if response_id is None else response_id,
            model=model,
            created_at=created_at,
        )
        self._assembler = impl.OpenAIResponsesAssembler()
        # The block being written: (message id, kind, summary), or None.
        self._current: tuple[str, str, bool] | None = None

    @property
    def response(self) -> dict[str, Any]:
        """The Response written so far, as a client assembles it."""
        return self._assembler.response  # type: ignore[no-any-return]

    def start(self) -> bytes:
        """``response.created`` and ``response.in_progress``."""
        return self._write({"type": "run_started"})

    def add_text_delta(self, text: str) -> bytes:
        """Appends to the answer (a ``message`` item's ``output_text`` part)."""
        return self._delta("text", False, text)

    def add_refusal_delta(self, text: str) -> bytes:
        """Appends to a refusal (a ``message`` item's ``refusal`` part)."""
        return self._delta("refusal", False, text)

    def add_reasoning_delta(self, text: str, *, summary: bool = False) -> bytes:
        """Appends to the reasoning: its text, or with ``summary=True`` its summary."""
        return self._delta("reasoning", summary, text)

    def add_function_call(self, name: str, arguments: str = "", *, call_id: str | None = None) -> bytes:
        """Starts a ``function_call`` item; ``add_arguments_delta`` streams its arguments."""
        out = self._finish_current()
        message_id = hex_id("fc")
        out += self._write(
            {"type": "message_started", "message_id": message_id, "role": "assistant", "kind": "tool_call"}
        )
        out += self._write(
            {
                "type": "block_started",
                "message_id": message_id,
                "index": 0,
                "kind": "tool_call",
                "call_id": call_id or f"call_{base62(24)}",
                "name": name,
                "tool": "function",
            }
        )
        self._current = (message_id, "tool_call", False)
        return (out + self.add_arguments_delta(arguments)) if arguments else out

    def add_arguments_delta(self, delta: str) -> bytes:
        """Appends to the arguments of the function call being written."""
        if self._current is None or self._current[1] != "tool_call":
            raise ValueError("add_arguments_delta() needs a function call: call add_function_call() first")
        return self._write(
            {"type": "block_delta", "message_id": self._current[0], "index": 0, "delta": delta}
        )

    def add_function_call_output(self, call_id: str, output: str) -> bytes:
        """A ``function_call_output`` item, whole."""
        out = self._finish_current()
        message_id = hex_id("fco")
        out += self._write(
            {"type": "message_started", "message_id": message_id, "role": "tool", "kind": "tool_result"}
        )
        out += self._write(
            {
                "type": "block_started",
                "message_id": message_id,
                "index": 0,
                "kind": "tool_result",
                "call_id": call_id,
            }
        )
        out += self._write({"type": "block_delta", "message_id": message_id, "index": 0, "delta": output})
        out += self._write({"type": "block_finished", "message_id": message_id, "index": 0})
        return out + self._write({"type": "message_finished", "message_id": message_id})

    def complete(self, usage: dict[str, Any] | None = None) -> bytes:
        """Finishes what is open, then ``response.completed`` with the whole output."""
        return self._finish_current() + self._write(
            {"type": "run_finished", "status": "completed", "usage": usage}
        )

    def incomplete(
        self,
        reason: str = "incomplete",
        usage: dict[str, Any] | None = None,
        *,
        stop_reason: str | None = None,
    ) -> bytes:
        """Finishes what is open, then ``response.incomplete`` (``reason``:
        ``incomplete``, or ``cancelled`` for a run that was stopped), with
        ``stop_reason`` (``max_output_tokens`` or ``content_filter``) as its
        ``incomplete_details``."""
        return self._finish_current() + self._write(
            {"type": "run_finished", "status": reason, "usage": usage, "stop_reason": stop_reason}
        )

    def fail(self, message: str, code: str = "server_error") -> bytes:
        """``response.failed`` with the error, keeping the output written so far."""
        return self._write({"type": "run_failed", "code": code, "message": message})

    # --- internals ---------------------------------------------------------------

    def _delta(self, kind: str, summary: bool, text: str) -> bytes:
        out = b""
        if self._current is None or self._current[1:] != (kind, summary):
            out += self._finish_current()
            message_id = hex_id("rs" if kind == "reasoning" else "msg")
            message_kind = "reasoning" if kind == "reasoning" else "message"
            out += self._write(
                {
                    "type": "message_started",
                    "message_id": message_id,
                    "role": "assistant",
                    "kind": message_kind,
                }
            )
            block: dict[str, Any] = {
                "type": "block_started",
                "message_id": message_id,
                "index": 0,
                "kind": kind,
            }
            if kind == "reasoning":
                block["summary"] = summary
            out += self._write(block)
            self._current = (message_id, kind, summary)
        return out + self._write(
            {"type": "block_delta", "message_id": self._current[0], "index": 0, "delta": text}
        )

    def _finish_current(self) -> bytes:
        if self._current is None:
            return b""
        message_id = self._current[0]
        self._current = None
        out = self._write({"type": "block_finished", "message_id": message_id, "index": 0})
        return out + self._write({"type": "message_finished", "message_id": message_id})

    def _write(self, event: dict[str, Any]) -> bytes:
        out = []
        for written in self._encoder.encode_events(event):
            self._assembler.feed_event(written)
            out.append(encode(written))
        return b"".join(out)
