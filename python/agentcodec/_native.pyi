"""Type stubs for the native extension, ``agentcodec._native`` (Rust, PyO3).

The pure-Python backend, ``agentcodec._pure``, provides the same names with
the same signatures.
"""

from collections.abc import Mapping
from typing import Any, Generic, Literal, TypeAlias, TypeVar, final

from typing_extensions import Buffer

from agentcodec._eventstream_message import EventStreamMessage, HeaderValue
from agentcodec.a2a.types import JSONRPCResponse as _A2AEvent
from agentcodec.a2a.types import Message as _A2AMessage
from agentcodec.a2a.types import Task as _A2ATask
from agentcodec.agentscope.types import AgentResponse as _AgentResponse
from agentcodec.agentscope.types import Event as _AgentScopeEvent
from agentcodec.agui.types import Event as _AGUIEvent
from agentcodec.agui.types import Run as _AGUIRun
from agentcodec.ai_sdk.types import UIMessage as _UIMessage
from agentcodec.ai_sdk.types import UIMessageChunk as _UIMessageChunk
from agentcodec.anthropic.types import Message as _AnthropicMessage
from agentcodec.anthropic.types import StreamEvent as _AnthropicEvent
from agentcodec.bedrock.types import ConverseResponse as _BedrockResponse
from agentcodec.bedrock.types import Event as _BedrockEvent
from agentcodec.events import ProtocolName
from agentcodec.gemini.types import GenerateContentResponse as _GeminiResponse
from agentcodec.gemini.types import Record as _GeminiRecord
from agentcodec.langchain.types import Event as _LangChainEvent
from agentcodec.langgraph.types import AssembledRun as _LangGraphRun
from agentcodec.langgraph.types import Interrupt as _LangGraphInterrupt
from agentcodec.langgraph.types import Message as _LangGraphMessage
from agentcodec.langgraph.types import StreamPart as _LangGraphPart
from agentcodec.langgraph.types import V2Part as _LangGraphV2Part
from agentcodec.ollama.types import ChatResponse as _OllamaChatResponse
from agentcodec.ollama.types import GenerateResponse as _OllamaGenerateResponse
from agentcodec.ollama.types import Line as _OllamaLine
from agentcodec.openai_chat.types import ChatCompletion as _ChatCompletion
from agentcodec.openai_chat.types import ChatCompletionChunk as _ChatCompletionChunk
from agentcodec.openai_responses.types import Response as _Response
from agentcodec.openai_responses.types import StreamEvent as _ResponsesEvent

_Event = TypeVar("_Event")
_Result = TypeVar("_Result")

__all__ = [
    "A2AAssembler",
    "AGUIAssembler",
    "AISDKAssembler",
    "AgentScopeAssembler",
    "AnthropicAssembler",
    "DEFAULT_MAX_EVENT_BYTES",
    "DEFAULT_MAX_LINE_BYTES",
    "LangChainAssembler",
    "EventStreamDecoder",
    "JSONArrayDecoder",
    "NDJSONDecoder",
    "NeutralAssembler",
    "NeutralDecoder",
    "NeutralEncoder",
    "LangGraphAssembler",
    "OllamaAssembler",
    "GeminiAssembler",
    "BedrockAssembler",
    "OpenAIChatAssembler",
    "OpenAIResponsesAssembler",
    "PartialJSON",
    "SSEDecoder",
    "SSEEvent",
    "Transcoder",
    "__version__",
    "encode_event_message",
    "encode_sse",
    "encode_sse_comment",
    "frame_json_string",
]
__version__: str
DEFAULT_MAX_LINE_BYTES: int
DEFAULT_MAX_EVENT_BYTES: int

@final
class SSEEvent:
    """One Server-Sent Event."""

    def __new__(
        cls,
        event: str | None = None,
        data: str | None = None,
        id: str | None = None,
        retry: int | None = None,
    ) -> SSEEvent: ...
    @property
    def event(self) -> str:
        """The event type: the block's ``event`` field, or "message"."""
    @property
    def data(self) -> str:
        """The ``data`` values of the block, joined by LF."""
    @property
    def id(self) -> str:
        """The last event ID in effect when the event was dispatched."""
    @property
    def retry(self) -> int | None:
        """The reconnection time (ms) set in this event's block, if any."""
    def json(self) -> Any:
        """The data parsed as JSON, exactly as the standard library's ``json.loads`` parses it
        (the native backend builds the objects with jiter, falling back to ``json.loads``
        for anything jiter refuses)."""
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class EventStreamDecoder:
    """Splits an AWS event stream (``application/vnd.amazon.eventstream``)
    into its messages, in any chunking, each as soon as it is whole, both
    CRCs checked. Raises ``EventStreamError`` (its ``offset`` where the bad
    message starts, its ``messages`` those the failing call completed before
    it); the decoder then takes no more input."""

    def __new__(cls, *, max_message_bytes: int | None = 67108864) -> EventStreamDecoder: ...
    def feed(self, data: Buffer) -> list[EventStreamMessage]:
        """Decodes one chunk and returns the messages it completed."""
    def close(self) -> list[EventStreamMessage]:
        """Ends the stream: one that ends inside a message is an error."""
    @property
    def max_message_bytes(self) -> int | None: ...

def encode_event_message(headers: dict[str, HeaderValue], payload: Buffer | None = None) -> bytes:
    """One message: its prelude, headers, payload and CRCs. A ``bool`` is a
    boolean header, an ``int`` a 32-bit one (64-bit past that range), a
    ``str`` a string, ``bytes`` a byte array."""

@final
class JSONArrayDecoder:
    """Splits a streamed JSON array (``[{...},\\r\\n{...}]``, as Gemini answers
    without ``alt=sse``) into its elements' texts, in any chunking, each
    handed out as soon as it is whole. A JSON text outside any array is an
    element too; white space and commas between elements are skipped. Raises
    ``SSELimitError`` (its ``subject`` ``"JSON array element"``) for an
    element past ``max_event_bytes``, its ``events`` the elements completed
    before it."""

    def __new__(cls, *, max_event_bytes: int | None = 67108864) -> JSONArrayDecoder: ...
    def feed(self, data: Buffer) -> list[str]:
        """Decodes one chunk and returns the elements it completed, as text."""
    def close(self) -> list[str]:
        """Ends the stream: an element cut off by the end is handed out as it
        came."""
    @property
    def max_event_bytes(self) -> int | None: ...

@final
class NDJSONDecoder:
    """Splits newline-delimited JSON (NDJSON, JSON Lines) into its lines, in
    any chunking: at LF alone (never at U+0085 or U+2028, which a JSON text
    may hold), a CR before it and a BOM opening the stream dropped, lines of
    white space skipped, the last line needing no LF. Raises
    ``SSELimitError`` (its ``subject`` ``"NDJSON line"``) for a line past
    ``max_line_bytes``, its ``events`` the lines completed before it."""

    def __new__(cls, *, max_line_bytes: int | None = 67108864) -> NDJSONDecoder: ...
    def feed(self, data: Buffer) -> list[str]:
        """Decodes one chunk and returns the lines it completed, as text."""
    def close(self) -> list[str]:
        """Ends the stream: a last line without its LF is a line too."""
    @property
    def max_line_bytes(self) -> int | None: ...

@final
class SSEDecoder:
    """Incremental ``text/event-stream`` decoder (the WHATWG algorithm)."""

    def __new__(
        cls,
        last_event_id: str = "",
        *,
        max_line_bytes: int | None = ...,
        max_event_bytes: int | None = ...,
    ) -> SSEDecoder: ...
    def feed(self, data: Buffer) -> list[SSEEvent]:
        """Decodes one chunk and returns the events it completed.

        Raises ``SSELimitError`` when a limit is exceeded; its ``events`` are
        those the chunk completed before the offending line.
        """
    def close(self) -> list[SSEEvent]:
        """Ends the stream: an unterminated event is discarded."""
    @property
    def last_event_id(self) -> str:
        """The last event ID: what a client sends as ``Last-Event-ID`` to resume."""
    @property
    def retry(self) -> int | None:
        """The reconnection time in milliseconds set by the stream, or None."""
    @property
    def max_line_bytes(self) -> int | None: ...
    @property
    def max_event_bytes(self) -> int | None: ...

def encode_sse(
    data: Any,
    event: str | None = None,
    id: str | None = None,
    retry: int | None = None,
) -> bytes:
    """Encodes one event as ``text/event-stream`` bytes.

    ``data`` is ``str``, UTF-8 bytes, or any JSON-serialisable object (written
    as compact JSON). Every CR, LF or CRLF starts a new ``data:`` line.
    """

def encode_sse_comment(text: str = "") -> bytes:
    """Encodes a comment, which decoders ignore: a keep-alive."""

def frame_json_string(prefix: str, text: str, suffix: str) -> bytes:
    """``prefix``, ``text`` as a JSON string (as ``json.dumps(text,
    ensure_ascii=False)`` writes it) and ``suffix``, as UTF-8."""

class _Assembler(Generic[_Event, _Result]):
    """What every protocol's assembler has (in the stubs alone: the native
    classes share no base at runtime, the pure ones share ``Driver``). The
    assemblers of protocols whose tool calls stream declare ``tool_calls``."""

    def feed(self, data: Buffer) -> None:
        """Assembles a chunk of the raw SSE stream (any chunking)."""
    def feed_with_events(self, data: Buffer) -> list[_Event]:
        """Like ``feed``, and returns the events the chunk completed, decoded."""
    def feed_event(self, event: Mapping[str, Any]) -> None:
        """Assembles one event that is already decoded (a dict)."""
    def close(self) -> _Result:
        """Ends the stream and returns ``result``."""
    @property
    def result(self) -> _Result:
        """The final object so far (what the protocol's SDK gives), what
        ``close()`` returns once the stream ends."""
    @property
    def errors(self) -> list[dict[str, Any]]:
        """Errors the stream reported or, with ``on_error="skip"``, events skipped."""
    def reconnect(self) -> None:
        """A new connection carries the stream on (a client resuming with
        ``Last-Event-ID``): the event the old one left unterminated is
        discarded, since the server sends it again; nothing assembled is lost."""
    @property
    def last_event_id(self) -> str:
        """The stream's last event ID, to send as ``Last-Event-ID`` on reconnecting."""
    @property
    def retry(self) -> int | None:
        """The reconnection time in milliseconds the stream set, if any."""
    @property
    def event_count(self) -> int:
        """Events seen so far (SSE events, and events passed to ``feed_event``)."""
    @property
    def error_count(self) -> int:
        """Every error recorded, including those past ``max_errors`` not kept."""

@final
class AgentScopeAssembler(_Assembler[_AgentScopeEvent, _AgentResponse]):
    """Assembles an AgentScope Agent API (``/process``) stream into its
    AgentResponse. Public as ``agentcodec.agentscope.Assembler``."""

    def __new__(
        cls,
        *,
        data_merge: Literal["merge", "upstream"] = "merge",
        on_error: Literal["raise", "skip"] = "raise",
        strict: bool = False,
        max_line_bytes: int | None = ...,
        max_event_bytes: int | None = ...,
        max_errors: int | None = 1000,
        max_stream_bytes: int | None = 268435456,
        max_messages: int | None = 100000,
        max_blocks: int | None = 500000,
    ) -> AgentScopeAssembler: ...
    def close(self) -> _AgentResponse:
        """Ends the stream and returns the final response."""
    @property
    def result(self) -> _AgentResponse:
        """The result so far, what ``close()`` returns once the stream ends: ``response``."""
    @property
    def response(self) -> _AgentResponse:
        """The AgentResponse assembled so far: a new dict on every access."""
    @property
    def messages(self) -> list[dict[str, Any]]:
        """Every message assembled, in order of first appearance."""
    @property
    def tool_calls(self) -> list[dict[str, Any]]:
        """Every tool call: each data content whose ``data`` has
        ``arguments``: ``msg_id``, ``index``, ``type``, ``call_id``,
        ``name``, ``arguments`` parsed so far while they stream (read after
        every delta, each byte is parsed once: the same containers come back,
        grown), and ``done``; arguments that are not valid JSON stay as they
        came, with an ``error``."""
    @property
    def errors(self) -> list[dict[str, Any]]:
        """Errors the stream reported or, with ``on_error="skip"``, frames skipped."""

@final
class LangChainAssembler(_Assembler[_LangChainEvent, list[dict[str, Any]]]):
    """Assembles the messages of a LangChain Agent Streaming Protocol stream.
    Public as ``agentcodec.langchain.Assembler``."""

    def __new__(
        cls,
        *,
        tool_args: Literal["strict", "auto"] = "strict",
        on_error: Literal["raise", "skip"] = "raise",
        max_line_bytes: int | None = ...,
        max_event_bytes: int | None = ...,
        max_errors: int | None = 1000,
        max_stream_bytes: int | None = 268435456,
        max_messages: int | None = 100000,
        max_blocks: int | None = 500000,
    ) -> LangChainAssembler: ...
    def feed_with_events(self, data: Buffer) -> list[_LangChainEvent]:
        """Like ``feed``, and returns the messages the data completed, decoded."""
    def feed_frame(self, frame: str | Buffer) -> None:
        """Assembles one WebSocket text frame (one JSON message)."""
    def feed_event(self, envelope: Mapping[str, Any]) -> None:
        """Assembles one message that is already decoded (a dict)."""
    def close(self) -> list[dict[str, Any]]:
        """Ends the stream and returns the messages."""
    @property
    def result(self) -> list[dict[str, Any]]:
        """The result so far, what ``close()`` returns once the stream ends: ``messages``."""
    @property
    def messages(self) -> list[dict[str, Any]]:
        """Every message so far, in the order they started."""
    @property
    def tool_calls(self) -> list[dict[str, Any]]:
        """Every tool-call block of every message: ``message_id``,
        ``index``, ``type``, ``id``, ``name``, ``args`` parsed so far while
        they stream (read after every delta, each byte is parsed once: the
        same containers come back, grown), and ``done``; args that are not
        valid JSON stay as they came, with an ``error``."""
    @property
    def errors(self) -> list[dict[str, Any]]:
        """Messages skipped with ``on_error="skip"``."""
    @property
    def duplicate_count(self) -> int: ...

@final
class AGUIAssembler(_Assembler[_AGUIEvent, _AGUIRun]):
    """Assembles an AG-UI stream into the run the AG-UI client holds: its
    messages, state, status, result and error. Public as
    ``agentcodec.agui.Assembler``."""

    def __new__(
        cls,
        *,
        messages: list[dict[str, Any]] | None = None,
        state: Any = None,
        on_error: Literal["raise", "skip"] = "raise",
        max_line_bytes: int | None = ...,
        max_event_bytes: int | None = ...,
        max_errors: int | None = 1000,
        max_stream_bytes: int | None = 268435456,
        max_messages: int | None = 100000,
        max_blocks: int | None = 500000,
    ) -> AGUIAssembler: ...
    def close(self) -> _AGUIRun:
        """Ends the stream and returns the run. A stream that ended without
        RUN_FINISHED or RUN_ERROR is "incomplete", with everything assembled."""
    @property
    def result(self) -> _AGUIRun:
        """The result so far, what ``close()`` returns once the stream ends: ``run``."""
    @property
    def run(self) -> _AGUIRun:
        """The run so far: ``threadId``, ``runId``, ``parentRunId``, ``status``,
        ``error``, ``result``, ``outcome``, ``usage``, ``messages``, ``state``
        and the kept ``events``; a new dict on every access."""
    @property
    def messages(self) -> list[dict[str, Any]]:
        """The messages as the AG-UI client holds them."""
    @property
    def state(self) -> Any:
        """The state after every STATE_SNAPSHOT and STATE_DELTA so far."""
    @property
    def tool_calls(self) -> list[dict[str, Any]]:
        """Every tool call of every message: ``messageId``, ``id``,
        ``name``, ``arguments`` parsed so far while they stream (read after
        every delta, each byte is parsed once: the same containers come back,
        grown), and ``done``; arguments that are not valid JSON stay as they
        came, with an ``error``."""
    @property
    def status(self) -> str:
        """``"running"``, ``"finished"``, ``"error"``, or, once closed without
        either, ``"incomplete"``."""
    @property
    def errors(self) -> list[dict[str, Any]]:
        """Errors the stream reported (RUN_ERROR) or, with ``on_error="skip"``, events skipped."""

@final
class OpenAIChatAssembler(_Assembler[_ChatCompletionChunk, _ChatCompletion]):
    """Assembles an OpenAI Chat Completions stream into its final
    ChatCompletion. Public as ``agentcodec.openai_chat.Assembler``."""

    def __new__(
        cls,
        *,
        on_error: Literal["raise", "skip"] = "raise",
        max_line_bytes: int | None = ...,
        max_event_bytes: int | None = ...,
        max_errors: int | None = 1000,
        max_stream_bytes: int | None = 268435456,
        max_messages: int | None = 100000,
        max_blocks: int | None = 500000,
    ) -> OpenAIChatAssembler: ...
    def feed_with_events(self, data: Buffer) -> list[_ChatCompletionChunk]:
        """Like ``feed``, and returns the chunks the data completed, decoded."""
    def feed_event(self, event: Mapping[str, Any]) -> None:
        """Assembles one chunk that is already decoded (a dict)."""
    def close(self) -> _ChatCompletion:
        """Ends the stream and returns the ChatCompletion."""
    @property
    def result(self) -> _ChatCompletion:
        """The result so far, what ``close()`` returns once the stream ends: ``completion``."""
    @property
    def completion(self) -> _ChatCompletion:
        """The ChatCompletion so far: a new dict on every access."""
    @property
    def tool_calls(self) -> list[dict[str, Any]]:
        """Every tool call of every choice: ``choice``, ``id``, ``type``,
        ``name``, ``arguments`` parsed so far while they stream (read after
        every delta, each byte is parsed once), and ``done``; arguments that
        are not valid JSON stay as they came, with an ``error``."""
    @property
    def events(self) -> list[dict[str, Any]]:
        """Chunks kept without being assembled: server errors and
        content-filter annotations, in order."""
    @property
    def errors(self) -> list[dict[str, Any]]:
        """Errors the server sent or, with ``on_error="skip"``, chunks skipped."""
    @property
    def event_count(self) -> int:
        """Chunks seen so far (SSE events, and chunks passed to ``feed_event``)."""

@final
class OllamaAssembler(_Assembler[_OllamaLine, _OllamaChatResponse | _OllamaGenerateResponse]):
    """Assembles an Ollama stream (NDJSON, or the same lines as SSE) into the
    answer the server gives without streaming. Public as
    ``agentcodec.ollama.Assembler``."""

    def __new__(
        cls,
        *,
        on_error: Literal["raise", "skip"] = "raise",
        max_line_bytes: int | None = ...,
        max_event_bytes: int | None = ...,
        max_errors: int | None = 1000,
        max_stream_bytes: int | None = 268435456,
        max_messages: int | None = 100000,
        max_blocks: int | None = 500000,
    ) -> OllamaAssembler: ...
    @property
    def answer(self) -> _OllamaChatResponse | _OllamaGenerateResponse:
        """The answer so far: a new dict on every access."""
    @property
    def done(self) -> bool:
        """Whether the done line came."""

@final
class LangGraphAssembler(_Assembler[_LangGraphPart | _LangGraphV2Part, _LangGraphRun]):
    """Assembles a LangGraph Agent Server stream (SSE named by stream mode,
    or langgraph-sdk's parts) into what the run leaves: the root graph's
    values, messages and interrupts, the error, and each subgraph's. Public
    as ``agentcodec.langgraph.Assembler``."""

    def __new__(
        cls,
        *,
        on_error: Literal["raise", "skip"] = "raise",
        max_line_bytes: int | None = ...,
        max_event_bytes: int | None = ...,
        max_errors: int | None = 1000,
        max_stream_bytes: int | None = 268435456,
        max_messages: int | None = 100000,
        max_blocks: int | None = 500000,
    ) -> LangGraphAssembler: ...
    @property
    def run(self) -> _LangGraphRun:
        """What the run left so far: a new dict on every access."""
    @property
    def values(self) -> dict[str, Any] | None:
        """The root graph's last values: the thread's state (None before any)."""
    @property
    def messages(self) -> list[_LangGraphMessage]:
        """The root graph's messages so far: a new list on every access."""
    @property
    def interrupts(self) -> list[_LangGraphInterrupt]:
        """The root graph's interrupts: what the run waits for."""
    @property
    def run_id(self) -> str | None:
        """The run's id (the metadata event's)."""
    @property
    def error(self) -> dict[str, Any] | None:
        """The error event's data, if the run failed."""

@final
class GeminiAssembler(_Assembler[_GeminiRecord, _GeminiResponse]):
    """Assembles a Gemini stream (SSE with ``alt=sse``, or the streamed JSON
    array without) into the ``GenerateContentResponse`` that
    ``generateContent`` gives. Public as ``agentcodec.gemini.Assembler``."""

    def __new__(
        cls,
        *,
        on_error: Literal["raise", "skip"] = "raise",
        max_line_bytes: int | None = ...,
        max_event_bytes: int | None = ...,
        max_errors: int | None = 1000,
        max_stream_bytes: int | None = 268435456,
        max_messages: int | None = 100000,
        max_blocks: int | None = 500000,
    ) -> GeminiAssembler: ...
    @property
    def response(self) -> _GeminiResponse:
        """The response so far: a new dict on every access."""

@final
class BedrockAssembler(_Assembler[_BedrockEvent, _BedrockResponse]):
    """Assembles a Bedrock ConverseStream (the AWS event stream, or the same
    events as SSE) into the response Converse gives. Public as
    ``agentcodec.bedrock.Assembler``."""

    def __new__(
        cls,
        *,
        on_error: Literal["raise", "skip"] = "raise",
        max_line_bytes: int | None = ...,
        max_event_bytes: int | None = ...,
        max_errors: int | None = 1000,
        max_stream_bytes: int | None = 268435456,
        max_messages: int | None = 100000,
        max_blocks: int | None = 500000,
    ) -> BedrockAssembler: ...
    @property
    def response(self) -> _BedrockResponse:
        """The response so far: a new dict on every access."""

@final
class A2AAssembler(_Assembler[_A2AEvent, _A2ATask | _A2AMessage | None]):
    """Assembles an A2A stream into its Task. Public as
    ``agentcodec.a2a.Assembler``."""

    def __new__(
        cls,
        *,
        version: Literal["1.0", "0.3"] | None = None,
        on_error: Literal["raise", "skip"] = "raise",
        max_line_bytes: int | None = ...,
        max_event_bytes: int | None = ...,
        max_errors: int | None = 1000,
        max_stream_bytes: int | None = 268435456,
        max_messages: int | None = 100000,
        max_blocks: int | None = 500000,
    ) -> A2AAssembler: ...
    def feed_with_events(self, data: Buffer) -> list[_A2AEvent]:
        """Like ``feed``, and returns the events the data completed, decoded."""
    def close(self) -> _A2ATask | _A2AMessage | None:
        """Ends the stream and returns the Task (or the Message that
        answered without one)."""
    @property
    def result(self) -> _A2ATask | _A2AMessage | None:
        """The result so far, what ``close()`` returns once the stream ends: ``outcome``."""
    @property
    def task(self) -> _A2ATask | None:
        """The Task so far (None before any task event)."""
    @property
    def message(self) -> _A2AMessage | None:
        """The Message that answered the request, when it made no task."""
    @property
    def error(self) -> dict[str, Any] | None:
        """The JSON-RPC error that ended the stream, if one did."""
    @property
    def version(self) -> str | None:
        """The stream's spec version, "0.3" or "1.0", once an event said it."""
    @property
    def events(self) -> list[dict[str, Any]]:
        """Events kept without being assembled: the JSON-RPC errors."""
    @property
    def errors(self) -> list[dict[str, Any]]:
        """JSON-RPC errors the server sent or, with ``on_error="skip"``, events skipped."""

@final
class AnthropicAssembler(_Assembler[_AnthropicEvent, _AnthropicMessage]):
    """Assembles an Anthropic Messages stream into its final Message. Public
    as ``agentcodec.anthropic.Assembler``."""

    def __new__(
        cls,
        *,
        on_error: Literal["raise", "skip"] = "raise",
        max_line_bytes: int | None = ...,
        max_event_bytes: int | None = ...,
        max_errors: int | None = 1000,
        max_stream_bytes: int | None = 268435456,
        max_messages: int | None = 100000,
        max_blocks: int | None = 500000,
    ) -> AnthropicAssembler: ...
    def feed_with_events(self, data: Buffer) -> list[_AnthropicEvent]:
        """Like ``feed``, and returns the events the data completed, decoded."""
    def close(self) -> _AnthropicMessage:
        """Ends the stream and returns the Message."""
    @property
    def result(self) -> _AnthropicMessage:
        """The result so far, what ``close()`` returns once the stream ends: ``message``."""
    @property
    def message(self) -> _AnthropicMessage:
        """The Message so far: a new dict on every access. A tool block's
        ``input`` is parsed when the block stops; until then it is what
        ``content_block_start`` gave."""
    @property
    def tool_calls(self) -> list[dict[str, Any]]:
        """Every tool block (``tool_use``, ``server_tool_use``,
        ``mcp_tool_use``): ``index``, ``id``, ``type``, ``name``, ``input``
        parsed so far while it streams (read after every delta, each byte is
        parsed once), and ``done``; input that is not valid JSON stays as it
        came, with an ``error``."""
    @property
    def events(self) -> list[dict[str, Any]]:
        """Events kept without being assembled: the server's ``error`` events
        and events of types this version does not know, in order."""
    @property
    def errors(self) -> list[dict[str, Any]]:
        """Errors the server sent or, with ``on_error="skip"``, events skipped."""

@final
class AISDKAssembler(_Assembler[_UIMessageChunk, _UIMessage]):
    """Assembles a Vercel AI SDK UI message stream into its UIMessage.
    Public as ``agentcodec.ai_sdk.Assembler``."""

    def __new__(
        cls,
        *,
        on_error: Literal["raise", "skip"] = "raise",
        max_line_bytes: int | None = ...,
        max_event_bytes: int | None = ...,
        max_errors: int | None = 1000,
        max_stream_bytes: int | None = 268435456,
        max_messages: int | None = 100000,
        max_blocks: int | None = 500000,
    ) -> AISDKAssembler: ...
    def feed_with_events(self, data: Buffer) -> list[_UIMessageChunk]:
        """Like ``feed``, and returns the chunks the data completed, decoded."""
    def feed_event(self, event: Mapping[str, Any]) -> None:
        """Assembles one chunk that is already decoded (a dict)."""
    def close(self) -> _UIMessage:
        """Ends the stream and returns the UIMessage."""
    @property
    def result(self) -> _UIMessage:
        """The result so far, what ``close()`` returns once the stream ends: ``message``."""
    @property
    def message(self) -> _UIMessage:
        """The UIMessage so far: a new dict on every access. A tool part
        whose input is streaming has no ``input`` until the input is
        complete (``tool-input-available``, or the stream's end)."""
    @property
    def tool_calls(self) -> list[dict[str, Any]]:
        """Every tool part: ``toolCallId``, ``type``, ``toolName``,
        ``state``, ``input`` parsed so far while it streams (read after every
        delta, each byte is parsed once: the same containers come back,
        grown), and ``done``; input that is not valid JSON stays as it came,
        with an ``error`` (a ``tool-input-error`` part's ``rawInput`` is read
        so: the error says where it broke)."""
    @property
    def finish_reason(self) -> str | None:
        """What the ``finish`` chunk said, or None."""
    @property
    def events(self) -> list[dict[str, Any]]:
        """Chunks kept without being assembled: ``error`` and ``abort``
        chunks and chunks of types this version does not know, in order."""
    @property
    def errors(self) -> list[dict[str, Any]]:
        """Errors the server sent (``error`` chunks) or, with
        ``on_error="skip"``, chunks skipped."""
    @property
    def event_count(self) -> int:
        """Chunks seen so far (SSE events, and chunks passed to ``feed_event``)."""

@final
class OpenAIResponsesAssembler(_Assembler[_ResponsesEvent, _Response]):
    """Assembles an OpenAI Responses stream into its final Response. Public
    as ``agentcodec.openai_responses.Assembler``."""

    def __new__(
        cls,
        *,
        on_error: Literal["raise", "skip"] = "raise",
        max_line_bytes: int | None = ...,
        max_event_bytes: int | None = ...,
        max_errors: int | None = 1000,
        max_stream_bytes: int | None = 268435456,
        max_messages: int | None = 100000,
        max_blocks: int | None = 500000,
    ) -> OpenAIResponsesAssembler: ...
    def close(self) -> _Response:
        """Ends the stream and returns the Response: the last one the server
        sent, with every output item as assembled."""
    @property
    def result(self) -> _Response:
        """The result so far, what ``close()`` returns once the stream ends: ``response``."""
    @property
    def response(self) -> _Response:
        """The Response so far: a new dict on every access."""
    @property
    def output_text(self) -> str:
        """The text of every ``output_text`` part of every message, joined."""
    @property
    def tool_calls(self) -> list[dict[str, Any]]:
        """Every item whose arguments stream (``function_call`` and
        ``mcp_call``): ``id``, ``type``, ``call_id`` (``server_label`` for an
        MCP call), ``name``, ``arguments`` parsed so far while they stream
        (read after every delta, each byte is parsed once), and ``done``;
        arguments that are not valid JSON stay as they came, with an
        ``error``."""
    @property
    def function_calls(self) -> list[dict[str, Any]]:
        """The function calls among ``tool_calls``, without their ``type``:
        ``id``, ``call_id``, ``name``, ``arguments`` and ``done``. Read
        through the same parsers, so the two views may be read in turn."""
    @property
    def events(self) -> list[dict[str, Any]]:
        """Events kept without being assembled: ``error`` events and types
        this version does not know, in order."""
    @property
    def status(self) -> str | None:
        """The Response's status, as the server last said."""
    @property
    def errors(self) -> list[dict[str, Any]]:
        """Errors the stream reported (``error``, ``response.failed``) or,
        with ``on_error="skip"``, events skipped."""
    @property
    def error_count(self) -> int:
        """Every error recorded, including those past ``max_errors`` not kept."""

# The protocols' names are written once, in agentcodec.events.
_Protocol: TypeAlias = ProtocolName

@final
class PartialJSON:
    """Parses a JSON text fed in fragments (``str`` or UTF-8 bytes), each
    byte once: ``value`` is the value so far (what jiter's
    ``partial_mode="trailing-strings"`` gives for the prefix; None before
    any), ``done`` whether the text is complete. Invalid JSON raises
    ``PartialJSONError`` (byte offset and reason); what was parsed before it
    stays."""

    def __new__(cls, *, max_depth: int | None = None) -> PartialJSON: ...
    def feed(self, fragment: str | bytes | bytearray | memoryview) -> None:
        """Reads the next fragment of the text."""
    def close(self) -> Any:
        """Ends the text and returns its value; a text that is not one whole
        value raises ``PartialJSONError``, as does a fragment fed after."""
    @property
    def value(self) -> Any:
        """The value so far: None until one has begun."""
    @property
    def done(self) -> bool:
        """Whether the JSON text is complete."""
    @property
    def offset(self) -> int:
        """How many bytes of JSON text were read."""

@final
class Transcoder:
    """Converts a stream of one protocol into another as it streams, through
    the neutral vocabulary. Keyword options beyond those named here go to
    the target's encoder, which refuses one it does not take (each
    protocol's are listed in the Converting guide: ids, a model's name, a
    message separator). Errors are the source protocol's. What the target
    cannot carry is recorded in ``losses``, or with ``on_loss="error"``
    raised as ``ConversionLossError``. With
    ``executed_tool_calls="omit"``, the tool calls the agent ran (a server
    tool's or an MCP call, or one whose result comes in the run) are left
    out, for a target whose clients would run them again."""

    def __new__(
        cls,
        source: _Protocol,
        target: _Protocol,
        *,
        on_error: Literal["raise", "skip"] = "raise",
        on_loss: Literal["record", "error"] = "record",
        executed_tool_calls: Literal["write", "omit"] = "write",
        max_line_bytes: int | None = ...,
        max_event_bytes: int | None = ...,
        max_errors: int | None = 1000,
        **options: Any,
    ) -> Transcoder: ...
    def feed(self, data: Buffer) -> bytes:
        """Converts a chunk of the source's SSE stream (any chunking); returns
        the target's SSE bytes for the events it completed. After an error,
        what was converted before it comes with the next call."""
    def feed_event(self, event: Mapping[str, Any]) -> list[dict[str, Any]]:
        """Converts one source event already decoded from JSON; returns the
        target's events."""
    def close(self) -> bytes:
        """Ends the source stream; returns the target's last SSE bytes."""
    @property
    def losses(self) -> list[dict[str, Any]]:
        """What the target could not carry so far, in order: ``event`` (the
        source's event that brought it), ``what`` and ``why``; the first
        1,000, then one ``what: "losses"`` entry saying the rest are not
        listed."""
    @property
    def source(self) -> str: ...
    @property
    def target(self) -> str: ...
    @property
    def errors(self) -> list[dict[str, Any]]:
        """Events skipped with ``on_error="skip"``."""
    def reconnect(self) -> None:
        """A new connection carries the stream on (a client resuming with
        ``Last-Event-ID``): the event the old one left unterminated is
        discarded, since the server sends it again; nothing assembled is lost."""
    @property
    def last_event_id(self) -> str:
        """The stream's last event ID, to send as ``Last-Event-ID`` on reconnecting."""
    @property
    def retry(self) -> int | None:
        """The reconnection time in milliseconds the stream set, if any."""
    @property
    def event_count(self) -> int:
        """Source events seen so far."""
    @property
    def error_count(self) -> int:
        """Every error recorded, including those past ``max_errors`` not kept."""

@final
class NeutralDecoder:
    """Decodes a protocol's stream into neutral events (dicts with a ``type``:
    ``run_started``, ``message_started``, ``block_delta``, ...)."""

    def __new__(
        cls,
        source: _Protocol,
        *,
        on_error: Literal["raise", "skip"] = "raise",
        max_line_bytes: int | None = ...,
        max_event_bytes: int | None = ...,
        max_errors: int | None = 1000,
    ) -> NeutralDecoder: ...
    def feed(self, data: Buffer) -> list[dict[str, Any]]:
        """Decodes a chunk of the raw SSE stream; returns the neutral events it completed."""
    def feed_event(self, event: Mapping[str, Any]) -> list[dict[str, Any]]:
        """Decodes one event that is already decoded from JSON."""
    def close(self) -> list[dict[str, Any]]:
        """Ends the stream; returns the last neutral events."""
    @property
    def source(self) -> str: ...
    @property
    def errors(self) -> list[dict[str, Any]]: ...
    def reconnect(self) -> None:
        """A new connection carries the stream on (a client resuming with
        ``Last-Event-ID``): the event the old one left unterminated is
        discarded, since the server sends it again; nothing assembled is lost."""
    @property
    def last_event_id(self) -> str:
        """The stream's last event ID, to send as ``Last-Event-ID`` on reconnecting."""
    @property
    def retry(self) -> int | None:
        """The reconnection time in milliseconds the stream set, if any."""
    @property
    def event_count(self) -> int: ...
    @property
    def error_count(self) -> int:
        """Every error recorded, including those past ``max_errors`` not kept."""

@final
class NeutralEncoder:
    """Encodes neutral events into a protocol's events and SSE bytes. Takes
    the target's encoder options and ``executed_tool_calls``, as
    ``Transcoder`` does."""

    def __new__(
        cls, target: _Protocol, *, executed_tool_calls: Literal["write", "omit"] = "write", **options: Any
    ) -> NeutralEncoder: ...
    def encode(self, event: Mapping[str, Any]) -> bytes:
        """The SSE bytes of what one neutral event becomes. An event whose
        ``type`` is none of the neutral vocabulary's is a ValueError."""
    def encode_events(self, event: Mapping[str, Any]) -> list[dict[str, Any]]:
        """What one neutral event becomes, as the target's events (refused
        as ``encode`` refuses it)."""
    def close(self) -> bytes:
        """The SSE bytes the encoder writes at the end."""
    @property
    def losses(self) -> list[dict[str, Any]]:
        """What the target could not carry so far, in order: ``event`` (the
        neutral event that brought it, counted from 1), ``what`` and ``why``;
        the first 1,000, then one ``what: "losses"`` entry saying the rest
        are not listed."""
    @property
    def target(self) -> str: ...

@final
class NeutralAssembler:
    """Assembles any protocol's stream into one protocol-neutral view: the
    run's status, usage and error, its messages of blocks (tool calls'
    arguments parsed), the state, and what passed through."""

    def __new__(
        cls,
        protocol: _Protocol,
        *,
        on_error: Literal["raise", "skip"] = "raise",
        max_line_bytes: int | None = ...,
        max_event_bytes: int | None = ...,
        max_errors: int | None = 1000,
        max_stream_bytes: int | None = 268435456,
        max_messages: int | None = 100000,
        max_blocks: int | None = 500000,
    ) -> NeutralAssembler: ...
    def feed(self, data: Buffer) -> None:
        """Assembles a chunk of the raw SSE stream (any chunking)."""
    def feed_event(self, event: Mapping[str, Any]) -> None:
        """Assembles one event that is already decoded (a dict)."""
    def feed_with_events(self, data: Buffer) -> list[dict[str, Any]]:
        """Like ``feed``, and returns the source protocol's events the data
        completed, decoded (what a client iterating the stream reads)."""
    def close(self) -> dict[str, Any]:
        """Ends the stream and returns the view."""
    @property
    def result(self) -> dict[str, Any]:
        """The result so far, what ``close()`` returns once the stream ends: ``view``."""
    @property
    def view(self) -> dict[str, Any]:
        """The view so far: ``protocol``, ``run_id``, ``thread_id``, ``model``,
        ``status``, ``error``, ``usage``, ``result``, ``messages``, ``state``
        and ``events``; a new dict on every access."""
    @property
    def source(self) -> str: ...
    @property
    def errors(self) -> list[dict[str, Any]]: ...
    def reconnect(self) -> None:
        """A new connection carries the stream on (a client resuming with
        ``Last-Event-ID``): the event the old one left unterminated is
        discarded, since the server sends it again; nothing assembled is lost."""
    @property
    def last_event_id(self) -> str:
        """The stream's last event ID, to send as ``Last-Event-ID`` on reconnecting."""
    @property
    def retry(self) -> int | None:
        """The reconnection time in milliseconds the stream set, if any."""
    @property
    def event_count(self) -> int: ...
    @property
    def error_count(self) -> int:
        """Every error recorded, including those past ``max_errors`` not kept."""

@final
class _StrictValidation:
    """For ``benches/report.py``, not part of the API: a protocol's stream
    framed as its assembler frames it and each event's JSON validated,
    nothing built; the bound no reader of it goes below."""

    def __new__(cls, protocol: str) -> _StrictValidation: ...
    def feed(self, data: Buffer) -> None: ...
    def close(self) -> int:
        """How many events the stream held."""
