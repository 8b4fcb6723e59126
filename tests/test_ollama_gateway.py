"""The gateway's Ollama endpoints (``POST /api/chat`` and ``/api/generate``)
on uvicorn, called by the ollama Python client and httpx, in front of the
demo agent and of Agent API servers answering with a recorded or an endless
run: what the client reads, streamed and not; the tool calls it would run
again left out and those left to it written; a run whose client left
cancelled at once, for NDJSON has no event ids to resume after. What every
endpoint does alike is test_gateway's."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest

from agent_servers import RecordedAgent, ScriptedAgent, tool_call_run
from agentcodec import events
from agentcodec.gateway import DemoAgent, Gateway
from agentcodec.ollama.gateway import agent_request_from_chat, agent_request_from_generate
from gateway_clients import ANSWER, QUESTION, gateway_before
from servers import serve, wait_until

ASKED = [{"role": "user", "content": QUESTION}]


@pytest.fixture(scope="module")
def demo() -> Iterator[str]:
    with serve(Gateway(DemoAgent(delay=0))) as url:
        yield url


def client_at(url: str) -> Any:
    ollama = pytest.importorskip("ollama")
    return ollama.Client(host=url)


def test_the_ollama_client_chats_and_generates(demo: str) -> None:
    """The demo agent reasons, runs its word_count tool and answers: the
    client reads the thinking and the answer, streamed and not, and no tool
    call, which its caller's loop would run again."""
    client = client_at(demo)
    pieces = list(client.chat(model="demo", messages=ASKED, stream=True))
    assert [piece.done for piece in pieces] == [False] * (len(pieces) - 1) + [True]
    assert "".join(piece.message.content or "" for piece in pieces) == ANSWER
    assert pieces[-1].done_reason == "stop"
    whole = client.chat(model="demo", messages=ASKED)
    assert whole.model == "demo"
    assert whole.message.content == ANSWER
    assert whole.message.thinking.startswith("The user wants their words counted")
    assert whole.message.tool_calls is None
    generated = client.generate(model="demo", prompt=QUESTION, system="Count words.")
    assert generated.response == ANSWER
    assert (
        "".join(piece.response for piece in client.generate(model="demo", prompt=QUESTION, stream=True))
        == ANSWER
    )


def test_the_client_lists_the_agent_as_its_model_and_shows_it(demo: str) -> None:
    """What tools read before they chat (the models, a model's
    capabilities), as the client parses it: the agent, by any name."""
    client = client_at(demo)
    [model] = client.list().models
    assert model.model == "agent:latest"
    assert model.modified_at is not None
    assert model.details is not None
    assert len(model.digest or "") == 64
    for name in (model.model, "anything"):
        shown = client.show(name)
        assert shown.capabilities == ["completion", "tools", "vision"]
        assert shown.details == model.details
    assert httpx.post(f"{demo}/api/show", json={}).json() == {"error": "model is required"}
    assert httpx.post(f"{demo}/api/show", json=["agent"]).json() == {
        "error": "the request body must be a JSON object, not list"
    }
    # ... and the model listed is one the client chats with.
    assert client.chat(model=model.model, messages=ASKED).message.content == ANSWER
    # Listing is the gateway's to guard, as chatting is; a refusal is in Ollama's words.
    ollama = pytest.importorskip("ollama")
    with serve(Gateway(DemoAgent(delay=0), api_keys=["k"])) as url:
        assert httpx.get(f"{url}/api/tags").json()["error"].startswith("an API key is needed")
        assert httpx.get(f"{url}/api/tags", headers={"Authorization": "Bearer k"}).status_code == 200
        with pytest.raises(ollama.ResponseError) as refused:
            client_at(url).chat(model="m", messages=ASKED)
        assert refused.value.status_code == 401
        assert refused.value.error.startswith("an API key is needed")


def test_a_call_left_to_the_client_is_written_and_its_result_goes_back() -> None:
    """A tool call the run leaves unanswered is the client's to run; its
    next request, with the call and a tool message naming the tool, reaches
    the agent with the result paired to its call."""
    agent = RecordedAgent(tool_call_run())
    with gateway_before(agent) as url:
        client = client_at(url)
        answer = client.chat(model="m", messages=ASKED)
        assert answer.message.content == "Let me look."
        [call] = answer.message.tool_calls
        assert (call.function.name, dict(call.function.arguments)) == ("weather", {"city": "Paris"})
        history = [
            *ASKED,
            answer.message.model_dump(exclude_none=True),
            {"role": "tool", "tool_name": "weather", "content": "18 C"},
        ]
        client.chat(model="m", messages=history)
    assert [(message["role"], message["type"]) for message in agent.requests[1]["input"]] == [
        ("user", "message"),
        ("assistant", "message"),
        ("assistant", "function_call"),
        ("tool", "function_call_output"),
    ]
    [called] = agent.requests[1]["input"][2]["content"]
    assert agent.requests[1]["input"][3]["content"] == [
        {"type": "data", "data": {"call_id": called["data"]["call_id"], "output": "18 C"}}
    ]
    assert agent.requests[0]["session_id"] != agent.requests[1]["session_id"]


def test_a_call_the_agent_answered_is_left_out_and_its_messages_set_apart() -> None:
    agent = RecordedAgent(tool_call_run(answered=True))
    with gateway_before(agent) as url:
        answer = client_at(url).chat(model="m", messages=ASKED)
    assert answer.message.tool_calls is None
    assert answer.message.content == "Let me look.\n\nIt is 18 C."


def test_a_run_its_client_left_is_cancelled_at_once() -> None:
    """NDJSON has no event ids: nothing could resume the stream, so it is
    not recorded and the run is not kept for a client to come back to."""

    def endless() -> AsyncIterator[bytes]:
        async def body() -> AsyncIterator[bytes]:
            encoder = events.Encoder("agentscope")
            opened = [
                {"type": "run_started", "run_id": "r"},
                {"type": "message_started", "message_id": "m", "role": "assistant"},
                {"type": "block_started", "message_id": "m", "index": 0, "kind": "text"},
            ]
            yield b"".join(encoder.encode(event) for event in opened)
            while True:
                await asyncio.sleep(0.02)
                yield encoder.encode({"type": "block_delta", "message_id": "m", "index": 0, "delta": "la "})

        return body()

    agent = ScriptedAgent(endless)
    with serve(agent) as upstream, serve(Gateway(upstream)) as url:
        with httpx.stream(
            "POST", f"{url}/api/chat", json={"model": "m", "messages": ASKED}, timeout=10
        ) as response:
            assert response.headers["content-type"].startswith("application/x-ndjson")
            assert "id:" not in next(response.iter_lines())
        waited = wait_until(lambda: agent.cancelled == 1, 5, "the run went on upstream with nobody reading")
        assert waited < 3
        # A Last-Event-ID here resumes nothing: the request runs the agent.
        with httpx.stream(
            "POST",
            f"{url}/api/chat",
            json={"model": "m", "messages": ASKED},
            headers={"Last-Event-ID": "x:1"},
        ) as again:
            assert again.status_code == 200
            next(again.iter_lines())
        assert agent.runs == 2


def test_a_run_that_fails_is_the_clients_error() -> None:
    ollama = pytest.importorskip("ollama")
    with gateway_before(RecordedAgent.from_fixture("agent_fails")) as url:
        with pytest.raises(ollama.ResponseError) as streamed:
            list(client_at(url).chat(model="m", messages=ASKED, stream=True))
        response = httpx.post(f"{url}/api/chat", json={"model": "m", "messages": ASKED, "stream": False})
    assert response.status_code == 502
    # Ollama's words for an error, {"error": "..."}: the client's error is the text.
    assert response.json() == {"error": streamed.value.error}
    assert streamed.value.error == "Unknown agent error: RuntimeError: the weather service went away"


@pytest.mark.parametrize(
    ("path", "body", "message"),
    [
        ("/api/chat", {"messages": []}, "messages is required: at least one message"),
        ("/api/chat", {"messages": ASKED, "stream": "no"}, "stream must be a boolean, not str"),
        (
            "/api/chat",
            {"messages": [{"role": "function", "content": "x"}]},
            "messages[0].role 'function' is not an Ollama message role this gateway forwards",
        ),
        (
            "/api/chat",
            {"messages": [*ASKED, {"role": "tool", "content": "18 C"}]},
            "messages[1] answers no tool call of an assistant message before it",
        ),
        ("/api/chat", {"messages": ASKED, "options": [1]}, "options must be a JSON object, not list"),
        ("/api/generate", {"model": "m"}, "prompt is required"),
        (
            "/api/generate",
            {"prompt": "hi", "images": "abc"},
            "the request body.images must be a JSON array, not str",
        ),
    ],
    ids=["no-messages", "stream", "role", "unanswered-tool", "options", "no-prompt", "images"],
)
def test_bad_requests_are_answered_400_saying_what_and_where(
    demo: str, path: str, body: Any, message: str
) -> None:
    response = httpx.post(f"{demo}{path}", json=body, timeout=10)
    assert response.status_code == 400, response.text
    assert response.json() == {"error": message}
    ollama = pytest.importorskip("ollama")
    with pytest.raises(ollama.ResponseError) as raised:
        client_at(demo)._request_raw("POST", path, json=body)
    assert (raised.value.status_code, raised.value.error) == (400, message)


def test_ollama_messages_become_the_agents_messages() -> None:
    request = agent_request_from_chat(
        {
            "model": "m",
            "options": {"temperature": 0.5, "num_predict": 50},
            "tools": [{"type": "function", "function": {"name": "f", "description": "d", "parameters": {}}}],
            "messages": [
                {"role": "system", "content": "Be brief."},
                {"role": "user", "content": "What is this?", "images": ["iVBO"]},
                {
                    "role": "assistant",
                    "content": "",
                    "thinking": "Look twice.",
                    "tool_calls": [
                        {"function": {"name": "f", "arguments": {"n": 1}}},
                        {"id": "c2", "function": {"name": "g", "arguments": {}}},
                    ],
                },
                # Answered out of order: by the tool's name, then by the call's id.
                {"role": "tool", "tool_name": "g", "content": "from g"},
                {"role": "tool", "tool_call_id": "call_2_0", "content": "from f"},
            ],
        }
    )

    def output(call_id: str, text: str) -> dict[str, Any]:
        data = {"call_id": call_id, "output": text}
        return {"role": "tool", "type": "function_call_output", "content": [{"type": "data", "data": data}]}

    assert request["input"] == [
        {"role": "system", "type": "message", "content": [{"type": "text", "text": "Be brief."}]},
        {
            "role": "user",
            "type": "message",
            "content": [
                {"type": "text", "text": "What is this?"},
                {"type": "image", "image_url": "data:image/*;base64,iVBO"},
            ],
        },
        {"role": "assistant", "type": "reasoning", "content": [{"type": "text", "text": "Look twice."}]},
        {
            "role": "assistant",
            "type": "function_call",
            "content": [
                {"type": "data", "data": {"call_id": "call_2_0", "name": "f", "arguments": '{"n": 1}'}},
                {"type": "data", "data": {"call_id": "c2", "name": "g", "arguments": "{}"}},
            ],
        },
        output("c2", "from g"),
        output("call_2_0", "from f"),
    ]
    assert (request["model"], request["temperature"], request["max_tokens"]) == ("m", 0.5, 50)
    assert request["tools"][0]["function"]["name"] == "f"
    generated = agent_request_from_generate({"model": "m", "prompt": "Hi", "system": "Be brief."})
    assert [(message["role"], message["content"][0]["text"]) for message in generated["input"]] == [
        ("system", "Be brief."),
        ("user", "Hi"),
    ]
    assert generated["session_id"] != request["session_id"]
