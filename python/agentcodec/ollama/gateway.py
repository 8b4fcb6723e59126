"""Ollama's API at the gateway (``agentcodec gateway``): ``POST /api/chat``
and ``POST /api/generate`` take Ollama's requests and answer as an Ollama
server does: streamed as NDJSON (``stream`` is true unless the request says
false), or else the final object as JSON. Point an Ollama client at the
gateway (``ollama.Client(host="<gateway>")``) and the agent is its model.

The request's whole history is its ``messages`` (or its ``prompt``), so each
request is a session of its own (``agent_request_from_chat``,
``agent_request_from_generate``). As for any client whose loop runs the
calls it reads, the calls the agent ran itself are left out
(``executed_tool_calls="omit"``) and a call left to the client is written;
the agent's messages are set apart by a blank line in the one answer.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import uuid
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from ..gateway._body import json_body
from ..gateway._endpoints import error_response
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
    text_part,
)

if TYPE_CHECKING:
    from ..gateway import Gateway

__all__ = ["Endpoint", "agent_request_from_chat", "agent_request_from_generate"]

CHAT, GENERATE = "/api/chat", "/api/generate"
TAGS, SHOW = "/api/tags", "/api/show"

# A model's details: an agent has no weights' format, size or quantisation.
_DETAILS = {
    "parent_model": "",
    "format": "",
    "family": "agent",
    "families": ["agent"],
    "parameter_size": "",
    "quantization_level": "",
}

#: What goes between two of the agent's messages in the one answer.
MESSAGE_SEPARATOR = "\n\n"


#: The one model the gateway lists, as Ollama names a model: the agent. A
#: request may name any model; each is the agent.
MODEL = "agent:latest"

#: What the agent takes, in the words of Ollama's ``capabilities``: text,
#: the client's tools, images (forwarded as image parts).
CAPABILITIES = ("completion", "tools", "vision")


def _timestamp() -> str:
    """Now, as Ollama writes a time (RFC 3339, UTC here)."""
    return datetime.datetime.now(datetime.timezone.utc).isoformat().replace("+00:00", "Z")


class Endpoint:
    """``POST /api/chat`` and ``POST /api/generate``: a run, as an Ollama
    server answers one. ``GET /api/tags`` and ``POST /api/show``: the
    model, for the tools that list models before they chat."""

    public_paths: frozenset[str] = frozenset()

    @staticmethod
    def error_body(status: int, code: str, message: str) -> Json:
        """An error as an Ollama server words one, ``{"error": "..."}``: the
        ollama client's ``ResponseError.error`` is that text."""
        return {"error": message}

    def __init__(self, gateway: Gateway) -> None:
        self._gateway = gateway
        # A model's time is when it was made: here, when the gateway was.
        self._started = _timestamp()

    def routes(self) -> list[BaseRoute]:
        return [
            Route(CHAT, self.chat, methods=["POST"]),
            Route(GENERATE, self.generate, methods=["POST"]),
            Route(TAGS, self.tags, methods=["GET"]),
            Route(SHOW, self.show, methods=["POST"]),
        ]

    def streams(self, path: str) -> bool:
        return path in (CHAT, GENERATE)

    async def tags(self, request: Request) -> Response:
        """The models the gateway serves, as ``ollama list`` reads them: the agent."""
        return JSONResponse({"models": [self._model(MODEL)]})

    async def show(self, request: Request) -> Response:
        """A model's details and capabilities (any name is the agent)."""
        try:
            body = expect_object(await json_body(request, self._gateway.max_body_bytes), "the request body")
            expect_string(body.get("model", body.get("name")), "model")
        except RequestError as exc:
            return error_response(exc.status, exc.code, str(exc), "ollama")
        return JSONResponse(
            {
                "modelfile": "",
                "parameters": "",
                "template": "",
                "details": _DETAILS,
                "model_info": {},
                "capabilities": list(CAPABILITIES),
                "modified_at": self._started,
            }
        )

    def _model(self, name: str) -> Json:
        return {
            "name": name,
            "model": name,
            "modified_at": self._started,
            "size": 0,
            "digest": hashlib.sha256(name.encode()).hexdigest(),
            "details": _DETAILS,
        }

    async def chat(self, request: Request) -> Response:
        return await self._handle(request, "chat", agent_request_from_chat)

    async def generate(self, request: Request) -> Response:
        return await self._handle(request, "generate", agent_request_from_generate)

    async def _handle(self, request: Request, endpoint: str, convert: Callable[[Any], Json]) -> Response:
        gateway = self._gateway
        resumed = gateway.resumed(request, "ollama")
        if resumed is not None:
            return resumed
        try:
            body = await json_body(request, gateway.max_body_bytes)
            agent_request = convert(body)
            stream = body.get("stream", True)
            if not isinstance(stream, bool):
                raise RequestError(f"stream must be a boolean, not {type(stream).__name__}")
        except RequestError as exc:
            return error_response(exc.status, exc.code, str(exc), "ollama")
        options: dict[str, Any] = {
            "endpoint": endpoint,
            "executed_tool_calls": "omit",
            "message_separator": MESSAGE_SEPARATOR,
        }
        if isinstance(body.get("model"), str):
            options["model"] = body["model"]
        if stream:
            return await gateway.run(request, agent_request, "ollama", **options)
        # Not streamed: the final object, as an Ollama server answers it.
        return await gateway.run_whole(request, agent_request, "ollama", **options)


def _images(message: Mapping[str, Any], where: str) -> list[Json]:
    """Ollama's images (base64, no media type) as image parts."""
    images = []
    for i, image in enumerate(expect_list(message.get("images"), f"{where}.images")):
        data = expect_string(image, f"{where}.images[{i}]")
        images.append({"type": "image", "image_url": f"data:image/*;base64,{data}"})
    return images


def _options(body: Mapping[str, Any], request: Json) -> None:
    """The model's options the AgentRequest has a field for."""
    if isinstance(body.get("model"), str):
        request["model"] = body["model"]
    given = body.get("options")
    if given is None:
        return
    options = expect_object(given, "options")
    for theirs, ours in (("temperature", "temperature"), ("top_p", "top_p"), ("num_predict", "max_tokens")):
        if options.get(theirs) is not None:
            request[ours] = options[theirs]


def agent_request_from_chat(body: Any) -> Json:
    """An Ollama chat request (``POST /api/chat``) as an AgentRequest: its
    messages the input, each request a session of its own. A tool message
    answers the call its ``tool_call_id`` names, or else the first call not
    yet answered (of its ``tool_name``, when it says one)."""
    body = expect_object(body, "the request body")
    given = expect_list(body.get("messages"), "messages")
    if not given:
        raise RequestError("messages is required: at least one message")
    messages: list[Json] = []
    unanswered = UnansweredCalls()
    for i, given_message in enumerate(given):
        where = f"messages[{i}]"
        message = expect_object(given_message, where)
        role = message.get("role")
        content = expect_string(message.get("content"), f"{where}.content", required=False)
        if role in ("system", "user"):
            messages.append(agent_message(role, [text_part(content), *_images(message, where)]))
        elif role == "assistant":
            thinking = message.get("thinking")
            if isinstance(thinking, str) and thinking:
                messages.append(agent_message("assistant", [text_part(thinking)], kind="reasoning"))
            if content:
                messages.append(agent_message("assistant", [text_part(content)]))
            calls = []
            for j, given_call in enumerate(expect_list(message.get("tool_calls"), f"{where}.tool_calls")):
                at = f"{where}.tool_calls[{j}]"
                call = expect_object(given_call, at)
                function = expect_object(call.get("function"), f"{at}.function")
                name = expect_string(function.get("name"), f"{at}.function.name")
                given_id = call.get("id")
                call_id = given_id if isinstance(given_id, str) and given_id else f"call_{i}_{j}"
                arguments = expect_object(function.get("arguments", {}), f"{at}.function.arguments")
                calls.append(function_call(call_id, name, json.dumps(arguments, ensure_ascii=False)))
                unanswered.called(call_id, name)
            if calls:
                messages.append(agent_message("assistant", calls, kind="function_call"))
        elif role == "tool":
            answers = unanswered.answer(message.get("tool_call_id"), message.get("tool_name"))
            if answers is None:
                raise RequestError(f"{where} answers no tool call of an assistant message before it")
            output = function_output(answers, json_text(content))
            messages.append(agent_message("tool", [output], kind="function_call_output"))
        else:
            raise RequestError(f"{where}.role {role!r} is not an Ollama message role this gateway forwards")
    request: Json = {"input": messages, "stream": True, "session_id": f"ollama_{uuid.uuid4().hex}"}
    _options(body, request)
    tools = []
    for i, given_tool in enumerate(expect_list(body.get("tools"), "tools")):
        tool = expect_object(given_tool, f"tools[{i}]")
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


def agent_request_from_generate(body: Any) -> Json:
    """An Ollama generate request (``POST /api/generate``) as an
    AgentRequest: its ``system`` and ``prompt`` (with its images)."""
    body = expect_object(body, "the request body")
    prompt = expect_string(body.get("prompt"), "prompt")
    messages: list[Json] = []
    system = expect_string(body.get("system"), "system", required=False)
    if system:
        messages.append(agent_message("system", [text_part(system)]))
    messages.append(agent_message("user", [text_part(prompt), *_images(body, "the request body")]))
    request: Json = {"input": messages, "stream": True, "session_id": f"ollama_{uuid.uuid4().hex}"}
    _options(body, request)
    return request
