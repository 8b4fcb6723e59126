"""The protocol types: every exported name exists, and the shapes describe
the plain dicts the library hands out."""

from __future__ import annotations

import typing

import pytest

from agentcodec import agentscope, agui, langchain, openai_responses
from agentcodec.agui import types as agui_types
from agentcodec.langchain import types as langchain_types
from agentcodec.openai_responses import types as responses_types


@pytest.mark.parametrize(
    "module", [agentscope, langchain_types, langchain, agui, agui_types, openai_responses, responses_types]
)
def test_exports_exist(module: object) -> None:
    for name in module.__all__:  # type: ignore[attr-defined]
        assert hasattr(module, name), name


def test_shapes_are_typed_dicts_with_wire_spellings() -> None:
    assert typing.is_typeddict(agentscope.TextContent)
    assert "msg_id" in typing.get_type_hints(agentscope.TextContent)
    hints = typing.get_type_hints(langchain_types.UsageInfo)
    assert {"input_tokens", "output_tokens", "total_tokens"} <= set(hints)
    assert "event_id" in typing.get_type_hints(langchain_types.Event)
    assert "tool_call_id" in typing.get_type_hints(langchain_types.ServerToolResult)


def test_constants() -> None:
    assert langchain.CHANNELS[:3] == ("values", "updates", "messages")
    assert "state.listCheckpoints" in langchain.COMMAND_METHODS
    assert "no_such_checkpoint" in langchain.ERROR_CODES
    assert agentscope.RunStatus.Incomplete == "incomplete"
    assert {"reasoning", "mcp_call_output", "a2ui_response", "a2ui_action", "heartbeat", "error"} <= set(
        agentscope.MessageType.all_values()
    )


def test_agui_and_responses_shapes() -> None:
    assert "messageId" in typing.get_type_hints(agui.types.TextMessageContentEvent)
    assert "toolCalls" in typing.get_type_hints(agui.AssistantMessage)
    assert len(agui.EVENT_TYPES) == 31
    assert "sequence_number" in typing.get_type_hints(openai_responses.StreamEvent)
    assert "response.output_text.delta" in openai_responses.EVENT_TYPES
