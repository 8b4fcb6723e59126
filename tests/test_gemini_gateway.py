"""The gateway's Gemini endpoints (``POST /v1beta/models/{model}:
streamGenerateContent`` and ``:generateContent``) on uvicorn, called by
google-genai and httpx, in front of the demo agent and of an Agent API
server answering with a recorded run: what the client reads, streamed and
not, as SSE and as a JSON array; the tool calls it would run again left out
and those left to it written; its key in ``x-goog-api-key``. What every
endpoint does alike is test_gateway's."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from agent_servers import RecordedAgent, tool_call_run
from agentcodec.gateway import DemoAgent, Gateway
from agentcodec.gemini.gateway import agent_request_from_gemini
from gateway_clients import ANSWER, QUESTION, gateway_before, preflight_allows
from servers import serve

STREAM = "/v1beta/models/demo:streamGenerateContent"
ASKED = {"contents": [{"role": "user", "parts": [{"text": QUESTION}]}]}


@pytest.fixture(scope="module")
def demo() -> Iterator[str]:
    with serve(Gateway(DemoAgent(delay=0))) as url:
        yield url


def client_at(url: str, key: str = "-") -> Any:
    genai = pytest.importorskip("google.genai")
    return genai.Client(api_key=key, http_options={"base_url": url})


def gateway_reason(code: str) -> dict[str, str]:
    """The detail that carries the gateway's own error code."""
    return {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": code, "domain": "agentcodec"}


def test_google_genai_generates_content_streamed_and_whole(demo: str) -> None:
    """The demo agent reasons, runs its word_count tool and answers: the
    client reads the thoughts and the answer, and no function call, which
    its automatic function calling would run again."""
    client = client_at(demo)
    chunks = list(client.models.generate_content_stream(model="demo", contents=QUESTION))
    parts = [part for chunk in chunks for part in chunk.candidates[0].content.parts]
    assert "".join(part.text for part in parts if not part.thought) == ANSWER
    assert "".join(part.text for part in parts if part.thought).startswith("The user wants their words")
    assert chunks[-1].candidates[0].finish_reason == "STOP"
    whole = client.models.generate_content(model="demo", contents=QUESTION)
    assert whole.text == ANSWER
    assert whole.function_calls is None
    assert whole.model_version == "demo"


@pytest.mark.parametrize("version", ["v1beta", "v1"])
def test_the_client_lists_the_agent_as_its_model(demo: str, version: str) -> None:
    """What clients read before they generate, as google-genai reads it, at
    both versions: one model, the agent, which any name gets and any name
    generates with. ``/v1/models`` is OpenAI's model list too: a request
    without google-genai's headers gets that."""
    genai = pytest.importorskip("google.genai")
    client = genai.Client(api_key="-", http_options={"base_url": demo, "api_version": version})
    [model] = list(client.models.list())
    assert (model.name, model.display_name) == ("models/agent", "agent")
    assert model.supported_actions == ["generateContent", "streamGenerateContent"]
    assert client.models.get(model="agent") == model
    assert client.models.get(model="any-name").name == "models/any-name"
    assert client.models.generate_content(model=model.name, contents=QUESTION).text == ANSWER
    listed = httpx.get(f"{demo}/{version}/models").json()
    assert listed.get("object") == ("list" if version == "v1" else None)


def test_a_refused_model_list_is_the_apis_error() -> None:
    genai = pytest.importorskip("google.genai")
    with serve(Gateway(DemoAgent(delay=0), api_keys=["sesame"])) as url:
        allowed, refused_client = client_at(url, "sesame"), client_at(url, "wrong")
        assert [model.name for model in allowed.models.list()] == ["models/agent"]
        with pytest.raises(genai.errors.ClientError) as refused:
            list(refused_client.models.list())
    assert (refused.value.code, refused.value.status) == (401, "UNAUTHENTICATED")


def test_a_browser_pages_client_passes_the_cors_preflight() -> None:
    """The headers the client sends with every request (its name, its key)
    are let in for an allowed origin."""
    sent = dict(client_at("http://gateway.example")._api_client._http_options.headers or {})
    assert "x-goog-api-client" in sent
    preflight_allows(STREAM, sent)


def test_the_sse_stream_has_data_lines_alone_and_the_array_form_is_json(demo: str) -> None:
    """google-genai's reader takes any line but ``data:`` for JSON: no event
    ids, no keep-alive comments. Without ``alt=sse``, one JSON array."""
    sse = httpx.post(f"{demo}{STREAM}?alt=sse", json=ASKED, timeout=10)
    assert sse.headers["content-type"].startswith("text/event-stream")
    lines = [line for line in sse.text.splitlines() if line]
    assert lines
    assert all(line.startswith("data: ") for line in lines)
    array = httpx.post(f"{demo}{STREAM}", json=ASKED, timeout=10)
    assert array.headers["content-type"] == "application/json"
    records = json.loads(array.text)
    assert [json.loads(line[len("data: ") :]) for line in lines][-1]["candidates"][0][
        "finishReason"
    ] == "STOP"
    assert len(records) == len(lines)
    assert records[-1]["candidates"][0]["finishReason"] == "STOP"


def test_a_call_left_to_the_client_is_written_and_its_result_goes_back() -> None:
    """A call the run leaves unanswered is the client's to run; its next
    request, with the model's content and a function response naming the
    tool, reaches the agent with the result paired to its call."""
    genai = pytest.importorskip("google.genai")
    agent = RecordedAgent(tool_call_run())
    with gateway_before(agent) as url:
        client = client_at(url)
        answer = client.models.generate_content(model="m", contents=QUESTION)
        [call] = answer.function_calls
        assert (call.name, call.args) == ("weather", {"city": "Paris"})
        reply = genai.types.Part.from_function_response(name="weather", response={"temperature": 18})
        history = [
            genai.types.Content(role="user", parts=[genai.types.Part(text=QUESTION)]),
            answer.candidates[0].content,
            genai.types.Content(role="user", parts=[reply]),
        ]
        client.models.generate_content(model="m", contents=history)
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


def test_a_call_the_agent_answered_is_left_out_and_its_messages_set_apart() -> None:
    agent = RecordedAgent(tool_call_run(answered=True))
    with gateway_before(agent) as url:
        client = client_at(url)
        answer = client.models.generate_content(model="m", contents=QUESTION)
    assert answer.function_calls is None
    assert answer.text == "Let me look.\n\nIt is 18 C."


def test_the_clients_key_is_the_gateways_api_key() -> None:
    genai = pytest.importorskip("google.genai")
    with serve(Gateway(DemoAgent(delay=0), api_keys=["sesame"])) as url:
        # (each client kept in a name: a client dropped closes its connections)
        allowed, refused_client = client_at(url, "sesame"), client_at(url, "wrong")
        assert allowed.models.generate_content(model="demo", contents=QUESTION).text == ANSWER
        with pytest.raises(genai.errors.ClientError) as refused:
            refused_client.models.generate_content(model="demo", contents=QUESTION)
    assert (refused.value.code, refused.value.status) == (401, "UNAUTHENTICATED")
    assert refused.value.details["error"]["details"] == [gateway_reason("unauthorized")]


def test_a_run_that_fails_is_the_clients_error() -> None:
    genai = pytest.importorskip("google.genai")
    with gateway_before(RecordedAgent.from_fixture("agent_fails")) as url:
        client = client_at(url)
        with pytest.raises(genai.errors.ServerError) as streamed:
            list(client.models.generate_content_stream(model="m", contents=QUESTION))
        response = httpx.post(f"{url}/v1beta/models/m:generateContent", json=ASKED, timeout=10)
    assert response.status_code == 502
    # Not streamed, the error is the one the stream ends with (but for its
    # HTTP status, which is the answer's).
    assert streamed.value.status == "INTERNAL"
    assert response.json() == {
        "error": {"code": 502, "message": streamed.value.message, "status": streamed.value.status}
    }


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"contents": []}, "contents is required: at least one content"),
        (
            {"contents": [{"role": "system", "parts": [{"text": "x"}]}]},
            "contents[0].role 'system' is not a Gemini role (user or model)",
        ),
        (
            {"contents": [{"role": "user", "parts": [{"executableCode": {}}]}]},
            "contents[0].parts[0] is no part of a user's content this gateway forwards",
        ),
        (
            {"contents": [{"role": "model", "parts": [{"executableCode": {"code": "1"}}]}]},
            "contents[0].parts[0] is no part of a model's content this gateway forwards",
        ),
        (
            {"contents": [{"role": "user", "parts": [{"functionResponse": {"name": "f", "response": {}}}]}]},
            "contents[0].parts[0].functionResponse answers no functionCall of the model before it",
        ),
        (
            {"contents": ASKED["contents"], "generationConfig": 1},
            "generationConfig must be a JSON object, not int",
        ),
    ],
    ids=["no-contents", "role", "part", "model-part", "unanswered", "config"],
)
def test_bad_requests_are_answered_400_saying_what_and_where(demo: str, body: Any, message: str) -> None:
    for path in (
        f"{STREAM}?alt=sse",
        STREAM,
        "/v1beta/models/demo:generateContent",
        "/v1/models/demo:generateContent",
    ):
        response = httpx.post(f"{demo}{path}", json=body, timeout=10)
        assert response.status_code == 400, response.text
        assert response.json()["error"] == {
            "code": 400,
            "message": message,
            "status": "INVALID_ARGUMENT",
            "details": [gateway_reason("invalid_request")],
        }
    if list(body) != ["contents"] or not body["contents"]:
        return  # (what google-genai refuses to send, or sends otherwise)
    genai = pytest.importorskip("google.genai")
    client = client_at(demo)
    with pytest.raises(genai.errors.ClientError) as raised:
        client.models.generate_content(model="demo", contents=body["contents"])
    error = raised.value
    assert (error.code, error.status, error.message) == (400, "INVALID_ARGUMENT", message)


def test_gemini_contents_become_the_agents_messages() -> None:
    request = agent_request_from_gemini(
        {
            "systemInstruction": {"parts": [{"text": "Be brief."}]},
            "generationConfig": {"temperature": 0.5, "maxOutputTokens": 50},
            "tools": [
                {"functionDeclarations": [{"name": "f", "description": "d", "parametersJsonSchema": {}}]}
            ],
            "contents": [
                {
                    "role": "user",
                    "parts": [
                        {"text": "What is this?"},
                        {"inlineData": {"mimeType": "image/png", "data": "iVBO"}},
                        {"fileData": {"mimeType": "application/pdf", "fileUri": "gs://b/a.pdf"}},
                    ],
                },
                {
                    "role": "model",
                    "parts": [
                        {"text": "Look twice.", "thought": True, "thoughtSignature": "c2ln"},
                        {"thoughtSignature": "c2ln"},
                        {"functionCall": {"name": "f", "args": {"n": 1}}},
                        {"functionCall": {"id": "c2", "name": "g", "args": {}}},
                    ],
                },
                {
                    "role": "user",
                    "parts": [
                        {"functionResponse": {"id": "c2", "name": "g", "response": {"ok": True}}},
                        {"function_response": {"name": "f", "response": {"n": "é"}}},
                    ],
                },
            ],
        },
        model="m",
    )

    def output(call_id: str, text: str) -> dict[str, Any]:
        data = {"call_id": call_id, "output": text}
        return {"role": "tool", "type": "function_call_output", "content": [{"type": "data", "data": data}]}

    first_call = "call_1_2"  # (the second content's third part)
    assert request["input"] == [
        {"role": "system", "type": "message", "content": [{"type": "text", "text": "Be brief."}]},
        {
            "role": "user",
            "type": "message",
            "content": [
                {"type": "text", "text": "What is this?"},
                {"type": "image", "image_url": "data:image/png;base64,iVBO"},
                {"type": "file", "file_url": "gs://b/a.pdf"},
            ],
        },
        {"role": "assistant", "type": "reasoning", "content": [{"type": "text", "text": "Look twice."}]},
        {
            "role": "assistant",
            "type": "function_call",
            "content": [
                {"type": "data", "data": {"call_id": first_call, "name": "f", "arguments": '{"n": 1}'}},
                {"type": "data", "data": {"call_id": "c2", "name": "g", "arguments": "{}"}},
            ],
        },
        output("c2", '{"ok": true}'),
        output(first_call, '{"n": "é"}'),
    ]
    assert (request["model"], request["temperature"], request["max_tokens"]) == ("m", 0.5, 50)
    assert request["tools"][0]["function"] == {"name": "f", "description": "d", "parameters": {}}
