"""Gemini's API at the gateway (``agentcodec gateway``):
``POST /v1beta/models/{model}:streamGenerateContent`` and
``:generateContent`` (and the same under ``/v1``) take a
``GenerateContentRequest`` and answer as Gemini does: streamed as SSE with
``alt=sse`` (what google-genai asks for), or as one JSON array written record
by record without it, or else the final response as JSON. Point a client at
the gateway (``genai.Client(http_options={"base_url": "<gateway>"})``) and
the agent is its model; its key goes in ``x-goog-api-key``, which the
gateway's ``--api-key`` checks.

The request's whole history is its ``contents``, so each request is a
session of its own (``agent_request_from_gemini``). As for any client whose
loop runs the calls it reads (google-genai's automatic function calling),
the calls the agent ran itself are left out and a call left to the client is
written; the agent's messages are set apart by a blank line. Only the SSE
form resumes with ``Last-Event-ID``: a JSON array has no event ids.

``GET /v1beta/models`` (and ``/v1beta/models/{model}``) lists the agent as
the API's one model. Under ``/v1``, where other APIs' clients list models
too, google-genai's requests alone are answered so, told by the
``x-goog-api-client`` header it always sends (or a key in
``x-goog-api-key``).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator, Mapping
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import BaseRoute, Route

from .._backend import impl
from .._vocabulary import tables
from ..gateway._body import json_body
from ..gateway._endpoints import HeaderRoute, error_response
from ..gateway._requests import (
    Json,
    RequestError,
    UnansweredCalls,
    agent_message,
    expect_list,
    expect_object,
    expect_string,
    function_call,
    function_output,
    function_tool,
    json_text,
    pick,
    text_part,
)
from ..gateway._upstream import UpstreamError

if TYPE_CHECKING:
    from ..gateway import Gateway

__all__ = ["Endpoint", "agent_request_from_gemini"]

#: The API's versions: the first's paths are its own alone, the second's
#: model list is other APIs' too.
VERSIONS = ("/v1beta", "/v1")
STREAM, WHOLE = ":streamGenerateContent", ":generateContent"

#: What google-genai sends with every request (and the key's header): how
#: its model list is told from other APIs' at the paths they share.
CLIENT_HEADERS = ("x-goog-api-client", "x-goog-api-key")

#: The one model the gateway lists: the agent. A request may name any
#: model; each is the agent.
MODEL = "agent"

#: What goes between two of the agent's messages in a candidate's one text.
MESSAGE_SEPARATOR = "\n\n"

#: google.rpc.Code's names, which an error's ``status`` is.
_STATUSES = frozenset(tables("gemini")["ERROR_STATUSES"])
#: The status Google's APIs answer an HTTP status with (code.proto's
#: mapping; a body too large or of the wrong type is an invalid argument
#: there, an upstream that failed unavailable).
_STATUS_OF_HTTP = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    409: "ABORTED",
    413: "INVALID_ARGUMENT",
    415: "INVALID_ARGUMENT",
    429: "RESOURCE_EXHAUSTED",
    499: "CANCELLED",
    500: "INTERNAL",
    501: "UNIMPLEMENTED",
    502: "UNAVAILABLE",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}


class Endpoint:
    """``POST /v1beta/models/{model}:streamGenerateContent`` and
    ``:generateContent``: a run, as Gemini answers one. ``GET
    /v1beta/models`` (and ``/v1beta/models/{model}``): the model, for the
    clients that list models before they chat."""

    public_paths: frozenset[str] = frozenset()

    @staticmethod
    def error_body(status: int, code: str, message: str) -> Json:
        """An error as Gemini's API words one, ``{"error": {"code", "message",
        "status"}}``: ``code`` the HTTP status, ``status`` google.rpc.Code's
        name (google-genai's ``APIError.status``). A failed run's code is
        already such a name; the gateway's own (``invalid_request``,
        ``too_many_runs``, ...) goes in an ``ErrorInfo`` detail's ``reason``,
        as Google's APIs give theirs."""
        if code in _STATUSES:
            return {"error": {"code": status, "message": message, "status": code}}
        name = _STATUS_OF_HTTP.get(status, "INTERNAL" if status >= 500 else "FAILED_PRECONDITION")
        detail = {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": code, "domain": "agentcodec"}
        return {"error": {"code": status, "message": message, "status": name, "details": [detail]}}

    def __init__(self, gateway: Gateway) -> None:
        self._gateway = gateway

    def routes(self) -> list[BaseRoute]:
        routes: list[BaseRoute] = []
        for version in VERSIONS:
            routes.append(Route(f"{version}/models/{{model}}{STREAM}", self.stream, methods=["POST"]))
            routes.append(Route(f"{version}/models/{{model}}{WHOLE}", self.whole, methods=["POST"]))
        own, shared = VERSIONS
        routes += [
            Route(f"{own}/models", self.models, methods=["GET"]),
            Route(f"{own}/models/{{model}}", self.model, methods=["GET"]),
            # Other APIs' clients list models under /v1 too: google-genai's requests alone.
            HeaderRoute(f"{shared}/models", self.models, methods=["GET"], headers=CLIENT_HEADERS),
            HeaderRoute(f"{shared}/models/{{model}}", self.model, methods=["GET"], headers=CLIENT_HEADERS),
        ]
        return routes

    async def models(self, request: Request) -> Response:
        """The models the gateway serves, as the API lists them: the agent
        (on one page)."""
        return JSONResponse({"models": [_model(MODEL)]})

    async def model(self, request: Request) -> Response:
        """One model (any name is the agent)."""
        return JSONResponse(_model(request.path_params["model"]))

    def streams(self, path: str) -> bool:
        return path.startswith(tuple(f"{version}/models/" for version in VERSIONS)) and path.endswith(
            (STREAM, WHOLE)
        )

    async def stream(self, request: Request) -> Response:
        sse = request.query_params.get("alt") == "sse"
        if sse:
            resumed = self._gateway.resumed(request, "gemini")
            if resumed is not None:
                return resumed
        parsed = await self._parsed(request)
        if isinstance(parsed, Response):
            return parsed
        agent_request, options = parsed
        if sse:
            return await self._gateway.run(request, agent_request, "gemini", **options)
        try:
            chunks = await self._gateway.start_run(agent_request, request)
        except UpstreamError as exc:
            return error_response(exc.status, exc.code, exc.message, "gemini")
        records = self._gateway.converted(chunks, "gemini", **options)
        return StreamingResponse(_json_array(records), media_type="application/json")

    async def whole(self, request: Request) -> Response:
        parsed = await self._parsed(request)
        if isinstance(parsed, Response):
            return parsed
        agent_request, options = parsed
        return await self._gateway.run_whole(request, agent_request, "gemini", **options)

    async def _parsed(self, request: Request) -> tuple[Json, dict[str, Any]] | Response:
        """The request as an AgentRequest and the conversion's options, or
        the error it is answered with."""
        try:
            body = await json_body(request, self._gateway.max_body_bytes)
            agent_request = agent_request_from_gemini(body, model=request.path_params["model"])
        except RequestError as exc:
            return error_response(exc.status, exc.code, str(exc), "gemini")
        options = {
            "model": request.path_params["model"],
            "executed_tool_calls": "omit",
            "message_separator": MESSAGE_SEPARATOR,
        }
        return agent_request, options


async def _json_array(sse: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    """The records of an SSE stream as one JSON array, written as they come
    (as Gemini answers without ``alt=sse``)."""
    decoder = impl.SSEDecoder()
    opened = False
    async for data in sse:
        for event in decoder.feed(data):
            yield (b",\r\n" if opened else b"[") + event.data.encode()
            opened = True
    for event in decoder.close():
        yield (b",\r\n" if opened else b"[") + event.data.encode()
        opened = True
    yield b"]" if opened else b"[]"


def _model(name: str) -> Json:
    """A model as the API describes one (google-genai's ``Model``): the
    agent, which generates content, streamed or not."""
    return {
        "name": f"models/{name}",
        "displayName": name,
        "description": "The agent behind the gateway",
        "supportedGenerationMethods": [WHOLE[1:], STREAM[1:]],
    }


def _part(part: Mapping[str, Any], where: str) -> Json | None:
    """A user's part as the Agent API's (None for one it has no part for)."""
    if isinstance(part.get("text"), str):
        return text_part(part["text"])
    inline = pick(part, "inlineData", "inline_data")
    if inline is not None:
        inline = expect_object(inline, f"{where}.inlineData")
        media = expect_string(pick(inline, "mimeType", "mime_type"), f"{where}.inlineData.mimeType")
        url = f"data:{media};base64,{expect_string(inline.get('data'), f'{where}.inlineData.data')}"
        return (
            {"type": "image", "image_url": url}
            if media.startswith("image/")
            else {"type": "file", "file_data": url}
        )
    file = pick(part, "fileData", "file_data")
    if file is not None:
        file = expect_object(file, f"{where}.fileData")
        uri = expect_string(pick(file, "fileUri", "file_uri"), f"{where}.fileData.fileUri")
        media = pick(file, "mimeType", "mime_type")
        if isinstance(media, str) and media.startswith("image/"):
            return {"type": "image", "image_url": uri}
        return {"type": "file", "file_url": uri}
    return None


# What a model's part may hold beside its text or call: nothing an agent reads.
_SIGNATURES = frozenset({"thought", "thoughtSignature", "thought_signature"})


def _content(content: Any, position: int, unanswered: UnansweredCalls) -> list[Json]:
    where = f"contents[{position}]"
    content = expect_object(content, where)
    role = content.get("role", "user")
    parts = [
        expect_object(part, f"{where}.parts[{i}]")
        for i, part in enumerate(expect_list(content.get("parts"), f"{where}.parts"))
    ]
    out: list[Json] = []
    if role == "model":
        calls: list[Json] = []
        for i, part in enumerate(parts):
            at = f"{where}.parts[{i}]"
            called = pick(part, "functionCall", "function_call")
            if called is not None:
                called = expect_object(called, f"{at}.functionCall")
                name = expect_string(called.get("name"), f"{at}.functionCall.name")
                given_id = called.get("id")
                call_id = given_id if isinstance(given_id, str) and given_id else f"call_{position}_{i}"
                arguments = expect_object(called.get("args", {}), f"{at}.functionCall.args")
                calls.append(function_call(call_id, name, json.dumps(arguments, ensure_ascii=False)))
                unanswered.called(call_id, name)
            elif isinstance(part.get("text"), str):
                kind = "reasoning" if part.get("thought") else "message"
                out.append(agent_message("assistant", [text_part(part["text"])], kind=kind))
            elif not set(part) <= _SIGNATURES:
                raise RequestError(f"{at} is no part of a model's content this gateway forwards")
        if calls:
            out.append(agent_message("assistant", calls, kind="function_call"))
        return out
    if role != "user":
        raise RequestError(f"{where}.role {role!r} is not a Gemini role (user or model)")
    held: list[Json] = []
    for i, part in enumerate(parts):
        at = f"{where}.parts[{i}]"
        answered = pick(part, "functionResponse", "function_response")
        if answered is not None:
            answered = expect_object(answered, f"{at}.functionResponse")
            answers = unanswered.answer(answered.get("id"), answered.get("name"))
            if answers is None:
                raise RequestError(f"{at}.functionResponse answers no functionCall of the model before it")
            output = function_output(answers, json_text(answered.get("response", {})))
            out.append(agent_message("tool", [output], kind="function_call_output"))
            continue
        converted = _part(part, at)
        if converted is None:
            raise RequestError(f"{at} is no part of a user's content this gateway forwards")
        held.append(converted)
    if held:
        out.append(agent_message("user", held))
    return out


def agent_request_from_gemini(body: Any, *, model: str | None = None) -> Json:
    """A ``GenerateContentRequest`` as an AgentRequest: its system
    instruction and contents the input, each request a session of its own."""
    body = expect_object(body, "the request body")
    contents = expect_list(body.get("contents"), "contents")
    if not contents:
        raise RequestError("contents is required: at least one content")
    messages: list[Json] = []
    system = pick(body, "systemInstruction", "system_instruction")
    if system is not None:
        texts = [
            expect_string(
                expect_object(part, f"systemInstruction.parts[{i}]").get("text"),
                f"systemInstruction.parts[{i}].text",
            )
            for i, part in enumerate(
                expect_list(
                    expect_object(system, "systemInstruction").get("parts"), "systemInstruction.parts"
                )
            )
        ]
        if any(texts):
            messages.append(agent_message("system", [text_part("".join(texts))]))
    unanswered = UnansweredCalls()
    for i, content in enumerate(contents):
        messages.extend(_content(content, i, unanswered))
    request: Json = {"input": messages, "stream": True, "session_id": f"gemini_{uuid.uuid4().hex}"}
    if model:
        request["model"] = model
    config = pick(body, "generationConfig", "generation_config")
    if config is not None:
        config = expect_object(config, "generationConfig")
        for camel, snake, ours in (
            ("temperature", "temperature", "temperature"),
            ("topP", "top_p", "top_p"),
            ("maxOutputTokens", "max_output_tokens", "max_tokens"),
        ):
            if pick(config, camel, snake) is not None:
                request[ours] = pick(config, camel, snake)
    tools = []
    for i, given_tool in enumerate(expect_list(body.get("tools"), "tools")):
        tool = expect_object(given_tool, f"tools[{i}]")
        declared = pick(tool, "functionDeclarations", "function_declarations")
        for j, given in enumerate(expect_list(declared, f"tools[{i}].functionDeclarations")):
            at = f"tools[{i}].functionDeclarations[{j}]"
            declaration = expect_object(given, at)
            parameters = pick(declaration, "parametersJsonSchema", "parameters_json_schema")
            tools.append(
                function_tool(
                    expect_string(declaration.get("name"), f"{at}.name"),
                    declaration.get("description"),
                    parameters if parameters is not None else declaration.get("parameters"),
                )
            )
    if tools:
        request["tools"] = tools
    return request
