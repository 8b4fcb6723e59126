"""A2A at the gateway (``agentcodec gateway``): JSON-RPC 2.0 on one URL (``POST /a2a``),
both spec versions, told apart by the method's name as a2a-sdk names them:

- ``message/stream`` (0.3), ``SendStreamingMessage`` (1.0): the agent's
  run, converted to A2A as it streams, a Task first;
- ``message/send``, ``SendMessage``: the same run, answered when it ends
  with the Task it assembles to;
- ``tasks/get``, ``GetTask``: a task's state now, assembled from its
  stream as the replay store holds it (on any replica sharing the store);
- ``tasks/resubscribe``, ``SubscribeToTask``: the task's stream again from
  its start, then live until it ends;
- ``tasks/cancel``, ``CancelTask``: a task whose run goes on here, cancelled;
- ``ListTasks`` (1.0): the tasks the store holds, filtered and paged.

A message naming a task (``taskId``) is refused, saying why: the agent's
runs end their tasks, and a task that ended takes no more messages (the
spec's rule, which a2a-sdk's server keeps); the next turn is a new task in
the same context. Push notifications and an extended card are not offered
(the card says so), and asking for them is their own error.

Every task's stream is kept in the replay store, named by the task's id,
so that a dropped client resumes it with ``Last-Event-ID`` as at the other
endpoints; each status the task goes through is stamped with its time.
The agent card (``/.well-known/agent-card.json``, and
``/a2a/.well-known/agent-card.json`` for a client given the endpoint as its
base) names the endpoint for both versions.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator, Mapping
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from .._backend import impl
from .._pure.a2a.errors import A2AEventError
from .._version import __version__
from ..gateway._body import json_body
from ..gateway._cancels import Cancels, follow
from ..gateway._requests import (
    Json,
    RequestError,
    agent_message,
    expect_list,
    expect_object,
    expect_string,
    text_part,
)
from ..gateway._upstream import UpstreamError
from ..server import ReplayError
from ..server._closing import closed
from ..server._response import recording
from ._gateway_tasks import (
    TASK_ALIAS,
    TERMINAL_STATES,
    ListTasks,
    history_length,
    list_tasks,
    now_timestamp,
    stored_task,
    with_history_length,
)

if TYPE_CHECKING:
    from ..gateway import Gateway

__all__ = ["Endpoint", "agent_card", "agent_request_from_a2a"]

# The methods, by name: (the spec version that names it so, what it does).
_METHODS = {
    "message/stream": ("0.3", "stream"),
    "SendStreamingMessage": ("1.0", "stream"),
    "message/send": ("0.3", "send"),
    "SendMessage": ("1.0", "send"),
    "tasks/get": ("0.3", "get"),
    "GetTask": ("1.0", "get"),
    "tasks/resubscribe": ("0.3", "subscribe"),
    "SubscribeToTask": ("1.0", "subscribe"),
    "tasks/cancel": ("0.3", "cancel"),
    "CancelTask": ("1.0", "cancel"),
    "ListTasks": ("1.0", "list"),
    # What the card does not offer, answered with its own error.
    "tasks/pushNotificationConfig/set": ("0.3", "push"),
    "tasks/pushNotificationConfig/get": ("0.3", "push"),
    "tasks/pushNotificationConfig/list": ("0.3", "push"),
    "tasks/pushNotificationConfig/delete": ("0.3", "push"),
    "CreateTaskPushNotificationConfig": ("1.0", "push"),
    "GetTaskPushNotificationConfig": ("1.0", "push"),
    "ListTaskPushNotificationConfigs": ("1.0", "push"),
    "DeleteTaskPushNotificationConfig": ("1.0", "push"),
    "agent/getAuthenticatedExtendedCard": ("0.3", "extended card"),
    "GetExtendedAgentCard": ("1.0", "extended card"),
}

# JSON-RPC's error codes, and A2A's own.
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
TASK_NOT_FOUND = -32001
TASK_NOT_CANCELABLE = -32002
PUSH_NOTIFICATION_NOT_SUPPORTED = -32003
UNSUPPORTED_OPERATION = -32004
EXTENDED_CARD_NOT_CONFIGURED = -32007
# What the card does not offer: the error each is answered with (a2a-sdk's words).
_REFUSED = {
    "push": (PUSH_NOTIFICATION_NOT_SUPPORTED, "Push Notification is not supported"),
    "extended card": (EXTENDED_CARD_NOT_CONFIGURED, "Authenticated Extended Card is not configured"),
}
# How long a cancel waits for the run's end to be recorded before it answers.
_CANCEL_WAIT = 10.0


def _task_alias(task_id: str) -> str:
    return TASK_ALIAS + task_id


def rpc_error(request_id: Any, code: int, message: str, *, status: int = 200) -> JSONResponse:
    """A JSON-RPC error response (HTTP 200, as JSON-RPC over HTTP answers,
    unless the body itself was refused)."""
    error = {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}
    return JSONResponse(error, status_code=status)


def _rpc_result(request_id: Any, result: Any) -> JSONResponse:
    return JSONResponse({"jsonrpc": "2.0", "id": request_id, "result": result})


def _valid_id(value: Any) -> bool:
    """A JSON-RPC id: a string, an integer or null."""
    return value is None or isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _reidentified(frame: bytes, request_id: Any) -> bytes:
    """A stored event of a task's stream, answering ``request_id``: each
    JSON-RPC response of it carries the id of the request it answers."""
    decoder = impl.SSEDecoder(max_line_bytes=None, max_event_bytes=None)
    out = []
    for event in [*decoder.feed(frame), *decoder.close()]:
        response = json.loads(event.data)
        if isinstance(response, dict):
            response["id"] = request_id
        kind = None if event.event == "message" else event.event
        out.append(bytes(impl.encode_sse(response, event=kind)))
    return b"".join(out)


async def _answering(frames: AsyncIterator[bytes], request_id: Any) -> AsyncIterator[bytes]:
    async for frame in frames:
        yield _reidentified(frame, request_id)


async def _as_served(
    frames: AsyncIterator[bytes], message: Mapping[str, Any], task_id: str, context_id: str
) -> AsyncIterator[bytes]:
    """The run's events as the task's: its first (the Task) holding the
    user's message in its history, of the task and its context, as
    a2a-sdk's server writes the task it makes; every status stamped with
    the time it came (what ``ListTasks`` orders and filters by)."""
    request = {**message, "taskId": task_id, "contextId": context_id}
    first = True
    async for frame in frames:
        if first and frame:
            first = False
            yield _rewritten(frame, request)
        elif b'"status":' in frame:
            # (compact JSON: only a key is a quote, status, a quote and a colon)
            yield _rewritten(frame, None)
        else:
            yield frame


def _results(response: Any) -> list[dict[str, Any]]:
    """What a JSON-RPC response of a task's stream holds: the Task, a
    status update, ... (1.0's StreamResponse holds it; 0.3's result is it)."""
    result = response.get("result") if isinstance(response, dict) else None
    if not isinstance(result, dict):
        return []
    if "kind" in result:
        return [result]
    return [value for value in result.values() if isinstance(value, dict)]


def _rewritten(frame: bytes, request: dict[str, Any] | None) -> bytes:
    """A frame with each status in it stamped with the time now, and with
    ``request`` put first in the Task's history when given."""
    decoder = impl.SSEDecoder(max_line_bytes=None, max_event_bytes=None)
    out = []
    for event in [*decoder.feed(frame), *decoder.close()]:
        response = json.loads(event.data)
        for body in _results(response):
            status = body.get("status")
            if isinstance(status, dict) and "timestamp" not in status:
                status["timestamp"] = now_timestamp()
            # (a Task has an id; an update names its task, a Message has a messageId)
            if request is not None and "id" in body and "taskId" not in body:
                body["history"] = [request, *(body.get("history") or [])]
                request = None
        kind = None if event.event == "message" else event.event
        out.append(bytes(impl.encode_sse(response, event=kind)))
    return b"".join(out)


def agent_card(endpoint: str, *, keyed: bool = False) -> dict[str, Any]:
    """The gateway's agent card, for clients of either version: 1.0's
    ``supportedInterfaces`` (one for each version, as a2a-sdk 1.x chooses
    among them) and 0.3's ``url`` and ``preferredTransport``. ``keyed``:
    the endpoint asks for an API key, as a bearer token or ``X-Api-Key``
    (said in 0.3's terms, which a2a-sdk 1.x's card reader maps to 1.0's)."""
    card = {
        "name": "agentcodec gateway",
        "description": "An agent served by agentcodec's gateway.",
        "version": __version__,
        "supportedInterfaces": [
            {"url": endpoint, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
            {"url": endpoint, "protocolBinding": "JSONRPC", "protocolVersion": "0.3"},
        ],
        "capabilities": {"streaming": True},
        "defaultInputModes": ["text/plain", "application/json"],
        "defaultOutputModes": ["text/plain", "application/json"],
        "skills": [
            {"id": "chat", "name": "chat", "description": "Answers a conversation's turn.", "tags": ["chat"]}
        ],
        # 0.3's names of the same (a 1.x client reads supportedInterfaces).
        "url": endpoint,
        "protocolVersion": "0.3.0",
        "preferredTransport": "JSONRPC",
    }
    if keyed:
        card["securitySchemes"] = {
            "bearer": {"type": "http", "scheme": "bearer"},
            "apiKey": {"type": "apiKey", "in": "header", "name": "X-Api-Key"},
        }
        card["security"] = [{"bearer": []}, {"apiKey": []}]
    return card


def _a2a_media(url: str, mime: str, name: Any) -> Json:
    """A file part as the Agent API's content of its media kind."""
    kind = mime.partition("/")[0]
    if kind == "image":
        return {"type": "image", "image_url": url}
    if kind == "audio":
        return {"type": "audio", "data": url, "format": mime.partition("/")[2] or None}
    if kind == "video":
        return {"type": "video", "video_url": url}
    part: Json = {"type": "file", "file_url": url}
    if isinstance(name, str) and name:
        part["filename"] = name
    return part


def _a2a_part(part: Any, where: str) -> Json:
    """One part of an A2A message, 0.3 (``kind``, ``file: {uri | bytes}``)
    or 1.0 (``text``, ``url`` or ``raw``, ``data``), as Agent API content."""
    part = expect_object(part, where)
    if "text" in part:
        return text_part(expect_string(part.get("text"), f"{where}.text"))
    if "data" in part and part.get("kind") in (None, "data"):
        data = part["data"]
        return {"type": "data", "data": data if isinstance(data, Mapping) else {"value": data}}
    file = expect_object(part["file"], f"{where}.file") if part.get("kind") == "file" else part
    mime = file.get("mimeType") or file.get("mediaType") or "application/octet-stream"
    mime = expect_string(mime, f"{where}.mediaType")
    name = file.get("name") if "name" in file else file.get("filename")
    url = file.get("uri") if "uri" in file else file.get("url")
    if url is not None:
        return _a2a_media(expect_string(url, f"{where}.url"), mime, name)
    raw = file.get("bytes") if "bytes" in file else file.get("raw")
    if raw is not None:
        return _a2a_media(f"data:{mime};base64,{expect_string(raw, f'{where}.raw')}", mime, name)
    raise RequestError(f"{where} is no A2A part: it has no text, data, url or raw bytes")


def agent_request_from_a2a(params: Any) -> tuple[Json, str | None]:
    """The params of an A2A ``message/send`` or ``message/stream`` (0.3),
    ``SendMessage`` or ``SendStreamingMessage`` (1.0) as an AgentRequest,
    with the message's ``contextId`` (the AgentRequest's ``session_id``),
    if it has one."""
    params = expect_object(params, "params")
    message = expect_object(params.get("message"), "params.message")
    role = message.get("role")
    if role not in ("user", "ROLE_USER"):
        raise RequestError(f"params.message.role must be the user's, not {role!r}")
    parts = expect_list(message.get("parts"), "params.message.parts")
    if not parts:
        raise RequestError("params.message.parts is empty")
    content = [_a2a_part(part, f"params.message.parts[{i}]") for i, part in enumerate(parts)]
    user = agent_message("user", content, message_id=message.get("messageId"))
    request: Json = {"input": [user], "stream": True}
    context_id = message.get("contextId")
    if context_id is not None:
        request["session_id"] = expect_string(context_id, "params.message.contextId")
    return request, request.get("session_id")


def _waits(params: Mapping[str, Any], version: str) -> bool:
    """Whether a ``message/send`` waits for the run to end: unless its
    configuration says ``blocking: false`` (0.3) or ``returnImmediately:
    true`` (1.0)."""
    configuration = params.get("configuration")
    if not isinstance(configuration, Mapping):
        return True
    if version == "0.3":
        return configuration.get("blocking") is not False
    return configuration.get("returnImmediately") is not True


class Endpoint:
    """Serves the gateway's agent over A2A's JSON-RPC binding."""

    #: The agent card: clients read it before they call. At the host's
    #: well-known place, and under the endpoint too, where a2a-sdk's
    #: ``A2ACardResolver`` looks when it is given the endpoint's URL as its
    #: base (as an A2A TCK run is).
    public_paths = frozenset({"/.well-known/agent-card.json", "/a2a/.well-known/agent-card.json"})

    def __init__(self, gateway: Gateway) -> None:
        self._gateway = gateway
        # The runs going on here, by task.
        self._cancels = Cancels(gateway)

    def routes(self) -> list[BaseRoute]:
        return [
            Route("/a2a", self.handle, methods=["POST"], name="a2a"),
            Route("/.well-known/agent-card.json", self.card, methods=["GET"]),
            Route("/a2a/.well-known/agent-card.json", self.card, methods=["GET"]),
        ]

    def streams(self, path: str) -> bool:
        return path == "/a2a"

    async def card(self, request: Request) -> Response:
        endpoint = str(request.url_for("a2a"))
        return JSONResponse(agent_card(endpoint, keyed=self._gateway.requires_api_key))

    async def handle(self, request: Request) -> Response:
        resumed = self._gateway.resumed(request, "a2a")
        if resumed is not None:
            return resumed
        try:
            body = await json_body(request, self._gateway.max_body_bytes)
        except RequestError as exc:
            if exc.status != 400:  # too large, or not JSON: HTTP says so
                return rpc_error(None, INVALID_REQUEST, f"Invalid Request: {exc}", status=exc.status)
            return rpc_error(None, PARSE_ERROR, f"Parse error: {exc}")
        if not isinstance(body, Mapping):
            return rpc_error(None, INVALID_REQUEST, "Invalid Request: a request is a JSON object")
        request_id = body.get("id")
        if not _valid_id(request_id):
            message = "Invalid Request: id must be a string, an integer or null"
            return rpc_error(None, INVALID_REQUEST, message)
        if body.get("jsonrpc") != "2.0":
            return rpc_error(request_id, INVALID_REQUEST, 'Invalid Request: jsonrpc must be "2.0"')
        method = body.get("method")
        if not isinstance(method, str):
            # No method at all is a request JSON-RPC 2.0 does not know, not an unknown method.
            return rpc_error(request_id, INVALID_REQUEST, "Invalid Request: method must be a string")
        if method not in _METHODS:
            names = ", ".join(name for name, (_, action) in _METHODS.items() if action not in _REFUSED)
            message = f"Method not found: {method!r} (this agent answers {names})"
            return rpc_error(request_id, METHOD_NOT_FOUND, message)
        version, action = _METHODS[method]
        if action in _REFUSED:
            return rpc_error(request_id, *_REFUSED[action])
        params = body.get("params")
        try:
            if action in ("stream", "send"):
                return await self._run(request, request_id, version, params, streamed=action == "stream")
            if action == "get":
                return await self._get(request_id, version, params)
            if action == "cancel":
                return await self._cancel(request_id, version, params)
            if action == "list":
                return _rpc_result(request_id, await list_tasks(self._gateway.store, ListTasks(params)))
            return await self._subscribe(request_id, version, params)
        except RequestError as exc:
            return rpc_error(request_id, INVALID_PARAMS, f"Invalid params: {exc}")

    # --- running the agent ---------------------------------------------------------------

    async def _run(
        self, request: Request, request_id: Any, version: str, params: Any, *, streamed: bool
    ) -> Response:
        agent_request, context_id = agent_request_from_a2a(params)
        refused = await self._refused_follow_up(request_id, version, params["message"])
        if refused is not None:
            return refused
        gateway = self._gateway
        task_id = str(uuid.uuid4())
        context_id = context_id or str(uuid.uuid4())
        agent_request["session_id"] = context_id
        cancel = asyncio.Event()
        try:
            chunks = await gateway.start_run(agent_request, request, cancelled=cancel)
        except UpstreamError as exc:
            # (too many runs, or an agent that did not answer in time, is said as such)
            said = (
                exc.message
                if exc.code != "upstream_error" or exc.status == 504
                else f"the agent could not be reached: {exc.message}"
            )
            return rpc_error(request_id, INTERNAL_ERROR, said)
        # The encoder writes a str id itself; any other is written into each event.
        converting = gateway.converted(
            chunks,
            "a2a",
            version=version,
            task_id=task_id,
            context_id=context_id,
            request_id=request_id if isinstance(request_id, str) else None,
        )
        store = gateway.store
        stream_id = await store.open()
        await store.set_alias(_task_alias(task_id), stream_id)
        frames = _as_served(converting, params["message"], task_id, context_id)
        frames = self._cancels.watched(frames, stream_id, cancel, name=task_id)
        if request_id is not None and not isinstance(request_id, str):
            frames = _answering(frames, request_id)
        if streamed:
            return gateway.event_stream(frames, "a2a", store=store, stream_id=stream_id)
        recording(store, stream_id, frames)
        assembler = impl.A2AAssembler(version=version)
        waits = _waits(params, version)

        def fed(frame: bytes) -> bool:
            assembler.feed(frame)
            # Unless asked to wait, the task as it stands; the run goes on (tasks/get follows it).
            return assembler.task is not None and not waits

        await follow(store, stream_id, fed)
        result = assembler.result
        if version == "1.0":
            result = {"task": result} if assembler.task is not None else {"message": result}
        return _rpc_result(request_id, result)

    async def _refused_follow_up(
        self, request_id: Any, version: str, message: Mapping[str, Any]
    ) -> Response | None:
        """The answer to a message that names a task (``taskId``), which
        this agent does not take: an unknown task is not found, a context
        that is not the task's is a bad request, and a task that ended, or
        runs, takes no message (the next turn is a new task in its context).
        None for a message that names no task."""
        task_id = message.get("taskId")
        if task_id is None:
            return None
        if not isinstance(task_id, str) or not task_id:
            raise RequestError("params.message.taskId must be a task's id (a string)")
        store = self._gateway.store
        stream_id = await store.resolve_alias(_task_alias(task_id))
        try:
            task = None if stream_id is None else (await stored_task(store, stream_id, version))[0]
        except ReplayError:
            task = None
        except A2AEventError:
            return self._other_version(request_id, task_id, version)
        if task is None:
            return rpc_error(request_id, TASK_NOT_FOUND, f"Task not found: {task_id}")
        context_id = message.get("contextId")
        if context_id is not None and context_id != task.get("contextId"):
            said = f"context {context_id} does not match context {task.get('contextId')} of task {task_id}"
            raise RequestError(said)
        state = (task.get("status") or {}).get("state")
        if state in TERMINAL_STATES:
            said = f"Task {task_id} is in terminal state: {state}"
        else:
            said = f"Task {task_id} is {state} and takes no message while its run goes on"
        said += f"; send the next turn as a new task in its context ({task.get('contextId')})"
        return rpc_error(request_id, UNSUPPORTED_OPERATION, said)

    async def _cancel(self, request_id: Any, version: str, params: Any) -> Response:
        """``tasks/cancel`` / ``CancelTask``: a running task is cancelled
        upstream, here or through the store on the replica it runs on, and
        ends ``canceled``, and the task is the answer; a task whose run has
        ended cannot be (``-32002``)."""
        try:
            task_id, stream_id = await self._stream_of(params)
        except LookupError:
            return rpc_error(request_id, TASK_NOT_FOUND, "Task not found")
        store = self._gateway.store
        assembler = impl.A2AAssembler(version=version)
        try:
            if not await self._cancels.cancel(task_id, stream_id):
                entries, _ = await store.stored(stream_id)
                for _, frame in entries:
                    assembler.feed(frame)
                state = ((assembler.task or {}).get("status") or {}).get("state")
                said = f"Task cannot be canceled: its run has ended ({state})"
                return rpc_error(request_id, TASK_NOT_CANCELABLE, said)
            # The answer is the task once its end is recorded, or as it stands after the wait.
            await follow(store, stream_id, assembler.feed, _CANCEL_WAIT)
        except NotImplementedError:
            said = "Task cannot be canceled: it runs on another replica of the gateway"
            return rpc_error(request_id, TASK_NOT_CANCELABLE, said)
        except A2AEventError:
            return self._other_version(request_id, task_id, version)
        except ReplayError:
            return rpc_error(request_id, TASK_NOT_FOUND, "Task not found")
        return _rpc_result(request_id, assembler.task)

    # --- a task, from the store ----------------------------------------------------------

    async def _stream_of(self, params: Any) -> tuple[str, str]:
        if not isinstance(params, Mapping):
            raise RequestError("params must be a JSON object")
        task_id = params.get("id")
        if not isinstance(task_id, str) or not task_id:
            raise RequestError("params.id must be a task's id (a string)")
        stream_id = await self._gateway.store.resolve_alias(_task_alias(task_id))
        if stream_id is None:
            raise LookupError(task_id)
        return task_id, stream_id

    async def _get(self, request_id: Any, version: str, params: Any) -> Response:
        try:
            task_id, stream_id = await self._stream_of(params)
            length = history_length(params)
            task, _ = await stored_task(self._gateway.store, stream_id, version)
        except (LookupError, ReplayError):
            return rpc_error(request_id, TASK_NOT_FOUND, "Task not found")
        except A2AEventError:
            return self._other_version(request_id, task_id, version)
        if task is None:
            message = f"Task not found: task {task_id} has not started yet"
            return rpc_error(request_id, TASK_NOT_FOUND, message)
        return _rpc_result(request_id, with_history_length(task, length))

    async def _subscribe(self, request_id: Any, version: str, params: Any) -> Response:
        try:
            task_id, stream_id = await self._stream_of(params)
            entries, _ = await self._gateway.store.stored(stream_id)
            live = await self._gateway.store.replay(stream_id, 0)
        except (LookupError, ReplayError):
            return rpc_error(request_id, TASK_NOT_FOUND, "Task not found")
        if entries:
            try:
                impl.A2AAssembler(version=version).feed(entries[0][1])
            except A2AEventError:
                return self._other_version(request_id, task_id, version)
        return self._gateway.event_stream(self._followed(stream_id, live, request_id), "a2a")

    @staticmethod
    async def _followed(
        stream_id: str, entries: AsyncIterator[tuple[int, bytes]], request_id: Any
    ) -> AsyncIterator[bytes]:
        """The task's events from its start, answering this request, each
        with the id a resume at ``/a2a`` takes (``Last-Event-ID``)."""
        try:
            async for number, frame in entries:
                yield f"id: a2a.{stream_id}:{number}\n".encode() + _reidentified(frame, request_id)
        finally:
            await closed(entries)

    @staticmethod
    def _other_version(request_id: Any, task_id: str, version: str) -> Response:
        other = "1.0" if version == "0.3" else "0.3"
        return rpc_error(
            request_id,
            INVALID_PARAMS,
            f"Invalid params: task {task_id} streams as A2A {other}: ask for it with {other}'s methods",
        )
