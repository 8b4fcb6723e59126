"""Regenerates tests/fixtures/agentscope/ from agentscope-runtime itself.

Every fixture is a stream exactly as agentscope-runtime writes it
(``data: {event.model_dump_json()}\\n\\n``, each event serialised as it is
yielded) and the final response upstream holds at the end of it. Ids and
timestamps are made deterministic so that the fixtures are stable and the
project's builders can be compared byte for byte.

Run it in an environment that has agentscope-runtime (it is a heavy
dependency, so the test suite reads the recorded fixtures instead):

    python3 -m venv /tmp/asr
    /tmp/asr/bin/pip install agentscope-runtime==1.1.6.post2 "agentscope>=1.0.14,<2" greenlet tqdm
    /tmp/asr/bin/python scripts/agentscope_fixtures.py
"""

from __future__ import annotations

import asyncio
import itertools
import json
import sys
import uuid
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from agentscope.message import Msg
from agentscope_runtime.engine import Runner
from agentscope_runtime.engine import runner as runner_module
from agentscope_runtime.engine.helpers import agent_api_builder
from agentscope_runtime.engine.helpers.agent_api_builder import ResponseBuilder
from agentscope_runtime.engine.schemas import agent_schemas
from agentscope_runtime.version import __version__ as runtime_version

OUT = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "agentscope"
CLOCK = 1763700000


class _FixedDatetime:
    @staticmethod
    def now() -> Any:
        return SimpleNamespace(timestamp=lambda: float(CLOCK))


def make_deterministic() -> None:
    """uuid4 counts up and the clock stands still, in the upstream modules."""
    counter = itertools.count(1)

    def uuid4() -> uuid.UUID:
        return uuid.UUID(int=next(counter))

    agent_schemas.uuid4 = uuid4
    agent_api_builder.uuid4 = uuid4
    agent_schemas.datetime = _FixedDatetime
    agent_api_builder.time = SimpleNamespace(time=lambda: float(CLOCK))
    runner_module.uuid = SimpleNamespace(uuid4=uuid4)


def frame(event: Any) -> str:
    return f"data: {event.model_dump_json()}\n\n"


def write(name: str, frames: list[str], final: Any, note: str, **inputs: Any) -> None:
    (OUT / f"{name}.sse").write_text("".join(frames), encoding="utf-8")
    expected = {
        "source": f"agentscope-runtime {runtime_version}: {note}",
        "inputs": inputs,
        "final": json.loads(final.model_dump_json()),
    }
    (OUT / f"{name}.json").write_text(
        json.dumps(expected, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )


# --- builders ------------------------------------------------------------------


def builder_tokens(name: str, tokens: list[str], note: str) -> None:
    make_deterministic()
    builder = ResponseBuilder(session_id="sess_1")
    frames = [frame(event) for event in builder.generate_streaming_response(tokens, role="assistant")]
    write(name, frames, builder.get_response_data(), note, session_id="sess_1", tokens=tokens)


def builder_agent_turn() -> None:
    """Reasoning, a tool call with data deltas, its output, an image and an answer."""
    make_deterministic()
    builder = ResponseBuilder(session_id="sess_2")
    frames = [frame(builder.created()), frame(builder.in_progress())]

    reasoning = builder.create_message_builder(role="assistant", message_type="reasoning")
    frames.append(frame(reasoning.get_message_data()))
    thought = reasoning.create_content_builder(content_type="text")
    for token in ["The user ", "wants the ", "weather in Paris."]:
        frames.append(frame(thought.add_text_delta(token)))
    frames.append(frame(thought.complete()))
    frames.append(frame(reasoning.complete()))

    call = builder.create_message_builder(role="assistant", message_type="plugin_call")
    frames.append(frame(call.get_message_data()))
    args = call.create_content_builder(content_type="data")
    frames.append(frame(args.set_data({"call_id": "call_1", "name": "get_weather", "arguments": ""})))
    for piece in ['{"city": ', '"Paris", ', '"unit": "C"}']:
        frames.append(frame(args.add_data_delta({"arguments": piece})))
    frames.append(frame(args.complete()))
    frames.append(frame(call.complete()))

    output = builder.create_message_builder(role="tool", message_type="plugin_call_output")
    frames.append(frame(output.get_message_data()))
    result = output.create_content_builder(content_type="data")
    frames.append(
        frame(result.set_data({"call_id": "call_1", "name": "get_weather", "output": '{"temp": 21}'}))
    )
    frames.append(frame(result.complete()))
    frames.append(frame(output.complete()))

    answer = builder.create_message_builder(role="assistant", message_type="message")
    frames.append(frame(answer.get_message_data()))
    text = answer.create_content_builder(content_type="text")
    for token in ["It is ", "21 °C ", "and sunny in Paris ☀️", ' — "enjoy".\n']:
        frames.append(frame(text.add_text_delta(token)))
    frames.append(frame(text.complete()))
    image = answer.create_content_builder(content_type="image")
    frames.append(frame(image.set_image_url("https://example.com/paris.png")))
    frames.append(frame(image.complete()))
    frames.append(frame(answer.complete()))
    frames.append(frame(builder.completed()))
    write("builder_agent_turn", frames, builder.get_response_data(), "builders: reasoning, tool call, answer")


# --- the runner ------------------------------------------------------------------


class TextRunner(Runner):
    def __init__(self, tokens: list[str], fail: bool = False) -> None:
        super().__init__()
        self.framework_type = "text"
        self.tokens = tokens
        self.fail = fail

    async def query_handler(self, request: Any = None, **kwargs: Any) -> Any:
        for token in self.tokens:
            yield token
        if self.fail:
            raise RuntimeError("Error")


class AgentScopeRunner(Runner):
    """Replays what an AgentScope agent yields: (Msg, last), cumulative per id."""

    def __init__(self, steps: list[tuple[Msg, bool]]) -> None:
        super().__init__()
        self.framework_type = "agentscope"
        self.steps = steps

    async def query_handler(self, msgs: Any = None, request: Any = None, **kwargs: Any) -> Any:
        for msg, last in self.steps:
            yield msg, last


async def run(runner: Runner) -> tuple[list[str], Any]:
    request = {
        "input": [{"role": "user", "content": [{"type": "text", "text": "Hello"}]}],
        "session_id": "Test Session",
    }
    frames: list[str] = []
    last = None
    async with runner:
        async for event in runner.stream_query(request):
            frames.append(frame(event))  # serialised now: upstream mutates events later
            last = event
    return frames, last


def runner_case(name: str, runner: Runner, note: str) -> None:
    make_deterministic()
    frames, final = asyncio.run(run(runner))
    write(name, frames, final, note)


def agentscope_steps() -> list[tuple[Msg, bool]]:
    """The research example: thinking, text, a tool call, its result, text."""

    def msg(msg_id: str, role: str, content: list[dict[str, Any]]) -> Msg:
        message = Msg(name="Friday", role=role, content=content)
        message.id = msg_id
        return message

    tool_use = {"type": "tool_use", "id": "call_1", "name": "get_weather"}
    return [
        (msg("m1", "assistant", [{"type": "thinking", "thinking": "Let"}]), False),
        (msg("m1", "assistant", [{"type": "thinking", "thinking": "Let me think"}]), False),
        (msg("m1", "assistant", [{"type": "thinking", "thinking": "Let me think"},
                                 {"type": "text", "text": "Hel"}]), False),
        (msg("m1", "assistant", [{"type": "thinking", "thinking": "Let me think"},
                                 {"type": "text", "text": "Hello"}]), True),
        (msg("m2", "assistant", [{**tool_use, "input": {"city": "Pa"}}]), False),
        (msg("m2", "assistant", [{**tool_use, "input": {"city": "Paris"}}]), True),
        (msg("m3", "system", [{"type": "tool_result", "id": "call_1", "name": "get_weather",
                               "output": [{"type": "text", "text": "sunny"}]}]), True),
        (msg("m4", "assistant", [{"type": "text", "text": "It is"}]), False),
        (msg("m4", "assistant", [{"type": "text", "text": "It is sunny."}]), True),
    ]  # fmt: skip


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    builder_tokens("builder_hello", ["Hel", "lo"], "ResponseBuilder.generate_streaming_response")
    tokens = [f"tok{i} " if i % 7 else f'"q{i}" é\n' for i in range(200)] + ["🙂", "\u2028end"]
    builder_tokens("builder_200_tokens", tokens, "generate_streaming_response, 202 tokens")
    builder_agent_turn()
    runner_case("runner_text", TextRunner(["Hi", "! My name is Friday", "."]), "Runner, text adapter")
    runner_case("runner_text_error", TextRunner(["Hi"], fail=True), "Runner, text adapter, handler raises")
    long_tokens = [f"w{i}{'ü' if i % 5 == 0 else ''} " for i in range(2000)]
    runner_case("runner_text_long", TextRunner(long_tokens), "Runner, text adapter, 2000 tokens")
    runner_case("runner_agentscope", AgentScopeRunner(agentscope_steps()), "Runner, AgentScope adapter")
    print(f"wrote {len(list(OUT.glob('*.sse')))} fixtures to {OUT}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
