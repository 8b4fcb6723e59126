"""A real agentscope-runtime AgentApp, as the AgentApp scripts run and call it.

One AgentApp serves one agent on several protocols at once. The handlers
here need no model: they yield what an AgentScope agent yields (cumulative
``Msg`` chunks), with ids counted from 1 and the clock standing still, so
that every endpoint's run of one handler carries the same ids.

Each protocol the scripts call on the AgentApp is a module of
``scripts/agentapp_endpoints/`` declaring its ``ENDPOINT``: the path and
request, what the protocol's own SDK makes of a stream, and how the
gateway's stream is judged against the AgentApp's. ``endpoints()`` lists
them; adding a protocol the AgentApp serves is adding a module there.

It needs agentscope-runtime (research agentscope.md section 13 says why
these pins); scripts/agentapp_fixtures.py says how to make the environment.
"""

from __future__ import annotations

import asyncio
import importlib
import itertools
import json
import pkgutil
import socket
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx
import uvicorn
from agentscope.message import Msg
from agentscope_runtime.engine.app import AgentApp
from agentscope_runtime.engine.schemas import agent_schemas

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "fixtures" / "agentapp"

QUESTION = "What is the weather in Paris?"

# The long answer: multi-byte UTF-8 of every width, quotes, escapes and a
# line separator, in 300 growing chunks.
LONG_ANSWER = "".join(
    f'Paris {i}: {"é" if i % 3 else "数据"} "sunny"{" 🙂" if i % 7 == 0 else ""}{chr(0x2028) if i == 150 else ""}\n'
    for i in range(300)
)


CLOCK = 1763700000

Check = Callable[[str, bool], None]


@dataclass(frozen=True)
class Endpoint:
    """One protocol the AgentApp serves, as the scripts call and judge it."""

    # Its name in the recordings: ``<run>.<key>.sse``, and its entries in
    # ``<run>.json`` (its response headers, and its SDK's reference).
    key: str
    path: str
    body: dict[str, Any]
    # What the protocol's own SDK makes of a stream; None when the
    # recording's reference lives elsewhere.
    reference: Callable[[bytes], dict[str, Any]] | None
    # judge(label, theirs, ours, fail, check): the gateway's stream against
    # the AgentApp's, each finding told to ``check``.
    judge: Callable[[str, bytes, bytes, bool, Check], None]


def endpoints() -> list[Endpoint]:
    """The endpoints of scripts/agentapp_endpoints/, in the order of their modules."""
    import agentapp_endpoints

    return [
        importlib.import_module(f"agentapp_endpoints.{module.name}").ENDPOINT
        for module in pkgutil.iter_modules(agentapp_endpoints.__path__)
    ]


def make_deterministic() -> None:
    """Message and response ids count up from 1 and the clock stands still,
    so that the endpoints' runs of one handler carry the same ids."""
    counter = itertools.count(1)

    def uuid4() -> uuid.UUID:
        return uuid.UUID(int=next(counter))

    agent_schemas.uuid4 = uuid4
    agent_schemas.datetime = SimpleNamespace(now=lambda: SimpleNamespace(timestamp=lambda: float(CLOCK)))


def msg(msg_id: str, role: str, content: list[dict[str, Any]]) -> Msg:
    message = Msg(name="Friday", role=role, content=content)
    message.id = msg_id
    return message


def agent_turn(fail: bool) -> list[tuple[Msg, bool]]:
    """Reasoning, a streamed tool call, its result, then a long answer, as an
    AgentScope ReActAgent streams them (content cumulative per message id)."""
    thinking = "The user wants the weather in Paris; I should call get_weather."
    steps: list[tuple[Msg, bool]] = []
    for end in range(8, len(thinking) + 1, 8):
        steps.append(
            (msg("m_reason", "assistant", [{"type": "thinking", "thinking": thinking[:end]}]), False)
        )
    steps.append((msg("m_reason", "assistant", [{"type": "thinking", "thinking": thinking}]), True))
    tool = {"type": "tool_use", "id": "call_w1", "name": "get_weather"}
    for partial in ({"city": "Pa"}, {"city": "Paris"}):
        steps.append((msg("m_call", "assistant", [{**tool, "input": partial}]), False))
    steps.append((msg("m_call", "assistant", [{**tool, "input": {"city": "Paris", "unit": "C"}}]), True))
    result = {
        "type": "tool_result",
        "id": "call_w1",
        "name": "get_weather",
        "output": [{"type": "text", "text": "21 °C, sunny"}],
    }
    steps.append((msg("m_result", "system", [result]), True))
    answer = LONG_ANSWER if not fail else LONG_ANSWER[:400]
    cuts = [*list(range(0, len(answer), max(1, len(answer) // 300)))[1:], len(answer)]
    for end in cuts:
        steps.append((msg("m_answer", "assistant", [{"type": "text", "text": answer[:end]}]), False))
    if not fail:
        steps.append((msg("m_answer", "assistant", [{"type": "text", "text": answer}]), True))
    return steps


def make_app(fail: bool) -> AgentApp:
    app = AgentApp(app_name="Friday", app_description="records fixtures")

    @app.query(framework="agentscope")
    async def query(self: Any, msgs: Any = None, request: Any = None, **kwargs: Any) -> Any:
        for message, last in agent_turn(fail):
            yield message, last
            await asyncio.sleep(0)
        if fail:
            raise RuntimeError("the weather service went away")

    return app


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Server:
    """uvicorn serving an app on loopback, in a thread."""

    def __init__(self, app: Any) -> None:
        self.port = free_port()
        config = uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning", lifespan="on")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> str:
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.05)
        return f"http://127.0.0.1:{self.port}"

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)


def post(base: str, path: str, body: dict[str, Any]) -> tuple[dict[str, str], bytes]:
    """The streamed answer to one request: its headers of note and its bytes as received."""
    make_deterministic()
    with httpx.Client(timeout=60) as client, client.stream("POST", base + path, json=body) as response:
        response.raise_for_status()
        headers = {
            key: value
            for key, value in response.headers.items()
            if key in ("content-type", "cache-control", "x-accel-buffering")
        }
        return headers, b"".join(response.iter_raw())


def data(stream: bytes) -> list[dict[str, Any]]:
    """The JSON of each event of an SSE stream (agentcodec is needed only here,
    in the environment that runs the gateway)."""
    from agentcodec import SSEDecoder

    decoder = SSEDecoder(max_line_bytes=None, max_event_bytes=None)
    return [json.loads(event.data) for event in [*decoder.feed(stream), *decoder.close()]]
