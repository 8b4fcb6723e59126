"""OpenAI Chat Completions at the gateway (``agentcodec gateway``):
``POST /v1/chat/completions`` (and ``/compatible-mode/v1/chat/completions``,
beside the Responses path an AgentScope AgentApp serves) takes a Chat
request and answers as the API does: streamed (``stream: true``) as its
chunks, or else the final completion as JSON. The request's whole history is
its ``messages``, so each request is a session of its own
(``agent_request_from_chat``). A dropped client resumes with
``Last-Event-ID``.

What a Chat client does with a stream shapes what is written:

- a client's agent loop runs every tool call it reads, so the calls the agent
  ran itself (those whose results the run holds, and its server and MCP
  tools') are left out (``executed_tool_calls="omit"``); a call the agent
  leaves to its client is written, with ``finish_reason: "tool_calls"``;
- a completion's content is one text, so the agent's messages are set apart
  by a blank line (``message_separator``);
- the run's usage is written only when ``stream_options.include_usage``
  asks, as the API does: a client that reads ``choices[0]`` of every chunk
  fails on the usage chunk, which has none.
"""

from __future__ import annotations

import time
import uuid
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from ..gateway._body import json_body
from ..gateway._endpoints import error_response
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
from ..openai_responses.gateway import error_body

if TYPE_CHECKING:
    from ..gateway import Gateway

__all__ = ["Endpoint", "agent_request_from_chat"]

PATHS = ("/compatible-mode/v1/chat/completions", "/v1/chat/completions")
MODELS_PATHS = ("/compatible-mode/v1/models", "/v1/models")

#: What goes between two of the agent's messages in a completion's one text.
MESSAGE_SEPARATOR = "\n\n"


#: The one model the gateway lists: the agent. A request may name any
#: model; each is the agent.
MODEL = "agent"


class Endpoint:
    """``POST /v1/chat/completions`` (and its ``/compatible-mode`` twin): a
    run, as the Chat Completions API answers one. ``GET /v1/models`` (and
    ``/v1/models/{model}``): the model, for the clients that list models
    before they chat."""

    public_paths: frozenset[str] = frozenset()
    #: Errors as OpenAI's APIs word them, the Responses API's and this one's alike.
    error_body = staticmethod(error_body)

    def __init__(self, gateway: Gateway) -> None:
        self._gateway = gateway
        # A model's time is when it was made: here, when the gateway was.
        self._created = int(time.time())

    def routes(self) -> list[BaseRoute]:
        routes: list[BaseRoute] = [Route(path, self.handle, methods=["POST"]) for path in PATHS]
        for path in MODELS_PATHS:
            routes.append(Route(path, self.models, methods=["GET"]))
            routes.append(Route(path + "/{model:path}", self.model, methods=["GET"]))
        return routes

    async def models(self, request: Request) -> Response:
        """The models the gateway serves, as the API lists them: the agent."""
        return JSONResponse({"object": "list", "data": [self._model(MODEL)]})

    async def model(self, request: Request) -> Response:
        """One model (any name is the agent)."""
        return JSONResponse(self._model(request.path_params["model"]))

    def _model(self, name: str) -> Json:
        return {"id": name, "object": "model", "created": self._created, "owned_by": "agentcodec"}

    def streams(self, path: str) -> bool:
        return path in PATHS

    async def handle(self, request: Request) -> Response:
        gateway = self._gateway
        resumed = gateway.resumed(request, "openai-chat")
        if resumed is not None:
            return resumed
        try:
            body = await json_body(request, gateway.max_body_bytes)
            agent_request = agent_request_from_chat(body)
            streamed = _stream_asked(body)
            usage_asked = _usage_asked(body)
        except RequestError as exc:
            return error_response(exc.status, exc.code, str(exc), "openai-chat")
        options: dict[str, Any] = {"executed_tool_calls": "omit", "message_separator": MESSAGE_SEPARATOR}
        if isinstance(body.get("model"), str):
            options["model"] = body["model"]
        if streamed:
            options["include_usage"] = usage_asked
            return await gateway.run(request, agent_request, "openai-chat", **options)
        # Not streamed: the final completion, as the Chat API answers it.
        return await gateway.run_whole(request, agent_request, "openai-chat", **options)


def _stream_asked(body: Any) -> bool:
    stream = body.get("stream")
    if stream is not None and not isinstance(stream, bool):
        raise RequestError(f"stream must be a boolean, not {type(stream).__name__}")
    return bool(stream)


def _usage_asked(body: Any) -> bool:
    options = body.get("stream_options")
    if options is None:
        return False
    include = expect_object(options, "stream_options").get("include_usage")
    if include is not None and not isinstance(include, bool):
        raise RequestError(f"stream_options.include_usage must be a boolean, not {type(include).__name__}")
    return bool(include)


# Fields the Chat API and the AgentRequest share, by the AgentRequest's name
# (max_completion_tokens, the newer name, is read first).
_FIELDS = {
    "model": "model",
    "temperature": "temperature",
    "top_p": "top_p",
    "max_tokens": "max_tokens",
    "user": "user_id",
    "metadata": "metadata",
}


def _text(content: Any, where: str) -> str:
    """A message's content that can only be text: a string, or text parts."""
    if content is None or isinstance(content, str):
        return content or ""
    texts = []
    for i, given in enumerate(expect_list(content, where)):
        part = expect_object(given, f"{where}[{i}]")
        if part.get("type") == "text":
            texts.append(expect_string(part.get("text"), f"{where}[{i}].text"))
        elif part.get("type") == "refusal":
            texts.append(expect_string(part.get("refusal"), f"{where}[{i}].refusal"))
        else:
            raise RequestError(f"{where}[{i}].type {part.get('type')!r} is not a text part")
    return "".join(texts)


def _part(part: Any, where: str) -> Json:
    part = expect_object(part, where)
    kind = part.get("type")
    if kind == "text":
        return text_part(expect_string(part.get("text"), f"{where}.text"))
    if kind == "image_url":
        image = expect_object(part.get("image_url"), f"{where}.image_url")
        return {"type": "image", "image_url": expect_string(image.get("url"), f"{where}.image_url.url")}
    if kind == "input_audio":
        audio = expect_object(part.get("input_audio"), f"{where}.input_audio")
        return {"type": "audio", "data": audio.get("data"), "format": audio.get("format")}
    if kind == "file":
        file = expect_object(part.get("file"), f"{where}.file")
        fields = ("file_id", "filename", "file_data")
        return {"type": "file", **{field: file[field] for field in fields if file.get(field) is not None}}
    raise RequestError(f"{where}.type {kind!r} is not a Chat content part")


def _message(message: Any, where: str) -> list[Json]:
    message = expect_object(message, where)
    role = message.get("role")
    content = message.get("content")
    if role in ("system", "developer"):
        # The Agent API has no developer role; the AgentApp drops such messages.
        return [agent_message("system", [text_part(_text(content, f"{where}.content"))])]
    if role == "user":
        if isinstance(content, str):
            parts = [text_part(content)]
        else:
            given = expect_list(content, f"{where}.content")
            parts = [_part(part, f"{where}.content[{i}]") for i, part in enumerate(given)]
        return [agent_message("user", parts)]
    if role == "assistant":
        out: list[Json] = []
        reasoning = message.get("reasoning_content")
        if isinstance(reasoning, str) and reasoning:
            out.append(agent_message("assistant", [text_part(reasoning)], kind="reasoning"))
        text = _text(content, f"{where}.content") or _text(message.get("refusal"), f"{where}.refusal")
        if text:
            out.append(agent_message("assistant", [text_part(text)]))
        calls = []
        for i, given_call in enumerate(expect_list(message.get("tool_calls"), f"{where}.tool_calls")):
            call = expect_object(given_call, f"{where}.tool_calls[{i}]")
            function = expect_object(call.get("function"), f"{where}.tool_calls[{i}].function")
            arguments = function.get("arguments")
            calls.append(
                function_call(
                    expect_string(call.get("id"), f"{where}.tool_calls[{i}].id"),
                    expect_string(function.get("name"), f"{where}.tool_calls[{i}].function.name"),
                    expect_string(
                        arguments if arguments is not None else "",
                        f"{where}.tool_calls[{i}].function.arguments",
                    ),
                )
            )
        if calls:
            out.append(agent_message("assistant", calls, kind="function_call"))
        return out
    if role == "tool":
        call_id = expect_string(message.get("tool_call_id"), f"{where}.tool_call_id")
        output = function_output(call_id, _text(content, f"{where}.content"))
        return [agent_message("tool", [output], kind="function_call_output")]
    raise RequestError(f"{where}.role {role!r} is not a Chat message role this gateway forwards")


def agent_request_from_chat(body: Any) -> Json:
    """A Chat Completions request (``POST /v1/chat/completions``) as an
    AgentRequest: its messages the input, each request a session of its own."""
    body = expect_object(body, "the request body")
    given = expect_list(body.get("messages"), "messages")
    if not given:
        raise RequestError("messages is required: at least one message")
    choices = body.get("n")
    if choices is not None and choices != 1:
        # The agent gives one answer: a second choice would be missing, not made.
        raise RequestError(f"n must be 1: the agent gives one answer, not {choices!r}")
    messages: list[Json] = []
    for i, message in enumerate(given):
        messages.extend(_message(message, f"messages[{i}]"))
    request: Json = {"input": messages, "stream": True}
    for theirs, ours in _FIELDS.items():
        if body.get(theirs) is not None:
            request[ours] = body[theirs]
    if body.get("max_completion_tokens") is not None:
        request["max_tokens"] = body["max_completion_tokens"]
    # The request holds the whole conversation, so it is a session of its
    # own: an AgentApp keeps a session's memory, which would hold it twice.
    request["session_id"] = f"chat_{uuid.uuid4().hex}"
    tools = []
    for i, given_tool in enumerate(expect_list(body.get("tools"), "tools")):
        tool = expect_object(given_tool, f"tools[{i}]")
        if tool.get("type", "function") != "function":
            raise RequestError(f"tools[{i}].type {tool.get('type')!r} is not a function tool")
        function = expect_object(tool.get("function"), f"tools[{i}].function")
        tools.append(
            function_tool(
                expect_string(function.get("name"), f"tools[{i}].function.name"),
                function.get("description"),
                function.get("parameters"),
            )
        )
    if tools:
        request["tools"] = tools
    return request
