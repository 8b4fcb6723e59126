"""The gateway's AI SDK endpoint (``POST /ai-sdk/chat``) on uvicorn, posted
to as useChat's ``DefaultChatTransport`` posts (httpx), in front of the demo
agent and of an Agent API server answering with a recorded run: the UI
message stream with the header its readers look for, its tool parts with
their outputs, and the UIMessages a chat sends back reaching the agent as
its messages. What every endpoint does alike is test_gateway's."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from agent_servers import RecordedAgent, tool_call_run
from agentcodec import ai_sdk
from agentcodec.ai_sdk.gateway import agent_request_from_ui_messages
from agentcodec.gateway import DemoAgent, Gateway
from agentcodec.server import MemoryReplayStore, RedisReplayStore
from gateway_clients import ANSWER, QUESTION, gateway_before
from servers import redis_server, serve

PATH = "/ai-sdk/chat"


def user(text: str, message_id: str = "u1") -> dict[str, Any]:
    return {"id": message_id, "role": "user", "parts": [{"type": "text", "text": text}]}


def posted(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """What DefaultChatTransport posts for a chat's new message."""
    return {"id": "chat-1", "messages": messages, "trigger": "submit-message"}


@pytest.fixture(scope="module")
def demo() -> Iterator[str]:
    with serve(Gateway(DemoAgent(delay=0))) as url:
        yield url


def assembled(stream: bytes) -> Any:
    assembler = ai_sdk.Assembler()
    assembler.feed(stream)
    message = assembler.close()
    assert assembler.errors == []
    return message


def test_a_chat_gets_the_agents_turn_as_a_ui_message_stream(demo: str) -> None:
    """Reasoning, the tool the agent ran with its output (a UI shows both),
    and the answer, under the header the SDK's readers look for."""
    response = httpx.post(f"{demo}{PATH}", json=posted([user(QUESTION)]), timeout=10)
    assert response.status_code == 200
    assert response.headers["x-vercel-ai-ui-message-stream"] == "v1"
    assert response.headers["content-type"].startswith("text/event-stream")
    assert response.content.endswith(b"data: [DONE]\n\n")
    message = assembled(response.content)
    parts = [part for part in message["parts"] if part["type"] != "step-start"]
    assert [part["type"] for part in parts] == ["reasoning", "tool-word_count", "text"]
    assert parts[1]["state"] == "output-available"
    assert parts[1]["input"] == {"text": QUESTION}
    assert parts[2]["text"] == ANSWER


@contextlib.contextmanager
def replicas(shared: bool, directory: Path) -> Iterator[tuple[str, str]]:
    """Where a chat posts and where it comes back: one gateway, or two
    sharing a redis-server."""
    agent = DemoAgent(delay=0.05)
    if not shared:
        with serve(Gateway(agent)) as url:
            yield url, url
        return
    with (
        redis_server(directory) as redis_url,
        serve(Gateway(agent, store=RedisReplayStore(redis_url))) as first,
        serve(Gateway(agent, store=RedisReplayStore(redis_url))) as second,
    ):
        yield first, second


@pytest.mark.parametrize("shared", [False, True], ids=["one-gateway", "replicas-sharing-redis"])
def test_a_chat_that_comes_back_reconnects_to_its_run_while_it_goes_on(shared: bool, tmp_path: Path) -> None:
    """What DefaultChatTransport.reconnectToStream asks after a reload: the
    chat's run from its start while it goes on (its reader gone midway),
    with the stream's header; 204 once it has ended, and for a chat the
    gateway has not run."""
    with replicas(shared, tmp_path) as (posted_to, back_at), httpx.Client(timeout=30) as http:
        assert http.get(f"{back_at}{PATH}/chat-1/stream").status_code == 204
        head = b""
        with http.stream("POST", f"{posted_to}{PATH}", json=posted([user(QUESTION)])) as response:
            for chunk in response.iter_raw():
                head += chunk
                if head.count(b"\n\n") >= 3:
                    break  # the page reloads mid-run
        back = http.get(f"{back_at}{PATH}/chat-1/stream")
        assert back.status_code == 200
        assert back.headers["x-vercel-ai-ui-message-stream"] == "v1"
        # from the run's first event, which the first reader had too
        assert back.content.startswith(head[: head.index(b"\n\n") + 2])
        assert back.content.endswith(b"data: [DONE]\n\n")
        texts = [part["text"] for part in assembled(back.content)["parts"] if part["type"] == "text"]
        assert texts[-1] == ANSWER
        assert http.get(f"{back_at}{PATH}/chat-1/stream").status_code == 204
        assert http.get(f"{back_at}{PATH}/chat-2/stream").status_code == 204


def test_a_run_whose_start_the_store_dropped_cannot_be_come_back_to() -> None:
    """A chat comes back for the whole run: one whose first events the store
    no longer keeps is gone (410, saying so), not a chat without a run."""
    store = MemoryReplayStore(max_events=2)
    with (
        serve(Gateway(DemoAgent(delay=0.05), store=store)) as url,
        httpx.Client(timeout=30) as http,
        http.stream("POST", f"{url}{PATH}", json=posted([user(QUESTION)])) as response,
    ):
        head = b""
        for chunk in response.iter_raw():
            head += chunk
            if head.count(b"\n\n") >= 4:
                break
        back = http.get(f"{url}{PATH}/chat-1/stream")
    assert back.status_code == 410, back.text
    assert "the oldest event stored is" in back.text


def test_the_chat_sent_back_reaches_the_agent_as_its_messages() -> None:
    """The assistant's UIMessage, as useChat keeps it, sent back with the
    next question: its text, the tool call and its output, in order; each
    request a session of its own, for it carries the whole chat."""
    agent = RecordedAgent(tool_call_run(answered=True))
    with gateway_before(agent) as url:
        first = assembled(httpx.post(f"{url}{PATH}", json=posted([user(QUESTION)]), timeout=10).content)
        again = posted([user(QUESTION), first, user("And tomorrow?", "u2")])
        assert httpx.post(f"{url}{PATH}", json=again, timeout=10).status_code == 200
    assert [(message["role"], message["type"]) for message in agent.requests[1]["input"]] == [
        ("user", "message"),
        ("assistant", "message"),
        ("assistant", "function_call"),
        ("tool", "function_call_output"),
        ("assistant", "message"),
        ("user", "message"),
    ]
    call, output = agent.requests[1]["input"][2:4]
    assert call["content"] == [
        {"type": "data", "data": {"call_id": "call_1", "name": "weather", "arguments": '{"city": "Paris"}'}}
    ]
    assert output["content"] == [{"type": "data", "data": {"call_id": "call_1", "output": "18 C"}}]
    assert agent.requests[0]["session_id"] != agent.requests[1]["session_id"]


def test_a_call_left_to_the_client_waits_for_its_output() -> None:
    """A call the run leaves unanswered is written with its input, for the
    chat's onToolCall; the chat sends its output back on the same part."""
    agent = RecordedAgent(tool_call_run())
    with gateway_before(agent) as url:
        message = assembled(httpx.post(f"{url}{PATH}", json=posted([user(QUESTION)]), timeout=10).content)
        [tool] = [part for part in message["parts"] if part["type"] == "tool-weather"]
        assert (tool["state"], tool["toolCallId"], tool["input"]) == (
            "input-available",
            "call_1",
            {"city": "Paris"},
        )
        tool.update(state="output-available", output={"temperature": 18})
        again = posted([user(QUESTION), message])
        assert httpx.post(f"{url}{PATH}", json=again, timeout=10).status_code == 200
    assert agent.requests[1]["input"][-1]["content"] == [
        {"type": "data", "data": {"call_id": "call_1", "output": '{"temperature": 18}'}}
    ]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"id": "c", "messages": []}, "messages is required: at least one UIMessage"),
        (
            {"messages": [{"id": "t", "role": "tool", "parts": []}]},
            "messages[0].role 'tool' is not a UIMessage role (system, user or assistant)",
        ),
        (
            {"messages": [{"id": "u", "role": "user", "parts": [{"type": "tool-f", "toolCallId": "c"}]}]},
            "messages[0].parts[0].type 'tool-f' is not a part of a user message this gateway forwards",
        ),
        (
            {
                "messages": [
                    {"id": "u", "role": "user", "parts": [{"type": "file", "url": "https://x/a.png"}]}
                ]
            },
            "messages[0].parts[0].mediaType is required",
        ),
        (
            {
                "messages": [
                    {
                        "id": "a",
                        "role": "assistant",
                        "parts": [{"type": "tool-f", "state": "input-available"}],
                    }
                ]
            },
            "messages[0].parts[0].toolCallId is required",
        ),
        (
            {"messages": [{"id": "u", "role": "user", "parts": "hi"}]},
            "messages[0].parts must be a JSON array, not str",
        ),
    ],
    ids=["no-messages", "role", "user-tool", "file", "tool-call-id", "parts"],
)
def test_bad_requests_are_answered_400_saying_what_and_where(demo: str, body: Any, message: str) -> None:
    response = httpx.post(f"{demo}{PATH}", json=body, timeout=10)
    assert response.status_code == 400, response.text
    assert response.json()["error"] == {"code": "invalid_request", "message": message}


def test_ui_messages_become_the_agents_messages() -> None:
    request = agent_request_from_ui_messages(
        posted(
            [
                {"id": "s", "role": "system", "parts": [{"type": "text", "text": "Be brief."}]},
                {
                    "id": "u",
                    "role": "user",
                    "parts": [
                        {"type": "text", "text": "What are these?"},
                        {"type": "file", "mediaType": "image/png", "url": "https://example.org/a.png"},
                        {
                            "type": "file",
                            "mediaType": "application/pdf",
                            "url": "data:application/pdf;base64,JVBE",
                            "filename": "b.pdf",
                        },
                        {"type": "data-weather", "data": {"city": "Paris"}},
                    ],
                },
                {
                    "id": "a",
                    "role": "assistant",
                    "parts": [
                        {"type": "step-start"},
                        {"type": "reasoning", "text": "Two files.", "state": "done"},
                        {
                            "type": "tool-look",
                            "toolCallId": "c1",
                            "state": "output-error",
                            "input": {},
                            "errorText": "no",
                        },
                        {
                            "type": "dynamic-tool",
                            "toolName": "mcp_look",
                            "toolCallId": "c2",
                            "state": "output-denied",
                            "input": {"q": "é"},
                        },
                        {"type": "tool-look", "toolCallId": "c3", "state": "input-streaming", "input": {}},
                        {"type": "source-url", "sourceId": "s1", "url": "https://example.org"},
                        {"type": "text", "text": "An image and a PDF.", "state": "done"},
                    ],
                },
            ]
        )
    )

    def call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
        data = {"call_id": call_id, "name": name, "arguments": arguments}
        return {"role": "assistant", "type": "function_call", "content": [{"type": "data", "data": data}]}

    def output(call_id: str, text: str) -> dict[str, Any]:
        data = {"call_id": call_id, "output": text}
        return {"role": "tool", "type": "function_call_output", "content": [{"type": "data", "data": data}]}

    assert request["input"] == [
        {"role": "system", "type": "message", "content": [{"type": "text", "text": "Be brief."}]},
        {
            "role": "user",
            "type": "message",
            "content": [
                {"type": "text", "text": "What are these?"},
                {"type": "image", "image_url": "https://example.org/a.png"},
                {"type": "file", "file_data": "data:application/pdf;base64,JVBE", "filename": "b.pdf"},
            ],
        },
        {"role": "assistant", "type": "reasoning", "content": [{"type": "text", "text": "Two files."}]},
        call("c1", "look", "{}"),
        output("c1", '{"error": "no"}'),
        call("c2", "mcp_look", '{"q": "é"}'),
        output("c2", '{"error": "the user denied this call"}'),
        {
            "role": "assistant",
            "type": "message",
            "content": [{"type": "text", "text": "An image and a PDF."}],
        },
    ]
    assert request["session_id"] != agent_request_from_ui_messages(posted([user("x")]))["session_id"]
