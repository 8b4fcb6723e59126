"""Agent API servers the gateway tests put upstream, run on uvicorn like the
gateway itself: one that answers every ``/process`` request with a stream
recorded from agentscope-runtime's AgentApp, in small chunks, keeping the
requests it was sent; one that fails midway or refuses; and the Agent API
stream of a run that calls a tool (``tool_call_run``)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from agentcodec import events

FIXTURES = Path(__file__).parent / "fixtures" / "agentapp"


class RecordedAgent:
    """Serves ``stream`` (bytes of a /process stream) on ``POST /process``,
    ``chunk`` bytes at a time; ``cut_after`` bytes ends the connection
    early, as an upstream that dies would; ``status`` other than 200
    refuses every request with that status."""

    def __init__(
        self, stream: bytes, *, chunk: int = 97, cut_after: int | None = None, status: int = 200
    ) -> None:
        self.stream = stream
        self.chunk = chunk
        self.cut_after = cut_after
        self.status = status
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.app = Starlette(routes=[Route("/process", self._process, methods=["POST"])])

    @classmethod
    def from_fixture(cls, name: str, **options: Any) -> RecordedAgent:
        return cls((FIXTURES / f"{name}.process.sse").read_bytes(), **options)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await self.app(scope, receive, send)

    async def _process(self, request: Request) -> Response:
        self.requests.append(await request.json())
        self.headers.append(dict(request.headers))
        if self.status != 200:
            return JSONResponse({"detail": "the agent is not available"}, status_code=self.status)
        return StreamingResponse(self._chunks(), media_type="text/event-stream")

    async def _chunks(self) -> AsyncIterator[bytes]:
        end = len(self.stream) if self.cut_after is None else self.cut_after
        for start in range(0, end, self.chunk):
            yield self.stream[start : min(start + self.chunk, end)]
            await asyncio.sleep(0)
        if self.cut_after is not None:
            raise ConnectionResetError("the agent went away")  # uvicorn aborts the response


class ScriptedAgent:
    """Serves ``POST /process`` with what ``body()`` yields, paced as it
    sleeps, after ``answer_after`` seconds without an answer: an upstream
    that stalls, only pings, or runs on without end."""

    def __init__(self, body: Callable[[], AsyncIterator[bytes]], *, answer_after: float = 0.0) -> None:
        self.body = body
        self.answer_after = answer_after
        self.cancelled = 0  # responses whose client (the gateway) went away midway
        self.runs = 0  # requests answered
        self.running = 0  # requests taken and not yet answered to their end
        self.most_running = 0  # the most there were at once
        self.app = Starlette(routes=[Route("/process", self._process, methods=["POST"])])

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await self.app(scope, receive, send)

    async def _process(self, request: Request) -> Response:
        await request.body()
        self.runs += 1
        self.running += 1
        self.most_running = max(self.most_running, self.running)
        try:
            await asyncio.sleep(self.answer_after)
        except BaseException:
            self.running -= 1
            raise
        return StreamingResponse(self._counted(), media_type="text/event-stream")

    async def _counted(self) -> AsyncIterator[bytes]:
        try:
            async for chunk in self.body():
                yield chunk
        except (asyncio.CancelledError, GeneratorExit):
            self.cancelled += 1
            raise
        finally:
            self.running -= 1


def tool_call_run(*, usage: dict[str, int] | None = None, answered: bool = False) -> bytes:
    """An Agent API stream of a run whose assistant says a sentence and calls
    ``weather``; ``answered``: the agent ran the tool and answered after it."""
    call = {"message_id": "m", "index": 1}
    run: list[dict[str, Any]] = [
        {"type": "run_started", "run_id": "r"},
        {"type": "message_started", "message_id": "m", "role": "assistant"},
        {"type": "block_started", "message_id": "m", "index": 0, "kind": "text"},
        {"type": "block_delta", "message_id": "m", "index": 0, "delta": "Let me look."},
        {"type": "block_finished", "message_id": "m", "index": 0},
        {"type": "block_started", **call, "kind": "tool_call", "call_id": "call_1", "name": "weather"},
        {"type": "block_delta", **call, "delta": '{"city": "Paris"}'},
        {"type": "block_finished", **call},
        {"type": "message_finished", "message_id": "m"},
    ]
    if answered:
        run += [
            {"type": "message_started", "message_id": "t", "role": "tool"},
            {
                "type": "block_started",
                "message_id": "t",
                "index": 0,
                "kind": "tool_result",
                "call_id": "call_1",
            },
            {"type": "block_delta", "message_id": "t", "index": 0, "delta": "18 C"},
            {"type": "block_finished", "message_id": "t", "index": 0},
            {"type": "message_finished", "message_id": "t"},
            {"type": "message_started", "message_id": "a", "role": "assistant"},
            {"type": "block_started", "message_id": "a", "index": 0, "kind": "text"},
            {"type": "block_delta", "message_id": "a", "index": 0, "delta": "It is 18 C."},
            {"type": "block_finished", "message_id": "a", "index": 0},
            {"type": "message_finished", "message_id": "a"},
        ]
    run.append({"type": "run_finished", "status": "completed", **({"usage": usage} if usage else {})})
    encoder = events.Encoder("agentscope")
    return b"".join(encoder.encode(event) for event in run) + encoder.close()
