"""The LangGraph Agent Server's streams: what a real langgraph-api wrote
(scripts/langgraph_fixtures.py), assembled as langchain-core adds message
chunks and as the thread's state holds them, read as langgraph-sdk reads
them, in every form langgraph-sdk hands them out; every other protocol
converted into them, read back by langgraph-sdk and langchain-core; and the
adding of chunks held to langchain-core's own on generated chunks."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import agentcodec
import conversion
from agentcodec import LangGraphError, LangGraphEventError, SSELimitError, langgraph
from conversion import OPTIONS, SOURCE_IDS, SOURCES, convert
from protocol_table import FIXTURES, TABLE

langchain_messages = pytest.importorskip("langchain_core.messages")
langgraph_sse = pytest.importorskip("langgraph_sdk.sse")

STREAMS = sorted((FIXTURES / "langgraph").glob("*.sse"))
IDS = [path.stem for path in STREAMS]


def judge(path: Path) -> dict[str, Any]:
    return json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))


def by_namespace(run: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """The run's messages by namespace (``""`` the root), as the judges keep them."""
    graphs = {"": run["messages"], **{name: graph["messages"] for name, graph in run["namespaces"].items()}}
    return {name: messages for name, messages in graphs.items() if messages}


def assemble(backend: ModuleType, data: bytes, chunk: int | None = None, **options: Any) -> Any:
    return conversion.assemble(backend.LangGraphAssembler(**options), data, chunk)


def sdk_parts(stream: bytes) -> list[tuple[str, Any]]:
    """What langgraph-sdk's client reads from a stream: (event, data)."""
    decoder = langgraph_sse.SSEDecoder()
    lines = langgraph_sse.BytesLineDecoder()
    parts = []
    for line in [*lines.decode(stream), *lines.flush()]:
        part = decoder.decode(line.rstrip(b"\n"))
        if part is not None:
            parts.append((part.event, part.data))
    return parts


# --- what a real server wrote ---------------------------------------------------------------


@pytest.mark.parametrize("chunk", [None, 1, 97])
@pytest.mark.parametrize("path", STREAMS, ids=IDS)
def test_a_run_is_what_langchain_core_and_the_threads_state_make_of_it(
    backend: ModuleType, path: Path, chunk: int | None
) -> None:
    expected = judge(path)["expected"]
    run = assemble(backend, path.read_bytes(), chunk).run
    assert run["run_id"] == expected["run_id"]
    assert run["values"] == expected["values"]
    assert run["interrupts"] == expected["interrupts"]
    assert run["error"] == expected["error"]
    assert by_namespace(run) == expected["messages"]


@pytest.mark.parametrize("path", STREAMS, ids=IDS)
def test_the_values_are_the_threads_state_after_the_run(backend: ModuleType, path: Path) -> None:
    recorded = judge(path)
    assembler = assemble(backend, path.read_bytes())
    if "values" in str(recorded["request"]["stream_mode"]):
        assert assembler.values == recorded["state"]["values"]
        interrupts = [
            interrupt for task in recorded["state"]["tasks"] or [] for interrupt in task.get("interrupts", [])
        ]
        assert [item["value"] for item in assembler.interrupts] == [item["value"] for item in interrupts]
    else:
        assert assembler.values is None


@pytest.mark.parametrize("form", ["parts", "v2"])
@pytest.mark.parametrize("path", STREAMS, ids=IDS)
def test_langgraph_sdks_parts_assemble_alike(backend: ModuleType, path: Path, form: str) -> None:
    """The parts langgraph-sdk's client yields (``StreamPart`` as a dict, or
    its ``version="v2"`` dicts) fed one by one give what the bytes give."""
    recorded = judge(path)
    whole = assemble(backend, path.read_bytes()).run
    assembler = backend.LangGraphAssembler()
    if form == "parts":
        for event, data in recorded["parts"]:
            assembler.feed_event({"event": event, "data": data})
    else:
        for part in recorded["v2"]:
            assembler.feed_event(part)
    assert assembler.close() == whole


@pytest.mark.parametrize("path", STREAMS, ids=IDS)
def test_the_sdks_reading_of_the_bytes_is_the_recorded_one(path: Path) -> None:
    assert [list(part) for part in sdk_parts(path.read_bytes())] == judge(path)["parts"]


def test_an_error_event_is_the_runs_error_and_what_came_before_stands(backend: ModuleType) -> None:
    assembler = assemble(backend, (FIXTURES / "langgraph" / "error.sse").read_bytes())
    assert assembler.error == {"error": "ValueError", "message": "the tool is broken: é"}
    assert assembler.errors == [
        {
            "event": len(judge(FIXTURES / "langgraph" / "error.sse")["parts"]),
            "code": "ValueError",
            "message": "the tool is broken: é",
        }
    ]
    assert assembler.messages[0]["content"] == "Let me check é — "


def test_the_assembled_views_are_new_each_time(backend: ModuleType) -> None:
    assembler = assemble(backend, (FIXTURES / "langgraph" / "tool_call.sse").read_bytes())
    assembler.messages[0]["content"] = "changed"
    assembler.run["values"]["messages"].clear()
    assert assembler.messages[0]["content"] == "Let me check é — "
    assert assembler.values["messages"]
    assert assembler.result == assembler.run


# --- bad input ------------------------------------------------------------------------------


def chunk_event(**fields: Any) -> dict[str, Any]:
    message = {"type": "AIMessageChunk", "id": "m", "content": "", **fields}
    return {"event": "messages", "data": [message, {}]}


@pytest.mark.parametrize(
    ("event", "problem"),
    [
        ({"data": {}}, 'is neither an SSE event ({"event", "data"}) nor a v2 part ({"type", "ns", "data"})'),
        ({"event": "values"}, "has no data"),
        ({"event": "weather", "data": {}}, 'is a "weather" event, which no stream mode sends'),
        (
            {"event": "message", "data": {"x": 1}},
            "has no stream mode (its SSE event name: values, messages, ...)",
        ),
        ({"type": "values", "ns": "a", "data": {}}, "has an ns that is a JSON string, not a list of strings"),
        (
            {"type": "values", "ns": [], "data": {}, "interrupts": 5},
            "has interrupts that are a JSON number, not a list",
        ),
        ({"event": "values", "data": [1]}, "holds values that are a JSON array, not an object"),
        ({"event": "messages", "data": {}}, "holds no [message, metadata] pair"),
        ({"event": "messages/partial", "data": {}}, "holds a JSON object, not a list of messages"),
        (
            {"event": "messages/complete", "data": [{"content": "x"}]},
            "holds a message that is not an object with an id",
        ),
        (chunk_event(content=5), "has content that is a JSON number, not a string or a list"),
        (chunk_event(response_metadata=[]), "has a response_metadata that is a JSON array, not an object"),
        (chunk_event(tool_call_chunks=[1]), "has tool_call_chunks that are not a list of objects"),
    ],
)
def test_a_bad_event_is_refused_naming_it(backend: ModuleType, event: dict[str, Any], problem: str) -> None:
    assembler = backend.LangGraphAssembler()
    assembler.feed_event({"event": "metadata", "data": {"run_id": "r"}})
    with pytest.raises(LangGraphEventError) as caught:
        assembler.feed_event(event)
    assert (caught.value.event, caught.value.problem) == (2, problem)
    assert str(caught.value) == f"LangGraph event 2 {problem}"
    assert isinstance(caught.value, LangGraphError)
    skipping = backend.LangGraphAssembler(on_error="skip")
    skipping.feed_event(event)
    assert skipping.errors[0]["message"] == f"LangGraph event 1 {problem}"


@pytest.mark.parametrize(
    ("first", "then", "problem"),
    [
        (
            {"response_metadata": {"model_name": "a"}},
            {"response_metadata": {"model_name": 5}},
            'cannot add its "model_name" (a JSON number) to the a JSON string before it',
        ),
        (
            {"response_metadata": {"seed": 1.5}},
            {"response_metadata": {"seed": 2.5}},
            'cannot add its "seed" (2.5) to the 1.5 before it',
        ),
        (
            {"response_metadata": {"ok": True}},
            {"response_metadata": {"ok": False}},
            'cannot add its "ok" (false) to the true before it',
        ),
        (
            {"usage_metadata": {"input_tokens": 1}},
            {"usage_metadata": {"input_tokens": "x"}},
            "cannot add its usage_metadata.input_tokens: only integers and objects of them add",
        ),
        (
            {"response_metadata": {"n": 2**62}},
            {"response_metadata": {"n": 2**62 + 1}},
            'its "n" adds up past 64 bits',
        ),
    ],
)
def test_chunks_langchain_core_cannot_add_are_refused(
    backend: ModuleType, first: dict[str, Any], then: dict[str, Any], problem: str
) -> None:
    assembler = backend.LangGraphAssembler()
    assembler.feed_event(chunk_event(content="a", **first))
    with pytest.raises(
        LangGraphEventError,
        match=f"^LangGraph event 2 {problem}$".replace("(", r"\(").replace(")", r"\)").replace("[", r"\["),
    ):
        assembler.feed_event(chunk_event(content="b", **then))
    assert assembler.messages[0]["content"] in ("a", "ab")  # what came before stands


def test_a_limit_ends_the_stream_and_what_came_before_stays(backend: ModuleType) -> None:
    data = (FIXTURES / "langgraph" / "tool_call.sse").read_bytes()
    assembler = backend.LangGraphAssembler(max_event_bytes=500)
    with pytest.raises(SSELimitError):
        assembler.feed(data)
    assert assembler.run_id is not None


def test_a_stream_of_another_protocol_is_said_to_be_none_of_its(backend: ModuleType) -> None:
    """The LangChain Agent Streaming Protocol names its events by the same
    stream modes: its envelope is not the server's data."""
    assembler = backend.LangGraphAssembler(on_error="skip")
    assembler.feed((FIXTURES / TABLE["langchain"].stream).read_bytes())
    assembler.close()
    assert [error["code"] for error in assembler.errors][-1] == "unrecognized_stream"


# --- every protocol converted into it -------------------------------------------------------


@pytest.mark.parametrize(("source", "path"), SOURCES, ids=SOURCE_IDS)
def test_every_protocol_converted_is_read_by_langgraph_sdk_and_adds_up_in_langchain_core(
    source: str, path: Path
) -> None:
    """The SDK's decoder reads every event; each message chunk is one
    langchain-core takes, and what they add up to in langchain-core, in each
    namespace, is the message the assembler gives there, and the one the
    last values hold."""
    written = {convert(backend, source, "langgraph", path.read_bytes()) for backend in conversion.backends()}
    assert len(written) == 1
    stream = written.pop()
    parts = sdk_parts(stream)
    assert parts[0][0] == "metadata"
    added: dict[str, dict[str, Any]] = {}  # a namespace: its messages by id
    for event, data in parts:
        mode, _, namespace = event.partition("|")
        held = added.setdefault(namespace, {})
        assert mode in langgraph.MODES, event
        if mode == "messages":
            message, _ = data
            if message["type"] == "AIMessageChunk":
                chunk = langchain_messages.AIMessageChunk(**{k: v for k, v in message.items() if k != "type"})
                held[message["id"]] = held[message["id"]] + chunk if message["id"] in held else chunk
            else:
                langchain_messages.messages_from_dict([{"type": message["type"], "data": message}])
                held[message["id"]] = message
        elif mode in ("messages/partial", "messages/complete"):
            # (a legacy stream passes through: each message whole so far)
            for message in data:
                ends_another = message["id"].startswith("lc_run-") and not message.get("content") and held
                if message["id"] in held or not ends_another:
                    held[message["id"]] = message
    made = {
        namespace: [
            langchain_messages.message_chunk_to_message(message).model_dump()
            if isinstance(message, langchain_messages.AIMessageChunk)
            else message
            for message in held.values()
        ]
        for namespace, held in added.items()
        if held
    }
    assembler = backends_first().LangGraphAssembler()
    assembler.feed(stream)
    run = assembler.close()
    assembled = {"": run["messages"]} if run["messages"] else {}
    assembled.update(
        (namespace, graph["messages"]) for namespace, graph in run["namespaces"].items() if graph["messages"]
    )
    cut = [
        call
        for messages in [*made.values(), *assembled.values()]
        for message in messages
        for call in message.get("invalid_tool_calls") or []
    ]
    if cut:
        # Arguments cut short: PartialJSON's reading and langchain-core's
        # parse_partial_json differ there (see the test of adding chunks).
        def uncut(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
            return [{**message, "tool_calls": None, "invalid_tool_calls": None} for message in messages]

        assert {name: uncut(messages) for name, messages in assembled.items()} == {
            name: uncut(messages) for name, messages in made.items()
        }
        return
    assert assembled == made
    last = parts[-1]
    if last[0] == "values":
        # (the root's values hold every message written, a subgraph's too)
        assert last[1]["messages"] == [message for messages in made.values() for message in messages]


def backends_first() -> ModuleType:
    return conversion.backends()[0]


def test_a_langgraph_sdk_client_reads_a_converted_stream_served_over_http() -> None:
    """langgraph-sdk's own client, streaming a run from a server that writes
    an AgentApp's Agent API stream converted to LangGraph (EventStreamResponse)."""
    pytest.importorskip("uvicorn")
    from langgraph_sdk import get_client
    from starlette.applications import Starlette
    from starlette.routing import Route

    from agentcodec.server import EventStreamResponse
    from servers import serve

    source = (FIXTURES / "agentapp" / "agent_turn.process.sse").read_bytes()

    async def chunks() -> Any:
        transcoder = agentcodec.Transcoder("agentscope", "langgraph", **OPTIONS["langgraph"])
        yield transcoder.feed(source)
        yield transcoder.close()

    async def stream_run(request: Any) -> Any:
        return EventStreamResponse(chunks(), protocol="langgraph")

    app = Starlette(routes=[Route("/threads/{thread_id}/runs/stream", stream_run, methods=["POST"])])

    async def read(url: str) -> list[tuple[str, Any]]:
        async with get_client(url=url) as client:
            return [(part.event, part.data) async for part in client.runs.stream("t1", "agent", input={})]

    with serve(app) as url:
        parts = asyncio.run(read(url))
    converted = convert(backends_first(), "agentscope", "langgraph", source)
    assert parts == sdk_parts(converted)


# --- adding chunks, held to langchain-core --------------------------------------------------

TEXT = st.text(alphabet=st.sampled_from('ab é😀"\\{}[]:,0'), max_size=6)
INDEX = st.integers(min_value=0, max_value=2)
BLOCK = st.fixed_dictionaries(
    {"type": st.sampled_from(["text", "thinking"]), "index": INDEX},
    optional={"text": TEXT, "thinking": TEXT, "signature": TEXT},
)
CALL = st.fixed_dictionaries(
    {"index": INDEX},
    optional={
        "name": st.one_of(st.none(), st.sampled_from(["f", "g"])),
        "args": TEXT,
        "id": st.one_of(st.none(), st.sampled_from(["c1", "c2"])),
    },
)
METADATA = st.dictionaries(
    st.sampled_from(["model_name", "finish_reason", "model_provider", "n", "id", "index"]),
    st.one_of(TEXT, st.integers(min_value=0, max_value=5)),
    max_size=3,
)
USAGE = st.one_of(
    st.none(),
    st.fixed_dictionaries(
        {
            "input_tokens": st.integers(0, 9),
            "output_tokens": st.integers(0, 9),
            "total_tokens": st.integers(0, 9),
        }
    ),
)
CHUNK = st.fixed_dictionaries(
    {
        "content": st.one_of(TEXT, st.lists(BLOCK, max_size=2)),
        "response_metadata": METADATA,
        "additional_kwargs": METADATA,
        "tool_call_chunks": st.lists(CALL, max_size=2),
        "usage_metadata": USAGE,
    }
)


def langchain_sum(chunks: list[dict[str, Any]]) -> Any:
    total = None
    for fields in chunks:
        chunk = langchain_messages.AIMessageChunk(**fields)
        total = chunk if total is None else total + chunk
    return langchain_messages.message_chunk_to_message(total).model_dump()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(chunks=st.lists(CHUNK, min_size=1, max_size=5), message_id=st.sampled_from(["run-1", "lc_run--9"]))
def test_chunks_add_up_as_langchain_core_adds_them(chunks: list[dict[str, Any]], message_id: str) -> None:
    """Chunks of one message (one id), of every shape the fields take."""
    chunks = [{**chunk, "id": message_id} for chunk in chunks]
    try:
        expected = langchain_sum(chunks)
    except (TypeError, ValueError):
        expected = None  # langchain-core refuses them: so does the assembler
    for backend in conversion.backends():
        assembler = backend.LangGraphAssembler(on_error="skip")
        for fields in chunks:
            assembler.feed_event({"event": "messages", "data": [{"type": "AIMessageChunk", **fields}, {}]})
        # The same as bytes (the native backend's quick path takes text chunks).
        framed = backend.LangGraphAssembler(on_error="skip")
        for fields in chunks:
            data = json.dumps([{"type": "AIMessageChunk", **fields}, {"langgraph_step": 1}])
            framed.feed(f"event: messages\ndata: {data}\n\n".encode())
        assert framed.messages == assembler.messages
        said = [error["message"] for error in assembler.errors]
        assert [error["message"] for error in framed.errors] == said
        if expected is None:
            assert assembler.errors
            continue
        assert not assembler.errors, assembler.errors
        (message,) = assembler.messages
        keys = ["content", "additional_kwargs", "response_metadata", "usage_metadata"]
        if all(whole_or_empty(chunk_args) for chunk_args in joined_args(chunks)):
            # Arguments cut short are read by PartialJSON (the longest clean
            # prefix), where langchain-core's parse_partial_json drops
            # characters from the end until what is left closes: they agree
            # on whole arguments.
            keys += ["tool_calls", "invalid_tool_calls"]
        for key in keys:
            assert message[key] == expected[key], key


def joined_args(chunks: list[dict[str, Any]]) -> list[str]:
    """Each tool call's arguments as langchain-core joins them."""
    total = None
    for fields in chunks:
        chunk = langchain_messages.AIMessageChunk(**fields)
        total = chunk if total is None else total + chunk
    return [call.get("args") or "" for call in total.tool_call_chunks]


def whole_or_empty(args: str) -> bool:
    if not args:
        return True
    try:
        json.loads(args)
    except ValueError:
        return False
    return True


def test_a_result_in_an_assistants_message_is_a_tool_message_of_its_own(backend: ModuleType) -> None:
    """The vocabulary lets a tool result stand in the assistant's message
    (a server tool's); LangChain's messages keep it apart, so that the
    assistant's message is not replaced by it."""
    encoder = backend.NeutralEncoder("langgraph", **OPTIONS["langgraph"])
    events = [
        {"type": "run_started", "run_id": "r"},
        {"type": "message_started", "message_id": "m", "role": "assistant"},
        {"type": "block_started", "message_id": "m", "index": 0, "kind": "text"},
        {"type": "block_delta", "message_id": "m", "index": 0, "delta": "Searching."},
        {"type": "block_finished", "message_id": "m", "index": 0},
        {"type": "block_started", "message_id": "m", "index": 1, "kind": "tool_result", "call_id": "c"},
        {"type": "block_delta", "message_id": "m", "index": 1, "delta": "found"},
        {"type": "block_finished", "message_id": "m", "index": 1},
        {"type": "message_finished", "message_id": "m"},
        {"type": "run_finished", "status": "completed"},
    ]
    stream = b"".join(bytes(encoder.encode(event)) for event in events) + bytes(encoder.close())
    run = assemble(backend, stream).run
    assert [(m["type"], m["id"], m["content"]) for m in run["messages"]] == [
        ("ai", "m", "Searching."),
        ("tool", "m-result-1", "found"),
    ]
    assert run["values"]["messages"] == run["messages"]


# --- subgraphs, in both protocols the server speaks ------------------------------------------

# Each graph run on one real server twice: once as its own stream
# (``messages|inner:<task>``), once in the LangChain Agent Streaming Protocol
# (``params.namespace``). ``subgraphs`` nests one subgraph that calls a tool;
# ``parallel`` runs two side by side, their messages interleaving.
SUBGRAPH_RUNS = ["subgraphs", "parallel"]


def protocol_run(name: str) -> Path:
    return FIXTURES / "langchain" / "server" / f"{name}.sse"


def graph_of(namespace: str) -> str:
    """The subgraphs a namespace runs through, its tasks apart
    (``outer:<task>|inner:<task>`` is ``outer|inner``): what two runs of one
    graph share."""
    return "|".join(part.split(":")[0] for part in namespace.split("|"))


def without_index(content: Any) -> Any:
    # (ChatModelStream writes each block's place on the wire as its index)
    if not isinstance(content, list):
        return content
    return [{key: value for key, value in block.items() if key != "index"} for block in content]


@pytest.mark.parametrize("name", SUBGRAPH_RUNS)
def test_a_real_servers_langchain_stream_keeps_each_message_in_its_subgraph(
    backend: ModuleType, name: str
) -> None:
    """Read as the protocol, each message is langchain-core's, in the
    namespace it streamed in; read into the neutral vocabulary, it keeps it."""
    stream = protocol_run(name).read_bytes()
    judged = judge(protocol_run(name))["messages"]
    assert judged
    assert all(message["namespace"] for message in judged)
    assembler = backend.LangChainAssembler()
    assembler.feed(stream)
    messages = assembler.close()
    assert [(m["id"], m["namespace"], without_index(m["content"])) for m in messages] == [
        (m["id"], m["namespace"], without_index(m["content"])) for m in judged
    ]
    viewed = conversion.view(backend, "langchain", stream)["messages"]
    assert [(m["id"], m["namespace"]) for m in viewed] == [(m["id"], m["namespace"]) for m in judged]
    # The root graph's lifecycle is the run's; a subgraph's start and end pass through.
    decoder = backend.NeutralDecoder("langchain")
    decoded = decoder.feed(stream) + decoder.close()
    assert [event["type"] for event in decoded if event["type"].startswith("run_")] == [
        "run_started",
        "run_finished",
    ]


@pytest.mark.parametrize("name", SUBGRAPH_RUNS)
def test_a_subgraphs_messages_convert_into_its_namespace_in_the_other_protocol(
    backend: ModuleType, name: str
) -> None:
    """The server's LangGraph stream converted into the LangChain protocol
    puts each message in the namespace it streamed in, whole however the
    subgraphs' messages interleave, as the server's own LangChain stream of
    the graph puts them; and the server's LangChain stream converted into
    the LangGraph one, alike. The messages are the same."""
    recorded = judge(FIXTURES / "langgraph" / f"{name}.sse")["expected"]["messages"]  # by namespace
    judged = judge(protocol_run(name))["messages"]
    streamed_in = {
        message["id"]: namespace for namespace, messages in recorded.items() for message in messages
    }

    written = convert(
        backend, "langgraph", "langchain", (FIXTURES / "langgraph" / f"{name}.sse").read_bytes()
    )
    assembler = backend.LangChainAssembler()
    assembler.feed(written)
    ai = [message for message in assembler.close() if message["role"] == "ai"]
    assert [message["namespace"] for message in ai] == [
        streamed_in[message["id"]].split("|") for message in ai
    ]
    by_graph = {graph_of("|".join(m["namespace"])): without_index(m["content"]) for m in judged}
    assert {graph_of("|".join(m["namespace"])): without_index(m["content"]) for m in ai} == by_graph
    assert len(ai) == len(judged)

    # And the server's LangChain stream into its own: langgraph-sdk reads
    # each message under its namespace, as the server sent them.
    back = convert(backend, "langchain", "langgraph", protocol_run(name).read_bytes())
    namespaces = {event.partition("|")[2] for event, _ in sdk_parts(back) if event.startswith("messages")}
    assert namespaces == {"|".join(message["namespace"]) for message in judged}
    converted = by_namespace(assemble(backend, back).run)

    def ai_messages(messages: list[dict[str, Any]]) -> list[Any]:
        return [(m["content"], m.get("tool_calls")) for m in messages if m["type"] == "ai"]

    assert {graph_of(namespace): ai_messages(messages) for namespace, messages in converted.items()} == {
        graph_of(namespace): ai_messages(messages) for namespace, messages in recorded.items()
    }


def nodes_written(stream: bytes) -> dict[str, str]:
    """Each message's node as langgraph-sdk reads the stream: the first
    ``langgraph_node`` beside its chunks, or in ``messages/metadata``."""
    nodes: dict[str, str] = {}
    for event, data in sdk_parts(stream):
        if event.startswith("messages/metadata") and isinstance(data, dict):
            for message_id, value in data.items():
                nodes.setdefault(message_id, value["metadata"]["langgraph_node"])
        elif (
            event.startswith("messages")
            and isinstance(data, list)
            and len(data) == 2
            and isinstance(data[1], dict)
            and "langgraph_node" in data[1]
        ):
            nodes.setdefault(data[0]["id"], data[1]["langgraph_node"])
    return nodes


@pytest.mark.parametrize("name", ["legacy_messages", "tool_call", "subgraphs", "fanout"])
def test_a_messages_node_converts_between_the_two_graph_protocols(backend: ModuleType, name: str) -> None:
    """The node that wrote a message (``langgraph_node`` in the metadata
    langgraph-api writes beside it) is the message's ``node`` in the
    LangChain protocol, and back: the conversion writes each message's own,
    not the encoder's default, in both directions."""
    source = (FIXTURES / "langgraph" / f"{name}.sse").read_bytes()
    recorded = nodes_written(source)
    # (graphs whose nodes are not all named as the encoder's default)
    assert recorded
    assert set(recorded.values()) != {"model"}

    written = convert(backend, "langgraph", "langchain", source)
    assembler = backend.LangChainAssembler()
    assembler.feed(written)
    streamed = [message for message in assembler.close() if message["id"] in recorded]
    assert streamed
    assert {message["id"]: message["node"] for message in streamed} == {
        message["id"]: recorded[message["id"]] for message in streamed
    }

    back = convert(backend, "langchain", "langgraph", written)
    again = nodes_written(back)
    assert {key: again[key] for key in recorded if key in again} == {
        key: node for key, node in recorded.items() if key in again
    }
    assert len(again) >= len(streamed)


def test_a_subgraphs_events_that_a_target_drops_are_reported_once_for_each_mode(backend: ModuleType) -> None:
    """A graph's events in a subgraph are named by their stream mode and the
    subgraph's namespace (``updates|inner:<task>``): a target that keeps no
    other protocol's events reports each mode once, as it does the run's
    own, not once for each task of a subgraph that runs many times."""
    events: list[dict[str, Any]] = [{"type": "run_started", "run_id": "r", "thread_id": "t"}]
    for task in ("a", "b", "c"):
        for mode in ("updates", "values", "custom"):
            inner = {"event": f"{mode}|inner:{task}", "data": {"n": 1}}
            events.append({"type": "passthrough", "protocol": "langgraph", "event": inner})
    events.append({"type": "run_finished", "status": "completed"})
    target = next(name for name, row in TABLE.items() if not row.keeps_foreign_events)
    encoder = backend.NeutralEncoder(target, **OPTIONS[target])
    for event in events:
        encoder.encode(event)
    encoder.close()
    dropped = [loss["why"] for loss in encoder.losses if loss["what"] == "passthrough"]
    assert dropped == [
        f"{target} has no place for {named} event of langgraph, which has no neutral meaning"
        for named in ("an updates", "a values", "a custom")
    ]
