"""Gemini's streamGenerateContent, on both backends, judged by the response
generateContent gives the same request (tests/fixtures/gemini/, written by
scripts/gemini_fixtures.py) and by google-genai: its models validate what
agentcodec assembles and writes, and its client reads those streams from a
server on loopback."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest

import agentcodec
import conversion
from agentcodec import GeminiError, GeminiEventError, SSELimitError
from agentcodec._pure.words import Words
from agentcodec._vocabulary import tables
from conversion import OPTIONS, SOURCE_IDS, SOURCES, convert
from protocol_table import FIXTURES

genai = pytest.importorskip("google.genai")
from google.genai import errors as genai_errors  # noqa: E402
from google.genai import types as genai_types  # noqa: E402
from google.genai.models import _GenerateContentResponse_from_mldev  # noqa: E402

STREAMS = sorted((FIXTURES / "gemini").glob("**/*.sse"))
IDS = [str(path.relative_to(FIXTURES / "gemini").with_suffix("")) for path in STREAMS]
ARRAYS = sorted((FIXTURES / "gemini").glob("*.array"))


def judge(path: Path) -> dict[str, Any]:
    return json.loads(path.with_suffix(".json").read_text())  # type: ignore[no-any-return]


def assemble(backend: ModuleType, data: bytes, chunk: int | None = None, **options: Any) -> Any:
    return conversion.assemble(backend.GeminiAssembler(**options), data, chunk)


def validated(response: dict[str, Any]) -> None:
    """google-genai's model takes it: it refuses a field it does not know."""
    genai_types.GenerateContentResponse.model_validate({k: v for k, v in response.items() if k != "error"})


@pytest.mark.parametrize("path", STREAMS, ids=IDS)
def test_the_response_is_what_generate_content_answers(backend: ModuleType, path: Path) -> None:
    expected = judge(path)["response"]
    assembler = assemble(backend, path.read_bytes())
    assert assembler.response == expected
    validated(assembler.response)
    if "error" in expected:
        error = expected["error"]
        assert assembler.errors == [{"event": 3, "code": error["status"], "message": error["message"]}]
    else:
        assert assembler.errors == []


@pytest.mark.parametrize("path", STREAMS, ids=IDS)
@pytest.mark.parametrize("chunk", [1, 3, 64])
def test_any_chunking_and_the_json_array_framing_give_the_same_response(
    backend: ModuleType, path: Path, chunk: int
) -> None:
    data = path.read_bytes()
    whole = assemble(backend, data).response
    assert assemble(backend, data, chunk).response == whole
    array = path.with_suffix(".array")
    if array.exists():
        assert assemble(backend, array.read_bytes(), chunk).response == whole
    # The records as a JSON array however written: a BOM, compact, LF.
    records = [json.loads(line[6:]) for line in data.decode().split("\r\n\r\n") if line]
    compact = b"\xef\xbb\xbf[" + b",\n".join(json.dumps(r).encode() for r in records) + b"]\n"
    assert assemble(backend, compact, chunk).response == whole


@pytest.mark.parametrize(
    "path", [*STREAMS, FIXTURES / "gemini" / "text_signature.array"], ids=[*IDS, "array"]
)
def test_records_read_from_bytes_and_given_decoded_assemble_alike(backend: ModuleType, path: Path) -> None:
    """The bytes take the quick path where a record adds a piece of text;
    records given decoded take the full one: both give one response."""
    data = path.read_bytes()
    records = backend.GeminiAssembler().feed_with_events(data)
    given = backend.GeminiAssembler()
    for record in records:
        given.feed_event(record)
    assert given.close() == assemble(backend, data).response
    # Records the quick path must leave alone: a field or a kind it does not
    # hold yet, a second candidate, a role of another type.
    odd = [
        {
            "candidates": [{"content": {"parts": [{"text": "a"}], "role": "model"}, "index": 0}],
            "modelVersion": "m",
        },
        {
            "candidates": [{"content": {"parts": [{"text": "b"}], "role": "model"}, "index": 0}],
            "modelVersion": 5,
        },
        {"candidates": [{"content": {"parts": [{"text": "c", "thought": True}], "role": 1}, "index": 0}]},
        {
            "candidates": [{"content": {"parts": [{"text": "d", "thought": True}]}, "index": 0}],
            "createTime": "t",
        },
        {"candidates": [{"content": {"parts": [{"text": ""}], "role": "user"}, "index": 1}]},
        {"candidates": [{"content": {"parts": [{"text": "e"}]}, "index": 1.0}]},
        {"candidates": [{"content": {"parts": [{"text": "f"}]}}], "usageMetadata": {"promptTokenCount": 1}},
        {"candidates": [{"content": {"parts": [{"text": "g"}]}}], "usageMetadata": 2},
    ]
    fed = backend.GeminiAssembler(on_error="skip")
    fed.feed(b"".join(b"data: " + json.dumps(record).encode() + b"\n\n" for record in odd))
    given = backend.GeminiAssembler(on_error="skip")
    for record in odd:
        given.feed_event(record)
    assert fed.close() == given.close()
    assert fed.errors == given.errors


def _comparable(record: dict[str, Any]) -> dict[str, Any]:
    """A record as google-genai's client gives it: through its converters
    and models, bytes in base64 of its alphabet."""
    converted = _GenerateContentResponse_from_mldev(record, None, None)
    response = genai_types.GenerateContentResponse._from_response(response=converted, kwargs={})
    return response.model_dump(mode="json", by_alias=True, exclude_none=True, exclude={"sdk_http_response"})


@pytest.mark.parametrize("path", STREAMS, ids=IDS)
def test_each_record_is_what_the_client_parses(backend: ModuleType, path: Path) -> None:
    """The records feed_with_events gives are those google-genai's client read
    from the same stream over HTTP; it raises at the error record."""
    recorded = judge(path)["client"]
    assembler = backend.GeminiAssembler()
    records = assembler.feed_with_events(path.read_bytes())
    if "raised" in recorded:
        error = records.pop()["error"]
        assert recorded["raised"] == {k: error[k] for k in ("code", "status", "message")}
    assert [_comparable(record) for record in records] == recorded["records"]


def test_signatures_are_kept_as_they_came(backend: ModuleType) -> None:
    """The client gives a signature in its own base64 alphabet; the response
    keeps the bytes the API sent, which both decode to."""
    path = FIXTURES / "gemini" / "text_signature.sse"
    part = assemble(backend, path.read_bytes()).response["candidates"][0]["content"]["parts"][0]
    client = judge(path)["client"]["records"][-1]["candidates"][0]["content"]["parts"][0]
    assert part["thoughtSignature"] != client["thoughtSignature"]
    assert base64.b64decode(part["thoughtSignature"]) == base64.urlsafe_b64decode(client["thoughtSignature"])


def test_streamed_arguments_are_readable_while_they_stream(backend: ModuleType) -> None:
    """Vertex AI's partialArgs: the call's args after each record are the
    arguments so far, a string cut where its piece ended."""
    data = (FIXTURES / "gemini" / "vertex_partial_args.sse").read_bytes().decode()
    records = [json.loads(line[6:]) for line in data.split("\r\n\r\n") if line]
    assembler = backend.GeminiAssembler()
    seen = []
    for record in records[:6]:
        assembler.feed_event(record)
        seen.append(assembler.response["candidates"][0]["content"]["parts"][0]["functionCall"]["args"])
    assert seen == [
        {},
        {"recipe": {"ingredients": [{"amount": "16 oz"}]}},
        {"recipe": {"ingredients": [{"amount": "16 oz"}]}},
        {"recipe": {"ingredients": [{"amount": "16 oz", "name": "Lasagna noodles"}]}},
        {"recipe": {"ingredients": [{"amount": "16 oz", "name": "Lasagna noodles"}]}},
        {"recipe": {"ingredients": [{"amount": "16 oz", "name": "Lasagna noodles"}, {"amount": "1 lb"}]}},
    ]


def _call(*args: dict[str, Any], more: bool = True, name: str | None = None) -> dict[str, Any]:
    call: dict[str, Any] = {"partialArgs": list(args)}
    if name is not None:
        call["name"] = name
    if more:
        call["willContinue"] = True
    return {"candidates": [{"content": {"role": "model", "parts": [{"functionCall": call}]}}]}


def test_bad_records_say_which_and_why_and_what_came_before_stands(backend: ModuleType) -> None:
    good = (FIXTURES / "gemini" / "text_signature.sse").read_bytes().split(b"\r\n\r\n")
    bad_records = [
        ({"candidates": {}}, "its candidates is a JSON object, not a list"),
        ({"candidates": [{"index": "0"}]}, "its candidates[0].index is a JSON string, not an integer"),
        ({"candidates": [{"index": 2**64}]}, "its candidates[0].index is out of range"),
        (
            {"candidates": [{"content": {"parts": [{"text": 5}]}}]},
            "its candidates[0].content.parts[0].text is a JSON number, not a string",
        ),
        (
            {
                "candidates": [
                    {"content": {"parts": [{"functionCall": {"partialArgs": [{"jsonPath": "$..a"}]}}]}}
                ]
            },
            "its candidates[0].content.parts[0].functionCall.partialArgs[0]: "
            'jsonPath "$..a" has an empty name at 1',
        ),
        (
            {
                "candidates": [
                    {"content": {"parts": [{"functionCall": {"partialArgs": [{"stringValue": "x"}]}}]}}
                ]
            },
            "its candidates[0].content.parts[0].functionCall.partialArgs[0].jsonPath "
            "is JSON null, not a string",
        ),
        ([1], "is a JSON array, not an object"),
    ]
    for record, problem in bad_records:
        line = b"data: " + json.dumps(record).encode()
        assembler = backend.GeminiAssembler()
        assembler.feed(b"\r\n\r\n".join(good[:2]) + b"\r\n\r\n")
        with pytest.raises(GeminiEventError) as caught:
            assembler.feed(line + b"\r\n\r\n")
        assert str(caught.value) == f"Gemini record 3 {problem}"
        assert caught.value.event == 3
        text = assembler.response["candidates"][0]["content"]["parts"][0]["text"]
        assert text.startswith('There are **3** "r"s in strawberry.')
        skipping = backend.GeminiAssembler(on_error="skip")
        skipping.feed(b"\r\n\r\n".join([*good[:2], line, *good[2:]]))
        assert skipping.close() == assemble(backend, b"\r\n\r\n".join(good)).response
        assert skipping.errors == [
            {"event": 3, "code": "invalid_event", "message": f"Gemini record 3 {problem}"}
        ]
    assert isinstance(caught.value, GeminiError)
    assert isinstance(caught.value, agentcodec.AgentCodecError)


def test_streamed_arguments_the_call_cannot_take_are_refused(backend: ModuleType) -> None:
    assembler = backend.GeminiAssembler(on_error="skip")
    assembler.feed_event(_call({"jsonPath": "$.a[0]", "numberValue": 1}, name="f"))
    for args, problem in [
        ({"jsonPath": "$.a[2]", "numberValue": 1}, "jsonPath gives index 2 where the next is 1"),
        (
            {"jsonPath": "$.a.b", "numberValue": 1},
            "jsonPath gives an name where the arguments hold no such container",
        ),
        ({"jsonPath": "$", "numberValue": 1}, "jsonPath $ names the arguments themselves, not one of them"),
    ]:
        assembler.feed_event(_call(args))
        assert (
            assembler.errors[-1]["message"]
            == f"Gemini record {assembler.event_count} its functionCall.partialArgs[0]: {problem}"
        )
    assembler.feed_event(_call({"jsonPath": "$.a[1]", "boolValue": True}, more=False))
    call = assembler.close()["candidates"][0]["content"]["parts"][0]["functionCall"]
    assert call == {"name": "f", "args": {"a": [1, True]}}


def test_a_record_past_max_event_bytes_is_refused_where_it_starts(backend: ModuleType) -> None:
    first = json.dumps(
        {"candidates": [{"content": {"parts": [{"text": "There are"}]}, "index": 0}]}, indent=2
    )
    large = json.dumps({"candidates": [{"content": {"parts": [{"text": "x" * 1000}]}, "index": 0}]}, indent=2)
    data = f"[{first},\r\n{large}]".encode()
    second = len(first) + 4
    assembler = backend.GeminiAssembler(max_event_bytes=len(first))
    with pytest.raises(SSELimitError) as caught:
        assembler.feed(data)
    assert (caught.value.limit, caught.value.offset, caught.value.subject) == (
        "max_event_bytes",
        second,
        "JSON array element",
    )
    assert assembler.close()["candidates"][0]["content"]["parts"][0]["text"].startswith("There are")


def test_the_run_decodes_with_its_time_usage_and_reasons(backend: ModuleType) -> None:
    decoder = backend.NeutralDecoder("gemini")
    events = decoder.feed((FIXTURES / "gemini" / "vertex_partial_args.sse").read_bytes()) + decoder.close()
    assert events[0] == {
        "type": "run_started",
        "run_id": "tjXVaYaxFISTq8YP_MWiyAo",
        "thread_id": None,
        "model": "gemini-3.1-pro-preview",
        "created_at": 1775580598,  # 2026-04-07T16:49:58.333958Z
    }
    started = events[2]
    assert (started["kind"], started["call_id"], started["name"]) == ("tool_call", "call_0", "cookRecipe")
    assert events[3]["encrypted_by"] == "gemini"
    arguments = "".join(event["delta"] for event in events if event["type"] == "block_delta")
    assert (
        json.loads(arguments)
        == judge(FIXTURES / "gemini" / "vertex_partial_args.sse")["response"]["candidates"][0]["content"][
            "parts"
        ][0]["functionCall"]["args"]
    )
    assert events[-2:] == [
        {
            "type": "message_finished",
            "message_id": "tjXVaYaxFISTq8YP_MWiyAo",
            "usage": None,
            "stop_reason": "stop",
        },
        {
            "type": "run_finished",
            "status": "completed",
            "usage": {
                "input_tokens": 31,
                "reasoning_tokens": 1026,
                "total_tokens": 1741,
                "output_tokens": 1710,
            },
            "result": None,
            "stop_reason": None,
        },
    ]
    decoder = backend.NeutralDecoder("gemini")
    events = decoder.feed((FIXTURES / "gemini" / "max_tokens.sse").read_bytes()) + decoder.close()
    assert events[-1]["status"] == "incomplete"
    assert events[-2]["stop_reason"] == "max_tokens"
    # A stream cut short leaves its run open.
    cut = (FIXTURES / "gemini" / "max_tokens.sse").read_bytes().split(b"\r\n\r\n")[0]
    decoder = backend.NeutralDecoder("gemini")
    assert all(event["type"] != "run_finished" for event in decoder.feed(cut + b"\r\n\r\n") + decoder.close())


@pytest.mark.parametrize(("source", "path"), SOURCES, ids=SOURCE_IDS)
def test_every_record_written_is_one_the_clients_models_take(
    backend: ModuleType, source: str, path: Path
) -> None:
    written = convert(backend, source, "gemini", path.read_bytes())
    assert written.endswith(b"\r\n\r\n") or not written, (source, path)
    records = [json.loads(event[6:]) for event in written.decode().split("\r\n\r\n") if event]
    for record in records:
        if "error" in record:
            assert record is records[-1]
            assert set(record["error"]) == {"code", "message", "status"}
            continue
        validated(record)
        assert record.get("modelVersion") == "m"


# The kinds of every protocol's error codes, and the HTTP status Gemini's
# errors say each with (google.rpc's: RESOURCE_EXHAUSTED is 429).
ERROR_KINDS = Words(tables("_vocabulary")["ERROR_CODE_KINDS"], (), ())
HTTP_CODES = {"rate_limit": 429, "unavailable": 503, "invalid_request": 400, "server_error": 500}


# Errors as the Gemini API sends them: each status with its HTTP code.
API_ERRORS = (
    ("INVALID_ARGUMENT", 400),
    ("FAILED_PRECONDITION", 400),
    ("UNAUTHENTICATED", 401),
    ("PERMISSION_DENIED", 403),
    ("NOT_FOUND", 404),
    ("RESOURCE_EXHAUSTED", 429),
    ("INTERNAL", 500),
    ("UNAVAILABLE", 503),
    ("DEADLINE_EXCEEDED", 504),
)


@pytest.mark.parametrize(("status", "http"), API_ERRORS)
def test_an_error_written_back_keeps_the_http_code_of_its_status(
    backend: ModuleType, status: str, http: int
) -> None:
    """Gemini's error record read and written again carries its status and
    the HTTP code the API gives it, by which google-genai raises a client or
    a server error. (A status of no kind was written with 500: a missing
    model read back as a server error.)"""
    sent = {"error": {"code": http, "message": "m", "status": status}}
    stream = f"data: {json.dumps(sent)}\n\n".encode()
    transcoder = backend.Transcoder("gemini", "gemini", **OPTIONS["gemini"])
    written = transcoder.feed(stream) + transcoder.close()
    assert assemble(backend, written).response["error"] == sent["error"]
    assert transcoder.losses == []


def test_a_server_writes_data_lines_alone_and_takes_no_store() -> None:
    """google-genai's reader takes any line but ``data:`` for JSON: a
    keep-alive comment or an event id broke every client mid-stream. So a
    server writes neither: no pings, and no store to resume from."""
    from agentcodec.server import EventStreamResponse, MemoryReplayStore

    assert EventStreamResponse([], protocol="gemini").ping_interval is None
    with pytest.raises(ValueError, match=r"^gemini streams have no event ids to resume after"):
        EventStreamResponse([], protocol="gemini", store=MemoryReplayStore())


def test_the_client_reads_what_a_server_writes_over_http(backend: ModuleType) -> None:
    """Every other protocol's recorded stream, converted to Gemini's records
    as it streams and served by EventStreamResponse on loopback:
    google-genai's generate_content_stream reads each, and raises at a
    failure the error its code's kind calls for: a throttle a client error
    (429), an overload a server error it retries (503), whatever protocol's
    words the code was in, with a status of google.rpc's codes."""
    from google.rpc import code_pb2  # googleapis-common-protos, beside google-genai
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.routing import Route

    from agentcodec.server import EventStreamResponse
    from servers import serve

    sources = {f"{source}--{path.stem}": (source, path.read_bytes()) for source, path in SOURCES}
    statuses = set(code_pb2.Code.keys())

    def converted(source: str, stream: bytes) -> Iterator[bytes]:
        transcoder = backend.Transcoder(source, "gemini", **OPTIONS["gemini"])
        for at in range(0, len(stream), 997):
            yield transcoder.feed(stream[at : at + 997])
        yield transcoder.close()

    async def stream(request: Request) -> EventStreamResponse:
        source, body = sources[request.path_params["model"].split(":")[0]]
        return EventStreamResponse(converted(source, body), protocol="gemini")

    app = Starlette(routes=[Route("/{version}/models/{model}", stream, methods=["POST"])])
    with serve(app) as url:
        client = genai.Client(api_key="k", http_options=genai_types.HttpOptions(base_url=url))
        for name, (source, body) in sources.items():
            response = assemble(backend, convert(backend, source, "gemini", body)).response
            if "error" in response:
                with pytest.raises(genai_errors.APIError) as caught:
                    list(client.models.generate_content_stream(model=name, contents="hi"))
                assert caught.value.message == response["error"]["message"], name
                failed = conversion.view(backend, source, body)["error"] or {}
                http = HTTP_CODES.get(ERROR_KINDS.kind(failed.get("code") or ""), 500)
                assert caught.value.code == http, name
                raised = genai_errors.ClientError if http < 500 else genai_errors.ServerError
                assert isinstance(caught.value, raised), name
                assert caught.value.status in statuses, name
                continue
            chunks = list(client.models.generate_content_stream(model=name, contents="hi"))
            # Each candidate's parts, by its index (two subgraphs' answers
            # streaming at once are two candidates).
            parts: dict[int, list[Any]] = {}
            for chunk in chunks:
                for candidate in chunk.candidates or ():
                    parts.setdefault(candidate.index or 0, []).extend(candidate.content.parts or ())
            expected_parts: dict[int, list[dict[str, Any]]] = {}
            for candidate in response.get("candidates", ()):
                expected_parts.setdefault(candidate.get("index", 0), []).extend(candidate["content"]["parts"])
            texts = {
                index: "".join(part.text or "" for part in held if not part.thought)
                for index, held in parts.items()
            }
            expected = {
                index: "".join(part.get("text", "") for part in held if not part.get("thought"))
                for index, held in expected_parts.items()
            }
            assert {index: text for index, text in texts.items() if text} == {
                index: text for index, text in expected.items() if text
            }, name
            calls = [
                part.function_call.args
                for _, held in sorted(parts.items())
                for part in held
                if part.function_call
            ]
            expected_calls = [
                part["functionCall"]["args"]
                for _, held in sorted(expected_parts.items())
                for part in held
                if "functionCall" in part
            ]
            assert calls == expected_calls, name


def test_the_client_helpers_read_both_framings(backend: ModuleType) -> None:
    """``connect(..., protocol="gemini")`` reads the SSE of ``alt=sse`` and
    the JSON array the API answers without it, in any chunking."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response, StreamingResponse
    from starlette.routing import Route

    from agentcodec import client
    from servers import serve

    async def stream(request: Request) -> Response:
        name = request.path_params["model"].split(":")[0]
        sse = request.query_params.get("alt") == "sse"
        body = (FIXTURES / "gemini" / f"{name}.{'sse' if sse else 'array'}").read_bytes()
        chunks = iter([body[i : i + 7] for i in range(0, len(body), 7)])
        return StreamingResponse(chunks, media_type="text/event-stream" if sse else "application/json")

    app = Starlette(routes=[Route("/v1beta/models/{model}", stream, methods=["POST"])])
    with serve(app) as url, httpx.Client() as http:
        for path in ARRAYS:
            for query in ("?alt=sse", ""):
                target = f"{url}/v1beta/models/{path.stem}:streamGenerateContent{query}"
                with client.connect(http, "POST", target, protocol="gemini", json={}) as events:
                    records = list(events)
                    try:
                        response = events.until_done()
                    except GeminiError:
                        response = events.assembler.response
                assert response == judge(path)["response"], (path, query)
                assert len(records) == len(path.with_suffix(".sse").read_bytes().split(b"\r\n\r\n")) - 1
