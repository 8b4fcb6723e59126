"""Records tests/fixtures/a2a/: what a real a2a-sdk server streams, and the
Task it holds afterwards, for the A2A protocol's reader and writer to be
judged by.

A streaming AgentExecutor plays a few runs, chosen by the user's text:

- ``answer``: working, the answer streamed as text chunks of one artifact
  (``append``, then ``lastChunk``), a data artifact, a file artifact, then
  completed with a message;
- ``fail``: working, one chunk, then failed with a message;
- ``input``: working, then input-required with a question;
- ``reject``: rejected at once;
- ``crash``: working, one chunk, then the executor raises (0.3 drops the
  connection mid-body; 1.x sends ``event: error`` with a JSON-RPC error).

For each, the script sends ``message/stream`` (0.3) or
``SendStreamingMessage`` with ``A2A-Version: 1.0`` (1.x) to the server on
loopback, keeps the response's bytes as they came
(``v<major>_<run>.sse``), then asks for the task (``tasks/get`` /
``GetTask``) and keeps it (``v<major>_<run>.task.json``): the server's own
accumulation of the events it sent, what an A2A reader should give.

Run it once in an environment of each major of a2a-sdk:

    python3 -m venv /tmp/a2a03 && /tmp/a2a03/bin/pip install "a2a-sdk[http-server]==0.3.26" uvicorn httpx
    /tmp/a2a03/bin/python scripts/a2a_fixtures.py
    python3 -m venv /tmp/a2a1 && /tmp/a2a1/bin/pip install "a2a-sdk[http-server]==1.3.0" uvicorn httpx
    /tmp/a2a1/bin/python scripts/a2a_fixtures.py

The user's message id and the context id come from the request and the
artifacts are named; the task's id, the ids of the messages 0.3's helpers
make and the timestamps are the server's, different in every recording.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from importlib.metadata import version
from pathlib import Path
from typing import Any

import httpx
import uvicorn

OUT = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "a2a"
SDK = version("a2a-sdk")
MAJOR = SDK.split(".")[0]
RUNS = ("answer", "fail", "input", "reject", "crash")
ANSWER = ["The ", "answer ", "streams ", "in ", "chunks: ", "naïve ", "数据 ", "🙂"]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


# --- the executor, for each major ----------------------------------------------------------


def executor_v0() -> Any:
    from a2a.server.agent_execution import AgentExecutor, RequestContext
    from a2a.server.events import EventQueue
    from a2a.server.tasks import TaskUpdater
    from a2a.types import DataPart, FilePart, FileWithUri, Part, TextPart
    from a2a.utils import get_message_text, new_agent_text_message, new_task

    class Executor(AgentExecutor):
        async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
            message = context.message
            assert message is not None
            run = get_message_text(message).strip()
            task = context.current_task or new_task(message)
            await event_queue.enqueue_event(task)
            updater = TaskUpdater(event_queue, task.id, task.context_id)

            def said(text: str) -> Any:
                return new_agent_text_message(text, task.context_id, task.id)

            if run == "reject":
                await updater.reject(said("I cannot do that."))
                return
            await updater.start_work(said("Working on it."))
            chunks = ANSWER if run == "answer" else ANSWER[:1]
            for position, chunk in enumerate(chunks):
                await updater.add_artifact(
                    [Part(root=TextPart(text=chunk))],
                    artifact_id="answer",
                    name="answer",
                    append=position > 0,
                    last_chunk=run == "answer" and position == len(chunks) - 1,
                )
            if run == "crash":
                raise RuntimeError("the executor crashed")
            if run == "fail":
                await updater.failed(said("The tool failed."))
            elif run == "input":
                await updater.requires_input(said("Which city?"), final=True)
            else:
                await updater.add_artifact(
                    [Part(root=DataPart(data={"temperature": 21.5, "unit": "C", "tags": ["a", 1, None]}))],
                    artifact_id="weather",
                    name="weather",
                )
                await updater.add_artifact(
                    [
                        Part(
                            root=FilePart(
                                file=FileWithUri(uri="https://example.com/r.pdf", mime_type="application/pdf")
                            )
                        )
                    ],
                    artifact_id="report",
                    name="report",
                )
                await updater.complete(said("Done."))

        async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
            raise NotImplementedError

    return Executor()


def executor_v1() -> Any:
    from a2a.server.agent_execution import AgentExecutor, RequestContext
    from a2a.server.events import EventQueue
    from a2a.server.tasks import TaskUpdater
    from a2a.types import a2a_pb2 as pb
    from google.protobuf import struct_pb2

    class Executor(AgentExecutor):
        async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
            message = context.message
            assert message is not None
            run = "".join(part.text for part in message.parts).strip()
            task_id, context_id = context.task_id, context.context_id
            if context.current_task is None:
                await event_queue.enqueue_event(
                    pb.Task(
                        id=task_id,
                        context_id=context_id,
                        status=pb.TaskStatus(state=pb.TaskState.TASK_STATE_SUBMITTED),
                        history=[message],
                    )
                )
            updater = TaskUpdater(event_queue, task_id, context_id)

            def said(text: str) -> Any:
                return pb.Message(
                    message_id=f"{task_id}-{len(text)}",
                    role=pb.Role.ROLE_AGENT,
                    parts=[pb.Part(text=text)],
                    context_id=context_id,
                    task_id=task_id,
                )

            if run == "reject":
                await updater.reject(said("I cannot do that."))
                return
            await updater.start_work(said("Working on it."))
            chunks = ANSWER if run == "answer" else ANSWER[:1]
            for position, chunk in enumerate(chunks):
                await updater.add_artifact(
                    [pb.Part(text=chunk)],
                    artifact_id="answer",
                    name="answer",
                    append=position > 0,
                    last_chunk=run == "answer" and position == len(chunks) - 1,
                )
            if run == "crash":
                raise RuntimeError("the executor crashed")
            if run == "fail":
                await updater.failed(said("The tool failed."))
            elif run == "input":
                await updater.requires_input(said("Which city?"))
            else:
                data = struct_pb2.Value()
                data.struct_value.update({"temperature": 21.5, "unit": "C", "tags": ["a", 1, None]})
                await updater.add_artifact([pb.Part(data=data)], artifact_id="weather", name="weather")
                await updater.add_artifact(
                    [pb.Part(url="https://example.com/r.pdf", media_type="application/pdf")],
                    artifact_id="report",
                    name="report",
                )
                await updater.complete(said("Done."))

        async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
            raise NotImplementedError

    return Executor()


# --- the server, for each major ------------------------------------------------------------


def app_v0(url: str) -> Any:
    from a2a.server.apps import A2AStarletteApplication
    from a2a.server.request_handlers import DefaultRequestHandler
    from a2a.server.tasks import InMemoryTaskStore
    from a2a.types import AgentCapabilities, AgentCard, AgentSkill

    card = AgentCard(
        name="fixture agent",
        description="Plays the runs the fixtures record.",
        url=url,
        version="1.0.0",
        default_input_modes=["text"],
        default_output_modes=["text"],
        capabilities=AgentCapabilities(streaming=True),
        skills=[AgentSkill(id="answer", name="answer", description="answers", tags=["fixture"])],
    )
    handler = DefaultRequestHandler(agent_executor=executor_v0(), task_store=InMemoryTaskStore())
    return A2AStarletteApplication(agent_card=card, http_handler=handler).build()


def app_v1(url: str) -> Any:
    from a2a.server.request_handlers import DefaultRequestHandler
    from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
    from a2a.server.tasks import InMemoryTaskStore
    from a2a.types import a2a_pb2 as pb
    from starlette.applications import Starlette

    card = pb.AgentCard(
        name="fixture agent",
        description="Plays the runs the fixtures record.",
        version="1.0.0",
        supported_interfaces=[pb.AgentInterface(url=url, protocol_binding="JSONRPC", protocol_version="1.0")],
        default_input_modes=["text"],
        default_output_modes=["text"],
        capabilities=pb.AgentCapabilities(streaming=True),
        skills=[pb.AgentSkill(id="answer", name="answer", description="answers", tags=["fixture"])],
    )
    handler = DefaultRequestHandler(
        agent_executor=executor_v1(), task_store=InMemoryTaskStore(), agent_card=card
    )
    routes = create_jsonrpc_routes(handler, "/") + create_agent_card_routes(card)
    return Starlette(routes=routes)


# --- recording ---------------------------------------------------------------------------------


def request(run: str) -> tuple[dict[str, Any], dict[str, str]]:
    """The JSON-RPC request of a run, and its headers."""
    ids = {"task": f"task-{run}", "context": f"context-{run}", "message": f"message-{run}"}
    if MAJOR == "0":
        message = {
            "kind": "message",
            "role": "user",
            "messageId": ids["message"],
            "contextId": ids["context"],
            "parts": [{"kind": "text", "text": run}],
        }
        return {"jsonrpc": "2.0", "id": 1, "method": "message/stream", "params": {"message": message}}, {}
    message = {
        "role": "ROLE_USER",
        "messageId": ids["message"],
        "contextId": ids["context"],
        "parts": [{"text": run}],
    }
    body = {"jsonrpc": "2.0", "id": 1, "method": "SendStreamingMessage", "params": {"message": message}}
    return body, {"A2A-Version": "1.0"}


def task_request(task_id: str) -> tuple[dict[str, Any], dict[str, str]]:
    if MAJOR == "0":
        return {"jsonrpc": "2.0", "id": 2, "method": "tasks/get", "params": {"id": task_id}}, {}
    return {"jsonrpc": "2.0", "id": 2, "method": "GetTask", "params": {"id": task_id}}, {"A2A-Version": "1.0"}


def task_id_of(stream: bytes) -> str:
    """The task the stream is about: the first event's."""
    for line in stream.decode().splitlines():
        if line.startswith("data:"):
            result = json.loads(line[5:])["result"]
            for value in (result, *(v for v in result.values() if isinstance(v, dict))):
                for key in ("taskId", "id"):
                    if isinstance(value.get(key), str) and (key == "taskId" or "status" in value):
                        return str(value[key])
    raise RuntimeError(f"no task in the stream:\n{stream.decode()[:500]}")


def record(base: str) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    with httpx.Client(base_url=base, timeout=10) as client:
        for run in RUNS:
            body, headers = request(run)
            pieces: list[bytes] = []
            with client.stream("POST", "/", json=body, headers=headers) as response:
                response.raise_for_status()
                try:
                    for piece in response.iter_raw():
                        pieces.append(piece)
                except httpx.RemoteProtocolError:
                    pass  # a crash 0.3 answers by dropping the connection: keep what came
            stream = b"".join(pieces)
            name = f"v{MAJOR}_{run}"
            (OUT / f"{name}.sse").write_bytes(stream)
            body, headers = task_request(task_id_of(stream))
            task = client.post("/", json=body, headers=headers).json()["result"]
            recorded = {"sdk": f"a2a-sdk {SDK}", "task": task}
            (OUT / f"{name}.task.json").write_text(json.dumps(recorded, indent=2, ensure_ascii=False) + "\n")
            print(f"wrote {name}: {len(stream)} bytes, task {task['status']['state']}")


def main() -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    app = app_v0(base + "/") if MAJOR == "0" else app_v1(base + "/")
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    try:
        record(base)
    finally:
        server.should_exit = True
        thread.join()


if __name__ == "__main__":
    asyncio.set_event_loop_policy(None)
    main()
