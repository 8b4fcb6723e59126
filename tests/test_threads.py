"""One object shared by threads: calls are serialized on both backends, so
nothing is lost or interleaved, and a call nested inside another on the same
thread is refused with the same RuntimeError (the native backend once raised
PyO3's "Already borrowed" and dropped that call's input; the pure one
interleaved the state silently)."""

from __future__ import annotations

import itertools
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

import pytest

from agentcodec import AgentCodecError, AgentScopeEventError
from agentcodec.events import PROTOCOLS
from conftest import NATIVE, requires_native
from protocol_table import TABLE

AGENTSCOPE_TEXT = (
    b'data: {"object":"content","type":"text","index":0,"delta":true,"msg_id":"t%d","text":"a"}\n\n'
)


PROTOCOL_ASSEMBLERS = tuple(row.assembler for row in TABLE.values())


@pytest.fixture
def frequent_switches() -> Iterator[None]:
    """Threads switch as often as the interpreter allows, so that calls
    overlap wherever one runs Python code."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(interval)


def run_threads(count: int, target: Callable[[int], None]) -> None:
    threads = [threading.Thread(target=target, args=(index,)) for index in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


@pytest.mark.usefixtures("frequent_switches")
def test_threads_feeding_one_assembler_lose_nothing(backend: ModuleType) -> None:
    """The reproduction: four threads each feed their own message and, every
    other call, an event that fails (its exception is built by Python code,
    where another thread gets in). Every event is applied or refused alone."""
    assembler = backend.AgentScopeAssembler()
    for index in range(4):
        assembler.feed(
            b'data: {"object":"content","type":"text","index":0,"delta":false,"msg_id":"t%d","text":""}\n\n'
            % index
        )
    # One counter a thread: `counter[key] += 1` reads and then writes, so a
    # counter shared by the threads would itself lose counts when they switch.
    outcomes: list[Counter[str]] = [Counter() for _ in range(4)]

    def feed(index: int) -> None:
        for step in range(1000):
            try:
                assembler.feed(b"data: bad\n\n" if step % 2 else AGENTSCOPE_TEXT % index)
            except AgentScopeEventError as exc:
                outcomes[index][f"{type(exc).__name__}: {exc}".split(" event ")[0]] += 1
            except Exception as exc:
                outcomes[index][f"{type(exc).__name__}: {exc}"] += 1

    run_threads(4, feed)
    assert sum(outcomes, Counter()) == Counter({"AgentScopeEventError: AgentScope": 2000})
    assert [len(message["content"][0]["text"]) for message in assembler.messages] == [500] * 4
    assert assembler.error_count == 0  # raised, not recorded
    assert assembler.event_count == 4 + 4000


@pytest.mark.usefixtures("frequent_switches")
def test_reads_while_another_thread_feeds_see_whole_events(backend: ModuleType) -> None:
    """A reader never sees an event half applied: each read's text is what a
    whole number of deltas make, and never shrinks."""
    assembler = backend.AgentScopeAssembler()
    assembler.feed(
        b'data: {"object":"content","type":"text","index":0,"delta":false,"msg_id":"m","text":""}\n\n'
    )
    done = threading.Event()
    seen: list[int] = []
    problems: list[BaseException] = []

    def work(index: int) -> None:
        try:
            if index == 0:
                for _ in range(3000):
                    assembler.feed_event(
                        {
                            "object": "content",
                            "type": "text",
                            "index": 0,
                            "delta": True,
                            "msg_id": "m",
                            "text": "ab",
                        }
                    )
                done.set()
            else:
                while not done.is_set():
                    text = assembler.response["output"][0]["content"][0]["text"]
                    assert text == "ab" * (len(text) // 2)
                    seen.append(len(text))
        except BaseException as exc:
            problems.append(exc)
            done.set()

    run_threads(2, work)
    assert problems == []
    assert seen == sorted(seen)
    assert assembler.messages[0]["content"][0]["text"] == "ab" * 3000


def _exercise(backend: ModuleType) -> list[tuple[str, Any, Callable[[Any], None], Callable[[Any], Any]]]:
    """Every class with state: how to make one, a call that fails (its
    exception is built by Python code), and a cheap read."""
    bad_event = b"data: bad\n\n"
    cases: list[tuple[str, Any, Callable[[Any], None], Callable[[Any], Any]]] = [
        (name, getattr(backend, name)(), lambda obj: obj.feed(bad_event), lambda obj: obj.event_count)
        for name in PROTOCOL_ASSEMBLERS
    ]
    cases += [
        (
            "Transcoder",
            backend.Transcoder("agentscope", "langchain"),
            lambda obj: obj.feed(bad_event),
            lambda obj: obj.event_count,
        ),
        (
            "NeutralDecoder",
            backend.NeutralDecoder("langchain"),
            lambda obj: obj.feed(bad_event),
            lambda obj: obj.errors,
        ),
        (
            "NeutralAssembler",
            backend.NeutralAssembler(PROTOCOLS[-1]),
            lambda obj: obj.feed(bad_event),
            lambda obj: obj.view,
        ),
        (
            "SSEDecoder",
            backend.SSEDecoder(max_line_bytes=4),
            lambda obj: obj.feed(b"data: too long\n"),
            lambda obj: obj.retry,
        ),
        ("PartialJSON", backend.PartialJSON(), lambda obj: obj.feed("[1, x"), lambda obj: obj.offset),
    ]
    return cases


@pytest.mark.parametrize("case", range(12))
def test_a_call_nested_in_another_on_the_same_thread_is_refused(backend: ModuleType, case: int) -> None:
    """Code a call runs can call the object again on the same thread: here a
    profile hook (as a debugger's evaluating ``.response`` at a breakpoint
    would), run when the call builds its exception in Python code. It cannot
    wait for the outer call (that would never end), so it is refused with a
    clear error on both backends; the outer call goes on unharmed."""
    name, obj, fail, read = _exercise(backend)[case]
    nested: list[str] = []

    def hook(frame: Any, event: str, arg: Any) -> None:
        if event == "call":
            try:
                read(obj)
            except RuntimeError as exc:
                nested.append(str(exc))

    sys.setprofile(hook)
    try:
        with pytest.raises(AgentCodecError):
            fail(obj)
    finally:
        sys.setprofile(None)
    assert nested, "the hook never ran inside the call"
    # Each protocol's class is named Assembler in its module.
    shown = "Assembler" if name in PROTOCOL_ASSEMBLERS else name
    assert set(nested) == {f"this {shown} is already in use by this thread: calls on one object cannot nest"}
    read(obj)  # usable afterwards


@pytest.mark.usefixtures("frequent_switches")
@pytest.mark.parametrize("case", range(12))
def test_every_class_serializes_calls_from_threads(backend: ModuleType, case: int) -> None:
    """Each class with state, hammered by four threads with calls that fail
    and reads: no error but the calls' own, on both backends."""
    _name, obj, fail, read = _exercise(backend)[case]
    unexpected: list[BaseException] = []

    def work(index: int) -> None:
        for _ in range(200):
            try:
                if index % 2:
                    read(obj)
                else:
                    fail(obj)
            except AgentCodecError:
                pass
            except BaseException as exc:
                unexpected.append(exc)

    run_threads(4, work)
    assert unexpected == []


@pytest.mark.usefixtures("frequent_switches")
def test_a_shared_encoder_writes_each_event_whole(backend: ModuleType) -> None:
    """NeutralEncoder too: every event's bytes come out whole, none twice."""
    encoder = backend.NeutralEncoder("langchain")
    encoder.encode({"type": "message_started", "message_id": "m", "role": "assistant"})
    encoder.encode({"type": "block_started", "message_id": "m", "index": 0, "kind": "text"})
    outputs: list[bytes] = []
    lock = threading.Lock()

    def work(index: int) -> None:
        for step in range(200):
            chunk = encoder.encode(
                {"type": "block_delta", "message_id": "m", "index": 0, "delta": f"<{index}:{step}>"}
            )
            with lock:
                outputs.append(chunk)

    run_threads(4, work)
    text = b"".join(outputs).decode()
    for index in range(4):
        for step in range(200):
            assert text.count(f"<{index}:{step}>") == 1


@requires_native
def test_a_long_chunk_is_assembled_with_the_gil_released() -> None:
    """While the native backend assembles a long chunk of ``bytes``, other
    threads run Python: a thread that notes the time in a loop sees no gap
    as long as the feed (holding the GIL, it would see one at least that
    long)."""
    assert NATIVE is not None
    text = b'data: {"object":"content","type":"text","index":0,"delta":true,"msg_id":"m","text":"token "}\n\n'
    chunk = text * 600_000  # about 55 MB: a long feed
    stop = threading.Event()
    times: list[float] = []

    def note_the_time() -> None:
        while not stop.is_set():
            times.append(time.perf_counter())

    assembler = NATIVE.AgentScopeAssembler()
    assembler.feed(b'data: {"object":"content","type":"text","index":0,"msg_id":"m","text":""}\n\n')
    noter = threading.Thread(target=note_the_time)
    noter.start()
    while not times:
        time.sleep(0.001)
    began = time.perf_counter()
    assembler.feed(chunk)
    ended = time.perf_counter()
    stop.set()
    noter.join()
    during = [moment for moment in times if began <= moment <= ended]
    edges = [began, *during, ended]
    longest_gap = max(later - earlier for earlier, later in itertools.pairwise(edges))
    assert longest_gap < (ended - began) / 2
    assert len(assembler.messages[0]["content"][0]["text"]) == 6 * 600_000
