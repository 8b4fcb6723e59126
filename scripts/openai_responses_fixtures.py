"""Records the OpenAI Responses API's streams in tests/fixtures/sdk/
(``responses_*``): every Responses stream event type, built as
openai-python's own event classes and framed as the API frames them
(``event: <type>`` + ``data: <json>``); the reference is what
openai-python's ``ResponseStreamState`` (behind ``client.responses.stream``)
accumulates: ``get_final_response()`` and the last snapshot.

Run it where openai is installed:

    pip install openai==3.54.0
    python scripts/openai_responses_fixtures.py
"""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path
from typing import Any

import openai
import openai.types.responses as oai
from openai._models import construct_type
from openai._types import omit
from openai.lib.streaming.responses._responses import ResponseStreamState

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "fixtures" / "sdk"
sys.path.insert(0, str(ROOT / "tests"))


def response(status: str, output: list[Any] | None = None, **extra: Any) -> oai.Response:
    return oai.Response(
        id="resp_1", object="response", created_at=1763700000.0, model="gpt-test", status=status,
        output=output or [], parallel_tool_calls=True, tool_choice="auto", tools=[], **extra,
    )  # fmt: skip


def responses_events() -> list[Any]:
    """A response that uses every Responses stream event type."""
    seq = iter(range(10_000))
    text = ["The ", "weather ", "in Paris ", "is sunny ☀️", ' — "21 °C".\n']
    full_text = "".join(text)
    annotation = {"type": "url_citation", "url": "https://example.com", "title": "Weather", "start_index": 0,
                  "end_index": 3}  # fmt: skip
    reasoning_done = oai.ResponseReasoningItem(
        id="rs_1", type="reasoning", summary=[{"type": "summary_text", "text": "Looked it up."}],
        content=[{"type": "reasoning_text", "text": "I should search."}], encrypted_content="enc", status="completed",
    )  # fmt: skip
    message_done = oai.ResponseOutputMessage(
        id="msg_1", type="message", role="assistant", status="completed",
        content=[{"type": "output_text", "text": full_text, "annotations": [annotation], "logprobs": []},
                 {"type": "refusal", "refusal": "No."}],
    )  # fmt: skip
    call_done = oai.ResponseFunctionToolCall(
        id="fc_1", type="function_call", call_id="call_1", name="get_weather", arguments='{"city":"Paris"}',
        status="completed",
    )  # fmt: skip
    custom_done = {"id": "ctc_1", "type": "custom_tool_call", "call_id": "call_2", "name": "shell",
                   "input": "ls -la"}  # fmt: skip
    mcp_done = {"id": "mcp_1", "type": "mcp_call", "name": "lookup", "server_label": "srv", "arguments": '{"a":1}',
                "output": "ok", "status": "completed"}  # fmt: skip
    tools_done = {"id": "mcpl_1", "type": "mcp_list_tools", "server_label": "srv", "tools": []}
    web_done = {"id": "ws_1", "type": "web_search_call", "status": "completed",
                "action": {"type": "search", "query": "weather"}}  # fmt: skip
    file_done = {"id": "fs_1", "type": "file_search_call", "status": "completed", "queries": ["w"]}
    code_done = {"id": "ci_1", "type": "code_interpreter_call", "status": "completed", "code": "print(1)",
                 "container_id": "c", "outputs": []}  # fmt: skip
    image_done = {"id": "ig_1", "type": "image_generation_call", "status": "completed", "result": "aGVsbG8="}
    final_output = [reasoning_done, message_done, call_done, custom_done, mcp_done, tools_done, web_done,
                    file_done, code_done, image_done]  # fmt: skip

    def ev(cls: Any, **fields: Any) -> Any:
        return cls(sequence_number=next(seq), **fields)

    events = [
        ev(oai.ResponseCreatedEvent, type="response.created", response=response("queued")),
        ev(oai.ResponseQueuedEvent, type="response.queued", response=response("queued")),
        ev(oai.ResponseInProgressEvent, type="response.in_progress", response=response("in_progress")),
        # reasoning: a summary part and reasoning text
        ev(oai.ResponseOutputItemAddedEvent, type="response.output_item.added", output_index=0,
           item={"id": "rs_1", "type": "reasoning", "summary": []}),
        ev(oai.ResponseReasoningSummaryPartAddedEvent, type="response.reasoning_summary_part.added",
           item_id="rs_1", output_index=0, summary_index=0, part={"type": "summary_text", "text": ""}),
        ev(oai.ResponseReasoningSummaryTextDeltaEvent, type="response.reasoning_summary_text.delta", item_id="rs_1",
           output_index=0, summary_index=0, delta="Looked "),
        ev(oai.ResponseReasoningSummaryTextDeltaEvent, type="response.reasoning_summary_text.delta", item_id="rs_1",
           output_index=0, summary_index=0, delta="it up."),
        ev(oai.ResponseReasoningSummaryTextDoneEvent, type="response.reasoning_summary_text.done", item_id="rs_1",
           output_index=0, summary_index=0, text="Looked it up."),
        ev(oai.ResponseReasoningSummaryPartDoneEvent, type="response.reasoning_summary_part.done", item_id="rs_1",
           output_index=0, summary_index=0, part={"type": "summary_text", "text": "Looked it up."}),
        ev(oai.ResponseReasoningTextDeltaEvent, type="response.reasoning_text.delta", item_id="rs_1",
           output_index=0, content_index=0, delta="I should "),
        ev(oai.ResponseReasoningTextDeltaEvent, type="response.reasoning_text.delta", item_id="rs_1",
           output_index=0, content_index=0, delta="search."),
        ev(oai.ResponseReasoningTextDoneEvent, type="response.reasoning_text.done", item_id="rs_1",
           output_index=0, content_index=0, text="I should search."),
        ev(oai.ResponseOutputItemDoneEvent, type="response.output_item.done", output_index=0, item=reasoning_done),
        # a message: text with an annotation, then a refusal part
        ev(oai.ResponseOutputItemAddedEvent, type="response.output_item.added", output_index=1,
           item={"id": "msg_1", "type": "message", "role": "assistant", "status": "in_progress", "content": []}),
        ev(oai.ResponseContentPartAddedEvent, type="response.content_part.added", item_id="msg_1", output_index=1,
           content_index=0, part={"type": "output_text", "text": "", "annotations": [], "logprobs": []}),
        *[ev(oai.ResponseTextDeltaEvent, type="response.output_text.delta", item_id="msg_1", output_index=1,
             content_index=0, delta=piece, logprobs=[]) for piece in text],
        ev(oai.ResponseOutputTextAnnotationAddedEvent, type="response.output_text.annotation.added",
           item_id="msg_1", output_index=1, content_index=0, annotation_index=0, annotation=annotation),
        ev(oai.ResponseTextDoneEvent, type="response.output_text.done", item_id="msg_1", output_index=1,
           content_index=0, text=full_text, logprobs=[]),
        ev(oai.ResponseContentPartDoneEvent, type="response.content_part.done", item_id="msg_1", output_index=1,
           content_index=0, part={"type": "output_text", "text": full_text, "annotations": [annotation],
                                  "logprobs": []}),
        ev(oai.ResponseContentPartAddedEvent, type="response.content_part.added", item_id="msg_1", output_index=1,
           content_index=1, part={"type": "refusal", "refusal": ""}),
        ev(oai.ResponseRefusalDeltaEvent, type="response.refusal.delta", item_id="msg_1", output_index=1,
           content_index=1, delta="No."),
        ev(oai.ResponseRefusalDoneEvent, type="response.refusal.done", item_id="msg_1", output_index=1,
           content_index=1, refusal="No."),
        ev(oai.ResponseContentPartDoneEvent, type="response.content_part.done", item_id="msg_1", output_index=1,
           content_index=1, part={"type": "refusal", "refusal": "No."}),
        ev(oai.ResponseOutputItemDoneEvent, type="response.output_item.done", output_index=1, item=message_done),
        # a function call
        ev(oai.ResponseOutputItemAddedEvent, type="response.output_item.added", output_index=2,
           item={"id": "fc_1", "type": "function_call", "call_id": "call_1", "name": "get_weather",
                 "arguments": "", "status": "in_progress"}),
        ev(oai.ResponseFunctionCallArgumentsDeltaEvent, type="response.function_call_arguments.delta",
           item_id="fc_1", output_index=2, delta='{"city":'),
        ev(oai.ResponseFunctionCallArgumentsDeltaEvent, type="response.function_call_arguments.delta",
           item_id="fc_1", output_index=2, delta='"Paris"}'),
        ev(oai.ResponseFunctionCallArgumentsDoneEvent, type="response.function_call_arguments.done",
           item_id="fc_1", output_index=2, arguments='{"city":"Paris"}'),
        ev(oai.ResponseOutputItemDoneEvent, type="response.output_item.done", output_index=2, item=call_done),
        # a custom tool call
        ev(oai.ResponseOutputItemAddedEvent, type="response.output_item.added", output_index=3,
           item={**custom_done, "input": ""}),
        ev(oai.ResponseCustomToolCallInputDeltaEvent, type="response.custom_tool_call_input.delta", item_id="ctc_1",
           output_index=3, delta="ls "),
        ev(oai.ResponseCustomToolCallInputDeltaEvent, type="response.custom_tool_call_input.delta", item_id="ctc_1",
           output_index=3, delta="-la"),
        ev(oai.ResponseCustomToolCallInputDoneEvent, type="response.custom_tool_call_input.done", item_id="ctc_1",
           output_index=3, input="ls -la"),
        ev(oai.ResponseOutputItemDoneEvent, type="response.output_item.done", output_index=3, item=custom_done),
        # an MCP call
        ev(oai.ResponseOutputItemAddedEvent, type="response.output_item.added", output_index=4,
           item={**mcp_done, "arguments": "", "output": None, "status": "in_progress"}),
        ev(oai.ResponseMcpCallInProgressEvent, type="response.mcp_call.in_progress", item_id="mcp_1",
           output_index=4),
        ev(oai.ResponseMcpCallArgumentsDeltaEvent, type="response.mcp_call_arguments.delta", item_id="mcp_1",
           output_index=4, delta='{"a":'),
        ev(oai.ResponseMcpCallArgumentsDeltaEvent, type="response.mcp_call_arguments.delta", item_id="mcp_1",
           output_index=4, delta="1}"),
        ev(oai.ResponseMcpCallArgumentsDoneEvent, type="response.mcp_call_arguments.done", item_id="mcp_1",
           output_index=4, arguments='{"a":1}'),
        ev(oai.ResponseMcpCallFailedEvent, type="response.mcp_call.failed", item_id="mcp_1", output_index=4),
        ev(oai.ResponseMcpCallCompletedEvent, type="response.mcp_call.completed", item_id="mcp_1", output_index=4),
        ev(oai.ResponseOutputItemDoneEvent, type="response.output_item.done", output_index=4, item=mcp_done),
        # MCP list tools
        ev(oai.ResponseOutputItemAddedEvent, type="response.output_item.added", output_index=5, item=tools_done),
        ev(oai.ResponseMcpListToolsInProgressEvent, type="response.mcp_list_tools.in_progress", item_id="mcpl_1",
           output_index=5),
        ev(oai.ResponseMcpListToolsFailedEvent, type="response.mcp_list_tools.failed", item_id="mcpl_1",
           output_index=5),
        ev(oai.ResponseMcpListToolsCompletedEvent, type="response.mcp_list_tools.completed", item_id="mcpl_1",
           output_index=5),
        ev(oai.ResponseOutputItemDoneEvent, type="response.output_item.done", output_index=5, item=tools_done),
        # hosted tools: web search, file search, code interpreter, image generation
        ev(oai.ResponseOutputItemAddedEvent, type="response.output_item.added", output_index=6,
           item={**web_done, "status": "in_progress"}),
        ev(oai.ResponseWebSearchCallInProgressEvent, type="response.web_search_call.in_progress", item_id="ws_1",
           output_index=6),
        ev(oai.ResponseWebSearchCallSearchingEvent, type="response.web_search_call.searching", item_id="ws_1",
           output_index=6),
        ev(oai.ResponseWebSearchCallCompletedEvent, type="response.web_search_call.completed", item_id="ws_1",
           output_index=6),
        ev(oai.ResponseOutputItemDoneEvent, type="response.output_item.done", output_index=6, item=web_done),
        ev(oai.ResponseOutputItemAddedEvent, type="response.output_item.added", output_index=7,
           item={**file_done, "status": "in_progress"}),
        ev(oai.ResponseFileSearchCallInProgressEvent, type="response.file_search_call.in_progress", item_id="fs_1",
           output_index=7),
        ev(oai.ResponseFileSearchCallSearchingEvent, type="response.file_search_call.searching", item_id="fs_1",
           output_index=7),
        ev(oai.ResponseFileSearchCallCompletedEvent, type="response.file_search_call.completed", item_id="fs_1",
           output_index=7),
        ev(oai.ResponseOutputItemDoneEvent, type="response.output_item.done", output_index=7, item=file_done),
        ev(oai.ResponseOutputItemAddedEvent, type="response.output_item.added", output_index=8,
           item={**code_done, "status": "in_progress", "code": ""}),
        ev(oai.ResponseCodeInterpreterCallInProgressEvent, type="response.code_interpreter_call.in_progress",
           item_id="ci_1", output_index=8),
        ev(oai.ResponseCodeInterpreterCallCodeDeltaEvent, type="response.code_interpreter_call_code.delta",
           item_id="ci_1", output_index=8, delta="print("),
        ev(oai.ResponseCodeInterpreterCallCodeDeltaEvent, type="response.code_interpreter_call_code.delta",
           item_id="ci_1", output_index=8, delta="1)"),
        ev(oai.ResponseCodeInterpreterCallCodeDoneEvent, type="response.code_interpreter_call_code.done",
           item_id="ci_1", output_index=8, code="print(1)"),
        ev(oai.ResponseCodeInterpreterCallInterpretingEvent, type="response.code_interpreter_call.interpreting",
           item_id="ci_1", output_index=8),
        ev(oai.ResponseCodeInterpreterCallCompletedEvent, type="response.code_interpreter_call.completed",
           item_id="ci_1", output_index=8),
        ev(oai.ResponseOutputItemDoneEvent, type="response.output_item.done", output_index=8, item=code_done),
        ev(oai.ResponseOutputItemAddedEvent, type="response.output_item.added", output_index=9,
           item={**image_done, "status": "in_progress", "result": None}),
        ev(oai.ResponseImageGenCallInProgressEvent, type="response.image_generation_call.in_progress",
           item_id="ig_1", output_index=9),
        ev(oai.ResponseImageGenCallGeneratingEvent, type="response.image_generation_call.generating",
           item_id="ig_1", output_index=9),
        ev(oai.ResponseImageGenCallPartialImageEvent, type="response.image_generation_call.partial_image",
           item_id="ig_1", output_index=9, partial_image_b64="aGVs", partial_image_index=0),
        ev(oai.ResponseImageGenCallCompletedEvent, type="response.image_generation_call.completed",
           item_id="ig_1", output_index=9),
        ev(oai.ResponseOutputItemDoneEvent, type="response.output_item.done", output_index=9, item=image_done),
        # audio, a shell call's command and output, compaction: no place in the Response
        ev(oai.ResponseAudioDeltaEvent, type="response.audio.delta", delta="UklG"),
        ev(oai.ResponseAudioDoneEvent, type="response.audio.done"),
        ev(oai.ResponseAudioTranscriptDeltaEvent, type="response.audio.transcript.delta", delta="hi"),
        ev(oai.ResponseAudioTranscriptDoneEvent, type="response.audio.transcript.done"),
        ev(oai.ResponseShellCallCommandAddedEvent, type="response.shell_call_command.added", output_index=10,
           command_index=0, command=""),
        ev(oai.ResponseShellCallCommandDeltaEvent, type="response.shell_call_command.delta", output_index=10,
           command_index=0, delta="ls"),
        ev(oai.ResponseShellCallCommandDoneEvent, type="response.shell_call_command.done", output_index=10,
           command_index=0, command="ls"),
        ev(oai.ResponseShellCallOutputContentDeltaEvent, type="response.shell_call_output_content.delta",
           item_id="sh_1", output_index=10, command_index=0, delta={"stdout": "a"}),
        ev(oai.ResponseShellCallOutputContentDoneEvent, type="response.shell_call_output_content.done",
           item_id="sh_1", output_index=10, command_index=0, output=[]),
        ev(oai.ResponseCompactionCompactingEvent, type="response.compaction.compacting", item_id="cmp_1",
           output_index=11),
        ev(oai.ResponseErrorEvent, type="error", code="rate_limit", message="slow down", param=None),
        ev(oai.ResponseCompletedEvent, type="response.completed",
           response=response("completed", final_output,
                             usage={"input_tokens": 10, "output_tokens": 20, "total_tokens": 30,
                                    "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
                                    "output_tokens_details": {"reasoning_tokens": 5}})),
    ]  # fmt: skip
    return events


def ending_events(status: str) -> list[Any]:
    """A message cut by a failure or by the token limit: response.failed or
    response.incomplete, which carry only the items completed before them."""
    seq = iter(range(100))

    def ev(cls: Any, **fields: Any) -> Any:
        return cls(sequence_number=next(seq), **fields)

    extra: dict[str, Any] = (
        {"error": {"code": "server_error", "message": "The model went away."}}
        if status == "failed"
        else {"incomplete_details": {"reason": "max_output_tokens"}}
    )
    terminal = oai.ResponseFailedEvent if status == "failed" else oai.ResponseIncompleteEvent
    return [
        ev(oai.ResponseCreatedEvent, type="response.created", response=response("in_progress")),
        ev(oai.ResponseOutputItemAddedEvent, type="response.output_item.added", output_index=0,
           item={"id": "msg_1", "type": "message", "role": "assistant", "status": "in_progress", "content": []}),
        ev(oai.ResponseContentPartAddedEvent, type="response.content_part.added", item_id="msg_1", output_index=0,
           content_index=0, part={"type": "output_text", "text": "", "annotations": []}),
        ev(oai.ResponseTextDeltaEvent, type="response.output_text.delta", item_id="msg_1", output_index=0,
           content_index=0, delta="Partial ", logprobs=[]),
        ev(oai.ResponseTextDeltaEvent, type="response.output_text.delta", item_id="msg_1", output_index=0,
           content_index=0, delta="answer", logprobs=[]),
        ev(terminal, type=f"response.{status}", response=response(status, [], **extra)),
    ]  # fmt: skip


def sse(events: list[Any]) -> str:
    return "".join(f"event: {event.type}\ndata: {event.to_json(indent=None)}\n\n" for event in events)


def responses_reference(stream: str) -> dict[str, Any]:
    state: Any = ResponseStreamState(input_tools=omit, text_format=omit)
    for block in stream.split("\n\n"):
        if not block:
            continue
        data = block.split("data: ", 1)[1]
        state.handle_event(construct_type(type_=oai.ResponseStreamEvent, value=json.loads(data)))
    completed = state._completed_response
    snapshot = state._ResponseStreamState__current_snapshot
    return {
        "final_response": completed.to_dict() if completed is not None else None,
        "output_text": completed.output_text if completed is not None else None,
        "snapshot": snapshot.to_dict() if snapshot is not None else None,
    }


def record_responses(name: str, events: list[Any]) -> None:
    stream = sse(events)
    (OUT / f"{name}.sse").write_text(stream, encoding="utf-8")
    (OUT / f"{name}.json").write_text(
        json.dumps({"source": f"openai {openai.__version__} event classes and ResponseStreamState",
                    **responses_reference(stream)}, indent=1, ensure_ascii=False) + "\n",
        encoding="utf-8",
    )  # fmt: skip


def main() -> int:
    # to_dict() of the SDK's parsed snapshots warns about its own unions.
    warnings.filterwarnings("ignore", message="Pydantic serializer warnings")
    OUT.mkdir(parents=True, exist_ok=True)
    events = responses_events()
    record_responses("responses_every_event", events)
    # The same stream cut before its response.completed: the snapshot is the reference.
    record_responses("responses_cut", [event for event in events if event.type != "response.completed"][:40])
    record_responses("responses_failed", ending_events("failed"))
    record_responses("responses_incomplete", ending_events("incomplete"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
