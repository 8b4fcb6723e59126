"""The implementations the benchmarks compare, each a function of the chunks
a client receives. Peers that are not installed are left out (``available``).

Layers:

- ``framing``: bytes to SSE events (their data as ``str``).
- ``decode``: bytes to the events' JSON as Python objects.
- ``assemble_agentscope`` / ``assemble_langchain``: bytes to the final
  assembled message(s).
- ``serve_agentscope``: many AgentScope streams at once, their chunks
  interleaved as ``(stream, chunk)``, each into its own assembler.
- ``build``: a token list to the SSE bytes an AgentScope server writes.
- ``assemble_agui`` / ``assemble_responses``: bytes to the AG-UI client's
  messages / the final Response.
- ``assemble_anthropic``: bytes to anthropic-sdk-python's ``accumulate_event``
  (its SSE decoder, event models and accumulator), against both backends.
- ``assemble_chat``: bytes to openai-python's ``ChatCompletionStreamState``
  completion, or agentcodec's.
- ``assemble_ai_sdk``: bytes to the AI SDK's UIMessage. The SDK's own
  ``processUIMessageStream`` runs in Node, outside this process: it is
  measured when ``AGENTCODEC_AI_SDK_RUNNER`` names a command that reads the
  stream on stdin, times the SDK over it as many times as its argument
  says, and prints ``{"ms": <the best time>}`` (see ``NodePeer``).
- ``convert_agui`` / ``convert_responses``: an AgentScope ``/process``
  stream converted to AG-UI / OpenAI Responses SSE, as an AgentApp serves
  its other endpoints. agentcodec converts the bytes as they arrive;
  agentscope-runtime's adapters convert the event objects its agent yields
  (built once, outside the timing) and serialise them as the AgentApp does.
"""

from __future__ import annotations

import codecs
import importlib
import json
import os
import shlex
import subprocess
from collections.abc import Callable
from typing import Any

from agentcodec import _pure, agentscope
from agentcodec import encode_sse as native_encode_sse

try:
    from agentcodec import _native
except ImportError:  # the pure wheel
    _native = None  # type: ignore[assignment]

Impl = Callable[[list[bytes]], Any]


def installed(module: str) -> bool:
    """Whether a peer can be imported (installed, with what it needs)."""
    try:
        importlib.import_module(module)
    except Exception:  # a peer that cannot be imported is a missing one
        return False
    return True


# --- framing -------------------------------------------------------------------------------


def frame_with(module: Any) -> Impl:
    def run(chunks: list[bytes]) -> int:
        decoder = module.SSEDecoder()
        count = 0
        for chunk in chunks:
            count += len(decoder.feed(chunk))
        return count + len(decoder.close())

    return run


def frame_httpx_sse(chunks: list[bytes]) -> int:
    from httpx_sse._decoders import SSEDecoder, SSELineDecoder

    text = codecs.getincrementaldecoder("utf-8")(errors="replace")
    lines, decoder, count = SSELineDecoder(), SSEDecoder(), 0
    for chunk in chunks:
        for line in lines.decode(text.decode(chunk)):
            if decoder.decode(line) is not None:
                count += 1
    for line in lines.flush():
        if decoder.decode(line) is not None:
            count += 1
    return count


def frame_openai(chunks: list[bytes]) -> int:
    from openai._streaming import SSEDecoder

    return sum(1 for _ in SSEDecoder().iter_bytes(iter(chunks)))


def frame_sseclient(chunks: list[bytes]) -> int:
    import sseclient

    return sum(1 for _ in sseclient.SSEClient(iter(chunks)).events())


class HandRolledDecoder:
    """What a careful developer writes by hand: a bytearray buffer, bytes.find
    for the blank line, data lines joined. LF line ends only, no BOM, no
    comments handling beyond skipping: fast, not conformant."""

    def __init__(self) -> None:
        self.buffer = bytearray()
        self.start = 0

    def feed(self, chunk: bytes) -> list[bytes]:
        buffer = self.buffer
        # Where to look for the blank line: not before the last byte of
        # what was searched already, so that a large event is not rescanned
        # with every chunk.
        search = max(self.start, len(buffer) - 1)
        buffer += chunk
        start, out = self.start, []
        while True:
            end = buffer.find(b"\n\n", search)
            if end < 0:
                break
            block = bytes(buffer[start:end])
            start = search = end + 2
            data = [line[5:].lstrip(b" ") for line in block.split(b"\n") if line.startswith(b"data:")]
            if data:
                out.append(b"\n".join(data))
        if start > 65536:
            del buffer[:start]
            start = 0
        self.start = start
        return out


def handrolled_frames(chunks: list[bytes]) -> Any:
    decoder = HandRolledDecoder()
    for chunk in chunks:
        yield from decoder.feed(chunk)


def frame_handrolled(chunks: list[bytes]) -> int:
    return sum(1 for _ in handrolled_frames(chunks))


# --- decode to Python objects ----------------------------------------------------------------


def decode_with(module: Any) -> Impl:
    """``SSEEvent.json()``, as httpx-sse users write it."""

    def run(chunks: list[bytes]) -> list[Any]:
        decoder = module.SSEDecoder()
        return [event.json() for chunk in chunks for event in decoder.feed(chunk)]

    return run


def decode_handrolled_orjson(chunks: list[bytes]) -> list[Any]:
    import orjson

    return [orjson.loads(data) for data in handrolled_frames(chunks)]


def decode_httpx_sse_json(chunks: list[bytes]) -> list[Any]:
    from httpx_sse._decoders import SSEDecoder, SSELineDecoder

    text = codecs.getincrementaldecoder("utf-8")(errors="replace")
    lines, decoder, out = SSELineDecoder(), SSEDecoder(), []
    for chunk in chunks:
        for line in lines.decode(text.decode(chunk)):
            event = decoder.decode(line)
            if event is not None:
                out.append(json.loads(event.data))
    return out


def decode_agentscope_native(chunks: list[bytes]) -> list[Any]:
    """The assembler's decoded events (parsed in Rust), assembling as it goes."""
    assembler = _native.AgentScopeAssembler()
    return [event for chunk in chunks for event in assembler.feed_with_events(chunk)]


# --- assembling AgentScope ------------------------------------------------------------------


def assemble_with(module: Any, assembler: str) -> Impl:
    """Any protocol's assembler in a backend, by its class name there: the
    bytes fed as they come, then closed."""

    def run(chunks: list[bytes]) -> Any:
        instance = getattr(module, assembler)()
        for chunk in chunks:
            instance.feed(chunk)
        return instance.close()

    return run


# The field each content type's deltas append to.
_APPENDED = {"text": "text", "audio": "data", "image": "image_url", "refusal": "refusal"}


def _assemble_events_python(events: Any) -> dict[str, Any]:
    """The least a pure-Python client does to assemble: route by msg_id,
    append deltas to the field of their type, replace on completion
    (pieces joined at the end)."""
    messages: dict[str, dict[str, list[str]]] = {}
    for event in events:
        if event.get("object") == "content":
            slots = messages.setdefault(event["msg_id"], {})
            key = str(event.get("index"))
            piece = event.get(_APPENDED.get(event.get("type"), "text")) or ""
            if event.get("delta"):
                slots.setdefault(key, []).append(piece)
            else:
                slots[key] = [piece]
    return {mid: {k: "".join(v) for k, v in slots.items()} for mid, slots in messages.items()}


def assemble_agentscope_handrolled(chunks: list[bytes]) -> Any:
    import orjson

    return _assemble_events_python(orjson.loads(data) for data in handrolled_frames(chunks))


def assemble_agentscope_httpx_sse(chunks: list[bytes]) -> Any:
    return _assemble_events_python(decode_httpx_sse_json(chunks))


def assemble_agentscope_upstream(chunks: list[bytes]) -> Any:
    """agentscope-runtime's own models: Message.add_delta_content on pydantic
    objects, fed by httpx-sse and json."""
    from agentscope_runtime.engine.schemas.agent_schemas import Message, TextContent

    messages: dict[str, Any] = {}
    for event in decode_httpx_sse_json(chunks):
        if event.get("object") == "content" and event.get("type") == "text" and event.get("delta"):
            content = TextContent(**event)
            message = messages.get(event["msg_id"])
            if message is None:
                message = messages[event["msg_id"]] = Message(id=event["msg_id"])
                content.index = None  # upstream opens a slot with index None
            message.add_delta_content(content)
    return messages


# --- serving many AgentScope streams at once -------------------------------------------------

Interleaved = list[tuple[int, bytes]]


def serve_agentscope_with(module: Any) -> Callable[[Interleaved], Any]:
    def run(pieces: Interleaved) -> Any:
        assemblers: dict[int, Any] = {}
        for which, chunk in pieces:
            assembler = assemblers.get(which)
            if assembler is None:
                assembler = assemblers[which] = module.AgentScopeAssembler()
            assembler.feed(chunk)
        return [assembler.close() for assembler in assemblers.values()]

    return run


def _serve_python(pieces: Interleaved, decoder: Callable[[], Callable[[bytes], list[Any]]]) -> Any:
    """One decoder and one event list per stream; each stream assembled as
    the minimal assembler above does."""
    streams: dict[int, tuple[Callable[[bytes], list[Any]], list[Any]]] = {}
    for which, chunk in pieces:
        state = streams.get(which)
        if state is None:
            state = streams[which] = (decoder(), [])
        state[1].extend(state[0](chunk))
    return [_assemble_events_python(events) for _, events in streams.values()]


def serve_agentscope_handrolled(pieces: Interleaved) -> Any:
    import orjson

    def decoder() -> Callable[[bytes], list[Any]]:
        frames = HandRolledDecoder()
        return lambda chunk: [orjson.loads(data) for data in frames.feed(chunk)]

    return _serve_python(pieces, decoder)


def serve_agentscope_httpx_sse(pieces: Interleaved) -> Any:
    from httpx_sse._decoders import SSEDecoder, SSELineDecoder

    def decoder() -> Callable[[bytes], list[Any]]:
        text = codecs.getincrementaldecoder("utf-8")(errors="replace")
        lines, events = SSELineDecoder(), SSEDecoder()

        def feed(chunk: bytes) -> list[Any]:
            out = []
            for line in lines.decode(text.decode(chunk)):
                event = events.decode(line)
                if event is not None:
                    out.append(json.loads(event.data))
            return out

        return feed

    return _serve_python(pieces, decoder)


# --- assembling LangChain ----------------------------------------------------------------------


# The field each LangChain block type's deltas append to (media: base64).
_LANGCHAIN_FIELD = {"text": "text", "reasoning": "reasoning", "tool_call_chunk": "args"}


def _assemble_langchain_python(envelopes: Any) -> dict[tuple[str, ...], list[dict[str, Any]]]:
    """The least a pure-Python client does to assemble the LangChain
    protocol: blocks by namespace and index, opened by content-block-start,
    deltas appended to their block's field (pieces joined at the end),
    content-block-finish merged over the block (an empty field keeps what
    was appended); tool-call arguments parsed at the end."""
    messages: dict[tuple[str, ...], dict[int, tuple[dict[str, Any], list[str]]]] = {}
    for envelope in envelopes:
        params = envelope["params"]
        data = params["data"]
        kind = data["event"]
        if kind == "content-block-delta":
            delta = data["delta"]
            block, pieces = messages[tuple(params["namespace"])][data["index"]]
            pieces.append(delta.get(_LANGCHAIN_FIELD.get(block["type"], "data")) or "")
        elif kind == "content-block-start":
            blocks = messages.setdefault(tuple(params["namespace"]), {})
            blocks[data["index"]] = (dict(data["content"]), [])
        elif kind == "content-block-finish":
            block, pieces = messages[tuple(params["namespace"])][data["index"]]
            field = _LANGCHAIN_FIELD.get(block["type"], "base64")
            if data["content"].get(field):
                pieces.clear()
            block.update((key, value) for key, value in data["content"].items() if value or key != field)
    assembled: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    for namespace, blocks in messages.items():
        content = []
        for block, pieces in blocks.values():
            field = _LANGCHAIN_FIELD.get(block["type"], "base64")
            if pieces:
                block[field] = block.get(field, "") + "".join(pieces)
            if block["type"] == "tool_call_chunk":
                arguments = json.loads(block["args"] or "{}")
                content.append(
                    {"type": "tool_call", "id": block["id"], "name": block["name"], "args": arguments}
                )
            else:
                content.append(block)
        assembled[namespace] = content
    return assembled


def assemble_langchain_handrolled(chunks: list[bytes]) -> Any:
    import orjson

    return _assemble_langchain_python(orjson.loads(data) for data in handrolled_frames(chunks))


def assemble_langchain_httpx_sse(chunks: list[bytes]) -> Any:
    return _assemble_langchain_python(decode_httpx_sse_json(chunks))


def assemble_langchain_core(chunks: list[bytes]) -> Any:
    """langchain-core's ChatModelStream, fed by httpx-sse and json."""
    from langchain_core.language_models.chat_model_stream import ChatModelStream

    stream = ChatModelStream(namespace=["agent:1"], node="model", message_id="run-1")
    for envelope in decode_httpx_sse_json(chunks):
        stream.dispatch(envelope["params"]["data"])
    return stream.output


# --- building ---------------------------------------------------------------------------------


def build_fast_path(tokens: list[str]) -> int:
    return sum(
        len(frame) for frame in agentscope.ResponseBuilder(session_id="s").generate_streaming_sse(tokens)
    )


def build_events_encode(tokens: list[str]) -> int:
    builder = agentscope.ResponseBuilder(session_id="s")
    return sum(len(native_encode_sse(event)) for event in builder.generate_streaming_response(tokens))


# --- writing events made as dicts ----------------------------------------------------------------


def encode_native(events: list[dict[str, Any]]) -> int:
    return sum(len(native_encode_sse(event)) for event in events)


def encode_pure(events: list[dict[str, Any]]) -> int:
    return sum(len(_pure.encode_sse(event)) for event in events)


def encode_orjson(events: list[dict[str, Any]]) -> int:
    """orjson and the framing by hand: what a server that owns its JSON writes."""
    import orjson

    return sum(len(b"data: " + orjson.dumps(event) + b"\n\n") for event in events)


def encode_json(events: list[dict[str, Any]]) -> int:
    return sum(
        len(f"data: {json.dumps(event, ensure_ascii=False, separators=(',', ':'))}\n\n".encode())
        for event in events
    )


def build_upstream(tokens: list[str]) -> int:
    from agentscope_runtime.engine.helpers.agent_api_builder import ResponseBuilder

    builder = ResponseBuilder(session_id="s")
    return sum(
        len(f"data: {e.model_dump_json()}\n\n".encode()) for e in builder.generate_streaming_response(tokens)
    )


# --- assembling AG-UI and OpenAI Responses ------------------------------------------------------


def assemble_agui_models(chunks: list[bytes]) -> Any:
    """ag-ui-protocol's event models (each event validated, as its Python
    client does) with the least accumulating that gets messages right: text
    and reasoning by message id, arguments by tool call, results."""
    from ag_ui.core import Event
    from pydantic import TypeAdapter

    adapter: Any = TypeAdapter(Event)
    messages: dict[str, dict[str, Any]] = {}
    calls: dict[str, dict[str, Any]] = {}
    for event in (adapter.validate_python(data) for data in decode_httpx_sse_json(chunks)):
        kind = event.type.value if hasattr(event.type, "value") else event.type
        if kind in ("TEXT_MESSAGE_START", "REASONING_MESSAGE_START"):
            messages[event.message_id] = {"id": event.message_id, "role": event.role, "content": ""}
        elif kind in ("TEXT_MESSAGE_CONTENT", "REASONING_MESSAGE_CONTENT"):
            messages[event.message_id]["content"] += event.delta
        elif kind == "TOOL_CALL_START":
            calls[event.tool_call_id] = {
                "id": event.tool_call_id,
                "name": event.tool_call_name,
                "arguments": "",
            }
        elif kind == "TOOL_CALL_ARGS":
            calls[event.tool_call_id]["arguments"] += event.delta
        elif kind == "TOOL_CALL_RESULT":
            messages[event.message_id] = {"id": event.message_id, "role": "tool", "content": event.content}
    return messages, calls


def assemble_responses_openai(chunks: list[bytes]) -> Any:
    """openai-python's own path: its SSEDecoder, json, its event models and
    ResponseStreamState (what ``client.responses.stream()`` runs)."""
    import warnings

    from openai._models import construct_type
    from openai._streaming import SSEDecoder
    from openai._types import omit
    from openai.lib.streaming.responses._responses import ResponseStreamState
    from openai.types.responses import ResponseStreamEvent

    state = ResponseStreamState(input_tools=omit, text_format=omit)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for sse in SSEDecoder().iter_bytes(iter(chunks)):
            state.handle_event(construct_type(type_=ResponseStreamEvent, value=json.loads(sse.data)))
    return state._completed_response


def assemble_chat_openai(chunks: list[bytes]) -> Any:
    """openai-python's own path: its SSEDecoder, json, its chunk model and
    ChatCompletionStreamState (what ``client.chat.completions.stream()``
    runs), ending at ``[DONE]`` as its Stream does."""
    from openai._models import construct_type
    from openai._streaming import SSEDecoder
    from openai.lib.streaming.chat import ChatCompletionStreamState
    from openai.types.chat import ChatCompletionChunk

    state: Any = ChatCompletionStreamState()
    for sse in SSEDecoder().iter_bytes(iter(chunks)):
        if sse.data.startswith("[DONE]"):
            break
        state.handle_chunk(construct_type(type_=ChatCompletionChunk, value=json.loads(sse.data)))
    return state.get_final_completion()


def assemble_anthropic_sdk(chunks: list[bytes]) -> Any:
    """anthropic-sdk-python's own path: its SSEDecoder, json, its event
    models and ``accumulate_event`` (what ``client.messages.stream()``
    runs, without the derived events it also builds), skipping pings as
    its Stream does."""
    from anthropic._models import construct_type
    from anthropic._streaming import SSEDecoder
    from anthropic.lib.streaming._messages import accumulate_event
    from anthropic.types import RawMessageStreamEvent

    snapshot: Any = None
    buffers: dict[int, bytes] = {}
    for sse in SSEDecoder().iter_bytes(iter(chunks)):
        if sse.event == "ping":
            continue
        event = construct_type(type_=RawMessageStreamEvent, value=json.loads(sse.data))
        snapshot = accumulate_event(event=event, current_snapshot=snapshot, json_bufs=buffers)
    return snapshot


class NodePeer:
    """A peer in another runtime, which times itself: the command reads the
    stream on stdin and prints the best of ``runs`` times, so that starting
    Node is not counted against it."""

    reports_time = True

    def __init__(self, command: str) -> None:
        self.command = shlex.split(command)

    def __call__(self, chunks: list[bytes]) -> float:
        return self.timed(chunks, runs=1)

    def timed(self, chunks: list[bytes], runs: int) -> float:
        done = subprocess.run(
            [*self.command, str(runs)], input=b"".join(chunks), capture_output=True, check=True
        )
        seconds: float = json.loads(done.stdout)["ms"] / 1000
        return seconds


AI_SDK_RUNNER = os.environ.get("AGENTCODEC_AI_SDK_RUNNER")


# --- converting AgentScope to the AgentApp's other endpoints -----------------------------------


def convert_with(module: Any, target: str) -> Impl:
    def run(chunks: list[bytes]) -> int:
        transcoder = module.Transcoder("agentscope", target)
        written = sum(len(transcoder.feed(chunk)) for chunk in chunks)
        return written + len(transcoder.close())

    return run


_RUNTIME_EVENTS: dict[bytes, list[Any]] = {}


def _runtime_events(chunks: list[bytes]) -> list[Any]:
    """The Agent API event objects an agent would yield for this stream,
    built once per stream (an AgentApp converts objects, not bytes)."""
    stream = b"".join(chunks)
    events = _RUNTIME_EVENTS.get(stream)
    if events is None:
        from agentscope_runtime.engine.schemas.agent_schemas import AgentContent, AgentResponse, Message
        from pydantic import TypeAdapter

        content = TypeAdapter(AgentContent)
        events = []
        for event in decode_handrolled_orjson([stream]):
            kind = event.get("object")
            if kind == "response":
                events.append(AgentResponse(**event))
            elif kind == "message":
                events.append(Message(**event))
            else:
                events.append(content.validate_python(event))
        _RUNTIME_EVENTS.clear()  # one stream at a time: bounded memory
        _RUNTIME_EVENTS[stream] = events
    return events


def convert_agui_runtime(chunks: list[bytes]) -> int:
    """AGUIAdapterUtils.convert_agent_event_to_agui_events, then the AG-UI
    endpoint's framing (model_dump by alias, json.dumps)."""
    from agentscope_runtime.engine.deployers.adapter.agui.agui_adapter_utils import AGUIAdapterUtils

    adapter = AGUIAdapterUtils(thread_id="t", run_id="r")
    written = 0
    for event in _runtime_events(chunks):
        for agui in adapter.convert_agent_event_to_agui_events(event):
            data = agui.model_dump(mode="json", exclude_none=True, by_alias=True)
            written += len(f"data: {json.dumps(data, ensure_ascii=False)}\n\n".encode())
    return written


def convert_responses_runtime(chunks: list[bytes]) -> int:
    """ResponsesAdapter.convert_agent_event_to_responses_event, then the
    Responses endpoint's framing (model_dump, json.dumps, an event line)."""
    from agentscope_runtime.engine.deployers.adapter.responses.response_api_adapter_utils import (
        ResponsesAdapter,
    )

    adapter = ResponsesAdapter()
    written = 0
    for event in _runtime_events(chunks):
        for converted in adapter.convert_agent_event_to_responses_event(event) or ():
            data = converted.model_dump(exclude_none=True)
            text = json.dumps(data, ensure_ascii=False)
            written += len(f"event: {data.get('type', 'message')}\ndata: {text}\n\n".encode())
    return written


# --- the catalogue --------------------------------------------------------------------------------

LAYERS: dict[str, list[tuple[str, Any, bool]]] = {
    # (name, implementation, available)
    "framing": [
        ("agentcodec native", frame_with(_native) if _native else None, _native is not None),
        ("agentcodec pure", frame_with(_pure), True),
        ("hand-rolled bytes.find", frame_handrolled, True),
        ("httpx-sse", frame_httpx_sse, installed("httpx_sse")),
        ("openai SSEDecoder", frame_openai, installed("openai")),
        ("sseclient-py", frame_sseclient, installed("sseclient")),
    ],
    "decode": [
        ("agentcodec native .json()", decode_with(_native) if _native else None, _native is not None),
        ("agentcodec native assembler events", decode_agentscope_native, _native is not None),
        ("agentcodec pure .json()", decode_with(_pure), True),
        ("hand-rolled bytes.find + orjson", decode_handrolled_orjson, installed("orjson")),
        ("httpx-sse + json", decode_httpx_sse_json, installed("httpx_sse")),
    ],
    "assemble_agentscope": [
        (
            "agentcodec native",
            assemble_with(_native, "AgentScopeAssembler") if _native else None,
            _native is not None,
        ),
        ("agentcodec pure", assemble_with(_pure, "AgentScopeAssembler"), True),
        ("hand-rolled bytes.find + orjson", assemble_agentscope_handrolled, installed("orjson")),
        ("httpx-sse + json", assemble_agentscope_httpx_sse, installed("httpx_sse")),
        (
            "agentscope-runtime add_delta_content",
            assemble_agentscope_upstream,
            installed("httpx_sse") and installed("agentscope_runtime"),
        ),
    ],
    "serve_agentscope": [
        ("agentcodec native", serve_agentscope_with(_native) if _native else None, _native is not None),
        ("agentcodec pure", serve_agentscope_with(_pure), True),
        ("hand-rolled bytes.find + orjson", serve_agentscope_handrolled, installed("orjson")),
        ("httpx-sse + json", serve_agentscope_httpx_sse, installed("httpx_sse")),
    ],
    "assemble_langchain": [
        (
            "agentcodec native",
            assemble_with(_native, "LangChainAssembler") if _native else None,
            _native is not None,
        ),
        ("agentcodec pure", assemble_with(_pure, "LangChainAssembler"), True),
        ("hand-rolled bytes.find + orjson", assemble_langchain_handrolled, installed("orjson")),
        ("httpx-sse + json", assemble_langchain_httpx_sse, installed("httpx_sse")),
        (
            "langchain-core ChatModelStream",
            assemble_langchain_core,
            installed("httpx_sse") and installed("langchain_core"),
        ),
    ],
    "assemble_agui": [
        (
            "agentcodec native",
            assemble_with(_native, "AGUIAssembler") if _native else None,
            _native is not None,
        ),
        ("agentcodec pure", assemble_with(_pure, "AGUIAssembler"), True),
        (
            "ag-ui-protocol models + accumulator",
            assemble_agui_models,
            installed("ag_ui.core") and installed("httpx_sse"),
        ),
    ],
    "assemble_responses": [
        (
            "agentcodec native",
            assemble_with(_native, "OpenAIResponsesAssembler") if _native else None,
            _native is not None,
        ),
        ("agentcodec pure", assemble_with(_pure, "OpenAIResponsesAssembler"), True),
        ("openai-python ResponseStreamState", assemble_responses_openai, installed("openai")),
    ],
    "assemble_chat": [
        (
            "agentcodec native",
            assemble_with(_native, "OpenAIChatAssembler") if _native else None,
            _native is not None,
        ),
        ("agentcodec pure", assemble_with(_pure, "OpenAIChatAssembler"), True),
        ("openai-python ChatCompletionStreamState", assemble_chat_openai, installed("openai")),
    ],
    "assemble_anthropic": [
        (
            "agentcodec native",
            assemble_with(_native, "AnthropicAssembler") if _native else None,
            _native is not None,
        ),
        ("agentcodec pure", assemble_with(_pure, "AnthropicAssembler"), True),
        ("anthropic-sdk-python accumulate_event", assemble_anthropic_sdk, installed("anthropic")),
    ],
    "assemble_ai_sdk": [
        (
            "agentcodec native",
            assemble_with(_native, "AISDKAssembler") if _native else None,
            _native is not None,
        ),
        ("agentcodec pure", assemble_with(_pure, "AISDKAssembler"), True),
        (
            "AI SDK processUIMessageStream (Node)",
            NodePeer(AI_SDK_RUNNER) if AI_SDK_RUNNER else None,
            AI_SDK_RUNNER is not None,
        ),
    ],
    "convert_agui": [
        ("agentcodec native", convert_with(_native, "agui") if _native else None, _native is not None),
        ("agentcodec pure", convert_with(_pure, "agui"), True),
        (
            "agentscope-runtime AGUIAdapterUtils",
            convert_agui_runtime,
            installed("orjson") and installed("agentscope_runtime"),
        ),
    ],
    "convert_responses": [
        (
            "agentcodec native",
            convert_with(_native, "openai-responses") if _native else None,
            _native is not None,
        ),
        ("agentcodec pure", convert_with(_pure, "openai-responses"), True),
        (
            "agentscope-runtime ResponsesAdapter",
            convert_responses_runtime,
            installed("orjson") and installed("agentscope_runtime"),
        ),
    ],
    "encode": [
        ("agentcodec encode_sse", encode_native, _native is not None),
        ("agentcodec pure encode_sse", encode_pure, True),
        ("orjson.dumps + framing", encode_orjson, installed("orjson")),
        ("json.dumps + framing", encode_json, True),
    ],
    "build": [
        ("agentcodec add_text_delta_sse", build_fast_path, True),
        ("agentcodec events + encode_sse", build_events_encode, True),
        ("agentscope-runtime model_dump_json", build_upstream, installed("agentscope_runtime")),
    ],
}


def available(layer: str) -> list[tuple[str, Any]]:
    return [(name, impl) for name, impl, ok in LAYERS[layer] if ok and impl is not None]
