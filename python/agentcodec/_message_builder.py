"""What the builders of protocols that stream one message share: a neutral
encoder driven by simple calls, one block written at a time, and an
assembler fed every event written, so that the builder keeps what a client
assembles. Each such protocol's builder subclasses ``MessageBuilder``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import events

__all__ = ["MESSAGE", "MessageBuilder"]

MESSAGE = "message"


class MessageBuilder:
    """The base of a builder of one assistant message. Subclasses give the
    target protocol, its encoder options, its assembler and how one of its
    events is framed."""

    def __init__(
        self,
        target: events.ProtocolName,
        assembler: Any,
        frame: Callable[[dict[str, Any]], bytes],
        **options: Any,
    ) -> None:
        self._encoder = events.Encoder(target, **options)
        self._assembler = assembler
        self._frame = frame
        self._blocks = 0
        # The block being written: (index, kind), or None.
        self._current: tuple[int, str] | None = None
        self._started = False

    def _start(self) -> bytes:
        if self._started:
            return b""
        self._started = True
        out = self._write({"type": "run_started"})
        return out + self._write(
            {"type": "message_started", "message_id": MESSAGE, "role": "assistant", "kind": "message"}
        )

    def _open(self, kind: str, **fields: Any) -> bytes:
        """Finishes the block being written and starts one of ``kind``."""
        out = self._start() + self._finish_current()
        index = self._blocks
        self._blocks += 1
        out += self._write(
            {"type": "block_started", "message_id": MESSAGE, "index": index, "kind": kind, **fields}
        )
        self._current = (index, kind)
        return out

    def _delta(self, kind: str, text: str) -> bytes:
        """Appends to the block being written, or to a new one of ``kind``."""
        out = self._start()
        if self._current is None or self._current[1] != kind:
            out += self._open(kind)
        return out + self._append(text)

    def _append(self, text: str) -> bytes:
        assert self._current is not None
        return self._write(
            {"type": "block_delta", "message_id": MESSAGE, "index": self._current[0], "delta": text}
        )

    def _require(self, kind: str, problem: str) -> int:
        """The index of the block being written, which must be of ``kind``."""
        if self._current is None or self._current[1] != kind:
            raise ValueError(problem)
        return self._current[0]

    def _finish(self, stop_reason: str | None, status: str, usage: dict[str, Any] | None) -> bytes:
        """The message's end, the run's end, and what the encoder writes after it."""
        out = self._start() + self._finish_current()
        out += self._write({"type": "message_finished", "message_id": MESSAGE, "stop_reason": stop_reason})
        out += self._write({"type": "run_finished", "status": status, "usage": usage})
        tail = self._encoder.close()
        if tail:
            self._assembler.feed(tail)
        return out + tail

    def _fail(self, code: str | None, message: str) -> bytes:
        return self._write({"type": "run_failed", "code": code, "message": message})

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
            out.append(self._frame(written))
        return b"".join(out)
