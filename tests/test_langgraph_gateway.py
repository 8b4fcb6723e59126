"""The gateway as a LangGraph Agent Server, called by langgraph-sdk's own
client on uvicorn: a thread's runs streamed, joined again, its state; the
modes asked for; resume; what it refuses."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from agent_servers import FIXTURES as AGENTAPP_FIXTURES
from agent_servers import ScriptedAgent
from agentcodec import SSEDecoder, langgraph
from agentcodec.gateway import DemoAgent, Gateway
from agentcodec.server import MemoryReplayStore, RedisReplayStore
from gateway_clients import two_replicas
from langgraph_runs import (
    answered,
    assistant_calls,
    cancelled_runs,
    ended_runs,
    failed_history_calls,
    history_calls,
    metadata_calls,
    thread_calls,
)
from protocol_table import FIXTURES
from servers import redis_server, serve, wait_until
from sse_helpers import data_events
from test_gateway_timeouts import endless_run, gateway_with, read_then_leave

pytest.importorskip("langgraph_sdk")

QUESTION = "How many words are in this question?"
ANSWER = f'You wrote "{QUESTION}": that is 7 words.'


@pytest.fixture(scope="module")
def gateway() -> Iterator[str]:
    with serve(Gateway(DemoAgent(delay=0))) as url:
        yield url


def text_of(message: dict[str, Any]) -> str:
    content = message["content"]
    if isinstance(content, str):
        return content
    return "".join(block.get("text", "") for block in content if isinstance(block, dict))


async def conversation(url: str) -> dict[str, Any]:
    """Two runs of one thread through langgraph-sdk's client, as useStream
    asks for them, the first joined again, and the thread's state."""
    from langgraph_sdk import get_client

    async with get_client(url=url) as client:
        thread = await client.threads.create()
        thread_id = thread["thread_id"]
        runs = []
        for text in (QUESTION, "And now?"):
            parts = [
                (part.event, part.data)
                async for part in client.runs.stream(
                    thread_id,
                    "agent",
                    input={"messages": [{"role": "user", "content": text}]},
                    stream_mode=["values", "messages-tuple"],
                )
            ]
            runs.append(parts)
        run_id = runs[0][0][1]["run_id"]
        joined = [(part.event, part.data) async for part in client.runs.join_stream(thread_id, run_id)]
        state = await client.threads.get_state(thread_id)
        history = await client.threads.get_history(thread_id)
        got = await client.threads.get(thread_id)
    return {"runs": runs, "joined": joined, "state": state, "history": history, "thread": got}


def assembled(parts: list[tuple[str, Any]]) -> dict[str, Any]:
    assembler = langgraph.Assembler()
    for event, data in parts:
        assembler.feed_event({"event": event, "data": data})
    return assembler.close()


def test_a_threads_runs_stream_as_langgraph_sdk_reads_them(gateway: str) -> None:
    talk = asyncio.run(conversation(gateway))
    first, second = (assembled(parts) for parts in talk["runs"])
    assert [event for event, _ in talk["runs"][0]][:1] == ["metadata"]
    # The demo agent's turn streamed as messages: its reasoning, its call, the
    # tool's result, its answer; the thread's messages in the last values.
    turn = ["ai", "ai", "tool", "ai"]
    assert [message["type"] for message in first["messages"]] == turn
    assert text_of(first["messages"][-1]) == ANSWER
    assert first["messages"][1]["tool_calls"][0]["args"] == {"text": QUESTION}
    assert first["values"]["messages"][1:] == first["messages"]
    assert (first["values"]["messages"][0]["type"], text_of(first["values"]["messages"][0])) == (
        "human",
        QUESTION,
    )
    kinds = [message["type"] for message in second["values"]["messages"]]
    assert kinds == ["human", *turn, "human", *turn]
    assert second["values"]["messages"][: len(turn) + 1] == first["values"]["messages"]
    assert text_of(second["values"]["messages"][5]) == "And now?"
    # Joined again, the first run is what streamed.
    assert talk["joined"] == talk["runs"][0]
    # The thread's state is its last run's values, as its history and the thread say.
    assert talk["state"]["values"] == second["values"]
    # Its history: each run's end, its input applied, its input, the latest first, each the child of the next.
    history = talk["history"]
    assert history[0]["values"] == second["values"]
    assert [state["next"] for state in history] == [[], ["agent"], ["__start__"]] * 2
    assert [len(state["values"]["messages"]) for state in history] == [10, 6, 5, 5, 1, 0]
    ids = [state["checkpoint_id"] for state in history]
    assert [state["parent_checkpoint_id"] for state in history] == [*ids[1:], None]
    assert ids[0] == talk["state"]["checkpoint_id"]
    assert (talk["thread"]["status"], talk["thread"]["values"]) == ("idle", second["values"])


def run_body(**extra: Any) -> dict[str, Any]:
    return {"assistant_id": "agent", "input": {"messages": [{"role": "user", "content": QUESTION}]}, **extra}


@pytest.mark.parametrize(
    ("stream_mode", "events"),
    [
        (None, {"metadata", "values"}),
        ("values", {"metadata", "values"}),
        (["messages-tuple"], {"metadata", "messages"}),
        (["values", "messages-tuple", "updates"], {"metadata", "values", "messages", "updates"}),
        (["updates"], {"metadata", "updates"}),
        (["messages"], {"metadata", "messages/metadata", "messages/partial", "messages/complete"}),
        (["messages", "messages-tuple"], {"metadata", "messages"}),
    ],
)
def test_the_modes_asked_for_are_the_events_sent(gateway: str, stream_mode: Any, events: set[str]) -> None:
    body = run_body() if stream_mode is None else run_body(stream_mode=stream_mode)
    response = httpx.post(f"{gateway}/threads/t-modes/runs/stream", json=body)
    assert response.status_code == 200
    names = {line[7:] for line in response.text.splitlines() if line.startswith("event: ")}
    assert names == events
    run_id = data_events(response.content)[0]["run_id"]
    assert response.headers["content-location"] == f"/threads/t-modes/runs/{run_id}"
    assert response.headers["location"] == f"/threads/t-modes/runs/{run_id}/stream"


def parsed(stream: bytes) -> list[tuple[str, Any]]:
    return [(event.event, json.loads(event.data)) for event in SSEDecoder().feed(stream)]


def ids_in_order(events: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """The events with each message's id, and the run's metadata, made the
    same in two runs of one agent: the ids by order of first use."""
    ids: dict[str, str] = {}
    out = []
    for name, data in events:
        same = data
        if name == "messages/metadata":
            ((message_id, _),) = data.items()
            same = {ids.setdefault(message_id, f"m{len(ids)}"): "metadata"}
        elif name in ("messages/partial", "messages/complete"):
            same = [message | {"id": ids[message["id"]]} for message in data]
        out.append((name, same))
    return out


def test_the_legacy_messages_mode_is_written_as_langgraph_api_writes_it() -> None:
    """scripts/langgraph_fixtures.py ran one agent on one question in
    ``messages-tuple`` (tool_call) and in the legacy ``messages`` mode
    (legacy_messages): the tuples rewritten are the real server's events,
    each partial message with its arguments parsed as far as they go, ids
    (new each run) aside."""
    from agentcodec.langgraph._legacy import LegacyMessages

    tuples = parsed((FIXTURES / "langgraph" / "tool_call.sse").read_bytes())
    legacy = LegacyMessages()
    rewritten = parsed(b"".join(legacy.rewrite(data) for name, data in tuples if name == "messages"))
    recorded = parsed((FIXTURES / "langgraph" / "legacy_messages.sse").read_bytes())
    assert ids_in_order(rewritten) == ids_in_order(recorded[1:])
    # The metadata is each message's first chunk's, as the server sends it.
    firsts = {data[0]["id"]: data[1] for name, data in reversed(tuples) if name == "messages"}
    assert [data for name, data in rewritten if name == "messages/metadata"] == [
        {message_id: {"metadata": metadata}} for message_id, metadata in reversed(firsts.items())
    ]


def test_a_run_in_the_legacy_messages_mode_ends_with_the_messages_the_thread_keeps(gateway: str) -> None:
    """Each message's last ``messages/partial`` or ``messages/complete`` is
    the message as the thread's values keep it: langgraph-sdk's legacy
    readers (a message replaced by id) end where the run did."""
    from langgraph_sdk import get_client

    async def legacy_run() -> tuple[list[tuple[str, Any]], dict[str, Any]]:
        async with get_client(url=gateway) as client:
            thread = await client.threads.create()
            parts = [
                (part.event, part.data)
                async for part in client.runs.stream(
                    thread["thread_id"], "agent", input={"messages": [QUESTION]}, stream_mode="messages"
                )
            ]
            return parts, await client.threads.get_state(thread["thread_id"])

    parts, state = asyncio.run(legacy_run())
    last: dict[str, Any] = {}
    for name, data in parts:
        if name in ("messages/partial", "messages/complete"):
            last |= {message["id"]: message for message in data}
    kept = state["values"]["messages"][1:]
    assert [message["type"] for message in kept] == ["ai", "ai", "tool", "ai"]
    assert list(last.values()) == kept
    assert [name for name, _ in parts].count("messages/metadata") == len(kept)


@pytest.mark.parametrize("stream_mode", ["updates", "messages-tuple", "messages"])
def test_a_thread_keeps_what_its_runs_wrote_whatever_they_streamed(gateway: str, stream_mode: str) -> None:
    """A run that streams no ``values`` (RemoteGraph's ``stream()`` asks for
    ``updates``) still leaves the thread its messages: the next run starts
    from them, and the thread's state, the thread and a waited run's result
    hold them, as langgraph-api's do."""
    thread = f"{gateway}/threads/t-unstreamed-{stream_mode}"
    for question in (QUESTION, "And now?"):
        body = run_body(stream_mode=stream_mode) | {"input": {"messages": [question]}}
        response = httpx.post(f"{thread}/runs/stream", json=body, timeout=30)
        assert response.status_code == 200
        assert "event: values" not in response.text
    values = httpx.get(f"{thread}/state").json()["values"]
    turn = ["ai", "ai", "tool", "ai"]
    assert [message["type"] for message in values["messages"]] == ["human", *turn, "human", *turn]
    assert values["messages"][5]["content"] == "And now?"
    assert httpx.get(thread).json()["values"] == values
    waited = httpx.post(f"{thread}/runs/wait", json=run_body(stream_mode=stream_mode), timeout=30).json()
    assert waited["messages"][: len(values["messages"])] == values["messages"]
    assert len(waited["messages"]) == len(values["messages"]) + 5


def shape(stream: bytes) -> list[str]:
    """A stream's events by name, a run of one name as one."""
    names = [event.event for event in SSEDecoder().feed(stream)]
    return [name for at, name in enumerate(names) if at == 0 or names[at - 1] != name]


def node_and_values(stream: bytes) -> tuple[str, list[dict[str, Any]]]:
    """A run's one node, as its update names it, and its values; checks
    that the update holds what the run added to the values."""
    events = [(event.event, json.loads(event.data)) for event in SSEDecoder().feed(stream)]
    values = [data for name, data in events if name == "values"]
    (update,) = [data for name, data in events if name == "updates"]
    ((node, written),) = update.items()
    assert written == {"messages": values[-1]["messages"][len(values[0]["messages"]) :]}
    assert values[0]["messages"][-1]["type"] == "human"
    return node, values


def test_a_run_streams_as_langgraph_api_streams_a_graph_of_one_node(gateway: str) -> None:
    """The modes useStream and RemoteGraph ask for, as the real server
    streams a graph of one node (tests/fixtures/langgraph/one_node): the
    thread's values as the run starts, the answer's messages, the node's
    update, the values again; the update holds what the run added to the
    values, under the node's name."""
    recorded = (FIXTURES / "langgraph" / "one_node.sse").read_bytes()
    asked = json.loads((FIXTURES / "langgraph" / "one_node.json").read_text(encoding="utf-8"))["request"]
    assert node_and_values(recorded)[0] == "think"
    for question in (QUESTION, "And now?"):
        body = run_body(stream_mode=asked["stream_mode"]) | {"input": {"messages": [question]}}
        response = httpx.post(f"{gateway}/threads/t-one-node/runs/stream", json=body, timeout=30)
        assert shape(response.content) == shape(recorded)
        node, values = node_and_values(response.content)
        assert node == "agent"
        assert values[0]["messages"][-1]["content"] == question
    # The second run's values start from the first's end.
    assert [message["type"] for message in values[0]["messages"]].count("human") == 2


def step_shape(stream: bytes, node: str) -> list[Any]:
    """The ``debug``, ``tasks`` and ``checkpoints`` events of a run, by
    shape: each one's mode, type and step, its keys and its payload's, the
    nodes next and the tasks' (``node`` named ``agent``), the checkpoint's
    source and the values' keys. LangGraph's own keys are kept; the
    platform's (its auth, request and timing: ``langgraph_*``, ``__*``) are
    not the graph's, and are left out."""

    def own(keys: Any) -> list[str]:
        return sorted(key for key in keys if not key.startswith(("langgraph_", "__")))

    def named(names: list[str]) -> list[str]:
        return ["agent" if name == node else name for name in names]

    shapes = []
    for event in SSEDecoder().feed(stream):
        if event.event not in ("debug", "tasks", "checkpoints"):
            continue
        data = json.loads(event.data)
        payload = data["payload"] if event.event == "debug" else data
        shape: dict[str, Any] = {
            "mode": event.event,
            "keys": sorted(data),
            "payload": sorted(payload),
            "name": named([payload["name"]]) if "name" in payload else None,
            "next": named(payload.get("next", [])),
            "tasks": [[*named([task["name"]]), sorted(task)] for task in payload.get("tasks", [])],
            "metadata": own(payload.get("metadata") or {}),
            "source": (payload.get("metadata") or {}).get("source"),
            "configurable": own((payload.get("config") or {}).get("configurable", {})),
            "parent": payload.get("parent_config") is not None,
            "error": sorted(error) if isinstance(error := payload.get("error"), dict) else error,
            "values": sorted(payload.get("values") or payload.get("input") or payload.get("result") or {}),
        }
        if event.event == "debug":
            shape |= {"type": data["type"], "step": data["step"]}
        shapes.append(shape)
    return shapes


def test_the_debug_tasks_and_checkpoints_modes_are_written_as_langgraph_api_writes_them(
    gateway: str,
) -> None:
    """A run of a graph of one node in ``debug``, ``tasks`` and
    ``checkpoints`` (tests/fixtures/langgraph/one_node_debug, LangGraph
    Studio's view): the input's checkpoint, the input applied, the node's
    task, its result, the last checkpoint, each in the modes asked for."""
    recorded = (FIXTURES / "langgraph" / "one_node_debug.sse").read_bytes()
    asked = json.loads((FIXTURES / "langgraph" / "one_node_debug.json").read_text(encoding="utf-8"))
    body = run_body(stream_mode=asked["request"]["stream_mode"])
    response = httpx.post(f"{gateway}/threads/t-steps/runs/stream", json=body, timeout=30)
    assert step_shape(response.content, "agent") == step_shape(recorded, "think")
    events = [(event.event, json.loads(event.data)) for event in SSEDecoder().feed(response.content)]
    checkpoints = [data for name, data in events if name == "checkpoints"]
    # The last checkpoint holds the thread's values; each names its parent.
    state = httpx.get(f"{gateway}/threads/t-steps/state").json()
    assert checkpoints[-1]["values"] == state["values"]
    ids = [checkpoint["config"]["configurable"]["checkpoint_id"] for checkpoint in checkpoints]
    parents = [
        (checkpoint["parent_config"] or {}).get("configurable", {}).get("checkpoint_id")
        for checkpoint in checkpoints
    ]
    assert parents == [None, *ids[:-1]]
    # The last is the thread's, as its state names it: a run may start from it.
    assert ids[-1] == state["checkpoint_id"]
    # Asked for one mode, a run writes that one alone.
    only = httpx.post(
        f"{gateway}/threads/t-steps/runs/stream", json=run_body(stream_mode="tasks"), timeout=30
    )
    assert {event.event for event in SSEDecoder().feed(only.content)} == {"metadata", "tasks"}


def test_a_failed_run_in_the_debug_tasks_and_checkpoints_modes_ends_as_langgraph_api_ends_one() -> None:
    """A run whose node fails (tests/fixtures/langgraph/one_node_debug_error):
    its task's result holds the run's error and nothing written, no last
    checkpoint follows, then the ``error`` event."""
    recorded = (FIXTURES / "langgraph" / "one_node_debug_error.sse").read_bytes()
    asked = json.loads((FIXTURES / "langgraph" / "one_node_debug_error.json").read_text(encoding="utf-8"))
    fails = (AGENTAPP_FIXTURES / "agent_fails.process.sse").read_bytes()
    agent = ScriptedAgent(one_after_another(fails))
    with gateway_with(agent, MemoryReplayStore(), idle=None, run=None) as url:
        body = run_body(stream_mode=asked["request"]["stream_mode"])
        response = httpx.post(f"{url}/threads/t-fails/runs/stream", json=body, timeout=30)
    assert step_shape(response.content, "agent") == step_shape(recorded, "explode")
    names = [event.event for event in SSEDecoder().feed(response.content)]
    assert names[-3:] == ["tasks", "debug", "error"]


# Left out of the events' metadata: the platform's (its versions, host and
# plan), and what a chat model's integration says of itself: the agent
# behind the gateway is none.
_NOT_THE_RUNS = frozenset(
    {
        "langgraph_version",
        "langgraph_api_version",
        "langgraph_plan",
        "langgraph_host",
        "langgraph_api_url",
        "ls_provider",
        "lc_versions",
    }
)


def callback_shape(stream: bytes, names: dict[str, str]) -> list[Any]:
    """The ``events`` mode's events of a run, by shape: each callback's
    event, its runnable (named as ``names`` says), tags, depth (how many
    parents it names), its data's keys and its metadata's; a run of
    ``on_chat_model_stream`` as one."""
    shapes: list[Any] = []
    for event in SSEDecoder().feed(stream):
        if event.event != "events":
            continue
        data = json.loads(event.data)
        shape = [
            data["event"],
            names.get(data["name"], data["name"]),
            data["tags"],
            len(data["parent_ids"]),
            sorted(data["data"]),
            sorted(set(data["metadata"]) - _NOT_THE_RUNS),
        ]
        if not (shapes and shapes[-1] == shape and data["event"] == "on_chat_model_stream"):
            shapes.append(shape)
    return shapes


def test_the_events_mode_is_written_as_langgraph_api_writes_it() -> None:
    """A run answering one message in ``events`` (tests/fixtures/langgraph/
    one_node_events: the callbacks LangChain's ``astream_events`` reports,
    from which LangGraph's streaming how-tos read tokens): the graph
    starts on the request's input, its node on the thread's values, a chat
    model's call streams the answer's chunks and ends with the message they
    make, then the node's update, the node's end and the graph's, on the
    thread's values."""
    recorded = (FIXTURES / "langgraph" / "one_node_events.sse").read_bytes()
    asked = json.loads((FIXTURES / "langgraph" / "one_node_events.json").read_text(encoding="utf-8"))
    text = (FIXTURES / "agentscope" / "runner_text.sse").read_bytes()
    with gateway_with(
        ScriptedAgent(one_after_another(text)), MemoryReplayStore(), idle=None, run=None
    ) as url:
        body = run_body(stream_mode=asked["request"]["stream_mode"])
        response = httpx.post(f"{url}/threads/t-events/runs/stream", json=body, timeout=30)
        state = httpx.get(f"{url}/threads/t-events/state").json()
    theirs = callback_shape(recorded, {"thinker": "agent", "think": "agent", "AnthropicLike": "agent"})
    assert callback_shape(response.content, {}) == theirs
    names = {event.event for event in SSEDecoder().feed(response.content)}
    assert names == {"metadata", "events"}
    events = [data for name, data in parsed(response.content) if name == "events"]
    assert events[0]["data"]["input"] == body["input"]
    assert events[-1]["data"]["output"] == state["values"]
    (answer,) = [message for message in state["values"]["messages"] if message["type"] == "ai"]
    tokens = [
        event["data"]["chunk"]["content"] for event in events if event["event"] == "on_chat_model_stream"
    ]
    assert "".join(tokens) == answer["content"] != ""
    (end,) = [event for event in events if event["event"] == "on_chat_model_end"]
    assert end["data"]["output"] == answer


def test_a_runs_messages_in_the_events_mode_are_a_model_and_a_tools_calls(gateway: str) -> None:
    """A run that calls a tool, in ``events``: each AI message is a chat
    model's call, whose chunks langchain-core adds up to the message its
    end gives, the one the thread keeps; the tool message is a tool's call,
    on the arguments the AI message gave it; every callback within the
    graph names the run first among its parents."""
    langchain_messages = pytest.importorskip("langchain_core.messages")
    response = httpx.post(
        f"{gateway}/threads/t-events-tools/runs/stream", json=run_body(stream_mode="events"), timeout=30
    )
    state = httpx.get(f"{gateway}/threads/t-events-tools/state").json()
    run_id = data_events(response.content)[0]["run_id"]
    events = [data for name, data in parsed(response.content) if name == "events"]
    ended = [
        event["data"]["output"] for event in events if event["event"] in ("on_chat_model_end", "on_tool_end")
    ]
    assert ended == state["values"]["messages"][1:]
    assert [event["event"] for event in events if event["event"].startswith("on_tool")] == [
        "on_tool_start",
        "on_tool_end",
    ]
    (call,) = [call for message in ended for call in message.get("tool_calls") or []]
    (started,) = [event for event in events if event["event"] == "on_tool_start"]
    assert (started["name"], started["data"]["input"]) == (call["name"], call["args"])
    added: dict[str, Any] = {}
    for event in events:
        if event["event"] == "on_chat_model_stream":
            chunk = event["data"]["chunk"]
            made = langchain_messages.AIMessageChunk(**{k: v for k, v in chunk.items() if k != "type"})
            added[event["run_id"]] = added[event["run_id"]] + made if event["run_id"] in added else made
        elif event["event"] == "on_chat_model_end":
            made = langchain_messages.message_chunk_to_message(added.pop(event["run_id"]))
            assert made.model_dump() == {**event["data"]["output"], "type": "ai"}
    # The graph's callbacks are the run's, and every one within it names the run first.
    assert [event["run_id"] for event in events if not event["parent_ids"]] == [run_id, run_id]
    assert all(event["parent_ids"][0] == run_id for event in events[1:-1])


def test_a_dropped_client_resumes_with_last_event_id(gateway: str) -> None:
    response = httpx.post(
        f"{gateway}/threads/t-resume/runs/stream", json=run_body(stream_mode=["messages-tuple"])
    )
    ids = [line[4:] for line in response.text.splitlines() if line.startswith("id: ")]
    assert len(ids) > 3
    again = httpx.post(
        f"{gateway}/threads/t-resume/runs/stream", json=run_body(), headers={"Last-Event-ID": ids[1]}
    )
    assert [line[4:] for line in again.text.splitlines() if line.startswith("id: ")] == ids[2:]


@pytest.mark.parametrize(
    ("body", "status", "says"),
    [
        (
            {"assistant_id": "agent", "command": {"resume": "yes"}},
            422,
            "a command (resuming an interrupt) is not served",
        ),
        ({"assistant_id": "agent", "input": {"messages": [{"role": "robot", "content": "x"}]}}, 422, "robot"),
        ([], 422, "a run is a JSON object"),
        (run_body(interrupt_before=["agent"]), 422, "interrupt_before is not served"),
        (run_body(interrupt_after="*"), 422, "interrupt_after is not served"),
        (run_body(webhook="https://example.com/hook"), 422, "webhook is not served"),
        (run_body(checkpoint_id="latest"), 422, "Invalid checkpoint ID"),
        (run_body(checkpoint=["c"]), 422, "checkpoint must be a JSON object"),
        (run_body(checkpoint={"checkpoint_ns": "sub:1"}), 422, "checkpoint_ns 'sub:1' is not served"),
        # (a checkpoint of a thread that has none: nothing to start from)
        (run_body(checkpoint_id="5a6e3c1e-0000-4000-8000-000000000000"), 409, "is not served"),
    ],
)
@pytest.mark.parametrize(
    "path", ["/threads/t-bad/runs/stream", "/threads/t-bad/runs/wait", "/threads/t-bad/runs", "/runs/wait"]
)
def test_what_it_does_not_serve_is_refused_saying_why(
    gateway: str, path: str, body: Any, status: int, says: str
) -> None:
    """Every route that runs the agent refuses alike, before it runs it."""
    response = httpx.post(f"{gateway}{path}", json=body)
    assert response.status_code == status
    assert says in response.json()["detail"]
    # Nothing ran: the thread has no run.
    assert httpx.get(f"{gateway}/threads/t-bad/runs").json() == []


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ([], "a search is a JSON object"),
        ({"graph_id": 5}, "graph_id must be a string, not 5"),
        ({"metadata": []}, "metadata must be a JSON object"),
        ({"limit": 0}, "limit must be an integer, 1 to 1000, not 0"),
    ],
)
def test_a_bad_assistant_search_is_refused_saying_why(gateway: str, body: Any, says: str) -> None:
    response = httpx.post(f"{gateway}/assistants/search", json=body)
    assert (response.status_code, response.json()["detail"]) == (422, says)


def test_the_server_says_what_it_is_without_a_key() -> None:
    """``GET /info``, which LangGraph frontends (agent-chat-ui) fetch first to
    tell that they reach a server: answered, with or without the key they
    may send; the rest of the routes still want one."""
    with serve(Gateway(DemoAgent(delay=0), api_keys=["sesame"])) as url:
        for headers in ({}, {"X-Api-Key": "sesame"}):
            info = httpx.get(f"{url}/info", headers=headers)
            assert info.status_code == 200
            assert info.json()["flags"] == {"assistants": True, "crons": False, "langsmith": False}
        assert isinstance(info.json()["version"], str)
        assert httpx.post(f"{url}/threads", json={}).status_code == 401


def test_threads_are_searched_as_a_frontend_lists_them() -> None:
    """``threads.search``, as agent-chat-ui lists its threads (``metadata``:
    the graph's id): the threads, the last updated first, each with its
    values (none for a thread made with no run yet); paged; filtered by
    status and ids; a metadata key no thread has matches none."""
    from langgraph_sdk import get_client

    async def main(url: str) -> dict[str, Any]:
        async with get_client(url=url) as client:
            made = []
            for text in ("first", "second", None, "third"):
                thread_id = (await client.threads.create())["thread_id"]
                if text is not None:  # (else a thread with no run yet)
                    asked = {"messages": [{"role": "user", "content": text}]}
                    async for _ in client.runs.stream(thread_id, "agent", input=asked):
                        pass
                made.append(thread_id)
            return {
                "made": made,
                "listed": await client.threads.search(metadata={"graph_id": "agent"}, limit=100),
                "page": await client.threads.search(limit=1, offset=1),
                "oldest": await client.threads.search(sort_by="created_at", sort_order="asc", limit=1),
                "ids": await client.threads.search(ids=made[:1]),
                "busy": await client.threads.search(status="busy"),
                "other": await client.threads.search(metadata={"user": "someone"}),
            }

    with serve(Gateway(DemoAgent(delay=0))) as url:
        found = asyncio.run(main(url))
        refused = httpx.post(f"{url}/threads/search", json={"limit": 0})
    made, listed = found["made"], found["listed"]
    assert [thread["thread_id"] for thread in listed] == made[::-1]
    assert {thread["status"] for thread in listed} == {"idle"}
    firsts = [thread["values"] and text_of(thread["values"]["messages"][0]) for thread in listed]
    assert firsts == ["third", None, "second", "first"]
    assert [thread["thread_id"] for thread in found["page"]] == [made[2]]
    assert [thread["thread_id"] for thread in found["oldest"]] == [made[0]]
    assert [thread["thread_id"] for thread in found["ids"]] == [made[0]]
    assert found["busy"] == found["other"] == []
    assert refused.status_code == 422
    assert refused.json()["detail"] == "limit must be an integer, 1 to 1000, not 0"


SERVERS_THREADS = json.loads((FIXTURES / "langgraph" / "threads.json").read_text(encoding="utf-8"))


def as_the_gateways(call: Any, node: str) -> Any:
    """A recorded answer as the gateway's graph gives it: its node named
    ``agent``, its state's metadata without the platform's description of
    itself (``langgraph_*``: its host, plan, versions, the request)."""
    if isinstance(call, list):
        return [as_the_gateways(item, node) for item in call]
    if not isinstance(call, dict):
        return call
    kept = {key: as_the_gateways(value, node) for key, value in call.items()}
    if isinstance(kept.get("metadata"), list):
        kept["metadata"] = [key for key in kept["metadata"] if not key.startswith("langgraph_")]
    for key in ("next", "tasks"):
        if isinstance(kept.get(key), list):
            kept[key] = ["agent" if item == node else item for item in kept[key]]
    return kept


def test_threads_are_made_got_and_deleted_as_langgraph_api_answers() -> None:
    """The calls on threads, as the real server answers them
    (``scripts/langgraph_fixtures.py threads``): a thread made is found
    before its first run, with no values and an empty state; after a run,
    its state and history hold it; after a cancel, the node cut short is
    next, a task; deleted, it is not found. The shapes compared: status,
    keys, the nodes next."""
    recorded = as_the_gateways(SERVERS_THREADS, node="model")
    with (
        serve(Gateway(DemoAgent(delay=0.1))) as url,
        httpx.Client(base_url=url, timeout=30) as client,
    ):
        calls = thread_calls(client, {"messages": [QUESTION]}, answering="agent", slow="agent")
    assert calls == recorded


def test_threads_keep_their_metadata_as_langgraph_api_keeps_it() -> None:
    """Threads made with metadata, updated, searched and counted by it, and
    made by a run, each answer as tests/fixtures/langgraph/thread_metadata
    records the real server's (graph and assistant ids aside)."""
    recorded = json.loads((FIXTURES / "langgraph" / "thread_metadata.json").read_text(encoding="utf-8"))
    with (
        serve(Gateway(DemoAgent(delay=0))) as url,
        httpx.Client(base_url=url, timeout=30) as client,
    ):
        calls = metadata_calls(client, {"messages": [QUESTION]}, answering="agent")
    assert calls == recorded


def test_a_threads_history_is_its_runs_checkpoints_as_langgraph_api_gives_them() -> None:
    """After two runs, the thread's history (each run's input, its input
    applied, its end), asked in full, before a checkpoint, by metadata and
    by ``GET``, and its states got at checkpoints, have the shapes
    tests/fixtures/langgraph/history records of the real server's, for a
    graph of one node (steps aside); and after a run that failed, the
    thread's state is its node's task, failed."""
    recorded = json.loads((FIXTURES / "langgraph" / "history.json").read_text(encoding="utf-8"))
    with (
        serve(Gateway(DemoAgent(delay=0))) as url,
        httpx.Client(base_url=url, timeout=30) as client,
    ):
        calls = history_calls(client, {"messages": [QUESTION]}, answering="agent", node="agent")
    fails = ScriptedAgent(one_after_another((AGENTAPP_FIXTURES / "agent_fails.process.sse").read_bytes()))
    with gateway_with(fails, MemoryReplayStore()) as url, httpx.Client(base_url=url, timeout=30) as client:
        asked = {"messages": [QUESTION]}
        calls["failed"] = failed_history_calls(client, asked, failing="agent", node="agent")
    assert calls == recorded


def test_a_threads_state_while_a_run_goes_on_is_its_node_next() -> None:
    """While a run goes on, the thread's last checkpoint is the run's input
    applied, its node next (named by the run), as langgraph-api's state is
    until the node's end; then the run's end, nothing next."""
    with serve(Gateway(DemoAgent(delay=0.05))) as url, httpx.Client(base_url=url, timeout=30) as client:
        run = client.post("/threads/t-going/runs", json=run_body()).json()
        run_path = f"/threads/t-going/runs/{run['run_id']}"
        wait_until(lambda: client.get(run_path).json()["status"] == "running", 10, "the run did not start")
        going = client.get("/threads/t-going/state").json()
        client.get(f"{run_path}/join")
        ended = client.get("/threads/t-going/state").json()
    assert (going["next"], going["checkpoint_id"]) == (["agent"], run["run_id"])
    assert [message["type"] for message in going["values"]["messages"]] == ["human"]
    assert (ended["next"], ended["checkpoint_id"]) == ([], run["run_id"])
    assert len(ended["values"]["messages"]) == 5


def test_threads_are_searched_by_what_their_metadata_and_values_hold() -> None:
    """Where the in-memory langgraph-api leaves PostgreSQL's ``@>``, which
    it says it follows (a list holds an item; values searched), the gateway
    follows ``@>``; and refuses what it does not serve."""
    with (
        serve(Gateway(DemoAgent(delay=0))) as url,
        httpx.Client(base_url=url, timeout=30) as client,
    ):
        tagged = client.post("/threads", json={"metadata": {"labels": ["a", "b"], "n": 1}}).json()
        other = client.post("/threads", json={"metadata": {"labels": ["c"], "n": True}}).json()
        ids = [tagged["thread_id"], other["thread_id"]]
        client.post(f"/threads/{other['thread_id']}/runs/wait", json=run_body())

        def found(**search: Any) -> list[str]:
            answer = client.post("/threads/search", json={"ids": ids, **search})
            assert answer.status_code == 200, answer.text
            return [thread["thread_id"] for thread in answer.json()]

        by_item = found(metadata={"labels": ["b"]})
        by_number = found(metadata={"n": 1})  # (1 is not true, nor true 1)
        by_value = found(values={"messages": [{"type": "human", "content": QUESTION}]})
        by_agent = found(metadata={"graph_id": "anything", "assistant_id": "agent"})
        refusals = [
            client.post("/threads/search", json=body)
            for body in ({"extract": {"a": "values.a"}}, {"select": ["secret"]}, {"values": []})
        ]
        seeded = client.post("/threads", json={"supersteps": [{"updates": []}]})
    assert by_item == [tagged["thread_id"]]
    assert by_number == [tagged["thread_id"]]
    assert by_value == [other["thread_id"]]
    assert sorted(by_agent) == sorted(ids)
    assert [answer.status_code for answer in refusals] == [422, 422, 422]
    assert "extract is not served" in refusals[0].json()["detail"]
    assert (seeded.status_code, seeded.json()["detail"][:25]) == (422, "supersteps is not served:")


def test_a_threads_state_updated_or_the_thread_copied_is_refused_saying_why(gateway: str) -> None:
    """langgraph-sdk's ``update_state`` and ``copy``: the agent keeps the
    thread's session, which the gateway can neither write nor copy."""
    from langgraph_sdk import get_client

    async def main() -> list[tuple[int, str]]:
        async with get_client(url=gateway) as client:
            thread_id = (await client.threads.create())["thread_id"]
            answers = []
            for call in (
                client.threads.update_state(thread_id, {"messages": [{"role": "user", "content": "x"}]}),
                client.threads.copy(thread_id),
                client.threads.copy("no-such-thread"),
            ):
                with pytest.raises(httpx.HTTPStatusError) as refused:
                    await call
                answers.append((refused.value.response.status_code, refused.value.response.json()["detail"]))
            return answers

    update, copy, unknown = asyncio.run(main())
    assert update[0] == 501
    assert update[1].startswith("update_state is not served")
    assert copy[0] == 501
    assert copy[1].startswith("threads.copy is not served")
    assert unknown == (404, "Thread with ID no-such-thread not found")


def test_threads_are_made_with_the_id_asked_for_once() -> None:
    with serve(Gateway(DemoAgent(delay=0))) as url, httpx.Client(base_url=url) as client:
        made = client.post("/threads", json={"thread_id": "t-asked"})
        again = client.post("/threads", json={"thread_id": "t-asked"})
        kept = client.post("/threads", json={"thread_id": "t-asked", "if_exists": "do_nothing"})
        bare = client.post("/threads")
        refused = client.post("/threads", json={"thread_id": 5})
        unsure = client.post("/threads", json={"thread_id": "t-asked", "if_exists": "maybe"})
        not_an_object = client.post("/threads", json=[1])
        unknown = client.delete("/threads/no-such-thread")
    assert made.json()["thread_id"] == "t-asked"
    assert (again.status_code, again.json()) == (409, {"detail": "Thread t-asked already exists"})
    assert kept.json() == made.json()
    assert bare.status_code == 200
    assert bare.json()["thread_id"] != "t-asked"
    assert (refused.status_code, refused.json()) == (422, {"detail": "thread_id must be a string"})
    assert (unsure.status_code, unsure.json()) == (
        422,
        {"detail": "if_exists must be raise or do_nothing, not 'maybe'"},
    )
    assert (not_an_object.status_code, not_an_object.json()) == (422, {"detail": "a thread is a JSON object"})
    assert unknown.status_code == 404


def test_a_thread_deleted_while_its_run_goes_on_cancels_it_and_is_forgotten_with_its_runs() -> None:
    from langgraph_sdk import get_client

    agent = ScriptedAgent(endless_run)

    async def main(url: str) -> dict[str, Any]:
        async with get_client(url=url) as client:
            thread_id = (await client.threads.create())["thread_id"]
            run = await client.runs.create(thread_id, "agent", input={"messages": ["hi"]})
            run_path = f"{url}/threads/{thread_id}/runs/{run['run_id']}"
            running = lambda: httpx.get(run_path).json()["status"] == "running"  # noqa: E731
            await asyncio.to_thread(wait_until, running, 10, "the run did not start")
            await client.threads.delete(thread_id)
            found = {}
            for name, path in (("thread", ""), ("state", "/state"), ("run", f"/runs/{run['run_id']}")):
                found[name] = httpx.get(f"{url}/threads/{thread_id}{path}").status_code
            found["runs"] = httpx.get(f"{url}/threads/{thread_id}/runs").json()
            found["listed"] = [thread["thread_id"] for thread in await client.threads.search()]
            found["deleted_again"] = httpx.delete(f"{url}/threads/{thread_id}").status_code
            return found

    with gateway_with(agent, MemoryReplayStore(), idle=None, run=None) as url:
        found = asyncio.run(main(url))
        wait_until(lambda: agent.cancelled == 1, 10, "the run was not cancelled upstream")
    assert found == {
        "thread": 404,
        "state": 404,
        "run": 404,
        "runs": [],
        "listed": [],
        "deleted_again": 404,
    }


@pytest.mark.parametrize("strategy", [None, "enqueue", "interrupt", "reject", "rollback", "later"])
def test_a_run_on_a_busy_thread_does_what_its_multitask_strategy_says(strategy: str | None) -> None:
    """A run asked for while another goes on on its thread: run after it
    (``enqueue``, langgraph-api's default), with its answer in the thread;
    after it is cancelled (``interrupt``), its question kept; or refused
    (``reject``, as langgraph-api says it). ``rollback`` is not served,
    and says so."""
    with serve(Gateway(DemoAgent(delay=0.05))) as url, httpx.Client(base_url=url, timeout=30) as client:
        first = client.post("/threads/t-busy/runs", json=run_body()).json()
        first_path = f"/threads/t-busy/runs/{first['run_id']}"
        wait_until(lambda: client.get(first_path).json()["status"] == "running", 10, "the run did not start")
        second = run_body(input={"messages": ["And now?"]})
        if strategy is not None:
            second["multitask_strategy"] = strategy
        answer = client.post("/threads/t-busy/runs/wait", json=second)
        first_run = client.get(first_path).json()
        runs = client.get("/threads/t-busy/runs").json()
    if strategy in ("reject", "rollback", "later"):
        refusal = {
            "reject": (409, "Thread is already running a task"),
            "rollback": (422, "multitask_strategy rollback is not served"),
            "later": (422, "multitask_strategy must be one of"),
        }[strategy]
        assert (answer.status_code, answer.json()["detail"][: len(refusal[1])]) == refusal
        assert [run["run_id"] for run in runs] == [first["run_id"]]
        return
    kinds = [message["type"] for message in answer.json()["messages"]]
    if strategy == "interrupt":
        assert first_run["status"] == "interrupted"
        assert kinds == ["human", "human", "ai", "ai", "tool", "ai"]
    else:
        assert first_run["status"] == "success"
        assert kinds == ["human", "ai", "ai", "tool", "ai", "human", "ai", "ai", "tool", "ai"]
        # (asked for while the first ran, it was made then, and ended after it)
        assert runs[0]["created_at"] < first_run["updated_at"] < runs[0]["updated_at"]
    assert [run["run_id"] for run in runs][1:] == [first["run_id"]]


def test_a_run_goes_on_from_the_threads_last_checkpoint_and_a_branch_is_refused_saying_why() -> None:
    """useStream, once it has the thread's history, names the thread's last
    checkpoint on every run (``checkpoint``, its ``thread_id`` left out):
    served, as a run naming none. A run from an earlier checkpoint (a
    message edited or regenerated) would be a branch, which the agent's
    session cannot take: refused, saying so, and the thread is as it was.
    A run waiting its turn is told at its turn, in its stream."""
    from langgraph_sdk import get_client

    async def main(url: str) -> dict[str, Any]:
        async with get_client(url=url) as client:
            thread_id = (await client.threads.create())["thread_id"]
            await client.runs.wait(thread_id, "agent", input={"messages": [QUESTION]})
            first = await client.threads.get_state(thread_id)
            head = {key: value for key, value in first["checkpoint"].items() if key != "thread_id"}
            went_on = await client.runs.wait(
                thread_id, "agent", input={"messages": ["And now?"]}, checkpoint=head
            )
            second = await client.threads.get_state(thread_id)
            by_config = await client.runs.wait(
                thread_id,
                "agent",
                input={"messages": ["Once more"]},
                config={"configurable": {"checkpoint_id": second["checkpoint_id"]}},
            )
            with pytest.raises(httpx.HTTPStatusError) as refused:
                await client.runs.wait(thread_id, "agent", input={"messages": ["Edited"]}, checkpoint=head)
            # A run queued behind another, naming the checkpoint before it.
            third = await client.threads.get_state(thread_id)
            running = await client.runs.create(thread_id, "agent", input={"messages": ["Busy"]})
            queued = [
                (part.event, part.data)
                async for part in client.runs.stream(
                    thread_id, "agent", input={"messages": ["Late"]}, checkpoint_id=third["checkpoint_id"]
                )
            ]
            await client.runs.join(thread_id, running["run_id"])
            last = await client.threads.get_state(thread_id)
            return {
                "went_on": [text_of(message) for message in went_on["messages"]],
                "by_config": len(by_config["messages"]),
                "refused": (refused.value.response.status_code, refused.value.response.json()["detail"]),
                "queued": queued,
                "heads": [first["checkpoint_id"], second["checkpoint_id"], third["checkpoint_id"]],
                "last": [text_of(message) for message in last["values"]["messages"]],
                "last_run": last["checkpoint_id"],
                "running": running["run_id"],
            }

    with serve(Gateway(DemoAgent(delay=0.02))) as url:
        found = asyncio.run(main(url))
    assert found["went_on"][0] == QUESTION
    assert found["went_on"][5] == "And now?"
    assert found["by_config"] == 15
    status, says = found["refused"]
    assert status == 409
    assert f"a run from checkpoint {found['heads'][0]} is not served" in says
    assert f"its last checkpoint is {found['heads'][2]}" in says
    assert len(set(found["heads"])) == 3
    # The queued run was told in its stream; the thread holds the busy run's turn, not the late one's.
    assert [event for event, _ in found["queued"]] == ["metadata", "error"]
    assert f"its last checkpoint is {found['running']}" in found["queued"][1][1]["message"]
    assert found["last_run"] == found["running"]
    assert "Late" not in found["last"]
    assert found["last"].count("Busy") == 1


def test_a_run_deleted_is_forgotten_with_what_it_wrote_to_its_thread() -> None:
    """``runs.delete``: the run is not found, nor listed, and the thread's
    state is what its run before left (none after its first run is
    deleted), as langgraph-api deletes a run's checkpoints."""
    with serve(Gateway(DemoAgent(delay=0))) as url, httpx.Client(base_url=url, timeout=30) as client:
        thread = client.post("/threads", json={}).json()["thread_id"]
        for question in (QUESTION, "And now?"):
            client.post(f"/threads/{thread}/runs/wait", json=run_body(input={"messages": [question]}))
        second, first = (run["run_id"] for run in client.get(f"/threads/{thread}/runs").json())
        first_state = [
            message["type"] for message in client.get(f"/threads/{thread}/state").json()["values"]["messages"]
        ]
        deleted = client.delete(f"/threads/{thread}/runs/{second}")
        state = client.get(f"/threads/{thread}/state").json()
        listed = [run["run_id"] for run in client.get(f"/threads/{thread}/runs").json()]
        gone = client.get(f"/threads/{thread}/runs/{second}").status_code
        again = client.delete(f"/threads/{thread}/runs/{second}")
        client.delete(f"/threads/{thread}/runs/{first}")
        emptied = client.get(f"/threads/{thread}/state").json()
        made = client.get(f"/threads/{thread}").json()
    assert len(first_state) == 10
    assert deleted.status_code == 204
    assert [message["type"] for message in state["values"]["messages"]] == first_state[:5]
    assert state["metadata"]["run_id"] == first
    assert (listed, gone) == ([first], 404)
    assert (again.status_code, again.json()) == (404, {"detail": "Run not found"})
    assert (emptied["values"], emptied["checkpoint"]) == ({}, None)
    assert (made["status"], made["values"]) == ("idle", None)


def test_a_threads_history_leaves_out_a_run_deleted() -> None:
    """Three runs, the second deleted: the history is the third's
    checkpoints, then the first's, the third going on from the first's end;
    the first deleted too, the third's input has no parent."""
    with serve(Gateway(DemoAgent(delay=0))) as url, httpx.Client(base_url=url, timeout=30) as client:
        thread = client.post("/threads", json={}).json()["thread_id"]
        for question in ("One", "Two", "Three"):
            client.post(f"/threads/{thread}/runs/wait", json=run_body(input={"messages": [question]}))
        third, second, first = (run["run_id"] for run in client.get(f"/threads/{thread}/runs").json())
        assert client.delete(f"/threads/{thread}/runs/{second}").status_code == 204
        history = client.post(f"/threads/{thread}/history", json={"limit": 10}).json()
        assert client.delete(f"/threads/{thread}/runs/{first}").status_code == 204
        alone = client.post(f"/threads/{thread}/history", json={"limit": 10}).json()
    assert [state["metadata"]["run_id"] for state in history] == [third] * 3 + [first] * 3
    assert history[2]["parent_checkpoint_id"] == first
    assert [state["metadata"]["run_id"] for state in alone] == [third] * 3
    assert alone[2]["parent_checkpoint_id"] is None


def test_a_run_deleted_while_it_goes_on_is_cancelled_first() -> None:
    agent = ScriptedAgent(endless_run)
    with gateway_with(agent, MemoryReplayStore(), idle=None, run=None) as url:
        with httpx.Client(base_url=url, timeout=30) as client:
            run = client.post("/threads/t-gone/runs", json=run_body()).json()
            run_path = f"/threads/t-gone/runs/{run['run_id']}"
            wait_until(
                lambda: client.get(run_path).json()["status"] == "running", 10, "the run did not start"
            )
            deleted = client.delete(run_path)
            listed = client.get("/threads/t-gone/runs").json()
        wait_until(lambda: agent.cancelled == 1, 10, "the run was not cancelled upstream")
    assert (deleted.status_code, listed) == (204, [])


def test_runs_created_on_a_busy_thread_wait_their_turn_in_order() -> None:
    """``runs.create`` on a thread busy with a run answers at once, the run
    ``pending``; it starts once the run before has ended, and the next one
    after it; one cancelled while it waits never runs."""
    with serve(Gateway(DemoAgent(delay=0.02))) as url, httpx.Client(base_url=url, timeout=30) as client:
        runs = [
            client.post("/threads/t-queue/runs", json=run_body(input={"messages": [text]})).json()
            for text in ("one", "two", "three", "four")
        ]
        waiting = [client.get(f"/threads/t-queue/runs/{run['run_id']}").json()["status"] for run in runs]
        cancelled = client.post(f"/threads/t-queue/runs/{runs[2]['run_id']}/cancel")
        last = client.get(f"/threads/t-queue/runs/{runs[3]['run_id']}/join").json()
        statuses = [client.get(f"/threads/t-queue/runs/{run['run_id']}").json()["status"] for run in runs]
    assert [run["status"] for run in runs] == ["pending"] * 4
    assert waiting[0] in ("pending", "running")
    assert waiting[1:] == ["pending"] * 3
    assert cancelled.status_code == 202
    assert statuses == ["success", "success", "interrupted", "success"]
    humans = [message["content"] for message in last["messages"] if message["type"] == "human"]
    assert humans == ["one", "two", "four"]
    assert len(last["messages"]) == 3 * 5


def test_a_run_leaves_no_stream_of_its_own_unfinished() -> None:
    """A run that does not stream its values keeps them beside its stream,
    in one of their own, which ends with the run, so that the store forgets
    it in its time: never finished, it was kept for as long as the gateway
    ran (on Redis, renewed as a stream still written)."""
    turn = (AGENTAPP_FIXTURES / "agent_turn.process.sse").read_bytes()
    store = MemoryReplayStore()
    with gateway_with(ScriptedAgent(one_after_another(turn)), store) as url:
        body = run_body(stream_mode=["messages-tuple"])
        httpx.post(f"{url}/threads/side/runs/stream", json=body, timeout=30)
        state = httpx.get(f"{url}/threads/side/state").json()
    assert [message["type"] for message in state["values"]["messages"]][:1] == ["human"]
    assert len(store) >= 2
    assert [stream_id for stream_id, stream in store._streams.items() if not stream.finished] == []


def test_a_run_scheduled_for_later_starts_then_and_one_cancelled_before_never_runs() -> None:
    """``after_seconds``, as langgraph-api schedules a run: answered at
    once, ``pending`` and not started till then; one cancelled while it
    waits never runs, and its cancel ends it at once. The gateway started
    every run at once, whatever it asked."""
    turn = (AGENTAPP_FIXTURES / "agent_turn.process.sse").read_bytes()
    agent = ScriptedAgent(one_after_another(turn, turn))
    with gateway_with(agent, MemoryReplayStore()) as url, httpx.Client(base_url=url, timeout=30) as client:
        asked = time.monotonic()
        later = client.post("/threads/later/runs", json=run_body(after_seconds=1.0)).json()
        time.sleep(0.5)
        waiting = client.get(f"/threads/later/runs/{later['run_id']}").json()["status"]
        ran_before = agent.runs
        joined = client.get(f"/threads/later/runs/{later['run_id']}/join").json()
        took = time.monotonic() - asked
        never = client.post("/threads/later/runs", json=run_body(after_seconds=60)).json()
        cancelled = client.post(f"/threads/later/runs/{never['run_id']}/cancel")
        client.get(f"/threads/later/runs/{never['run_id']}/join")
        statuses = [
            client.get(f"/threads/later/runs/{run['run_id']}").json()["status"] for run in (later, never)
        ]
        refused = [
            client.post("/threads/later/runs", json=run_body(after_seconds=bad)) for bad in ("soon", -1, True)
        ]
        # (1e400 is JSON, and a float past the largest: never)
        raw = json.dumps(run_body(after_seconds=0)).replace('"after_seconds": 0', '"after_seconds": 1e400')
        refused.append(
            client.post("/threads/later/runs", content=raw, headers={"content-type": "application/json"})
        )
    assert (later["status"], waiting, ran_before) == ("pending", "pending", 0)
    assert took >= 1.0
    assert [message["type"] for message in joined["messages"]].count("human") == 1
    assert cancelled.status_code == 202
    assert time.monotonic() - asked < 30
    assert statuses == ["success", "interrupted"]
    assert agent.runs == 1
    assert [response.status_code for response in refused] == [422] * 4
    assert "after_seconds must be a non-negative number" in refused[0].json()["detail"]


def test_a_run_streamed_on_a_busy_thread_is_answered_at_once_and_streams_in_its_turn() -> None:
    """``runs.stream`` on a thread busy with a run: the response begins at
    once, naming the run (``pending``), while the run before goes on; the
    run streams once that one has ended, from where it left the thread."""
    with serve(Gateway(DemoAgent(delay=0.02))) as url, httpx.Client(base_url=url, timeout=30) as client:
        first = client.post("/threads/t-stream-queue/runs", json=run_body()).json()
        first_path = f"/threads/t-stream-queue/runs/{first['run_id']}"
        body = run_body(input={"messages": ["And now?"]}, stream_mode=["values"])
        with client.stream("POST", "/threads/t-stream-queue/runs/stream", json=body) as response:
            # (the headers are here: the first run has not ended)
            first_then = client.get(first_path).json()["status"]
            queued = client.get(response.headers["content-location"]).json()["status"]
            stream = response.read()
    assert (first_then, queued) == ("running", "pending")
    events = [(event.event, json.loads(event.data)) for event in SSEDecoder().feed(stream)]
    assert events[0][0] == "metadata"
    last = [data for name, data in events if name == "values"][-1]
    humans = [message["content"] for message in last["messages"] if message["type"] == "human"]
    assert humans == [QUESTION, "And now?"]


def test_threads_and_runs_are_dated_when_they_began_and_last_changed() -> None:
    """A run's ``created_at`` is when it began, its ``updated_at`` when it
    ended; a thread was made when ``threads.create`` made it (or its first
    run began) and updated when its last run ended, which its state is
    dated by too; asked again later, they stand."""
    from langgraph_sdk import get_client

    async def main(url: str) -> tuple[Any, list[Any], Any, Any, Any, list[Any]]:
        async with get_client(url=url) as client:
            made = await client.threads.create()
            thread_id = made["thread_id"]
            for text in ("first", "second"):
                async for _ in client.runs.stream(thread_id, "agent", input={"messages": [text]}):
                    pass
                await asyncio.sleep(0.02)
            other = (await client.threads.create())["thread_id"]
            async for _ in client.runs.stream(other, "agent", input={"messages": ["other"]}):
                pass
            runs = await client.runs.list(thread_id)
            thread = await client.threads.get(thread_id)
            state = await client.threads.get_state(thread_id)
            await asyncio.sleep(0.02)
            again = await client.threads.get(thread_id)
            by_creation = await client.threads.search(sort_by="created_at", sort_order="desc")
            return made, runs, thread, state, again, by_creation

    with serve(Gateway(DemoAgent(delay=0.01))) as url:
        made, runs, thread, state, again, by_creation = asyncio.run(main(url))
    second, first = runs
    assert made["created_at"] < first["created_at"] < first["updated_at"]
    assert first["updated_at"] < second["created_at"] < second["updated_at"]
    assert (thread["created_at"], thread["updated_at"]) == (made["created_at"], second["updated_at"])
    assert state["created_at"] == second["updated_at"]
    assert again == thread
    assert [found["thread_id"] for found in by_creation][1:] == [thread["thread_id"]]
    assert by_creation[0]["created_at"] > second["updated_at"]


def test_a_threads_runs_are_got_listed_and_joined_as_langgraph_sdk_asks() -> None:
    """``runs.get``, ``runs.list`` and ``runs.join``: a thread's runs, the
    latest first, each ``success`` once ended, paged and filtered by status;
    joined, the thread's values after the run; another thread's run, or an
    unknown one, is not found."""
    from langgraph_sdk import get_client

    async def main(url: str) -> dict[str, Any]:
        async with get_client(url=url) as client:
            thread_id = (await client.threads.create())["thread_id"]
            run_ids = []
            for text in ("first", "second"):
                asked = {"messages": [{"role": "user", "content": text}]}
                async for part in client.runs.stream(thread_id, "agent", input=asked):
                    if part.event == "metadata":
                        run_ids.append(part.data["run_id"])
            other = (await client.threads.create())["thread_id"]
            with pytest.raises(httpx.HTTPStatusError) as elsewhere:
                await client.runs.get(other, run_ids[0])
            return {
                "thread_id": thread_id,
                "run_ids": run_ids,
                "got": await client.runs.get(thread_id, run_ids[0]),
                "listed": await client.runs.list(thread_id),
                "page": await client.runs.list(thread_id, limit=1, offset=1),
                "succeeded": await client.runs.list(thread_id, status="success"),
                "running": await client.runs.list(thread_id, status="running"),
                "none": await client.runs.list(other),
                "joined": await client.runs.join(thread_id, run_ids[0]),
                "state": await client.threads.get_state(thread_id),
                "elsewhere": elsewhere.value.response.status_code,
            }

    with serve(Gateway(DemoAgent(delay=0))) as url:
        found = asyncio.run(main(url))
        refused = httpx.get(f"{url}/threads/{found['thread_id']}/runs", params={"limit": "many"})
        unknown = httpx.get(f"{url}/threads/{found['thread_id']}/runs/no-such-run/join")
    thread_id, run_ids = found["thread_id"], found["run_ids"]
    got = found["got"]
    assert (got["run_id"], got["thread_id"], got["status"]) == (run_ids[0], thread_id, "success")
    assert [run["run_id"] for run in found["listed"]] == run_ids[::-1]
    assert [run["run_id"] for run in found["page"]] == run_ids[:1]
    assert [run["run_id"] for run in found["succeeded"]] == run_ids[::-1]
    assert found["running"] == found["none"] == []
    # Joined, the first run gives the thread's values as it left them: its own turn.
    assert [text_of(message) for message in found["joined"]["messages"]][:1] == ["first"]
    assert len(found["state"]["values"]["messages"]) > len(found["joined"]["messages"])
    assert found["elsewhere"] == unknown.status_code == 404
    assert refused.status_code == 422
    assert refused.json()["detail"] == "limit must be an integer, not 'many'"


#: How a real langgraph-api answers the calls on runs (scripts/langgraph_fixtures.py runs).
SERVERS_RUNS = json.loads((FIXTURES / "langgraph" / "runs.json").read_text(encoding="utf-8"))


def one_after_another(*streams: bytes) -> Callable[[], AsyncIterator[bytes]]:
    """An upstream's answers, one a request."""
    left = list(streams)

    async def body() -> AsyncIterator[bytes]:
        yield left.pop(0)

    return body


def test_ended_runs_are_waited_for_listed_got_and_joined_as_langgraph_api_answers() -> None:
    """``runs.wait`` (a run that answers, one that fails), ``runs.list``
    (all, by status), ``runs.get``, ``runs.join``, cancelling a run that
    has ended or is unknown, and stateless runs: the statuses, the paths
    named and the bodies' shapes are the real server's."""
    turn, fails = (AGENTAPP_FIXTURES / f"{name}.process.sse" for name in ("agent_turn", "agent_fails"))
    agent = ScriptedAgent(one_after_another(*(path.read_bytes() for path in (turn, fails, turn, turn, turn))))
    asked = {"messages": [{"role": "user", "content": QUESTION}]}
    with gateway_with(agent, MemoryReplayStore()) as url, httpx.Client(base_url=url, timeout=30) as http:
        found = ended_runs(http, "a-thread", asked, answering="agent", failing="agent")
        last = http.get("/threads/a-thread/runs").json()[0]["run_id"]
        error = http.get(f"/threads/a-thread/runs/{last}/join").json()["__error__"]
        waited = http.post("/threads/more/runs/wait", json={"assistant_id": "agent", "input": asked}).json()
    assert found == {name: SERVERS_RUNS[name] for name in found}
    assert "the weather service went away" in error["message"]
    assert (waited["messages"][0]["type"], waited["messages"][0]["content"]) == ("human", QUESTION)


def test_a_run_longer_than_the_stores_ttl_is_kept_while_it_runs_and_one_queued_behind_it_too(
    tmp_path: Path,
) -> None:
    """On Redis, a run that goes on for longer than the store's ttl, and one
    waiting its turn behind it as long: each is found (``runs.get``) until
    it has ended, and the second runs in its turn, the thread holding both.
    The store forgot both midway: the runs were not found, and the thread
    was free for any run at once. (A run ended is forgotten ttl later.)"""
    turn = (AGENTAPP_FIXTURES / "agent_turn.process.sse").read_bytes()
    events = [event + b"\n\n" for event in turn.split(b"\n\n") if event.strip()]

    async def slow() -> AsyncIterator[bytes]:  # about 1.8 s, with pauses of 0.3 s
        for at, event in enumerate(events):
            if at % (len(events) // 6) == 0:
                await asyncio.sleep(0.3)
            yield event

    agent = ScriptedAgent(slow)
    with redis_server(tmp_path) as redis_url:
        store = RedisReplayStore(redis_url, ttl=0.6, block_seconds=0.2)
        with gateway_with(agent, store) as url, httpx.Client(base_url=url, timeout=30) as http:
            runs = [http.post("/threads/long/runs", json=run_body()).json()["run_id"] for _ in range(2)]
            seen: dict[str, list[str | None]] = {run_id: [] for run_id in runs}
            deadline = time.monotonic() + 20
            while "success" not in seen[runs[1]] and time.monotonic() < deadline:
                for run_id in runs:
                    if "success" not in seen[run_id]:
                        seen[run_id].append(http.get(f"/threads/long/runs/{run_id}").json().get("status"))
                time.sleep(0.1)
            values = http.get("/threads/long/state").json()["values"]
    first, second = (seen[run_id] for run_id in runs)
    assert first[-1] == second[-1] == "success", seen
    assert None not in first + second, seen
    assert "running" in first
    assert "pending" in second
    assert "running" in second
    assert [message["type"] for message in values["messages"]].count("human") == 2
    assert agent.most_running == 1


@pytest.mark.parametrize("strategy", ["enqueue", "reject"])
def test_runs_asked_of_two_replicas_at_once_on_one_thread_run_one_at_a_time(
    strategy: str, tmp_path: Path
) -> None:
    """Two replicas sharing a store, each asked for a run on one thread at
    the same moment, the agent slow to answer: one takes the thread, the
    other's run goes after it (``enqueue``: the thread holds both turns) or
    is refused (``reject``). The agent never runs two turns of a thread at
    once, which would interleave the session it keeps."""
    turn = (AGENTAPP_FIXTURES / "agent_turn.process.sse").read_bytes()

    async def body() -> AsyncIterator[bytes]:
        yield turn

    agent = ScriptedAgent(body, answer_after=0.3)
    with (
        redis_server(tmp_path) as redis_url,
        serve(agent) as upstream,
        serve(Gateway(upstream, store=RedisReplayStore(redis_url))) as first,
        serve(Gateway(upstream, store=RedisReplayStore(redis_url))) as second,
    ):

        async def main() -> list[httpx.Response]:
            async with httpx.AsyncClient(timeout=30) as http:
                thread_id = (await http.post(f"{first}/threads", json={})).json()["thread_id"]
                asked = [
                    run_body(input={"messages": [question]}, multitask_strategy=strategy)
                    for question in ("From the first", "From the second")
                ]
                return list(
                    await asyncio.gather(
                        *(
                            http.post(f"{url}/threads/{thread_id}/runs/wait", json=body)
                            for url, body in zip((first, second), asked, strict=True)
                        )
                    )
                )

        answers = asyncio.run(main())
    assert agent.most_running == 1
    statuses = sorted(answer.status_code for answer in answers)
    if strategy == "reject":
        assert statuses == [200, 409]
        assert agent.runs == 1
        return
    assert statuses == [200, 200]
    # The later turn's values hold the earlier one's: one thread, two turns in a row.
    humans = [
        [text_of(message) for message in answer.json()["messages"] if message["type"] == "human"]
        for answer in answers
    ]
    assert sorted(humans, key=len) in (
        [["From the first"], ["From the first", "From the second"]],
        [["From the second"], ["From the second", "From the first"]],
    )


class AnswersInTurn:
    """An upstream answering each ``POST /process`` with the next of its
    answers: a refusal (a status), or a run whose stream takes its time."""

    def __init__(self, *answers: int | float) -> None:
        self.answers = list(answers)
        self.turn = (AGENTAPP_FIXTURES / "agent_turn.process.sse").read_bytes()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        from starlette.requests import Request
        from starlette.responses import Response, StreamingResponse

        await Request(scope, receive).body()
        answer = self.answers.pop(0)
        if isinstance(answer, int):
            await Response(b"busy", answer)(scope, receive, send)
            return

        async def taking(seconds: float) -> AsyncIterator[bytes]:
            await asyncio.sleep(seconds)
            yield self.turn

        await StreamingResponse(taking(answer), media_type="text/event-stream")(scope, receive, send)


def test_a_run_that_cannot_start_leaves_its_thread_to_the_run_before() -> None:
    """A run the agent refuses to start, asked on a thread free (answered
    with the error) or waiting its turn there (its stream says it), is
    not the thread's: the next run goes on from the run before it, and the
    thread is not left busy."""
    upstream = AnswersInTurn(0.0, 500, 0.5, 500, 0.0)
    with (
        serve(upstream) as agent_url,
        serve(Gateway(agent_url)) as url,
        httpx.Client(base_url=url, timeout=30) as http,
    ):
        thread = http.post("/threads", json={}).json()["thread_id"]
        runs = f"/threads/{thread}/runs"
        ask = [run_body(input={"messages": [f"Question {n}"]}) for n in range(5)]
        http.post(f"{runs}/wait", json=ask[0]).raise_for_status()
        refused = http.post(f"{runs}/wait", json=ask[1])
        state_after_refusal = http.get(f"/threads/{thread}/state").json()
        slow = http.post(runs, json=ask[2]).json()
        queued = http.post(f"{runs}/stream", json=ask[3])
        http.get(f"{runs}/{slow['run_id']}/join")
        last = http.post(f"{runs}/wait", json=ask[4]).json()
        listed = [run["status"] for run in http.get(runs).json()]
        busy = http.get(f"/threads/{thread}").json()["status"]
    assert refused.status_code == 502
    assert "the agent answered 500" in refused.json()["detail"]
    assert [text_of(m) for m in state_after_refusal["values"]["messages"] if m["type"] == "human"] == [
        "Question 0"
    ]
    events = [(event.event, json.loads(event.data)) for event in SSEDecoder().feed(queued.content)]
    assert [name for name, _ in events] == ["metadata", "error"]
    assert "the agent answered 500" in events[1][1]["message"]
    humans = [text_of(message) for message in last["messages"] if message["type"] == "human"]
    assert humans == ["Question 0", "Question 2", "Question 4"]
    assert listed == ["success", "error", "success", "success"]
    assert busy == "idle"


def test_a_background_run_is_created_got_while_it_runs_and_cancelled_as_langgraph_api_answers() -> None:
    """``runs.create`` answers at once with the run ``pending``; it runs
    on without a client; ``runs.get`` finds it ``running``, then, once
    cancelled, ``interrupted``; a streamed run cancelled with ``wait=true``
    answers the result, and its stream ends as the real server's does."""
    agent = ScriptedAgent(endless_run)
    asked = {"messages": [{"role": "user", "content": "hi"}]}
    with (
        gateway_with(agent, MemoryReplayStore(), idle=None, run=None) as url,
        httpx.Client(base_url=url, timeout=30) as http,
    ):
        found, stream = cancelled_runs(http, ("background", "streamed"), asked, slow="agent")
        run_id = http.get("/threads/streamed/runs").json()[0]["run_id"]
        result = http.get(f"/threads/streamed/runs/{run_id}/join").json()
    # langgraph-api's answer to a cancel with wait=true holds the values the
    # run wrote after the cancel was asked (often none: {}); the gateway's,
    # those it wrote last, as a join's.
    assert found["cancel_wait"].pop("keys") == ["messages"]
    assert result["messages"][0]["content"] == "hi"
    servers = {name: SERVERS_RUNS[name] for name in found}
    servers["cancel_wait"] = {key: SERVERS_RUNS["cancel_wait"][key] for key in ("status", "headers")}
    assert found == servers
    # The stream of a cancelled run ends as the real server's: no error.
    events = [event.event for event in SSEDecoder().feed(stream)]
    assert events == SERVERS_RUNS["cancelled_stream_events"]


def test_a_stateless_run_streams_on_a_thread_of_its_own(gateway: str) -> None:
    """``POST /runs/stream``: the run's stream, named as the real server
    names it (no thread), joined again at the path its ``Location`` names."""
    asked = {"assistant_id": "agent", "input": {"messages": [{"role": "user", "content": QUESTION}]}}
    response = httpx.post(f"{gateway}/runs/stream", json={**asked, "stream_mode": ["values"]}, timeout=30)
    run_id = response.headers["content-location"].rsplit("/", 1)[1]
    found = answered(response, {"run_id": run_id})
    found["events"] = sorted({event.event for event in SSEDecoder().feed(response.content)})
    assert found == SERVERS_RUNS["stateless_stream"]
    again = httpx.get(gateway + response.headers["location"], timeout=30)
    assert data_events(again.content) == data_events(response.content)


def test_a_waited_run_keeps_its_connection_alive_and_is_cancelled_if_asked_when_its_client_leaves(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A run waited for longer than the keep-alive: whitespace until its
    result. A client that leaves cancels the run only if it asked to
    (``on_disconnect: "cancel"``), as langgraph-api's does."""
    from agentcodec.langgraph import gateway as endpoint

    monkeypatch.setattr(endpoint, "_KEEP_ALIVE", 0.1)
    asked = {"assistant_id": "agent", "input": {"messages": [{"role": "user", "content": "hi"}]}}
    for on_disconnect, cancelled in (("cancel", 1), ("continue", 0)):
        agent = ScriptedAgent(endless_run)
        with gateway_with(agent, MemoryReplayStore(), idle=None, run=None) as url:
            with httpx.stream(
                "POST",
                f"{url}/threads/t/runs/wait",
                json={**asked, "on_disconnect": on_disconnect},
                timeout=30,
            ) as response:
                chunks = response.iter_bytes()
                assert next(chunks).strip() == b""  # kept alive: the run goes on
            listed = f"{url}/threads/t/runs"
            if cancelled:
                wait_until(
                    lambda: httpx.get(listed, timeout=30).json()[0]["status"] == "interrupted",  # noqa: B023
                    10,
                    "the run was not cancelled",
                )
            else:
                time.sleep(0.5)  # time enough to have cancelled it, if it did
            status = httpx.get(listed, timeout=30).json()[0]["status"]
            expected = "interrupted" if cancelled else "running"
            assert (agent.cancelled, status) == (cancelled, expected), on_disconnect


def test_a_run_waiting_its_turn_whose_client_leaves_asking_to_cancel_never_runs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A run waited for on a busy thread, its answer kept alive while it
    waits its turn; its client leaves, having asked to cancel it then: once
    the run before ends, it does not start, and is ``interrupted``."""
    from agentcodec.langgraph import gateway as endpoint

    monkeypatch.setattr(endpoint, "_KEEP_ALIVE", 0.1)
    with serve(Gateway(DemoAgent(delay=0.02))) as url, httpx.Client(base_url=url, timeout=30) as client:
        first = client.post("/threads/t-left/runs", json=run_body()).json()
        body = run_body(input={"messages": ["never"]}, on_disconnect="cancel")
        with client.stream("POST", "/threads/t-left/runs/wait", json=body) as response:
            assert next(response.iter_bytes()).strip() == b""  # kept alive while it waits
            queued = response.headers["content-location"]
        wait_until(lambda: client.get(queued).json()["status"] == "interrupted", 10, "it was not cancelled")
        first_status = client.get(f"/threads/t-left/runs/{first['run_id']}").json()["status"]
        values = client.get("/threads/t-left/state").json()["values"]
    assert first_status == "success"
    assert [message["content"] for message in values["messages"] if message["type"] == "human"] == [QUESTION]


def test_a_run_streamed_while_it_waits_its_turn_and_abandoned_asking_to_cancel_never_runs() -> None:
    """A run streamed on a busy thread, asking to be cancelled when its
    client leaves (``on_disconnect: "cancel"``): its response begins at
    once; its client reads the start and leaves; nobody reads it for the
    gateway's abandoned timeout, so once the run before ends, it does not
    start, and is ``interrupted``."""
    from agentcodec.gateway import Timeouts

    gateway = Gateway(DemoAgent(delay=0.1), timeouts=Timeouts(abandoned=0.3))
    with serve(gateway) as url, httpx.Client(base_url=url, timeout=30) as client:
        first = client.post("/threads/t-abandoned/runs", json=run_body()).json()
        body = run_body(input={"messages": ["never"]}, on_disconnect="cancel")
        with client.stream("POST", "/threads/t-abandoned/runs/stream", json=body) as response:
            queued = response.headers["content-location"]
            assert client.get(queued).json()["status"] == "pending"
        wait_until(lambda: client.get(queued).json()["status"] == "interrupted", 20, "it was not cancelled")
        first_status = client.get(f"/threads/t-abandoned/runs/{first['run_id']}").json()["status"]
        values = client.get("/threads/t-abandoned/state").json()["values"]
    assert first_status == "success"
    assert [message["content"] for message in values["messages"] if message["type"] == "human"] == [QUESTION]


def test_langgraph_sdk_waits_for_creates_and_joins_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """langgraph-sdk's ``runs.wait`` (on a thread, and stateless), and
    ``runs.create`` then ``runs.join``, on runs that outlast the
    keep-alive: the SDK reads the answer whitespace comes before."""
    from langgraph_sdk import get_client

    from agentcodec.langgraph import gateway as endpoint

    monkeypatch.setattr(endpoint, "_KEEP_ALIVE", 0.02)
    asked = {"messages": [{"role": "user", "content": QUESTION}]}

    async def main(url: str) -> dict[str, Any]:
        async with get_client(url=url) as client:
            thread_id = (await client.threads.create())["thread_id"]
            waited = await client.runs.wait(thread_id, "agent", input=asked)
            stateless = await client.runs.wait(None, "agent", input=asked)
            run = await client.runs.create(
                thread_id, "agent", input={"messages": [{"role": "user", "content": "And?"}]}
            )
            joined = await client.runs.join(thread_id, run["run_id"])
            got = await client.runs.get(thread_id, run["run_id"])
        return {"waited": waited, "stateless": stateless, "run": run, "joined": joined, "got": got}

    with serve(Gateway(DemoAgent(delay=0.01))) as url:
        found = asyncio.run(main(url))
    # The thread's values: the question, then the demo agent's turn (its
    # reasoning, its call, the tool's result, its answer).
    turn = ["human", "ai", "ai", "tool", "ai"]
    waited = found["waited"]["messages"]
    assert [message["type"] for message in waited] == turn
    assert (text_of(waited[0]), text_of(waited[-1])) == (QUESTION, ANSWER)
    assert [message["type"] for message in found["stateless"]["messages"]] == turn
    assert found["run"]["status"] == "pending"
    # Joined, the thread's values after its second run: both turns.
    joined = found["joined"]["messages"]
    assert [message["type"] for message in joined] == [*turn, *turn]
    assert joined[: len(turn)] == waited
    assert text_of(joined[len(turn)]) == "And?"
    assert found["got"]["status"] == "success"


#: How a real langgraph-api answers the calls on assistants (scripts/langgraph_fixtures.py assistants).
SERVERS_ASSISTANTS = json.loads((FIXTURES / "langgraph" / "assistants.json").read_text(encoding="utf-8"))


def test_the_assistant_is_searched_for_counted_got_and_drawn_as_langgraph_api_answers(gateway: str) -> None:
    """The gateway's agent is one assistant, the graph ``agent``, with the
    id langgraph-api gives a graph of that name; searched for, counted, got
    and drawn (a graph of one node), it answers as the real server does."""
    with httpx.Client(base_url=gateway, timeout=30) as http:
        found = assistant_calls(http, "agent", ("agent", "agent"))
    assert found == SERVERS_ASSISTANTS


def test_langgraph_sdk_runs_the_assistant_it_found() -> None:
    """What langgraph-sdk's users write first: search for the assistant,
    then run it by its id; and RemoteGraph's ``get_graph`` call."""
    from langgraph_sdk import get_client

    async def main(url: str) -> tuple[Any, Any, Any]:
        async with get_client(url=url) as client:
            (assistant,) = await client.assistants.search(metadata={"created_by": "system"})
            graph = await client.assistants.get_graph(assistant["assistant_id"])
            thread_id = (await client.threads.create())["thread_id"]
            asked = {"messages": [{"role": "user", "content": QUESTION}]}
            values = await client.runs.wait(thread_id, assistant["assistant_id"], input=asked)
            runs = await client.runs.list(thread_id)
        return graph, values, runs

    with serve(Gateway(DemoAgent(delay=0))) as url:
        graph, values, runs = asyncio.run(main(url))
    assert [node["id"] for node in graph["nodes"]] == ["__start__", "agent", "__end__"]
    assert text_of(values["messages"][-1]) == ANSWER
    assert runs[0]["assistant_id"] == SERVERS_ASSISTANTS["get"]["assistant"]["assistant_id"]
    assert runs[0]["metadata"]["graph_id"] == "agent"


def test_an_unknown_run_or_thread_is_not_found(gateway: str) -> None:
    assert httpx.get(f"{gateway}/threads/nobody/runs/none/stream").status_code == 404
    assert httpx.get(f"{gateway}/threads/nobody/state").status_code == 404


@pytest.mark.parametrize("stream_mode", ["values", "updates"])
def test_a_run_is_cancelled_as_langgraph_sdk_cancels_it(stream_mode: str) -> None:
    """``runs.cancel`` (useStream's ``stop``): the run is cancelled upstream
    and its stream ends; joined, its answer is the thread's values, as the
    run found them, whether it streamed them or not; a run that has ended,
    or an unknown run, is not found."""
    from langgraph_sdk import get_client

    agent = ScriptedAgent(endless_run)
    asked = {"messages": [{"role": "user", "content": "hi"}]}

    async def main(url: str) -> tuple[Any, Any, list[Any]]:
        async with get_client(url=url) as client:
            thread_id = (await client.threads.create())["thread_id"]
            async for part in client.runs.stream(thread_id, "agent", input=asked, stream_mode=[stream_mode]):
                if part.event == "metadata":
                    run_id = part.data["run_id"]
                    break
            # Its run going on, the thread is busy, and the run running.
            assert (await client.runs.get(thread_id, run_id))["status"] == "running"
            busy = await client.threads.search(status="busy")
            assert [thread["thread_id"] for thread in busy] == [thread_id]
            assert (await client.threads.get(thread_id))["status"] == "busy"
            cancelled = await client.runs.cancel(thread_id, run_id)
            values = await client.runs.join(thread_id, run_id)
            # The thread waits for the node the cancel cut short, as langgraph-api's.
            assert (await client.threads.get(thread_id))["status"] == "interrupted"
            # A run that has ended is not there to cancel, as langgraph-api says.
            with pytest.raises(httpx.HTTPStatusError) as ended:
                await client.runs.cancel(thread_id, run_id, wait=True)
            assert ended.value.response.status_code == 404
            # A cancelled run is interrupted, as langgraph-api says.
            assert (await client.runs.get(thread_id, run_id))["status"] == "interrupted"
            joined = [part async for part in client.runs.join_stream(thread_id, run_id)]
            with pytest.raises(httpx.HTTPStatusError) as unknown:
                await client.runs.cancel(thread_id, "no-such-run")
            assert unknown.value.response.status_code == 404
            return cancelled, values, joined

    with gateway_with(agent, MemoryReplayStore(), idle=None, run=None) as url:
        cancelled, values, joined = asyncio.run(main(url))
        time.sleep(0.2)  # the upstream hears of it once its stream is closed
        assert agent.cancelled == 1
    assert cancelled is None  # 202, no body
    assert values["messages"][0]["content"] == "hi"
    # The run's stream ends with the thread's values as the run found them:
    # as langgraph-api's, a node cut short writes nothing to the thread.
    if stream_mode == "values":
        assert (joined[-1].event, joined[-1].data) == ("values", values)
    else:
        assert {part.event for part in joined} == {"metadata"}
    assert [message["type"] for message in values["messages"]] == ["human"]


def test_a_run_is_cancelled_from_another_replica(tmp_path: Path) -> None:
    """A cancel that reaches another replica than the run's stops it there,
    through the store shared by the replicas."""
    from langgraph_sdk import get_client

    asked = {"messages": [{"role": "user", "content": QUESTION}]}

    async def main(first: str, second: str) -> Any:
        async with get_client(url=first) as runs_it, get_client(url=second) as other:
            thread_id = (await runs_it.threads.create())["thread_id"]
            async for part in runs_it.runs.stream(thread_id, "agent", input=asked, stream_mode=["values"]):
                if part.event == "metadata":
                    run_id = part.data["run_id"]
                    break
            return await other.runs.cancel(thread_id, run_id, wait=True)

    with two_replicas(tmp_path, demo_delay=0.05) as (first, second, _):
        values = asyncio.run(main(first, second))
    answered = "".join(text_of(message) for message in values["messages"] if message["type"] == "ai")
    assert ANSWER not in answered  # cut short


def test_a_background_run_is_followed_and_cancelled_from_another_replica(tmp_path: Path) -> None:
    """A run created on one replica (``runs.create``) is got, listed and
    cancelled on another sharing the store, and the thread there says so;
    a run waited for on one is joined on the other."""
    from langgraph_sdk import get_client

    asked = {"messages": [{"role": "user", "content": QUESTION}]}

    async def main(first: str, second: str) -> dict[str, Any]:
        async with get_client(url=first) as runs_it, get_client(url=second) as other:
            thread_id = (await runs_it.threads.create())["thread_id"]
            run = await runs_it.runs.create(thread_id, "agent", input=asked)
            found = {"created": run["status"]}
            for _ in range(100):
                got = await other.runs.get(thread_id, run["run_id"])
                found["running"] = got["status"]
                if found["running"] == "running":
                    break
                await asyncio.sleep(0.05)
            # Dated by the store, as either replica dates it.
            found["began"] = (run["created_at"], got["created_at"], got["updated_at"])
            found["listed"] = [listed["run_id"] for listed in await other.runs.list(thread_id)]
            await other.runs.cancel(thread_id, run["run_id"])
            found["joined"] = await other.runs.join(thread_id, run["run_id"])
            cancelled = await other.runs.get(thread_id, run["run_id"])
            found["cancelled"] = cancelled["status"]
            found["ended"] = (cancelled["created_at"], cancelled["updated_at"])
            found["thread"] = (await other.threads.get(thread_id))["status"]
            waited = await runs_it.runs.wait(None, "agent", input=asked)
            found["waited"] = waited
            return found | {"run_id": run["run_id"]}

    # (a run of some 3 s: the cancel reaches its replica within half a second)
    with two_replicas(tmp_path, demo_delay=0.1) as (first, second, _):
        found = asyncio.run(main(first, second))
    assert (found["created"], found["running"], found["cancelled"]) == ("pending", "running", "interrupted")
    assert found["listed"] == [found["run_id"]]
    began = found["began"][0]
    assert found["began"] == (began, began, began)
    assert found["ended"][0] == began < found["ended"][1]
    assert found["thread"] == "interrupted"
    # Cut short, the run left the thread as it found it: the question alone.
    assert [message["type"] for message in found["joined"]["messages"]] == ["human"]
    assert text_of(found["waited"]["messages"][-1]) == ANSWER


class Dropping:
    """A LangGraph server whose run's stream drops midway: the run names its
    join endpoint (``Location``), which gives the rest after
    ``Last-Event-ID``. Records how the join was asked for."""

    def __init__(self, stream: bytes, cut: int) -> None:
        decoder = SSEDecoder()
        events = [*decoder.feed(stream), *decoder.close()]
        self.frames = [
            f"id: {number}\nevent: {event.event}\ndata: {event.data}\n\n".encode()
            for number, event in enumerate(events, 1)
        ]
        self.cut = cut
        self.joins: list[tuple[str, str, bytes]] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        headers = dict(scope["headers"])
        if scope["method"] == "POST":
            start = {"type": "http.response.start", "status": 200}
            location = b"/threads/t/runs/r/stream"
            await send(
                {**start, "headers": [(b"content-type", b"text/event-stream"), (b"location", location)]}
            )
            await send(
                {"type": "http.response.body", "body": b"".join(self.frames)[: self.cut], "more_body": True}
            )
            raise RuntimeError("the connection drops")
        body = (await receive()).get("body", b"")
        after = headers.get(b"last-event-id", b"0").decode()
        self.joins.append((scope["method"], scope["path"] + ":" + after, body))
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", b"text/event-stream")],
            }
        )
        await send({"type": "http.response.body", "body": b"".join(self.frames[int(after) :])})


@pytest.mark.parametrize("how", ["httpx", "httpx async", "aiohttp"])
def test_the_client_resumes_a_run_at_the_place_its_response_named(how: str) -> None:
    """As langgraph-sdk does: a dropped run's stream is asked for again with
    a GET of its ``Location``, after ``Last-Event-ID``, no body sent."""
    from agentcodec import client

    stream = (FIXTURES / "langgraph" / "tool_call.sse").read_bytes()
    server = Dropping(stream, cut=len(stream) // 2)
    path = "/threads/t/runs/stream"

    async def read_async(url: str) -> tuple[Any, int]:
        if how == "aiohttp":
            import aiohttp

            session: Any = aiohttp.ClientSession()
            target = url + path
        else:
            session = httpx.AsyncClient(base_url=url)
            target = path
        async with session:
            opened = client.aconnect(
                session, "POST", target, protocol="langgraph", json=run_body(), retry_delay=0
            )
            async with opened as events:
                return await events.until_done(), events.reconnections

    with serve(server) as url:
        if how == "httpx":
            with (
                httpx.Client(base_url=url) as http,
                client.connect(
                    http, "POST", path, protocol="langgraph", json=run_body(), retry_delay=0
                ) as events,
            ):
                run, reconnections = events.until_done(), events.reconnections
        else:
            run, reconnections = asyncio.run(read_async(url))
    assert reconnections == 1
    ((method, place, body),) = server.joins
    assert (method, body) == ("GET", b"")
    assert place.startswith("/threads/t/runs/r/stream:")
    assert int(place.rpartition(":")[2]) > 1
    whole = langgraph.Assembler()
    whole.feed(stream)
    assert run == whole.close()


@pytest.mark.parametrize(("on_disconnect", "cancelled"), [("cancel", 1), (None, 0)])
def test_a_langgraph_run_is_cancelled_when_abandoned_only_if_it_asked(
    on_disconnect: Any, cancelled: int
) -> None:
    """langgraph-api's runs go on when their client leaves unless asked
    (``on_disconnect: "cancel"``); the gateway's do the same."""
    agent = ScriptedAgent(endless_run)
    body = {"assistant_id": "agent", "input": {"messages": [{"role": "user", "content": "hi"}]}}
    if on_disconnect is not None:
        body["on_disconnect"] = on_disconnect
    with gateway_with(agent, MemoryReplayStore(), abandoned=0.5, idle=None, run=None) as url:
        read_then_leave(url, "/threads/t1/runs/stream", body)
        time.sleep(2.0)
        assert agent.cancelled == cancelled
