"""The gateway's Anthropic Messages endpoint (``POST /v1/messages``) on
uvicorn, called by the anthropic SDK and httpx, in front of the demo agent
and of an Agent API server answering with a recorded run: what the SDK's
stream accumulates, streamed and not; the tool calls a Messages client would
run again left out and those left to it written. What every endpoint does
alike is test_gateway's."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from agent_servers import RecordedAgent, tool_call_run
from agentcodec.anthropic.gateway import agent_request_from_messages
from agentcodec.gateway import DemoAgent, Gateway
from gateway_clients import ANSWER, QUESTION, gateway_before, preflight_allows
from servers import serve

PATH = "/v1/messages"
ASKED = [{"role": "user", "content": QUESTION}]


@pytest.fixture(scope="module")
def demo() -> Iterator[str]:
    with serve(Gateway(DemoAgent(delay=0))) as url:
        yield url


def sdk_at(url: str) -> Any:
    anthropic = pytest.importorskip("anthropic")
    return anthropic.Anthropic(base_url=url, api_key="-", max_retries=0)


def test_the_sdk_lists_the_agent_as_its_model(demo: str) -> None:
    """What clients read before they chat, as the API's own models validate
    it: one model, the agent, which any name retrieves and any name chats
    with. The path is OpenAI's model list too: a request without the API's
    version header gets that."""
    anthropic = pytest.importorskip("anthropic")
    sdk = sdk_at(demo)
    page = sdk.models.list()
    [model] = page.data
    assert (model.id, model.type, model.display_name, model.lifecycle) == (
        "agent",
        "model",
        "agent",
        "active",
    )
    assert not page.has_more
    assert sdk.models.retrieve("agent") == model
    assert sdk.models.retrieve("claude-any/name").id == "claude-any/name"
    assert sdk.models.list(after_id="agent").data == []
    headers = {"anthropic-version": "2023-06-01"}
    listed = httpx.get(f"{demo}/v1/models", headers=headers).json()
    assert listed == {"data": [listed["data"][0]], "has_more": False, "first_id": "agent", "last_id": "agent"}
    anthropic.types.ModelInfo.model_validate_json(json.dumps(listed["data"][0]), strict=True)
    assert httpx.get(f"{demo}/v1/models").json()["object"] == "list"
    chatted = sdk.messages.create(model=model.id, max_tokens=1024, messages=ASKED)
    assert chatted.content[-1].text == ANSWER


def test_a_refused_model_list_is_the_apis_error() -> None:
    """Behind a key, the list is refused as the API refuses: the SDK's
    ``AuthenticationError`` with the API's error type."""
    anthropic = pytest.importorskip("anthropic")
    with serve(Gateway(DemoAgent(delay=0), api_keys=["sesame"])) as url:
        allowed = anthropic.Anthropic(base_url=url, api_key="sesame", max_retries=0)
        assert [model.id for model in allowed.models.list()] == ["agent"]
        with pytest.raises(anthropic.AuthenticationError) as refused:
            sdk_at(url).models.list()
    assert refused.value.body == {
        "type": "error",
        "error": {"type": "authentication_error", "message": refused.value.body["error"]["message"]},
    }


def test_a_browser_pages_sdk_passes_the_cors_preflight() -> None:
    """The headers the SDK sends with every request (the API's version,
    its platform's, and what a browser's client adds) are let in for an
    allowed origin."""
    anthropic = pytest.importorskip("anthropic")
    sent = {
        *anthropic.Anthropic(api_key="k").default_headers,
        "x-stainless-retry-count",
        "x-stainless-timeout",
        "anthropic-dangerous-direct-browser-access",
    }
    assert "anthropic-version" in sent
    preflight_allows(PATH, sent)


def test_messages_endpoint_serves_the_anthropic_sdk(demo: str) -> None:
    """The demo agent reasons, runs its word_count tool and answers: the
    SDK reads the thinking and the answer, and no tool_use, which its
    caller's loop would run again."""
    sdk = sdk_at(demo)
    with sdk.messages.stream(model="demo", max_tokens=1024, messages=ASKED) as stream:
        streamed = stream.get_final_message()
    created = sdk.messages.create(model="demo", max_tokens=1024, messages=ASKED)
    for message in (streamed, created):
        assert message.model == "demo"
        assert message.stop_reason == "end_turn"
        assert [block.type for block in message.content] == ["thinking", "text"]
        assert message.content[0].thinking.startswith("The user wants their words counted")
        assert message.content[1].text == ANSWER


def test_a_call_left_to_the_client_is_written_and_its_result_goes_back() -> None:
    """A tool call the run leaves unanswered is the client's to run: a
    ``tool_use`` block and ``stop_reason: "tool_use"``; the client's next
    request, with the call and its result, reaches the agent as an
    AgentApp's messages."""
    agent = RecordedAgent(tool_call_run())
    with gateway_before(agent) as url:
        sdk = sdk_at(url)
        with sdk.messages.stream(model="m", max_tokens=1024, messages=ASKED) as stream:
            message = stream.get_final_message()
        assert message.stop_reason == "tool_use"
        assert [block.type for block in message.content] == ["text", "tool_use"]
        call = message.content[1]
        assert (call.id, call.name, call.input) == ("call_1", "weather", {"city": "Paris"})
        history = [
            *ASKED,
            {
                "role": "assistant",
                "content": [block.model_dump(exclude_none=True) for block in message.content],
            },
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "call_1", "content": "18 C"}],
            },
        ]
        sdk.messages.create(model="m", max_tokens=1024, messages=history)
    assert [(message["role"], message["type"]) for message in agent.requests[1]["input"]] == [
        ("user", "message"),
        ("assistant", "message"),
        ("assistant", "function_call"),
        ("tool", "function_call_output"),
    ]
    assert agent.requests[1]["input"][2]["content"] == [
        {"type": "data", "data": {"call_id": "call_1", "name": "weather", "arguments": '{"city": "Paris"}'}}
    ]
    assert agent.requests[1]["input"][3]["content"] == [
        {"type": "data", "data": {"call_id": "call_1", "output": "18 C"}}
    ]
    # Each request is a session of its own: it carries its whole history.
    assert agent.requests[0]["session_id"] != agent.requests[1]["session_id"]


def test_a_call_the_agent_answered_is_left_out() -> None:
    agent = RecordedAgent(tool_call_run(answered=True))
    with gateway_before(agent) as url:
        message = sdk_at(url).messages.create(model="m", max_tokens=1024, messages=ASKED)
    assert message.stop_reason == "end_turn"
    assert [(block.type, block.text) for block in message.content] == [
        ("text", "Let me look."),
        ("text", "It is 18 C."),
    ]


def test_a_run_that_fails_is_the_apis_error() -> None:
    """Streamed, the error event the SDK raises; not streamed, a 502 with the
    run's error, for a message has no failed state."""
    anthropic = pytest.importorskip("anthropic")
    with gateway_before(RecordedAgent.from_fixture("agent_fails")) as url:
        with pytest.raises(anthropic.APIError) as streamed:
            list(sdk_at(url).messages.create(model="m", max_tokens=1024, messages=ASKED, stream=True))
        response = httpx.post(f"{url}{PATH}", json={"model": "m", "messages": ASKED}, timeout=10)
    assert response.status_code == 502
    assert response.json() == {
        "type": "error",
        "error": {"type": "api_error", "message": streamed.value.body["error"]["message"]},
    }
    assert response.json()["error"]["message"]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"messages": []}, "messages is required: at least one message"),
        ({"messages": ASKED, "stream": "yes"}, "stream must be a boolean, not str"),
        (
            {"messages": [{"role": "system", "content": "x"}]},
            "messages[0].role 'system' is not a Messages role (user or assistant)",
        ),
        (
            {"messages": [{"role": "user", "content": [{"type": "video"}]}]},
            "messages[0].content[0].type 'video' is not a user content block this gateway forwards",
        ),
        (
            {
                "messages": [
                    {
                        "role": "assistant",
                        "content": [{"type": "tool_use", "id": "c", "name": "f", "input": "x"}],
                    }
                ]
            },
            "messages[0].content[0].input must be a JSON object, not str",
        ),
        (
            {"messages": [{"role": "user", "content": [{"type": "tool_result", "content": "x"}]}]},
            "messages[0].content[0].tool_use_id is required",
        ),
        (
            {"messages": ASKED, "tools": [{"type": "web_search_20250305", "name": "web_search"}]},
            "tools[0].type 'web_search_20250305' is not a client tool this gateway forwards",
        ),
        ({"messages": ASKED, "system": [{"type": "image"}]}, "system[0].type 'image' is not a text block"),
    ],
    ids=[
        "no-messages",
        "stream",
        "system-role",
        "block",
        "tool-input",
        "tool-use-id",
        "server-tool",
        "system",
    ],
)
def test_bad_requests_are_answered_400_saying_what_and_where(demo: str, body: Any, message: str) -> None:
    response = httpx.post(f"{demo}{PATH}", json=body, timeout=10)
    assert response.status_code == 400, response.text
    # The API's words for an error, which its SDK gives as the error's body.
    assert response.json() == {
        "type": "error",
        "error": {"type": "invalid_request_error", "message": message},
    }
    anthropic = pytest.importorskip("anthropic")
    with pytest.raises(anthropic.BadRequestError) as raised:
        sdk_at(demo).messages.create(**{"model": "m", "max_tokens": 1024, **body})
    assert raised.value.body == response.json()


def test_messages_become_the_agents_messages() -> None:
    request = agent_request_from_messages(
        {
            "model": "m",
            "max_tokens": 50,
            "temperature": 0.5,
            "metadata": {"user_id": "u1"},
            "system": [{"type": "text", "text": "Be brief."}],
            "tools": [{"name": "f", "description": "d", "input_schema": {"type": "object"}}],
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": "What is this?"},
                        {"type": "image", "source": {"type": "url", "url": "https://example.org/a.png"}},
                        {
                            "type": "image",
                            "source": {"type": "base64", "media_type": "image/png", "data": "iVBO"},
                        },
                    ],
                },
                {
                    "role": "assistant",
                    "content": [
                        {"type": "thinking", "thinking": "An image.", "signature": "sig"},
                        {"type": "redacted_thinking", "data": "..."},
                        {"type": "tool_use", "id": "c1", "name": "f", "input": {"q": "é"}},
                    ],
                },
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": "c1",
                            "content": [{"type": "text", "text": "a cat"}],
                        },
                        {"type": "text", "text": "And now?"},
                    ],
                },
                {"role": "assistant", "content": "Un chat."},
            ],
        }
    )
    assert request["input"] == [
        {"role": "system", "type": "message", "content": [{"type": "text", "text": "Be brief."}]},
        {
            "role": "user",
            "type": "message",
            "content": [
                {"type": "text", "text": "What is this?"},
                {"type": "image", "image_url": "https://example.org/a.png"},
                {"type": "image", "image_url": "data:image/png;base64,iVBO"},
            ],
        },
        {"role": "assistant", "type": "reasoning", "content": [{"type": "text", "text": "An image."}]},
        {
            "role": "assistant",
            "type": "function_call",
            "content": [{"type": "data", "data": {"call_id": "c1", "name": "f", "arguments": '{"q": "é"}'}}],
        },
        {
            "role": "tool",
            "type": "function_call_output",
            "content": [{"type": "data", "data": {"call_id": "c1", "output": "a cat"}}],
        },
        {"role": "user", "type": "message", "content": [{"type": "text", "text": "And now?"}]},
        {"role": "assistant", "type": "message", "content": [{"type": "text", "text": "Un chat."}]},
    ]
    assert (request["model"], request["max_tokens"], request["temperature"], request["user_id"]) == (
        "m",
        50,
        0.5,
        "u1",
    )
    assert request["tools"][0]["function"] == {
        "name": "f",
        "description": "d",
        "parameters": {"type": "object"},
    }
    assert request["session_id"] != agent_request_from_messages({"messages": ASKED})["session_id"]
    # A tool's error is its output, said as one.
    errored = agent_request_from_messages(
        {
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {"type": "tool_result", "tool_use_id": "c", "is_error": True, "content": "no"}
                    ],
                }
            ]
        }
    )
    assert errored["input"][0]["content"][0]["data"]["output"] == '{"error": "no"}'
