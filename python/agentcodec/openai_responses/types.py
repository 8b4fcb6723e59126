"""The OpenAI Responses API stream types (as openai-python 3.54 models them).

``TypedDict`` shapes for the plain dicts on the wire: snake_case keys, the
event ``type`` dotted (``response.output_text.delta``), every event numbered
by ``sequence_number``. Every record may carry more keys than listed: the
API grows, and agentcodec keeps what it does not know.
"""

from __future__ import annotations

from typing import Any, Literal, TypedDict, Union

__all__ = [
    "EVENT_TYPES",
    "Annotation",
    "ContentPartEvent",
    "DeltaEvent",
    "DoneEvent",
    "ErrorEvent",
    "FunctionCall",
    "FunctionCallOutput",
    "LifecycleEvent",
    "Message",
    "OutputItem",
    "OutputItemEvent",
    "OutputText",
    "Reasoning",
    "ReasoningSummaryPartEvent",
    "ReasoningText",
    "Refusal",
    "Response",
    "ResponseError",
    "StreamEvent",
    "SummaryText",
    "Usage",
]

#: Every stream event type openai-python 3.54 knows, lifecycle first.
EVENT_TYPES = (
    "response.created",
    "response.queued",
    "response.in_progress",
    "response.completed",
    "response.failed",
    "response.incomplete",
    "error",
    "response.output_item.added",
    "response.output_item.done",
    "response.content_part.added",
    "response.content_part.done",
    "response.output_text.delta",
    "response.output_text.done",
    "response.output_text.annotation.added",
    "response.refusal.delta",
    "response.refusal.done",
    "response.reasoning_summary_part.added",
    "response.reasoning_summary_part.done",
    "response.reasoning_summary_text.delta",
    "response.reasoning_summary_text.done",
    "response.reasoning_text.delta",
    "response.reasoning_text.done",
    "response.function_call_arguments.delta",
    "response.function_call_arguments.done",
    "response.custom_tool_call_input.delta",
    "response.custom_tool_call_input.done",
    "response.mcp_call_arguments.delta",
    "response.mcp_call_arguments.done",
    "response.mcp_call.in_progress",
    "response.mcp_call.completed",
    "response.mcp_call.failed",
    "response.mcp_list_tools.in_progress",
    "response.mcp_list_tools.completed",
    "response.mcp_list_tools.failed",
    "response.code_interpreter_call_code.delta",
    "response.code_interpreter_call_code.done",
    "response.code_interpreter_call.in_progress",
    "response.code_interpreter_call.interpreting",
    "response.code_interpreter_call.completed",
    "response.web_search_call.in_progress",
    "response.web_search_call.searching",
    "response.web_search_call.completed",
    "response.file_search_call.in_progress",
    "response.file_search_call.searching",
    "response.file_search_call.completed",
    "response.image_generation_call.in_progress",
    "response.image_generation_call.generating",
    "response.image_generation_call.partial_image",
    "response.image_generation_call.completed",
    "response.audio.delta",
    "response.audio.done",
    "response.audio.transcript.delta",
    "response.audio.transcript.done",
    "response.shell_call_command.added",
    "response.shell_call_command.delta",
    "response.shell_call_command.done",
    "response.shell_call_output_content.delta",
    "response.shell_call_output_content.done",
    "response.compaction.compacting",
)


# --- content ------------------------------------------------------------------------


class Annotation(TypedDict, total=False):
    type: str  # "url_citation", "file_citation", "container_file_citation", "file_path"
    url: str
    title: str
    file_id: str
    start_index: int
    end_index: int
    index: int


class OutputText(TypedDict, total=False):
    type: Literal["output_text"]
    text: str
    annotations: list[Annotation]
    logprobs: list[dict[str, Any]]


class Refusal(TypedDict, total=False):
    type: Literal["refusal"]
    refusal: str


class SummaryText(TypedDict, total=False):
    type: Literal["summary_text"]
    text: str


class ReasoningText(TypedDict, total=False):
    type: Literal["reasoning_text"]
    text: str


# --- output items ---------------------------------------------------------------------


class Message(TypedDict, total=False):
    id: str
    type: Literal["message"]
    role: Literal["assistant"]
    status: Literal["in_progress", "completed", "incomplete"]
    content: list[OutputText | Refusal]


class Reasoning(TypedDict, total=False):
    id: str
    type: Literal["reasoning"]
    summary: list[SummaryText]
    content: list[ReasoningText]
    encrypted_content: str
    status: str


class FunctionCall(TypedDict, total=False):
    id: str
    type: Literal["function_call"]
    call_id: str
    name: str
    arguments: str  # JSON text
    status: str


class FunctionCallOutput(TypedDict, total=False):
    """An input item: a function call's result, sent back on the next turn."""

    id: str
    type: Literal["function_call_output"]
    call_id: str
    output: str | list[dict[str, Any]]
    status: str


OutputItem = Union[Message, Reasoning, FunctionCall, dict[str, Any]]  # noqa: UP007  (a runtime alias)


class ResponseError(TypedDict, total=False):
    code: str
    message: str


class Usage(TypedDict, total=False):
    input_tokens: int
    input_tokens_details: dict[str, Any]
    output_tokens: int
    output_tokens_details: dict[str, Any]
    total_tokens: int


class Response(TypedDict, total=False):
    """The Response object: what ``openai_responses.Assembler`` assembles."""

    id: str
    object: Literal["response"]
    created_at: float
    status: Literal["completed", "failed", "in_progress", "cancelled", "queued", "incomplete"]
    error: ResponseError | None
    incomplete_details: dict[str, Any] | None
    model: str
    output: list[OutputItem]
    parallel_tool_calls: bool
    tool_choice: Any
    tools: list[dict[str, Any]]
    usage: Usage | None
    metadata: dict[str, str]
    instructions: Any


# --- stream events ---------------------------------------------------------------------


class StreamEvent(TypedDict, total=False):
    """What every stream event carries."""

    type: str
    sequence_number: int


class LifecycleEvent(StreamEvent, total=False):
    """``response.created``, ``.queued``, ``.in_progress``, ``.completed``, ``.failed``, ``.incomplete``."""

    response: Response


class ErrorEvent(StreamEvent, total=False):
    code: str | None
    message: str
    param: str | None


class OutputItemEvent(StreamEvent, total=False):
    """``response.output_item.added`` and ``.done``."""

    output_index: int
    item: OutputItem


class ContentPartEvent(StreamEvent, total=False):
    """``response.content_part.added`` and ``.done``."""

    item_id: str
    output_index: int
    content_index: int
    part: OutputText | Refusal | ReasoningText


class ReasoningSummaryPartEvent(StreamEvent, total=False):
    """``response.reasoning_summary_part.added`` and ``.done``."""

    item_id: str
    output_index: int
    summary_index: int
    part: SummaryText


class DeltaEvent(StreamEvent, total=False):
    """Every ``*.delta``: text, refusals, reasoning, arguments, tool inputs, code."""

    item_id: str
    output_index: int
    content_index: int  # text, refusal and reasoning text
    summary_index: int  # reasoning summaries
    delta: str
    logprobs: list[dict[str, Any]]


class DoneEvent(StreamEvent, total=False):
    """Every ``*.done`` of a delta kind: the whole value, which replaces the deltas'."""

    item_id: str
    output_index: int
    content_index: int
    summary_index: int
    text: str
    refusal: str
    arguments: str
    input: str
    code: str
    logprobs: list[dict[str, Any]]
