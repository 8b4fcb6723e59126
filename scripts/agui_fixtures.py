"""Records AG-UI's streams in tests/fixtures/sdk/ (``agui_*``): every AG-UI
1.0 event type, built as ag-ui-protocol's own models and written by its own
``EventEncoder``; the reference is the AG-UI client's reducer
(``tests/agui_reference.py``) over the validated events.

Run it where ag-ui-protocol is installed (the test suite reads the recorded
fixtures; with the SDK installed it also checks the encoder against it live):

    pip install ag-ui-protocol==1.0.0 jsonpatch
    python scripts/agui_fixtures.py
"""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path
from typing import Any

import ag_ui.core as agui
from ag_ui.encoder import EventEncoder

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "fixtures" / "sdk"
sys.path.insert(0, str(ROOT / "tests"))

from agui_reference import apply_events  # noqa: E402


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


def main() -> int:
    # to_dict() of the SDK's parsed snapshots warns about its own unions.
    warnings.filterwarnings("ignore", message="Pydantic serializer warnings")
    OUT.mkdir(parents=True, exist_ok=True)
    record_agui("agui_every_event", agui_events())
    record_agui("agui_run_error", agui_error_events())
    return 0


if __name__ == "__main__":
    sys.exit(main())
