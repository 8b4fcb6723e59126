"""Requests of each endpoint turned into the AgentScope Agent API request the
upstream ``/process`` takes (``AgentRequest``).

What an AgentApp's own adapters drop is kept: an assistant message with both
text and tool calls keeps its text, reasoning messages stay reasoning, the
Responses API's ``instructions`` and ``developer`` messages become system
messages, a tool result's error and content parts are both carried.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping
from typing import Any

__all__ = [
    "RequestError",
    "agent_request_from_agui",
    "agent_request_from_langchain",
    "agent_request_from_process",
    "agent_request_from_responses",
    "agent_message",
    "expect_list",
    "expect_object",
    "expect_string",
    "text_part",
]

Json = dict[str, Any]


class RequestError(ValueError):
    """A request the endpoint cannot take; the message says what and where.
    ``status`` and ``code`` are the HTTP status and error code it is
    answered with."""

    status = 400
    code = "invalid_request"


# --- the Agent API's pieces ----------------------------------------------------------------


def text_part(text: str) -> Json:
    return {"type": "text", "text": text}


def agent_message(role: str, content: list[Json], *, kind: str = "message", message_id: Any = None) -> Json:
    message: Json = {"role": role, "type": kind, "content": content}
    if isinstance(message_id, str) and message_id:
        message["id"] = message_id
    return message


def _function_call(call_id: str, name: str, arguments: str) -> Json:
    return {"type": "data", "data": {"call_id": call_id, "name": name, "arguments": arguments}}


def _function_output(call_id: str, output: str) -> Json:
    return {"type": "data", "data": {"call_id": call_id, "output": output}}


def _function_tool(name: str, description: Any, parameters: Any) -> Json:
    function: Json = {"name": name, "description": description if isinstance(description, str) else ""}
    function["parameters"] = (
        parameters if parameters is not None else {"type": "object", "properties": {}, "required": []}
    )
    return {"type": "function", "function": function}


def expect_object(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise RequestError(f"{where} must be a JSON object, not {type(value).__name__}")
    return value


def expect_list(value: Any, where: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise RequestError(f"{where} must be a JSON array, not {type(value).__name__}")
    return value


def expect_string(value: Any, where: str, *, required: bool = True) -> str:
    if value is None:
        if not required:
            return ""
        raise RequestError(f"{where} is required")
    if not isinstance(value, str):
        raise RequestError(f"{where} must be a string, not {type(value).__name__}")
    return value


def _json_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


# --- /process ------------------------------------------------------------------------------


def agent_request_from_process(body: Any) -> Json:
    """A ``/process`` body is an AgentRequest already: checked, not changed."""
    request = expect_object(body, "the request body")
    for position, message in enumerate(expect_list(request.get("input"), "input")):
        expect_object(message, f"input[{position}]")
    return dict(request)


# --- AG-UI ---------------------------------------------------------------------------------


def _pick(body: Mapping[str, Any], camel: str, snake: str) -> Any:
    return body[camel] if camel in body else body.get(snake)


def _agui_source_url(source: Mapping[str, Any]) -> str:
    """An AG-UI part's source as the URL the Agent API takes: a data source
    becomes a ``data:`` URL."""
    value = source.get("value", "")
    if source.get("type") == "data":
        return f"data:{source.get('mimeType') or 'application/octet-stream'};base64,{value}"
    return str(value)


def _agui_part(part: Any, where: str) -> Json:
    part = expect_object(part, where)
    kind = part.get("type")
    if kind == "text":
        return text_part(expect_string(part.get("text"), f"{where}.text"))
    if kind in ("image", "audio", "video", "document"):
        source = expect_object(part.get("source"), f"{where}.source")
        url = _agui_source_url(source)
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


def _agui_content(content: Any, where: str) -> list[Json]:
    if isinstance(content, str):
        return [text_part(content)]
    return [_agui_part(part, f"{where}[{i}]") for i, part in enumerate(expect_list(content, where))]


def _agui_message(message: Any, where: str) -> list[Json]:
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
            agent_message(
                "user", _agui_content(message.get("content"), f"{where}.content"), message_id=message_id
            )
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
                    _function_call(
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
        output = (
            content if isinstance(content, str) else _json_text(_agui_content(content, f"{where}.content"))
        )
        error = message.get("error")
        if not output and isinstance(error, str) and error:
            output = f"error: {error}"
        return [
            agent_message(
                "tool",
                [_function_output(call_id, output)],
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
    thread_id = expect_string(_pick(body, "threadId", "thread_id"), "threadId")
    run_id = expect_string(_pick(body, "runId", "run_id"), "runId")
    messages: list[Json] = []
    for i, message in enumerate(expect_list(body.get("messages"), "messages")):
        messages.extend(_agui_message(message, f"messages[{i}]"))
    forwarded = _pick(body, "forwardedProps", "forwarded_props")
    user_id = "default_user_id"
    if isinstance(forwarded, Mapping):
        user_id = forwarded.get("user_id", forwarded.get("userId", user_id))
    tools = []
    for i, given_tool in enumerate(expect_list(body.get("tools"), "tools")):
        tool = expect_object(given_tool, f"tools[{i}]")
        tools.append(
            _function_tool(
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
        "parent_run_id": _pick(body, "parentRunId", "parent_run_id"),
        "context": body.get("context"),
    }
    return request, thread_id, run_id


# --- OpenAI Responses ----------------------------------------------------------------------

# Fields the Responses API and the AgentRequest share, by the AgentRequest's name.
_RESPONSES_FIELDS = {
    "model": "model",
    "temperature": "temperature",
    "top_p": "top_p",
    "max_output_tokens": "max_tokens",
    "user": "user_id",
    "previous_response_id": "previous_response_id",
    "metadata": "metadata",
}


def _responses_part(part: Any, where: str) -> Json | None:
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


def _responses_item(item: Any, where: str) -> Json:
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
            converted = (
                _responses_part(p, f"{where}.content[{i}]")
                for i, p in enumerate(expect_list(content, f"{where}.content"))
            )
            parts = [part for part in converted if part is not None]
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
        call = _function_call(
            expect_string(item.get("call_id"), f"{where}.call_id"),
            expect_string(item.get("name"), f"{where}.name"),
            expect_string(arguments if arguments is not None else "", f"{where}.arguments"),
        )
        message_kind = "function_call" if kind == "function_call" else "plugin_call"
        return agent_message("assistant", [call], kind=message_kind, message_id=item.get("id"))
    if kind in ("function_call_output", "custom_tool_call_output"):
        output = _function_output(
            expect_string(item.get("call_id"), f"{where}.call_id"), _json_text(item.get("output", ""))
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
        messages.extend(
            _responses_item(item, f"input[{i}]") for i, item in enumerate(expect_list(given, "input"))
        )
    request: Json = {"input": messages, "stream": True}
    for theirs, ours in _RESPONSES_FIELDS.items():
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
                _function_tool(
                    expect_string(tool["name"], f"tools[{i}].name"),
                    tool.get("description"),
                    tool.get("parameters"),
                )
            )
    if tools:
        request["tools"] = tools
    return request


# --- LangChain ----------------------------------------------------------------------------

_LANGCHAIN_ROLES = {
    "human": "user",
    "user": "user",
    "ai": "assistant",
    "assistant": "assistant",
    "system": "system",
}


def _langchain_message(message: Any, where: str) -> list[Json]:
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
                [_function_output(call_id, _json_text(content))],
                kind="function_call_output",
                message_id=message_id,
            )
        ]
    if role not in _LANGCHAIN_ROLES:
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
        [agent_message(_LANGCHAIN_ROLES[role], parts or [text_part("")], message_id=message_id)]
        if parts or role != "ai"
        else []
    )
    calls = expect_list(message.get("tool_calls"), f"{where}.tool_calls")
    if calls:
        content_calls = []
        for i, given_call in enumerate(calls):
            call = expect_object(given_call, f"{where}.tool_calls[{i}]")
            content_calls.append(
                _function_call(
                    expect_string(call.get("id"), f"{where}.tool_calls[{i}].id"),
                    expect_string(call.get("name"), f"{where}.tool_calls[{i}].name"),
                    _json_text(call.get("args", {})),
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
        messages.extend(_langchain_message(message, f"params.input.messages[{i}]"))
    request: Json = {"input": messages, "stream": True, "session_id": thread_id}
    config = params.get("config")
    if isinstance(config, Mapping) and isinstance(config.get("configurable"), Mapping):
        user_id = config["configurable"].get("user_id")
        if isinstance(user_id, str):
            request["user_id"] = user_id
    return request
