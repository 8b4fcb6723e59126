"""The Vercel AI SDK UI message stream at the gateway (``agentcodec
gateway``): ``POST /ai-sdk/chat`` takes what ``useChat``'s
``DefaultChatTransport`` posts (``{"id", "messages": [UIMessage, ...],
"trigger"}``) and answers the run as a UI message stream, with the header
its readers look for. Point a chat at it with ``new DefaultChatTransport({
api: "<gateway>/ai-sdk/chat" })``. (The SDK's default, ``/api/chat``, is
left to a protocol whose clients cannot change their path.)

The request's ``messages`` are the whole chat, so each request is a session
of its own (``agent_request_from_ui_messages``). The agent's tool calls are
written with their outputs, as tool parts a UI shows; a call the agent
leaves to its client is written with its input, for the chat's
``onToolCall``. A dropped client resumes with ``Last-Event-ID``, and a chat
reloaded mid-run comes back for it by the chat's id (``GET
/ai-sdk/chat/{id}/stream``, what ``reconnectToStream`` asks).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import Response
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
    json_text,
    text_part,
)
from ..server import ReplayError

if TYPE_CHECKING:
    from ..gateway import Gateway

__all__ = ["Endpoint", "agent_request_from_ui_messages", "chat_alias"]

PATH = "/ai-sdk/chat"

# Parts a UI keeps for itself: nothing an agent reads.
_UI_ONLY = frozenset({"step-start", "source-url", "source-document"})


def chat_alias(chat_id: str) -> str:
    """The store alias naming a chat's latest run."""
    return f"ai-sdk.chat.{chat_id}"


class Endpoint:
    """``POST /ai-sdk/chat``: a run, as a UI message stream. ``GET
    /ai-sdk/chat/{id}/stream``: the chat's run while it goes on, from its
    start, for a chat that comes back for it (``useChat({ resume: true })``
    after a reload: ``DefaultChatTransport.reconnectToStream``); ``204`` when
    none goes on, ``410`` when the store no longer keeps its start."""

    public_paths: frozenset[str] = frozenset()

    def __init__(self, gateway: Gateway) -> None:
        self._gateway = gateway

    def routes(self) -> list[BaseRoute]:
        return [
            Route(PATH, self.handle, methods=["POST"]),
            Route(PATH + "/{chat_id}/stream", self.reconnect, methods=["GET"]),
        ]

    def streams(self, path: str) -> bool:
        return path == PATH

    async def handle(self, request: Request) -> Response:
        gateway = self._gateway
        resumed = gateway.resumed(request, "ai-sdk")
        if resumed is not None:
            return resumed
        try:
            body = await json_body(request, gateway.max_body_bytes)
            agent_request = agent_request_from_ui_messages(body)
        except RequestError as exc:
            return error_response(exc.status, exc.code, str(exc))
        chat_id = body.get("id")
        alias = chat_alias(chat_id) if isinstance(chat_id, str) and chat_id else None
        return await gateway.run(request, agent_request, "ai-sdk", alias=alias)

    async def reconnect(self, request: Request) -> Response:
        store = self._gateway.store
        stream_id = await store.resolve_alias(chat_alias(request.path_params["chat_id"]))
        if stream_id is None:
            return Response(status_code=204)
        try:
            finished = await store.finished(stream_id)
        except (ReplayError, NotImplementedError):
            finished = True  # expired, or a store that cannot tell: nothing to come back to
        if finished:
            # A run that ended is the chat's to have kept: sent again, it
            # would be a second copy of the answer.
            return Response(status_code=204)
        return self._gateway.event_stream((), "ai-sdk", store=store, replay_stream=stream_id)


def _file(part: Mapping[str, Any], where: str) -> Json:
    url = expect_string(part.get("url"), f"{where}.url")
    media = expect_string(part.get("mediaType"), f"{where}.mediaType")
    if media.startswith("image/"):
        return {"type": "image", "image_url": url}
    file: Json = {"type": "file", "file_data" if url.startswith("data:") else "file_url": url}
    if isinstance(part.get("filename"), str):
        file["filename"] = part["filename"]
    return file


def _tool_name(part: Mapping[str, Any], where: str) -> str | None:
    """A tool part's tool (``tool-<name>``, or a dynamic tool's
    ``toolName``); None for a part of another kind."""
    kind = part.get("type")
    if kind == "dynamic-tool":
        return expect_string(part.get("toolName"), f"{where}.toolName")
    if isinstance(kind, str) and kind.startswith("tool-"):
        return kind.removeprefix("tool-")
    return None


def _tool(part: Mapping[str, Any], name: str, where: str) -> list[Json]:
    """A tool part as the agent's call and, once it has one, its output."""
    state = part.get("state")
    if state == "input-streaming":
        return []  # cut off while its input streamed: never called
    call_id = expect_string(part.get("toolCallId"), f"{where}.toolCallId")
    arguments = json.dumps(part.get("input", {}), ensure_ascii=False)
    out = [agent_message("assistant", [function_call(call_id, name, arguments)], kind="function_call")]
    if state == "output-available":
        output = json_text(part.get("output"))
    elif state == "output-error":
        output = json.dumps({"error": part.get("errorText")}, ensure_ascii=False)
    elif state == "output-denied":
        output = json.dumps({"error": "the user denied this call"})
    else:
        return out
    out.append(agent_message("tool", [function_output(call_id, output)], kind="function_call_output"))
    return out


def _message(message: Any, where: str) -> list[Json]:
    message = expect_object(message, where)
    role = message.get("role")
    if role not in ("system", "user", "assistant"):
        raise RequestError(f"{where}.role {role!r} is not a UIMessage role (system, user or assistant)")
    out: list[Json] = []
    held: list[Json] = []  # a user's or system's parts, one message of them

    for i, given in enumerate(expect_list(message.get("parts"), f"{where}.parts")):
        at = f"{where}.parts[{i}]"
        part = expect_object(given, at)
        kind = part.get("type")
        if kind == "text":
            text = text_part(expect_string(part.get("text"), f"{at}.text"))
            if role == "assistant":
                out.append(agent_message("assistant", [text]))
            else:
                held.append(text)
        elif kind == "reasoning" and role == "assistant":
            text = text_part(expect_string(part.get("text"), f"{at}.text"))
            out.append(agent_message("assistant", [text], kind="reasoning"))
        elif kind == "file" and role != "system":
            file = _file(part, at)
            if role == "assistant":
                out.append(agent_message("assistant", [file]))
            else:
                held.append(file)
        elif kind in _UI_ONLY or (isinstance(kind, str) and kind.startswith("data-")):
            continue
        elif role == "assistant" and (name := _tool_name(part, at)) is not None:
            out.extend(_tool(part, name, at))
        else:
            raise RequestError(f"{at}.type {kind!r} is not a part of a {role} message this gateway forwards")
    if held:
        out.append(agent_message(role, held))
    return out


def agent_request_from_ui_messages(body: Any) -> Json:
    """What ``useChat`` posts (``{"id", "messages", "trigger"}``) as an
    AgentRequest: its messages the input, each request a session of its own."""
    body = expect_object(body, "the request body")
    given = expect_list(body.get("messages"), "messages")
    if not given:
        raise RequestError("messages is required: at least one UIMessage")
    messages: list[Json] = []
    for i, message in enumerate(given):
        messages.extend(_message(message, f"messages[{i}]"))
    # The request holds the whole chat, so it is a session of its own: an
    # AgentApp keeps a session's memory, which would hold it twice.
    request: Json = {"input": messages, "stream": True, "session_id": f"chat_{uuid.uuid4().hex}"}
    return request
