"""The gateway's A2A endpoint on uvicorn, called by a2a-sdk's own client
(1.x, and its 0.3 compatibility transport) and by httpx: every JSON-RPC
method of both versions, the agent card, resume, and what it refuses."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import httpx
import pytest

from agent_servers import RecordedAgent
from agentcodec import a2a
from agentcodec.a2a.gateway import agent_request_from_a2a
from agentcodec.gateway import DemoAgent, Gateway, RequestError
from agentcodec.server import MemoryReplayStore
from servers import redis_server, serve
from sse_helpers import data_events

pytest.importorskip("a2a.client")

QUESTION = "How many words are in this question?"
ANSWER = f'You wrote "{QUESTION}": that is 7 words.'


@pytest.fixture(scope="module")
def demo() -> Iterator[str]:
    with serve(Gateway(DemoAgent(delay=0))) as url:
        yield url


def user_message(version: str, text: str = QUESTION, **extra: Any) -> dict[str, Any]:
    if version == "0.3":
        return {
            "kind": "message",
            "role": "user",
            "messageId": "m1",
            "parts": [{"kind": "text", "text": text}],
            **extra,
        }
    return {"role": "ROLE_USER", "messageId": "m1", "parts": [{"text": text}], **extra}


def rpc(url: str, method: str, params: Any, request_id: Any = 1, **kwargs: Any) -> httpx.Response:
    body = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
    return httpx.post(f"{url}/a2a", json=body, **kwargs)


def answer_text(task: dict[str, Any]) -> str:
    return "".join(
        part.get("text", "") for artifact in task.get("artifacts") or [] for part in artifact["parts"]
    )


# --- a2a-sdk's own client -------------------------------------------------------------------


async def sdk_conversation(url: str, version: str, *, streaming: bool) -> tuple[list[Any], Any, Any]:
    """a2a-sdk 1.x's client, given the gateway's card (restricted to the
    interface of ``version``): the events of one message, the task
    ``get_task`` then gives, and the events ``subscribe`` gives again."""
    from a2a.client import ClientConfig, create_client
    from a2a.client.card_resolver import parse_agent_card
    from a2a.types import GetTaskRequest, Message, Part, Role, SendMessageRequest, SubscribeToTaskRequest

    card = httpx.get(f"{url}/.well-known/agent-card.json").json()
    card["supportedInterfaces"] = [i for i in card["supportedInterfaces"] if i["protocolVersion"] == version]
    async with httpx.AsyncClient(timeout=10) as http:
        client = await create_client(
            parse_agent_card(card), client_config=ClientConfig(streaming=streaming, httpx_client=http)
        )
        message = Message(role=Role.ROLE_USER, message_id="m1", parts=[Part(text=QUESTION)])
        events = [event async for event in client.send_message(SendMessageRequest(message=message))]
        task_id = next(event.task.id for event in events if event.HasField("task"))
        task = await client.get_task(GetTaskRequest(id=task_id))
        await client.close()
        # (a2a-sdk resubscribes only with a streaming client)
        streamer = await create_client(
            parse_agent_card(card), client_config=ClientConfig(streaming=True, httpx_client=http)
        )
        again = [event async for event in streamer.subscribe(SubscribeToTaskRequest(id=task_id))]
        await streamer.close()
    return events, task, again


@pytest.mark.parametrize("version", ["1.0", "0.3"])
@pytest.mark.parametrize("streaming", [True, False], ids=["stream", "send"])
def test_a2a_sdks_client_streams_gets_and_resubscribes(demo: str, version: str, streaming: bool) -> None:
    from google.protobuf.json_format import MessageToDict

    events, task, again = asyncio.run(sdk_conversation(demo, version, streaming=streaming))
    final = MessageToDict(task)
    assert final["status"]["state"] == "TASK_STATE_COMPLETED"
    assert answer_text(final) == ANSWER
    if streaming:
        assert len(events) > 3  # the Task, then the answer in chunks, then the end
    # What the client got again, assembled, is the task get_task gave.
    assembler = a2a.Assembler()
    for event in again:
        assembler.feed_event({"jsonrpc": "2.0", "id": 1, "result": MessageToDict(event)})
    assert assembler.close() == final


def test_the_agent_card_is_what_a2a_sdk_reads_for_both_versions(demo: str) -> None:
    from a2a.client.card_resolver import parse_agent_card
    from a2a.compat.v0_3.types import AgentCard as AgentCard03

    response = httpx.get(f"{demo}/.well-known/agent-card.json")
    assert response.status_code == 200
    card = response.json()
    assert "securitySchemes" not in card  # no key asked for
    parsed = parse_agent_card(dict(card))
    assert {(i.url, i.protocol_version) for i in parsed.supported_interfaces} == {
        (f"{demo}/a2a", "1.0"),
        (f"{demo}/a2a", "0.3"),
    }
    assert parsed.capabilities.streaming
    legacy = AgentCard03.model_validate(card)
    assert (legacy.url, legacy.preferred_transport) == (f"{demo}/a2a", "JSONRPC")


@pytest.mark.parametrize("base", ["", "/a2a"], ids=["host", "endpoint"])
def test_a2a_sdks_card_resolver_finds_the_card_from_the_host_or_the_endpoint(demo: str, base: str) -> None:
    """A client given the endpoint's URL as its base (a2a-sdk's
    ``A2ACardResolver``, the A2A TCK) looks for the card under it; with an
    API key required, the card stays public at both places."""
    from a2a.client.card_resolver import A2ACardResolver

    async def resolve(url: str) -> Any:
        async with httpx.AsyncClient() as http:
            return await A2ACardResolver(http, f"{url}{base}").get_agent_card()

    card = asyncio.run(resolve(demo))
    assert {(i.url, i.protocol_version) for i in card.supported_interfaces} == {
        (f"{demo}/a2a", "1.0"),
        (f"{demo}/a2a", "0.3"),
    }
    with serve(Gateway(DemoAgent(delay=0), api_keys=["k"])) as keyed:
        assert httpx.get(f"{keyed}{base}/.well-known/agent-card.json").status_code == 200
        assert rpc(keyed, "tasks/get", {"id": "t"}).status_code == 401


# --- the wire, read by the protocol's assembler ---------------------------------------------


@pytest.mark.parametrize(("version", "method"), [("1.0", "SendStreamingMessage"), ("0.3", "message/stream")])
def test_a_stream_answers_the_request_and_resumes_from_the_store(
    demo: str, version: str, method: str
) -> None:
    response = rpc(demo, method, {"message": user_message(version, contextId="ctx")}, request_id=7)
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/event-stream; charset=utf-8"
    events = data_events(response.content)
    assert {event["id"] for event in events} == {7}  # the request's own id, an integer
    assembler = a2a.Assembler(version=version)
    assembler.feed(response.content)
    task = assembler.close()
    assert task["contextId"] == "ctx"
    assert answer_text(task) == ANSWER
    # The user's message heads the history, of the task, as a2a-sdk's server has it.
    assert task["history"][0] == user_message(version, contextId="ctx", taskId=task["id"])
    # A client that dropped after the third event resumes where it was.
    third = [line for line in response.content.split(b"\n") if line.startswith(b"id: ")][2]
    resumed = rpc(
        demo, method, {"message": user_message(version)}, headers={"last-event-id": third[4:].decode()}
    )
    assert data_events(resumed.content) == events[3:]


@pytest.mark.parametrize(
    ("version", "send", "get"), [("1.0", "SendMessage", "GetTask"), ("0.3", "message/send", "tasks/get")]
)
def test_send_answers_the_task_and_get_gives_it_again(demo: str, version: str, send: str, get: str) -> None:
    sent = rpc(demo, send, {"message": user_message(version)}, request_id="s").json()
    assert sent["id"] == "s"
    task = sent["result"]["task"] if version == "1.0" else sent["result"]
    assert answer_text(task) == ANSWER
    got = rpc(demo, get, {"id": task["id"]}).json()
    assert got["result"] == task
    trimmed = rpc(demo, get, {"id": task["id"], "historyLength": 0}).json()["result"]
    assert "history" not in trimmed


@pytest.mark.parametrize(
    ("version", "send", "get", "configuration"),
    [
        ("1.0", "SendMessage", "GetTask", {"returnImmediately": True}),
        ("0.3", "message/send", "tasks/get", {"blocking": False}),
    ],
)
def test_a_send_that_does_not_wait_answers_the_task_at_once_and_get_follows_it(
    version: str, send: str, get: str, configuration: dict[str, Any]
) -> None:
    with serve(Gateway(DemoAgent(delay=0.01))) as url:
        params = {"message": user_message(version), "configuration": configuration}
        result = rpc(url, send, params).json()["result"]
        task = result["task"] if version == "1.0" else result
        assert task["status"]["state"] in ("TASK_STATE_SUBMITTED", "submitted")
        for _ in range(500):
            got = rpc(url, get, {"id": task["id"]}).json()["result"]
            if got["status"]["state"] in ("TASK_STATE_COMPLETED", "completed"):
                break
            time.sleep(0.01)
        assert answer_text(got) == ANSWER


@pytest.mark.parametrize(
    ("version", "send", "stream", "cancel", "get", "configuration"),
    [
        ("1.0", "SendMessage", "SendStreamingMessage", "CancelTask", "GetTask", {"returnImmediately": True}),
        ("0.3", "message/send", "message/stream", "tasks/cancel", "tasks/get", {"blocking": False}),
    ],
)
def test_a_running_task_is_cancelled_upstream_and_ends_canceled(
    *, version: str, send: str, stream: str, cancel: str, get: str, configuration: dict[str, Any]
) -> None:
    """A task whose run goes on is cancelled: its upstream run is let go,
    its stream ends with the canceled state (final, in 0.3), and the answer
    is the task. A task whose run has ended cannot be cancelled (-32002),
    an unknown one is not found (-32001)."""
    canceled = "TASK_STATE_CANCELED" if version == "1.0" else "canceled"
    with serve(Gateway(DemoAgent(delay=0.05))) as url:
        params = {"message": user_message(version), "configuration": configuration}
        result = rpc(url, send, params).json()["result"]
        task_id = (result["task"] if version == "1.0" else result)["id"]
        answer = rpc(url, cancel, {"id": task_id}).json()["result"]
        assert (answer["id"], answer["status"]["state"]) == (task_id, canceled)
        assert answer_text(answer) != ANSWER  # cut short
        assert rpc(url, get, {"id": task_id}).json()["result"]["status"]["state"] == canceled
        again = rpc(url, cancel, {"id": task_id}).json()["error"]
        assert again["code"] == -32002
        assert again["message"] == f"Task cannot be canceled: its run has ended ({canceled})"
        assert rpc(url, cancel, {"id": "nope"}).json()["error"]["code"] == -32001
        # Asked for in the other version's words, as GetTask is.
        other = "tasks/cancel" if version == "1.0" else "CancelTask"
        assert rpc(url, other, {"id": task_id}).json()["error"]["code"] == -32602
        # A streaming client sees the end.
        body = {"jsonrpc": "2.0", "id": 1, "method": stream, "params": {"message": user_message(version)}}
        with httpx.stream("POST", f"{url}/a2a", json=body, timeout=10) as response:
            lines = response.iter_lines()
            first = json.loads(next(line for line in lines if line.startswith("data: "))[6:])["result"]
            streamed_id = (first["task"] if version == "1.0" else first)["id"]
            assert rpc(url, cancel, {"id": streamed_id}).json()["result"]["status"]["state"] == canceled
            events = [json.loads(line[6:])["result"] for line in lines if line.startswith("data: ")]
        last = events[-1]["statusUpdate"] if version == "1.0" else events[-1]
        assert last["status"]["state"] == canceled
        if version == "0.3":
            assert last["final"] is True


def test_a_task_is_found_from_another_replica_sharing_the_store(tmp_path: Path) -> None:
    from agentcodec.server import RedisReplayStore

    with (
        redis_server(tmp_path) as redis_url,
        serve(Gateway(DemoAgent(delay=0), store=RedisReplayStore(redis_url))) as first,
        serve(Gateway(DemoAgent(delay=0), store=RedisReplayStore(redis_url))) as second,
    ):
        task = rpc(first, "SendMessage", {"message": user_message("1.0")}).json()["result"]["task"]
        assert rpc(second, "GetTask", {"id": task["id"]}).json()["result"] == task
        again = rpc(second, "SubscribeToTask", {"id": task["id"]}, request_id=9)
        assembler = a2a.Assembler()
        assembler.feed(again.content)
        assert assembler.close() == task
        assert {event["id"] for event in data_events(again.content)} == {9}


def test_a_task_is_cancelled_from_another_replica_sharing_the_store(tmp_path: Path) -> None:
    """A cancel that reaches another replica than the task's run goes to the
    run's replica through the store: the run stops there, and the task ends
    canceled on both."""
    from agentcodec.server import RedisReplayStore

    with (
        redis_server(tmp_path) as redis_url,
        serve(Gateway(DemoAgent(delay=0.05), store=RedisReplayStore(redis_url))) as first,
        serve(Gateway(DemoAgent(delay=0.05), store=RedisReplayStore(redis_url))) as second,
    ):
        params = {"message": user_message("1.0"), "configuration": {"returnImmediately": True}}
        task_id = rpc(first, "SendMessage", params).json()["result"]["task"]["id"]
        answer = rpc(second, "CancelTask", {"id": task_id}).json()["result"]
        assert answer["status"]["state"] == "TASK_STATE_CANCELED"
        assert answer_text(answer) != ANSWER  # cut short
        assert rpc(first, "GetTask", {"id": task_id}).json()["result"] == answer


def test_tasks_are_listed_from_the_store_shared_by_replicas(tmp_path: Path) -> None:
    from agentcodec.server import RedisReplayStore

    with (
        redis_server(tmp_path) as redis_url,
        serve(Gateway(DemoAgent(delay=0), store=RedisReplayStore(redis_url))) as first,
        serve(Gateway(DemoAgent(delay=0), store=RedisReplayStore(redis_url))) as second,
    ):
        made = [
            rpc(url, "SendMessage", {"message": user_message("1.0", contextId="shared")}).json()["result"][
                "task"
            ]
            for url in (first, second, first)
        ]
        listed = rpc(second, "ListTasks", {"contextId": "shared", "includeArtifacts": True}).json()["result"]
        assert listed["tasks"] == made[::-1]
        assert listed["totalSize"] == 3


@pytest.mark.parametrize(
    ("microsecond", "written"),
    [
        (0, "2026-11-28T06:01:59Z"),
        (959_000, "2026-11-28T06:01:59.959Z"),
        (959_120, "2026-11-28T06:01:59.959120Z"),
    ],
)
def test_a_status_time_is_written_as_protobuf_json_writes_it(microsecond: int, written: str) -> None:
    """A time whose microseconds end in 000 was written with six digits,
    which a2a-sdk's client gives back with three: a listed task then
    differed from the one SendMessage answered, one time in a thousand."""
    from google.protobuf.timestamp_pb2 import Timestamp

    from agentcodec.a2a._gateway_tasks import timestamp

    moment = datetime(2026, 11, 28, 6, 1, 59, microsecond, tzinfo=timezone.utc)
    assert timestamp(moment) == written
    parsed = Timestamp()
    parsed.FromJsonString(written)
    assert parsed.ToJsonString() == written


# --- ListTasks ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def listed() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """A gateway of its own (so that no other test's tasks are listed) with
    five 1.0 tasks in two contexts, made in turn, and one of 0.3."""
    with serve(Gateway(DemoAgent(delay=0))) as url:
        tasks = []
        for number in range(5):
            context = "even" if number % 2 == 0 else "odd"
            params = {"message": user_message("1.0", f"question {number}", contextId=context)}
            tasks.append(rpc(url, "SendMessage", params).json()["result"]["task"])
        rpc(url, "message/send", {"message": user_message("0.3", contextId="even")})
        yield url, tasks


def test_list_tasks_gives_the_latest_first_as_a2a_sdks_client_reads_it(
    listed: tuple[str, list[dict[str, Any]]],
) -> None:
    from a2a.client import ClientConfig, create_client
    from a2a.client.card_resolver import parse_agent_card
    from a2a.types import ListTasksRequest
    from google.protobuf.json_format import MessageToDict

    url, tasks = listed
    card = httpx.get(f"{url}/.well-known/agent-card.json").json()

    async def listing(**params: Any) -> dict[str, Any]:
        async with httpx.AsyncClient(timeout=10) as http:
            client = await create_client(
                parse_agent_card(card), client_config=ClientConfig(httpx_client=http)
            )
            try:
                return MessageToDict(await client.list_tasks(ListTasksRequest(**params)))
            finally:
                await client.close()

    everything = asyncio.run(listing(include_artifacts=True))
    # Every status is stamped with its time: the order is the latest first.
    assert [task["id"] for task in everything["tasks"]] == [task["id"] for task in tasks[::-1]]
    assert everything["tasks"] == tasks[::-1]  # as SendMessage answered each (the 0.3 task is not listed)
    assert (everything["totalSize"], everything["pageSize"]) == (5, 50)
    assert "nextPageToken" not in everything  # proto3: the empty token, the last page
    stamps = [task["status"]["timestamp"] for task in everything["tasks"]]
    assert stamps == sorted(stamps, reverse=True)
    # Artifacts only when asked for; a history cut to its last messages.
    plain = asyncio.run(listing(context_id="even", history_length=0))
    assert [task["id"] for task in plain["tasks"]] == [tasks[4]["id"], tasks[2]["id"], tasks[0]["id"]]
    assert not any("artifacts" in task or "history" in task for task in plain["tasks"])


def test_list_tasks_pages_with_its_tokens_and_filters(listed: tuple[str, list[dict[str, Any]]]) -> None:
    url, tasks = listed
    seen: list[str] = []
    token = ""
    pages = 0
    while True:
        result = rpc(url, "ListTasks", {"pageSize": 2, "pageToken": token}).json()["result"]
        assert (result["pageSize"], result["totalSize"]) == (2, 5)
        seen += [task["id"] for task in result["tasks"]]
        pages += 1
        token = result["nextPageToken"]
        if not token:
            break
    assert (pages, seen) == (3, [task["id"] for task in tasks[::-1]])
    completed = rpc(url, "ListTasks", {"status": "TASK_STATE_COMPLETED", "contextId": "odd"}).json()["result"]
    assert [task["id"] for task in completed["tasks"]] == [tasks[3]["id"], tasks[1]["id"]]
    assert rpc(url, "ListTasks", {"status": "TASK_STATE_FAILED"}).json()["result"] == {
        "tasks": [],
        "nextPageToken": "",
        "pageSize": 50,
        "totalSize": 0,
    }
    # Updated at or after a task's status time: it and those after it.
    since = tasks[3]["status"]["timestamp"]
    after = rpc(url, "ListTasks", {"statusTimestampAfter": since}).json()["result"]
    assert [task["id"] for task in after["tasks"]] == [tasks[4]["id"], tasks[3]["id"]]
    # A history of its last message.
    last = rpc(url, "ListTasks", {"pageSize": 1, "historyLength": 1}).json()["result"]["tasks"][0]
    assert last["history"] == tasks[4]["history"][-1:]


@pytest.mark.parametrize(
    ("params", "says"),
    [
        ({"pageSize": 0}, "params.pageSize must be from 1 to 100, not 0"),
        ({"pageSize": 101}, "params.pageSize must be from 1 to 100, not 101"),
        ({"pageSize": "5"}, "params.pageSize must be an integer"),
        ({"historyLength": -1}, "params.historyLength must not be negative"),
        ({"status": "completed"}, "params.status must be a task state"),
        ({"statusTimestampAfter": "yesterday"}, "params.statusTimestampAfter must be an RFC 3339 time"),
        ({"pageToken": "not-a-token"}, "params.pageToken is not a page token this agent gave"),
        ({"includeArtifacts": "yes"}, "params.includeArtifacts must be true or false"),
        ({"contextId": 5}, "params.contextId must be a string"),
        ([], "params must be a JSON object"),
    ],
)
def test_list_tasks_refuses_bad_params_saying_which(
    listed: tuple[str, list[dict[str, Any]]], params: Any, says: str
) -> None:
    error = rpc(listed[0], "ListTasks", params).json()["error"]
    assert error["code"] == -32602
    assert says in error["message"]


def test_get_task_refuses_a_negative_history_length(demo: str) -> None:
    task = rpc(demo, "SendMessage", {"message": user_message("1.0")}).json()["result"]["task"]
    error = rpc(demo, "GetTask", {"id": task["id"], "historyLength": -1}).json()["error"]
    assert error == {
        "code": -32602,
        "message": "Invalid params: params.historyLength must not be negative, not -1",
    }
    assert "history" not in rpc(demo, "GetTask", {"id": task["id"], "historyLength": 0}).json()["result"]


# --- a message naming a task, and what the card does not offer ------------------------------


@pytest.mark.parametrize(("version", "send"), [("1.0", "SendMessage"), ("0.3", "message/send")])
def test_a_message_to_a_task_that_ended_is_refused_saying_to_start_a_new_one(
    demo: str, version: str, send: str
) -> None:
    result = rpc(demo, send, {"message": user_message(version, contextId="turns")}).json()["result"]
    task = result["task"] if version == "1.0" else result
    state = task["status"]["state"]
    follow_up = {"message": user_message(version, "and then?", taskId=task["id"])}
    error = rpc(demo, send, follow_up).json()["error"]
    assert error == {
        "code": -32004,
        "message": f"Task {task['id']} is in terminal state: {state}; "
        "send the next turn as a new task in its context (turns)",
    }
    unknown = {"message": user_message(version, taskId="no-such-task")}
    assert rpc(demo, send, unknown).json()["error"] == {
        "code": -32001,
        "message": "Task not found: no-such-task",
    }
    elsewhere = {"message": user_message(version, taskId=task["id"], contextId="other")}
    error = rpc(demo, send, elsewhere).json()["error"]
    assert error["code"] == -32602
    assert f"context other does not match context turns of task {task['id']}" in error["message"]


def test_a_message_to_a_running_task_is_refused() -> None:
    with serve(Gateway(DemoAgent(delay=0.05))) as url:
        params = {"message": user_message("1.0"), "configuration": {"returnImmediately": True}}
        task = rpc(url, "SendMessage", params).json()["result"]["task"]
        follow_up = {"message": user_message("1.0", "and then?", taskId=task["id"])}
        error = rpc(url, "SendMessage", follow_up).json()["error"]
        assert error["code"] == -32004
        assert error["message"].startswith(f"Task {task['id']} is TASK_STATE_")
        assert "takes no message while its run goes on" in error["message"]
        rpc(url, "CancelTask", {"id": task["id"]})


@pytest.mark.parametrize(
    ("method", "code", "says"),
    [
        ("tasks/pushNotificationConfig/set", -32003, "Push Notification is not supported"),
        ("CreateTaskPushNotificationConfig", -32003, "Push Notification is not supported"),
        ("ListTaskPushNotificationConfigs", -32003, "Push Notification is not supported"),
        ("GetExtendedAgentCard", -32007, "Authenticated Extended Card is not configured"),
        ("agent/getAuthenticatedExtendedCard", -32007, "Authenticated Extended Card is not configured"),
    ],
)
def test_what_the_card_does_not_offer_is_its_own_error(demo: str, method: str, code: int, says: str) -> None:
    assert rpc(demo, method, {}).json()["error"] == {"code": code, "message": says}
    card = httpx.get(f"{demo}/.well-known/agent-card.json").json()
    assert not card["capabilities"].get("pushNotifications")
    assert not card["capabilities"].get("extendedAgentCard")


# --- a failing upstream ---------------------------------------------------------------------


@pytest.mark.parametrize("cut_after", [3000, 9000])
@pytest.mark.parametrize(("version", "method"), [("1.0", "SendStreamingMessage"), ("0.3", "message/stream")])
def test_an_upstream_that_dies_midway_fails_the_task(cut_after: int, version: str, method: str) -> None:
    agent = RecordedAgent.from_fixture("agent_turn", cut_after=cut_after)
    with serve(agent) as upstream, serve(Gateway(upstream)) as url:
        stream = rpc(url, method, {"message": user_message(version)}).content
        assembler = a2a.Assembler(version=version)
        assembler.feed(stream)
        task = assembler.close()
        failed = "TASK_STATE_FAILED" if version == "1.0" else "failed"
        assert task["status"]["state"] == failed
        # tasks/get gives the same task, failed, from the store.
        get = "GetTask" if version == "1.0" else "tasks/get"
        assert rpc(url, get, {"id": task["id"]}).json()["result"] == task
    if version == "0.3":
        assert data_events(stream)[-1]["result"]["final"] is True


def test_an_upstream_that_refuses_is_a_json_rpc_error_that_names_nothing_of_it() -> None:
    with serve(RecordedAgent(b"", status=503)) as upstream, serve(Gateway(upstream)) as url:
        for method in ("SendStreamingMessage", "SendMessage"):
            answer = rpc(url, method, {"message": user_message("1.0")})
            assert answer.status_code == 200
            assert answer.json()["error"] == {
                "code": -32603,
                "message": "the agent could not be reached: the agent answered 503",
            }


# --- what it refuses ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "code"),
    [
        (b"{not json", -32700),
        (b"[1, 2]", -32600),
        (json.dumps({"jsonrpc": "1.0", "id": 1, "method": "GetTask"}).encode(), -32600),
        (json.dumps({"jsonrpc": "2.0", "id": [1], "method": "GetTask"}).encode(), -32600),
        (json.dumps({"jsonrpc": "2.0", "id": 1, "params": {}}).encode(), -32600),
        (json.dumps({"jsonrpc": "2.0", "id": 1, "method": 7}).encode(), -32600),
        (json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tasks/list"}).encode(), -32601),
        (
            json.dumps({"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "nope"}}).encode(),
            -32001,
        ),
        (json.dumps({"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {}}).encode(), -32602),
        (json.dumps({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {}}).encode(), -32602),
    ],
    ids=[
        "not-json",
        "not-an-object",
        "not-2.0",
        "bad-id",
        "no-method",
        "method-not-a-string",
        "unknown-method",
        "unknown-task",
        "no-id",
        "no-message",
    ],
)
def test_bad_requests_get_json_rpc_errors(demo: str, body: bytes, code: int) -> None:
    response = httpx.post(f"{demo}/a2a", content=body, headers={"content-type": "application/json"})
    assert response.status_code == 200
    error = response.json()["error"]
    assert error["code"] == code
    assert error["message"]


def test_a_body_not_json_or_too_large_is_refused_by_http_status_with_a_json_rpc_error() -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "x" * 2000}}
    with serve(Gateway(DemoAgent(delay=0), max_body_bytes=1000)) as url:
        too_large = httpx.post(f"{url}/a2a", json=body)
        not_json = httpx.post(f"{url}/a2a", content=b"{}", headers={"content-type": "text/plain"})
    assert (too_large.status_code, too_large.json()["error"]["code"]) == (413, -32600)
    assert "larger than 1,000 bytes" in too_large.json()["error"]["message"]
    assert (not_json.status_code, not_json.json()["error"]["code"]) == (415, -32600)
    assert "must be JSON" in not_json.json()["error"]["message"]


def test_a_task_is_asked_for_in_the_version_it_streams_in(demo: str) -> None:
    task = rpc(demo, "SendMessage", {"message": user_message("1.0")}).json()["result"]["task"]
    error = rpc(demo, "tasks/get", {"id": task["id"]}).json()["error"]
    assert error["code"] == -32602
    assert "streams as A2A 1.0" in error["message"]


def test_the_card_needs_no_key_and_the_endpoint_does() -> None:
    from a2a.client.card_resolver import parse_agent_card
    from a2a.compat.v0_3.types import AgentCard as AgentCard03

    with serve(Gateway(DemoAgent(delay=0), api_keys=["k"])) as url:
        response = httpx.get(f"{url}/.well-known/agent-card.json")
        assert response.status_code == 200
        # The card says how to give the key, as both versions' readers take it.
        card = parse_agent_card(response.json())
        assert card.security_schemes["bearer"].http_auth_security_scheme.scheme == "bearer"
        assert card.security_schemes["apiKey"].api_key_security_scheme.name == "X-Api-Key"
        assert len(card.security_requirements) == 2
        legacy = AgentCard03.model_validate(response.json())
        assert legacy.security == [{"bearer": []}, {"apiKey": []}]
        assert rpc(url, "GetTask", {"id": "x"}).status_code == 401
        assert (
            rpc(url, "GetTask", {"id": "x"}, headers={"authorization": "Bearer k"}).json()["error"]["code"]
            == -32001
        )


@pytest.mark.parametrize(
    ("part", "content"),
    [
        ({"kind": "text", "text": "hi"}, {"type": "text", "text": "hi"}),
        ({"text": "hi"}, {"type": "text", "text": "hi"}),
        ({"kind": "data", "data": {"a": 1}}, {"type": "data", "data": {"a": 1}}),
        ({"data": [1]}, {"type": "data", "data": {"value": [1]}}),
        (
            {"kind": "file", "file": {"uri": "https://x/p.png", "mimeType": "image/png"}},
            {"type": "image", "image_url": "https://x/p.png"},
        ),
        (
            {"url": "https://x/r.pdf", "mediaType": "application/pdf", "filename": "r.pdf"},
            {"type": "file", "file_url": "https://x/r.pdf", "filename": "r.pdf"},
        ),
        (
            {"raw": "AAAA", "mediaType": "audio/wav"},
            {"type": "audio", "data": "data:audio/wav;base64,AAAA", "format": "wav"},
        ),
    ],
)
def test_a_messages_parts_become_the_agent_requests_content(
    part: dict[str, Any], content: dict[str, Any]
) -> None:
    request, context = agent_request_from_a2a(
        {"message": {"role": "user", "parts": [part], "contextId": "c"}}
    )
    assert request["input"][0]["content"] == [content]
    assert (context, request["session_id"]) == ("c", "c")


@pytest.mark.parametrize(
    ("params", "says"),
    [
        ({}, "params.message must be a JSON object"),
        ({"message": {"role": "agent", "parts": [{"text": "x"}]}}, "params.message.role must be the user's"),
        ({"message": {"role": "user", "parts": []}}, "params.message.parts is empty"),
        (
            {"message": {"role": "user", "parts": [{"kind": "file", "file": {}}]}},
            "params.message.parts[0] is no A2A part",
        ),
    ],
)
def test_a_message_the_agent_cannot_take_is_refused_saying_where(params: Any, says: str) -> None:
    with pytest.raises(RequestError, match=r"^" + __import__("re").escape(says)):
        agent_request_from_a2a(params)


def test_the_replay_store_gives_a_running_streams_snapshot() -> None:
    async def main() -> Any:
        store = MemoryReplayStore()
        stream_id = await store.open()
        await store.append(stream_id, b"data: 1\n\n")
        running = await store.stored(stream_id)
        await store.finish(stream_id)
        return running, await store.stored(stream_id)

    running, finished = asyncio.run(main())
    assert running == ([(1, b"data: 1\n\n")], False)
    assert finished == ([(1, b"data: 1\n\n")], True)
