"""The gateway's OpenAI Responses endpoint (``POST /v1/responses`` and the
AgentApp's ``/compatible-mode/v1/responses``) on uvicorn, called by the
openai SDK and httpx, in front of the demo agent and of an Agent API server
answering with what agentscope-runtime's AgentApp wrote: what the SDK's
accumulator gives, streamed and not, against what the AgentApp's own
endpoint gave for the same turn. What every endpoint does alike is
test_gateway's."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from agent_servers import FIXTURES, RecordedAgent
from agentcodec import Transcoder, openai_responses
from agentcodec.gateway import DemoAgent, Gateway, Timeouts
from agentcodec.openai_responses import gateway as responses_gateway
from agentcodec.openai_responses.gateway import agent_request_from_responses
from agentcodec.server import MemoryReplayStore
from gateway_clients import QUESTION, gateway_before, two_replicas
from servers import serve
from sse_helpers import data_events

REFERENCE = json.loads((FIXTURES / "agent_turn.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def demo() -> Iterator[str]:
    with serve(Gateway(DemoAgent(delay=0))) as url:
        yield url


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


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            json.dumps({"input": [{"type": "web_search_call"}]}).encode(),
            "input[0].type 'web_search_call' is not a Responses input item this gateway forwards",
        ),
        (b'{"input": "hi", "temperature": NaN}', None),
        (b'{"input": "\\ud800"}', None),
    ],
    ids=["unknown-item", "nan", "lone-surrogate"],
)
def test_bad_requests_are_answered_400_saying_what_and_where(demo: str, content: bytes, message: Any) -> None:
    """What the upstream's request could not carry (NaN, a lone surrogate)
    once raised inside the gateway (gateway.md 5): a 400 that says why."""
    for path in ("/v1/responses", "/compatible-mode/v1/responses"):
        response = httpx.post(f"{demo}{path}", content=content, headers={"content-type": "application/json"})
        assert response.status_code == 400, response.text
        assert response.json()["error"]["code"] == "invalid_request"
        if message is not None:
            assert response.json()["error"]["message"] == message


def test_a_streamed_response_is_retrieved_by_its_id(demo: str) -> None:
    """openai-python's ``responses.retrieve``: the response as it ended, and
    with ``stream=True`` its events after ``starting_after``, which with the
    events read before it make the whole stream."""
    openai = pytest.importorskip("openai")
    sdk = openai.OpenAI(base_url=f"{demo}/v1", api_key="-", max_retries=0)
    events = list(sdk.responses.create(model="m", input=QUESTION, stream=True))
    final = events[-1].response
    assert final.status == "completed"
    for prefix in ("/v1", "/compatible-mode/v1"):
        at = openai.OpenAI(base_url=f"{demo}{prefix}", api_key="-", max_retries=0)
        assert at.responses.retrieve(final.id) == final
        for seen in (0, 5, len(events) - 1):
            rest = list(at.responses.retrieve(final.id, stream=True, starting_after=seen))
            assert [event.sequence_number for event in rest] == list(range(seen + 1, len(events)))
            assert events[: seen + 1] + rest == events
        assert list(at.responses.retrieve(final.id, stream=True)) == events
    with pytest.raises(openai.NotFoundError) as unknown:
        sdk.responses.retrieve("response_unknown")
    assert unknown.value.code == "not_found"
    for query in ("stream=maybe", "stream=true&starting_after=-1", "starting_after=x"):
        refused = httpx.get(f"{demo}/v1/responses/{final.id}?{query}")
        assert refused.status_code == 400, query
        assert refused.json()["error"]["type"] == "invalid_request_error"


def test_a_response_is_retrieved_while_it_runs_from_another_replica(tmp_path: Path) -> None:
    """A client that loses its stream comes back by the response's id on
    any replica sharing the store: mid-run, the response is in progress, and
    its events after the last one read follow live to the end."""
    openai = pytest.importorskip("openai")
    # (the run takes some two seconds: it is still going when the client comes back)
    with two_replicas(tmp_path, demo_delay=0.05) as (first, second, _):
        writer = openai.OpenAI(base_url=f"{first}/v1", api_key="-", max_retries=0)
        reader = openai.OpenAI(base_url=f"{second}/v1", api_key="-", max_retries=0)
        with writer.responses.create(model="m", input=QUESTION, stream=True) as stream:
            read = [next(stream) for _ in range(4)]
        response_id = read[0].response.id
        assert reader.responses.retrieve(response_id).status == "in_progress"
        rest = list(reader.responses.retrieve(response_id, stream=True, starting_after=3))
    assert rest[0].sequence_number == 4
    assert rest[-1].type == "response.completed"
    assert rest[-1].response.id == response_id
    assert "words" in rest[-1].response.output_text


def test_a_background_response_runs_on_and_is_polled_to_its_end() -> None:
    """``background=True``: the answer is the response as it stands once
    created, and the run goes on unread; polling ``retrieve`` sees it in
    progress, then completed with the answer a streamed run gives."""
    openai = pytest.importorskip("openai")
    with serve(Gateway(DemoAgent(delay=0.02))) as url:
        sdk = openai.OpenAI(base_url=f"{url}/v1", api_key="-", max_retries=0)
        created = sdk.responses.create(model="m", input=QUESTION, background=True)
        assert (created.status, created.output) == ("in_progress", [])
        assert sdk.responses.retrieve(created.id).status == "in_progress"
        deadline = time.monotonic() + 20
        while (polled := sdk.responses.retrieve(created.id)).status == "in_progress":
            assert time.monotonic() < deadline, "the background response never ended"
            time.sleep(0.1)
        streamed = list(sdk.responses.create(model="m", input=QUESTION, stream=True))[-1].response
        # An ended response, cancelled, is as it ended.
        assert sdk.responses.cancel(created.id) == polled
    assert polled.status == "completed"
    assert polled.output_text == streamed.output_text
    assert "words" in polled.output_text


def test_a_response_is_cancelled_by_its_id() -> None:
    """``responses.cancel``: a response that runs here ends ``cancelled``,
    its run stopped upstream, and stays so; an unknown one is not found."""
    openai = pytest.importorskip("openai")
    with serve(Gateway(DemoAgent(delay=0.05))) as url:
        sdk = openai.OpenAI(base_url=f"{url}/v1", api_key="-", max_retries=0)
        for background in (True, False):
            if background:
                response_id = sdk.responses.create(model="m", input=QUESTION, background=True).id
            else:
                with sdk.responses.create(model="m", input=QUESTION, stream=True) as stream:
                    response_id = next(stream).response.id
            cancelled = sdk.responses.cancel(response_id)
            assert cancelled.status == "cancelled", background
            assert sdk.responses.retrieve(response_id) == cancelled
            events = list(sdk.responses.retrieve(response_id, stream=True))
            assert events[-1].response.status == "cancelled"
        with pytest.raises(openai.NotFoundError):
            sdk.responses.cancel("response_unknown")
        refused = httpx.post(f"{url}/v1/responses", json={"input": QUESTION, "background": "yes"})
    assert refused.status_code == 400
    assert refused.json()["error"]["message"] == "background must be a boolean, not str"


def test_a_background_stream_is_not_abandoned_when_its_client_leaves() -> None:
    """A streamed run nobody reads is cancelled after the ``abandoned``
    timeout; a background one goes on to its end."""
    openai = pytest.importorskip("openai")
    with serve(Gateway(DemoAgent(delay=0.05), timeouts=Timeouts(abandoned=0.3))) as url:
        sdk = openai.OpenAI(base_url=f"{url}/v1", api_key="-", max_retries=0)
        left = {}
        for background in (False, True):
            with sdk.responses.create(
                model="m", input=QUESTION, stream=True, background=background
            ) as stream:
                left[background] = next(stream).response.id
        time.sleep(1.0)  # past the timeout, and short of the run's end (some two seconds)
        ends = {
            background: list(sdk.responses.retrieve(response_id, stream=True))[-1]
            for background, response_id in left.items()
        }
    assert ends[True].type == "response.completed"
    assert ends[False].type != "response.completed"


def test_a_response_is_cancelled_from_another_replica(tmp_path: Path) -> None:
    """A cancel that reaches another replica than the run's goes to the
    run's through the store: the run stops there, and both replicas give
    the cancelled response."""
    openai = pytest.importorskip("openai")
    with two_replicas(tmp_path, demo_delay=0.05) as (first, second, _):
        runs_it = openai.OpenAI(base_url=f"{first}/v1", api_key="-", max_retries=0)
        other = openai.OpenAI(base_url=f"{second}/v1", api_key="-", max_retries=0)
        response_id = runs_it.responses.create(model="m", input=QUESTION, background=True).id
        cancelled = other.responses.cancel(response_id)
        assert runs_it.responses.retrieve(response_id) == cancelled
    assert cancelled.status == "cancelled"


def test_a_cancel_that_outlives_its_wait_answers_the_response_as_it_stands(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A run whose replica went away before its end is never recorded as
    ended: its cancel waits its few seconds, then answers the response as
    it stands (it answered 500, closing the store's read still running)."""
    openai = pytest.importorskip("openai")
    with (
        serve(Gateway(DemoAgent(delay=0))) as url,
        httpx.stream("POST", f"{url}/v1/responses", json={"input": QUESTION, "stream": True}) as streamed,
    ):
        created = b""
        for piece in streamed.iter_bytes():
            created += piece
            if b"\n\n" in created:
                break
    created = created[: created.index(b"\n\n") + 2]
    response_id = data_events(created)[0]["response"]["id"]
    store = MemoryReplayStore()

    async def left_running() -> None:
        stream_id = await store.open()
        await store.append(stream_id, created)
        await store.set_alias(responses_gateway.response_alias(response_id), stream_id)

    asyncio.run(left_running())
    monkeypatch.setattr(responses_gateway, "_CANCEL_WAIT", 0.3)
    with serve(Gateway(DemoAgent(delay=0), store=store)) as url:
        sdk = openai.OpenAI(base_url=f"{url}/v1", api_key="-", max_retries=0)
        answered = sdk.responses.cancel(response_id)
    assert (answered.id, answered.status) == (response_id, "in_progress")


def test_errors_are_the_apis_as_openai_python_reads_them() -> None:
    """A refusal is worded as OpenAI's APIs word one, so the SDK's error has
    the API's ``type`` and the gateway's ``code``: a bad request, a missing key."""
    openai = pytest.importorskip("openai")
    with serve(Gateway(DemoAgent(delay=0), api_keys=["sesame"])) as url:
        for path in ("/v1", "/compatible-mode/v1"):
            allowed = openai.OpenAI(base_url=f"{url}{path}", api_key="sesame", max_retries=0)
            with pytest.raises(openai.BadRequestError) as bad:
                allowed.responses.create(model="m", input=[{"type": "web_search_call"}])  # type: ignore[list-item]
            refused = openai.OpenAI(base_url=f"{url}{path}", api_key="wrong", max_retries=0)
            with pytest.raises(openai.AuthenticationError) as unauthorized:
                refused.responses.create(model="m", input=QUESTION)
            assert (bad.value.type, bad.value.code, bad.value.param) == (
                "invalid_request_error",
                "invalid_request",
                None,
            )
            assert bad.value.body["message"] == (
                "input[0].type 'web_search_call' is not a Responses input item this gateway forwards"
            )
            assert (unauthorized.value.type, unauthorized.value.code) == (
                "invalid_request_error",
                "unauthorized",
            )


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


@pytest.mark.parametrize("cut_after", [3000, 3001, 9000])
def test_an_upstream_that_dies_midway_fails_the_same_response(cut_after: int) -> None:
    agent = RecordedAgent.from_fixture("agent_turn", cut_after=cut_after)
    with gateway_before(agent) as url:
        stream = httpx.post(f"{url}/v1/responses", json={"input": QUESTION, "stream": True}).content
    events = data_events(stream)
    # The failure is the same response's, numbered on from its events.
    assert events[-1]["type"] == "response.failed"
    assert events[-1]["response"]["id"] == events[0]["response"]["id"]
    assert [event["sequence_number"] for event in events] == list(range(len(events)))
    assembler = openai_responses.Assembler()
    assembler.feed(stream)
    assert assembler.close()["status"] == "failed"


def test_a_run_not_streamed_that_fails_is_a_failed_response() -> None:
    """Not streamed, an upstream that ends before its run did (gateway.md 2)
    answers the failed response, not one in progress."""
    with gateway_before(RecordedAgent(b'{"output": []}')) as url:
        response = httpx.post(f"{url}/v1/responses", json={"input": QUESTION}).json()
    assert response["status"] == "failed"


def test_a_run_not_streamed_counts_what_its_conversion_lost() -> None:
    """The final response is converted too: its losses are counted at
    /metrics as a streamed run's are."""
    with serve(Gateway(DemoAgent(delay=0))) as url:
        asked = {"input": [{"role": "user", "content": [{"type": "text", "text": QUESTION}]}]}
        process = httpx.post(f"{url}/process", json=asked, timeout=10).content
        response = httpx.post(f"{url}/v1/responses", json={"input": QUESTION}, timeout=10).json()
        metrics = httpx.get(f"{url}/metrics", timeout=10).text
    assert response["status"] == "completed"
    transcoder = Transcoder("agentscope", "openai-responses")
    transcoder.feed(process)
    transcoder.close()
    lost = [loss["what"] for loss in transcoder.losses]
    assert lost, "the demo agent's turn loses nothing in the Responses API"
    for what in set(lost):
        sample = f'agentcodec_gateway_conversion_losses_total{{protocol="openai-responses",what="{what}"}}'
        assert f"{sample} {lost.count(what)}\n" in metrics


def _cut_at_an_event(stream: bytes, events: int) -> bytes:
    """The stream's first ``events`` events, ending cleanly at a blank line."""
    at = 0
    for _ in range(events):
        at = stream.index(b"\n\n", at) + 2
    return stream[:at]


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
