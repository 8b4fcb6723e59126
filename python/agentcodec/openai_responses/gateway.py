"""The OpenAI Responses API at the gateway (``agentcodec gateway``):
``POST /v1/responses`` and ``POST /compatible-mode/v1/responses`` (the path
an AgentScope AgentApp serves it on) take a Responses request and answer as
the API does: streamed (``stream: true``) as its events, or else the final
response as JSON. ``instructions`` and ``developer`` messages become system
messages, and a request without a ``conversation`` is a session of its own
(``agent_request_from_responses``). A dropped client resumes with
``Last-Event-ID``, or as the API has its clients do, by the response's id:
``GET /v1/responses/{response_id}`` gives a streamed response as it stands
(openai-python's ``responses.retrieve``), and with ``stream=true`` its
events after ``starting_after`` (a ``sequence_number``), followed live
until it ends, from any replica sharing the replay store.

``background: true`` runs the agent without holding the client: the answer
is the response as it stands once created, and the run goes on to its end
whoever reads it (streamed too: a background stream is not abandoned when
its client leaves). ``POST /v1/responses/{response_id}/cancel`` cancels a
running response, on whichever replica sharing the store it runs.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, Final

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from .. import _protocols
from ..gateway._body import json_body
from ..gateway._cancels import Cancels, follow
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
    json_text,
    text_part,
)
from ..gateway._upstream import UpstreamError
from ..server import ReplayError
from ..server._closing import closed
from ..server._response import recording

if TYPE_CHECKING:
    from ..gateway import Gateway

__all__ = ["Endpoint", "agent_request_from_responses", "error_body", "response_alias"]

PATHS = ("/compatible-mode/v1/responses", "/v1/responses")


PROTOCOL: Final = "openai-responses"

#: How long a cancel waits for the run's end to be recorded, before it
#: answers the response as it stands.
_CANCEL_WAIT = 5.0


def response_alias(response_id: str) -> str:
    """The store alias naming a streamed response's run."""
    return f"openai-responses.response.{response_id}"


def _response_id_in(chunk: bytes) -> str | None:
    """The id of the response a stream's first chunk opens: its first
    event's (``response.created``)."""
    for line in chunk.split(b"\n"):
        if line.startswith(b"data:"):
            try:
                event = json.loads(line[5:])
            except ValueError:
                return None
            if not isinstance(event, dict) or event.get("type") != "response.created":
                return None
            response = event.get("response")
            response_id = response.get("id") if isinstance(response, dict) else None
            return response_id if isinstance(response_id, str) and response_id else None
    return None


def error_body(status: int, code: str, message: str) -> Json:
    """An error as OpenAI's APIs word one (both of its streaming APIs alike):
    ``{"error": {"message", "type", "param", "code"}}``, which openai-python
    reads into ``APIError``. ``type`` is the API's for the status: a request
    refused is an ``invalid_request_error`` (a missing key too, as the API
    answers one), a rate limit ``requests``, the server's own failing a
    ``server_error``. ``param`` is null: the message says where."""
    if status >= 500:
        kind = "server_error"
    elif status == 429:
        kind = "requests"
    else:
        kind = "invalid_request_error"
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


class Endpoint:
    """``POST /v1/responses`` (and the AgentApp's path for it): a run, as
    the Responses API answers one."""

    public_paths: frozenset[str] = frozenset()
    error_body = staticmethod(error_body)

    def __init__(self, gateway: Gateway) -> None:
        self._gateway = gateway
        # The runs going on here, by their response's id.
        self._cancels = Cancels(gateway)

    def routes(self) -> list[BaseRoute]:
        routes: list[BaseRoute] = []
        for path in PATHS:
            routes.append(Route(path, self.handle, methods=["POST"]))
            routes.append(Route(f"{path}/{{response_id}}", self.retrieve, methods=["GET"]))
            routes.append(Route(f"{path}/{{response_id}}/cancel", self.cancel, methods=["POST"]))
        return routes

    def streams(self, path: str) -> bool:
        return path in PATHS

    async def handle(self, request: Request) -> Response:
        gateway = self._gateway
        resumed = gateway.resumed(request, PROTOCOL)
        if resumed is not None:
            return resumed
        try:
            body = await json_body(request, gateway.max_body_bytes)
            agent_request = agent_request_from_responses(body)
            background = _background_asked(body)
        except RequestError as exc:
            return error_response(exc.status, exc.code, str(exc), PROTOCOL)
        options = {"model": body["model"]} if isinstance(body.get("model"), str) else {}
        if body.get("stream") or background:
            return await self._run(request, agent_request, options, bool(body.get("stream")), background)
        # Not streamed: the final response, as the Responses API answers it
        # (a failed run is a failed response).
        return await gateway.run_whole(request, agent_request, PROTOCOL, failed_as_error=False, **options)

    async def _run(
        self,
        request: Request,
        agent_request: Json,
        options: dict[str, Any],
        streamed: bool,
        background: bool,
    ) -> Response:
        """A run recorded in the store, its response retrievable and
        cancelable by its id: streamed to the client (abandoned once no
        client reads it, unless in the background), or else, in the
        background, answered with the response as it stands once created,
        and run to its end."""
        gateway = self._gateway
        store = gateway.store
        cancel = asyncio.Event()
        abandoned = None if background else asyncio.Event()
        try:
            chunks = await gateway.start_run(agent_request, request, cancelled=cancel, abandoned=abandoned)
        except UpstreamError as exc:
            return error_response(exc.status, exc.code, exc.message, PROTOCOL)
        try:
            stream_id = await store.open()
        except BaseException:
            await closed(chunks)  # the run started: it is ended, not left behind
            raise
        converting = gateway.converted(chunks, PROTOCOL, **options)
        frames = self._cancels.watched(converting, stream_id, cancel, named_by=self._naming(stream_id))
        if streamed:
            return gateway.event_stream(
                frames, PROTOCOL, store=store, abandoned=abandoned, stream_id=stream_id
            )
        recording(store, stream_id, frames)
        assembler = _protocols.assembler(PROTOCOL)

        def created(frame: bytes) -> bool:
            assembler.feed(frame)
            return True  # the response as it stands once created; the run goes on

        await follow(store, stream_id, created)
        return JSONResponse(assembler.result)

    def _naming(self, stream_id: str) -> Callable[[bytes], Awaitable[str | None]]:
        """What reads the run's response id from its first frame and names
        the run's stream by it in the store, before that frame goes on."""

        async def named(frame: bytes) -> str | None:
            response_id = _response_id_in(frame)
            if response_id:
                await self._gateway.store.set_alias(response_alias(response_id), stream_id)
            return response_id

        return named

    async def cancel(self, request: Request) -> Response:
        """A running response, cancelled upstream: here, or through the store
        on the replica it runs on. The answer is the response once its end
        is recorded (``cancelled``), or as it stands after a few seconds;
        one that has ended is the response as it ended."""
        gateway, response_id = self._gateway, request.path_params["response_id"]
        store = gateway.store
        stream_id = await store.resolve_alias(response_alias(response_id))
        if stream_id is None:
            return error_response(404, "not_found", _not_kept(response_id), PROTOCOL)
        assembler = _protocols.assembler(PROTOCOL)
        try:
            if not await self._cancels.cancel(response_id, stream_id):
                return await self._stored(response_id, stream_id)
            await follow(store, stream_id, assembler.feed, _CANCEL_WAIT)
        except ReplayError:
            return error_response(404, "not_found", _not_kept(response_id), PROTOCOL)
        except NotImplementedError:
            said = (
                f"response {response_id!r} runs on another replica of the gateway,"
                " and the store carries no request to stop it"
            )
            return error_response(409, "conflict", said, PROTOCOL)
        # The response once its end is recorded, or as it stands after the wait.
        return JSONResponse(assembler.result)

    async def retrieve(self, request: Request) -> Response:
        """A streamed response by its id: as it stands (the events the store
        holds, assembled), or with ``stream=true`` its events after
        ``starting_after`` and then live. A response the store does not hold
        (not streamed, unknown, or past the store's keeping) is not found."""
        gateway, response_id = self._gateway, request.path_params["response_id"]
        try:
            streamed = _flag(request.query_params.get("stream"), "stream")
            starting_after = _sequence_number(request.query_params.get("starting_after"))
        except RequestError as exc:
            return error_response(exc.status, exc.code, str(exc), PROTOCOL)
        stream_id = await gateway.store.resolve_alias(response_alias(response_id))
        if stream_id is None:
            return error_response(404, "not_found", _not_kept(response_id), PROTOCOL)
        if streamed:
            # The encoder numbers the events from 0, the store from 1.
            after = 0 if starting_after is None else starting_after + 1
            return gateway.event_stream(
                (), PROTOCOL, store=gateway.store, replay_stream=stream_id, replay_after=after
            )
        return await self._stored(response_id, stream_id)

    async def _stored(self, response_id: str, stream_id: str) -> Response:
        """The response as the store holds it: its events so far, assembled."""
        try:
            entries, _ = await self._gateway.store.stored(stream_id)
        except ReplayError:
            return error_response(404, "not_found", _not_kept(response_id), PROTOCOL)
        assembler = _protocols.assembler(PROTOCOL)
        for _, frame in entries:
            assembler.feed(frame)
        return JSONResponse(assembler.result)


def _not_kept(response_id: str) -> str:
    return (
        f"no response {response_id!r} is kept here: streamed and background responses are,"
        " while the store keeps them"
    )


def _background_asked(body: Any) -> bool:
    background = body.get("background")
    if background is not None and not isinstance(background, bool):
        raise RequestError(f"background must be a boolean, not {type(background).__name__}")
    return bool(background)


def _flag(value: str | None, name: str) -> bool:
    if value is None or value in ("false", "False", "0"):
        return False
    if value in ("true", "True", "1"):
        return True
    raise RequestError(f"{name} must be true or false, not {value!r}")


def _sequence_number(value: str | None) -> int | None:
    if value is None:
        return None
    if not value.isascii() or not value.isdigit() or len(value) > 18:
        raise RequestError(f"starting_after must be an event's sequence_number (0 or more), not {value!r}")
    return int(value)


# Fields the Responses API and the AgentRequest share, by the AgentRequest's name.
_FIELDS = {
    "model": "model",
    "temperature": "temperature",
    "top_p": "top_p",
    "max_output_tokens": "max_tokens",
    "user": "user_id",
    "previous_response_id": "previous_response_id",
    "metadata": "metadata",
}


def _part(part: Any, where: str) -> Json | None:
    part = expect_object(part, where)
    kind = part.get("type")
    if kind in ("input_text", "output_text", "text", "summary_text", "reasoning_text"):
        return text_part(expect_string(part.get("text"), f"{where}.text"))
    if kind == "refusal":
        return {"type": "refusal", "refusal": expect_string(part.get("refusal"), f"{where}.refusal")}
    if kind == "input_image":
        if part.get("image_url"):
            return {"type": "image", "image_url": part["image_url"]}
        return {"type": "file", "file_id": part.get("file_id")}
    if kind == "input_audio":
        audio = expect_object(part.get("input_audio"), f"{where}.input_audio")
        return {"type": "audio", "data": audio.get("data"), "format": audio.get("format")}
    if kind == "input_file":
        fields = ("file_url", "file_id", "filename", "file_data")
        return {"type": "file", **{field: part[field] for field in fields if part.get(field) is not None}}
    raise RequestError(f"{where}.type {kind!r} is not a Responses input content part")


def _item(item: Any, where: str) -> Json:
    item = expect_object(item, where)
    kind = item.get("type") or ("message" if "role" in item else None)
    if kind == "message":
        role = item.get("role", "user")
        if role == "developer":
            role = "system"  # the Agent API has no developer role; the AgentApp drops these
        content = item.get("content")
        if isinstance(content, str):
            parts = [text_part(content)]
        else:
            read = (
                _part(p, f"{where}.content[{i}]")
                for i, p in enumerate(expect_list(content, f"{where}.content"))
            )
            parts = [part for part in read if part is not None]
        return agent_message(role, parts, message_id=item.get("id"))
    if kind == "reasoning":
        texts = [
            text_part(expect_string(p.get("text"), f"{where}.content[{i}].text"))
            for i, p in enumerate(expect_list(item.get("content") or item.get("summary"), f"{where}.content"))
            if isinstance(p, Mapping)
        ]
        return agent_message("assistant", texts, kind="reasoning", message_id=item.get("id"))
    if kind in ("function_call", "custom_tool_call"):
        arguments = item.get("arguments") if kind == "function_call" else item.get("input")
        call = function_call(
            expect_string(item.get("call_id"), f"{where}.call_id"),
            expect_string(item.get("name"), f"{where}.name"),
            expect_string(arguments if arguments is not None else "", f"{where}.arguments"),
        )
        message_kind = "function_call" if kind == "function_call" else "plugin_call"
        return agent_message("assistant", [call], kind=message_kind, message_id=item.get("id"))
    if kind in ("function_call_output", "custom_tool_call_output"):
        output = function_output(
            expect_string(item.get("call_id"), f"{where}.call_id"), json_text(item.get("output", ""))
        )
        message_kind = "function_call_output" if kind == "function_call_output" else "plugin_call_output"
        return agent_message("tool", [output], kind=message_kind, message_id=item.get("id"))
    raise RequestError(f"{where}.type {kind!r} is not a Responses input item this gateway forwards")


def agent_request_from_responses(body: Any) -> Json:
    """A Responses API request (``POST /v1/responses``) as an AgentRequest;
    its ``conversation`` is the session (a new one without it)."""
    body = expect_object(body, "the request body")
    messages: list[Json] = []
    instructions = body.get("instructions")
    if isinstance(instructions, str) and instructions:
        messages.append(agent_message("system", [text_part(instructions)]))
    given = body.get("input")
    if isinstance(given, str):
        messages.append(agent_message("user", [text_part(given)]))
    else:
        messages.extend(_item(item, f"input[{i}]") for i, item in enumerate(expect_list(given, "input")))
    request: Json = {"input": messages, "stream": True}
    for theirs, ours in _FIELDS.items():
        if body.get(theirs) is not None:
            request[ours] = body[theirs]
    conversation = body.get("conversation")
    if isinstance(conversation, Mapping):
        conversation = conversation.get("id")
    # Without a conversation, a request is a conversation of its own: an
    # AgentApp runs one request per session at a time and keeps the
    # session's memory, so a shared default would refuse concurrent
    # requests and mix their histories.
    request["session_id"] = str(conversation) if conversation is not None else f"resp_{uuid.uuid4().hex}"
    tools = []
    for i, given_tool in enumerate(expect_list(body.get("tools"), "tools")):
        tool = expect_object(given_tool, f"tools[{i}]")
        if tool.get("type", "function") == "function" and tool.get("name"):
            tools.append(
                function_tool(
                    expect_string(tool["name"], f"tools[{i}].name"),
                    tool.get("description"),
                    tool.get("parameters"),
                )
            )
    if tools:
        request["tools"] = tools
    return request
