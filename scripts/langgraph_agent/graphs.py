"""The graphs scripts/langgraph_fixtures.py serves with a real in-memory
langgraph-api: chat models that stream as the providers' integrations do
(chunks sharing the provider's message id, the provider's metadata on each
chunk and the finish reason, model name and usage on the last; tool-call
arguments in pieces; Anthropic-style thinking blocks), in graphs that call a
tool, ask before acting (an interrupt), fail, nest a subgraph, and run two
subgraphs side by side, and answer slowly enough to be cancelled midway."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.language_models.chat_models import generate_from_stream
from langchain_core.messages import AIMessageChunk, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGenerationChunk
from langgraph.config import get_stream_writer
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.types import interrupt

ARGUMENTS = '{"city": "Paris", "unit": "°C", "days": [1, 2]}'


class OpenAILike(BaseChatModel):
    """Streams as langchain-openai's chat model does."""

    @property
    def _llm_type(self) -> str:
        return "openai-like"

    def _chunks(self, messages: list[BaseMessage]) -> Iterator[AIMessageChunk]:
        answered = any(isinstance(message, ToolMessage) for message in messages)
        message_id = "chatcmpl-2" if answered else "chatcmpl-1"
        meta = {"model_provider": "openai"}
        if answered:
            for word in ["It ", "is ", "21 ", "°C ", "in ", "Paris, ", "日本 ", "too."]:
                yield AIMessageChunk(content=word, id=message_id, response_metadata=dict(meta))
            finish = "stop"
        else:
            yield AIMessageChunk(content="Let me ", id=message_id, response_metadata=dict(meta))
            yield AIMessageChunk(content="check \u00e9 \u2014 ", id=message_id, response_metadata=dict(meta))
            for at in range(0, len(ARGUMENTS), 9):
                first = at == 0
                chunk = {
                    "name": "weather" if first else None,
                    "args": ARGUMENTS[at : at + 9],
                    "id": "call_1" if first else None,
                    "index": 0,
                }
                yield AIMessageChunk(
                    content="", id=message_id, tool_call_chunks=[chunk], response_metadata=dict(meta)
                )
            finish = "tool_calls"
        yield AIMessageChunk(
            content="",
            id=message_id,
            response_metadata={**meta, "finish_reason": finish, "model_name": "gpt-test-1"},
            usage_metadata={"input_tokens": 12, "output_tokens": 9, "total_tokens": 21},
        )

    def _stream(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any):
        for message in self._chunks(messages):
            chunk = ChatGenerationChunk(message=message)
            if run_manager is not None:
                run_manager.on_llm_new_token(
                    message.content if isinstance(message.content, str) else "", chunk=chunk
                )
            yield chunk

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ):
        return generate_from_stream(self._stream(messages, stop, run_manager, **kwargs))


class AnthropicLike(OpenAILike):
    """Streams content as lists of blocks with their index, as
    langchain-anthropic does: thinking (with its signature), then text."""

    @property
    def _llm_type(self) -> str:
        return "anthropic-like"

    def _chunks(self, messages: list[BaseMessage]) -> Iterator[AIMessageChunk]:
        message_id = "msg_01"
        meta = {"model_provider": "anthropic"}
        for piece in ["The user ", "wants a ", "greeting."]:
            block = {"type": "thinking", "thinking": piece, "index": 0}
            yield AIMessageChunk(content=[block], id=message_id, response_metadata=dict(meta))
        block = {"type": "thinking", "signature": "c2lnbmF0dXJl", "index": 0}
        yield AIMessageChunk(content=[block], id=message_id, response_metadata=dict(meta))
        for piece in ["Hello", " — ", "bonjour!"]:
            yield AIMessageChunk(
                content=[{"type": "text", "text": piece, "index": 1}],
                id=message_id,
                response_metadata=dict(meta),
            )
        yield AIMessageChunk(
            content=[],
            id=message_id,
            response_metadata={**meta, "stop_reason": "end_turn", "model_name": "claude-test-1"},
            usage_metadata={"input_tokens": 20, "output_tokens": 14, "total_tokens": 34},
        )


openai_like = OpenAILike()


def agent(state: MessagesState) -> dict[str, Any]:
    return {"messages": [openai_like.invoke(state["messages"])]}


def tools(state: MessagesState) -> dict[str, Any]:
    call = state["messages"][-1].tool_calls[0]
    get_stream_writer()({"tool": call["name"], "status": "called"})
    return {"messages": [ToolMessage(content="21 °C", tool_call_id=call["id"], name=call["name"])]}


def route(state: MessagesState) -> str:
    return "tools" if state["messages"][-1].tool_calls else END


_agent = StateGraph(MessagesState)
_agent.add_node("agent", agent)
_agent.add_node("tools", tools)
_agent.add_edge(START, "agent")
_agent.add_conditional_edges("agent", route, ["tools", END])
_agent.add_edge("tools", "agent")
tool_agent = _agent.compile()


def think(state: MessagesState) -> dict[str, Any]:
    return {"messages": [AnthropicLike().invoke(state["messages"])]}


_thinker = StateGraph(MessagesState)
_thinker.add_node("think", think)
_thinker.add_edge(START, "think")
thinker = _thinker.compile()


def ask(state: MessagesState) -> dict[str, Any]:
    get_stream_writer()({"progress": "asking"})
    answer = interrupt({"question": "Go ahead?", "options": ["yes", "no"]})
    return {
        "messages": [
            openai_like.invoke([*state["messages"], ToolMessage(content=str(answer), tool_call_id="x")])
        ]
    }


_approval = StateGraph(MessagesState)
_approval.add_node("ask", ask)
_approval.add_edge(START, "ask")
_approval.add_edge("ask", END)
approval = _approval.compile()


def explode(state: MessagesState) -> dict[str, Any]:
    openai_like.invoke(state["messages"])
    raise ValueError("the tool is broken: é")


_broken = StateGraph(MessagesState)
_broken.add_node("explode", explode)
_broken.add_edge(START, "explode")
broken = _broken.compile()


_nested = StateGraph(MessagesState)
_nested.add_node("inner", tool_agent)
_nested.add_edge(START, "inner")
nested = _nested.compile()


class Paced(OpenAILike):
    """Answers a word a chunk, each after a pause, as a provider's stream
    arrives over a network: two of them in parallel branches interleave."""

    answer_id: str = "chatcmpl-paced"
    words: tuple[str, ...] = ()

    def _chunks(self, messages: list[BaseMessage]) -> Iterator[AIMessageChunk]:
        meta = {"model_provider": "openai"}
        for word in self.words:
            time.sleep(0.02)
            yield AIMessageChunk(content=word, id=self.answer_id, response_metadata=dict(meta))
        yield AIMessageChunk(
            content="",
            id=self.answer_id,
            response_metadata={**meta, "finish_reason": "stop", "model_name": "gpt-test-1"},
            usage_metadata={
                "input_tokens": 12,
                "output_tokens": len(self.words),
                "total_tokens": 12 + len(self.words),
            },
        )


def _answering(name: str, words: tuple[str, ...]) -> Any:
    """A node whose paced model answers ``words``."""
    model = Paced(answer_id=f"chatcmpl-{name}", words=words)

    def answer(state: MessagesState) -> dict[str, Any]:
        return {"messages": [model.invoke(state["messages"])]}

    return answer


def _branch(name: str, words: tuple[str, ...]) -> Any:
    """A subgraph of one such node."""
    graph = StateGraph(MessagesState)
    graph.add_node("model", _answering(name, words))
    graph.add_edge(START, "model")
    return graph.compile()


def _side_by_side(node: Any) -> Any:
    """A graph of two nodes that start at once, made by ``node(name, words)``."""
    graph = StateGraph(MessagesState)
    graph.add_node("weather", node("weather", ("Sunny ", "and ", "21 ", "°C ", "in ", "Paris.")))
    graph.add_node("news", node("news", ("Nothing ", "new ", "in ", "東京 ", "today.")))
    graph.add_edge(START, "weather")
    graph.add_edge(START, "news")
    return graph.compile()


# Two subgraphs side by side: their messages interleave, each in its namespace.
parallel = _side_by_side(_branch)
# Two nodes of one graph side by side (no subgraphs): their messages
# interleave in the root namespace, told apart by their node alone.
fanout = _side_by_side(_answering)


# A long answer, paced: a run a client can get, list and cancel while it goes on.
_slow = StateGraph(MessagesState)
_slow.add_node("model", _answering("slow", tuple(f"word{i} " for i in range(250))))
_slow.add_edge(START, "model")
slow = _slow.compile()
