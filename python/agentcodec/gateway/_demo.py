"""The agent the gateway serves when it fronts no upstream: it needs no
model, yet streams what an AgentScope agent streams, reasoning, a tool call
with its arguments in pieces, the tool's result and an answer token by
token, so that every endpoint has something real to convert."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator, Mapping
from typing import Any

from ..agentscope.builders import ResponseBuilder
from ..agentscope.types import ContentType, Role

__all__ = ["DemoAgent"]

_TOKEN = re.compile(r"\s*\S+|\s+")


def _tokens(text: str) -> list[str]:
    """Word-sized pieces, as a model streams them."""
    return _TOKEN.findall(text)


def _pieces(text: str, size: int = 6) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def _question(request: Mapping[str, Any]) -> str:
    """The text of the last user message, or a default."""
    for message in reversed(request.get("input") or []):
        if isinstance(message, Mapping) and message.get("role") == "user":
            texts = [
                part.get("text", "")
                for part in message.get("content") or []
                if isinstance(part, Mapping) and part.get("type") == "text"
            ]
            text = " ".join(t for t in texts if isinstance(t, str)).strip()
            if text:
                return text
    return "Hello!"


class _Framer:
    """Writes events as an AgentApp's runner does: numbered from 0, compact."""

    def __init__(self) -> None:
        self.sequence_number = 0

    def __call__(self, event: dict[str, Any]) -> bytes:
        event["sequence_number"] = self.sequence_number
        self.sequence_number += 1
        return b"data: " + json.dumps(event, ensure_ascii=False, separators=(",", ":")).encode() + b"\n\n"


class DemoAgent:
    """Answers every request by counting the words of the user's last
    message with a ``word_count`` tool, waiting ``delay`` seconds between
    tokens (0 streams as fast as the gateway reads)."""

    def __init__(self, *, delay: float = 0.03) -> None:
        if isinstance(delay, bool) or not isinstance(delay, (int, float)) or delay < 0:
            raise ValueError(f"delay must be a non-negative number of seconds, not {delay!r}")
        self.delay = float(delay)

    async def stream(self, request: dict[str, Any], headers: Mapping[str, str]) -> AsyncIterator[bytes]:
        return self._run(request)

    async def aclose(self) -> None:
        pass

    async def _pause(self) -> None:
        await asyncio.sleep(self.delay)

    async def _run(self, request: dict[str, Any]) -> AsyncIterator[bytes]:
        question = _question(request)
        write = _Framer()
        session = request.get("session_id")
        response = ResponseBuilder(session_id=session if isinstance(session, str) else None)
        yield write(response.created())
        yield write(response.in_progress())

        reasoning = response.create_message_builder(Role.ASSISTANT, "reasoning")
        yield write(reasoning.get_message_data())
        thought = reasoning.create_content_builder(ContentType.TEXT)
        for token in _tokens("The user wants their words counted; the word_count tool does that."):
            await self._pause()
            yield write(thought.add_text_delta(token))
        yield write(thought.complete())
        yield write(reasoning.complete())

        call_id = f"call_{reasoning.message_id[-12:]}"
        call = response.create_message_builder(Role.ASSISTANT, "plugin_call")
        yield write(call.get_message_data())
        arguments = call.create_content_builder(ContentType.DATA)
        yield write(arguments.set_data({"call_id": call_id, "name": "word_count", "arguments": ""}))
        for piece in _pieces(json.dumps({"text": question}, ensure_ascii=False)):
            await self._pause()
            yield write(arguments.add_data_delta({"arguments": piece}))
        yield write(arguments.complete())
        yield write(call.complete())

        count = len(question.split())
        result = response.create_message_builder(Role.TOOL, "plugin_call_output")
        yield write(result.get_message_data())
        output = result.create_content_builder(ContentType.DATA)
        yield write(
            output.set_data(
                {"call_id": call_id, "name": "word_count", "output": json.dumps({"words": count})}
            )
        )
        yield write(output.complete())
        yield write(result.complete())

        answer = response.create_message_builder(Role.ASSISTANT, "message")
        yield write(answer.get_message_data())
        text = answer.create_content_builder(ContentType.TEXT)
        plural = "word" if count == 1 else "words"
        for token in _tokens(f'You wrote "{question}": that is {count} {plural}.'):
            await self._pause()
            yield write(text.add_text_delta(token))
        yield write(text.complete())
        yield write(answer.complete())
        yield write(response.completed())
