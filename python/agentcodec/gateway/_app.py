"""The gateway: one agent upstream (an AgentScope ``/process`` server, or
the demo agent), served downstream as every protocol whose package has a
``gateway`` module (those an AgentApp serves, and more), converted as it
streams and resumable from a replay store.

Routes (``POST`` with JSON bodies, but where said):

- ``/process``: the Agent API, passed through as the upstream writes it;
- the routes of each protocol whose package has a ``gateway`` module, its
  ``Endpoint`` (``_endpoints.py``): the protocol's requests in, the run
  converted to the protocol out, and whatever else its server side serves;
- ``GET /health`` and ``GET /metrics``.

A dropped client resends its request with ``Last-Event-ID`` and gets the
rest of its stream from the store, from whichever replica it reaches when the
store is shared (``RedisReplayStore``).
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
from collections.abc import AsyncIterator, Iterable, Mapping
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Match, Route

from .. import _protocols
from .._backend import impl
from ..events import ProtocolName
from ..server import EventStreamResponse, MemoryReplayStore, ReplayStore
from ..server._closing import closed
from ..server._response import finish_recording
from ._access import Exchange
from ._body import DEFAULT_MAX_BODY_BYTES, json_body
from ._cancels import StopWatch
from ._demo import DemoAgent
from ._endpoints import HeaderRoute, endpoints, error_response
from ._metrics import CONTENT_TYPE, Metrics
from ._requests import RequestError, agent_request_from_process
from ._streams import converted, passed_through
from ._timeouts import (
    GatewayStoppingError,
    RunAbandonedError,
    RunCancelledError,
    RunStoppedError,
    Timeouts,
    UpstreamTimeoutError,
    paced,
    within,
)
from ._upstream import ProcessUpstream, Upstream, UpstreamError

__all__ = ["Gateway"]

# The headers an API key may come in beside ``Authorization: Bearer``: the
# gateway's own, and the one Google's clients send theirs in.
_KEY_HEADERS = ("x-api-key", "x-goog-api-key")

logger = logging.getLogger("agentcodec.gateway")


# Where a request's API key (its place in api_keys) is kept in its ASGI scope.
_KEY = "agentcodec.api_key"


class Gateway:
    """An ASGI app serving one agent as every protocol with a gateway endpoint.

    ``upstream`` is the URL of an AgentScope Agent API server (its
    ``/process``, or its base URL), an ``Upstream`` object, or None for
    the built-in demo agent. ``store`` keeps every stream for
    ``Last-Event-ID`` resume (a ``MemoryReplayStore`` by default; share a
    ``RedisReplayStore`` between replicas). ``ping_interval`` is how often
    a quiet stream gets a keep-alive comment. ``max_runs`` bounds the runs
    going on at once, ``max_runs_per_key`` those of one API key; past
    either, a request is answered ``429``. ``timeouts`` bound how long
    the upstream may take (to connect, to its first event, between events,
    for the whole run) and how long a client may take a write
    (``Timeouts``); a stalled run ends as failed in the client's protocol.
    The LangChain endpoint keeps each thread's latest run as a store alias
    (bounded as the store bounds them).

    Run it with any ASGI server (``uvicorn.run(Gateway(url))``), mount it in
    a Starlette or FastAPI app, or start it with ``agentcodec gateway``.
    """

    def __init__(
        self,
        upstream: Upstream | str | None = None,
        *,
        store: ReplayStore | None = None,
        ping_interval: float | None = 15.0,
        api_keys: Iterable[str] | None = None,
        cors_origins: Iterable[str] | None = None,
        max_body_bytes: int | None = DEFAULT_MAX_BODY_BYTES,
        timeouts: Timeouts | None = None,
        max_runs: int | None = None,
        max_runs_per_key: int | None = None,
    ) -> None:
        if max_body_bytes is not None and (
            isinstance(max_body_bytes, bool) or not isinstance(max_body_bytes, int) or max_body_bytes < 1
        ):
            raise ValueError(f"max_body_bytes must be a positive int or None, not {max_body_bytes!r}")
        self.max_body_bytes = max_body_bytes
        for name, limit in (("max_runs", max_runs), ("max_runs_per_key", max_runs_per_key)):
            if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
                raise ValueError(f"{name} must be a positive int or None, not {limit!r}")
        self.max_runs = max_runs
        self.max_runs_per_key = max_runs_per_key
        keys = list(api_keys or ())
        if not all(isinstance(key, str) and key for key in keys):
            raise ValueError("an API key is a non-empty str")
        self._api_keys = [key.encode() for key in keys]
        self.timeouts = timeouts if timeouts is not None else Timeouts()
        if not isinstance(self.timeouts, Timeouts):
            raise TypeError(f"timeouts must be a Timeouts, not {type(timeouts).__name__}")
        if upstream is None:
            upstream = DemoAgent()
        elif isinstance(upstream, str):
            # The gateway's timeouts watch the run; the connection's own is the connect one.
            upstream = ProcessUpstream(upstream, timeout=None, connect_timeout=self.timeouts.connect)
        self.upstream: Upstream = upstream
        self.store: ReplayStore = store if store is not None else MemoryReplayStore()
        self._stop_watch = StopWatch(self.store)
        self.ping_interval = ping_interval
        self._stopping: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._runs = 0  # runs going on: their upstream streams not yet ended
        self._runs_by_key: dict[int, int] = {}  # the same, by the API key's place in api_keys
        self.metrics = Metrics(lambda: self._runs)
        self._endpoints = endpoints(self)
        # What answers without an API key.
        self._public_paths = frozenset({"/health"}).union(
            *(endpoint.public_paths for endpoint in self._endpoints.values())
        )
        # Each protocol's routes, to word a refusal at them as that API does;
        # those told by a header first, so that a path two APIs read goes to
        # the one whose client asks and else to the plain route (a stable sort).
        self._routes_of = sorted(
            (
                (protocol, route)
                for protocol, endpoint in self._endpoints.items()
                for route in endpoint.routes()
            ),
            key=lambda served: not isinstance(served[1], HeaderRoute),
        )
        routes = [
            Route("/process", self._process, methods=["POST"]),
            *(route for _, route in self._routes_of),
            Route("/health", self._health, methods=["GET"]),
            Route("/metrics", self._metrics, methods=["GET"]),
        ]
        middleware = []
        origins = list(cors_origins or ())
        if origins:
            # Browser clients (a protocol's frontend, an API's SDK) on these
            # origins; a preflight is answered before any key is asked for.
            # Any request header is let in, for the origin is the guard: an
            # API's SDK sends headers of its own with every request (its
            # platform's, its API's version, its client's name), and a
            # preflight refused for one of them fails the page's every call.
            middleware.append(
                Middleware(
                    CORSMiddleware, allow_origins=origins, allow_methods=["GET", "POST"], allow_headers=["*"]
                )
            )
        self._app = Starlette(routes=routes, middleware=middleware, lifespan=self._lifespan)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        exchange = Exchange(scope, self._stream_protocol(scope.get("path", "")), self.metrics)
        try:
            await self._serve(scope, receive, exchange.observe(send))
        finally:
            exchange.ended()

    async def _serve(self, scope: Any, receive: Any, send: Any) -> None:
        # A preflight carries no key; the health check and what clients
        # read before they call (an endpoint's public paths) need none.
        guarded = scope.get("path") not in self._public_paths and scope.get("method") != "OPTIONS"
        key = self._authorized(scope) if self._api_keys and guarded else None
        if self._api_keys and guarded and key is None:
            response = error_response(
                401,
                "unauthorized",
                "an API key is needed: Authorization: Bearer <key>, or X-Api-Key: <key>",
                self._protocol_served(scope),
            )
            response.headers["www-authenticate"] = "Bearer"
            await response(scope, receive, send)
            return
        if key is not None:
            # (Not in scope["state"]: servers may share that dict between requests.)
            scope[_KEY] = key
        await self._app(scope, receive, send)

    def _protocol_served(self, scope: Any) -> str | None:
        """The protocol whose endpoint answers the request, if one does: as
        the router picks, a route that matches the path and the method before
        one that matches the path alone (``/v1/models/{model}``, a listing
        read by GET, is also the start of a ``POST`` of another API's)."""
        partial = None
        for protocol, route in self._routes_of:
            match = route.matches(scope)[0]
            if match == Match.FULL:
                return protocol
            if match == Match.PARTIAL and partial is None:
                partial = protocol
        return partial

    def _stream_protocol(self, path: str) -> str | None:
        """The protocol a request to ``path`` streams, if it streams one."""
        if path == "/process":
            return "agentscope"
        for protocol, endpoint in self._endpoints.items():
            if endpoint.streams(path):
                return protocol
        return None

    @property
    def requires_api_key(self) -> bool:
        """Whether requests need an API key (``api_keys`` were given)."""
        return bool(self._api_keys)

    def _authorized(self, scope: Any) -> int | None:
        """Which of the keys the request carries (its place in ``api_keys``),
        compared in constant time (every key is compared, whichever matches)."""
        given: list[bytes] = []
        for raw_name, raw_value in scope.get("headers", ()):
            name, value = bytes(raw_name).lower(), bytes(raw_value)
            if name == b"authorization" and value[:7].lower() == b"bearer ":
                given.append(value[7:].strip())
            elif name.decode("latin-1") in _KEY_HEADERS:
                given.append(value.strip())
        found = None
        for candidate in given:
            for place, key in enumerate(self._api_keys):
                if hmac.compare_digest(candidate, key) and found is None:
                    found = place
        return found

    def _upstream_headers(self, request: Request) -> Mapping[str, str]:
        """The client's headers as the upstream may see them: without the
        gateway's own key."""
        if not self._api_keys:
            return request.headers
        return {
            name: value
            for name, value in request.headers.items()
            if name.lower() != "authorization" and name.lower() not in _KEY_HEADERS
        }

    async def start_run(
        self,
        agent_request: dict[str, Any],
        request: Request,
        *,
        cancelled: asyncio.Event | None = None,
        abandoned: asyncio.Event | None = None,
    ) -> AsyncIterator[bytes]:
        """Starts a run of ``agent_request`` upstream, with the client's
        headers as the upstream may see them, and gives its Agent API
        stream, held to the timeouts; setting ``cancelled`` ends it as
        cancelled, and ``abandoned`` (see ``event_stream``) as cancelled
        for want of a reader. Raises ``UpstreamError`` when the run does not
        start (504 when the upstream took too long to answer)."""
        key = request.scope.get(_KEY)
        try:
            self._admit(key)
        except UpstreamError:
            self.metrics.runs_refused["too_many_runs"] += 1
            raise
        timeouts = self.timeouts
        started = asyncio.get_running_loop().time()
        waits = [limit for limit in (timeouts.first_byte, timeouts.run) if limit is not None]
        limit = min(waits) if waits else None
        message = f"the agent did not answer within {limit:g} s" if limit is not None else ""
        try:
            chunks = await within(
                self.upstream.stream(agent_request, self._upstream_headers(request)), limit, message
            )
        except UpstreamTimeoutError as exc:
            self._ended(key)
            self.metrics.runs_refused["timeout"] += 1
            logger.warning("%s", exc)
            raise UpstreamError(504, str(exc)) from None
        except BaseException as exc:
            self._ended(key)
            if isinstance(exc, UpstreamError):
                self.metrics.runs_refused["upstream"] += 1
            raise
        self.metrics.runs_started += 1
        stopping = self._stopping_event()
        paced_chunks = paced(chunks, timeouts, started, stopping, cancelled=cancelled, abandoned=abandoned)
        return self._counted(paced_chunks, key)

    def _admit(self, key: int | None) -> None:
        """Counts a run among those going on (and its key's), or refuses it
        past ``max_runs`` or ``max_runs_per_key``: counted from its request,
        so that requests waiting for the upstream's answer count too."""
        if self.max_runs is not None and self._runs >= self.max_runs:
            raise UpstreamError(429, f"too many runs going on: {self.max_runs} at most", "too_many_runs")
        by_key = self._runs_by_key.get(key, 0) if key is not None else 0
        if self.max_runs_per_key is not None and key is not None and by_key >= self.max_runs_per_key:
            raise UpstreamError(
                429, f"too many runs going on for this key: {self.max_runs_per_key} at most", "too_many_runs"
            )
        self._runs += 1
        if key is not None:
            self._runs_by_key[key] = by_key + 1

    def _ended(self, key: int | None) -> None:
        self._runs -= 1
        if key is not None:
            self._runs_by_key[key] -= 1

    def _stopping_event(self) -> asyncio.Event:
        """Set when the gateway stops: its runs end. Made in the loop that serves."""
        if self._stopping is None:
            self._loop = asyncio.get_running_loop()
            self._stopping = asyncio.Event()
        return self._stopping

    async def _counted(self, content: AsyncIterator[bytes], key: int | None) -> AsyncIterator[bytes]:
        """``content``, counted among the runs going on (and its key's) until it ends."""
        try:
            async for chunk in content:
                yield chunk
        except Exception as exc:
            self.metrics.runs_failed[_failure_reason(exc)] += 1
            raise
        finally:
            self._ended(key)
            await closed(content)

    def request_stop(self) -> None:
        """Ends every run going on, now: each ends with its protocol's error
        event, recorded in the store as ended, so that a client resuming on
        another replica gets that end at once. Safe to call from a signal
        handler or another thread; ``agentcodec gateway`` calls it on
        SIGTERM and SIGINT, before the server waits for its connections."""
        if self._stopping is None or self._loop is None:
            return  # no run was ever started
        self._loop.call_soon_threadsafe(self._stopping.set)

    async def drain(self, timeout: float = 5.0) -> None:
        """``request_stop``, then waits up to ``timeout`` seconds for the
        runs to end and their streams to be recorded as ended."""
        if self._stopping is None:
            return
        self._stopping.set()
        # (Runs counted but still waiting for the upstream's answer end with it.)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while self._runs and loop.time() < deadline:
            await asyncio.sleep(0.01)
        await finish_recording(max(deadline - loop.time(), 0.0))

    def event_stream(
        self,
        content: Any,
        protocol: ProtocolName,
        *,
        abandoned: asyncio.Event | None = None,
        **options: Any,
    ) -> EventStreamResponse:
        """An event-stream response of the gateway's: its keep-alive pings
        and its send timeout. A recorded run's stream given ``abandoned``
        (the event its ``start_run`` took) sets it once no client has read
        the stream for the ``abandoned`` timeout, which cancels the run."""
        if abandoned is not None and self.timeouts.abandoned is not None and options.get("store") is not None:
            options.update(abandon_after=self.timeouts.abandoned, on_abandoned=abandoned.set)
        return EventStreamResponse(
            content,
            protocol=protocol,
            ping_interval=self.ping_interval,
            send_timeout=self.timeouts.send,
            **options,
        )

    async def aclose(self) -> None:
        """Ends the runs going on (``drain``), then closes the upstream's
        connections and the store."""
        await self.drain()
        await self._stop_watch.aclose()
        await self.upstream.aclose()
        await self.store.aclose()

    @contextlib.asynccontextmanager
    async def _lifespan(self, app: Any) -> AsyncIterator[None]:
        try:
            yield
        finally:
            await self.aclose()

    def resumed(self, request: Request, protocol: ProtocolName) -> Response | None:
        """The response to a request carrying ``Last-Event-ID``: its stream
        replayed from the store and followed live, the agent not run again
        (a ``410`` for an id the store cannot resume); None for any other
        request, and for a protocol whose streams have no event ids (the
        request runs the agent). An endpoint of the gateway's answers with it
        first."""
        if not request.headers.get("last-event-id") or not _protocols.resumable(protocol):
            return None
        return self.event_stream((), protocol, store=self.store)

    def converted(
        self, chunks: AsyncIterator[bytes], protocol: ProtocolName, **options: Any
    ) -> AsyncIterator[bytes]:
        """The upstream's Agent API stream converted into ``protocol`` as it
        streams (its encoder given ``options``), what the conversion could
        not carry counted in the metrics once it stops."""
        transcoder = impl.Transcoder("agentscope", protocol, **options)
        return converted(
            chunks, transcoder, on_losses=lambda losses: self.metrics.count_losses(protocol, losses)
        )

    def watching_for_stop(
        self, stream_id: str, cancelled: asyncio.Event
    ) -> contextlib.AbstractAsyncContextManager[None]:
        """While in it (a run's frames going on, recorded in the store as
        ``stream_id``), the run is cancelled (``cancelled`` set: the event
        its ``start_run`` took) once a client asks any replica sharing the
        store to, which that replica does with ``store.request_stop``."""
        return self._stop_watch.watching(stream_id, cancelled)

    async def run(
        self,
        request: Request,
        agent_request: dict[str, Any],
        protocol: ProtocolName,
        *,
        alias: str | None = None,
        **options: Any,
    ) -> Response:
        """The response to a request that runs the agent: ``agent_request``
        run upstream (``start_run``), its stream converted to ``protocol``
        (its encoder given ``options``), recorded in the store for
        ``Last-Event-ID`` resume, and abandoned once no client reads it; a
        run that does not start is answered as the gateway's error.
        ``alias`` names the run's stream in the store once the run has
        started, for a client that comes back for it by that name."""
        # A stream without event ids (NDJSON, or SSE whose clients read data
        # lines alone) is not recorded: nothing could resume it, and a run
        # its client left is cancelled at once.
        store = self.store if _protocols.resumable(protocol) else None
        if alias is not None and store is None:
            raise ValueError(f"{protocol} streams are not recorded: an alias would name nothing")
        abandoned = asyncio.Event()
        try:
            chunks = await self.start_run(agent_request, request, abandoned=abandoned)
        except UpstreamError as exc:
            return error_response(exc.status, exc.code, exc.message, protocol)
        stream_id = None
        if alias is not None and store is not None:
            try:
                stream_id = await store.open()
                await store.set_alias(alias, stream_id)
            except BaseException:
                await closed(chunks)  # the run started: it is ended, not left behind
                raise
        content: AsyncIterator[bytes] = (
            passed_through(chunks)
            if protocol == "agentscope"
            else self.converted(chunks, protocol, **options)
        )
        return self.event_stream(content, protocol, store=store, abandoned=abandoned, stream_id=stream_id)

    async def run_whole(
        self,
        request: Request,
        agent_request: dict[str, Any],
        protocol: ProtocolName,
        *,
        failed_as_error: bool = True,
        **options: Any,
    ) -> Response:
        """The response to a request that runs the agent and wants its answer
        whole, not streamed: ``agent_request`` run upstream, converted to
        ``protocol`` (its encoder given ``options``) and assembled, answered
        as JSON. A run that does not start is answered as the gateway's
        error; one that fails, where the protocol's answer has no failed
        state (``failed_as_error``), as a ``502`` saying the run's error."""
        try:
            chunks = await self.start_run(agent_request, request)
        except UpstreamError as exc:
            return error_response(exc.status, exc.code, exc.message, protocol)
        assembler = _protocols.assembler(protocol)
        async for data in self.converted(chunks, protocol, **options):
            assembler.feed(data)
        answer = assembler.close()
        if failed_as_error and assembler.errors:
            error = assembler.errors[0]
            code = str(error.get("code") or "agent_error")
            return error_response(502, code, str(error.get("message")), protocol)
        return JSONResponse(answer)

    async def _process(self, request: Request) -> Response:
        resumed = self.resumed(request, "agentscope")
        if resumed is not None:
            return resumed
        try:
            agent_request = agent_request_from_process(await json_body(request, self.max_body_bytes))
        except RequestError as exc:
            return error_response(exc.status, exc.code, str(exc))
        return await self.run(request, agent_request, "agentscope")

    async def _health(self, request: Request) -> Response:
        return JSONResponse({"status": "ok"})

    async def _metrics(self, request: Request) -> Response:
        return Response(self.metrics.render(), media_type=CONTENT_TYPE)


def _failure_reason(exc: Exception) -> str:
    """The reason ``runs_failed_total`` counts a run that ended so under."""
    if isinstance(exc, GatewayStoppingError):
        return "stopping"
    if isinstance(exc, RunAbandonedError):
        return "abandoned"
    if isinstance(exc, RunCancelledError):
        return "cancelled"
    return "timeout" if isinstance(exc, RunStoppedError) else "upstream"
