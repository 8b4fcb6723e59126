"""The gateway's Bedrock endpoints (``POST /model/{modelId}/converse-stream``
and ``/converse``) on uvicorn, called by botocore's ``bedrock-runtime``
client and httpx, in front of the demo agent and of an Agent API server
answering with a recorded run: the events and the response botocore parses;
the tool uses a client would run again left out and those left to it
written. What every endpoint does alike is test_gateway's."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from agent_servers import RecordedAgent, tool_call_run
from agentcodec.bedrock.gateway import agent_request_from_converse
from agentcodec.gateway import DemoAgent, Gateway
from gateway_clients import ANSWER, QUESTION, gateway_before
from servers import serve

ASKED = [{"role": "user", "content": [{"text": QUESTION}]}]


@pytest.fixture(scope="module")
def demo() -> Iterator[str]:
    with serve(Gateway(DemoAgent(delay=0))) as url:
        yield url


def client_at(url: str) -> Any:
    botocore_session = pytest.importorskip("botocore.session")
    return botocore_session.get_session().create_client(
        "bedrock-runtime",
        region_name="us-east-1",
        endpoint_url=url,
        aws_access_key_id="-",
        aws_secret_access_key="-",
    )


def streamed_text(events: list[dict[str, Any]], kind: str) -> str:
    return "".join(
        event["contentBlockDelta"]["delta"].get(kind, "")
        if kind == "text"
        else event["contentBlockDelta"]["delta"].get("reasoningContent", {}).get("text", "")
        for event in events
        if "contentBlockDelta" in event
    )


def test_botocore_converses_streamed_and_whole(demo: str) -> None:
    """The demo agent reasons, runs its word_count tool and answers:
    botocore reads the reasoning and the answer, and no tool use, which its
    caller's loop would run again."""
    client = client_at(demo)
    events = list(client.converse_stream(modelId="demo", messages=ASKED)["stream"])
    assert streamed_text(events, "text") == ANSWER
    assert streamed_text(events, "reasoning").startswith("The user wants their words counted")
    assert events[-2] == {"messageStop": {"stopReason": "end_turn"}}
    assert not [event for event in events if "toolUse" in json.dumps(event)]
    whole = client.converse(modelId="demo", messages=ASKED)
    assert whole["stopReason"] == "end_turn"
    assert whole["output"]["message"]["content"][-1] == {"text": ANSWER}
    assert [list(block) for block in whole["output"]["message"]["content"]] == [
        ["reasoningContent"],
        ["text"],
    ]


def test_a_call_left_to_the_client_is_written_and_its_result_goes_back() -> None:
    agent = RecordedAgent(tool_call_run())
    with gateway_before(agent) as url:
        client = client_at(url)
        answer = client.converse(modelId="m", messages=ASKED)
        assert answer["stopReason"] == "tool_use"
        message = answer["output"]["message"]
        use = message["content"][1]["toolUse"]
        assert (use["toolUseId"], use["name"], use["input"]) == ("call_1", "weather", {"city": "Paris"})
        result = {"toolResult": {"toolUseId": "call_1", "content": [{"json": {"temperature": 18}}]}}
        client.converse(modelId="m", messages=[*ASKED, message, {"role": "user", "content": [result]}])
    assert [(message["role"], message["type"]) for message in agent.requests[1]["input"]] == [
        ("user", "message"),
        ("assistant", "message"),
        ("assistant", "function_call"),
        ("tool", "function_call_output"),
    ]
    assert agent.requests[1]["input"][3]["content"] == [
        {"type": "data", "data": {"call_id": "call_1", "output": '{"temperature": 18}'}}
    ]
    assert agent.requests[1]["model"] == "m"
    assert agent.requests[0]["session_id"] != agent.requests[1]["session_id"]


def test_a_call_the_agent_answered_is_left_out() -> None:
    agent = RecordedAgent(tool_call_run(answered=True))
    with gateway_before(agent) as url:
        client = client_at(url)
        events = list(client.converse_stream(modelId="m", messages=ASKED)["stream"])
    assert "toolUse" not in json.dumps(events)
    assert streamed_text(events, "text") == "Let me look.It is 18 C."


def test_a_run_that_fails_is_the_clients_error() -> None:
    """Streamed, the exception event botocore raises; not streamed, a 502
    with the run's error."""
    exceptions = pytest.importorskip("botocore.exceptions")
    with gateway_before(RecordedAgent.from_fixture("agent_fails")) as url:
        client = client_at(url)
        with pytest.raises(exceptions.EventStreamError) as streamed:
            list(client.converse_stream(modelId="m", messages=ASKED)["stream"])
        response = httpx.post(f"{url}/model/m/converse", json={"messages": ASKED}, timeout=10)
    assert streamed.value.response["Error"]["Code"] == "internalServerException"
    assert response.status_code == 502
    assert response.json()["error"]["message"] == streamed.value.response["Error"]["Message"]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"messages": []}, "messages is required: at least one message"),
        (
            {"messages": [{"role": "system", "content": []}]},
            "messages[0].role 'system' is not a Converse role (user or assistant)",
        ),
        (
            {"messages": [{"role": "user", "content": [{"video": {}}]}]},
            "messages[0].content[0] is no content block of a user message this gateway forwards",
        ),
        (
            {"messages": [{"role": "user", "content": [{"image": {"format": "png", "source": {}}}]}]},
            "messages[0].content[0].image.source holds no bytes or s3Location this gateway forwards",
        ),
        (
            {"messages": [{"role": "user", "content": [{"toolResult": {"content": []}}]}]},
            "messages[0].content[0].toolResult.toolUseId is required",
        ),
        ({"messages": ASKED, "inferenceConfig": []}, "inferenceConfig must be a JSON object, not list"),
    ],
    ids=["no-messages", "role", "block", "image", "tool-use-id", "config"],
)
def test_bad_requests_are_answered_400_saying_what_and_where(demo: str, body: Any, message: str) -> None:
    for path in ("/model/m/converse-stream", "/model/m/converse"):
        response = httpx.post(f"{demo}{path}", json=body, timeout=10)
        assert response.status_code == 400, response.text
        assert response.json()["error"] == {"code": "invalid_request", "message": message}


def test_converse_messages_become_the_agents_messages() -> None:
    request = agent_request_from_converse(
        {
            "system": [{"text": "Be brief."}],
            "inferenceConfig": {"maxTokens": 50, "temperature": 0.5},
            "toolConfig": {
                "tools": [{"toolSpec": {"name": "f", "description": "d", "inputSchema": {"json": {}}}}]
            },
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {"text": "What is this?"},
                        {"image": {"format": "png", "source": {"bytes": "iVBO"}}},
                        {
                            "document": {
                                "format": "pdf",
                                "name": "a",
                                "source": {"s3Location": {"uri": "s3://b/a.pdf"}},
                            }
                        },
                    ],
                },
                {
                    "role": "assistant",
                    "content": [
                        {"reasoningContent": {"reasoningText": {"text": "Look.", "signature": "c2ln"}}},
                        {"reasoningContent": {"redactedContent": "AAAA"}},
                        {"toolUse": {"toolUseId": "c1", "name": "f", "input": {"n": "é"}}},
                    ],
                },
                {
                    "role": "user",
                    "content": [
                        {"toolResult": {"toolUseId": "c1", "content": [{"text": "no"}], "status": "error"}},
                        {"text": "And now?"},
                    ],
                },
            ],
        },
        model="m",
    )
    assert request["input"] == [
        {"role": "system", "type": "message", "content": [{"type": "text", "text": "Be brief."}]},
        {
            "role": "user",
            "type": "message",
            "content": [
                {"type": "text", "text": "What is this?"},
                {"type": "image", "image_url": "data:image/png;base64,iVBO"},
                {"type": "file", "file_url": "s3://b/a.pdf"},
            ],
        },
        {"role": "assistant", "type": "reasoning", "content": [{"type": "text", "text": "Look."}]},
        {
            "role": "assistant",
            "type": "function_call",
            "content": [{"type": "data", "data": {"call_id": "c1", "name": "f", "arguments": '{"n": "é"}'}}],
        },
        {
            "role": "tool",
            "type": "function_call_output",
            "content": [{"type": "data", "data": {"call_id": "c1", "output": '{"error": "no"}'}}],
        },
        {"role": "user", "type": "message", "content": [{"type": "text", "text": "And now?"}]},
    ]
    assert (request["model"], request["temperature"], request["max_tokens"]) == ("m", 0.5, 50)
    assert request["tools"][0]["function"] == {"name": "f", "description": "d", "parameters": {}}
