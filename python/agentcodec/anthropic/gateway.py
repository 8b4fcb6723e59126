"""Anthropic Messages at the gateway (``agentcodec gateway``):
``POST /v1/messages`` takes a Messages request and answers as the API does:
streamed (``stream: true``) as its events, or else the final message as
JSON. The request's whole history is its ``messages``, so each request is a
session of its own (``agent_request_from_messages``). A dropped client
resumes with ``Last-Event-ID``.

A client's agent loop (the SDK's tool runner, say) runs every ``tool_use``
block it reads, so the calls the agent ran itself (those whose results the
run holds, and its server and MCP tools') are left out
(``executed_tool_calls="omit"``); a call the agent leaves to its client is
written, with ``stop_reason: "tool_use"``.

``GET /v1/models`` (and ``/v1/models/{model_id}``) lists the agent as the
API's one model for the Anthropic SDK's requests, told by the
``anthropic-version`` header every one of them carries: other clients list
models at the same path in their own APIs' shapes.
"""

from __future__ import annotations

import datetime
import json
import uuid
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from ..gateway._body import json_body
from ..gateway._endpoints import HeaderRoute, error_response
from ..gateway._requests import (
    Json,
    RequestError,
    agent_message,
    expect_list,
    expect_object,
    expect_string,
    function_call,
    function_output,
    function_tool,
    text_part,
)

if TYPE_CHECKING:
    from ..gateway import Gateway

__all__ = ["Endpoint", "agent_request_from_messages"]

PATH = "/v1/messages"
MODELS_PATH = "/v1/models"

#: The header the API requires of every request, so its SDK always sends it.
VERSION_HEADER = "anthropic-version"

#: The one model the gateway lists: the agent. A request may name any
#: model; each is the agent.
MODEL = "agent"


# The API's error types, by HTTP status; any other status is an api_error.
_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    415: "invalid_request_error",
    429: "rate_limit_error",
    529: "overloaded_error",
}


class Endpoint:
    """``POST /v1/messages``: a run, as the Messages API answers one.
    ``GET /v1/models`` (and ``/v1/models/{model_id}``), for the SDK's
    requests: the model, for the clients that list models before they chat."""

    public_paths: frozenset[str] = frozenset()

    @staticmethod
    def error_body(status: int, code: str, message: str) -> Json:
        """An error as the API words one: ``{"type": "error", "error": {"type",
        "message"}}``, its type the API's for the status, which clients
        branch on (``rate_limit_error``, ``overloaded_error``)."""
        return {"type": "error", "error": {"type": _ERROR_TYPES.get(status, "api_error"), "message": message}}

    def __init__(self, gateway: Gateway) -> None:
        self._gateway = gateway
        # A model's time is when it was made: here, when the gateway was.
        now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
        self._created_at = now.isoformat().replace("+00:00", "Z")

    def routes(self) -> list[BaseRoute]:
        return [
            Route(PATH, self.handle, methods=["POST"]),
            HeaderRoute(MODELS_PATH, self.models, methods=["GET"], headers=[VERSION_HEADER]),
            HeaderRoute(MODELS_PATH + "/{model:path}", self.model, methods=["GET"], headers=[VERSION_HEADER]),
        ]

    async def models(self, request: Request) -> Response:
        """The models the gateway serves, as the API lists them: the agent,
        on the first page (a page after or before a model is empty: there is
        no other)."""
        query = request.query_params
        page = [] if query.get("after_id") or query.get("before_id") else [self._model(MODEL)]
        first, last = (page[0]["id"], page[-1]["id"]) if page else (None, None)
        return JSONResponse({"data": page, "has_more": False, "first_id": first, "last_id": last})

    async def model(self, request: Request) -> Response:
        """One model (any name is the agent)."""
        return JSONResponse(self._model(request.path_params["model"]))

    def _model(self, name: str) -> Json:
        return {
            "type": "model",
            "id": name,
            "display_name": name,
            "created_at": self._created_at,
            "lifecycle": "active",
        }

    def streams(self, path: str) -> bool:
        return path == PATH

    async def handle(self, request: Request) -> Response:
        gateway = self._gateway
        resumed = gateway.resumed(request, "anthropic")
        if resumed is not None:
            return resumed
        try:
            body = await json_body(request, gateway.max_body_bytes)
            agent_request = agent_request_from_messages(body)
            stream = body.get("stream")
            if stream is not None and not isinstance(stream, bool):
                raise RequestError(f"stream must be a boolean, not {type(stream).__name__}")
        except RequestError as exc:
            return error_response(exc.status, exc.code, str(exc), "anthropic")
        options: dict[str, Any] = {"executed_tool_calls": "omit"}
        if isinstance(body.get("model"), str):
            options["model"] = body["model"]
        if stream:
            return await gateway.run(request, agent_request, "anthropic", **options)
        # Not streamed: the final message, as the Messages API answers it.
        return await gateway.run_whole(request, agent_request, "anthropic", **options)


# Fields the Messages API and the AgentRequest share, by the AgentRequest's name.
_FIELDS = {"model": "model", "temperature": "temperature", "top_p": "top_p", "max_tokens": "max_tokens"}


def _texts(content: Any, where: str) -> str:
    """Content that can only be text: a string, or text blocks."""
    if isinstance(content, str):
        return content
    texts = []
    for i, given in enumerate(expect_list(content, where)):
        block = expect_object(given, f"{where}[{i}]")
        if block.get("type") != "text":
            raise RequestError(f"{where}[{i}].type {block.get('type')!r} is not a text block")
        texts.append(expect_string(block.get("text"), f"{where}[{i}].text"))
    return "".join(texts)


def _source(block: Any, where: str, kind: str) -> Json:
    """An image's or a document's ``source``, as the Agent API's part."""
    source = expect_object(block.get("source"), f"{where}.source")
    if source.get("type") == "url":
        url = expect_string(source.get("url"), f"{where}.source.url")
        return {"type": kind, f"{kind}_url" if kind == "image" else "file_url": url}
    if source.get("type") == "base64":
        media = expect_string(source.get("media_type"), f"{where}.source.media_type")
        data = expect_string(source.get("data"), f"{where}.source.data")
        url = f"data:{media};base64,{data}"
        return {"type": kind, f"{kind}_url" if kind == "image" else "file_data": url}
    if source.get("type") == "text" and kind == "file":
        return text_part(expect_string(source.get("data"), f"{where}.source.data"))
    raise RequestError(f"{where}.source.type {source.get('type')!r} is not a source this gateway forwards")


def _tool_result(block: Any, where: str) -> Json:
    call_id = expect_string(block.get("tool_use_id"), f"{where}.tool_use_id")
    content = block.get("content")
    output = _texts(content if content is not None else "", f"{where}.content")
    if block.get("is_error"):
        output = json.dumps({"error": output}, ensure_ascii=False)
    return agent_message("tool", [function_output(call_id, output)], kind="function_call_output")


def _message(message: Any, where: str) -> list[Json]:
    message = expect_object(message, where)
    role = message.get("role")
    content = message.get("content")
    blocks: list[Mapping[str, Any]]
    if isinstance(content, str):
        blocks = [{"type": "text", "text": content}]
    else:
        blocks = [
            expect_object(block, f"{where}.content[{i}]")
            for i, block in enumerate(expect_list(content, f"{where}.content"))
        ]
    out: list[Json] = []
    if role == "user":
        parts: list[Json] = []
        for i, block in enumerate(blocks):
            at = f"{where}.content[{i}]"
            kind = block.get("type")
            if kind == "tool_result":
                out.append(_tool_result(block, at))
            elif kind == "text":
                parts.append(text_part(expect_string(block.get("text"), f"{at}.text")))
            elif kind == "image":
                parts.append(_source(block, at, "image"))
            elif kind == "document":
                parts.append(_source(block, at, "file"))
            else:
                raise RequestError(f"{at}.type {kind!r} is not a user content block this gateway forwards")
        if parts:
            out.append(agent_message("user", parts))
        return out
    if role == "assistant":
        calls: list[Json] = []
        for i, block in enumerate(blocks):
            at = f"{where}.content[{i}]"
            kind = block.get("type")
            if kind == "text":
                text = expect_string(block.get("text"), f"{at}.text")
                out.append(agent_message("assistant", [text_part(text)]))
            elif kind == "thinking":
                text = expect_string(block.get("thinking"), f"{at}.thinking")
                out.append(agent_message("assistant", [text_part(text)], kind="reasoning"))
            elif kind == "redacted_thinking":
                continue  # encrypted for the model that wrote it: nothing an agent reads
            elif kind == "tool_use":
                arguments: Any = block.get("input", {})
                calls.append(
                    function_call(
                        expect_string(block.get("id"), f"{at}.id"),
                        expect_string(block.get("name"), f"{at}.name"),
                        json.dumps(expect_object(arguments, f"{at}.input"), ensure_ascii=False),
                    )
                )
            else:
                raise RequestError(
                    f"{at}.type {kind!r} is not an assistant content block this gateway forwards"
                )
        if calls:
            out.append(agent_message("assistant", calls, kind="function_call"))
        return out
    raise RequestError(f"{where}.role {role!r} is not a Messages role (user or assistant)")


def agent_request_from_messages(body: Any) -> Json:
    """A Messages request (``POST /v1/messages``) as an AgentRequest: its
    ``system`` and messages the input, each request a session of its own."""
    body = expect_object(body, "the request body")
    given = expect_list(body.get("messages"), "messages")
    if not given:
        raise RequestError("messages is required: at least one message")
    messages: list[Json] = []
    system = body.get("system")
    if system is not None:
        text = _texts(system, "system")
        if text:
            messages.append(agent_message("system", [text_part(text)]))
    for i, message in enumerate(given):
        messages.extend(_message(message, f"messages[{i}]"))
    request: Json = {"input": messages, "stream": True}
    for theirs, ours in _FIELDS.items():
        if body.get(theirs) is not None:
            request[ours] = body[theirs]
    metadata = body.get("metadata")
    if metadata is not None:
        user = expect_object(metadata, "metadata").get("user_id")
        if isinstance(user, str) and user:
            request["user_id"] = user
    # The request holds the whole conversation, so it is a session of its
    # own: an AgentApp keeps a session's memory, which would hold it twice.
    request["session_id"] = f"msg_{uuid.uuid4().hex}"
    tools = []
    for i, given_tool in enumerate(expect_list(body.get("tools"), "tools")):
        tool = expect_object(given_tool, f"tools[{i}]")
        if tool.get("type") not in (None, "custom"):
            raise RequestError(
                f"tools[{i}].type {tool.get('type')!r} is not a client tool this gateway forwards"
            )
        tools.append(
            function_tool(
                expect_string(tool.get("name"), f"tools[{i}].name"),
                tool.get("description"),
                tool.get("input_schema"),
            )
        )
    if tools:
        request["tools"] = tools
    return request
