"""How a LangGraph Agent Server answers a call on runs, as
``tests/fixtures/langgraph/runs.json`` keeps it: the shape, not the values
(ids, times and messages differ from run to run). The fixture script
records a real langgraph-api's answers with it; the gateway's tests compare
the gateway's with them."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from typing import Any

import httpx


def answered(response: httpx.Response, ids: dict[str, str]) -> dict[str, Any]:
    """A call's answer: its status, the paths its ``Location`` and
    ``Content-Location`` name (each of ``ids``' values written as
    ``{name}``), and its body's shape: a run's keys and status, a list of
    runs' statuses, an assistant's keys, graph and id (or a list of them), a
    count, or an object's keys (and its ``__error__``'s)."""
    named = {}
    for header in ("location", "content-location"):
        value = response.headers.get(header)
        if value is not None:
            for name, given in ids.items():
                value = value.replace(given, "{" + name + "}")
            named[header] = value
    kept: dict[str, Any] = {"status": response.status_code, "headers": named}
    if response.headers.get("content-type", "").startswith("application/json") and response.content.strip():
        body = response.json()
        if isinstance(body, dict) and "run_id" in body:
            kept["run"] = {"keys": sorted(body), "status": body["status"]}
        elif isinstance(body, dict) and "graph_id" in body:
            kept["assistant"] = _assistant(body)
        elif isinstance(body, list) and body and all("graph_id" in item for item in body):
            kept["assistants"] = [_assistant(assistant) for assistant in body]
        elif isinstance(body, list):
            kept["runs"] = [run["status"] for run in body]
        elif isinstance(body, int):
            kept["count"] = body
        elif isinstance(body, dict):
            kept["keys"] = sorted(body)
            if isinstance(body.get("__error__"), dict):
                kept["error_keys"] = sorted(body["__error__"])
    return kept


def _assistant(assistant: dict[str, Any]) -> dict[str, Any]:
    return {key: assistant[key] for key in ("assistant_id", "graph_id")} | {"keys": sorted(assistant)}


#: A run (or an assistant) no server keeps.
UNKNOWN_RUN = "00000000-0000-0000-0000-000000000000"


def ended_runs(
    http: httpx.Client, thread: str, question: Any, *, answering: str, failing: str
) -> dict[str, Any]:
    """The calls on runs that have ended, answered: on ``thread``, a run of
    ``answering`` waited for (``wait``), then one of ``failing``
    (``wait_error``); the thread's runs listed (``list``, and
    ``list_by_status`` for ``error``); the last got (``get``), joined
    (``join``) and cancelled (``cancel_ended``); an unknown run got and
    cancelled; a run of ``answering`` without a thread waited for
    (``stateless_wait``) and created (``stateless_create``)."""
    calls: dict[str, Any] = {}
    for name, assistant in (("wait", answering), ("wait_error", failing)):
        asked = {"assistant_id": assistant, "input": question}
        response = http.post(f"/threads/{thread}/runs/wait", json=asked)
        run_id = response.headers["content-location"].rsplit("/", 1)[1]
        calls[name] = answered(response, {"thread_id": thread, "run_id": run_id})
    listed = http.get(f"/threads/{thread}/runs")
    calls["list"] = answered(listed, {})
    last = listed.json()[0]["run_id"]
    ids = {"thread_id": thread, "run_id": last}
    calls["get"] = answered(http.get(f"/threads/{thread}/runs/{last}"), ids)
    calls["join"] = answered(http.get(f"/threads/{thread}/runs/{last}/join"), ids)
    calls["list_by_status"] = answered(http.get(f"/threads/{thread}/runs", params={"status": "error"}), {})
    calls["get_unknown"] = answered(http.get(f"/threads/{thread}/runs/{UNKNOWN_RUN}"), {})
    calls["cancel_ended"] = answered(http.post(f"/threads/{thread}/runs/{last}/cancel"), ids)
    calls["cancel_unknown"] = answered(http.post(f"/threads/{thread}/runs/{UNKNOWN_RUN}/cancel"), {})
    response = http.post("/runs/wait", json={"assistant_id": answering, "input": question})
    thread_id, _, run_id = response.headers["content-location"].removeprefix("/threads/").split("/")
    calls["stateless_wait"] = answered(response, {"thread_id": thread_id, "run_id": run_id})
    response = http.post("/runs", json={"assistant_id": answering, "input": question})
    run = response.json()
    calls["stateless_create"] = answered(response, {"thread_id": run["thread_id"], "run_id": run["run_id"]})
    return calls


def cancelled_runs(
    http: httpx.Client, threads: tuple[str, str], question: Any, *, slow: str
) -> tuple[dict[str, Any], bytes]:
    """The calls on runs of ``slow`` (an assistant that answers for some
    seconds) cancelled midway, answered: on the first thread, one created
    in the background (``create``), got while it runs (``get_running``),
    cancelled (``cancel``) and got again (``get_cancelled``), and the thread's
    status then (``thread_after_cancel``); on the second,
    one streamed, cancelled with ``wait=true`` while a client reads it
    (``cancel_wait``). Also the bytes of that stream."""
    calls: dict[str, Any] = {}
    background, streamed = threads
    asked = {"assistant_id": slow, "input": question}
    created = http.post(f"/threads/{background}/runs", json=asked)
    ids = {"thread_id": background, "run_id": created.json()["run_id"]}
    calls["create"] = answered(created, ids)
    run_path = "/threads/{thread_id}/runs/{run_id}".format(**ids)
    _until(lambda: http.get(run_path).json()["status"] == "running")
    calls["get_running"] = answered(http.get(run_path), ids)
    calls["cancel"] = answered(http.post(f"{run_path}/cancel"), ids)
    _until(lambda: http.get(run_path).json()["status"] != "running")
    calls["get_cancelled"] = answered(http.get(run_path), ids)
    _until(lambda: http.get(f"/threads/{background}").json()["status"] != "busy")
    calls["thread_after_cancel"] = http.get(f"/threads/{background}").json()["status"]

    read: dict[str, bytes] = {}

    def reader() -> None:
        body = {**asked, "stream_mode": ["values"]}
        with http.stream("POST", f"/threads/{streamed}/runs/stream", json=body) as response:
            read["stream"] = response.read()

    reading = threading.Thread(target=reader)
    reading.start()
    _until(lambda: [run["status"] for run in http.get(f"/threads/{streamed}/runs").json()] == ["running"])
    running = http.get(f"/threads/{streamed}/runs").json()[0]["run_id"]
    time.sleep(0.5)  # some of its answer streamed
    ids = {"thread_id": streamed, "run_id": running}
    cancelled = http.post(f"/threads/{streamed}/runs/{running}/cancel", params={"wait": "true"})
    calls["cancel_wait"] = answered(cancelled, ids)
    reading.join(30)
    return calls, read["stream"]


def _until(holds: Callable[[], bool], seconds: float = 10.0) -> None:
    # (not servers.wait_until: the fixture script runs these calls where pytest is not installed)
    deadline = time.monotonic() + seconds
    while not holds():
        if time.monotonic() > deadline:
            raise TimeoutError("the server did not get there in time")
        time.sleep(0.05)


def assistant_calls(http: httpx.Client, graph_id: str, one_node: tuple[str, str]) -> dict[str, Any]:
    """The calls on assistants, answered: the assistant of ``graph_id``
    searched for (by graph, and by metadata too), counted and got; a search
    for another graph, one the server refuses; the assistant got by its
    graph's name and by an unknown id; and the graph of ``one_node`` (a
    graph of one node: its id and its node's name), the node's name written
    ``{node}``."""
    calls: dict[str, Any] = {}
    searches = {
        "search": {"graph_id": graph_id},
        "search_by_metadata": {"graph_id": graph_id, "metadata": {"created_by": "system"}},
        "search_other_graph": {"graph_id": "no-such-graph"},
        "search_refused": {"graph_id": 5},
    }
    for name, body in searches.items():
        calls[name] = answered(http.post("/assistants/search", json=body), {})
    calls["count"] = answered(http.post("/assistants/count", json={"graph_id": graph_id}), {})
    assistant_id = calls["search"]["assistants"][0]["assistant_id"]
    calls["get"] = answered(http.get(f"/assistants/{assistant_id}"), {})
    calls["get_by_graph_name"] = answered(http.get(f"/assistants/{graph_id}"), {})
    calls["get_unknown"] = answered(http.get(f"/assistants/{UNKNOWN_RUN}"), {})
    graph, node = one_node
    drawn_id = http.post("/assistants/search", json={"graph_id": graph}).json()[0]["assistant_id"]
    drawn = http.get(f"/assistants/{drawn_id}/graph").text
    calls["graph"] = json.loads(drawn.replace(f'"{node}"', '"{node}"'))
    schemas = http.get(f"/assistants/{drawn_id}/schemas")
    calls["schemas"] = {"status": schemas.status_code, "body": _schemas_shape(schemas.json())}
    subgraphs = http.get(f"/assistants/{drawn_id}/subgraphs")
    calls["subgraphs"] = {"status": subgraphs.status_code, "body": subgraphs.json()}
    return calls


def _schemas_shape(schemas: Any) -> Any:
    """A graph's schemas' shape: their keys; of each schema, its keys, title,
    the properties it has and requires, and whether ``messages`` is a list
    (the graph's id written ``{graph}``)."""
    if not isinstance(schemas, dict):
        return schemas
    shaped: dict[str, Any] = {"keys": sorted(schemas)}
    for name, schema in schemas.items():
        if not (name.endswith("_schema") and isinstance(schema, dict)):
            continue
        properties = schema.get("properties") or {}
        shaped[name] = {
            "keys": sorted(schema),
            "title": str(schema.get("title")).replace(str(schemas.get("graph_id")), "{graph}"),
            "properties": sorted(properties),
            "required": schema.get("required"),
            "messages": (properties.get("messages") or {}).get("type"),
        }
    return shaped


def thread_shape(thread: Any) -> Any:
    """A thread's shape: its keys, status and values' keys."""
    if not isinstance(thread, dict):
        return thread
    values = thread.get("values")
    return {
        "keys": sorted(thread),
        "status": thread.get("status"),
        "values": sorted(values) if isinstance(values, dict) else values,
    }


def state_shape(state: Any) -> Any:
    """A thread's state's shape: its keys, the nodes to run next, its tasks'
    nodes, and its values', metadata's and checkpoint's keys."""
    if not isinstance(state, dict):
        return state
    return {
        "keys": sorted(state),
        "next": state.get("next"),
        "tasks": [task.get("name") for task in state.get("tasks") or ()],
        "task_keys": sorted({key for task in state.get("tasks") or () for key in task}),
        **{
            part: sorted(state[part]) if isinstance(state.get(part), dict) else state.get(part)
            for part in ("values", "metadata", "checkpoint")
        },
    }


def thread_calls(http: httpx.Client, question: Any, *, answering: str, slow: str) -> dict[str, Any]:
    """The calls on threads, answered, each a status and a shape: a thread
    made (``create``), got, its state and history asked before any run
    (``get_new``, ``state_new``, ``history_new``); then after a run of
    ``answering`` waited for (``get``, ``state``, ``history``, ``history_one``
    with ``limit=1``, ``search``); a run of ``slow`` cancelled midway, then
    the thread's state (``state_after_cancel``); an unknown thread got, its
    state asked; the thread deleted (``delete``) and got again
    (``get_deleted``)."""
    calls: dict[str, Any] = {}

    def call(name: str, response: httpx.Response, shape: Callable[[Any], Any]) -> None:
        body = response.json() if response.content.strip() else None
        shaped = [shape(item) for item in body] if isinstance(body, list) else shape(body)
        if isinstance(body, dict) and "detail" in body:
            shaped = {"keys": sorted(body)}
        calls[name] = {"status": response.status_code, "body": shaped}

    made = http.post("/threads", json={})
    thread = made.json()["thread_id"]
    call("create", made, thread_shape)
    call("get_new", http.get(f"/threads/{thread}"), thread_shape)
    call("state_new", http.get(f"/threads/{thread}/state"), state_shape)
    call("history_new", http.post(f"/threads/{thread}/history", json={}), state_shape)
    http.post(f"/threads/{thread}/runs/wait", json={"assistant_id": answering, "input": question})
    call("get", http.get(f"/threads/{thread}"), thread_shape)
    call("state", http.get(f"/threads/{thread}/state"), state_shape)
    call("history", http.post(f"/threads/{thread}/history", json={}), state_shape)
    call("history_one", http.post(f"/threads/{thread}/history", json={"limit": 1}), state_shape)
    call("search", http.post("/threads/search", json={"ids": [thread]}), thread_shape)

    cancelled = http.post("/threads", json={}).json()["thread_id"]
    run = http.post(f"/threads/{cancelled}/runs", json={"assistant_id": slow, "input": question}).json()
    run_path = f"/threads/{cancelled}/runs/{run['run_id']}"
    _until(lambda: http.get(run_path).json()["status"] == "running")
    time.sleep(0.5)  # some of its answer made
    http.post(f"{run_path}/cancel")
    _until(lambda: http.get(run_path).json()["status"] != "running")
    call("state_after_cancel", http.get(f"/threads/{cancelled}/state"), state_shape)

    call("get_unknown", http.get(f"/threads/{UNKNOWN_RUN}"), thread_shape)
    call("state_unknown", http.get(f"/threads/{UNKNOWN_RUN}/state"), state_shape)
    deleted = http.delete(f"/threads/{thread}")
    calls["delete"] = {"status": deleted.status_code, "body": deleted.text}
    call("get_deleted", http.get(f"/threads/{thread}"), thread_shape)
    return calls


def _metadata_shape(thread: Any) -> Any:
    """A thread's metadata, its graph's and assistant's ids named alike
    whatever they are (the real server's graph and assistant are not the
    gateway's), and its other keys as they are."""
    if not isinstance(thread, dict):
        return thread
    metadata = thread.get("metadata")
    if not isinstance(metadata, dict):
        return {"metadata": metadata}
    named = {"graph_id": "<graph>", "assistant_id": "<assistant>"}
    return {"metadata": {key: named.get(key, value) for key, value in metadata.items()}}


def metadata_calls(http: httpx.Client, question: Any, *, answering: str) -> dict[str, Any]:
    """The calls on threads' metadata, answered, each a status and the
    metadata of what it gives: two threads made with metadata (``create``),
    one got (``get``) and updated (``update``; ``update_minimal`` asking
    ``Prefer: return=minimal``); searched by metadata (a key, a nested
    object, a key an update gave, one none holds), counted, searched with
    fields selected (``select``: the keys given); got after a run of
    ``answering`` (``get_after_run``); a thread a run made (``made_by_run``,
    with the run's metadata); an unknown thread updated, and an update whose
    metadata is no object. (Not here: a list's item searched for, which the
    in-memory server compares as a whole list where PostgreSQL's ``@>``,
    which it says it follows, finds the item; and a search by values, which
    it fails with a 500.)"""
    calls: dict[str, Any] = {}

    def call(name: str, response: httpx.Response, shape: Callable[[Any], Any] = _metadata_shape) -> None:
        body = response.json() if response.content.strip() else None
        shaped = [shape(item) for item in body] if isinstance(body, list) else shape(body)
        if isinstance(body, dict) and "detail" in body:
            shaped = {"keys": sorted(body)}
        calls[name] = {"status": response.status_code, "body": shaped}

    tags = {"team": "blue", "labels": ["a", "b"]}
    first = http.post("/threads", json={"metadata": {"owner": "metadata-calls-1", "tags": tags}})
    second = http.post("/threads", json={"metadata": {"owner": "metadata-calls-2"}})
    call("create", first)
    thread, other = first.json()["thread_id"], second.json()["thread_id"]
    both = [thread, other]
    call("get", http.get(f"/threads/{thread}"))
    call("update", http.patch(f"/threads/{thread}", json={"metadata": {"title": "First", "tags": tags}}))
    minimal = http.patch(
        f"/threads/{other}", json={"metadata": {"title": "Second"}}, headers={"Prefer": "return=minimal"}
    )
    calls["update_minimal"] = {"status": minimal.status_code, "body": minimal.text}
    searches = {
        "search_by_key": {"metadata": {"owner": "metadata-calls-1"}},
        "search_by_nested": {"metadata": {"tags": {"team": "blue"}}},
        "search_by_title": {"metadata": {"title": "Second"}},
        "search_by_none": {"metadata": {"owner": "metadata-calls-3"}},
    }
    for name, search in searches.items():
        call(name, http.post("/threads/search", json={**search, "ids": both}))
    calls["count"] = {
        "status": 200,
        "body": [
            http.post("/threads/count", json={"metadata": {"owner": f"metadata-calls-{n}"}}).json()
            for n in (1, 2, 3)
        ],
    }
    selected = http.post("/threads/search", json={"ids": both, "select": ["thread_id", "metadata"]})
    calls["select"] = {"status": selected.status_code, "body": [sorted(item) for item in selected.json()]}
    http.post(f"/threads/{thread}/runs/wait", json={"assistant_id": answering, "input": question})
    call("get_after_run", http.get(f"/threads/{thread}"))
    made = "5b0c9d8e-4f3a-4e21-9c6d-2a7b1e0f3c4d"
    http.post(
        f"/threads/{made}/runs/wait",
        json={
            "assistant_id": answering,
            "input": question,
            "if_not_exists": "create",
            "metadata": {"source": "a-run"},
        },
    )
    call("made_by_run", http.get(f"/threads/{made}"))
    call("update_unknown", http.patch(f"/threads/{UNKNOWN_RUN}", json={"metadata": {"a": 1}}))
    call("update_not_an_object", http.patch(f"/threads/{thread}", json={"metadata": ["a"]}))
    return calls


def history_calls(http: httpx.Client, question: Any, *, answering: str, node: str) -> dict[str, Any]:
    """A thread's history after two runs of ``answering`` (a graph of one
    node, ``node``), as its shape: each state's next nodes, source, whether
    it holds messages, its parent's place in the history, its tasks and
    whether their results hold messages (steps aside: langgraph-api counts
    them on across runs; how many messages, which its recorded graph
    answers with one of the same id each run, aside);
    the history asked with no limit, before a checkpoint, filtered by
    metadata, and by ``GET``; states got at checkpoints of it, by ``GET``
    and by ``POST``, and at one it does not have."""
    calls: dict[str, Any] = {}
    thread = http.post("/threads", json={}).json()["thread_id"]
    for _ in range(2):
        http.post(f"/threads/{thread}/runs/wait", json={"assistant_id": answering, "input": question})
    history = http.post(f"/threads/{thread}/history", json={"limit": 10}).json()
    ids = [state["checkpoint_id"] for state in history]

    def shape(state: dict[str, Any]) -> dict[str, Any]:
        named = {node: "<node>"}
        parent = state["parent_checkpoint_id"]
        return {
            "keys": sorted(state),
            "next": [named.get(name, name) for name in state["next"]],
            "source": state["metadata"]["source"],
            "messages": bool(state["values"].get("messages")),
            "parent": ids.index(parent) if parent in ids else parent,
            "tasks": [
                [named.get(task["name"], task["name"]), bool((task.get("result") or {}).get("messages"))]
                for task in state["tasks"]
            ],
        }

    calls["history"] = [shape(state) for state in history]
    state = http.get(f"/threads/{thread}/state").json()
    calls["state_is_the_latest"] = state["checkpoint_id"] == ids[0]
    calls["default_limit"] = len(http.post(f"/threads/{thread}/history", json={}).json())
    before = {"limit": 2, "before": {"configurable": {"checkpoint_id": ids[1]}}}
    calls["before"] = [
        ids.index(item["checkpoint_id"])
        for item in http.post(f"/threads/{thread}/history", json=before).json()
    ]
    by_metadata = {"limit": 10, "metadata": {"source": "input"}}
    calls["by_metadata"] = [
        ids.index(item["checkpoint_id"])
        for item in http.post(f"/threads/{thread}/history", json=by_metadata).json()
    ]
    calls["by_get"] = [
        ids.index(item["checkpoint_id"])
        for item in http.get(f"/threads/{thread}/history", params={"limit": 3}).json()
    ]
    at = http.get(f"/threads/{thread}/state/{ids[3]}").json()
    calls["state_at"] = shape(at)
    posted = http.post(f"/threads/{thread}/state/checkpoint", json={"checkpoint": {"checkpoint_id": ids[4]}})
    calls["state_at_posted"] = shape(posted.json())
    unknown = http.get(f"/threads/{thread}/state/{UNKNOWN_RUN}")
    calls["state_at_unknown"] = [unknown.status_code, unknown.json()["values"], unknown.json()["next"]]
    return calls


def failed_history_calls(http: httpx.Client, question: Any, *, failing: str, node: str) -> dict[str, Any]:
    """A thread's state and history after a run of ``failing`` (a graph of
    one node, ``node``, that fails): the state's next nodes, source and
    tasks (each its node, whether its error is a string, its result), the
    history's length, and the thread's status."""
    thread = http.post("/threads", json={}).json()["thread_id"]
    http.post(f"/threads/{thread}/runs/wait", json={"assistant_id": failing, "input": question})
    state = http.get(f"/threads/{thread}/state").json()
    named = {node: "<node>"}
    history = http.post(f"/threads/{thread}/history", json={"limit": 10}).json()
    return {
        "next": [named.get(name, name) for name in state["next"]],
        "source": state["metadata"]["source"],
        "tasks": [
            [named.get(task["name"], task["name"]), isinstance(task["error"], str), task["result"]]
            for task in state["tasks"]
        ],
        "history": [[named.get(name, name) for name in item["next"]] for item in history],
        "latest": history[0]["checkpoint_id"] == state["checkpoint_id"],
        "status": http.get(f"/threads/{thread}").json()["status"],
    }
