"""A reader fed what is not its protocol's stream says so at close(): another
protocol's stream, a JSON body (the answer to a request that did not ask to
stream), or nothing at all. It once closed to an empty or made-up result
(a completion made of an AgentScope stream, say)."""

from __future__ import annotations

from types import ModuleType

import pytest

from agentcodec import AgentCodecError
from agentcodec.events import PROTOCOLS
from protocol_table import FIXTURES, TABLE

STREAMS = {name: row.stream for name, row in TABLE.items()}
ASSEMBLERS = {name: row.assembler for name, row in TABLE.items()}
JSON_BODY = b'{"id": "r1", "object": "response", "output": [{"type": "message", "content": "hi"}]}'


def foreign(protocol: str) -> list[tuple[str, bytes]]:
    """What is not ``protocol``'s stream: an event stream of each other
    protocol, whose events it does not take for its own, a JSON body, nothing."""
    others = [(other, (FIXTURES / STREAMS[other]).read_bytes()) for other in PROTOCOLS if other != protocol]
    return [*others, ("a JSON body", JSON_BODY), ("nothing", b"")]


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_its_own_stream_closes_without_a_word(backend: ModuleType, protocol: str) -> None:
    assembler = getattr(backend, ASSEMBLERS[protocol])(on_error="skip")
    assembler.feed((FIXTURES / STREAMS[protocol]).read_bytes())
    assembler.close()
    assert "unrecognized_stream" not in [error["code"] for error in assembler.errors]


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_an_assembler_says_it_saw_no_event_of_its_protocol(backend: ModuleType, protocol: str) -> None:
    for what, stream in foreign(protocol):
        assembler = getattr(backend, ASSEMBLERS[protocol])()
        with pytest.raises(AgentCodecError) as caught:
            assembler.feed(stream)
            assembler.close()
        # An event that cannot be its protocol's may be refused on the way
        # (an event without a type); if not, close() says so.
        said = str(caught.value).startswith("the stream held no ")
        assert said or type(caught.value).__name__.endswith("EventError"), what
        # With errors skipped, the result stands and the record says why it is empty.
        skipping = getattr(backend, ASSEMBLERS[protocol])(on_error="skip")
        skipping.feed(stream)
        skipping.close()
        records = [error for error in skipping.errors if error["code"] == "unrecognized_stream"]
        assert len(records) == 1, what
        assert records[0]["message"].startswith("the stream held no "), what


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_the_transcoder_and_the_neutral_readers_say_so_too(backend: ModuleType, protocol: str) -> None:
    target = "langchain" if protocol != "langchain" else "agentscope"
    for what, stream in foreign(protocol)[-2:]:
        # A JSON body is no SSE event, and one NDJSON line.
        json_body = stream and TABLE[protocol].framing in ("lines", "array")
        held = "its one event is not one" if json_body else "it held no events"
        for reader in (
            backend.Transcoder(protocol, target),
            backend.NeutralDecoder(protocol),
            backend.NeutralAssembler(protocol),
        ):
            reader.feed(stream)
            with pytest.raises(AgentCodecError, match=rf"^the stream held no .*: {held}$"):
                reader.close()
            reader.close()  # said once: what was read stands
            assert what


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_every_assembler_has_its_result_and_close_returns_it(backend: ModuleType, protocol: str) -> None:
    """``result`` is the final object so far under one name, whatever the
    protocol calls it (``response``, ``messages``, ``run``, ``completion``,
    ``message``); ``close()`` returns it."""
    row = TABLE[protocol]
    assembler = getattr(backend, row.assembler)()
    stream = row.recorded()
    assembler.feed(stream[: len(stream) // 2])
    assert assembler.result == getattr(assembler, row.result)
    assembler.feed(stream[len(stream) // 2 :])
    final = assembler.close()
    assert final == assembler.result == getattr(assembler, row.result)
    view = backend.NeutralAssembler(protocol)
    view.feed(stream)
    assert view.close() == view.result == view.view
