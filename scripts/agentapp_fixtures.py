"""Records tests/fixtures/agentapp/ from a real agentscope-runtime AgentApp.

One AgentApp serves one agent on three endpoints: ``/process`` (the Agent
API), ``/ag-ui`` and ``/compatible-mode/v1/responses``. This script runs one
under uvicorn on loopback, with query handlers that need no model (they
yield what an AgentScope agent yields: cumulative ``Msg`` chunks), calls each
endpoint with httpx and writes the bytes exactly as received. For every
stream it also records the reference its protocol's own SDK gives:

- ``/process``: nothing extra (tests/fixtures/agentscope covers the runtime's
  own final response);
- ``/compatible-mode/v1/responses``: what openai-python's own stream helper
  (``ResponseStreamState``, the state behind ``client.responses.stream``)
  accumulates from those bytes, decoded by openai-python's own SSE decoder:
  ``get_final_response()`` for a completed stream, and for every stream its
  last snapshot and the terminal response it hands out;
- ``/ag-ui``: every event validated by ag-ui-protocol's own event models
  (``TypeAdapter(ag_ui.core.Event)``) and the messages the AG-UI client's
  reducer builds from them (``tests/agui_reference.py``, a line-by-line port
  of ``@ag-ui/client``'s ``defaultApplyEvents``; the Python SDK has none).

Run it in an environment with agentscope-runtime (research agentscope.md
section 13 says why these pins):

    python3 -m venv /tmp/asr
    /tmp/asr/bin/pip install agentscope-runtime==1.1.6.post2 "agentscope>=1.0.14,<2" \\
        "mcp==1.19.*" "pydantic==2.12.*" greenlet tqdm uvicorn httpx openai ag-ui-protocol
    /tmp/asr/bin/python scripts/agentapp_fixtures.py
"""

from __future__ import annotations

import asyncio
import itertools
import json
import socket
import sys
import threading
import time
import uuid
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx
import uvicorn
from agentscope.message import Msg
from agentscope_runtime.engine.app import AgentApp
from agentscope_runtime.engine.schemas import agent_schemas
from agentscope_runtime.version import __version__ as runtime_version

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "fixtures" / "agentapp"
sys.path.insert(0, str(ROOT / "tests"))

from agui_reference import apply_events as agui_apply_events  # noqa: E402

# The long answer: multi-byte UTF-8 of every width, quotes, escapes and a
# line separator, in 300 growing chunks.
LONG_ANSWER = "".join(
    f'Paris {i}: {"é" if i % 3 else "数据"} "sunny"{" 🙂" if i % 7 == 0 else ""}{chr(0x2028) if i == 150 else ""}\n'
    for i in range(300)
)


CLOCK = 1763700000


def make_deterministic() -> None:
    """Message and response ids count up from 1 and the clock stands still,
    so that the three endpoints' runs of one handler carry the same ids."""
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
    """uvicorn serving the app on loopback, in a thread."""

    def __init__(self, app: AgentApp) -> None:
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
    make_deterministic()
    with httpx.Client(timeout=60) as client, client.stream("POST", base + path, json=body) as response:
        response.raise_for_status()
        headers = {
            key: value
            for key, value in response.headers.items()
            if key in ("content-type", "cache-control", "x-accel-buffering")
        }
        return headers, b"".join(response.iter_raw())


def responses_reference(stream: bytes) -> dict[str, Any]:
    """What openai-python's stream helper makes of the bytes."""
    from openai._models import construct_type
    from openai._streaming import SSEDecoder
    from openai._types import omit
    from openai.lib.streaming.responses._responses import ResponseStreamState
    from openai.types.responses import ResponseStreamEvent

    state: Any = ResponseStreamState(input_tools=omit, text_format=omit)
    decoder = SSEDecoder()
    handed_out: list[dict[str, Any]] = []
    for sse in decoder.iter_bytes(iter([stream])):
        if sse.data == "[DONE]":
            break
        event = construct_type(type_=ResponseStreamEvent, value=json.loads(sse.data))
        for out in state.handle_event(event):
            if out.type in ("response.completed", "response.failed", "response.incomplete"):
                handed_out.append(out.response.to_dict())
    completed = state._completed_response
    snapshot = state._ResponseStreamState__current_snapshot
    return {
        # get_final_response(): only a stream with response.completed has one.
        "final_response": completed.to_dict() if completed is not None else None,
        "output_text": completed.output_text if completed is not None else None,
        # What the helper accumulated as the events came (only output text and
        # function-call arguments are appended; items are not replaced).
        "snapshot": snapshot.to_dict() if snapshot is not None else None,
        # The terminal event's response as the helper hands it out.
        "terminal_response": handed_out[-1] if handed_out else None,
    }


def agui_reference(stream: bytes) -> dict[str, Any]:
    """The events as ag-ui-protocol validates them, and the client's messages."""
    from ag_ui.core import Event
    from pydantic import TypeAdapter

    adapter: TypeAdapter[Any] = TypeAdapter(Event)
    events = []
    for block in stream.decode("utf-8").split("\n\n"):
        if block.startswith("data: "):
            event = adapter.validate_json(block[len("data: ") :])
            events.append(json.loads(event.model_dump_json(by_alias=True)))
    state = agui_apply_events(events)
    return {"validated_events": events, **state}


def record(name: str, fail: bool) -> None:
    user = "What is the weather in Paris?"
    app = make_app(fail)
    with Server(app) as base:
        process_headers, process = post(
            base,
            "/process",
            {"input": [{"role": "user", "content": [{"type": "text", "text": user}]}], "session_id": "s1"},
        )
        agui_headers, agui = post(
            base,
            "/ag-ui",
            {
                "threadId": "thread_1",
                "runId": "run_1",
                "messages": [{"id": "u1", "role": "user", "content": user}],
            },
        )
        responses_headers, responses = post(
            base, "/compatible-mode/v1/responses", {"model": "friday", "input": user, "stream": True}
        )
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"{name}.process.sse").write_bytes(process)
    (OUT / f"{name}.agui.sse").write_bytes(agui)
    (OUT / f"{name}.responses.sse").write_bytes(responses)
    reference = {
        "source": f"agentscope-runtime {runtime_version} AgentApp on loopback ({'handler raises' if fail else 'agent turn'})",
        "headers": {"process": process_headers, "agui": agui_headers, "responses": responses_headers},
        "answer": LONG_ANSWER if not fail else LONG_ANSWER[:400],
        "responses": responses_reference(responses),
        "agui": agui_reference(agui),
    }
    (OUT / f"{name}.json").write_text(
        json.dumps(reference, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )


def main() -> int:
    record("agent_turn", fail=False)
    record("agent_fails", fail=True)
    print(f"wrote {len(list(OUT.glob('*.sse')))} streams to {OUT}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
