"""Writes tests/fixtures/gemini/: Gemini ``streamGenerateContent`` streams as
the API writes them, and the response ``generateContent`` gives the same
request, for the Gemini protocol's reader to be judged by.

The API is a service, not a package: the streams are written here in the
shapes it sends (recorded streams of Gemini 2.5 and 3 and of Vertex AI, as
published by the SDKs that read them): ``data: <record>`` and CRLF twice with
``alt=sse``; without it, one JSON array, each record pretty-printed and the
records separated by ``,`` and CRLF. Each record is a whole
``GenerateContentResponse`` holding the newest piece of each candidate, with
the running ``usageMetadata``, ``modelVersion`` and ``responseId``. What the
streams hold that a reader must get right:
- Gemini 3 ends its text with an empty text part that carries the
  ``thoughtSignature``; a function call carries its signature on its part,
  and the stream then ends with an empty text part and the ``finishReason``;
- thought summaries (``thought: true``) stream before the answer;
- Vertex AI streams a function call's arguments as ``partialArgs`` (JSONPath,
  value, ``willContinue``) in parts that name no function, ended by a part
  whose call says nothing more;
- several candidates interleave, each by its ``index``; safety ratings and
  citations come with the pieces they rate; an image comes whole as
  ``inlineData``;
- a failed stream ends with an ``{"error": {...}}`` record.

Each stream's judge (``<name>.json``) holds what google-genai's client
parses from every record (its ``GenerateContentResponse`` models, read over
HTTP from a server on loopback, as ``client.models.generate_content_stream``
does), or the error it raises; and the response ``generateContent`` answers
the same request with, written out here by hand (the text of a part joined,
the signature on the part it ends, calls whole, no empty parts), validated by
google-genai's models, which refuse a field they do not know.

    .venv-dev/bin/pip install google-genai uvicorn starlette
    .venv-dev/bin/python scripts/gemini_fixtures.py
"""

from __future__ import annotations

import base64
import hashlib
import json
import socket
import threading
import time
from pathlib import Path
from typing import Any

import uvicorn
from google import genai
from google.genai import errors, types
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

OUT = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "gemini"
# The streams written as a JSON array too (the form without alt=sse).
AS_ARRAY = ("text_signature", "vertex_partial_args", "error")


def usage(prompt: int, candidates: int | None = None, thoughts: int | None = None) -> dict[str, Any]:
    """A running usageMetadata as the API writes it."""
    metadata: dict[str, Any] = {"promptTokenCount": prompt}
    if candidates is not None:
        metadata["candidatesTokenCount"] = candidates
    metadata["totalTokenCount"] = prompt + (candidates or 0) + (thoughts or 0)
    metadata["promptTokensDetails"] = [{"modality": "TEXT", "tokenCount": prompt}]
    if thoughts is not None:
        metadata["thoughtsTokenCount"] = thoughts
    return metadata


def record(
    parts: list[dict[str, Any]] | None,
    *,
    model: str,
    response_id: str,
    index: int | None = 0,
    metadata: dict[str, Any] | None = None,
    **candidate: Any,
) -> dict[str, Any]:
    """A record of one candidate: its content's newest parts, then its fields."""
    held: dict[str, Any] = {}
    if parts is not None:
        held["content"] = {"parts": parts, "role": "model"}
    held.update(candidate)
    if index is not None:
        held["index"] = index
    out: dict[str, Any] = {"candidates": [held]}
    if metadata is not None:
        out["usageMetadata"] = metadata
    out["modelVersion"] = model
    out["responseId"] = response_id
    return out


def signature(seed: str) -> str:
    """An opaque signature as the API writes one: base64 of bytes."""
    return base64.b64encode(hashlib.sha256(seed.encode()).digest() * 4).decode()


SIGNATURE = signature("text")
CALL_SIGNATURE = signature("call")


def text_signature() -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Gemini 3: text in pieces, then an empty part carrying the signature."""
    model, rid = "gemini-3-pro-preview", "M3iLaY-AI7zTxN8P3Piw4Qg"
    pieces = ['There are **3** "r"s in strawberry.\n\n', "St**r**awbe**rr**y — ", "naïve 数据 🙂 <b>&</b>"]
    records = [
        record([{"text": piece}], model=model, response_id=rid, metadata=usage(9, 13 + 10 * n, 302))
        for n, piece in enumerate(pieces)
    ]
    records.append(
        record(
            [{"text": "", "thoughtSignature": SIGNATURE}],
            model=model,
            response_id=rid,
            metadata=usage(9, 41, 302),
            finishReason="STOP",
        )
    )
    response = {
        "candidates": [
            {
                "content": {
                    "parts": [{"text": "".join(pieces), "thoughtSignature": SIGNATURE}],
                    "role": "model",
                },
                "index": 0,
                "finishReason": "STOP",
            }
        ],
        "usageMetadata": usage(9, 41, 302),
        "modelVersion": model,
        "responseId": rid,
    }
    return records, response


def thoughts() -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Gemini 2.5 with includeThoughts: thought summaries, then the answer."""
    model, rid = "gemini-2.5-flash", "kQ2MaZbFLe2Jxs0P7Nbz4QU"
    thought = ["**Counting letters**\n\nI spell it out: ", "s-t-r-a-w-b-e-r-r-y."]
    answer = ["Three", " r's."]
    records = [
        record(
            [{"text": piece, "thought": True}], model=model, response_id=rid, metadata=usage(12, None, 40 + n)
        )
        for n, piece in enumerate(thought)
    ]
    records += [
        record([{"text": piece}], model=model, response_id=rid, metadata=usage(12, 2 + n, 41))
        for n, piece in enumerate(answer)
    ]
    records[-1]["candidates"][0]["finishReason"] = "STOP"
    response = {
        "candidates": [
            {
                "content": {
                    "parts": [{"text": "".join(thought), "thought": True}, {"text": "".join(answer)}],
                    "role": "model",
                },
                "index": 0,
                "finishReason": "STOP",
            }
        ],
        "usageMetadata": usage(12, 3, 41),
        "modelVersion": model,
        "responseId": rid,
    }
    return records, response


def tool_calls() -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Gemini 3: two calls in one record, the first with the signature, then
    an empty text part with the finish reason."""
    model, rid = "gemini-3-pro-preview", "QHiLaa6LBrb8vdIPoNztsAg"
    first = {"functionCall": {"name": "weather", "args": {"location": "Zürich", "days": 3}}}
    second = {
        "functionCall": {"id": "call-7f3a", "name": "time", "args": {"zone": "Asia/Tokyo", "dst": False}}
    }
    records = [
        record(
            [{**first, "thoughtSignature": CALL_SIGNATURE}, second],
            model=model,
            response_id=rid,
            metadata=usage(29, 15, 804),
        ),
        record(
            [{"text": ""}], model=model, response_id=rid, metadata=usage(29, 15, 804), finishReason="STOP"
        ),
    ]
    response = {
        "candidates": [
            {
                "content": {
                    "parts": [{**first, "thoughtSignature": CALL_SIGNATURE}, second],
                    "role": "model",
                },
                "index": 0,
                "finishReason": "STOP",
            }
        ],
        "usageMetadata": usage(29, 15, 804),
        "modelVersion": model,
        "responseId": rid,
    }
    return records, response


def vertex_partial_args() -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Vertex AI with streamFunctionCallArguments: the call named first, its
    arguments by JSONPath after, strings in pieces."""
    model, rid = "gemini-3.1-pro-preview", "tjXVaYaxFISTq8YP_MWiyAo"
    stamp = "2026-04-07T16:49:58.333958Z"

    def partial(args: list[dict[str, Any]] | None, more: bool = True) -> dict[str, Any]:
        call: dict[str, Any] = {}
        if args is not None:
            call["partialArgs"] = args
        if more:
            call["willContinue"] = True
        return {"functionCall": call}

    def vertex(parts: list[dict[str, Any]], **candidate: Any) -> dict[str, Any]:
        held: dict[str, Any] = {"content": {"role": "model", "parts": parts}, **candidate}
        return {
            "candidates": [held],
            "usageMetadata": {"trafficType": "ON_DEMAND"},
            "modelVersion": model,
            "createTime": stamp,
            "responseId": rid,
        }

    steps = [
        ("$.recipe.ingredients[0].amount", {"stringValue": "16 oz"}),
        ("$.recipe.ingredients[0].name", {"stringValue": "Lasagna noodles"}),
        ("$.recipe.ingredients[1].amount", {"stringValue": "1 lb"}),
        ("$.recipe.ingredients[1].name", {"stringValue": "Ground beef"}),
        ("$.recipe.name", {"stringValue": "Lasagna"}),
        ("$.recipe['steps'][0]", {"stringValue": "Preheat oven to 375°F (190°C)."}),
        ("$.recipe.steps[1]", {"stringValue": "Cook noodles according to package directions"}),
        ("$.recipe.steps[1]", {"stringValue": ", drain and set aside."}),
        ("$.recipe.servings", {"numberValue": 8}),
        ("$.recipe.vegetarian", {"boolValue": False}),
        ("$.recipe.notes", {"nullValue": "NULL_VALUE"}),
    ]
    records = [
        vertex(
            [
                {
                    "functionCall": {"name": "cookRecipe", "willContinue": True},
                    "thoughtSignature": CALL_SIGNATURE,
                }
            ]
        )
    ]
    for n, (path, value) in enumerate(steps):
        string = "stringValue" in value
        continues = string and n + 1 < len(steps) and steps[n + 1][0] == path
        records.append(
            vertex(
                [
                    partial(
                        [
                            {"jsonPath": path, **value, "willContinue": True}
                            if string
                            else {"jsonPath": path, **value}
                        ]
                    )
                ]
            )
        )
        if string and not continues:
            records.append(vertex([partial([{"jsonPath": path, "stringValue": ""}])]))
    records.append(vertex([partial(None, more=False)], finishReason="STOP"))
    records[-1]["usageMetadata"] = {
        "promptTokenCount": 31,
        "candidatesTokenCount": 684,
        "totalTokenCount": 1741,
        "trafficType": "ON_DEMAND",
        "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 31}],
        "candidatesTokensDetails": [{"modality": "TEXT", "tokenCount": 684}],
        "thoughtsTokenCount": 1026,
    }
    args = {
        "recipe": {
            "ingredients": [
                {"amount": "16 oz", "name": "Lasagna noodles"},
                {"amount": "1 lb", "name": "Ground beef"},
            ],
            "name": "Lasagna",
            "steps": [
                "Preheat oven to 375°F (190°C).",
                "Cook noodles according to package directions, drain and set aside.",
            ],
            "servings": 8,
            "vegetarian": False,
            "notes": None,
        }
    }
    response = {
        "candidates": [
            {
                "content": {
                    "role": "model",
                    "parts": [
                        {
                            "functionCall": {"name": "cookRecipe", "args": args},
                            "thoughtSignature": CALL_SIGNATURE,
                        }
                    ],
                },
                "finishReason": "STOP",
            }
        ],
        "usageMetadata": records[-1]["usageMetadata"],
        "modelVersion": model,
        "createTime": stamp,
        "responseId": rid,
    }
    return records, response


def candidates() -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """candidateCount 2: the candidates' pieces interleave, each by index,
    with their safety ratings; citations gather."""
    model, rid = "gemini-2.5-flash", "b2Z3aYmCHaOqxs0PkYbK8Ac"
    ratings = [
        {"category": "HARM_CATEGORY_HATE_SPEECH", "probability": "NEGLIGIBLE"},
        {"category": "HARM_CATEGORY_DANGEROUS_CONTENT", "probability": "NEGLIGIBLE"},
    ]
    cite = [
        {"startIndex": 0, "endIndex": 12, "uri": "https://example.org/haiku"},
        {"startIndex": 13, "endIndex": 30, "uri": "https://example.org/autumn", "license": "CC-BY"},
    ]
    records = [
        {
            "candidates": [
                {"content": {"parts": [{"text": "Autumn moon—"}], "role": "model"}, "index": 0},
                {"content": {"parts": [{"text": "Red leaves fall,"}], "role": "model"}, "index": 1},
            ],
            "usageMetadata": usage(7, 8),
            "modelVersion": model,
            "responseId": rid,
        },
        record(
            [{"text": " a pond of light"}],
            model=model,
            response_id=rid,
            metadata=usage(7, 14),
            safetyRatings=ratings,
            citationMetadata={"citations": cite[:1]},
        ),
        record(
            [{"text": " the river carries them."}],
            model=model,
            response_id=rid,
            index=1,
            metadata=usage(7, 20),
            finishReason="STOP",
            safetyRatings=ratings,
        ),
        record(
            [{"text": "."}],
            model=model,
            response_id=rid,
            metadata=usage(7, 21),
            finishReason="STOP",
            safetyRatings=ratings,
            citationMetadata={"citations": cite[1:]},
        ),
    ]
    response = {
        "candidates": [
            {
                "content": {"parts": [{"text": "Autumn moon— a pond of light."}], "role": "model"},
                "index": 0,
                "safetyRatings": ratings,
                "citationMetadata": {"citations": cite},
                "finishReason": "STOP",
            },
            {
                "content": {"parts": [{"text": "Red leaves fall, the river carries them."}], "role": "model"},
                "index": 1,
                "finishReason": "STOP",
                "safetyRatings": ratings,
            },
        ],
        "usageMetadata": usage(7, 21),
        "modelVersion": model,
        "responseId": rid,
    }
    return records, response


def max_tokens() -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """A reply cut at maxOutputTokens."""
    model, rid = "gemini-2.5-flash-lite", "c9F0aaLbKpXExs0P6prq8QE"
    pieces = ["Once upon a time, ", "in a land far"]
    records = [
        record([{"text": piece}], model=model, response_id=rid, metadata=usage(5, 4 * (n + 1)))
        for n, piece in enumerate(pieces)
    ]
    records[-1]["candidates"][0]["finishReason"] = "MAX_TOKENS"
    response = {
        "candidates": [
            {
                "content": {"parts": [{"text": "".join(pieces)}], "role": "model"},
                "index": 0,
                "finishReason": "MAX_TOKENS",
            }
        ],
        "usageMetadata": usage(5, 8),
        "modelVersion": model,
        "responseId": rid,
    }
    return records, response


def image() -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """An image model: a caption, the image whole as inlineData."""
    model, rid = "gemini-2.5-flash-image", "Zx1MaeDlB4Gmxs0Pl7iR4Qw"
    png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
    records = [
        record([{"text": "Here is a red dot:"}], model=model, response_id=rid, metadata=usage(6, 5)),
        record(
            [{"inlineData": {"mimeType": "image/png", "data": png}}],
            model=model,
            response_id=rid,
            metadata=usage(6, 1295),
            finishReason="STOP",
        ),
    ]
    response = {
        "candidates": [
            {
                "content": {
                    "parts": [
                        {"text": "Here is a red dot:"},
                        {"inlineData": {"mimeType": "image/png", "data": png}},
                    ],
                    "role": "model",
                },
                "index": 0,
                "finishReason": "STOP",
            }
        ],
        "usageMetadata": usage(6, 1295),
        "modelVersion": model,
        "responseId": rid,
    }
    return records, response


def error() -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The model overloaded mid-stream."""
    model, rid = "gemini-2.5-pro", "Yq5NaePQLqKAxs0PqJPG2Ao"
    pieces = ["Partial ", "answer"]
    records: list[dict[str, Any]] = [
        record([{"text": piece}], model=model, response_id=rid, metadata=usage(4, n + 1))
        for n, piece in enumerate(pieces)
    ]
    failure = {
        "code": 503,
        "message": "The model is overloaded. Please try again later.",
        "status": "UNAVAILABLE",
    }
    records.append({"error": failure})
    # The response so far, with the error beside it (the run's outcome).
    response = {
        "candidates": [{"content": {"parts": [{"text": "".join(pieces)}], "role": "model"}, "index": 0}],
        "usageMetadata": usage(4, 2),
        "modelVersion": model,
        "responseId": rid,
        "error": failure,
    }
    return records, response


RUNS = {
    "text_signature": text_signature,
    "thoughts": thoughts,
    "tool_calls": tool_calls,
    "vertex_partial_args": vertex_partial_args,
    # (several candidates: a stream the cross-cutting tests leave to
    # test_gemini, as most protocols carry one)
    "candidates/two": candidates,
    "max_tokens": max_tokens,
    "image": image,
    "error": error,
}


def sse(records: list[dict[str, Any]]) -> bytes:
    """The stream with alt=sse: compact JSON, CRLF twice."""
    return b"".join(
        b"data: " + json.dumps(r, ensure_ascii=False, separators=(",", ":")).encode() + b"\r\n\r\n"
        for r in records
    )


def array(records: list[dict[str, Any]]) -> bytes:
    """The stream without alt=sse: one JSON array, each record
    pretty-printed, ``,`` and CRLF between them."""
    body = ",\r\n".join(json.dumps(r, ensure_ascii=False, indent=2) for r in records)
    return f"[{body}]".encode()


def validated(response: dict[str, Any]) -> None:
    """google-genai's model accepts it (it refuses unknown fields)."""
    fields = {key: value for key, value in response.items() if key != "error"}
    types.GenerateContentResponse.model_validate(fields)


def serve(bodies: dict[str, bytes]) -> tuple[uvicorn.Server, str]:
    """A server on loopback answering streamGenerateContent with the body
    its request's model names (the run's name)."""

    async def handle(request: Request) -> Response:
        run = request.path_params["model"].split(":")[0].replace("--", "/")
        return StreamingResponse(iter([bodies[run]]), media_type="text/event-stream")

    app = Starlette(routes=[Route("/{version}/models/{model}", handle, methods=["POST"])])
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.01)
    return server, f"http://127.0.0.1:{port}"


def client_reads(url: str, run: str) -> dict[str, Any]:
    """What google-genai's client yields for a stream, as camelCase dicts,
    and the error it raises."""
    client = genai.Client(api_key="test-key", http_options=types.HttpOptions(base_url=url))
    chunks: list[dict[str, Any]] = []
    try:
        for chunk in client.models.generate_content_stream(model=run, contents="hi"):
            chunks.append(
                chunk.model_dump(mode="json", by_alias=True, exclude_none=True, exclude={"sdk_http_response"})
            )
    except errors.APIError as err:
        return {"records": chunks, "raised": {"code": err.code, "status": err.status, "message": err.message}}
    return {"records": chunks}


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    streams = {name: make() for name, make in RUNS.items()}
    for records, response in streams.values():
        for each in records:
            validated(each)
        validated(response)
    server, url = serve({name: sse(records) for name, (records, _) in streams.items()})
    try:
        for name, (records, response) in streams.items():
            (OUT / f"{name}.sse").parent.mkdir(exist_ok=True)
            (OUT / f"{name}.sse").write_bytes(sse(records))
            if name in AS_ARRAY:
                (OUT / f"{name}.array").write_bytes(array(records))
            judge = {"client": client_reads(url, name.replace("/", "--")), "response": response}
            (OUT / f"{name}.json").write_text(json.dumps(judge, ensure_ascii=False, indent=2) + "\n")
            print(f"{name}: {len(records)} records")
    finally:
        server.should_exit = True


if __name__ == "__main__":
    main()
