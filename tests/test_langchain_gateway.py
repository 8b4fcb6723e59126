"""The gateway's LangChain Agent Streaming Protocol endpoint (its SSE
transport: ``run.start`` commands and event streams by thread) on uvicorn,
called by httpx, in front of the demo agent, and on two replicas sharing a
redis-server. What every endpoint does alike is test_gateway's."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from agentcodec import langchain
from agentcodec.gateway import DemoAgent, Gateway, RequestError
from agentcodec.langchain.gateway import agent_request_from_langchain
from agentcodec.server import MemoryReplayStore
from gateway_clients import QUESTION, event_numbers, two_replicas
from servers import serve
from sse_helpers import data_events


@pytest.fixture(scope="module")
def demo() -> Iterator[str]:
    with serve(Gateway(DemoAgent(delay=0))) as url:
        yield url


def test_langchain_thread_runs_and_streams(demo: str) -> None:
    with httpx.Client(base_url=demo, timeout=30) as http:
        # The subscriber may come first: it waits for the thread's run.
        with http.stream(
            "POST", "/threads/t1/stream/events", json={"channels": ["messages", "lifecycle"]}
        ) as events:
            command = {
                "id": 1,
                "method": "run.start",
                "params": {"input": {"messages": [{"role": "user", "content": QUESTION}]}},
            }
            answer = http.post("/threads/t1/commands", json=command).json()
            assert answer["type"] == "success"
            assert answer["id"] == 1
            stream = events.read()
        assembler = langchain.Assembler()
        assembler.feed(stream)
        messages = assembler.close()
        envelopes = data_events(stream)
        assert [envelope["seq"] for envelope in envelopes] == event_numbers(stream)
        assert envelopes[0]["method"] == "lifecycle"
        texts = [
            block.get("text")
            for message in messages
            for block in message["content"]
            if block["type"] == "text"
        ]
        assert f'You wrote "{QUESTION}": that is 7 words.' in texts
        # `since` resumes after a seq; a channel filter narrows what comes.
        again = http.post("/threads/t1/stream/events", json={"channels": ["lifecycle"], "since": 1}).content
        assert [envelope["seq"] for envelope in data_events(again)] == [envelopes[-1]["seq"]]
        assert data_events(again)[0]["method"] == "lifecycle"


def test_langchain_commands_are_checked(demo: str) -> None:
    unknown = httpx.post(f"{demo}/threads/t2/commands", json={"id": 7, "method": "state.get", "params": {}})
    assert unknown.status_code == 400
    assert unknown.json()["error"] == "unknown_command"
    bad = httpx.post(
        f"{demo}/threads/t2/commands",
        json={"id": 8, "method": "run.start", "params": {"input": [{"role": "robot"}]}},
    )
    assert bad.json() == {
        "type": "error",
        "id": 8,
        "error": "invalid_argument",
        "message": "params.input.messages[0].role 'robot' is not a message role this gateway forwards",
    }
    channel = httpx.post(f"{demo}/threads/t2/stream/events", json={"channels": ["nope"]})
    assert channel.status_code == 400


@pytest.mark.parametrize(
    ("path", "content", "headers"),
    [
        ("/threads/t/commands", b"[" * 5000 + b"]" * 5000, {}),
        ("/threads/t/stream/events", b'{"channels": 5}', {}),
        ("/threads/t/stream/events", b'{"channels": [[1]]}', {}),
        ("/threads/t/stream/events", b'{"channels": ["messages"], "namespaces": 5}', {}),
        ("/threads/t/stream/events", b'{"channels": ["messages"], "since": [1]}', {"last-event-id": "3"}),
        ("/threads/t/stream/events", b'{"channels": ["messages"], "since": 1e400}', {"last-event-id": "3"}),
    ],
    ids=["deep-command", "channels-int", "channels-nested", "namespaces-int", "since-list", "since-huge"],
)
def test_a_body_no_handler_can_take_is_a_400_not_a_500(
    demo: str, path: str, content: bytes, headers: dict[str, str]
) -> None:
    """What once raised inside the gateway (RecursionError, TypeError,
    OverflowError: gateway.md 5) is a 400 that says why."""
    response = httpx.post(
        f"{demo}{path}", content=content, headers={"content-type": "application/json", **headers}
    )
    assert response.status_code == 400, response.text
    assert response.json()


def test_langchain_input_takes_messages_in_its_shapes() -> None:
    request = agent_request_from_langchain(
        {
            "input": {
                "messages": [
                    {"type": "human", "content": "hi"},
                    {"role": "ai", "content": "", "tool_calls": [{"id": "c", "name": "f", "args": {"x": 1}}]},
                    {"role": "tool", "tool_call_id": "c", "content": "1"},
                ]
            }
        },
        "thread",
    )
    assert request["session_id"] == "thread"
    assert [(m["role"], m["type"]) for m in request["input"]] == [
        ("user", "message"),
        ("assistant", "function_call"),
        ("tool", "function_call_output"),
    ]
    assert request["input"][1]["content"][0]["data"]["arguments"] == '{"x": 1}'
    with pytest.raises(RequestError, match=r"params must be a JSON object"):
        agent_request_from_langchain(None, "t")


def test_a_langchain_thread_is_followed_and_resumed_on_any_replica(tmp_path: Path) -> None:
    """A LangChain subscriber waiting on one replica sees the run another
    replica starts; dropped midway, it resumes with ``since`` on the first."""
    command = {"id": 1, "method": "run.start", "params": {"input": QUESTION}}
    with two_replicas(tmp_path) as (first, second, http):
        body = {"channels": ["messages", "lifecycle"]}
        head = b""
        with http.stream("POST", f"{second}/threads/t9/stream/events", json=body) as events:
            answer = http.post(f"{first}/threads/t9/commands", json=command).json()
            assert answer["type"] == "success"
            for chunk in events.iter_raw():
                head += chunk
                if b"tool" in head:
                    break  # the subscriber's connection to the second replica is gone
        head = head[: head.rfind(b"\n\n") + 2]
        seen = event_numbers(head)[-1]
        rest = http.post(f"{first}/threads/t9/stream/events", json={**body, "since": seen}).content
        # Nothing is left when the run is followed after its end.
        after = http.post(f"{second}/threads/t9/stream/events", json={**body, "since": 10**6}).content
    numbers = event_numbers(head) + event_numbers(rest)
    assert numbers == sorted(set(numbers))
    assert [envelope["seq"] for envelope in data_events(head + rest)] == numbers
    assert data_events(head)[0]["method"] == "lifecycle"
    assert data_events(rest)[-1]["method"] == "lifecycle"
    assert data_events(after) == []
    assembler = langchain.Assembler()
    assembler.feed(head + rest)
    texts = [block.get("text") for message in assembler.close() for block in message["content"]]
    assert f'You wrote "{QUESTION}": that is 7 words.' in texts


def test_langchain_threads_are_bounded_by_the_store() -> None:
    store = MemoryReplayStore(max_streams=2)
    command = {"id": 1, "method": "run.start", "params": {"input": "hello there"}}
    with (
        serve(Gateway(DemoAgent(delay=0), store=store)) as url,
        httpx.Client(base_url=url, timeout=30) as http,
    ):
        for thread in ("a", "b", "c"):
            assert http.post(f"/threads/{thread}/commands", json=command).json()["type"] == "success"
        # "a" is forgotten with its run; "c" still streams its run.
        assert asyncio.run(store.resolve_alias("langchain-thread:a")) is None
        stream = http.post("/threads/c/stream/events", json={"channels": ["messages"]}).content
    texts = [e["params"]["data"].get("content", {}).get("text") for e in data_events(stream)]
    assert 'You wrote "hello there": that is 2 words.' in texts
