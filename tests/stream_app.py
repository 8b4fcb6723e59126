"""The ASGI app the server and client tests run on uvicorn: an agent's run
(AgentScope Agent API events) streamed through ``EventStreamResponse``, and
producers that fail, idle, flood or watch for being stopped. ``app`` is configured from the
environment, for replicas in processes of their own."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from agentcodec.server import EventStreamResponse, MemoryReplayStore, RedisReplayStore, ReplayStore

PROTOCOL = "agentscope"


def text_delta(text: str) -> dict[str, Any]:
    """A delta of the run's message's text."""
    return {"object": "content", "type": "text", "index": 0, "delta": True, "msg_id": "m", "text": text}


def agent_run(count: int, run_id: str = "r") -> list[dict[str, Any]]:
    """A run of ``count`` text deltas: what the agent streams."""
    message = {"object": "message", "id": "m", "type": "message", "role": "assistant"}
    events: list[dict[str, Any]] = [
        {"object": "response", "id": run_id, "status": "created"},
        {**message, "status": "in_progress"},
    ]
    events += [text_delta(f"token {i}; ") for i in range(count)]
    events += [
        {**message, "status": "completed"},
        {"object": "response", "id": run_id, "status": "completed"},
    ]
    return events


class DropFirstConnection:
    """Cuts the first fresh stream (no ``Last-Event-ID``) after ``after_bytes``
    of its body, in the middle of an event, as a dying proxy or replica
    would: the server aborts the connection without ending the body."""

    def __init__(self, app: Any, after_bytes: int) -> None:
        self.app = app
        self.after_bytes = after_bytes
        self.dropped = 0

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        resuming = any(key == b"last-event-id" for key, _ in scope.get("headers", ()))
        if scope["type"] != "http" or resuming or self.dropped or scope["path"] == "/health":
            await self.app(scope, receive, send)
            return
        self.dropped += 1
        sent = 0

        async def cutting_send(message: Any) -> None:
            nonlocal sent
            if message["type"] == "http.response.body":
                body = message.get("body", b"")
                if sent + len(body) >= self.after_bytes:
                    await send({**message, "body": body[: self.after_bytes - sent], "more_body": True})
                    raise ConnectionAbortedError("the test cut this connection")
                sent += len(body)
            await send(message)

        await self.app(scope, receive, cutting_send)


def make_app(store: ReplayStore | None) -> Starlette:
    stopped: list[str] = []
    produced: dict[str, int] = {"big": 0}

    async def produce(count: int, delay: float) -> AsyncIterator[dict[str, Any]]:
        for event in agent_run(count):
            yield event
            if delay:
                await asyncio.sleep(delay)

    async def run(request: Request) -> Response:
        count = int(request.query_params.get("n", "20"))
        delay = float(request.query_params.get("delay", "0"))
        return EventStreamResponse(produce(count, delay), protocol=PROTOCOL, store=store)

    async def fail(request: Request) -> Response:
        protocol = request.query_params.get("protocol", PROTOCOL)

        async def failing() -> AsyncIterator[dict[str, Any]]:
            yield agent_run(0)[0]
            raise RuntimeError("a secret the client must not see")

        async def failing_at_once() -> AsyncIterator[bytes]:
            raise RuntimeError("a secret the client must not see")
            yield b""  # an async generator

        content = failing() if protocol == PROTOCOL else failing_at_once()
        return EventStreamResponse(content, protocol=protocol)

    async def idle(request: Request) -> Response:
        seconds = float(request.query_params.get("seconds", "0.5"))

        async def slow() -> AsyncIterator[dict[str, Any]]:
            await asyncio.sleep(seconds)
            for event in agent_run(1):
                yield event

        return EventStreamResponse(slow(), protocol=PROTOCOL, ping_interval=0.05)

    async def endless(request: Request) -> Response:
        async def forever() -> AsyncIterator[dict[str, Any]]:
            try:
                yield agent_run(0)[0]
                while True:
                    await asyncio.sleep(0.01)
                    yield text_delta(".")
            finally:
                stopped.append("endless")

        return EventStreamResponse(forever(), protocol=PROTOCOL)

    async def big(request: Request) -> Response:
        size = int(request.query_params.get("size", "65536"))

        def flood() -> Any:  # a blocking producer: read in a worker thread
            for _ in range(100_000):
                produced["big"] += 1
                yield text_delta("x" * size)

        return EventStreamResponse(flood(), protocol=PROTOCOL)

    async def state(request: Request) -> Response:
        return PlainTextResponse(f"{','.join(stopped)}|{produced['big']}")

    async def health(request: Request) -> Response:
        return PlainTextResponse("ok")

    async def not_streamed(request: Request) -> Response:
        # What a server answers a request that did not ask to stream.
        return JSONResponse({"output": [{"type": "message", "content": "hi"}]})

    routes = [
        Route("/run", run, methods=["GET", "POST"]),
        Route("/fail", fail),
        Route("/idle", idle),
        Route("/endless", endless),
        Route("/big", big),
        Route("/state", state),
        Route("/health", health),
        Route("/json", not_streamed, methods=["GET", "POST"]),
    ]
    return Starlette(routes=routes)


def _from_environment() -> Any:
    redis_url = os.environ.get("AGENTCODEC_TEST_REDIS_URL")
    store: ReplayStore = RedisReplayStore(redis_url) if redis_url else MemoryReplayStore()
    app: Any = make_app(store)
    drop_after = os.environ.get("AGENTCODEC_TEST_DROP_AFTER")
    if drop_after:
        app = DropFirstConnection(app, int(drop_after))
    return app


app = _from_environment()
