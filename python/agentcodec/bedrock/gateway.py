"""Bedrock's Converse API at the gateway (``agentcodec gateway``):
``POST /model/{modelId}/converse-stream`` answers as ConverseStream does,
with the AWS event stream, and ``POST /model/{modelId}/converse`` with the
final response as JSON. Point an AWS SDK's ``bedrock-runtime`` client at the
gateway (``endpoint_url``) and the agent is its model (the request's
signature is not checked: the gateway's ``--api-key`` is the gateway's
guard).

The request's whole history is its ``messages``, so each request is a
session of its own (``agent_request_from_converse``). As for any client
whose loop runs the tool uses it reads, the calls the agent ran itself are
left out and a call left to the client is written. An event stream has no
event ids: a dropped client cannot resume, and its run is cancelled.
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
    function_tool,
    json_text,
    text_part,
)

if TYPE_CHECKING:
    from ..gateway import Gateway

__all__ = ["Endpoint", "agent_request_from_converse"]

STREAM, WHOLE = "/converse-stream", "/converse"


class Endpoint:
    """``POST /model/{modelId}/converse-stream`` and ``/converse``: a run,
    as Bedrock answers one."""

    public_paths: frozenset[str] = frozenset()

    def __init__(self, gateway: Gateway) -> None:
        self._gateway = gateway

    def routes(self) -> list[BaseRoute]:
        return [
            Route(f"/model/{{model}}{STREAM}", self.stream, methods=["POST"]),
            Route(f"/model/{{model}}{WHOLE}", self.whole, methods=["POST"]),
        ]

    def streams(self, path: str) -> bool:
        return path.startswith("/model/") and path.endswith((STREAM, WHOLE))

    async def stream(self, request: Request) -> Response:
        parsed = await self._parsed(request)
        if isinstance(parsed, Response):
            return parsed
        return await self._gateway.run(request, parsed, "bedrock", executed_tool_calls="omit")

    async def whole(self, request: Request) -> Response:
        parsed = await self._parsed(request)
        if isinstance(parsed, Response):
            return parsed
        return await self._gateway.run_whole(request, parsed, "bedrock", executed_tool_calls="omit")

    async def _parsed(self, request: Request) -> Json | Response:
        try:
            body = await json_body(request, self._gateway.max_body_bytes)
            return agent_request_from_converse(body, model=request.path_params["model"])
        except RequestError as exc:
            return error_response(exc.status, exc.code, str(exc))


def _media(block: Mapping[str, Any], kind: str, where: str) -> Json:
    """An image's or a document's block as the Agent API's part."""
    given = expect_object(block[kind], f"{where}.{kind}")
    source = expect_object(given.get("source"), f"{where}.{kind}.source")
    media = (
        f"image/{given.get('format', '*')}" if kind == "image" else f"application/{given.get('format', '*')}"
    )
    if isinstance(source.get("bytes"), str):
        url = f"data:{media};base64,{source['bytes']}"
    elif isinstance(source.get("s3Location"), Mapping):
        url = expect_string(source["s3Location"].get("uri"), f"{where}.{kind}.source.s3Location.uri")
    else:
        raise RequestError(f"{where}.{kind}.source holds no bytes or s3Location this gateway forwards")
    if kind == "image":
        return {"type": "image", "image_url": url}
    return {"type": "file", "file_data" if url.startswith("data:") else "file_url": url}


def _tool_result(block: Mapping[str, Any], where: str) -> Json:
    result = expect_object(block["toolResult"], f"{where}.toolResult")
    call_id = expect_string(result.get("toolUseId"), f"{where}.toolResult.toolUseId")
    pieces = []
    for i, given in enumerate(expect_list(result.get("content"), f"{where}.toolResult.content")):
        piece = expect_object(given, f"{where}.toolResult.content[{i}]")
        if isinstance(piece.get("text"), str):
            pieces.append(piece["text"])
        elif "json" in piece:
            pieces.append(json_text(piece["json"]))
        else:
            raise RequestError(f"{where}.toolResult.content[{i}] is no text or json this gateway forwards")
    output = "".join(pieces)
    if result.get("status") == "error":
        output = json.dumps({"error": output}, ensure_ascii=False)
    return agent_message("tool", [function_output(call_id, output)], kind="function_call_output")


def _message(message: Any, where: str) -> list[Json]:
    message = expect_object(message, where)
    role = message.get("role")
    if role not in ("user", "assistant"):
        raise RequestError(f"{where}.role {role!r} is not a Converse role (user or assistant)")
    out: list[Json] = []
    held: list[Json] = []
    calls: list[Json] = []
    for i, given in enumerate(expect_list(message.get("content"), f"{where}.content")):
        at = f"{where}.content[{i}]"
        block = expect_object(given, at)
        if isinstance(block.get("text"), str):
            if role == "assistant":
                out.append(agent_message("assistant", [text_part(block["text"])]))
            else:
                held.append(text_part(block["text"]))
        elif role == "user" and ("image" in block or "document" in block):
            held.append(_media(block, "image" if "image" in block else "document", at))
        elif role == "user" and "toolResult" in block:
            out.append(_tool_result(block, at))
        elif role == "assistant" and "toolUse" in block:
            use = expect_object(block["toolUse"], f"{at}.toolUse")
            arguments = json.dumps(
                expect_object(use.get("input", {}), f"{at}.toolUse.input"), ensure_ascii=False
            )
            calls.append(
                function_call(
                    expect_string(use.get("toolUseId"), f"{at}.toolUse.toolUseId"),
                    expect_string(use.get("name"), f"{at}.toolUse.name"),
                    arguments,
                )
            )
        elif role == "assistant" and "reasoningContent" in block:
            reasoning = expect_object(block["reasoningContent"], f"{at}.reasoningContent")
            text = reasoning.get("reasoningText")
            if isinstance(text, Mapping) and isinstance(text.get("text"), str):
                out.append(agent_message("assistant", [text_part(text["text"])], kind="reasoning"))
            # (redactedContent is encrypted for the model that wrote it: nothing an agent reads)
        else:
            raise RequestError(f"{at} is no content block of a {role} message this gateway forwards")
    if calls:
        out.append(agent_message("assistant", calls, kind="function_call"))
    if held:
        out.append(agent_message("user", held))
    return out


def agent_request_from_converse(body: Any, *, model: str | None = None) -> Json:
    """A Converse request as an AgentRequest: its ``system`` and messages
    the input, each request a session of its own."""
    body = expect_object(body, "the request body")
    given = expect_list(body.get("messages"), "messages")
    if not given:
        raise RequestError("messages is required: at least one message")
    messages: list[Json] = []
    system = [
        expect_object(block, f"system[{i}]").get("text")
        for i, block in enumerate(expect_list(body.get("system"), "system"))
    ]
    texts = [text for text in system if isinstance(text, str)]
    if texts:
        messages.append(agent_message("system", [text_part("".join(texts))]))
    for i, message in enumerate(given):
        messages.extend(_message(message, f"messages[{i}]"))
    request: Json = {"input": messages, "stream": True, "session_id": f"converse_{uuid.uuid4().hex}"}
    if model:
        request["model"] = model
    config = body.get("inferenceConfig")
    if config is not None:
        config = expect_object(config, "inferenceConfig")
        for theirs, ours in (("temperature", "temperature"), ("topP", "top_p"), ("maxTokens", "max_tokens")):
            if config.get(theirs) is not None:
                request[ours] = config[theirs]
    tool_config = body.get("toolConfig")
    tools = []
    if tool_config is not None:
        for i, given_tool in enumerate(
            expect_list(expect_object(tool_config, "toolConfig").get("tools"), "toolConfig.tools")
        ):
            at = f"toolConfig.tools[{i}]"
            spec = expect_object(expect_object(given_tool, at).get("toolSpec"), f"{at}.toolSpec")
            schema = spec.get("inputSchema")
            tools.append(
                function_tool(
                    expect_string(spec.get("name"), f"{at}.toolSpec.name"),
                    spec.get("description"),
                    schema.get("json") if isinstance(schema, Mapping) else None,
                )
            )
    if tools:
        request["tools"] = tools
    return request
