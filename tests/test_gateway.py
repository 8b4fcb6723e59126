"""The gateway on uvicorn, called by real clients (httpx, aiohttp, the openai
SDK), in front of real upstreams on uvicorn: the demo agent, and an Agent API
server that answers with the streams agentscope-runtime's AgentApp wrote
(tests/fixtures/agentapp/). What its endpoints give is judged by each
protocol's own SDK, and compared with what the AgentApp's own endpoints gave
for the same agent turn."""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from agent_servers import FIXTURES, RecordedAgent
from agentcodec import Transcoder, agentscope, agui, client, langchain, openai_responses
from agentcodec.gateway import (
    DemoAgent,
    Gateway,
    ProcessUpstream,
    RequestError,
    agent_request_from_agui,
    agent_request_from_langchain,
    agent_request_from_responses,
)
from agentcodec.server import MemoryReplayStore
from agui_reference import apply_events, verify_events
from servers import redis_server, serve, serve_command
from sse_helpers import data_events

QUESTION = "How many words are in this question?"
AGUI_BODY = {
    "threadId": "thread_1",
    "runId": "run_1",
    "messages": [{"id": "u1", "role": "user", "content": QUESTION}],
}
PROCESS_BODY = {
    "input": [{"role": "user", "content": [{"type": "text", "text": QUESTION}]}],
    "session_id": "s1",
}
REFERENCE = json.loads((FIXTURES / "agent_turn.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def demo() -> Iterator[str]:
    with serve(Gateway(DemoAgent(delay=0))) as url:
        yield url


@contextlib.contextmanager
def gateway_before(agent: RecordedAgent, **options: Any) -> Iterator[str]:
    with serve(agent) as upstream, serve(Gateway(upstream, **options)) as url:
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


def event_numbers(stream: bytes) -> list[int]:
    return [int(line.rpartition(b":")[2]) for line in stream.split(b"\n") if line.startswith(b"id: ")]


# --- the demo agent, on every endpoint ------------------------------------------------------


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


def test_responses_endpoint_serves_openai_python(demo: str) -> None:
    openai = pytest.importorskip("openai")
    sdk = openai.OpenAI(base_url=f"{demo}/compatible-mode/v1", api_key="unused", max_retries=0)
    with sdk.responses.stream(model="demo", input=QUESTION) as stream:
        final = stream.get_final_response()
    assert final.status == "completed"
    assert final.model == "demo"
    assert [item.type for item in final.output] == [
        "reasoning",
        "function_call",
        "function_call_output",
        "message",
    ]
    assert json.loads(final.output[1].arguments) == {"text": QUESTION}
    assert final.output_text == f'You wrote "{QUESTION}": that is 7 words.'
    # Not streamed: the same response as JSON, as the Responses API answers.
    created = sdk.responses.create(model="demo", input=QUESTION)
    assert created.output_text == final.output_text
    assert [item.type for item in created.output] == [item.type for item in final.output]


def test_process_endpoint_is_the_agent_api_stream(demo: str) -> None:
    response = httpx.post(f"{demo}/process", json=PROCESS_BODY)
    assembler = agentscope.Assembler()
    assembler.feed(response.content)
    final = assembler.close()
    assert final["status"] == "completed"
    assert [message["type"] for message in final["output"]] == [
        "reasoning",
        "plugin_call",
        "plugin_call_output",
        "message",
    ]
    assert final["session_id"] == "s1"
    numbers = [event["sequence_number"] for event in data_events(response.content)]
    assert numbers == list(range(len(numbers)))


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
    ("path", "body", "message"),
    [
        ("/ag-ui", {"runId": "r"}, "threadId is required"),
        (
            "/ag-ui",
            {**AGUI_BODY, "messages": [{"id": "1", "role": "user", "content": [{"type": "sticker"}]}]},
            "messages[0].content[0].type 'sticker' is not an AG-UI content part",
        ),
        (
            "/compatible-mode/v1/responses",
            {"input": [{"type": "web_search_call"}]},
            "input[0].type 'web_search_call' is not a Responses input item this gateway forwards",
        ),
        ("/process", [1, 2], "the request body must be a JSON object, not list"),
    ],
)
def test_bad_requests_are_answered_400_saying_what_and_where(
    demo: str, path: str, body: Any, message: str
) -> None:
    response = httpx.post(f"{demo}{path}", json=body)
    assert response.status_code == 400
    assert response.json() == {"error": {"code": "invalid_request", "message": message}}
    not_json = httpx.post(f"{demo}{path}", content=b"{nope", headers={"content-type": "application/json"})
    assert not_json.status_code == 400
    assert not_json.json()["error"]["message"].startswith("the request body is not JSON")


@pytest.mark.parametrize("path", ["/process", "/ag-ui", "/v1/responses", "/threads/t/commands"])
@pytest.mark.parametrize(
    ("content_type", "says"),
    [
        (None, "not without a Content-Type"),
        ("text/plain", "not 'text/plain'"),
        ("application/x-www-form-urlencoded", "not 'application/x-www-form-urlencoded'"),
    ],
)
def test_a_body_not_sent_as_json_is_a_415(demo: str, path: str, content_type: str | None, says: str) -> None:
    """A browser posts text/plain or a form cross-origin without CORS's
    preflight: every endpoint takes JSON only, and says so."""
    headers = {} if content_type is None else {"content-type": content_type}
    response = httpx.post(f"{demo}{path}", content=json.dumps(AGUI_BODY).encode(), headers=headers)
    assert response.status_code == 415
    assert says in response.text
    # A JSON type with parameters, or of the +json family, is JSON.
    for given in ("application/json; charset=utf-8", "application/vnd.agent+json"):
        taken = httpx.post(f"{demo}{path}", content=b"[", headers={"content-type": given})
        assert taken.status_code in (200, 400), given


def test_a_body_past_max_body_bytes_is_a_413_read_no_further() -> None:
    with serve(Gateway(DemoAgent(delay=0), max_body_bytes=1000)) as url:
        small = httpx.post(f"{url}/ag-ui", json=AGUI_BODY)
        assert small.status_code == 200
        big = {**AGUI_BODY, "messages": [{"id": "u1", "role": "user", "content": "x" * 2000}]}
        refused = httpx.post(f"{url}/ag-ui", json=big)
        assert refused.status_code == 413
        assert refused.json()["error"] == {
            "code": "request_too_large",
            "message": "the request body is larger than 1,000 bytes, the gateway's limit",
        }

        # Without a Content-Length (chunked), the body is read no further than the limit.
        def chunks() -> Iterator[bytes]:
            yield json.dumps(big).encode()

        chunked = httpx.post(f"{url}/ag-ui", content=chunks(), headers={"content-type": "application/json"})
        assert chunked.status_code == 413
    with pytest.raises(ValueError, match="max_body_bytes must be a positive int or None"):
        Gateway(DemoAgent(), max_body_bytes=0)


DEEP = b"[" * 5000 + b"]" * 5000


@pytest.mark.parametrize(
    ("path", "content", "headers"),
    [
        ("/process", DEEP, {}),
        ("/ag-ui", b'{"threadId": "t", "runId": "r", "messages": ' + b"[" * 100 + b"]" * 100 + b"}", {}),
        ("/v1/responses", b'{"input": "hi", "temperature": NaN}', {}),
        ("/v1/responses", b'{"input": "\\ud800"}', {}),
        ("/threads/t/commands", DEEP, {}),
        ("/threads/t/stream/events", b'{"channels": 5}', {}),
        ("/threads/t/stream/events", b'{"channels": [[1]]}', {}),
        ("/threads/t/stream/events", b'{"channels": ["messages"], "namespaces": 5}', {}),
        ("/threads/t/stream/events", b'{"channels": ["messages"], "since": [1]}', {"last-event-id": "3"}),
        ("/threads/t/stream/events", b'{"channels": ["messages"], "since": 1e400}', {"last-event-id": "3"}),
    ],
    ids=[
        "deep-process",
        "deep-agui",
        "nan",
        "lone-surrogate",
        "deep-command",
        "channels-int",
        "channels-nested",
        "namespaces-int",
        "since-list",
        "since-huge",
    ],
)
def test_a_body_no_handler_can_take_is_a_400_not_a_500(
    path: str, content: bytes, headers: dict[str, str]
) -> None:
    """What once raised inside the gateway (RecursionError, TypeError,
    OverflowError, or the upstream request's JSON encoding: gateway.md 5)
    is a 400 that says why."""
    with gateway_before(RecordedAgent.from_fixture("agent_turn")) as url:
        response = httpx.post(
            f"{url}{path}", content=content, headers={"content-type": "application/json", **headers}
        )
    assert response.status_code == 400, response.text
    assert response.json()


def test_many_concurrent_streams_with_aiohttp_and_httpx(demo: str) -> None:
    aiohttp = pytest.importorskip("aiohttp")

    async def with_httpx(http: httpx.AsyncClient, n: int) -> Any:
        body = {
            **AGUI_BODY,
            "runId": f"run_{n}",
            "messages": [{"id": "u", "role": "user", "content": "word " * n}],
        }
        async with client.aconnect(http, "POST", f"{demo}/ag-ui", protocol="agui", json=body) as stream:
            return await stream.until_done()

    async def with_aiohttp(session: Any, n: int) -> Any:
        body = {"model": "demo", "input": "word " * n, "stream": True}
        async with client.aconnect(
            session, "POST", f"{demo}/v1/responses", protocol="openai-responses", json=body
        ) as stream:
            return await stream.until_done()

    async def main() -> tuple[list[Any], list[Any]]:
        async with httpx.AsyncClient(timeout=60) as http, aiohttp.ClientSession() as session:
            return await asyncio.gather(
                asyncio.gather(*(with_httpx(http, n) for n in range(1, 41))),
                asyncio.gather(*(with_aiohttp(session, n) for n in range(1, 41))),
            )

    runs, responses = asyncio.run(main())
    for n, (run, response) in enumerate(zip(runs, responses, strict=True), start=1):
        plural = "word" if n == 1 else "words"
        assert run["runId"] == f"run_{n}"
        assert run["messages"][-1]["content"].endswith(f"that is {n} {plural}.")
        assert response["output"][-1]["content"][0]["text"].endswith(f"that is {n} {plural}.")


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


def test_an_unknown_last_event_id_is_gone(demo: str) -> None:
    response = httpx.post(f"{demo}/ag-ui", json=AGUI_BODY, headers={"Last-Event-ID": "nothing-here:3"})
    assert response.status_code == 410


def test_a_last_event_id_resumes_only_its_own_protocols_stream(demo: str) -> None:
    """An AG-UI stream's Last-Event-ID sent to the Responses or Agent API
    endpoint once replayed AG-UI events there (gateway.md 8); a number past
    what a store can hold broke the stream after its headers (gateway.md 3).
    Both are gone, saying why, before anything is sent."""
    stream = httpx.post(f"{demo}/ag-ui", json=AGUI_BODY).content
    last_id = [line for line in stream.decode().splitlines() if line.startswith("id: ")][-1][4:]
    assert last_id.startswith("agui.")
    for path, body in (("/v1/responses", {"input": QUESTION, "stream": True}), ("/process", PROCESS_BODY)):
        response = httpx.post(f"{demo}{path}", json=body, headers={"Last-Event-ID": last_id})
        assert response.status_code == 410
        assert "names a stream of agui, not of " in response.json()["error"]["message"]
    resumed = httpx.post(f"{demo}/ag-ui", json=AGUI_BODY, headers={"Last-Event-ID": last_id})
    assert resumed.status_code == 200
    huge = last_id.rpartition(":")[0] + ":99999999999999999999999"
    response = httpx.post(f"{demo}/ag-ui", json=AGUI_BODY, headers={"Last-Event-ID": huge})
    assert response.status_code == 410
    assert "not an id this server wrote" in response.json()["error"]["message"]


def test_pings_keep_a_quiet_stream_open() -> None:
    with serve(Gateway(DemoAgent(delay=0.06), ping_interval=0.02)) as url:
        stream = httpx.post(f"{url}/ag-ui", json=AGUI_BODY, timeout=30).content
    assert b"\n: ping\n" in stream
    assert data_events(stream)[-1]["type"] == "RUN_FINISHED"


# --- in front of the AgentApp's /process, against the AgentApp's own endpoints --------------


def test_process_passes_the_agentapp_stream_through() -> None:
    agent = RecordedAgent.from_fixture("agent_turn")
    with gateway_before(agent) as url:
        stream = httpx.post(
            f"{url}/process", json=PROCESS_BODY, headers={"Authorization": "Bearer k"}
        ).content
    assert data_events(stream) == data_events(agent.stream)
    assert agent.requests == [PROCESS_BODY]
    assert agent.headers[0]["authorization"] == "Bearer k"


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


def test_responses_give_what_the_agentapp_gives_without_its_losses() -> None:
    openai = pytest.importorskip("openai")
    agent = RecordedAgent.from_fixture("agent_turn")
    with gateway_before(agent) as url:
        sdk = openai.OpenAI(base_url=f"{url}/compatible-mode/v1", api_key="unused", max_retries=0)
        with sdk.responses.stream(model="friday", input=QUESTION) as stream:
            final = stream.get_final_response()
    theirs = REFERENCE["responses"]["final_response"]
    assert final.output_text == REFERENCE["responses"]["output_text"] == REFERENCE["answer"]
    # The AgentApp drops the plugin call and its result; here they arrive.
    assert [item["type"] for item in theirs["output"]] == ["reasoning", "message"]
    assert [item.type for item in final.output] == [
        "reasoning",
        "function_call",
        "function_call_output",
        "message",
    ]
    assert json.loads(final.output[1].arguments) == {"city": "Paris", "unit": "C"}
    assert final.output[0].content[0].text == theirs["output"][0]["content"][0]["text"]
    assert agent.requests[0]["input"] == [
        {"role": "user", "type": "message", "content": [{"type": "text", "text": QUESTION}]}
    ]
    assert agent.requests[0]["model"] == "friday"


def test_a_failing_agent_fails_the_run_in_every_protocol() -> None:
    agent = RecordedAgent.from_fixture("agent_fails")
    with gateway_before(agent) as url:
        agui_stream = httpx.post(f"{url}/ag-ui", json=AGUI_BODY).content
        responses_stream = httpx.post(f"{url}/v1/responses", json={"input": QUESTION, "stream": True}).content
        process_stream = httpx.post(f"{url}/process", json=PROCESS_BODY).content
    events = agui_events(agui_stream)
    assert events[-1]["type"] == "RUN_ERROR"
    assert events[-1]["code"] == REFERENCE_FAILS["agui"]["validated_events"][-1]["code"]
    response = openai_responses.Assembler()
    response.feed(responses_stream)
    assert response.close()["status"] == "failed"
    assert data_events(process_stream) == data_events(agent.stream)


REFERENCE_FAILS = json.loads((FIXTURES / "agent_fails.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("cut_after", [3000, 3001, 9000])
def test_an_upstream_that_dies_midway_fails_the_run_in_the_target_protocol(cut_after: int) -> None:
    agent = RecordedAgent.from_fixture("agent_turn", cut_after=cut_after)
    with gateway_before(agent) as url:
        agui_stream = httpx.post(f"{url}/ag-ui", json=AGUI_BODY).content
        responses_stream = httpx.post(f"{url}/v1/responses", json={"input": QUESTION, "stream": True}).content
        process_stream = httpx.post(f"{url}/process", json=PROCESS_BODY).content
    events = agui_events(agui_stream)
    assert events[-1]["type"] == "RUN_ERROR"
    assert events[-1]["code"] == "upstream_error"
    responses = data_events(responses_stream)
    # The failure is the same response's, numbered on from its events.
    assert responses[-1]["type"] == "response.failed"
    assert responses[-1]["response"]["id"] == responses[0]["response"]["id"]
    assert [event["sequence_number"] for event in responses] == list(range(len(responses)))
    # Passed through, the Agent API stream ends the same way: whole events, then the
    # same response failed, numbered on.
    process = data_events(process_stream)
    assert process[:-1] == data_events(agent.stream[:cut_after])[: len(process) - 1]
    assert process[-1]["object"] == "response"
    assert process[-1]["status"] == "failed"
    assert process[-1]["id"] == process[0]["id"]
    assert [event["sequence_number"] for event in process] == list(range(len(process)))
    assembler = agentscope.Assembler()
    assembler.feed(process_stream)
    assert assembler.close()["status"] == "failed"


def _cut_at_an_event(stream: bytes, events: int) -> bytes:
    """The stream's first ``events`` events, ending cleanly at a blank line."""
    at = 0
    for _ in range(events):
        at = stream.index(b"\n\n", at) + 2
    return stream[:at]


@pytest.mark.parametrize(
    "body",
    [
        _cut_at_an_event((FIXTURES / "agent_turn.process.sse").read_bytes(), 12),
        b"",
        b'{"output": []}',
        b"<html><body>Bad gateway</body></html>",
    ],
    ids=["cut-at-an-event", "empty", "json", "html"],
)
def test_an_upstream_that_ends_cleanly_before_its_run_ends_fails_the_run(body: bytes) -> None:
    """The upstream closes its response without error, but its run never
    ended (gateway.md 2): every protocol's stream still ends with its error
    event, and the non-streamed Responses answer is failed, not in
    progress."""
    with gateway_before(RecordedAgent(body)) as url:
        agui_stream = httpx.post(f"{url}/ag-ui", json=AGUI_BODY).content
        responses_stream = httpx.post(f"{url}/v1/responses", json={"input": QUESTION, "stream": True}).content
        response = httpx.post(f"{url}/v1/responses", json={"input": QUESTION}).json()
        process_stream = httpx.post(f"{url}/process", json=PROCESS_BODY).content
    events = agui_events(agui_stream)
    assert events[-1]["type"] == "RUN_ERROR"
    assert events[-1]["code"] == "upstream_error"
    assert data_events(responses_stream)[-1]["type"] == "response.failed"
    assert response["status"] == "failed"
    process = data_events(process_stream)
    assert process[-1]["object"] == "response"
    assert process[-1]["status"] == "failed"
    assert [event["sequence_number"] for event in process if "sequence_number" in event] == list(
        range(len([event for event in process if "sequence_number" in event]))
    )


def test_an_upstream_that_refuses_or_is_gone_is_a_bad_gateway() -> None:
    with gateway_before(RecordedAgent(b"", status=503)) as url:
        refused = httpx.post(f"{url}/ag-ui", json=AGUI_BODY)
    assert refused.status_code == 502
    assert "503" in refused.json()["error"]["message"]
    with serve(Gateway("http://127.0.0.1:9/process")) as url:
        gone = httpx.post(f"{url}/process", json=PROCESS_BODY)
    assert gone.status_code == 502
    assert gone.json()["error"]["code"] == "upstream_error"


def test_nothing_of_the_upstream_reaches_a_client(caplog: pytest.LogCaptureFixture) -> None:
    """A refusing upstream's status is the outcome a client learns; its URL
    and body (here the agent's JSON detail) stay in the gateway's log
    (gateway.md 6)."""
    agent = RecordedAgent(b"", status=500)
    with caplog.at_level("WARNING", logger="agentcodec.gateway"), gateway_before(agent) as url:
        refused = httpx.post(f"{url}/ag-ui", json=AGUI_BODY)
    assert refused.status_code == 502
    assert refused.json()["error"] == {"code": "upstream_error", "message": "the agent answered 500"}
    assert "not available" not in refused.text
    assert "127.0.0.1" not in refused.text
    assert "the agent is not available" in caplog.text


def test_upstream_credentials_are_headers_of_their_own_never_the_urls() -> None:
    """Credentials in the URL would go out as Basic auth in place of the
    client's Authorization, and show wherever the URL does: refused, with
    what to do instead. Headers given to the upstream go with every request,
    over what the client's forwarded."""
    with pytest.raises(ValueError, match="headers of their own"):
        ProcessUpstream("http://admin:pw@127.0.0.1:9/process")
    agent = RecordedAgent.from_fixture("agent_turn")
    with serve(agent) as upstream:
        gateway = Gateway(ProcessUpstream(upstream, headers={"authorization": "Bearer upstream-key"}))
        with serve(gateway) as url:
            httpx.post(f"{url}/process", json=PROCESS_BODY, headers={"Authorization": "Bearer client"})
    assert agent.headers[-1]["authorization"] == "Bearer upstream-key"
    result = subprocess.run(
        [sys.executable, "-m", "agentcodec", "gateway", "--upstream", "http://admin:pw@127.0.0.1:9"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 2
    assert "--upstream-header" in result.stderr


def test_what_is_forwarded_upstream_is_named() -> None:
    """By default the client's authorization, cookie and tracing headers go
    upstream; ``forward_headers`` (``--forward-header``) names them instead,
    and ``()`` forwards none."""
    agent = RecordedAgent.from_fixture("agent_turn")
    sent = {"Authorization": "Bearer client", "X-Tenant": "t1", "traceparent": "00-a-b-01"}
    with serve(agent) as upstream:
        for forward, expected in (
            (None, {"authorization", "traceparent"}),
            (["X-Tenant"], {"x-tenant"}),
            ([], set()),
        ):
            options = {} if forward is None else {"forward_headers": forward}
            with serve(Gateway(ProcessUpstream(upstream, **options))) as url:
                httpx.post(f"{url}/process", json=PROCESS_BODY, headers=sent)
            got = {name for name in agent.headers[-1] if name in ("authorization", "x-tenant", "traceparent")}
            assert got == expected, forward
    with pytest.raises(TypeError, match="a list of header names"):
        ProcessUpstream("http://127.0.0.1:9", forward_headers="x-tenant")


def test_the_command_forwards_the_headers_it_is_told() -> None:
    agent = RecordedAgent.from_fixture("agent_turn")
    with (
        serve(agent) as upstream,
        gateway_process("--upstream", upstream, "--forward-header", "X-Tenant") as url,
    ):
        httpx.post(
            f"{url}/process", json=PROCESS_BODY, headers={"Authorization": "Bearer c", "X-Tenant": "t1"}
        )
    assert agent.headers[-1].get("x-tenant") == "t1"
    assert "authorization" not in agent.headers[-1]


# --- requests converted into the AgentRequest ----------------------------------------------


def test_a_request_on_a_connection_the_agent_closed_is_sent_again() -> None:
    """An agent server that closes a kept-alive connection when the next
    request arrives on it, unanswered (what a server's idle timeout does
    under a request racing it): the request goes again on a new connection,
    once, and the run streams."""
    stream = b'data: {"object": "response", "status": "completed"}\n\n'

    async def serve_once_per_connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        for answered in (True, False):
            head = await reader.readuntil(b"\r\n\r\n")
            length = next(
                int(line.split(b":")[1])
                for line in head.split(b"\r\n")
                if line.lower().startswith(b"content-length")
            )
            await reader.readexactly(length)
            if not answered:
                break  # a second request on this connection: dropped unanswered
            writer.write(
                b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                b"content-length: %d\r\n\r\n%s" % (len(stream), stream)
            )
            await writer.drain()
        writer.close()

    async def main() -> list[bytes]:
        server = await asyncio.start_server(serve_once_per_connection, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        upstream = ProcessUpstream(f"http://127.0.0.1:{port}")
        bodies = []
        try:
            for _ in range(3):
                chunks = await upstream.stream({"input": []}, {})
                bodies.append(b"".join([chunk async for chunk in chunks]))
        finally:
            await upstream.aclose()
            server.close()
        return bodies

    assert asyncio.run(main()) == [stream] * 3


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


def test_responses_input_keeps_instructions_developer_and_tool_items() -> None:
    request = agent_request_from_responses(
        {
            "model": "m",
            "instructions": "Be brief.",
            "max_output_tokens": 50,
            "conversation": {"id": "conv_1"},
            "tools": [
                {"type": "function", "name": "f", "description": "d", "parameters": {"type": "object"}}
            ],
            "input": [
                {"role": "developer", "content": "Answer in French."},
                {
                    "type": "message",
                    "role": "user",
                    "content": [
                        {"type": "input_text", "text": "Hi"},
                        {"type": "input_image", "image_url": "data:image/png;base64,AA"},
                    ],
                },
                {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"},
                {"type": "function_call_output", "call_id": "c", "output": "42"},
            ],
        }
    )
    assert (request["model"], request["max_tokens"], request["session_id"]) == ("m", 50, "conv_1")
    assert [(m["role"], m["type"]) for m in request["input"]] == [
        ("system", "message"),
        ("system", "message"),
        ("user", "message"),
        ("assistant", "function_call"),
        ("tool", "function_call_output"),
    ]
    assert request["tools"][0]["function"]["name"] == "f"
    # Without a conversation, each request is a session of its own: an AgentApp
    # refuses a second request of a session while the first runs.
    sessions = {agent_request_from_responses({"input": "Hi"})["session_id"] for _ in range(2)}
    assert len(sessions) == 2


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


# --- replicas sharing one Redis, started as the README starts the gateway -------------------


def gateway_process(*arguments: str) -> contextlib.AbstractContextManager[str]:
    """``agentcodec gateway`` in a process of its own, as the README starts it."""
    return serve_command(
        [sys.executable, "-m", "agentcodec", "gateway", "--log-level", "warning", *arguments]
    )


@contextlib.contextmanager
def two_replicas(tmp_path: Path) -> Iterator[tuple[str, str, httpx.Client]]:
    """Two ``agentcodec gateway`` processes sharing one redis-server, and a client."""
    with redis_server(tmp_path) as redis_url:
        arguments = ("--redis", redis_url, "--demo-delay", "0.01")
        with (
            gateway_process(*arguments) as first,
            gateway_process(*arguments) as second,
            httpx.Client(timeout=30) as http,
        ):
            yield first, second, http


def test_a_client_dropped_by_one_replica_resumes_on_another(tmp_path: Path) -> None:
    """Two gateway processes share one redis-server: a client that leaves
    the first mid-stream resumes on the second, which follows the run the
    first is still streaming: every event exactly once, in order."""
    with two_replicas(tmp_path) as (first, second, http):
        assembler = agui.Assembler()
        head = b""
        with http.stream("POST", f"{first}/ag-ui", json=AGUI_BODY) as response:
            for chunk in response.iter_raw():
                assembler.feed(chunk)
                head += chunk
                if b"TOOL_CALL_ARGS" in head:
                    break  # the client's connection to the first replica is gone
        assembler.reconnect()
        resumed = {"Last-Event-ID": assembler.last_event_id}
        rest = http.post(f"{second}/ag-ui", json=AGUI_BODY, headers=resumed).content
        assembler.feed(rest)
        run = assembler.close()
    whole = head[: head.rfind(b"\n\n") + 2]
    numbers = event_numbers(whole) + event_numbers(rest)
    assert numbers == list(range(1, len(numbers) + 1))
    events = agui_events(whole + rest)
    assert run["status"] == "finished"
    assert run["messages"] == apply_events(events)["messages"]
    assert run["messages"][-1]["content"] == f'You wrote "{QUESTION}": that is 7 words.'


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


def test_the_demo_gateway_serves_from_the_command_line() -> None:
    with gateway_process("--demo-delay", "0") as url:
        out = subprocess.run(
            [
                sys.executable,
                "-m",
                "agentcodec",
                "stream",
                f"{url}/ag-ui",
                "--protocol",
                "agui",
                "--assemble",
                "--data",
                json.dumps(AGUI_BODY),
            ],
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
        ).stdout
    lines = out.splitlines()
    assert json.loads(lines[0])["type"] == "RUN_STARTED"
    run = json.loads("\n".join(lines[lines.index("{") :]))
    assert run["messages"][-1]["content"] == f'You wrote "{QUESTION}": that is 7 words.'


def test_the_store_is_shared_by_default_streams() -> None:
    store = MemoryReplayStore()
    gateway = Gateway(DemoAgent(delay=0), store=store)
    with serve(gateway) as url:
        httpx.post(f"{url}/ag-ui", json=AGUI_BODY)
        httpx.post(f"{url}/process", json=PROCESS_BODY)
    assert len(store) == 2


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


def test_the_stream_command_reads_its_body_from_a_file(demo: str, tmp_path: Path) -> None:
    body = tmp_path / "run.json"
    body.write_text(json.dumps(AGUI_BODY))
    command = [sys.executable, "-m", "agentcodec", "stream", f"{demo}/ag-ui", "--protocol", "agui"]
    out = subprocess.run(
        [*command, "--data", f"@{body}"], capture_output=True, text=True, check=True, timeout=60
    )
    assert json.loads(out.stdout.splitlines()[-1])["type"] == "RUN_FINISHED"
    piped = subprocess.run(
        [*command, "--data", "@-"],
        input=json.dumps(AGUI_BODY),
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert json.loads(piped.stdout.splitlines()[-1])["type"] == "RUN_FINISHED"
    bad = subprocess.run(
        [*command, "--data", "{nope"], check=False, capture_output=True, text=True, timeout=60
    )
    assert bad.returncode == 2
    assert "--data is not JSON" in bad.stderr


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


def test_a_conversion_past_a_framing_limit_fails_as_the_same_response() -> None:
    """An upstream line past the Transcoder's limit: the Transcoder takes no
    more bytes, and the run's end was fed as bytes, so the client got the
    generic error event (a response "resp", numbered 2, after events numbered
    to 35: gateway.md 7). The end is now given decoded: the same response,
    failed, numbered on."""
    from agentcodec.gateway._streams import converted as _converted

    stream = (FIXTURES / "agent_turn.process.sse").read_bytes()
    line = (
        b'data: {"object":"content","type":"text","delta":true,"msg_id":"x","text":"'
        + b"a" * 5000
        + b'"}\n\n'
    )

    async def chunks() -> Any:
        yield _cut_at_an_event(stream, 12)
        yield line

    async def main() -> bytes:
        transcoder = Transcoder("agentscope", "openai-responses", max_line_bytes=1000)
        return b"".join([piece async for piece in _converted(chunks(), transcoder)])

    events = data_events(asyncio.run(main()))
    assert events[-1]["type"] == "response.failed"
    assert events[-1]["response"]["id"] == events[0]["response"]["id"]
    assert [event["sequence_number"] for event in events] == list(range(len(events)))


def test_api_keys_guard_every_endpoint_but_health_and_stay_at_the_gateway() -> None:
    """With keys, a request needs one (Bearer or X-Api-Key); the upstream
    never sees the gateway's key; the health check needs none."""
    agent = RecordedAgent.from_fixture("agent_turn")
    with serve(agent) as upstream, serve(Gateway(upstream, api_keys=["k1", "k2"])) as url:
        missing = httpx.post(f"{url}/process", json=PROCESS_BODY)
        wrong = httpx.post(f"{url}/process", json=PROCESS_BODY, headers={"Authorization": "Bearer nope"})
        bearer = httpx.post(f"{url}/process", json=PROCESS_BODY, headers={"Authorization": "Bearer k2"})
        header = httpx.post(f"{url}/ag-ui", json=AGUI_BODY, headers={"X-Api-Key": "k1"})
        health = httpx.get(f"{url}/health")
    for refused in (missing, wrong):
        assert refused.status_code == 401
        assert refused.headers["www-authenticate"] == "Bearer"
        assert refused.json()["error"]["code"] == "unauthorized"
    assert bearer.status_code == 200
    assert data_events(bearer.content)[-1]["status"] == "completed"
    assert header.status_code == 200
    assert health.status_code == 200
    assert len(agent.requests) == 2
    assert all("authorization" not in seen and "x-api-key" not in seen for seen in agent.headers)
    with pytest.raises(ValueError, match="non-empty"):
        Gateway(DemoAgent(), api_keys=[""])


def test_cors_lets_the_configured_origins_in_and_no_other() -> None:
    """Browser frontends (AG-UI, the AI SDK) call from their origin: a
    preflight from an allowed one is answered, before any key is asked for;
    without origins, nothing cross-origin is allowed."""
    preflight = {"Origin": "https://app.example", "Access-Control-Request-Method": "POST"}
    gateway = Gateway(DemoAgent(delay=0), cors_origins=["https://app.example"], api_keys=["k"])
    with serve(gateway) as url:
        allowed = httpx.options(
            f"{url}/ag-ui", headers={**preflight, "Access-Control-Request-Headers": "x-api-key"}
        )
        other = httpx.options(f"{url}/ag-ui", headers={**preflight, "Origin": "https://evil.example"})
        posted = httpx.post(
            f"{url}/ag-ui", json=AGUI_BODY, headers={"Origin": "https://app.example", "X-Api-Key": "k"}
        )
    assert allowed.status_code == 200
    assert allowed.headers["access-control-allow-origin"] == "https://app.example"
    assert other.status_code == 400
    assert "access-control-allow-origin" not in other.headers
    assert posted.headers["access-control-allow-origin"] == "https://app.example"
    with serve(Gateway(DemoAgent(delay=0))) as url:
        closed = httpx.post(f"{url}/ag-ui", json=AGUI_BODY, headers={"Origin": "https://app.example"})
    assert "access-control-allow-origin" not in closed.headers


def test_the_command_takes_keys_from_a_flag_a_file_and_the_environment(tmp_path: Path) -> None:
    keys = tmp_path / "keys"
    keys.write_text("# the team's key\nfrom-file\n")
    command = [sys.executable, "-m", "agentcodec", "gateway", "--log-level", "warning", "--demo-delay", "0"]
    options = ["--api-key", "from-flag", "--api-keys-file", str(keys), "--cors-origin", "https://app.example"]
    with serve_command([*command, *options], env={"AGENTCODEC_GATEWAY_API_KEYS": "from-env, other"}) as url:
        for key in ("from-flag", "from-file", "from-env", "other"):
            response = httpx.post(f"{url}/process", json=PROCESS_BODY, headers={"X-Api-Key": key})
            assert response.status_code == 200, key
        assert httpx.post(f"{url}/process", json=PROCESS_BODY).status_code == 401
        preflight = httpx.options(
            f"{url}/ag-ui", headers={"Origin": "https://app.example", "Access-Control-Request-Method": "POST"}
        )
        assert preflight.headers["access-control-allow-origin"] == "https://app.example"
