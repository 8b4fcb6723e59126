"""The gateway (``agentcodec gateway``) as a LangGraph Agent Server: the routes langgraph-sdk's
client and the ``useStream`` hook call, so that a LangGraph frontend talks to
the agent behind the gateway.

- ``GET /info``: what the server is, which LangGraph frontends (agent-chat-ui)
  ask before anything else to tell that they reach one (no key needed);
- ``POST /threads``: a thread, kept with its metadata (a run on any other
  id makes that thread too, with the run's); ``PATCH
  /threads/{thread_id}``: its metadata updated (``threads.update``);
  ``DELETE /threads/{thread_id}``: the thread and its runs forgotten, a run
  going on cancelled (``_threads`` keeps a thread's own record);
- ``POST /threads/search``: the threads the store keeps (with runs, or
  made with none yet), the last updated first, those the metadata, values,
  status and ids filters hold for (``threads.search``: a frontend's thread
  list); ``POST /threads/count``: how many (``threads.count``);
- ``POST /threads/{thread_id}/runs/stream``: a run of the agent on the
  thread's input messages (the thread is the agent's session), streamed as
  langgraph-api streams a graph of one node, ``agent``, for
  ``stream_mode=["values", "updates", "messages-tuple"]`` (the modes asked
  for are kept: ``values``, ``updates``, ``messages-tuple``, or the legacy
  ``messages``: ``messages/metadata``, then ``messages/partial`` with the
  message so far, as langgraph-api writes it; ``debug``, ``tasks`` and
  ``checkpoints`` (``_steps``); ``events``, the callbacks LangChain's
  ``astream_events`` reports (``_callback_events``); ``metadata`` and
  ``error`` always): the thread's
  values as the run starts (its messages before, the input), the answer's
  messages as they stream, the node's update (the answer's messages), and
  the thread's values again: those before, the input, the answer.
  ``Content-Location`` names the run and ``Location`` its join endpoint, as
  langgraph-api's do; a dropped client resumes with ``Last-Event-ID``;
- ``POST /threads/{thread_id}/runs``: a run in the background
  (``runs.create``), answered with the run, ``pending`` (a run asking
  ``after_seconds`` starts then, as langgraph-api schedules it); ``POST
  /threads/{thread_id}/runs/wait``: a run answered with its result once it
  has ended (``runs.wait``): the thread's values, beside them the run's
  ``__interrupt__`` if it was interrupted, or ``{"__error__": ...}`` if it
  failed, a line of whitespace written every few seconds until then, as
  langgraph-api keeps such a response alive;
- ``POST /runs/stream``, ``POST /runs/wait`` and ``POST /runs``: the same
  on a thread of the run's own (a stateless run);
- ``GET /threads/{thread_id}/runs/{run_id}/stream`` (and ``GET
  /runs/{run_id}/stream``, which a stateless run's ``Location`` names): the
  run's stream again from its start (or after ``Last-Event-ID``), then live
  (``join_stream``);
- ``GET /threads/{thread_id}/runs/{run_id}``: the run (``runs.get``);
  ``DELETE`` it: the run and what it wrote to the thread forgotten
  (``runs.delete``);
  ``GET /threads/{thread_id}/runs``: the thread's runs the store keeps, the
  latest first (``runs.list``); ``GET .../runs/{run_id}/join``: the run's
  result once it has ended (``runs.join``), as ``runs.wait`` answers;
- ``POST /threads/{thread_id}/runs/{run_id}/cancel``: the run cancelled
  (``runs.cancel``, useStream's ``stop``), on whichever replica sharing the
  store it runs; with ``wait=true``, answered with its result once it has
  ended. A run that has ended is not found, as langgraph-api says;
- ``GET /threads/{thread_id}/state``: the thread's values after its last
  run (its node next, after a cancel); ``POST /threads/{thread_id}/history``
  (useStream fetches it; or ``GET``): its states, each run's three
  checkpoints, the latest first (``_history``); ``GET
  /threads/{thread_id}/state/{checkpoint_id}`` (or ``POST
  .../state/checkpoint``): its state at one of them; ``GET
  /threads/{thread_id}``: the thread. Each dated by the store: a run when
  it began and ended, a thread when it was made and its last run ended.

- ``/assistants/...``: the one assistant, the graph ``agent``
  (``assistants.search``, ``count``, ``get``, ``get_graph``,
  ``get_schemas``, ``get_subgraphs``; ``_assistants``).

A run's request is checked in ``_asked``, its stream made in
``_run_stream``; what the routes answer about runs is in ``_records``,
about threads in ``_threads`` and a thread's states in ``_history``.

A run on a thread busy with another goes after it, as its
``multitask_strategy`` says (``enqueue``, the default; ``interrupt``;
``reject``), on whichever replica it is asked of: a run claims its thread in
the store before it starts. A run goes on from the thread's last checkpoint;
one naming an earlier checkpoint (a branch) is refused, as are
``interrupt_before``, ``interrupt_after`` and ``webhook`` (``_asked``). Runs
are kept in the replay store (so any replica answers), named by the thread
and by the run. What a LangGraph server does beyond these (making
assistants, crons, the store, resuming an interrupt with a ``command``) is
not served; a thread's state updated or the thread copied are refused
(``501``), saying why: the agent keeps the thread's session.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import BaseRoute, Route

from .._backend import impl
from .._version import __version__
from ..gateway._body import json_body
from ..gateway._cancels import STOP_CHECK_EVERY, Cancels, follow
from ..gateway._requests import RequestError
from ..gateway._upstream import UpstreamError
from ..server import ReplayError
from ..server._closing import closed
from ..server._response import recording
from ._asked import Asked, asked_run
from ._assistants import Assistants
from ._callback_events import EVENTS_MODE, CallbackEvents
from ._history import NO_STATE, History, run_states, state_record
from ._legacy import LegacyMessages
from ._records import (
    NODE,
    RUN_STATUSES,
    Recorded,
    messages_of,
    new_thread,
    run_record,
    run_result,
    thread_not_found,
    thread_record,
)
from ._replies import checked_count, dated, detail, integer, now
from ._run_stream import as_the_threads, asked_modes
from ._steps import STEP_MODES, Steps
from ._threads import MADE_BY_A_RUN, THREAD_MADE_ALIAS, ThreadSearch, checked_metadata, made, make

if TYPE_CHECKING:
    from ..gateway import Gateway

__all__ = ["Endpoint"]

THREAD_ALIAS = "langgraph-thread:"
RUN_ALIAS = "langgraph-run:"
# A thread's runs: the prefix + the thread's id + "/" + the run's id.
THREAD_RUN_ALIAS = "langgraph-thread-run:"
# The runs cancelled (their streams end as any run's does).
CANCELLED_ALIAS = "langgraph-cancelled:"
# The thread's values a run wrote without streaming them (it asked for no
# ``values``): a stream of their own, so that the thread's state is what
# the run left whatever its client asked to see.
VALUES_ALIAS = "langgraph-values:"
# The run a run went on from, by their streams: the prefix + a run's stream
# id names the run before's (its thread's last as it began), so that the
# thread's history is read run by run, back from its last, and not by
# listing the store's aliases.
RUN_BEFORE_ALIAS = "langgraph-run-before:"
# Seconds between the whitespace a response waiting for a run's end writes
# (JSON readers skip it), as langgraph-api's do: a proxy that cuts an idle
# connection leaves it be.
_KEEP_ALIVE = 5.0
# What langgraph-api says of a run that has ended, or that it does not know, when asked to cancel it.
_NOTHING_TO_CANCEL = (
    "No matching runs to cancel. Please verify the thread ID and run IDs are correct,"
    " and the runs haven't been deleted or completed."
)


class _Turns:
    """Whose turn it is to start a run on each thread, in this process: a
    run waiting for the thread's run going on to end holds it, so that the
    runs asked for meanwhile start one after another, in order."""

    def __init__(self) -> None:
        self._locks: dict[str, asyncio.Lock] = {}
        self._waiting: dict[str, int] = {}

    def taken(self, thread_id: str) -> bool:
        return thread_id in self._locks

    @contextlib.asynccontextmanager
    async def turn(self, thread_id: str) -> AsyncIterator[None]:
        lock = self._locks.setdefault(thread_id, asyncio.Lock())
        self._waiting[thread_id] = self._waiting.get(thread_id, 0) + 1
        try:
            async with lock:
                yield
        finally:
            self._waiting[thread_id] -= 1
            if not self._waiting[thread_id]:  # (nobody else wants it: forgotten)
                del self._waiting[thread_id], self._locks[thread_id]


@dataclass
class _Started:
    """A run started upstream and named in the store, its frames not yet read."""

    thread_id: str
    run_id: str
    stream_id: str
    frames: AsyncIterator[bytes]
    cancel: asyncio.Event
    abandoned: asyncio.Event | None


_THREAD_BUSY = (
    "Thread is already running a task. Wait for it to finish or choose a different multitask strategy."
)


_VALUES_EVENT = b"event: values\n"


def _first_values(frames: bytes | None) -> Any:
    """The data of the first ``values`` event of ``frames`` (None without one)."""
    if frames is None:
        return None
    decoder = impl.SSEDecoder(max_line_bytes=None, max_event_bytes=None)
    for event in [*decoder.feed(frames), *decoder.close()]:
        if event.event == "values":
            return json.loads(event.data)
    return None


def _not_the_head(named: str, head: str | None) -> str:
    """Why a run from the checkpoint ``named`` is refused, the thread's last
    being ``head``: the agent behind the gateway keeps the thread's session,
    so a run goes on from the thread's last checkpoint alone."""
    where = f"its last checkpoint is {head}" if head is not None else "it has no checkpoint yet"
    return (
        f"a run from checkpoint {named} is not served: the agent keeps the thread's session, so a run"
        f" starts from the thread's last checkpoint, and {where}; a branch from an earlier one"
        " (editing or regenerating a message) is not possible"
    )


class Endpoint:
    """Serves the gateway's agent as a LangGraph Agent Server's threads and runs."""

    public_paths: frozenset[str] = frozenset({"/info"})

    def __init__(self, gateway: Gateway) -> None:
        self._gateway = gateway
        # The runs going on here, by their id.
        self._cancels = Cancels(gateway)
        self._assistants = Assistants(gateway.max_body_bytes)
        self._turns = _Turns()
        self._cancelling: set[asyncio.Future[bool]] = set()

    def routes(self) -> list[BaseRoute]:
        return [
            Route("/info", self.info, methods=["GET"]),
            Route("/threads", self.create_thread, methods=["POST"]),
            Route("/threads/search", self.search_threads, methods=["POST"]),
            Route("/threads/count", self.count_threads, methods=["POST"]),
            Route("/threads/{thread_id}/runs/stream", self.stream_run, methods=["POST"]),
            Route("/threads/{thread_id}/runs/wait", self.wait_run, methods=["POST"]),
            Route("/threads/{thread_id}/runs", self.create_run, methods=["POST"]),
            Route("/threads/{thread_id}/runs", self.list_runs, methods=["GET"]),
            Route("/threads/{thread_id}/runs/{run_id}", self.get_run, methods=["GET"]),
            Route("/threads/{thread_id}/runs/{run_id}", self.delete_run, methods=["DELETE"]),
            Route("/threads/{thread_id}/runs/{run_id}/join", self.join_run, methods=["GET"]),
            Route("/threads/{thread_id}/runs/{run_id}/stream", self.join, methods=["GET"]),
            Route("/threads/{thread_id}/runs/{run_id}/cancel", self.cancel, methods=["POST"]),
            Route("/threads/{thread_id}/state", self.state, methods=["GET"]),
            Route("/threads/{thread_id}/state/checkpoint", self.state_at_checkpoint, methods=["POST"]),
            Route("/threads/{thread_id}/state", self.update_state, methods=["POST"]),
            Route("/threads/{thread_id}/copy", self.copy_thread, methods=["POST"]),
            Route("/threads/{thread_id}/state/{checkpoint_id}", self.state_at_checkpoint, methods=["GET"]),
            Route("/threads/{thread_id}/history", self.history, methods=["GET", "POST"]),
            Route("/threads/{thread_id}", self.thread, methods=["GET"]),
            Route("/threads/{thread_id}", self.delete_thread, methods=["DELETE"]),
            Route("/threads/{thread_id}", self.update_thread, methods=["PATCH"]),
            Route("/runs/stream", self.stream_run, methods=["POST"]),
            Route("/runs/wait", self.wait_run, methods=["POST"]),
            Route("/runs", self.create_run, methods=["POST"]),
            Route("/runs/{run_id}/stream", self.join, methods=["GET"]),
            *self._assistants.routes(),
        ]

    def streams(self, path: str) -> bool:
        return path.endswith("/stream") and "/runs/" in path

    async def info(self, request: Request) -> Response:
        """The server, as langgraph-api describes itself: its version and
        what it serves beyond threads and runs (its assistant; no crons)."""
        return JSONResponse(
            {"version": __version__, "flags": {"assistants": True, "crons": False, "langsmith": False}}
        )

    async def create_thread(self, request: Request) -> Response:
        """``POST /threads`` (``threads.create``): a thread, kept in the
        store (an empty stream, dated), so that it is found before its
        first run; the ``thread_id`` asked for, if any: one that exists is
        answered as it is with ``if_exists: "do_nothing"``, else refused."""
        try:
            body = await json_body(request, self._gateway.max_body_bytes) if await request.body() else {}
            if not isinstance(body, Mapping):
                raise RequestError("a thread is a JSON object")
            thread_id = body.get("thread_id") or str(uuid.uuid4())
            if not isinstance(thread_id, str):
                raise RequestError("thread_id must be a string")
            if body.get("if_exists") not in (None, "raise", "do_nothing"):
                raise RequestError(f"if_exists must be raise or do_nothing, not {body['if_exists']!r}")
            metadata = checked_metadata(body.get("metadata"))
            if body.get("supersteps"):
                raise RequestError("supersteps is not served: a thread's state is what its runs leave")
        except RequestError as exc:
            return detail(exc.status if exc.status != 400 else 422, str(exc))
        found = await self._found_thread(thread_id) if "thread_id" in body else None
        if found is not None:
            if body.get("if_exists") != "do_nothing":
                return detail(409, f"Thread {thread_id} already exists")
            return JSONResponse(found)
        return JSONResponse(new_thread(thread_id, await make(self._gateway.store, thread_id, metadata)))

    async def update_thread(self, request: Request) -> Response:
        """``PATCH /threads/{thread_id}`` (``threads.update``): the thread's
        metadata, merged with the one given (its keys over the thread's), as
        langgraph-api updates it; the thread, updated now (or, asked to
        answer minimally, ``204``)."""
        thread_id = request.path_params["thread_id"]
        try:
            body = await json_body(request, self._gateway.max_body_bytes)
            if not isinstance(body, Mapping):
                raise RequestError("a thread's update is a JSON object")
            metadata = checked_metadata(body.get("metadata"))
        except RequestError as exc:
            return detail(exc.status if exc.status != 400 else 422, str(exc))
        store = self._gateway.store
        before = await made(store, thread_id)
        if before is None:
            return detail(404, thread_not_found(thread_id))
        await make(store, thread_id, before.metadata | metadata, before.created_at)
        if request.headers.get("prefer") == "return=minimal":
            return Response(status_code=204)
        thread = await self._found_thread(thread_id)
        return detail(404, thread_not_found(thread_id)) if thread is None else JSONResponse(thread)

    async def stream_run(self, request: Request) -> Response:
        """``runs.stream``: the run streamed as it goes, recorded."""
        gateway = self._gateway
        resumed = gateway.resumed(request, "langgraph")
        if resumed is not None:
            return resumed
        asked = await self._asked(request)
        if isinstance(asked, Response):
            return asked
        queued = await self._queue(request, asked)
        if isinstance(queued, Response):
            return queued
        if queued is not None:  # (its response begins at once, its pings going while it waits)
            run_id, stream_id = queued
            abandoned = asyncio.Event() if asked.body.get("on_disconnect") == "cancel" else None
            frames = self._queued(request, asked, run_id, stream_id, streamed=True, abandoned=abandoned)
        else:
            started = await self._start(request, asked, streamed=True)
            if isinstance(started, Response):
                return started
            assert started is not None  # (only a queued run is cancelled before it starts)
            run_id, stream_id, frames, abandoned = (
                started.run_id,
                started.stream_id,
                started.frames,
                started.abandoned,
            )
        response = gateway.event_stream(
            frames, "langgraph", store=gateway.store, stream_id=stream_id, abandoned=abandoned
        )
        run_path = self._run_path(request, asked.thread_id, run_id)
        response.headers["Content-Location"] = run_path
        response.headers["Location"] = f"{run_path}/stream"
        return response

    async def create_run(self, request: Request) -> Response:
        """``runs.create``: the run goes on in the background, recorded; the
        answer is the run, ``pending``. On a thread busy with another run, it
        is named (``pending`` until it starts) and waits its turn there."""
        asked = await self._asked(request)
        if isinstance(asked, Response):
            return asked
        thread_id = asked.thread_id
        running = await self._in_background(request, asked)
        if isinstance(running, Response):
            return running
        run_id, stream_id, _ = running
        began = (await self._times(stream_id))[0] or now()
        return JSONResponse(
            run_record(thread_id, run_id, "pending", began, began),
            headers={"Content-Location": self._run_path(request, thread_id, run_id)},
        )

    async def _in_background(
        self, request: Request, asked: Asked
    ) -> tuple[str, str, Callable[[], object]] | Response:
        """The ``asked`` run, recorded in the background as it goes (on a busy
        thread, once its turn has come): its id, its stream, and what cancels
        it; or the error to answer."""
        store = self._gateway.store
        queued = await self._queue(request, asked)
        if isinstance(queued, Response):
            return queued
        if queued is not None:
            run_id, stream_id = queued
            recording(store, stream_id, self._queued(request, asked, run_id, stream_id))
            return run_id, stream_id, functools.partial(self._cancel_later, run_id, stream_id)
        started = await self._start(request, asked, streamed=False)
        if isinstance(started, Response):
            return started
        assert started is not None  # (only a queued run is cancelled before it starts)
        recording(store, started.stream_id, started.frames)
        return started.run_id, started.stream_id, started.cancel.set

    async def _queue(self, request: Request, asked: Asked) -> tuple[str, str] | Response | None:
        """A run asked for on a thread busy with another, or for later
        (``after_seconds``), named in the store at once (its id and stream:
        ``pending`` until its turn comes), as langgraph-api names a run it
        queues or schedules; refused for ``reject`` on a busy thread. None for
        a run to start now: on a thread not busy, or a stateless one."""
        thread_id, store = asked.thread_id, self._gateway.store
        busy = "thread_id" in request.path_params and await self._busy(thread_id)
        if not busy and not asked.after_seconds:
            return None
        if busy and asked.strategy == "reject":
            return detail(409, _THREAD_BUSY)
        run_id, stream_id = str(uuid.uuid4()), await store.open()
        await store.set_alias(RUN_ALIAS + run_id, stream_id)
        await store.set_alias(f"{THREAD_RUN_ALIAS}{thread_id}/{run_id}", stream_id)
        return run_id, stream_id

    async def _queued(
        self,
        request: Request,
        asked: Asked,
        run_id: str,
        stream_id: str,
        *,
        streamed: bool = False,
        abandoned: asyncio.Event | None = None,
    ) -> AsyncIterator[bytes]:
        """A run queued on a busy thread or scheduled for later, its frames
        once its turn has come: its metadata alone, if it was cancelled
        before (or, ``abandoned``, its client left); its error, if it could
        not start."""
        await self._scheduled(asked.after_seconds, stream_id, abandoned)
        started = await self._start(
            request, asked, streamed=streamed, queued=(run_id, stream_id), abandoned=abandoned
        )
        if isinstance(started, Response):
            reason = json.loads(bytes(started.body)).get("detail", "the run could not start")
            yield bytes(impl.encode_sse({"run_id": run_id, "attempt": 1}, event="metadata"))
            yield bytes(impl.encode_sse({"error": "RunError", "message": reason}, event="error"))
            return
        if started is None:
            yield bytes(impl.encode_sse({"run_id": run_id, "attempt": 1}, event="metadata"))
            return
        async for frame in started.frames:
            yield frame

    async def _scheduled(self, seconds: float, stream_id: str, abandoned: asyncio.Event | None) -> None:
        """Returns once ``seconds`` have passed, or sooner once the run
        (recorded as ``stream_id``) is cancelled or its client left: a run
        scheduled for later starts then, its cancel seen at once."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + seconds
        while (left := deadline - loop.time()) > 0:
            await asyncio.sleep(min(left, STOP_CHECK_EVERY))
            if (abandoned is not None and abandoned.is_set()) or await self._gateway.store.stop_requested(
                stream_id
            ):
                return

    async def _busy(self, thread_id: str) -> bool:
        """Whether a run goes on on the thread, or waits to start there."""
        if self._turns.taken(thread_id):
            return True
        store = self._gateway.store
        stream_id = await store.resolve_alias(THREAD_ALIAS + thread_id)
        try:
            return stream_id is not None and not await store.finished(stream_id)
        except ReplayError:
            return False  # (its last run is no longer kept)

    async def wait_run(self, request: Request) -> Response:
        """``runs.wait``: the run, recorded, answered with its result once it
        has ended. It goes on if its client leaves, unless the client asked
        otherwise (``on_disconnect: "cancel"``)."""
        asked = await self._asked(request)
        if isinstance(asked, Response):
            return asked
        # (on a busy thread, its answer begins within seconds, kept alive while it waits)
        running = await self._in_background(request, asked)
        if isinstance(running, Response):
            return running
        run_id, stream_id, on_leave = running
        run_path = f"/threads/{asked.thread_id}/runs/{run_id}"
        return await self._result_when_ended(
            stream_id,
            {"Content-Location": run_path, "Location": f"{run_path}/join"},
            on_leave=on_leave if asked.body.get("on_disconnect") == "cancel" else None,
        )

    def _cancel_later(self, run_id: str, stream_id: str) -> None:
        """Cancels a run, from a callback: waiting its turn, it never starts."""
        task = asyncio.ensure_future(self._cancels.cancel(run_id, stream_id))
        self._cancelling.add(task)
        task.add_done_callback(self._cancelling.discard)

    @staticmethod
    def _run_path(request: Request, thread_id: str, run_id: str) -> str:
        """The path naming the run, as langgraph-api's responses give it: a
        stateless run's has no thread."""
        if "thread_id" in request.path_params:
            return f"/threads/{thread_id}/runs/{run_id}"
        return f"/runs/{run_id}"

    async def _asked(self, request: Request) -> Asked | Response:
        """The request for a run, checked, on the thread the path names (a
        new one for a stateless run); or the error to answer."""
        thread_id = request.path_params.get("thread_id") or str(uuid.uuid4())
        try:
            return asked_run(await json_body(request, self._gateway.max_body_bytes), thread_id)
        except RequestError as exc:
            return detail(exc.status if exc.status != 400 else 422, str(exc))

    async def _start(
        self,
        request: Request,
        asked: Asked,
        *,
        streamed: bool,
        queued: tuple[str, str] | None = None,
        abandoned: asyncio.Event | None = None,
    ) -> _Started | Response | None:
        """The ``asked`` run of the agent, once the thread's run going on has
        ended (as its ``multitask_strategy`` says), started upstream and named
        in the store by its thread and its id; or the error to answer. A run
        ``queued`` (its id and stream, named already) that was cancelled
        before its turn came is not started (None). A streamed run asking to
        be cancelled when its client leaves (``on_disconnect: "cancel"``) is
        abandoned once nobody reads it for the gateway's abandoned timeout (a
        client that resumes in time keeps it); langgraph-api's runs otherwise
        go on when their client leaves (a queued one is given the event
        that says so, ``abandoned``, as its response began before it)."""
        async with self._turns.turn(asked.thread_id):
            return await self._start_in_turn(
                request, asked, streamed=streamed, queued=queued, abandoned=abandoned
            )

    async def _start_in_turn(
        self,
        request: Request,
        asked: Asked,
        *,
        streamed: bool,
        queued: tuple[str, str] | None,
        abandoned: asyncio.Event | None,
    ) -> _Started | Response | None:
        gateway, store = self._gateway, self._gateway.store
        thread_id, body = asked.thread_id, asked.body
        run_id = str(uuid.uuid4()) if queued is None else queued[0]
        claimed = await self._claim(asked, queued, abandoned)
        if not isinstance(claimed, tuple):
            return claimed
        stream_id, last_run = claimed
        before = messages_of(last_run)
        inputs = asked.inputs
        cancel_on_disconnect = body.get("on_disconnect") == "cancel"
        if abandoned is None and streamed and cancel_on_disconnect:
            abandoned = asyncio.Event()
        cancel = asyncio.Event()
        try:
            chunks = await gateway.start_run(
                asked.agent_request, request, abandoned=abandoned, cancelled=cancel
            )
        except BaseException as exc:  # (refused upstream, or the gateway stopping)
            await self._release(thread_id, stream_id, last_run, queued=queued is not None)
            if isinstance(exc, UpstreamError):
                return detail(exc.status, exc.message)
            raise
        modes, legacy = asked_modes(body)
        unsent_values, values_id = None, None
        try:
            if "values" not in modes:
                values_id = await store.open()
                await store.set_alias(VALUES_ALIAS + run_id, values_id)
                unsent_values = functools.partial(store.append, values_id)
            if last_run is None and await store.resolve_alias(THREAD_MADE_ALIAS + thread_id) is None:
                if asked.thread_metadata:
                    await make(store, thread_id, MADE_BY_A_RUN | asked.thread_metadata)
                else:  # (its record the run's stream, which dates it: no stream more)
                    await store.set_alias(THREAD_MADE_ALIAS + thread_id, stream_id)
            await store.set_alias(RUN_ALIAS + run_id, stream_id)
            await store.set_alias(f"{THREAD_RUN_ALIAS}{thread_id}/{run_id}", stream_id)
        except BaseException:
            await closed(chunks)  # the run started: it is ended, not left behind
            if values_id is not None:
                with contextlib.suppress(Exception):
                    await store.finish(values_id)
            await self._release(thread_id, stream_id, last_run, queued=queued is not None)
            raise
        converting = gateway.converted(chunks, "langgraph", run_id=run_id, node=NODE)
        cancelled_by = (cancel, abandoned)

        def cancelled() -> bool:
            return any(event is not None and event.is_set() for event in cancelled_by)

        frames = as_the_threads(
            converting,
            [*before, *inputs],
            modes,
            NODE,
            cancelled,
            legacy=LegacyMessages() if legacy else None,
            unsent_values=unsent_values,
            steps=Steps(
                modes,
                thread_id=thread_id,
                run_id=run_id,
                node=NODE,
                previous=before,
                previous_id=None if last_run is None else last_run.assembler.run_id,
            )
            if modes & STEP_MODES
            else None,
            callbacks=CallbackEvents(
                thread_id=thread_id, run_id=run_id, node=NODE, run_input=body.get("input")
            )
            if EVENTS_MODE in modes
            else None,
        )
        if values_id is not None:
            frames = _finishing(frames, store, values_id)
        frames = _cancel_recorded(frames, store, run_id, stream_id, cancelled)
        frames = self._cancels.watched(frames, stream_id, cancel, name=run_id)
        return _Started(thread_id, run_id, stream_id, frames, cancel, abandoned)

    async def _claim(
        self, asked: Asked, queued: tuple[str, str] | None, abandoned: asyncio.Event | None
    ) -> tuple[str, Recorded | None] | Response | None:
        """The thread taken for the ``asked`` run, once the run going on there
        has ended (as its ``multitask_strategy`` says): its stream (opened
        now, or the one it was ``queued`` with) named the thread's last run,
        and the run before it. Replicas sharing the store claim a thread
        one at a time (``compare_and_set_alias``): one that loses waits for
        the winner's run as for any run going on. The error to answer
        instead: refused (``reject``), or a checkpoint not the thread's
        last; None for a run ``queued`` that was cancelled (or, ``abandoned``,
        whose client left) before its turn came."""
        store, thread_id = self._gateway.store, asked.thread_id
        alias = THREAD_ALIAS + thread_id
        stream_id = None if queued is None else queued[1]

        async def refused(status: int, reason: str) -> Response:
            if queued is None and stream_id is not None:
                await store.finish(stream_id)  # (opened for a claim lost: no run's)
            return detail(status, reason)

        while True:
            resolved = await store.resolve_alias(alias)
            last_run = None if resolved is None else await self._recorded(resolved)
            if last_run is not None and not last_run.finished:
                if asked.strategy == "reject":
                    return await refused(409, _THREAD_BUSY)
                await self._after(last_run, cancelled=asked.strategy == "interrupt")
                continue
            if queued is not None and (
                (abandoned is not None and abandoned.is_set()) or await store.stop_requested(queued[1])
            ):
                await store.set_alias(CANCELLED_ALIAS + queued[0], queued[1])
                return None
            head = None if last_run is None else last_run.assembler.run_id
            if asked.checkpoint_id is not None and asked.checkpoint_id != head:
                return await refused(409, _not_the_head(asked.checkpoint_id, head))
            if stream_id is None:
                stream_id = await store.open()
            if await store.compare_and_set_alias(alias, stream_id, expected=resolved):
                if last_run is not None:
                    await store.set_alias(RUN_BEFORE_ALIAS + stream_id, last_run.stream_id)
                return stream_id, last_run
            # (another replica's run took the thread between the look and the claim: it goes first)

    async def _release(
        self, thread_id: str, stream_id: str, before: Recorded | None, *, queued: bool
    ) -> None:
        """The thread given back by a run that could not start (its claim,
        ``stream_id``): pointing at its run ``before`` again, or nowhere; the
        claim's stream ended, so that runs waiting on it go on (a ``queued``
        run's is ended by its recording, which says why). What the store
        fails at here is left be: the error that brought the run here is
        the one to raise."""
        store, alias = self._gateway.store, THREAD_ALIAS + thread_id
        given_back = False
        with contextlib.suppress(Exception):  # (ReplayError: the run before is no longer kept)
            given_back = before is not None and await store.compare_and_set_alias(
                alias, before.stream_id, expected=stream_id
            )
        with contextlib.suppress(Exception):
            if not given_back and await store.resolve_alias(alias) == stream_id:
                await store.delete_aliases([alias])
            await store.delete_aliases([RUN_BEFORE_ALIAS + stream_id])
        if not queued:
            with contextlib.suppress(Exception):
                await store.finish(stream_id)

    async def _after(self, running: Recorded, *, cancelled: bool) -> None:
        """Returns once the run ``running`` on a thread has ended (cancelled
        first, for ``multitask_strategy: "interrupt"``), on whichever replica
        sharing the store it runs: a run on a busy thread goes after it
        (``enqueue``), as langgraph-api runs one."""
        run_id = running.assembler.run_id
        if cancelled and run_id:
            with contextlib.suppress(ReplayError, NotImplementedError):
                await self._cancels.cancel(run_id, running.stream_id)
        with contextlib.suppress(ReplayError):  # (no longer kept: it is over)
            await follow(self._gateway.store, running.stream_id, lambda frame: None)

    async def join(self, request: Request) -> Response:
        gateway = self._gateway
        resumed = gateway.resumed(request, "langgraph")
        if resumed is not None:
            return resumed
        stream_id = await gateway.store.resolve_alias(RUN_ALIAS + request.path_params["run_id"])
        if stream_id is None:
            return detail(404, "Run not found")
        try:
            entries = await gateway.store.replay(stream_id, 0)
        except ReplayError as exc:
            return detail(410, str(exc))
        return gateway.event_stream(self._followed(stream_id, entries), "langgraph")

    async def cancel(self, request: Request) -> Response:
        """``runs.cancel``: a running run is cancelled upstream, here or
        through the store on the replica it runs on (a run that has ended
        is left as it ended); ``202``, or with ``wait=true`` the thread's
        values once the run has ended, as langgraph-api answers."""
        gateway, run_id = self._gateway, request.path_params["run_id"]
        store = gateway.store
        stream_id = await store.resolve_alias(RUN_ALIAS + run_id)
        if stream_id is None:
            return detail(404, _NOTHING_TO_CANCEL)
        try:
            if not await self._cancels.cancel(run_id, stream_id):
                return detail(404, _NOTHING_TO_CANCEL)  # it has ended
        except ReplayError:
            return detail(404, _NOTHING_TO_CANCEL)
        except NotImplementedError:
            return detail(
                409, "the run goes on at another replica, and the store carries no request to stop it"
            )
        if request.query_params.get("wait", "false").lower() not in ("true", "yes", "1"):
            return Response(status_code=202)
        thread_id = request.path_params["thread_id"]
        run_path = f"/threads/{thread_id}/runs/{run_id}"
        return await self._result_when_ended(
            stream_id, {"Content-Location": run_path, "Location": f"{run_path}/join"}
        )

    async def get_run(self, request: Request) -> Response:
        """``runs.get``: the run, as langgraph-api gives one."""
        thread_id, run_id = request.path_params["thread_id"], request.path_params["run_id"]
        stream_id = await self._gateway.store.resolve_alias(f"{THREAD_RUN_ALIAS}{thread_id}/{run_id}")
        run = None if stream_id is None else await self._run(thread_id, run_id, stream_id)
        return detail(404, "Run not found") if run is None else JSONResponse(run)

    async def delete_run(self, request: Request) -> Response:
        """``DELETE /threads/{thread_id}/runs/{run_id}`` (``runs.delete``):
        the run forgotten (cancelled first if it goes on), and what it wrote
        to the thread with it, as langgraph-api deletes a run's checkpoints:
        the thread's state is its run before, if any; ``204``."""
        thread_id, run_id = request.path_params["thread_id"], request.path_params["run_id"]
        store = self._gateway.store
        prefix = f"{THREAD_RUN_ALIAS}{thread_id}/"
        stream_id = await store.resolve_alias(prefix + run_id)
        if stream_id is None:
            return detail(404, "Run not found")
        recorded = await self._recorded(stream_id)
        if recorded is not None and not recorded.finished:
            await self._after(recorded, cancelled=True)
        try:
            before = await store.resolve_alias(RUN_BEFORE_ALIAS + stream_id)
            await store.delete_aliases(
                [
                    prefix + run_id,
                    RUN_ALIAS + run_id,
                    CANCELLED_ALIAS + run_id,
                    VALUES_ALIAS + run_id,
                    RUN_BEFORE_ALIAS + stream_id,
                ]
            )
            # The run after it, if any, goes on from its run before, and so
            # does the thread, if it was the thread's last.
            for alias, went_on_from in await store.aliases(RUN_BEFORE_ALIAS):
                if went_on_from == stream_id:
                    await self._point(alias, before)
            if await store.resolve_alias(THREAD_ALIAS + thread_id) == stream_id:
                await self._point(THREAD_ALIAS + thread_id, before)
        except NotImplementedError:
            return detail(501, "the gateway's replay store cannot delete what it keeps")
        return Response(status_code=204)

    async def _point(self, alias: str, stream_id: str | None) -> None:
        """Points ``alias`` at a stream, or nowhere."""
        store = self._gateway.store
        if stream_id is None:
            await store.delete_aliases([alias])
        else:
            await store.set_alias(alias, stream_id)

    async def list_runs(self, request: Request) -> Response:
        """``runs.list``: the thread's runs the store keeps, the latest
        first, paged (``limit``, ``offset``) and filtered by ``status``."""
        thread_id, query = request.path_params["thread_id"], request.query_params
        try:
            limit = checked_count(integer(query.get("limit", "10"), "limit"), "limit", 1, 1000)
            offset = checked_count(integer(query.get("offset", "0"), "offset"), "offset", 0, None)
        except RequestError as exc:
            return detail(422, str(exc))
        status = query.get("status")
        if status is not None and status not in RUN_STATUSES:
            return detail(422, f"status must be one of {', '.join(RUN_STATUSES)}, not {status!r}")
        prefix = f"{THREAD_RUN_ALIAS}{thread_id}/"
        kept = await self._gateway.store.aliases(prefix)
        if status is None:
            kept = kept[offset : offset + limit]  # only the page's runs are read
        runs = []
        for alias, stream_id in kept:
            run = await self._run(thread_id, alias.removeprefix(prefix), stream_id)
            if run is not None and (status is None or run["status"] == status):
                runs.append(run)
        return JSONResponse(runs if status is None else runs[offset : offset + limit])

    async def join_run(self, request: Request) -> Response:
        """``runs.join``: the run's result once it has ended."""
        thread_id, run_id = request.path_params["thread_id"], request.path_params["run_id"]
        store = self._gateway.store
        stream_id = await store.resolve_alias(f"{THREAD_RUN_ALIAS}{thread_id}/{run_id}")
        if stream_id is None:
            return detail(404, "Run not found")
        run_path = f"/threads/{thread_id}/runs/{run_id}"
        return await self._result_when_ended(
            stream_id, {"Content-Location": run_path, "Location": f"{run_path}/join"}
        )

    async def _result_when_ended(
        self, stream_id: str, headers: Mapping[str, str], on_leave: Callable[[], object] | None = None
    ) -> Response:
        """The answer holding the run's result once it has ended: whole, if
        it ends within ``_KEEP_ALIVE`` seconds (or is not found); else begun
        at once, a line of whitespace written every ``_KEEP_ALIVE`` seconds
        until the result. ``on_leave`` is called if the client leaves before it."""
        assembler = impl.LangGraphAssembler(on_error="skip")
        following = asyncio.ensure_future(follow(self._gateway.store, stream_id, assembler.feed))
        try:
            done, _ = await asyncio.wait({following}, timeout=_KEEP_ALIVE)
        except BaseException:
            await _abandoned(following, on_leave)
            raise
        if done:
            try:
                following.result()
            except ReplayError:
                return detail(404, "Run not found")
            return JSONResponse(await self._result(assembler), headers=dict(headers))
        return StreamingResponse(
            _kept_alive(following, functools.partial(self._result, assembler), on_leave),
            media_type="application/json",
            headers=dict(headers),
        )

    async def _run(self, thread_id: str, run_id: str, stream_id: str) -> dict[str, Any] | None:
        """The run as langgraph-api gives one, from its stream in the store
        (None for one no longer kept)."""
        recorded = await self._recorded(stream_id)
        if recorded is None:
            return None
        assembler = recorded.assembler
        if not recorded.finished:
            status = "running" if assembler.run_id else "pending"  # (queued: not started yet)
        elif assembler.error:
            status = "error"
        elif assembler.interrupts or recorded.cancelled:
            status = "interrupted"  # (langgraph-api's word for a cancelled run too)
        else:
            status = "success"
        return run_record(thread_id, run_id, status, recorded.created_at, recorded.updated_at)

    @staticmethod
    async def _followed(stream_id: str, entries: AsyncIterator[tuple[int, bytes]]) -> AsyncIterator[bytes]:
        """The run's events from its start, each with the id a resume takes."""
        try:
            async for number, frame in entries:
                yield f"id: langgraph.{stream_id}:{number}\n".encode() + frame
        finally:
            await closed(entries)

    async def state(self, request: Request) -> Response:
        """``GET /threads/{thread_id}/state``: the thread's state after its
        last run (empty before any)."""
        thread_id = request.path_params["thread_id"]
        last_run = await self._last_run(thread_id)
        if last_run is not None:
            return JSONResponse(state_record(thread_id, last_run))
        if await made(self._gateway.store, thread_id) is None:
            return detail(404, thread_not_found(thread_id))
        return JSONResponse(NO_STATE)

    async def history(self, request: Request) -> Response:
        """``POST /threads/{thread_id}/history`` (or ``GET``, asked in its
        query): the thread's states, the latest first (what useStream
        fetches), from before a checkpoint if asked, those the metadata
        filter holds for, up to the limit (``_history``)."""
        thread_id = request.path_params["thread_id"]
        try:
            if request.method == "GET":
                asked = History(dict(request.query_params))
            else:
                body = await json_body(request, self._gateway.max_body_bytes) if await request.body() else {}
                asked = History(body)
        except RequestError as exc:
            return detail(exc.status if exc.status != 400 else 422, str(exc))
        if asked.subgraph:
            return JSONResponse([])
        found: list[dict[str, Any]] = []
        before = asked.before
        async for state in self._states(thread_id):
            if before is not None:
                before = None if state["checkpoint_id"] == before else before
                continue
            if asked.wants(state):
                found.append(state)
                if len(found) == asked.limit:
                    break
        return JSONResponse(found)

    async def update_state(self, request: Request) -> Response:
        """``POST /threads/{thread_id}/state`` (``threads.update_state``):
        not served, saying why."""
        return await self._not_served(
            request,
            "update_state is not served: a thread's state is what its runs leave (the agent's session)",
        )

    async def copy_thread(self, request: Request) -> Response:
        """``POST /threads/{thread_id}/copy`` (``threads.copy``): not served,
        saying why."""
        return await self._not_served(
            request,
            "threads.copy is not served: the agent keeps the thread's session, which the gateway cannot copy",
        )

    async def _not_served(self, request: Request, reason: str) -> Response:
        """``501``, saying ``reason``, for a thread the store keeps; ``404``
        for another."""
        thread_id = request.path_params["thread_id"]
        if await self._found_thread(thread_id) is None:
            return detail(404, thread_not_found(thread_id))
        return detail(501, reason)

    async def state_at_checkpoint(self, request: Request) -> Response:
        """``GET /threads/{thread_id}/state/{checkpoint_id}`` (or ``POST
        .../state/checkpoint``, naming it in ``checkpoint``): the thread's
        state at that checkpoint, one of its history's (``threads.get_state``
        given one). A checkpoint the thread does not have is answered empty,
        as langgraph-api answers it."""
        thread_id = request.path_params["thread_id"]
        checkpoint_id = request.path_params.get("checkpoint_id")
        if checkpoint_id is None:
            try:
                body = await json_body(request, self._gateway.max_body_bytes)
                checkpoint = body.get("checkpoint") if isinstance(body, Mapping) else None
                checkpoint_id = checkpoint.get("checkpoint_id") if isinstance(checkpoint, Mapping) else None
                if not isinstance(checkpoint_id, str):
                    raise RequestError("checkpoint must name a checkpoint_id")
            except RequestError as exc:
                return detail(exc.status if exc.status != 400 else 422, str(exc))
        async for state in self._states(thread_id):
            if state["checkpoint_id"] == checkpoint_id:
                return JSONResponse(state)
        if await made(self._gateway.store, thread_id) is None and await self._last_run(thread_id) is None:
            return detail(404, thread_not_found(thread_id))
        named = {"checkpoint_id": checkpoint_id, "thread_id": thread_id}
        return JSONResponse(NO_STATE | {"checkpoint": named})

    async def _states(self, thread_id: str) -> AsyncIterator[dict[str, Any]]:
        """The thread's states, the latest first: its runs' checkpoints, from
        the run its last checkpoint names back, each run read once it is
        reached (and the one before it, whose end its input follows)."""
        head = await self._gateway.store.resolve_alias(THREAD_ALIAS + thread_id)
        runs = self._runs_back_from(head)
        run = await anext(runs, None)
        while run is not None:
            previous = await anext(runs, None)
            previous_id = None if previous is None else previous.assembler.run_id
            for state in run_states(thread_id, run, previous_id, messages_of(previous)):
                yield state
            run = previous

    async def _runs_back_from(self, stream_id: str | None) -> AsyncIterator[Recorded]:
        """The runs that started, from the one of ``stream_id`` back, each
        the one the run after went on from, while the store keeps them."""
        seen: set[str] = set()
        while stream_id is not None and stream_id not in seen:
            seen.add(stream_id)
            run = await self._recorded(stream_id)
            if run is None:
                return
            if run.started_values is not None:  # (claimed, it has not started yet)
                yield run
            stream_id = await self._gateway.store.resolve_alias(RUN_BEFORE_ALIAS + stream_id)

    async def thread(self, request: Request) -> Response:
        """``GET /threads/{thread_id}``: the thread, its values its last
        run's (none before any)."""
        thread_id = request.path_params["thread_id"]
        thread = await self._found_thread(thread_id)
        return detail(404, thread_not_found(thread_id)) if thread is None else JSONResponse(thread)

    async def _found_thread(self, thread_id: str) -> dict[str, Any] | None:
        """The thread, from its last run or, before any, from when it was
        made (None for a thread the store does not keep)."""
        stream_id = await self._gateway.store.resolve_alias(THREAD_ALIAS + thread_id)
        thread = None if stream_id is None else await self._thread(thread_id, stream_id)
        if thread is None:
            record = await made(self._gateway.store, thread_id)
            thread = None if record is None else new_thread(thread_id, record)
        return thread

    async def delete_thread(self, request: Request) -> Response:
        """``DELETE /threads/{thread_id}`` (``threads.delete``): the thread
        and its runs are forgotten (a run going on is cancelled first), as
        langgraph-api deletes them; ``204``."""
        thread_id = request.path_params["thread_id"]
        store = self._gateway.store
        runs = await store.aliases(f"{THREAD_RUN_ALIAS}{thread_id}/")
        if await self._gateway.store.resolve_alias(THREAD_MADE_ALIAS + thread_id) is None and not runs:
            return detail(404, thread_not_found(thread_id))
        forgotten = [THREAD_ALIAS + thread_id, THREAD_MADE_ALIAS + thread_id]
        for alias, stream_id in runs:
            run_id = alias.rpartition("/")[2]
            with contextlib.suppress(ReplayError, NotImplementedError):
                await self._cancels.cancel(run_id, stream_id)  # (False for a run that has ended)
            forgotten += [alias, RUN_ALIAS + run_id, CANCELLED_ALIAS + run_id, VALUES_ALIAS + run_id]
            forgotten.append(RUN_BEFORE_ALIAS + stream_id)
        try:
            await store.delete_aliases(forgotten)
        except NotImplementedError:
            return detail(501, "the gateway's replay store cannot delete what it keeps")
        return Response(status_code=204)

    async def search_threads(self, request: Request) -> Response:
        """``POST /threads/search`` (``threads.search``, a frontend's thread
        list): the threads the store keeps, those with runs and those made
        with none yet, the last updated first, those the filters hold for.
        Any assistant is the agent, so a ``graph_id`` or ``assistant_id`` in
        the ``metadata`` filter holds for every thread."""
        try:
            search = ThreadSearch(await json_body(request, self._gateway.max_body_bytes))
        except RequestError as exc:
            return detail(exc.status if exc.status != 400 else 422, str(exc))
        return JSONResponse(search.page(await self._threads(search, paged=True)))

    async def count_threads(self, request: Request) -> Response:
        """``POST /threads/count`` (``threads.count``): how many threads the
        filters of a search hold for."""
        try:
            search = ThreadSearch(await json_body(request, self._gateway.max_body_bytes))
        except RequestError as exc:
            return detail(exc.status if exc.status != 400 else 422, str(exc))
        return JSONResponse(len(await self._threads(search, paged=False)))

    async def _threads(self, search: ThreadSearch, *, paged: bool) -> list[dict[str, Any]]:
        """The threads the store keeps that ``search`` holds for; when
        ``paged``, those up to its page's end in the store's order, where
        that is its order."""
        store = self._gateway.store
        with_runs = await store.aliases(THREAD_ALIAS)
        threads = []
        # Those made with no run yet (few, and cheap to read: their records).
        ran = {alias.removeprefix(THREAD_ALIAS) for alias, _ in with_runs}
        for alias, _ in await store.aliases(THREAD_MADE_ALIAS):
            thread_id = alias.removeprefix(THREAD_MADE_ALIAS)
            if thread_id in ran or not search.wants(thread_id):
                continue
            record = await made(store, thread_id)
            if record is not None and search.matches(thread := new_thread(thread_id, record)):
                threads.append(thread)
        found = 0
        for alias, stream_id in with_runs:
            thread_id = alias.removeprefix(THREAD_ALIAS)
            if not search.wants(thread_id):
                continue
            found_thread = await self._thread(thread_id, stream_id)
            if found_thread is None:
                continue  # (its run is no longer kept)
            if search.matches(found_thread):
                threads.append(found_thread)
                found += 1
            if paged and search.store_order and found >= search.offset + search.limit:
                break  # the page is found among them: no more are read
        return threads

    async def _thread(self, thread_id: str, stream_id: str) -> dict[str, Any] | None:
        """The thread, from its last run's stream (None for one no longer
        kept) and its own record."""
        last_run = await self._recorded(stream_id)
        if last_run is None:
            return None
        return thread_record(thread_id, last_run, await made(self._gateway.store, thread_id))

    async def _last_run(self, thread_id: str) -> Recorded | None:
        """The thread's last run, as the store holds it (None without one)."""
        stream_id = await self._gateway.store.resolve_alias(THREAD_ALIAS + thread_id)
        return None if stream_id is None else await self._recorded(stream_id)

    async def _recorded(self, stream_id: str) -> Recorded | None:
        """A run as the store holds it (None for one no longer kept)."""
        try:
            entries, finished = await self._gateway.store.stored(stream_id)
        except ReplayError:
            return None
        assembler = impl.LangGraphAssembler(on_error="skip")
        started = None
        for _, frame in entries:
            assembler.feed(frame)
            if started is None and _VALUES_EVENT in frame:
                started = frame
        kept = await self._unsent_values(assembler)
        run_id = assembler.run_id
        cancelled = (
            finished
            and bool(run_id)
            and await self._gateway.store.resolve_alias(CANCELLED_ALIAS + run_id) is not None
        )
        created_at, updated_at = await self._times(stream_id)
        return Recorded(
            stream_id,
            assembler,
            finished,
            cancelled,
            created_at or now(),
            updated_at or created_at or now(),
            _first_values(started or kept),
        )

    async def _times(self, stream_id: str) -> tuple[str | None, str | None]:
        """When a run began and last changed (ended, or began while it
        runs), from the store; None for what the store does not know."""
        try:
            opened, ended = await self._gateway.store.times(stream_id)
        except (ReplayError, NotImplementedError):  # (a store may keep no times)
            return None, None
        began = None if opened is None else dated(opened)
        return began, dated(ended) if ended is not None else began

    async def _unsent_values(self, assembler: Any) -> bytes | None:
        """Feeds a run's ``assembler`` the values it kept apart, if it
        streamed none; gives the first frame of them (the values as the run
        started)."""
        if assembler.values is not None or not assembler.run_id:
            return None
        store = self._gateway.store
        values_id = await store.resolve_alias(VALUES_ALIAS + assembler.run_id)
        if values_id is None:
            return None
        try:
            kept, _ = await store.stored(values_id)
        except ReplayError:
            return None
        for _, frame in kept:
            assembler.feed(frame)
        return kept[0][1] if kept else None

    async def _result(self, assembler: Any) -> dict[str, Any]:
        """The result of a run that has ended, from its ``assembler``."""
        await self._unsent_values(assembler)
        return run_result(assembler)


async def _cancel_recorded(
    frames: AsyncIterator[bytes],
    store: Any,
    run_id: str,
    stream_id: str,
    cancelled: Callable[[], bool],
) -> AsyncIterator[bytes]:
    """The run's ``frames``; once they end, a run that was ``cancelled`` (by
    a client's cancel, here or through the store, or because its client left)
    is named so in the store, before its stream is: its stream ends as any
    run's does, and ``runs.get`` says ``interrupted``, as langgraph-api does."""
    async for frame in frames:
        yield frame
    if cancelled():
        await store.set_alias(CANCELLED_ALIAS + run_id, stream_id)


async def _finishing(frames: AsyncIterator[bytes], store: Any, stream_id: str) -> AsyncIterator[bytes]:
    """The run's ``frames``; once they end, however they end, the stream
    beside them (``stream_id``: the values a run not streaming them keeps)
    is finished, so that the store forgets it in its time."""
    try:
        async for frame in frames:
            yield frame
    finally:
        await closed(frames)
        with contextlib.suppress(Exception):  # (what ended the run is the error to raise)
            await store.finish(stream_id)


async def _abandoned(following: asyncio.Future[None], on_leave: Callable[[], object] | None) -> None:
    """A wait for a run's end its client left: the reading stopped, and
    ``on_leave`` called if the run had not ended."""
    if following.done():
        return
    following.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await following
    if on_leave is not None:
        on_leave()


async def _kept_alive(
    following: asyncio.Future[None],
    result_of_run: Callable[[], Awaitable[dict[str, Any]]],
    on_leave: Callable[[], object] | None,
) -> AsyncIterator[bytes]:
    """Whitespace every ``_KEEP_ALIVE`` seconds until the run has ended,
    then its result (or, if the store stopped keeping the run midway, an
    ``__error__`` saying so)."""
    try:
        while not (await asyncio.wait({following}, timeout=_KEEP_ALIVE))[0]:
            yield b"\n"
        try:
            following.result()
            result = await result_of_run()
        except ReplayError as exc:
            result = {"__error__": {"error": "ReplayError", "message": str(exc)}}
        yield bytes(JSONResponse(result).body)
    finally:
        await _abandoned(following, on_leave)
