"""Writes tests/fixtures/ollama/: Ollama streams as its server writes them, and
what the server answers the same request without streaming, for the Ollama
protocol's reader to be judged by.

Ollama is a Go binary, not a Python package: the streams are written here the
way its server writes them (ollama/ollama ``server/routes.go`` and
``api/types.go``): a line per ``ChatResponse`` (``GenerateResponse``), its
fields in the struct's order, empty optional fields left out, ``content``
always there, ``created_at`` in the server's local time with nanoseconds,
``done_reason: stop`` even after tool calls, tool calls with an ``id`` and a
``function.index``, and JSON written by Go's encoder (``<``, ``>`` and ``&``
escaped, U+2028 and U+2029 escaped, U+0085 left raw). A failed stream ends
with an ``{"error": ...}`` line.

Each stream's judge (``<name>.json``) holds what the ollama client parses from
every line (its ``ChatResponse`` / ``GenerateResponse`` models, read over HTTP
from a server on loopback, as ``ollama.Client(...).chat(stream=True)`` does),
and the answer the server gives without streaming, built by the rule of
``writeChatResponse`` / ``GenerateHandler``: the last line's fields, the text
joined, the tool calls and log probabilities gathered (a failed stream's
answer is the error alone), validated by the client's models.

    .venv-dev/bin/pip install ollama uvicorn starlette
    .venv-dev/bin/python scripts/ollama_fixtures.py
"""

from __future__ import annotations

import json
import socket
import threading
import time
from pathlib import Path
from typing import Any

import ollama
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

OUT = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "ollama"
MODEL = "qwen3:0.6b"


def go_json(value: Any) -> str:
    """JSON as Go's encoding/json writes it (HTML-safe, U+2028/9 escaped)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    for raw, escaped in (
        ("<", "\\u003c"),
        (">", "\\u003e"),
        ("&", "\\u0026"),
        ("\u2028", "\\u2028"),
        ("\u2029", "\\u2029"),
    ):
        text = text.replace(raw, escaped)
    return text


def stamp(n: int) -> str:
    """The server's time of a line: local time (UTC+01:00), nanoseconds."""
    return f"2026-11-20T10:00:{n:02d}.{123456789 + n * 1000:09d}+01:00"


METRICS = {
    "total_duration": 1_843_205_125,
    "load_duration": 41_206_500,
    "prompt_eval_count": 26,
    "prompt_eval_duration": 112_004_000,
    "eval_count": 57,
    "eval_duration": 1_688_351_000,
}


def chat_line(n: int, message: dict[str, Any], **after: Any) -> dict[str, Any]:
    """A line of /api/chat: ``message`` (role, content always, then the rest)."""
    body = {"role": "assistant", "content": message.pop("content", ""), **message}
    return {"model": MODEL, "created_at": stamp(n), "message": body, "done": False, **after}


def done_chat(n: int, reason: str = "stop") -> dict[str, Any]:
    line = chat_line(n, {})
    line.update(done=True, done_reason=reason, **METRICS)
    return line


def generate_line(n: int, response: str, **fields: Any) -> dict[str, Any]:
    return {"model": MODEL, "created_at": stamp(n), "response": response, **fields, "done": False}


def tool_call(call_id: str, index: int, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"id": call_id, "function": {"index": index, "name": name, "arguments": arguments}}


def _answer_lines() -> list[dict[str, Any]]:
    thinking = ["The user ", "greets; ", "answer <briefly> & kindly."]
    content = ["Hello", "! A ", "naïve ", "answer: ", "数据 ", "🙂 ", "<b>bold</b> & more."]
    lines = [chat_line(i, {"thinking": piece}) for i, piece in enumerate(thinking)]
    lines += [chat_line(len(lines) + i, {"content": piece}) for i, piece in enumerate(content)]
    return [*lines, done_chat(len(lines))]


def _tools_lines() -> list[dict[str, Any]]:
    return [
        chat_line(0, {"thinking": "Two cities: two calls."}),
        chat_line(
            1,
            {
                "tool_calls": [
                    tool_call("call_0x9f2a", 0, "get_weather", {"city": "Zürich", "unit": "celsius"}),
                    tool_call("call_1b7c3d", 1, "get_weather", {"city": "東京", "days": 3}),
                ]
            },
        ),
        chat_line(2, {"tool_calls": [tool_call("call_2e8f41", 2, "get_time", {"zone": "Europe/Zurich"})]}),
        done_chat(3),
    ]


def _length_lines() -> list[dict[str, Any]]:
    pieces = ["It all ", "began ", "on a ", "stormy"]
    return [*(chat_line(i, {"content": piece}) for i, piece in enumerate(pieces)), done_chat(4, "length")]


def _error_lines() -> list[dict[str, Any]]:
    return [
        chat_line(0, {"content": "Partial "}),
        chat_line(1, {"content": "answer"}),
        {"error": "an error was encountered while running the model: unexpected EOF"},
    ]


def _line_breaks_lines() -> list[dict[str, Any]]:
    pieces = ["Next\u0085line, ", "line\u2028separator, ", "paragraph\u2029separator, ", "CR\rLF\n."]
    return [*(chat_line(i, {"content": piece}) for i, piece in enumerate(pieces)), done_chat(4)]


def _logprobs_lines() -> list[dict[str, Any]]:
    tokens = [("Yes", -0.01), (".", -0.2)]
    lines = [
        chat_line(
            i,
            {"content": token},
            logprobs=[
                {"token": token, "logprob": logprob, "top_logprobs": [{"token": token, "logprob": logprob}]}
            ],
        )
        for i, (token, logprob) in enumerate(tokens)
    ]
    return [*lines, done_chat(2)]


def _generate_lines() -> list[dict[str, Any]]:
    lines = [generate_line(0, "", thinking="Count to three."), generate_line(1, "", thinking=" Easy.")]
    lines += [generate_line(2 + i, piece) for i, piece in enumerate(["One, ", "two, ", "three — ", "done."])]
    last = generate_line(6, "")
    last.update(done=True, done_reason="stop", context=[151644, 872, 198, 2507, 311], **METRICS)
    return [*lines, last]


RUNS: dict[str, tuple[str, Any]] = {
    "chat_answer": ("chat", _answer_lines),
    "chat_tools": ("chat", _tools_lines),
    "chat_length": ("chat", _length_lines),
    "chat_error": ("chat", _error_lines),
    "chat_line_breaks": ("chat", _line_breaks_lines),
    "chat_logprobs": ("chat", _logprobs_lines),
    "generate_answer": ("generate", _generate_lines),
}


def server_answer(lines: list[dict[str, Any]], endpoint: str) -> dict[str, Any]:
    """What the server answers without streaming (``writeChatResponse`` and
    ``GenerateHandler``): the last line, its text fields joined over every
    line, the tool calls and log probabilities gathered; an error alone."""
    answer: dict[str, Any] = {}
    texts: dict[str, list[str]] = {"content": [], "thinking": [], "response": []}
    calls: list[Any] = []
    logprobs: list[Any] = []
    for line in lines:
        if "error" in line:
            return {"error": line["error"]}
        answer = json.loads(json.dumps(line))
        fields = line.get("message", line)
        for key, pieces in texts.items():
            pieces.append(fields.get(key, ""))
        calls += fields.get("tool_calls", [])
        logprobs += line.get("logprobs", [])
    fields = answer["message"] if endpoint == "chat" else answer
    fields["content" if endpoint == "chat" else "response"] = "".join(
        texts["content" if endpoint == "chat" else "response"]
    )
    if "".join(texts["thinking"]):
        fields["thinking"] = "".join(texts["thinking"])
    # /api/generate keeps the last line's tool calls (GenerateHandler gathers none).
    if calls and endpoint == "chat":
        fields["tool_calls"] = calls
    if logprobs:
        answer["logprobs"] = logprobs
    return answer


def serve(bodies: dict[str, bytes]) -> tuple[uvicorn.Server, str]:
    """A server on loopback answering /api/chat and /api/generate with the
    body its request's model names (the run's name)."""

    async def handle(request: Request) -> Response:
        run = (await request.json())["model"]
        return StreamingResponse(iter([bodies[run]]), media_type="application/x-ndjson")

    app = Starlette(
        routes=[
            Route("/api/chat", handle, methods=["POST"]),
            Route("/api/generate", handle, methods=["POST"]),
        ]
    )
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.01)
    return server, f"http://127.0.0.1:{port}"


def client_reads(url: str, run: str, endpoint: str) -> list[dict[str, Any]] | dict[str, str]:
    """What the ollama client yields for a stream, as plain dicts; the error it raises."""
    client = ollama.Client(host=url)
    try:
        if endpoint == "chat":
            parts = client.chat(model=run, messages=[{"role": "user", "content": "hi"}], stream=True)
        else:
            parts = client.generate(model=run, prompt="hi", stream=True)
        return [part.model_dump(exclude_none=True) for part in parts]
    except ollama.ResponseError as err:
        return {"error": err.error}
    except Exception as err:  # what a stream the client cannot read raises
        return {"raised": type(err).__name__}


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    streams = {name: (endpoint, make()) for name, (endpoint, make) in RUNS.items()}
    bodies = {
        name: "".join(go_json(line) + "\n" for line in lines).encode() for name, (_, lines) in streams.items()
    }
    server, url = serve(bodies)
    try:
        for name, (endpoint, lines) in streams.items():
            answer = server_answer(lines, endpoint)
            model = ollama.ChatResponse if endpoint == "chat" else ollama.GenerateResponse
            if "error" not in answer:
                model.model_validate(answer)
            judge = {"endpoint": endpoint, "client": client_reads(url, name, endpoint), "answer": answer}
            (OUT / f"{name}.ndjson").write_bytes(bodies[name])
            (OUT / f"{name}.json").write_text(json.dumps(judge, ensure_ascii=False, indent=1) + "\n")
            print(f"{name}: {len(lines)} lines")
    finally:
        server.should_exit = True


if __name__ == "__main__":
    main()
