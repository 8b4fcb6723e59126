"""Writes tests/fixtures/langgraph/: the streams of a real LangGraph Agent
Server (langgraph-api, in memory, as ``langgraph dev`` runs it) and their
judges, for the LangGraph protocol's reader.

The server runs the graphs of ``scripts/langgraph_agent/`` (chat models that
stream as the providers' integrations do) offline: no LangSmith, no license,
no version check. Each case is one run, ``POST /threads/{id}/runs/stream``
with its stream modes, and gives:

- ``<name>.sse``: the bytes the server wrote;
- ``<name>.json``: the request; the parts langgraph-sdk reads from those
  bytes (its own SSE decoder), as ``(event, data)`` and as its v2 dicts
  (``type``, ``ns``, ``data``, ``interrupts``); the thread's state after the
  run (``GET /threads/{id}/state``); and ``expected``, what an assembler of
  the stream gives, built by the judges alone:

  - ``run_id`` from the ``metadata`` event; ``values``: the root graph's last
    ``values`` (its interrupts apart), which the script checks equals the
    thread's state; ``interrupts``: the root's last ``__interrupt__``;
    ``error``: the ``error`` event;
  - ``messages``, per namespace (``""`` the root graph, else the subgraph's
    ``node:task``): each message streamed, in the order first seen, made
    by langchain-core from its chunks (``AIMessageChunk`` addition and
    ``message_chunk_to_message``, as the model's ``invoke`` itself makes the
    message the graph keeps), or the last whole message the legacy
    ``messages`` mode sent. The script checks each one the state holds
    equals the state's. langchain-core ends a streamed message with an empty
    chunk marked ``chunk_position: "last"`` whose id is its own run's when
    the provider's chunks had one of their own: that chunk ends the message
    streamed before it, as the model's own aggregation reads it; the legacy
    mode sends it as an empty message of its own, which the thread never
    keeps, and which is dropped alike.

The same server speaks the LangChain Agent Streaming Protocol
(``POST /threads/{id}/stream/events``, the run started by a ``run.start``
command): ``PROTOCOL_CASES`` records a run of it into
``tests/fixtures/langchain/server/``, so that the two protocols' namespaces
(``messages|inner:<task>`` here, ``params.namespace`` there) are judged on
the same graph:

- ``<name>.sse``: the bytes, up to the root graph's end (its ``lifecycle``
  ``completed``, ``failed`` or ``interrupted``);
- ``<name>.json``: the request, the thread's state after the run, and each
  AI message as langchain-core's ``ChatModelStream`` assembles it from its
  events, with the namespace and node it streamed in.

``runs`` records ``tests/fixtures/langgraph/runs.json``: how the server
answers the calls on runs langgraph-sdk makes beside streaming one
(``runs.create``, ``runs.wait``, ``runs.get``, ``runs.list``,
``runs.join``, ``runs.cancel``, and the stateless runs with no thread), each
as its status, the ``Location`` and ``Content-Location`` it names (ids as
``{thread_id}`` and ``{run_id}``), and the shape of its body: a run's keys
and status, or the keys of a run's result (``__error__`` for a failed run,
``__interrupt__`` beside the values for an interrupted one). ``assistants``
records ``tests/fixtures/langgraph/assistants.json`` alike: the calls
langgraph-sdk's ``assistants`` makes (search, count, get, the graph of a
graph of one node). ``threads`` records ``tests/fixtures/langgraph/threads.json``:
the calls on threads (create, get, state, history, search, delete), before
and after a run and after a cancel, each as its status and the shape of its
body (a thread's keys, status and values' keys; a state's keys, next nodes,
tasks, and its values', metadata's and checkpoint's keys). ``thread_metadata``
records ``tests/fixtures/langgraph/thread_metadata.json``: threads made
with metadata, updated, searched by it and by values, counted, and made
by a run, each call's status and the metadata it gives. ``history`` records
``tests/fixtures/langgraph/history.json``: a thread's history after two runs
of a graph of one node, and its states at checkpoints, as their shapes; and
after a run that failed.

    python3 -m venv /tmp/lg
    /tmp/lg/bin/pip install "langgraph-cli[inmem]==0.4.40" "langgraph-api==0.16.7" langgraph-sdk==0.4.14
    /tmp/lg/bin/python scripts/langgraph_fixtures.py             # every case
    /tmp/lg/bin/python scripts/langgraph_fixtures.py subgraphs   # these cases (of both kinds)
    /tmp/lg/bin/python scripts/langgraph_fixtures.py runs        # the calls on runs
    /tmp/lg/bin/python scripts/langgraph_fixtures.py assistants  # the calls on assistants
    /tmp/lg/bin/python scripts/langgraph_fixtures.py threads     # the calls on threads
    /tmp/lg/bin/python scripts/langgraph_fixtures.py thread_metadata  # and on their metadata
    /tmp/lg/bin/python scripts/langgraph_fixtures.py history     # a thread's history
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from langchain_core.language_models.chat_model_stream import ChatModelStream
from langchain_core.messages import AIMessageChunk, message_chunk_to_message
from langgraph_sdk._shared.utilities import _sse_to_v2_dict
from langgraph_sdk.sse import BytesLineDecoder, SSEDecoder

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
# The calls, and the shape of their answers, the gateway's tests compare.
from langgraph_runs import (  # noqa: E402
    answered,
    assistant_calls,
    cancelled_runs,
    ended_runs,
    failed_history_calls,
    history_calls,
    metadata_calls,
    thread_calls,
)

OUT = ROOT / "tests" / "fixtures" / "langgraph"
PROJECT = Path(__file__).resolve().parent / "langgraph_agent"
QUESTION = {"messages": [{"role": "user", "content": "What is the weather in Paris?"}]}

#: name: (assistant, stream modes, more of the request, a run before it on the same thread)
CASES: dict[str, tuple[str, list[str], dict[str, Any], dict[str, Any] | None]] = {
    # messages-tuple, the mode useStream asks for, beside the state's values and updates.
    "tool_call": ("agent", ["values", "updates", "messages-tuple", "custom"], {}, None),
    # The legacy messages mode: each message whole so far, then complete.
    "legacy_messages": ("agent", ["messages"], {}, None),
    "values_only": ("agent", ["values"], {}, None),
    "thinking": ("thinker", ["values", "messages-tuple"], {}, None),
    # A graph of one node, in the modes useStream and RemoteGraph ask for: the shape of a run
    # the gateway's LangGraph routes stream (its agent is such a node).
    "one_node": ("thinker", ["values", "updates", "messages-tuple"], {}, None),
    "interrupt": ("approval", ["values", "updates", "custom", "messages-tuple"], {}, None),
    # The same thread resumed with an answer to the interrupt.
    "interrupt_resumed": (
        "approval",
        ["values", "updates", "messages-tuple"],
        {"command": {"resume": "yes"}, "input": None},
        {"assistant_id": "approval", "input": QUESTION, "stream_mode": ["values"]},
    ),
    "error": ("broken", ["values", "messages-tuple"], {}, None),
    "subgraphs": ("nested", ["values", "updates", "messages-tuple"], {"stream_subgraphs": True}, None),
    # Two subgraphs side by side: their messages interleave, each in its namespace.
    "parallel": ("parallel", ["values", "updates", "messages-tuple"], {"stream_subgraphs": True}, None),
    # Two nodes of the root graph side by side: their messages interleave in one namespace.
    "fanout": ("fanout", ["values", "updates", "messages-tuple"], {}, None),
    "debug": ("agent", ["debug", "tasks", "checkpoints"], {}, None),
    # The same of a graph of one node, as the gateway's LangGraph routes stream it.
    "one_node_debug": ("thinker", ["debug", "tasks", "checkpoints"], {}, None),
    # ... and of one whose node fails.
    "one_node_debug_error": ("broken", ["debug", "tasks", "checkpoints"], {}, None),
    # The callbacks of such a run (LangChain's astream_events), as the streaming how-tos read tokens.
    "one_node_events": ("thinker", ["events"], {}, None),
    "resumable": ("agent", ["values", "messages-tuple"], {"stream_resumable": True}, None),
}


#: name: (assistant, channels) of a LangChain protocol run (tests/fixtures/langchain/server/)
PROTOCOL_CASES: dict[str, tuple[str, list[str]]] = {
    "subgraphs": ("nested", ["values", "updates", "messages", "tools", "lifecycle", "custom"]),
    "parallel": ("parallel", ["values", "updates", "messages", "tools", "lifecycle", "custom"]),
    # (not "fanout": langgraph-api writes both nodes' messages in the root namespace without
    # a node, interleaved, and langchain-core's ChatModelStream reads one of them)
}
PROTOCOL_OUT = ROOT / "tests" / "fixtures" / "langchain" / "server"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def sdk_parts(stream: bytes) -> list[tuple[str, Any, str | None]]:
    """The parts langgraph-sdk's client reads from the bytes: (event, data, id)."""
    decoder = SSEDecoder()
    parts = []
    for line in BytesLineDecoder().decode(stream) + BytesLineDecoder().flush():
        part = decoder.decode(line.rstrip(b"\n"))
        if part is not None:
            parts.append((part.event, part.data, part.id))
    return parts


def namespace(event: str) -> tuple[str, str]:
    mode, _, ns = event.partition("|")
    return mode, ns


def assembled_messages(parts: list[tuple[str, Any, str | None]]) -> dict[str, list[dict[str, Any]]]:
    """Each namespace's messages, by the judges' rules (see the module's doc)."""
    chunks: dict[str, dict[str, Any]] = {}  # namespace: {message id: sum of chunks, or a whole message}
    last: dict[str, str] = {}  # namespace: the id of the message streamed last
    for event, data, _ in parts:
        mode, ns = namespace(event)
        held = chunks.setdefault(ns, {})
        if mode == "messages" and isinstance(data, list) and len(data) == 2 and isinstance(data[1], dict):
            message = data[0]
            if message.get("type") == "AIMessageChunk":
                fields = {key: value for key, value in message.items() if key != "type"}
                chunk = AIMessageChunk(**fields)
                empty_end = (
                    chunk.chunk_position == "last" and not chunk.content and not chunk.tool_call_chunks
                )
                target = (
                    last.get(ns) if empty_end and chunk.id not in held and last.get(ns) in held else chunk.id
                )
                held[target] = held[target] + chunk if target in held else chunk
                last[ns] = target
            else:
                held[message["id"]] = message
                last[ns] = message["id"]
        elif mode in ("messages/partial", "messages/complete") and isinstance(data, list):
            for message in data:
                ends_another = (
                    message["id"] not in held
                    and message["id"].startswith("lc_run-")
                    and not message.get("content")
                    and not message.get("tool_calls")
                    and ns in last
                )
                if not ends_another:
                    held[message["id"]] = message
                    last[ns] = message["id"]
    out: dict[str, list[dict[str, Any]]] = {}
    for ns, messages in chunks.items():
        if not messages:
            continue
        out[ns] = [
            message_chunk_to_message(message).model_dump() if isinstance(message, AIMessageChunk) else message
            for message in messages.values()
        ]
    return out


def expected(parts: list[tuple[str, Any, str | None]]) -> dict[str, Any]:
    result: dict[str, Any] = {"run_id": None, "values": None, "interrupts": [], "error": None}
    for event, data, _ in parts:
        mode, ns = namespace(event)
        if mode == "metadata" and isinstance(data, dict):
            result["run_id"] = data.get("run_id")
        elif mode == "error":
            result["error"] = data
        elif ns:
            continue
        elif mode == "values" and isinstance(data, dict):
            values = dict(data)
            result["interrupts"] = values.pop("__interrupt__", [])
            result["values"] = values
        elif mode == "updates" and isinstance(data, dict) and "__interrupt__" in data:
            result["interrupts"] = data["__interrupt__"]
    result["messages"] = assembled_messages(parts)
    return result


def record(base: str, name: str, case: tuple[str, list[str], dict[str, Any], dict[str, Any] | None]) -> None:
    assistant, modes, more, before = case
    with httpx.Client(base_url=base, timeout=60) as client:
        thread = client.post("/threads", json={}).json()["thread_id"]
        if before is not None:
            client.post(f"/threads/{thread}/runs/stream", json=before).read()
        body: dict[str, Any] = {"assistant_id": assistant, "input": QUESTION, "stream_mode": modes, **more}
        stream = client.post(f"/threads/{thread}/runs/stream", json=body).content
        state = client.get(f"/threads/{thread}/state").json()
    parts = sdk_parts(stream)
    judged = expected(parts)
    # The judges agree with the server: what the root streamed last is the thread's state.
    if judged["values"] is not None:
        assert judged["values"] == state["values"], name
    if judged["error"] is None:
        kept = {message["id"]: message for message in (state["values"] or {}).get("messages", [])}
        for message in judged["messages"].get("", []):
            if message["id"] in kept:
                assert message == kept[message["id"]], (name, message, kept[message["id"]])
    (OUT / f"{name}.sse").write_bytes(stream)
    judge = {
        "request": body,
        "parts": [[event, data] for event, data, _ in parts],
        "ids": [part_id for _, _, part_id in parts],
        "v2": [
            v2
            for event, data, _ in parts
            if (v2 := _sse_to_v2_dict(event, json.loads(json.dumps(data)))) is not None
        ],
        "state": {key: state.get(key) for key in ("values", "next", "tasks", "interrupts")},
        "expected": judged,
    }
    (OUT / f"{name}.json").write_text(
        json.dumps(judge, ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
    )
    print(f"{name}: {len(stream)} bytes, {len(parts)} parts")


def protocol_envelopes(stream: bytes) -> list[dict[str, Any]]:
    """The envelopes of a LangChain protocol stream, as langgraph-sdk's
    SSE decoder reads them (heartbeat comments aside)."""
    return [data for _, data, _ in sdk_parts(stream) if isinstance(data, dict)]


def judged_messages(envelopes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each AI message, as ChatModelStream assembles it from its events
    (keyed, as the protocol keys them, by namespace and node)."""
    streams: dict[tuple[tuple[str, ...], Any], ChatModelStream] = {}
    judged = []
    for envelope in envelopes:
        params = envelope.get("params", {})
        if envelope.get("method") != "messages":
            continue
        key = (tuple(params["namespace"]), params.get("node"))
        data = params["data"]
        if data.get("event") == "message-start" and data.get("role") == "ai":
            streams[key] = ChatModelStream(
                namespace=params["namespace"], node=params.get("node"), message_id=data.get("id")
            )
        stream = streams.get(key)
        if stream is None:
            continue
        stream.dispatch(data)
        if data.get("event") in ("message-finish", "error"):
            message = stream.output
            judged.append(
                {
                    "namespace": params["namespace"],
                    "node": params.get("node"),
                    "id": message.id,
                    "content": message.content,
                    "tool_calls": message.tool_calls,
                    "usage": message.usage_metadata,
                }
            )
            del streams[key]
    return judged


def record_protocol(base: str, name: str, case: tuple[str, list[str]]) -> None:
    assistant, channels = case
    with httpx.Client(base_url=base, timeout=60) as client:
        thread = client.post("/threads", json={}).json()["thread_id"]
        subscription = {"channels": channels}
        command = {"id": 1, "method": "run.start", "params": {"assistant_id": assistant, "input": QUESTION}}
        stream = bytearray()
        with client.stream("POST", f"/threads/{thread}/stream/events", json=subscription) as response:
            # Subscribed (the response has begun): the run may start.
            answer = httpx.post(f"{base}/threads/{thread}/commands", json=command, timeout=60).json()
            assert answer["type"] == "success", answer
            for chunk in response.iter_bytes():
                stream += chunk
                ends = [
                    envelope
                    for envelope in protocol_envelopes(bytes(stream))
                    if envelope.get("method") == "lifecycle"
                    and envelope["params"]["namespace"] == []
                    and envelope["params"]["data"].get("event") in ("completed", "failed", "interrupted")
                ]
                if ends:
                    break
        state = client.get(f"/threads/{thread}/state").json()
    # Up to the end of the root graph's last event: what follows is heartbeats.
    last = bytes(stream).rfind(b"event: lifecycle")
    ending = re.compile(rb"\r\n\r\n|\n\n|\r\r").search(stream, last)
    assert ending is not None
    body = bytes(stream[: ending.end()])
    envelopes = protocol_envelopes(body)
    PROTOCOL_OUT.mkdir(parents=True, exist_ok=True)
    (PROTOCOL_OUT / f"{name}.sse").write_bytes(body)
    judge = {
        "request": {"subscription": subscription, "command": command},
        "state": {key: state.get(key) for key in ("values", "next", "tasks", "interrupts")},
        "messages": judged_messages(envelopes),
    }
    (PROTOCOL_OUT / f"{name}.json").write_text(
        json.dumps(judge, ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
    )
    print(f"langchain/server/{name}: {len(body)} bytes, {len(envelopes)} events")


RUNS = "runs"
ASSISTANTS = "assistants"
THREADS = "threads"
THREAD_METADATA = "thread_metadata"
HISTORY = "history"


def runs_calls(client: httpx.Client) -> dict[str, Any]:
    """The calls on runs beside streaming one, as the server answers them."""

    def thread() -> str:
        return str(client.post("/threads", json={}).json()["thread_id"])

    calls = ended_runs(client, thread(), QUESTION, answering="agent", failing="broken")
    interrupted = thread()
    response = client.post(
        f"/threads/{interrupted}/runs/wait", json={"assistant_id": "approval", "input": QUESTION}
    )
    run_id = response.headers["content-location"].rsplit("/", 1)[1]
    calls["wait_interrupt"] = answered(response, {"thread_id": interrupted, "run_id": run_id})
    cancelled, stream = cancelled_runs(client, (thread(), thread()), QUESTION, slow="slow")
    calls |= cancelled
    calls["cancelled_stream_events"] = [event for event, _, _ in sdk_parts(stream)]
    body = {"assistant_id": "agent", "input": QUESTION, "stream_mode": ["values"]}
    response = client.post("/runs/stream", json=body)
    run_id = response.headers["content-location"].rsplit("/", 1)[1]
    calls["stateless_stream"] = answered(response, {"run_id": run_id})
    calls["stateless_stream"]["events"] = sorted({event for event, _, _ in sdk_parts(response.content)})
    return calls


def history_and_failure_calls(client: httpx.Client) -> dict[str, Any]:
    """A thread's history and its states at checkpoints; and a thread's
    state after a run that failed."""
    calls = history_calls(client, QUESTION, answering="thinker", node="think")
    calls["failed"] = failed_history_calls(client, QUESTION, failing="broken", node="explode")
    return calls


# The recordings of calls, by their names (each written to ``<name>.json``).
CALLS: dict[str, Callable[[httpx.Client], dict[str, Any]]] = {
    RUNS: runs_calls,
    ASSISTANTS: lambda client: assistant_calls(client, "agent", ("thinker", "think")),
    THREADS: lambda client: thread_calls(client, QUESTION, answering="agent", slow="slow"),
    THREAD_METADATA: lambda client: metadata_calls(client, QUESTION, answering="agent"),
    HISTORY: history_and_failure_calls,
}


def record_calls(base: str, name: str) -> None:
    """The calls ``name`` makes, as the server answers them."""
    with httpx.Client(base_url=base, timeout=60) as client:
        calls = CALLS[name](client)
    (OUT / f"{name}.json").write_text(json.dumps(calls, indent=1) + "\n", encoding="utf-8")
    print(f"{name}: {len(calls)} calls")


def main() -> None:
    unknown = set(sys.argv[1:]) - set(CASES) - set(PROTOCOL_CASES) - set(CALLS)
    if unknown:
        raise SystemExit(f"no such case: {', '.join(sorted(unknown))}")
    OUT.mkdir(parents=True, exist_ok=True)
    port = free_port()
    env = {
        **os.environ,
        "LANGGRAPH_NO_VERSION_CHECK": "true",
        "LANGGRAPH_CLI_NO_ANALYTICS": "1",
        "LANGSMITH_TRACING": "false",
        "LANGCHAIN_TRACING_V2": "false",
    }
    langgraph = Path(sys.executable).parent / "langgraph"
    with tempfile.TemporaryDirectory() as work:
        project = Path(work) / "agent"
        shutil.copytree(PROJECT, project)
        server = subprocess.Popen(
            [str(langgraph), "dev", "--no-browser", "--no-reload", "--port", str(port)],
            cwd=project,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    if httpx.get(f"{base}/ok").status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline or server.poll() is not None:
                    raise SystemExit("langgraph dev did not start")
                time.sleep(0.5)
            chosen = set(sys.argv[1:]) or set(CASES) | set(PROTOCOL_CASES) | set(CALLS)
            for name, case in CASES.items():
                if name in chosen:
                    record(base, name, case)
            for name, protocol_case in PROTOCOL_CASES.items():
                if name in chosen:
                    record_protocol(base, name, protocol_case)
            for name in CALLS:
                if name in chosen:
                    record_calls(base, name)
        finally:
            server.terminate()
            server.wait(10)


if __name__ == "__main__":
    main()
