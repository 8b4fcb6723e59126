"""The LangChain Agent Streaming Protocol at the gateway (``agentcodec
gateway``), on its SSE transport:

- ``POST /threads/{thread_id}/commands``: ``run.start`` runs the agent on
  the command's input (``agent_request_from_langchain``), the thread being
  the agent's session, and answers the run's id; the run's events are kept
  in the replay store, the thread's latest run named by a store alias;
- ``POST /threads/{thread_id}/stream/events``: the thread's latest run
  (waiting for one to start, on any replica sharing the store), the events
  the ``EventStreamRequest``'s subscription selects, each with its ``seq``
  as id; it resumes after the protocol's own ``since`` or ``Last-Event-ID``.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from .._backend import impl
from ..gateway._body import json_body
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
from ..gateway._upstream import UpstreamError
from ..server import ReplayError
from ..server._closing import closed
from ..server._response import recording
from .subscriptions import Subscription

if TYPE_CHECKING:
    from ..gateway import Gateway

__all__ = ["Endpoint", "agent_request_from_langchain"]


def thread_alias(thread_id: str) -> str:
    """The store alias naming a thread's latest run."""
    return f"langchain-thread:{thread_id}"


class Endpoint:
    """The protocol's commands and event streams, by thread."""

    public_paths: frozenset[str] = frozenset()

    def __init__(self, gateway: Gateway) -> None:
        self._gateway = gateway

    def routes(self) -> list[BaseRoute]:
        return [
            Route("/threads/{thread_id}/commands", self.command, methods=["POST"]),
            Route("/threads/{thread_id}/stream/events", self.events, methods=["POST"]),
        ]

    def streams(self, path: str) -> bool:
        return path.startswith("/threads/") and path.endswith("/stream/events")

    async def command(self, request: Request) -> Response:
        gateway = self._gateway
        thread_id = request.path_params["thread_id"]
        command_id = None
        try:
            command = await json_body(request, gateway.max_body_bytes)
            if not isinstance(command, Mapping):
                raise RequestError("a command is a JSON object")
            command_id = command.get("id")
            method = command.get("method")
            if method != "run.start":
                return JSONResponse(
                    {
                        "type": "error",
                        "id": command_id,
                        "error": "unknown_command" if isinstance(method, str) else "invalid_argument",
                        "message": f"this gateway runs the agent with run.start, not {method!r}",
                    },
                    status_code=400,
                )
            agent_request = agent_request_from_langchain(command.get("params"), thread_id)
        except RequestError as exc:
            return JSONResponse(
                {"type": "error", "id": command_id, "error": "invalid_argument", "message": str(exc)},
                status_code=exc.status,
            )
        try:
            chunks = await gateway.start_run(agent_request, request)
        except UpstreamError as exc:
            return JSONResponse(
                {
                    "type": "error",
                    "id": command_id,
                    "error": "unknown_error" if exc.status >= 500 else "invalid_argument",
                    "message": exc.message,
                },
                status_code=exc.status,
            )
        run_id = await gateway.store.open()
        recording(gateway.store, run_id, gateway.converted(chunks, "langchain"))
        await gateway.store.set_alias(thread_alias(thread_id), run_id)
        return JSONResponse({"type": "success", "id": command_id, "result": {"runId": run_id}})

    async def events(self, request: Request) -> Response:
        gateway = self._gateway
        thread_id = request.path_params["thread_id"]
        try:
            body = await json_body(request, gateway.max_body_bytes)
            if not isinstance(body, Mapping):
                raise RequestError("an EventStreamRequest is a JSON object")
            subscription = Subscription.from_request(dict(body))
            since = body.get("since", 0)
            if since is None:
                since = 0
            if isinstance(since, bool) or not isinstance(since, int) or since < 0:
                raise RequestError(f"since must be a non-negative integer, not {since!r}")
            last_event_id = request.headers.get("last-event-id", "")
            if last_event_id.isascii() and last_event_id.isdigit():
                since = max(since, int(last_event_id))
        except (RequestError, ValueError) as exc:
            status = exc.status if isinstance(exc, RequestError) else 400
            return JSONResponse({"error": "invalid_argument", "message": str(exc)}, status_code=status)
        alias = thread_alias(thread_id)
        run_id = await gateway.store.resolve_alias(alias)
        entries = None
        if run_id is not None:
            try:
                entries = await gateway.store.replay(run_id, since)
            except ReplayError as exc:
                return JSONResponse({"error": "resume_gap", "message": str(exc)}, status_code=410)
        return gateway.event_stream(self._follow(alias, entries, since, subscription), "langchain")

    async def _follow(
        self,
        alias: str,
        entries: AsyncIterator[tuple[int, bytes]] | None,
        since: int,
        subscription: Subscription,
    ) -> AsyncIterator[bytes]:
        """The thread's run (waiting for one to start, on any replica), its
        events after ``since`` that the subscription selects, each with its
        ``seq`` as id."""
        if entries is None:
            run_id = await self._gateway.store.resolve_alias(alias, timeout=None)
            if run_id is None:
                return
            entries = await self._gateway.store.replay(run_id, since)
        decoder = impl.SSEDecoder(max_line_bytes=None, max_event_bytes=None)
        try:
            async for number, frame in entries:
                for event in decoder.feed(frame):
                    envelope = json.loads(event.data)
                    if subscription.matches(envelope):
                        yield f"id: {number}\n".encode() + frame
        finally:
            await closed(entries)


_ROLES = {
    "human": "user",
    "user": "user",
    "ai": "assistant",
    "assistant": "assistant",
    "system": "system",
}


def _message(message: Any, where: str) -> list[Json]:
    if isinstance(message, str):
        return [agent_message("user", [text_part(message)])]
    message = expect_object(message, where)
    role = message.get("role", message.get("type"))
    content = message.get("content", "")
    message_id = message.get("id")
    if role == "tool":
        call_id = expect_string(message.get("tool_call_id"), f"{where}.tool_call_id")
        return [
            agent_message(
                "tool",
                [function_output(call_id, json_text(content))],
                kind="function_call_output",
                message_id=message_id,
            )
        ]
    if role not in _ROLES:
        raise RequestError(f"{where}.role {role!r} is not a message role this gateway forwards")
    parts: list[Json] = []
    if isinstance(content, str):
        if content:
            parts.append(text_part(content))
    else:
        for i, given_block in enumerate(expect_list(content, f"{where}.content")):
            block = expect_object(given_block, f"{where}.content[{i}]")
            if block.get("type") == "text":
                parts.append(text_part(expect_string(block.get("text"), f"{where}.content[{i}].text")))
            elif block.get("type") in ("image", "image_url"):
                url = block.get("url") or block.get("image_url")
                if isinstance(url, Mapping):
                    url = url.get("url")
                parts.append({"type": "image", "image_url": url})
    out = (
        [agent_message(_ROLES[role], parts or [text_part("")], message_id=message_id)]
        if parts or role != "ai"
        else []
    )
    calls = expect_list(message.get("tool_calls"), f"{where}.tool_calls")
    if calls:
        content_calls = []
        for i, given_call in enumerate(calls):
            call = expect_object(given_call, f"{where}.tool_calls[{i}]")
            content_calls.append(
                function_call(
                    expect_string(call.get("id"), f"{where}.tool_calls[{i}].id"),
                    expect_string(call.get("name"), f"{where}.tool_calls[{i}].name"),
                    json_text(call.get("args", {})),
                )
            )
        out.append(agent_message("assistant", content_calls, kind="function_call"))
    return out


def agent_request_from_langchain(params: Any, thread_id: str) -> Json:
    """A LangChain protocol ``run.start`` command's params as an AgentRequest:
    ``input`` is a message, a list of them, or ``{"messages": [...]}``."""
    params = expect_object(params, "params")
    given = params.get("input")
    if isinstance(given, Mapping) and "messages" in given:
        given = given["messages"]
    items = given if isinstance(given, list) else [given]
    messages: list[Json] = []
    for i, message in enumerate(items):
        messages.extend(_message(message, f"params.input.messages[{i}]"))
    request: Json = {"input": messages, "stream": True, "session_id": thread_id}
    config = params.get("config")
    if isinstance(config, Mapping) and isinstance(config.get("configurable"), Mapping):
        user_id = config["configurable"].get("user_id")
        if isinstance(user_id, str):
            request["user_id"] = user_id
    return request
