"""Records tests/fixtures/sdk/: streams built with the protocols' own SDKs,
for every event type, and what those SDKs make of them.

- AG-UI: every AG-UI 1.0 event type, built as ag-ui-protocol's own models
  and written by its own ``EventEncoder``; the reference is the AG-UI
  client's reducer (``tests/agui_reference.py``) over the validated events.
- OpenAI Chat Completions: chunks built as openai-python's own
  ``ChatCompletionChunk`` classes for every delta field (content, refusal,
  tool calls by index, audio, logprobs, usage, n > 1), framed as the API
  frames them (``data: <json>``, then ``data: [DONE]``); the reference is
  what openai-python's ``ChatCompletionStreamState`` (behind
  ``client.chat.completions.stream``) gives: ``get_final_completion()``,
  over the chunks its stream helper keeps (it drops Azure's content-filter
  chunks, whose ``object`` is "").
- OpenAI Responses: every Responses stream event type, built as
  openai-python's own event classes and framed as the API frames them
  (``event: <type>`` + ``data: <json>``); the reference is what
  openai-python's ``ResponseStreamState`` (behind
  ``client.responses.stream``) accumulates: ``get_final_response()`` and
  the last snapshot.

- Anthropic Messages: every stream event, content block and delta type,
  built as anthropic-sdk-python's own event classes and framed as the API
  frames them (``event: <type>`` + ``data: <json>``); the reference is the
  Message anthropic-sdk-python's ``accumulate_event`` (behind
  ``client.messages.stream``) builds from them, as ``to_dict()`` gives it.

Run it where ag-ui-protocol, openai and anthropic are installed (the test suite reads
the recorded fixtures; with the SDKs installed it also checks the encoders
against them live):

    pip install ag-ui-protocol==1.0.0 openai==3.54.0 anthropic==2.12.0 jsonpatch
    python scripts/sdk_fixtures.py
"""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path
from typing import Any

import ag_ui.core as agui
import anthropic
import anthropic.types as claude
import openai
import openai.types.chat.chat_completion_chunk as chat
import openai.types.responses as oai
from ag_ui.encoder import EventEncoder
from anthropic.lib.streaming._messages import accumulate_event
from openai._models import construct_type
from openai._types import omit
from openai.lib.streaming.chat import ChatCompletionStreamState
from openai.lib.streaming.responses._responses import ResponseStreamState

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "fixtures" / "sdk"
sys.path.insert(0, str(ROOT / "tests"))

from agui_reference import apply_events  # noqa: E402

# --- AG-UI ---------------------------------------------------------------------------


def agui_events() -> list[Any]:
    """A run that uses every AG-UI 1.0 event type."""
    text = 'Héllo "world" 🙂\n数据'
    return [
        agui.RunStartedEvent(
            thread_id="t1", run_id="r1", timestamp=1763700000000,
            input=agui.RunAgentInput(thread_id="t1", run_id="r1", state={}, messages=[
                agui.UserMessage(id="u1", content="What is the weather?")], tools=[], context=[],
                forwarded_props={}),
        ),
        agui.StepStartedEvent(step_name="think"),
        agui.ReasoningStartEvent(message_id="rs1"),
        agui.ReasoningMessageStartEvent(message_id="r-msg"),
        agui.ReasoningMessageContentEvent(message_id="r-msg", delta="Let me "),
        agui.ReasoningMessageContentEvent(message_id="r-msg", delta="think."),
        agui.ReasoningMessageEndEvent(message_id="r-msg"),
        agui.ReasoningMessageChunkEvent(message_id="r-msg2", delta="More "),
        agui.ReasoningMessageChunkEvent(delta="thought."),
        agui.ReasoningEncryptedValueEvent(subtype="message", entity_id="r-msg", encrypted_value="enc-1"),
        agui.ReasoningEndEvent(message_id="rs1"),
        agui.StepFinishedEvent(step_name="think"),
        agui.TextMessageStartEvent(message_id="m1", role="assistant", metadata={"model": "x"}),
        *[agui.TextMessageContentEvent(message_id="m1", delta=piece) for piece in text.split(" ")],
        agui.TextMessageEndEvent(message_id="m1", metadata={"finish": "stop"}),
        agui.ToolCallStartEvent(tool_call_id="c1", tool_call_name="get_weather", parent_message_id="m1"),
        agui.ToolCallArgsEvent(tool_call_id="c1", delta='{"city": '),
        agui.ToolCallArgsEvent(tool_call_id="c1", delta='"Paris"}'),
        agui.ToolCallEndEvent(tool_call_id="c1"),
        agui.ReasoningEncryptedValueEvent(subtype="tool-call", entity_id="c1", encrypted_value="enc-2"),
        agui.ToolCallResultEvent(message_id="tr1", tool_call_id="c1", content='{"temp": 21}', role="tool"),
        agui.ToolCallChunkEvent(tool_call_id="c2", tool_call_name="search", delta='{"q"'),
        agui.ToolCallChunkEvent(delta=': "x"}'),
        agui.TextMessageChunkEvent(message_id="m2", role="assistant", delta="It is "),
        agui.TextMessageChunkEvent(delta="sunny."),
        agui.StateSnapshotEvent(snapshot={"city": "Paris", "steps": [], "units": {"t": "C"}}),
        agui.StateDeltaEvent(delta=[
            {"op": "add", "path": "/steps/-", "value": "looked up"},
            {"op": "replace", "path": "/units/t", "value": "F"},
            {"op": "copy", "from": "/city", "path": "/home"},
            {"op": "move", "from": "/home", "path": "/origin"},
            {"op": "test", "path": "/city", "value": "Paris"},
            {"op": "remove", "path": "/units"},
        ]),
        agui.ActivitySnapshotEvent(message_id="act1", activity_type="PLAN", content={"steps": ["a"]}),
        agui.ActivityDeltaEvent(message_id="act1", activity_type="PLAN",
                                patch=[{"op": "add", "path": "/steps/-", "value": "b"}]),
        agui.MessagesSnapshotEvent(messages=[
            agui.UserMessage(id="u1", content="What is the weather?"),
            agui.AssistantMessage(id="m1", content="Héllo \"world\" 🙂\n数据", tool_calls=[
                agui.ToolCall(id="c1", function=agui.FunctionCall(name="get_weather",
                                                                   arguments='{"city": "Paris"}'))]),
            agui.ToolMessage(id="tr1", tool_call_id="c1", content='{"temp": 21}'),
        ]),
        agui.TextMessageStartEvent(message_id="m3"),
        agui.TextMessageContentEvent(message_id="m3", delta="Done."),
        agui.TextMessageEndEvent(message_id="m3"),
        agui.RawEvent(event={"provider": "x", "n": 1.5e-7}, source="test"),
        agui.CustomEvent(name="progress", value={"pct": 100}),
        agui.SubagentStartedEvent(subagent_run_id="sa1", name="helper", parent_tool_call_id="c2"),
        agui.SubagentErrorEvent(subagent_run_id="sa1", message="partial failure", code="E1"),
        agui.SubagentFinishedEvent(subagent_run_id="sa1", result={"ok": True}, outcome={"type": "success"}),
        agui.RunFinishedEvent(thread_id="t1", run_id="r1", result={"answer": "sunny"},
                              outcome={"type": "success"}, usage=[{"inputTokens": 10, "outputTokens": 5}]),
    ]  # fmt: skip


def agui_error_events() -> list[Any]:
    return [
        agui.RunStartedEvent(thread_id="t1", run_id="r2"),
        agui.TextMessageStartEvent(message_id="m1"),
        agui.TextMessageContentEvent(message_id="m1", delta="partial"),
        agui.RunErrorEvent(message="boom", code="E_BOOM"),
    ]


def record_agui(name: str, events: list[Any]) -> None:
    encoder = EventEncoder()
    stream = "".join(encoder.encode(event) for event in events)
    wire = [json.loads(event.model_dump_json(by_alias=True)) for event in events]
    reference = apply_events(wire)
    (OUT / f"{name}.sse").write_text(stream, encoding="utf-8")
    (OUT / f"{name}.json").write_text(
        json.dumps({"source": f"ag-ui-protocol {agui_version()} models and EventEncoder",
                    "events": wire, **reference}, indent=1, ensure_ascii=False) + "\n",
        encoding="utf-8",
    )  # fmt: skip


def agui_version() -> str:
    from importlib.metadata import version

    return version("ag-ui-protocol")


# --- OpenAI Responses ------------------------------------------------------------------


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


# --- OpenAI Chat Completions -----------------------------------------------------------


def chunk(choices: list[Any], **extra: Any) -> chat.ChatCompletionChunk:
    """A chunk as the API writes it: the completion's fields in every chunk."""
    fields: dict[str, Any] = {
        "id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1763700000,
        "model": "gpt-4.1-2026-04-14", "service_tier": "default", "system_fingerprint": "fp_1a2b",
        "choices": choices,
    }  # fmt: skip
    fields.update(extra)
    return chat.ChatCompletionChunk(**fields)


def choice(index: int, finish_reason: str | None = None, logprobs: Any = None, **delta: Any) -> chat.Choice:
    return chat.Choice(
        index=index, delta=chat.ChoiceDelta(**delta), finish_reason=finish_reason, logprobs=logprobs
    )


def call(index: int, arguments: str, **first: Any) -> chat.ChoiceDeltaToolCall:
    """A tool-call fragment: ``first`` carries ``id``, ``type`` and ``name``."""
    name = first.pop("name", None)
    function = chat.ChoiceDeltaToolCallFunction(arguments=arguments, **({"name": name} if name else {}))
    return chat.ChoiceDeltaToolCall(index=index, function=function, **first)


def logprob(token: str) -> chat.ChoiceLogprobs:
    entry = chat.ChatCompletionTokenLogprob(
        token=token, logprob=-0.25, bytes=list(token.encode()), top_logprobs=[]
    )
    return chat.ChoiceLogprobs(content=[entry], refusal=None)


def chat_events() -> list[Any]:
    """Two choices (n=2) interleaved: one answers with text and logprobs,
    the other calls two tools in parallel; then the usage chunk."""
    args = '{"city": "Paris", "note": "Héllo \\"w\\" 🙂"}'
    return [
        chunk([choice(0, role="assistant", content="", refusal=None, logprobs=None)], usage=None, obfuscation="a1"),
        chunk([choice(1, role="assistant", content=None)], usage=None),
        chunk([choice(0, content="Héllo", logprobs=logprob("Héllo"))], usage=None, obfuscation="b2"),
        chunk([choice(1, tool_calls=[call(0, "", id="call_a", type="function", name="get_weather")])]),
        chunk([choice(0, content=" \"world\" 🙂\n", logprobs=logprob(" \"world\" 🙂\n"))]),
        chunk([choice(1, tool_calls=[call(0, args[:9])])]),
        chunk([choice(1, tool_calls=[call(0, args[9:21])])]),
        chunk([choice(1, tool_calls=[call(1, "", id="call_b", type="function", name="get_time")])]),
        chunk([choice(1, tool_calls=[call(0, args[21:])])]),
        chunk([choice(1, tool_calls=[call(1, '{"tz":"CET"}')])]),
        chunk([choice(0, content="数据")]),
        chunk([choice(0, finish_reason="stop")]),
        chunk([choice(1, finish_reason="tool_calls")]),
        chunk([], usage=chat.CompletionUsage(prompt_tokens=12, completion_tokens=34, total_tokens=46,
                                             completion_tokens_details={"reasoning_tokens": 0})),
    ]  # fmt: skip


def chat_refusal_events() -> list[Any]:
    """A refusal, an audio reply (id, base64 data in pieces, transcript) and
    a deprecated ``function_call``, each on its own choice."""
    return [
        chunk([choice(0, role="assistant", refusal="")]),
        chunk([choice(0, refusal="I can't ")]),
        chunk([choice(0, refusal="help with that.")]),
        chunk([choice(1, role="assistant", audio=chat.ChoiceDeltaAudio(id="audio_1", data="AAAA",
                                                                        transcript="Hi", expires_at=1763703600))]),
        chunk([choice(1, audio=chat.ChoiceDeltaAudio(data="BBBB", transcript=" there"))]),
        chunk([choice(2, role="assistant", function_call=chat.ChoiceDeltaFunctionCall(name="lookup",
                                                                                       arguments='{"q":'))]),
        chunk([choice(2, function_call=chat.ChoiceDeltaFunctionCall(arguments='"x"}'))]),
        chunk([choice(0, finish_reason="stop"), choice(1, finish_reason="stop"),
               choice(2, finish_reason="function_call")]),
    ]  # fmt: skip


def content_filter_chunk(**fields: Any) -> Any:
    """Azure's content-filter annotation: ``object`` is the empty string."""
    return construct_type(type_=chat.ChatCompletionChunk, value={
        "id": "", "object": "", "created": 0, "model": "", **fields})  # fmt: skip


def chat_azure_events() -> list[Any]:
    """An Azure OpenAI stream: prompt-filter results first, and a
    content-filter annotation between the deltas."""
    return [
        content_filter_chunk(choices=[], prompt_filter_results=[
            {"prompt_index": 0, "content_filter_results": {"hate": {"filtered": False, "severity": "safe"}}}]),
        chunk([choice(0, role="assistant", content="")]),
        chunk([choice(0, content="Hello")]),
        content_filter_chunk(choices=[{"index": 0, "delta": {}, "finish_reason": None,
                                       "content_filter_offsets": {"check_offset": 0, "start_offset": 0,
                                                                  "end_offset": 5}}]),
        chunk([choice(0, content=" there")]),
        chunk([choice(0, finish_reason="stop")]),
    ]  # fmt: skip


def chat_repeating_events() -> list[Any]:
    """An OpenAI-compatible server that repeats ``role`` in every chunk and a
    tool call's ``id`` and ``name`` in every fragment, and streams
    ``reasoning_content`` (openai-python concatenates all of them)."""
    return [
        chunk([choice(0, role="assistant", content="", reasoning_content="r1")]),
        chunk([choice(0, role="assistant", content="Hello", reasoning_content="r2")]),
        chunk([choice(0, role="assistant", tool_calls=[call(0, '{"a"', id="call_1", type="function", name="f")])]),
        chunk([choice(0, role="assistant", tool_calls=[call(0, ":1}", id="call_1", type="function", name="f")])]),
        chunk([choice(0, role="assistant", finish_reason="tool_calls")]),
    ]  # fmt: skip


def chat_sse(chunks: list[Any]) -> str:
    return "".join(f"data: {item.to_json(indent=None)}\n\n" for item in chunks) + "data: [DONE]\n\n"


def chat_reference(stream: str) -> dict[str, Any]:
    state: Any = ChatCompletionStreamState()
    for block in stream.split("\n\n"):
        data = block.removeprefix("data: ")
        if not data or data == "[DONE]":
            continue
        item = construct_type(type_=chat.ChatCompletionChunk, value=json.loads(data))
        if item.object == "chat.completion.chunk":  # as the stream helper filters
            state.handle_chunk(item)
    return {"final_completion": state.get_final_completion().to_dict()}


def record_chat(name: str, chunks: list[Any]) -> None:
    stream = chat_sse(chunks)
    (OUT / f"{name}.sse").write_text(stream, encoding="utf-8")
    (OUT / f"{name}.json").write_text(
        json.dumps({"source": f"openai {openai.__version__} chunk classes and ChatCompletionStreamState",
                    **chat_reference(stream)}, indent=1, ensure_ascii=False) + "\n",
        encoding="utf-8",
    )  # fmt: skip


# --- Anthropic Messages ------------------------------------------------------------------


def claude_start(**usage: Any) -> claude.RawMessageStartEvent:
    message = claude.Message(
        id="msg_1",
        type="message",
        role="assistant",
        model="claude-sonnet-4-5",
        content=[],
        stop_reason=None,
        stop_sequence=None,
        usage=claude.Usage(
            input_tokens=25,
            output_tokens=1,
            cache_read_input_tokens=7,
            cache_creation_input_tokens=0,
            **usage,
        ),
    )
    return claude.RawMessageStartEvent(type="message_start", message=message)


def block_start(index: int, block: Any) -> claude.RawContentBlockStartEvent:
    return claude.RawContentBlockStartEvent(type="content_block_start", index=index, content_block=block)


def block_delta(index: int, delta: Any) -> claude.RawContentBlockDeltaEvent:
    return claude.RawContentBlockDeltaEvent(type="content_block_delta", index=index, delta=delta)


def block_stop(index: int) -> claude.RawContentBlockStopEvent:
    return claude.RawContentBlockStopEvent(type="content_block_stop", index=index)


def claude_events() -> list[Any]:
    """A message with every content block and delta type the API streams."""
    text = 'Héllo "world" 🙂\n数据'
    arguments = ["", '{"city": "Par', 'is", "units": ["c', '"], "note": "\\u00e9\\n", "n": 1.5e3}']
    search = '{"query": "weather paris"}'
    citation = claude.CitationCharLocation(
        type="char_location",
        cited_text="It is sunny.",
        document_index=0,
        document_title="Report",
        start_char_index=0,
        end_char_index=12,
        file_id=None,
    )
    result = claude.WebSearchToolResultBlock(
        type="web_search_tool_result",
        tool_use_id="srvtoolu_1",
        content=[
            claude.WebSearchResultBlock(
                type="web_search_result",
                title="Weather",
                url="https://w.example",
                encrypted_content="enc",
                page_age=None,
            )
        ],
    )
    return [
        claude_start(),
        block_start(0, claude.ThinkingBlock(type="thinking", thinking="", signature="")),
        block_delta(0, claude.ThinkingDelta(type="thinking_delta", thinking="Let me ")),
        block_delta(0, claude.ThinkingDelta(type="thinking_delta", thinking="think.")),
        block_delta(0, claude.SignatureDelta(type="signature_delta", signature="sig-abc")),
        block_stop(0),
        block_start(1, claude.RedactedThinkingBlock(type="redacted_thinking", data="opaque==")),
        block_stop(1),
        block_start(2, claude.ServerToolUseBlock(type="server_tool_use", id="srvtoolu_1", name="web_search",
                                                 input={})),
        block_delta(2, claude.InputJSONDelta(type="input_json_delta", partial_json=search[:9])),
        block_delta(2, claude.InputJSONDelta(type="input_json_delta", partial_json=search[9:])),
        block_stop(2),
        block_start(3, result),
        block_stop(3),
        block_start(4, claude.TextBlock(type="text", text="", citations=None)),
        *[block_delta(4, claude.TextDelta(type="text_delta", text=piece + " ")) for piece in text.split(" ")],
        block_delta(4, claude.CitationsDelta(type="citations_delta", citation=citation)),
        block_delta(4, claude.TextDelta(type="text_delta", text="Done.")),
        block_stop(4),
        block_start(5, claude.ToolUseBlock(type="tool_use", id="toolu_1", name="get_weather", input={})),
        *[block_delta(5, claude.InputJSONDelta(type="input_json_delta", partial_json=piece)) for piece in arguments],
        block_stop(5),
        block_start(6, claude.ToolUseBlock(type="tool_use", id="toolu_2", name="no_arguments", input={})),
        block_delta(6, claude.InputJSONDelta(type="input_json_delta", partial_json="")),
        block_stop(6),
        claude.RawMessageDeltaEvent(
            type="message_delta", delta={"stop_reason": "tool_use", "stop_sequence": None},
            usage=claude.MessageDeltaUsage(output_tokens=89, input_tokens=25, cache_read_input_tokens=7,
                                           server_tool_use=claude.ServerToolUsage(web_search_requests=1, web_fetch_requests=0)),
        ),
        claude.RawMessageStopEvent(type="message_stop"),
    ]  # fmt: skip


def claude_error_events() -> list[Any]:
    """A stream the API ends with an ``error`` event after a 200, as when it is overloaded."""
    return [
        claude_start(),
        block_start(0, claude.TextBlock(type="text", text="")),
        block_delta(0, claude.TextDelta(type="text_delta", text="Partial ")),
        block_delta(0, claude.TextDelta(type="text_delta", text="answer")),
        # The SDK has no class for the stream's error event: it is the wire's dict.
        {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
    ]


def claude_sse(events: list[Any]) -> str:
    frames = []
    for event in events:
        body = event if isinstance(event, dict) else event.to_dict()
        frames.append(f"event: {body['type']}\ndata: {json.dumps(body, ensure_ascii=False)}\n\n")
        if body["type"] == "content_block_start" and body["index"] == 0:
            frames.append('event: ping\ndata: {"type": "ping"}\n\n')
    return "".join(frames)


def claude_reference(stream: str) -> dict[str, Any]:
    snapshot: Any = None
    json_bufs: dict[int, bytes] = {}
    for block in stream.split("\n\n"):
        if not block:
            continue
        data = json.loads(block.split("data: ", 1)[1])
        if data["type"] in ("ping", "error"):
            continue  # the stream helper answers these itself: no accumulation
        event = construct_type(type_=claude.RawMessageStreamEvent, value=data)
        snapshot = accumulate_event(event=event, current_snapshot=snapshot, json_bufs=json_bufs)
    return {"message": snapshot.to_dict() if snapshot is not None else None}


def record_claude(name: str, events: list[Any]) -> None:
    stream = claude_sse(events)
    (OUT / f"{name}.sse").write_text(stream, encoding="utf-8")
    (OUT / f"{name}.json").write_text(
        json.dumps({"source": f"anthropic {anthropic.__version__} event classes and accumulate_event",
                    **claude_reference(stream)}, indent=1, ensure_ascii=False) + "\n",
        encoding="utf-8",
    )  # fmt: skip


def main() -> int:
    # to_dict() of the SDK's parsed snapshots warns about its own unions.
    warnings.filterwarnings("ignore", message="Pydantic serializer warnings")
    OUT.mkdir(parents=True, exist_ok=True)
    record_agui("agui_every_event", agui_events())
    record_agui("agui_run_error", agui_error_events())
    events = responses_events()
    record_responses("responses_every_event", events)
    # The same stream cut before its response.completed: the snapshot is the reference.
    record_responses("responses_cut", [event for event in events if event.type != "response.completed"][:40])
    record_responses("responses_failed", ending_events("failed"))
    record_responses("responses_incomplete", ending_events("incomplete"))
    record_chat("chat_every_field", chat_events())
    record_chat("chat_refusal_audio", chat_refusal_events())
    record_chat("chat_azure", chat_azure_events())
    record_chat("chat_repeating", chat_repeating_events())
    record_claude("anthropic_every_block", claude_events())
    record_claude("anthropic_overloaded", claude_error_events())
    print(f"wrote {len(list(OUT.glob('*.sse')))} streams to {OUT}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
