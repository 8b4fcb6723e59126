"""The protocol types: every exported name exists, and the shapes describe
the plain dicts the library hands out."""

from __future__ import annotations

import importlib
import typing

import pytest

from agentcodec import agentscope, langchain
from agentcodec.events import PROTOCOLS
from agentcodec.langchain import types as langchain_types

# Each protocol's package and its types module.
MODULES = [f"agentcodec.{name.replace('-', '_')}{types}" for name in PROTOCOLS for types in ("", ".types")]


@pytest.mark.parametrize("name", MODULES)
def test_exports_exist(name: str) -> None:
    module = importlib.import_module(name)
    for export in module.__all__:
        assert hasattr(module, export), export


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
