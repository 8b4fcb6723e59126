"""The gateway's Chat Completions endpoint (``POST /v1/chat/completions`` and
``/compatible-mode/v1/chat/completions``) on uvicorn, called by the openai
SDK and httpx, in front of the demo agent and of an Agent API server
answering with a recorded run: what the SDK's stream helper accumulates,
streamed and not; the tool calls a Chat client would run again left out and
those left to it written; usage only where the request asks. What every
endpoint does alike is test_gateway's."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from agent_servers import RecordedAgent, tool_call_run
from agentcodec.gateway import DemoAgent, Gateway
from agentcodec.openai_chat.gateway import agent_request_from_chat
from gateway_clients import ANSWER, QUESTION, gateway_before, preflight_allows
from servers import serve

PATHS = ("/v1/chat/completions", "/compatible-mode/v1/chat/completions")
ASKED = [{"role": "user", "content": QUESTION}]


@pytest.fixture(scope="module")
def demo() -> Iterator[str]:
    with serve(Gateway(DemoAgent(delay=0))) as url:
        yield url


def sdk_at(url: str, path: str) -> Any:
    openai = pytest.importorskip("openai")
    return openai.OpenAI(
        base_url=f"{url}{path.removesuffix('/chat/completions')}", api_key="-", max_retries=0
    )


@pytest.mark.parametrize("path", PATHS)
def test_the_sdk_lists_the_agent_as_its_model(demo: str, path: str) -> None:
    """What clients read before they chat, as openai-python parses it: one
    model, the agent, which any name retrieves and any name chats with."""
    sdk = sdk_at(demo, path)
    [model] = sdk.models.list().data
    assert (model.id, model.object, model.owned_by) == ("agent", "model", "agentcodec")
    assert model.created > 0
    assert sdk.models.retrieve("agent") == model
    assert sdk.models.retrieve("ft:org/any-name").id == "ft:org/any-name"
    assert sdk.chat.completions.create(model=model.id, messages=ASKED).choices[0].message.content == ANSWER


@pytest.mark.parametrize("path", PATHS)
def test_chat_endpoint_serves_openai_python(demo: str, path: str) -> None:
    """The demo agent reasons, runs its word_count tool and answers: the
    SDK reads the reasoning and the answer, and no tool call, which its
    caller's loop would run again."""
    sdk = sdk_at(demo, path)
    with sdk.chat.completions.stream(model="demo", messages=ASKED) as stream:
        streamed = stream.get_final_completion()
    created = sdk.chat.completions.create(model="demo", messages=ASKED)
    for completion in (streamed, created):
        assert completion.model == "demo"
        [choice] = completion.choices
        assert choice.finish_reason == "stop"
        assert choice.message.content == ANSWER
        assert choice.message.tool_calls is None
        assert choice.message.model_extra["reasoning_content"].startswith(
            "The user wants their words counted"
        )
    assert created.object == "chat.completion"


def test_a_call_left_to_the_client_is_written_and_its_result_goes_back() -> None:
    """A tool call the run leaves unanswered is the client's to run: written
    with ``finish_reason: "tool_calls"``; the client's next request, with the
    call and its result, reaches the agent as an AgentApp's messages."""
    agent = RecordedAgent(tool_call_run())
    with gateway_before(agent) as url:
        sdk = sdk_at(url, PATHS[0])
        with sdk.chat.completions.stream(model="m", messages=ASKED) as stream:
            completion = stream.get_final_completion()
        [choice] = completion.choices
        assert choice.finish_reason == "tool_calls"
        assert choice.message.content == "Let me look."
        [call] = choice.message.tool_calls
        assert (call.id, call.function.name, json.loads(call.function.arguments)) == (
            "call_1",
            "weather",
            {"city": "Paris"},
        )
        history = [
            *ASKED,
            choice.message.model_dump(exclude_none=True),
            {"role": "tool", "tool_call_id": "call_1", "content": "18 C"},
        ]
        sdk.chat.completions.create(model="m", messages=history)
    assert [(message["role"], message["type"]) for message in agent.requests[1]["input"]] == [
        ("user", "message"),
        ("assistant", "message"),
        ("assistant", "function_call"),
        ("tool", "function_call_output"),
    ]
    assert agent.requests[1]["input"][3]["content"] == [
        {"type": "data", "data": {"call_id": "call_1", "output": "18 C"}}
    ]
    # Each request is a session of its own: it carries its whole history.
    assert agent.requests[0]["session_id"] != agent.requests[1]["session_id"]


def test_a_call_the_agent_answered_is_left_out_and_its_messages_set_apart() -> None:
    agent = RecordedAgent(tool_call_run(answered=True))
    with gateway_before(agent) as url:
        completion = sdk_at(url, PATHS[0]).chat.completions.create(model="m", messages=ASKED)
    [choice] = completion.choices
    assert choice.finish_reason == "stop"
    assert choice.message.tool_calls is None
    assert choice.message.content == "Let me look.\n\nIt is 18 C."


def test_usage_is_written_only_where_the_request_asks() -> None:
    """As the Chat API does: the usage chunk (no choices) only with
    ``stream_options.include_usage``, so a client that reads ``choices[0]``
    of every chunk reads them all; a completion not streamed has it."""
    agent = RecordedAgent(tool_call_run(usage={"input_tokens": 3, "output_tokens": 2}))
    usage = {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}
    with gateway_before(agent) as url:
        sdk = sdk_at(url, PATHS[0])
        plain = list(sdk.chat.completions.create(model="m", messages=ASKED, stream=True))
        assert plain
        assert all(chunk.choices and chunk.usage is None for chunk in plain)
        asked = list(
            sdk.chat.completions.create(
                model="m", messages=ASKED, stream=True, stream_options={"include_usage": True}
            )
        )
        assert asked[-1].choices == []
        assert asked[-1].usage.model_dump(exclude_none=True) == usage
        assert all(chunk.choices for chunk in asked[:-1])
        created = sdk.chat.completions.create(model="m", messages=ASKED)
        assert created.usage.model_dump(exclude_none=True) == usage


def test_a_browser_pages_sdk_passes_the_cors_preflight() -> None:
    """The headers the SDK sends with every request (its platform's, and
    those each attempt adds) are let in for an allowed origin."""
    openai = pytest.importorskip("openai")
    sent = {*openai.OpenAI(api_key="k").default_headers, "x-stainless-retry-count", "x-stainless-timeout"}
    assert "X-Stainless-OS" in sent
    preflight_allows(PATHS[0], sent)


def test_a_run_that_fails_is_the_apis_error() -> None:
    """Streamed, the error chunk the SDK raises; not streamed, a 502 with the
    run's error, for a completion has no failed state."""
    openai = pytest.importorskip("openai")
    with gateway_before(RecordedAgent.from_fixture("agent_fails")) as url:
        sdk = sdk_at(url, PATHS[0])
        with pytest.raises(openai.APIError) as streamed:
            list(sdk.chat.completions.create(model="m", messages=ASKED, stream=True))
        response = httpx.post(f"{url}{PATHS[0]}", json={"model": "m", "messages": ASKED}, timeout=10)
    assert response.status_code == 502
    error = response.json()["error"]
    assert (error["message"], error["type"]) == (streamed.value.message, streamed.value.type)
    assert streamed.value.message
    assert streamed.value.type == "server_error"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"messages": []}, "messages is required: at least one message"),
        ({"messages": ASKED, "n": 2}, "n must be 1: the agent gives one answer, not 2"),
        ({"messages": ASKED, "stream": "yes"}, "stream must be a boolean, not str"),
        (
            {"messages": ASKED, "stream": True, "stream_options": {"include_usage": 1}},
            "stream_options.include_usage must be a boolean, not int",
        ),
        (
            {"messages": [{"role": "function", "name": "f", "content": "x"}]},
            "messages[0].role 'function' is not a Chat message role this gateway forwards",
        ),
        (
            {"messages": [{"role": "user", "content": [{"type": "video", "video": {}}]}]},
            "messages[0].content[0].type 'video' is not a Chat content part",
        ),
        (
            {"messages": [{"role": "tool", "content": "x"}]},
            "messages[0].tool_call_id is required",
        ),
        (
            {"messages": ASKED, "tools": [{"type": "custom", "custom": {"name": "f"}}]},
            "tools[0].type 'custom' is not a function tool",
        ),
    ],
    ids=["no-messages", "n", "stream", "include-usage", "function-role", "part", "tool-call-id", "tool"],
)
def test_bad_requests_are_answered_400_saying_what_and_where(demo: str, body: Any, message: str) -> None:
    for path in PATHS:
        response = httpx.post(f"{demo}{path}", json=body, timeout=10)
        assert response.status_code == 400, response.text
        assert response.json()["error"] == {
            "message": message,
            "type": "invalid_request_error",
            "param": None,
            "code": "invalid_request",
        }


def test_errors_are_the_apis_as_openai_python_reads_them() -> None:
    """A refusal at any of the endpoint's routes is worded as OpenAI's APIs
    word one, so the SDK's error has the API's ``type`` and the gateway's
    ``code``: a bad request, a missing key (at the chat and the model list)."""
    openai = pytest.importorskip("openai")
    with serve(Gateway(DemoAgent(delay=0), api_keys=["sesame"])) as url:
        for path in PATHS:
            allowed = openai.OpenAI(base_url=sdk_at(url, path).base_url, api_key="sesame", max_retries=0)
            with pytest.raises(openai.BadRequestError) as bad:
                allowed.chat.completions.create(model="m", messages=ASKED, n=2)
            refused = sdk_at(url, path)
            with pytest.raises(openai.AuthenticationError) as chat_refused:
                refused.chat.completions.create(model="m", messages=ASKED)
            with pytest.raises(openai.AuthenticationError) as list_refused:
                refused.models.list()
            assert (bad.value.type, bad.value.code, bad.value.param) == (
                "invalid_request_error",
                "invalid_request",
                None,
            )
            assert bad.value.body["message"] == "n must be 1: the agent gives one answer, not 2"
            for refusal in (chat_refused.value, list_refused.value):
                assert (refusal.type, refusal.code) == ("invalid_request_error", "unauthorized")
                assert refusal.body["message"].startswith("an API key is needed")


def test_chat_messages_become_the_agents_messages() -> None:
    request = agent_request_from_chat(
        {
            "model": "m",
            "max_completion_tokens": 50,
            "temperature": 0.5,
            "user": "u1",
            "tools": [{"type": "function", "function": {"name": "f", "description": "d", "parameters": {}}}],
            "messages": [
                {"role": "developer", "content": "Answer in French."},
                {"role": "system", "content": [{"type": "text", "text": "Be brief."}]},
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": "What is this?"},
                        {"type": "image_url", "image_url": {"url": "https://example.org/a.png"}},
                    ],
                },
                {
                    "role": "assistant",
                    "reasoning_content": "An image.",
                    "content": None,
                    "tool_calls": [
                        {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
                    ],
                },
                {"role": "tool", "tool_call_id": "c1", "content": [{"type": "text", "text": "a cat"}]},
                {"role": "assistant", "content": "Un chat."},
            ],
        }
    )
    assert request["input"] == [
        {"role": "system", "type": "message", "content": [{"type": "text", "text": "Answer in French."}]},
        {"role": "system", "type": "message", "content": [{"type": "text", "text": "Be brief."}]},
        {
            "role": "user",
            "type": "message",
            "content": [
                {"type": "text", "text": "What is this?"},
                {"type": "image", "image_url": "https://example.org/a.png"},
            ],
        },
        {"role": "assistant", "type": "reasoning", "content": [{"type": "text", "text": "An image."}]},
        {
            "role": "assistant",
            "type": "function_call",
            "content": [{"type": "data", "data": {"call_id": "c1", "name": "f", "arguments": "{}"}}],
        },
        {
            "role": "tool",
            "type": "function_call_output",
            "content": [{"type": "data", "data": {"call_id": "c1", "output": "a cat"}}],
        },
        {"role": "assistant", "type": "message", "content": [{"type": "text", "text": "Un chat."}]},
    ]
    assert (request["model"], request["max_tokens"], request["temperature"], request["user_id"]) == (
        "m",
        50,
        0.5,
        "u1",
    )
    assert request["tools"][0]["function"]["name"] == "f"
    assert request["session_id"].startswith("chat_")
    assert request["session_id"] != agent_request_from_chat({"messages": ASKED})["session_id"]
