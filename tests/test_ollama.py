"""Ollama's /api/chat and /api/generate, on both backends, judged by what
Ollama's server answers without streaming (tests/fixtures/ollama/, written by
scripts/ollama_fixtures.py after its source) and by the ollama client: its
models validate what agentcodec writes, and it reads those streams from a
server on loopback."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest

import agentcodec
import conversion
from agentcodec import OllamaError, OllamaEventError, SSELimitError
from agentcodec.ollama import MEDIA_TYPE
from conversion import OPTIONS, SOURCE_IDS, SOURCES, convert
from protocol_table import FIXTURES
from sse_helpers import as_sse

ollama = pytest.importorskip("ollama")

STREAMS = sorted((FIXTURES / "ollama").glob("*.ndjson"))
IDS = [path.stem for path in STREAMS]


def judge(path: Path) -> dict[str, Any]:
    return json.loads(path.with_suffix(".json").read_text())  # type: ignore[no-any-return]


def assemble(backend: ModuleType, data: bytes, chunk: int | None = None, **options: Any) -> Any:
    return conversion.assemble(backend.OllamaAssembler(**options), data, chunk)


@pytest.mark.parametrize("path", STREAMS, ids=IDS)
def test_the_answer_is_the_servers_answer_without_streaming(backend: ModuleType, path: Path) -> None:
    recorded = judge(path)
    expected = recorded["answer"]
    assembler = assemble(backend, path.read_bytes())
    answer = assembler.answer
    if "error" in expected:
        # The server answers an error alone; what came before it stands here.
        assert answer["error"] == expected["error"]
        assert answer["message"]["content"] == "Partial answer"
        assert assembler.errors == [{"event": 3, "code": "error", "message": expected["error"]}]
        return
    assert answer == expected
    assert assembler.errors == []
    assert assembler.done
    # The client's models take it.
    model = ollama.ChatResponse if recorded["endpoint"] == "chat" else ollama.GenerateResponse
    model.model_validate(answer)


@pytest.mark.parametrize("path", STREAMS, ids=IDS)
@pytest.mark.parametrize("chunk", [1, 3, 64])
def test_any_chunking_and_sse_framing_give_the_same_answer(
    backend: ModuleType, path: Path, chunk: int
) -> None:
    data = path.read_bytes()
    whole = assemble(backend, data).answer
    assert assemble(backend, data, chunk).answer == whole
    assert assemble(backend, as_sse(data), chunk).answer == whole
    # CRLF line ends, a BOM, blank lines and no final newline.
    windows = b"\xef\xbb\xbf\r\n" + data.replace(b"\n", b"\r\n\r\n").rstrip(b"\r\n")
    assert assemble(backend, windows, chunk).answer == whole


def test_a_line_is_split_at_lf_alone_where_the_client_breaks(backend: ModuleType) -> None:
    """Ollama writes U+0085 raw inside a string; the ollama client splits
    lines at it too and raises (recorded), where a line ends at LF alone."""
    path = FIXTURES / "ollama" / "chat_line_breaks.ndjson"
    assert b"\xc2\x85" in path.read_bytes()
    assert judge(path)["client"] == {"raised": "JSONDecodeError"}
    answer = assemble(backend, path.read_bytes(), 5).answer
    assert (
        answer["message"]["content"]
        == "Next\x85line, line\u2028separator, paragraph\u2029separator, CR\rLF\n."
    )


@pytest.mark.parametrize("path", STREAMS, ids=IDS)
def test_each_line_is_what_the_client_parses(backend: ModuleType, path: Path) -> None:
    """The lines feed_with_events gives are those the ollama client read
    from the same stream over HTTP (its models drop no field we keep)."""
    recorded = judge(path)["client"]
    assembler = backend.OllamaAssembler()
    lines = assembler.feed_with_events(path.read_bytes())
    if isinstance(recorded, dict):
        # The client raised: on an error line, its error; on U+0085, a broken line.
        if "error" in recorded:
            assert lines[-1] == recorded
        return
    model = ollama.ChatResponse if "message" in lines[0] else ollama.GenerateResponse
    assert [model.model_validate(line).model_dump(exclude_none=True) for line in lines] == recorded


def test_a_non_streamed_answer_reads_as_itself(backend: ModuleType) -> None:
    """``stream: false`` answers with the whole answer as one JSON body: one line."""
    expected = judge(FIXTURES / "ollama" / "chat_tools.ndjson")["answer"]
    body = json.dumps(expected, indent=2).encode()  # pretty-printed is no NDJSON
    assert assemble(backend, json.dumps(expected).encode()).answer == expected
    with pytest.raises(OllamaEventError, match=r"^Ollama line 1 is not valid JSON"):
        assemble(backend, body)


def test_bad_lines_say_which_and_why_and_what_came_before_stands(backend: ModuleType) -> None:
    good = (FIXTURES / "ollama" / "chat_answer.ndjson").read_bytes().splitlines(keepends=True)
    bad_lines = [
        (b'{"model":"m","message":"hi","done":false}\n', "its message is a JSON string, not an object"),
        (
            b'{"model":"m","message":{"content":5},"done":false}\n',
            "its message.content is a JSON number, not a string",
        ),
        (
            b'{"model":"m","response":"x","tool_calls":{},"done":false}\n',
            "its tool_calls is a JSON object, not a list",
        ),
        (b"[1]\n", "is a JSON array, not an object"),
    ]
    for line, problem in bad_lines:
        assembler = backend.OllamaAssembler()
        assembler.feed(b"".join(good[:2]))
        with pytest.raises(OllamaEventError) as caught:
            assembler.feed(line)
        assert str(caught.value) == f"Ollama line 3 {problem}"
        assert caught.value.event == 3
        assert assembler.answer["message"]["thinking"] == "The user greets; "
        skipping = backend.OllamaAssembler(on_error="skip")
        skipping.feed(b"".join(good[:2]) + line + b"".join(good[2:]))
        assert skipping.close() == assemble(backend, b"".join(good)).answer
        assert skipping.errors == [
            {"event": 3, "code": "invalid_event", "message": f"Ollama line 3 {problem}"}
        ]
    # Nothing follows the done line.
    assembler = backend.OllamaAssembler()
    assembler.feed(b"".join(good))
    with pytest.raises(OllamaEventError, match=r"^Ollama line 12 comes after the done line$"):
        assembler.feed(good[1])
    assert isinstance(caught.value, OllamaError)
    assert isinstance(caught.value, agentcodec.AgentCodecError)


def test_a_line_past_max_line_bytes_is_refused_where_it_starts(backend: ModuleType) -> None:
    data = (FIXTURES / "ollama" / "chat_answer.ndjson").read_bytes()
    first = data.index(b"\n") + 1
    assembler = backend.OllamaAssembler(max_line_bytes=first - 1)
    long = b'{"model":"m","message":{"role":"assistant","content":"' + b"x" * first + b'"},"done":false}\n'
    assembler.feed(data[:first])
    with pytest.raises(SSELimitError) as caught:
        assembler.feed(long)
    assert str(caught.value) == (
        f"NDJSON line exceeds max_line_bytes={first - 1} at the line starting at byte offset {first}"
    )
    assert (caught.value.limit, caught.value.offset, caught.value.subject) == (
        "max_line_bytes",
        first,
        "NDJSON line",
    )
    assert assembler.close()["message"]["thinking"] == "The user "


def test_the_run_decodes_with_its_time_usage_and_reason(backend: ModuleType) -> None:
    decoder = backend.NeutralDecoder("ollama")
    events = decoder.feed((FIXTURES / "ollama" / "chat_length.ndjson").read_bytes()) + decoder.close()
    assert events[0] == {
        "type": "run_started",
        "run_id": None,
        "thread_id": None,
        "model": "qwen3:0.6b",
        "created_at": 1795165200,  # 2026-11-20T10:00:00+01:00
    }
    assert events[-2:] == [
        {"type": "message_finished", "message_id": "ollama-message", "usage": None, "stop_reason": "length"},
        {
            "type": "run_finished",
            "status": "incomplete",
            "usage": {"input_tokens": 26, "output_tokens": 57, "total_tokens": 83},
            "result": None,
            "stop_reason": None,
        },
    ]


@pytest.mark.parametrize("endpoint", ["chat", "generate"])
@pytest.mark.parametrize(("source", "path"), SOURCES, ids=SOURCE_IDS)
def test_every_line_written_is_one_the_clients_models_take(
    backend: ModuleType, source: str, path: Path, endpoint: str
) -> None:
    transcoder = backend.Transcoder(source, "ollama", **{**OPTIONS["ollama"], "endpoint": endpoint})
    written = transcoder.feed(path.read_bytes()) + transcoder.close()
    lines = [json.loads(line) for line in written.splitlines()]
    assert lines, (source, path)
    model = ollama.ChatResponse if endpoint == "chat" else ollama.GenerateResponse
    for line in lines:
        if set(line) == {"error"}:
            assert line is lines[-1]
            continue
        model.model_validate(line)
        assert line["model"] == "m"
    # Read back: a failed run's error line is the one error.
    failed = [{"event": len(lines), "code": "error", "message": lines[-1].get("error")}]
    assert assemble(backend, written).errors == (failed if "error" in lines[-1] else [])


def test_the_client_reads_what_a_server_writes_over_http(backend: ModuleType) -> None:
    """Every other protocol's recorded stream, converted to /api/chat's lines
    as it streams and served by EventStreamResponse on loopback:
    ollama.Client(...).chat(stream=True) reads each, as NDJSON."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.routing import Route

    from agentcodec.server import EventStreamResponse
    from servers import serve

    sources = {f"{source}:{path.stem}": (source, path.read_bytes()) for source, path in SOURCES}

    def converted(source: str, stream: bytes) -> Iterator[bytes]:
        transcoder = backend.Transcoder(source, "ollama", **OPTIONS["ollama"])
        for at in range(0, len(stream), 997):
            yield transcoder.feed(stream[at : at + 997])
        yield transcoder.close()

    async def chat(request: Request) -> EventStreamResponse:
        source, stream = sources[(await request.json())["model"]]
        return EventStreamResponse(converted(source, stream), protocol="ollama")

    with serve(Starlette(routes=[Route("/api/chat", chat, methods=["POST"])])) as url:
        client = ollama.Client(host=url)
        for name, (source, stream) in sources.items():
            answer = assemble(backend, convert(backend, source, "ollama", stream)).answer
            request = {"model": name, "messages": [{"role": "user", "content": "hi"}], "stream": True}
            if "error" in answer:
                with pytest.raises(ollama.ResponseError) as caught:
                    list(client.chat(**request))
                assert caught.value.error == answer["error"], name
                continue
            parts = list(client.chat(**request))
            assert "".join(part.message.content or "" for part in parts) == answer["message"]["content"], name
            thinking = "".join(part.message.thinking or "" for part in parts)
            assert thinking == answer["message"].get("thinking", ""), name
            calls = [call.function.arguments for part in parts for call in part.message.tool_calls or ()]
            expected = [call["function"]["arguments"] for call in answer["message"].get("tool_calls", ())]
            assert calls == expected, name
            assert parts[-1].done is answer["done"], name
        with httpx.stream("POST", f"{url}/api/chat", json={"model": name}) as response:
            assert response.headers["content-type"] == "application/x-ndjson"
            assert b"".join(response.iter_bytes()).endswith(b"}\n")


def test_a_server_writes_no_keep_alive_and_takes_no_store() -> None:
    from agentcodec.server import EventStreamResponse, MemoryReplayStore

    assert EventStreamResponse([], protocol="ollama").ping_interval is None
    with pytest.raises(ValueError, match=r"^ollama streams have no event ids to resume after"):
        EventStreamResponse([], protocol="ollama", store=MemoryReplayStore())


def test_the_client_helpers_read_ollamas_streams(backend: ModuleType) -> None:
    """``connect(..., protocol="ollama")`` asks for NDJSON and reads it as
    Ollama sends it, in any chunking; a JSON body is refused as no stream."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response, StreamingResponse
    from starlette.routing import Route

    from agentcodec import SSEError, client
    from servers import serve

    accepted: list[str | None] = []

    async def chat(request: Request) -> Response:
        accepted.append(request.headers.get("accept"))
        name = (await request.json())["model"]
        body = (FIXTURES / "ollama" / f"{name}.ndjson").read_bytes()
        if name == "chat_tools" and request.query_params.get("stream") == "false":
            return Response(json.dumps(judge(FIXTURES / "ollama" / "chat_tools.ndjson")["answer"]))
        return StreamingResponse(
            iter([body[i : i + 7] for i in range(0, len(body), 7)]), media_type=MEDIA_TYPE
        )

    with serve(Starlette(routes=[Route("/api/chat", chat, methods=["POST"])])) as url, httpx.Client() as http:
        for path in STREAMS:
            with client.connect(
                http, "POST", f"{url}/api/chat", protocol="ollama", json={"model": path.stem}
            ) as stream:
                lines = list(stream)
                answer = stream.until_done()
            assert answer == assemble(backend, path.read_bytes()).answer
            assert len(lines) == len(path.read_bytes().splitlines())
        assert set(accepted) == {MEDIA_TYPE}
        refused = pytest.raises(SSEError, match="expected a response of Content-Type 'application/x-ndjson'")
        body = {"model": "chat_tools"}
        with (
            refused,
            client.connect(http, "POST", f"{url}/api/chat?stream=false", protocol="ollama", json=body),
        ):
            pass


def _beside(words: int) -> list[dict[str, Any]]:
    """Two subgraphs' answers at once: ``m1`` streams while ``m2``, beside
    it, streams ``words`` words before ``m1`` ends (so all of ``m2`` waits)."""
    run: list[dict[str, Any]] = [{"type": "run_started", "run_id": "r"}]
    for message_id, namespace in (("m1", ["a:1"]), ("m2", ["b:2"])):
        run += [
            {
                "type": "message_started",
                "message_id": message_id,
                "role": "assistant",
                "namespace": namespace,
            },
            {"type": "block_started", "message_id": message_id, "index": 0, "kind": "text"},
        ]
    run += [{"type": "block_delta", "message_id": "m2", "index": 0, "delta": f"é{n} "} for n in range(words)]
    run.append({"type": "block_delta", "message_id": "m1", "index": 0, "delta": "first"})
    for message_id in ("m1", "m2"):
        run += [
            {"type": "block_finished", "message_id": message_id, "index": 0},
            {"type": "message_finished", "message_id": message_id},
        ]
    return [*run, {"type": "run_finished", "status": "completed"}]


@pytest.mark.parametrize("limit", [None, 10_000, 2_000, 0])
def test_a_message_held_back_past_max_held_bytes_is_left_out_and_reported(
    backend: ModuleType, limit: int | None
) -> None:
    """An answer is one message, so one streaming beside another waits until
    that one ends. What waits is bounded: a message that would be held past
    ``max_held_bytes`` (64 MiB by default) is left out, whole, and the loss
    says so; one within it is written after the first."""
    options = {} if limit is None else {"max_held_bytes": limit}
    encoder = backend.NeutralEncoder("ollama", **options)
    stream = b"".join(encoder.encode(event) for event in _beside(100)) + encoder.close()
    content = assemble(backend, stream).close()["message"]["content"]
    held = "".join(f"é{n} " for n in range(100))
    if limit is None or limit == 10_000:
        assert content == "first" + held
        assert [loss for loss in encoder.losses if loss["what"] == "message"] == []
    else:
        assert content == "first"
        assert [(loss["what"], loss["why"]) for loss in encoder.losses if loss["what"] == "message"] == [
            (
                "message",
                "ollama writes one message at a time: a message streaming beside another "
                f"would be held back past max_held_bytes ({limit}), and is left out",
            )
        ]


def test_what_is_held_is_counted_alike_on_both_backends(backend: ModuleType) -> None:
    """The size of what is held back, as documented: each value 1, and each
    string (key or value) its UTF-8 bytes besides. ``m2`` fits in exactly
    that many bytes, and not in one fewer, on both backends."""

    def size(value: Any) -> int:
        if isinstance(value, str):
            return 1 + len(value.encode())
        if isinstance(value, dict):
            return 1 + sum(len(key.encode()) + size(item) for key, item in value.items())
        if isinstance(value, list):
            return 1 + sum(size(item) for item in value)
        return 1

    run = _beside(40)
    # Held: m2's start, its block's start and its words, until m1 ends.
    held = [event for event in run if event.get("message_id") == "m2"][: 2 + 40]
    needed = sum(size(event) for event in held)
    for limit, kept in ((needed, True), (needed - 1, False)):
        encoder = backend.NeutralEncoder("ollama", max_held_bytes=limit)
        stream = b"".join(encoder.encode(event) for event in run) + encoder.close()
        content = assemble(backend, stream).close()["message"]["content"]
        assert content.endswith("é39 ") is kept, limit
