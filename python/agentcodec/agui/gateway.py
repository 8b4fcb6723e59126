"""AG-UI at the gateway (``agentcodec gateway``): ``POST /ag-ui`` takes a
``RunAgentInput`` and streams the agent's run as AG-UI events, as an
AgentScope AgentApp's ``/ag-ui`` does: its thread and run ids are the
AgentRequest's ``session_id`` and ``id``, and the run's events carry them.
What the AgentApp's adapter drops is kept (``agent_request_from_agui``).
A dropped client resumes with ``Last-Event-ID``.
"""

from __future__ import annotations

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
    function_tool,
    json_text,
    pick,
    text_part,
)

if TYPE_CHECKING:
    from ..gateway import Gateway

__all__ = ["Endpoint", "agent_request_from_agui"]

PATH = "/ag-ui"


class Endpoint:
    """``POST /ag-ui``: a run, streamed as AG-UI events."""

    public_paths: frozenset[str] = frozenset()

    def __init__(self, gateway: Gateway) -> None:
        self._gateway = gateway

    def routes(self) -> list[BaseRoute]:
        return [Route(PATH, self.handle, methods=["POST"])]

    def streams(self, path: str) -> bool:
        return path == PATH

    async def handle(self, request: Request) -> Response:
        gateway = self._gateway
        resumed = gateway.resumed(request, "agui")
        if resumed is not None:
            return resumed
        try:
            body = await json_body(request, gateway.max_body_bytes)
            agent_request, thread_id, run_id = agent_request_from_agui(body)
        except RequestError as exc:
            return error_response(exc.status, exc.code, str(exc))
        return await gateway.run(request, agent_request, "agui", thread_id=thread_id, run_id=run_id)


def _source_url(source: Mapping[str, Any]) -> str:
    """An AG-UI part's source as the URL the Agent API takes: a data source
    becomes a ``data:`` URL."""
    value = source.get("value", "")
    if source.get("type") == "data":
        return f"data:{source.get('mimeType') or 'application/octet-stream'};base64,{value}"
    return str(value)


def _part(part: Any, where: str) -> Json:
    part = expect_object(part, where)
    kind = part.get("type")
    if kind == "text":
        return text_part(expect_string(part.get("text"), f"{where}.text"))
    if kind in ("image", "audio", "video", "document"):
        source = expect_object(part.get("source"), f"{where}.source")
        url = _source_url(source)
        if kind == "image":
            return {"type": "image", "image_url": url}
        if kind == "audio":
            mime = source.get("mimeType") or ""
            return {"type": "audio", "data": url, "format": mime.partition("/")[2] or None}
        if kind == "video":
            return {"type": "video", "video_url": url}
        if source.get("type") == "file":
            return {"type": "file", "file_id": str(source.get("value", ""))}
        return {"type": "file", "file_url": url}
    if kind == "binary":  # ag-ui-protocol before 1.0
        mime = part.get("mimeType") or ""
        binary_url = part.get("url") or (f"data:{mime};base64,{part['data']}" if part.get("data") else None)
        if mime.startswith("image/") and binary_url:
            return {"type": "image", "image_url": binary_url}
        return {"type": "data", "data": dict(part)}
    raise RequestError(f"{where}.type {kind!r} is not an AG-UI content part")


def _content(content: Any, where: str) -> list[Json]:
    if isinstance(content, str):
        return [text_part(content)]
    return [_part(part, f"{where}[{i}]") for i, part in enumerate(expect_list(content, where))]


def _message(message: Any, where: str) -> list[Json]:
    message = expect_object(message, where)
    role = message.get("role")
    message_id = message.get("id")
    if role in ("system", "developer"):
        return [
            agent_message(
                "system",
                [text_part(expect_string(message.get("content"), f"{where}.content"))],
                message_id=message_id,
            )
        ]
    if role == "user":
        return [
            agent_message("user", _content(message.get("content"), f"{where}.content"), message_id=message_id)
        ]
    if role == "reasoning":
        text = expect_string(message.get("content"), f"{where}.content")
        return [agent_message("assistant", [text_part(text)], kind="reasoning", message_id=message_id)]
    if role == "assistant":
        out: list[Json] = []
        text = expect_string(message.get("content"), f"{where}.content", required=False)
        calls = expect_list(message.get("toolCalls", message.get("tool_calls")), f"{where}.toolCalls")
        if text:
            out.append(agent_message("assistant", [text_part(text)], message_id=message_id))
        if calls:
            content = []
            for i, given_call in enumerate(calls):
                call = expect_object(given_call, f"{where}.toolCalls[{i}]")
                function = expect_object(call.get("function"), f"{where}.toolCalls[{i}].function")
                content.append(
                    function_call(
                        expect_string(call.get("id"), f"{where}.toolCalls[{i}].id"),
                        expect_string(function.get("name"), f"{where}.toolCalls[{i}].function.name"),
                        expect_string(
                            function.get("arguments", "{}"), f"{where}.toolCalls[{i}].function.arguments"
                        ),
                    )
                )
            # Both kept: the AgentApp drops the text of a message that calls tools.
            calls_id = f"{message_id}_calls" if text and isinstance(message_id, str) else message_id
            out.append(agent_message("assistant", content, kind="function_call", message_id=calls_id))
        return out
    if role == "tool":
        call_id = expect_string(message.get("toolCallId", message.get("tool_call_id")), f"{where}.toolCallId")
        content = message.get("content")
        output = content if isinstance(content, str) else json_text(_content(content, f"{where}.content"))
        error = message.get("error")
        if not output and isinstance(error, str) and error:
            output = f"error: {error}"
        return [
            agent_message(
                "tool",
                [function_output(call_id, output)],
                kind="function_call_output",
                message_id=message_id,
            )
        ]
    if role == "activity":
        return []  # UI state of the client's own, nothing the agent reads
    raise RequestError(f"{where}.role {role!r} is not an AG-UI message role")


def agent_request_from_agui(body: Any) -> tuple[Json, str, str]:
    """An AG-UI ``RunAgentInput`` as an AgentRequest, with its thread and run
    ids (the AgentRequest's ``session_id`` and ``id``, as an AgentApp has them)."""
    body = expect_object(body, "the request body")
    thread_id = expect_string(pick(body, "threadId", "thread_id"), "threadId")
    run_id = expect_string(pick(body, "runId", "run_id"), "runId")
    messages: list[Json] = []
    for i, message in enumerate(expect_list(body.get("messages"), "messages")):
        messages.extend(_message(message, f"messages[{i}]"))
    forwarded = pick(body, "forwardedProps", "forwarded_props")
    user_id = "default_user_id"
    if isinstance(forwarded, Mapping):
        user_id = forwarded.get("user_id", forwarded.get("userId", user_id))
    tools = []
    for i, given_tool in enumerate(expect_list(body.get("tools"), "tools")):
        tool = expect_object(given_tool, f"tools[{i}]")
        tools.append(
            function_tool(
                expect_string(tool.get("name"), f"tools[{i}].name"),
                tool.get("description"),
                tool.get("parameters"),
            )
        )
    request: Json = {
        "input": messages,
        "stream": True,
        "id": run_id,
        "session_id": thread_id,
        "user_id": user_id,
        "tools": tools,
        "state": body.get("state"),
        "forwarded_props": forwarded,
        "parent_run_id": pick(body, "parentRunId", "parent_run_id"),
        "context": body.get("context"),
    }
    return request, thread_id, run_id
