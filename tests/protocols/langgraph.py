"""The LangGraph Agent Server, for the cross-cutting tests."""

from __future__ import annotations

from typing import Any

from . import GatewayCase, Row, list_length


def chunk(**fields: Any) -> dict[str, Any]:
    """A ``messages`` event holding one AI message chunk."""
    message = {"type": "AIMessageChunk", "id": "m", "content": "", **fields}
    return {"event": "messages", "data": [message, {"langgraph_node": "model"}]}


def _blocks(assembler: Any) -> int:
    run = assembler.run
    graphs = [run, *run["namespaces"].values()]
    return sum(
        list_length(message.get("content"))
        + list_length(message.get("tool_calls"))
        + list_length(message.get("invalid_tool_calls"))
        for graph in graphs
        for message in graph["messages"]
    )


ROW = Row(
    name="langgraph",
    carries_stop_reasons=True,
    assembler="LangGraphAssembler",
    result="run",
    stream="langgraph/tool_call.sse",
    recorded_streams=("langgraph/*.sse",),
    reads=("run",),
    framing="named",
    ends_every_stream=True,
    fixed_options={"run_id": "run-1", "node": "model"},
    namespaces=True,
    carries_state=True,
    cannot_carry=frozenset(
        {
            "block_ends",
            "media",
            "data",
            "refusal_kind",
            "corrections",
            "annotations",
            "tool_server",
            "usage",
            "signatures",
        }
    ),
    results_as_text=True,
    # (a reasoning block's signature rides in its content block; one on text
    # or on a tool call has no place)
    signatures_need_provider=True,
    status_as_carried={"cancelled": "completed", "incomplete": "completed", "interrupted": "completed"},
    count_blocks=_blocks,
    block_opening=({"event": "metadata", "data": {"run_id": "r"}},),
    one_block=lambda n: chunk(tool_call_chunks=[{"name": "f", "args": "{}", "id": f"c{n}", "index": n}]),
    text_opening=(),
    text_delta=chunk(content="b", x=0),
    gateway=GatewayCase(
        "/threads/t/runs/stream",
        lambda question: {
            "assistant_id": "agent",
            "input": {"messages": [{"role": "user", "content": question}]},
            "stream_mode": ["values", "messages-tuple"],
        },
        # (as langgraph-api's, a run goes on unless its request asks: on_disconnect)
        cancels_abandoned=False,
    ),
)
