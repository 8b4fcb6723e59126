"""ChatCompletionBuilder: the stream it writes is what openai-python's
``ChatCompletionStreamState`` accumulates to the completion the builder
keeps, on both backends."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agentcodec import openai_chat
from sse_helpers import data_events
from test_openai_chat import comparable, sdk_completion


def chunks_of(stream: bytes) -> list[dict[str, Any]]:
    datas = [block.removeprefix("data: ") for block in stream.decode().split("\n\n") if block]
    return [json.loads(data) for data in datas if data != "[DONE]"]


def test_a_turn_with_reasoning_and_tool_calls() -> None:
    builder = openai_chat.ChatCompletionBuilder(
        completion_id="chatcmpl-9", model="my-agent", created=1763700000
    )
    stream = builder.add_reasoning_delta("Think")
    stream += builder.add_reasoning_delta("ing.")
    stream += builder.add_content_delta("Let me check. ")
    stream += builder.add_tool_call("weather", '{"city":', call_id="call_1")
    stream += builder.add_arguments_delta(' "Paris"}')
    stream += builder.add_tool_call("time", "{}")
    stream += builder.finish(usage={"input_tokens": 10, "output_tokens": 5})
    assert stream.endswith(b"data: [DONE]\n\n")
    completion = builder.completion
    assert completion["id"] == "chatcmpl-9"
    choice = completion["choices"][0]
    assert choice["finish_reason"] == "tool_calls"
    assert choice["message"]["reasoning_content"] == "Thinking."
    assert choice["message"]["content"] == "Let me check. "
    assert [call["function"]["arguments"] for call in choice["message"]["tool_calls"]] == [
        '{"city": "Paris"}',
        "{}",
    ]
    assert completion["usage"] == {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
    # The judge: openai-python's own state over the same chunks.
    pytest.importorskip("openai.lib.streaming.chat")
    assert comparable(completion) == comparable(sdk_completion(chunks_of(stream)))


def test_a_plain_answer_and_a_failure() -> None:
    builder = openai_chat.ChatCompletionBuilder(created=1)
    stream = builder.add_content_delta("Hi") + builder.finish()
    assert builder.completion["choices"][0]["finish_reason"] == "stop"
    assert builder.completion["choices"][0]["message"] == {"role": "assistant", "content": "Hi"}
    assert stream.count(b"data: [DONE]") == 1
    failing = openai_chat.ChatCompletionBuilder(created=1)
    failing.add_content_delta("partial")
    out = failing.fail("overloaded", code="server_busy")
    assert json.loads(out.decode().removeprefix("data: "))["error"]["message"] == "overloaded"
    assert failing.completion["choices"][0]["message"]["content"] == "partial"
    with pytest.raises(ValueError, match="add_tool_call"):
        openai_chat.ChatCompletionBuilder().add_arguments_delta("{}")


def test_ids_given_to_the_builder_are_kept() -> None:
    builder = openai_chat.ChatCompletionBuilder(completion_id="chatcmpl-1")
    events = data_events(builder.add_tool_call("f", "{}", call_id="call_x") + builder.finish())
    assert {event["id"] for event in events} == {"chatcmpl-1"}
    calls = [call for event in events for call in event["choices"][0]["delta"].get("tool_calls") or []]
    assert calls[0]["id"] == "call_x"
