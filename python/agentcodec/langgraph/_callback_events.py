"""The ``events`` stream mode of a run of a graph of one node, as
langgraph-api streams it: what LangChain's ``astream_events`` (v2) reports
of the run, the callbacks of each runnable in it.

The graph starts (its input, the request's), then its node (on the thread's
values). Each AI message the node streams is a chat model's call: its start
(on the messages before it), a ``on_chat_model_stream`` per chunk (the
``messages`` mode's chunks, as the how-tos read tokens from them) and its
end (the message its chunks make). Each tool message is a tool's call, its
start (the arguments the AI message gave it) and end. At the run's end the
node's update streams and the node ends, then the graph (the thread's
values). A run that fails or is cancelled ends where it stopped, as
``astream_events`` reports no end of a runnable that raised.
"""

from __future__ import annotations

import uuid
from typing import Any

from .._backend import impl
from ._assistants import ASSISTANT_ID, GRAPH_ID

__all__ = ["EVENTS_MODE", "CallbackEvents"]

#: The stream mode made here.
EVENTS_MODE = "events"


class CallbackEvents:
    """One run's ``events``: fed the run's start, its ``messages`` and its end."""

    __slots__ = ("_call", "_graph", "_input", "_messages", "_node", "_node_input", "_run_id")

    def __init__(self, *, thread_id: str, run_id: str, node: str, run_input: Any) -> None:
        self._run_id = run_id
        self._input = run_input
        metadata = {
            "created_by": "system",
            "graph_id": GRAPH_ID,
            "assistant_id": ASSISTANT_ID,
            "run_attempt": 1,
            "run_id": run_id,
            "thread_id": thread_id,
        }
        self._graph: dict[str, Any] = {"name": GRAPH_ID, "run_id": run_id, "tags": [], "parent_ids": []}
        self._graph["metadata"] = {**metadata, "ls_integration": "langgraph"}
        task_id = str(uuid.uuid4())
        self._node: dict[str, Any] = {
            "name": node,
            "run_id": str(uuid.uuid4()),
            "tags": ["graph:step:1"],
            "parent_ids": [run_id],
            "metadata": {
                **metadata,
                "ls_integration": "langgraph",
                "langgraph_step": 1,
                "langgraph_node": node,
                "langgraph_triggers": [f"branch:to:{node}"],
                "langgraph_path": ["__pregel_pull", node],
                "langgraph_checkpoint_ns": f"{node}:{task_id}",
            },
        }
        self._node_input: dict[str, Any] = {"messages": []}
        # The node's messages so far, as the messages mode's chunks make them.
        self._messages = impl.LangGraphAssembler(max_event_bytes=None, max_line_bytes=None)
        # The model call going on: its message's id and its callbacks' fields.
        self._call: tuple[str, dict[str, Any]] | None = None

    def started(self, values: dict[str, Any]) -> bytes:
        """The graph started on the request's input, and its node on ``values``."""
        self._node_input = values
        return self._event("on_chain_start", self._graph, {"input": self._input}) + self._event(
            "on_chain_start", self._node, {"input": values}
        )

    def message(self, data: Any) -> bytes:
        """A ``messages`` event of the node (``[chunk, metadata]``)."""
        if not isinstance(data, list) or not data or not isinstance(data[0], dict):
            return b""
        chunk = data[0]
        self._messages.feed_event({"event": "messages", "data": data})
        kind, message_id = chunk.get("type"), chunk.get("id")
        if kind in ("AIMessageChunk", "ai"):
            out = b""
            if self._call is None or self._call[0] != message_id:
                out = self._model_ended()
                out += self._model_started(message_id)
            assert self._call is not None
            return out + self._event("on_chat_model_stream", self._call[1], {"chunk": chunk})
        out = self._model_ended()
        if kind == "tool":
            tool = {
                "name": chunk.get("name") or "tool",
                "run_id": str(uuid.uuid4()),
                "tags": ["seq:step:1"],
                "parent_ids": [self._run_id, self._node["run_id"]],
                "metadata": self._node["metadata"],
            }
            arguments = self._arguments(chunk.get("tool_call_id"))
            out += self._event("on_tool_start", tool, {"input": arguments})
            out += self._event("on_tool_end", tool, {"output": chunk, "input": arguments})
        return out

    def ended(self, update: dict[str, Any], values: dict[str, Any]) -> bytes:
        """The node's ``update`` streamed, the node ended, and the graph, on the thread's ``values``."""
        kept = {key: value for key, value in values.items() if key != "__interrupt__"}
        return b"".join(
            (
                self._model_ended(),
                self._event("on_chain_stream", self._node, {"chunk": update}),
                self._event("on_chain_end", self._node, {"output": update, "input": self._node_input}),
                self._event("on_chain_end", self._graph, {"output": kept}),
            )
        )

    def _model_started(self, message_id: Any) -> bytes:
        before = [m for m in self._node_input.get("messages", []) if isinstance(m, dict)]
        before += self._messages.messages[:-1]
        call = {
            "name": self._node["name"],
            "run_id": str(uuid.uuid4()),
            "tags": ["seq:step:1"],
            "parent_ids": [self._run_id, self._node["run_id"]],
            "metadata": {
                **self._node["metadata"],
                "ls_integration": "langchain_chat_model",
                "ls_model_type": "chat",
                "checkpoint_ns": self._node["metadata"]["langgraph_checkpoint_ns"],
            },
            "input": {"messages": [before]},
        }
        self._call = (message_id, call)
        return self._event("on_chat_model_start", call, {"input": call["input"]})

    def _model_ended(self) -> bytes:
        if self._call is None:
            return b""
        message_id, call = self._call
        self._call = None
        output = next((m for m in reversed(self._messages.messages) if m.get("id") == message_id), None)
        return self._event("on_chat_model_end", call, {"output": output, "input": call["input"]})

    def _arguments(self, tool_call_id: Any) -> Any:
        for message in reversed(self._messages.messages):
            for call in message.get("tool_calls") or []:
                if call.get("id") == tool_call_id:
                    return call.get("args", {})
        return {}

    @staticmethod
    def _event(name: str, runnable: dict[str, Any], data: dict[str, Any]) -> bytes:
        event = {
            "event": name,
            "data": data,
            "name": runnable["name"],
            "tags": runnable["tags"],
            "run_id": runnable["run_id"],
            "metadata": runnable["metadata"],
            "parent_ids": runnable["parent_ids"],
        }
        return bytes(impl.encode_sse(event, event=EVENTS_MODE))
