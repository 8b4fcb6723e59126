"""The pieces every endpoint builds the AgentScope Agent API request the
upstream ``/process`` takes (``AgentRequest``) from: its messages, parts,
tool calls and results, and the checks that say what and where a request is
wrong. Each protocol's endpoint (its package's ``gateway`` module) turns
its own requests into one with these; ``/process`` takes one as it is.

What an AgentApp's own adapters drop is kept by every endpoint: an assistant
message with both text and tool calls keeps its text, reasoning messages
stay reasoning, system and developer messages stay system messages, a tool
result's error and content parts are both carried.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

__all__ = [
    "Json",
    "RequestError",
    "UnansweredCalls",
    "agent_message",
    "agent_request_from_process",
    "expect_list",
    "expect_object",
    "expect_string",
    "function_call",
    "function_output",
    "function_tool",
    "json_text",
    "pick",
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


def function_call(call_id: str, name: str, arguments: str) -> Json:
    return {"type": "data", "data": {"call_id": call_id, "name": name, "arguments": arguments}}


def function_output(call_id: str, output: str) -> Json:
    return {"type": "data", "data": {"call_id": call_id, "output": output}}


def function_tool(name: str, description: Any, parameters: Any) -> Json:
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


def json_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


# --- /process ------------------------------------------------------------------------------


def agent_request_from_process(body: Any) -> Json:
    """A ``/process`` body is an AgentRequest already: checked, not changed."""
    request = expect_object(body, "the request body")
    for position, message in enumerate(expect_list(request.get("input"), "input")):
        expect_object(message, f"input[{position}]")
    return dict(request)


class UnansweredCalls:
    """The tool calls of a history not yet answered, oldest first, for the
    protocols whose results may name their call by its tool alone (or by
    nothing): a result answers the call its id names, or else the first
    unanswered call of its tool's name (of any tool, given none)."""

    def __init__(self) -> None:
        self._calls: list[tuple[str, str]] = []  # (call id, tool name)

    def called(self, call_id: str, name: str) -> None:
        self._calls.append((call_id, name))

    def answer(self, call_id: Any, name: Any) -> str | None:
        """The id of the call a result answers (taken from those not yet
        answered), or None where no call is its."""
        named = call_id if isinstance(call_id, str) and call_id else None
        for position, (candidate, tool) in enumerate(self._calls):
            if candidate == named or (named is None and name in (None, tool)):
                del self._calls[position]
                return candidate
        return named


def pick(body: Mapping[str, Any], camel: str, snake: str) -> Any:
    """A field a request may name in camelCase or snake_case (as the
    protocol's own server takes both)."""
    return body[camel] if camel in body else body.get(snake)
