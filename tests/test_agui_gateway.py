"""The gateway's AG-UI endpoint (``POST /ag-ui``) on uvicorn, called by
httpx, in front of the demo agent and of an Agent API server answering with
what agentscope-runtime's AgentApp wrote: every event one ag-ui-protocol's
models take and its verifier passes, the messages its client holds, and
what the AgentApp's own ``/ag-ui`` gave for the same turn, without its
losses. What every endpoint does alike is test_gateway's."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from agent_servers import FIXTURES, RecordedAgent
from agentcodec import agui
from agentcodec.agui.gateway import agent_request_from_agui
from agentcodec.gateway import DemoAgent, Gateway
from agui_reference import apply_events, verify_events
from gateway_clients import QUESTION, event_numbers, gateway_before
from servers import serve
from sse_helpers import data_events

pytest.importorskip("ag_ui.core")

AGUI_BODY = {
    "threadId": "thread_1",
    "runId": "run_1",
    "messages": [{"id": "u1", "role": "user", "content": QUESTION}],
}
REFERENCE = json.loads((FIXTURES / "agent_turn.json").read_text(encoding="utf-8"))
REFERENCE_FAILS = json.loads((FIXTURES / "agent_fails.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def demo() -> Iterator[str]:
    with serve(Gateway(DemoAgent(delay=0))) as url:
        yield url


def agui_events(stream: bytes) -> list[dict[str, Any]]:
    from ag_ui.core import Event
    from pydantic import TypeAdapter

    adapter: TypeAdapter[Any] = TypeAdapter(Event)
    events = data_events(stream)
    for event in events:
        # Every event is one ag-ui-protocol's models take, as they would write it.
        assert json.loads(adapter.validate_python(event).model_dump_json(by_alias=True)) == event
    verify_events(events)
    return events


def test_agui_endpoint_streams_what_the_agui_client_reads(demo: str) -> None:
    response = httpx.post(f"{demo}/ag-ui", json=AGUI_BODY)
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/event-stream; charset=utf-8"
    events = agui_events(response.content)
    assert (events[0]["type"], events[0]["threadId"], events[0]["runId"]) == (
        "RUN_STARTED",
        "thread_1",
        "run_1",
    )
    assert events[-1]["type"] == "RUN_FINISHED"
    messages = apply_events(events)["messages"]
    assert [message["role"] for message in messages] == ["reasoning", "assistant", "tool", "assistant"]
    call = messages[1]["toolCalls"][0]
    assert call["function"]["name"] == "word_count"
    assert json.loads(call["function"]["arguments"]) == {"text": QUESTION}
    assert json.loads(messages[2]["content"]) == {"words": 7}
    assert messages[3]["content"] == f'You wrote "{QUESTION}": that is 7 words.'
    # The AG-UI assembler gives the client's messages.
    assembler = agui.Assembler()
    assembler.feed(response.content)
    assert assembler.close()["messages"] == messages


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"runId": "r"}, "threadId is required"),
        (
            {**AGUI_BODY, "messages": [{"id": "1", "role": "user", "content": [{"type": "sticker"}]}]},
            "messages[0].content[0].type 'sticker' is not an AG-UI content part",
        ),
    ],
)
def test_bad_requests_are_answered_400_saying_what_and_where(demo: str, body: Any, message: str) -> None:
    response = httpx.post(f"{demo}/ag-ui", json=body)
    assert response.status_code == 400
    assert response.json() == {"error": {"code": "invalid_request", "message": message}}


def test_a_body_nested_past_what_the_gateway_takes_is_a_400() -> None:
    content = b'{"threadId": "t", "runId": "r", "messages": ' + b"[" * 100 + b"]" * 100 + b"}"
    with gateway_before(RecordedAgent.from_fixture("agent_turn")) as url:
        response = httpx.post(f"{url}/ag-ui", content=content, headers={"content-type": "application/json"})
    assert response.status_code == 400, response.text
    assert response.json()


def test_a_dropped_client_resumes_with_last_event_id() -> None:
    with serve(Gateway(DemoAgent(delay=0.002))) as url, httpx.Client(timeout=30) as http:
        first: list[bytes] = []
        with http.stream("POST", f"{url}/ag-ui", json=AGUI_BODY) as response:
            for chunk in response.iter_raw():
                first.append(chunk)
                if b"TOOL_CALL_ARGS" in b"".join(first):
                    break  # the client goes away mid-stream
        head = b"".join(first)
        last_id = [line for line in head.split(b"\n") if line.startswith(b"id: ")][-1][4:].decode()
        rest = http.post(f"{url}/ag-ui", json=AGUI_BODY, headers={"Last-Event-ID": last_id}).content
    # Only whole events count from the first connection; the rest follows them.
    whole = head[: head.rfind(b"\n\n") + 2]
    numbers = event_numbers(whole) + event_numbers(rest)
    assert numbers == list(range(1, len(numbers) + 1))
    messages = apply_events(agui_events(whole + rest))["messages"]
    assert messages[-1]["content"] == f'You wrote "{QUESTION}": that is 7 words.'


def test_agui_gives_what_the_agentapp_gives_without_its_losses() -> None:
    agent = RecordedAgent.from_fixture("agent_turn")
    with gateway_before(agent) as url:
        ours = agui_events(httpx.post(f"{url}/ag-ui", json=AGUI_BODY).content)
    theirs = REFERENCE["agui"]["validated_events"]
    ours_state, theirs_state = apply_events(ours), apply_events(theirs)
    # The same answer, tool call and result as the AgentApp's (its message ids
    # are its own run's)...
    for state in (ours_state, theirs_state):
        for message in state["messages"]:
            message.pop("id")
    assert ours_state["messages"][-1] == theirs_state["messages"][-1]
    assert [m for m in ours_state["messages"] if m["role"] == "tool"] == [
        m for m in theirs_state["messages"] if m["role"] == "tool"
    ]
    call = next(m for m in ours_state["messages"] if m.get("toolCalls"))
    assert call["toolCalls"] == next(m for m in theirs_state["messages"] if m.get("toolCalls"))["toolCalls"]
    # ...but reasoning stays reasoning (the AgentApp sends it as text), and the
    # arguments stream as they came (the AgentApp sends them once, whole).
    assert [m["role"] for m in ours_state["messages"]] == ["reasoning", "assistant", "tool", "assistant"]
    assert [m["role"] for m in theirs_state["messages"]] == ["assistant", "assistant", "tool", "assistant"]
    assert len([e for e in ours if e["type"] == "TOOL_CALL_ARGS"]) > 1
    # The upstream got the AgentRequest the AgentApp builds from the same input.
    request = agent.requests[0]
    assert (request["id"], request["session_id"], request["user_id"]) == (
        "run_1",
        "thread_1",
        "default_user_id",
    )
    assert request["input"] == [
        {"role": "user", "type": "message", "content": [{"type": "text", "text": QUESTION}], "id": "u1"}
    ]


def test_a_failing_agent_fails_the_run_as_the_agentapp_does() -> None:
    with gateway_before(RecordedAgent.from_fixture("agent_fails")) as url:
        events = agui_events(httpx.post(f"{url}/ag-ui", json=AGUI_BODY).content)
    assert events[-1]["type"] == "RUN_ERROR"
    assert events[-1]["code"] == REFERENCE_FAILS["agui"]["validated_events"][-1]["code"]


@pytest.mark.parametrize("cut_after", [None, 3000])
def test_an_upstream_that_ends_before_its_run_is_an_upstream_error(cut_after: int | None) -> None:
    """Cut midway, or ended cleanly after nothing of a run: the run's
    ``RUN_ERROR`` says whose the failure is."""
    agent = (
        RecordedAgent(b"")
        if cut_after is None
        else RecordedAgent.from_fixture("agent_turn", cut_after=cut_after)
    )
    with gateway_before(agent) as url:
        events = agui_events(httpx.post(f"{url}/ag-ui", json=AGUI_BODY).content)
    assert events[-1]["type"] == "RUN_ERROR"
    assert events[-1]["code"] == "upstream_error"


def test_an_upstream_writing_what_is_no_agent_event_fails_the_run_keeping_what_came_before() -> None:
    good = (FIXTURES / "agent_turn.process.sse").read_bytes()
    events_before = good.split(b"\n\n")[:60]  # the tool's result and some of the answer
    cut = sum(len(event) + 2 for event in events_before)
    agent = RecordedAgent(good[:cut] + b"data: {not json\n\n" + good[cut:])
    with gateway_before(agent) as url:
        events = agui_events(httpx.post(f"{url}/ag-ui", json=AGUI_BODY).content)
    assert events[-1]["type"] == "RUN_ERROR"
    assert events[-1]["message"] == "the agent's stream ended before its run did"
    # What was converted before the bad event is all there: reasoning, the tool call and result.
    kinds = {event["type"] for event in events}
    assert {"REASONING_MESSAGE_END", "TOOL_CALL_END", "TOOL_CALL_RESULT", "TEXT_MESSAGE_CONTENT"} <= kinds


def test_agui_input_keeps_what_the_agentapp_drops() -> None:
    from ag_ui.core import RunAgentInput

    body = {
        "threadId": "t",
        "runId": "r",
        "state": {"step": 1},
        "tools": [
            {"name": "lookup", "description": "looks up", "parameters": {"type": "object", "properties": {}}}
        ],
        "context": [],
        "forwardedProps": {"user_id": "ann"},
        "messages": [
            {"id": "s", "role": "developer", "content": "Be brief."},
            {
                "id": "u",
                "role": "user",
                "content": [
                    {"type": "text", "text": "Look"},
                    {"type": "image", "source": {"type": "url", "value": "https://x/y.png"}},
                ],
            },
            {"id": "z", "role": "reasoning", "content": "I should look it up."},
            {
                "id": "a",
                "role": "assistant",
                "content": "Looking.",
                "toolCalls": [
                    {"id": "c1", "type": "function", "function": {"name": "lookup", "arguments": "{}"}}
                ],
            },
            {"id": "t1", "role": "tool", "toolCallId": "c1", "content": "", "error": "timeout"},
        ],
    }
    RunAgentInput.model_validate(body)  # the request is one the AG-UI SDK sends
    request, thread_id, run_id = agent_request_from_agui(body)
    assert (thread_id, run_id, request["user_id"], request["state"]) == ("t", "r", "ann", {"step": 1})
    assert request["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "lookup",
                "description": "looks up",
                "parameters": {"type": "object", "properties": {}},
            },
        }
    ]
    assert [(m["role"], m["type"]) for m in request["input"]] == [
        ("system", "message"),
        ("user", "message"),
        ("assistant", "reasoning"),
        ("assistant", "message"),  # the text of a message that calls tools: the AgentApp drops it
        ("assistant", "function_call"),
        ("tool", "function_call_output"),
    ]
    assert request["input"][1]["content"][1] == {"type": "image", "image_url": "https://x/y.png"}
    assert request["input"][4]["content"][0]["data"] == {"call_id": "c1", "name": "lookup", "arguments": "{}"}
    assert request["input"][5]["content"][0]["data"] == {"call_id": "c1", "output": "error: timeout"}
