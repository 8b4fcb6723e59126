"""The protocols, a row each: what the cross-cutting tests need of a
protocol. A new protocol is a row here (its recorded stream, its backend
class, the name of its final object)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from agentcodec.events import PROTOCOLS

FIXTURES = Path(__file__).parent / "fixtures"


@dataclass(frozen=True)
class Row:
    name: str
    #: The backend's assembler class (``agentcodec._native`` / ``_pure``).
    assembler: str
    #: The property that holds the final object (``result`` reads it).
    result: str
    #: A recorded stream of the protocol.
    stream: str

    def recorded(self) -> bytes:
        return (FIXTURES / self.stream).read_bytes()


TABLE = {
    row.name: row
    for row in [
        Row("agentscope", "AgentScopeAssembler", "response", "agentscope/builder_agent_turn.sse"),
        Row("langchain", "LangChainAssembler", "messages", "langchain/parallel_tool_calls.sse"),
        Row("agui", "AGUIAssembler", "run", "agentapp/agent_turn.agui.sse"),
        Row("openai-responses", "OpenAIResponsesAssembler", "response", "agentapp/agent_turn.responses.sse"),
        Row("openai-chat", "OpenAIChatAssembler", "completion", "sdk/chat_every_field.sse"),
        Row("anthropic", "AnthropicAssembler", "message", "sdk/anthropic_every_block.sse"),
        Row("ai-sdk", "AISDKAssembler", "message", "ai_sdk/ai_sdk_tool_turn.sse"),
    ]
}

assert tuple(TABLE) == PROTOCOLS, "every protocol has a row, in the registry's order"
