"""Server side: the subscription filter and the replay buffer."""

from __future__ import annotations

from typing import Any

import pytest

from agentcodec import ResumeGapError
from agentcodec.langchain import ReplayBuffer, Subscription, event_channel


def event(method: str, namespace: list[str], data: Any = None, seq: int | None = None) -> dict[str, Any]:
    envelope: dict[str, Any] = {
        "type": "event",
        "method": method,
        "params": {"namespace": namespace, "timestamp": 1, "data": data},
    }
    if seq is not None:
        envelope["seq"] = seq
    return envelope


@pytest.mark.parametrize(
    ("method", "data", "channel"),
    [
        ("messages", {}, "messages"),
        ("input.requested", {}, "input"),
        ("custom", {"name": "p"}, "custom:p"),
        ("custom", {"payload": 1}, "custom"),
        ("custom:p", {}, "custom:p"),
        ("lifecycle", {}, "lifecycle"),
    ],
)
def test_event_channel(method: str, data: dict, channel: str) -> None:
    assert event_channel(event(method, [], data)) == channel


def test_channels() -> None:
    sub = Subscription(["messages", "custom:progress"])
    assert sub.matches(event("messages", []))
    assert not sub.matches(event("values", []))
    assert sub.matches(event("custom", [], {"name": "progress"}))
    assert sub.matches(event("custom:progress", []))
    assert not sub.matches(event("custom", [], {"name": "other"}))
    assert Subscription(["custom"]).matches(event("custom", [], {"name": "other"}))
    assert Subscription(["input"]).matches(event("input.requested", []))
    assert not sub.matches({"type": "success", "id": 1, "result": {}})


def test_namespace_prefixes_and_depth() -> None:
    root = Subscription(["messages"])
    assert root.matches(event("messages", ["a", "b", "c"]))
    assert not Subscription(["messages"], depth=1).matches(event("messages", ["a", "b"]))
    sub = Subscription(["messages"], namespaces=[["a"]], depth=1)
    assert sub.matches(event("messages", ["a"]))
    assert sub.matches(event("messages", ["a", "b"]))
    assert not sub.matches(event("messages", ["a", "b", "c"]))
    assert not sub.matches(event("messages", ["b"]))
    assert not sub.matches(event("messages", ["ab"]))
    exact = Subscription(["messages"], namespaces=[["a"], ["x", "y"]], depth=0)
    assert exact.matches(event("messages", ["x", "y"]))
    assert not exact.matches(event("messages", ["x", "y", "z"]))


def test_from_request() -> None:
    sub = Subscription.from_request(
        {"channels": ["messages", "updates"], "namespaces": [[]], "depth": 2, "since": 5}
    )
    assert sub.matches(event("updates", ["a", "b"]))
    assert not sub.matches(event("updates", ["a", "b", "c"]))


@pytest.mark.parametrize(
    "kwargs",
    [
        {"channels": []},
        {"channels": ["bogus"]},
        {"channels": ["custom:"]},
        {"channels": ["messages"], "depth": -1},
        {"channels": ["messages"], "depth": True},
        {"channels": ["messages"], "namespaces": [[1]]},
    ],
)
def test_bad_subscriptions(kwargs: dict) -> None:
    with pytest.raises(ValueError, match=r"channel|depth|namespace"):
        Subscription(**kwargs)


def test_replay_after_since() -> None:
    buffer = ReplayBuffer(maxlen=5)
    for i in range(1, 4):
        buffer.append(event("messages", [], seq=i))
    assert [e["seq"] for e in buffer.replay(1)] == [2, 3]
    assert buffer.replay(3) == []
    assert buffer.replay(10) == []
    assert [e["seq"] for e in buffer.replay(0)] == [1, 2, 3]


def test_replay_assigns_seq_and_filters() -> None:
    buffer = ReplayBuffer()
    buffer.append(event("messages", ["a"]))
    buffer.append(event("values", ["a"]))
    buffer.append(event("messages", ["b"]))
    assert buffer.last_seq == 3
    sub = Subscription(["messages"], namespaces=[["a"]])
    assert [e["seq"] for e in buffer.replay(0, sub)] == [1]


def test_replay_reports_a_gap_instead_of_a_hole() -> None:
    buffer = ReplayBuffer(maxlen=3)
    for i in range(1, 11):
        buffer.append(event("messages", [], seq=i))
    assert buffer.min_available_seq == 8
    assert [e["seq"] for e in buffer.replay(7)] == [8, 9, 10]
    with pytest.raises(ResumeGapError) as info:
        buffer.replay(5)
    gap = info.value
    assert (gap.since, gap.min_available_seq, gap.missed) == (5, 8, 2)
    response = gap.to_response(3)
    assert (response["type"], response["id"], response["error"], response["min_available_seq"]) == (
        "error",
        3,
        "resume_gap",
        8,
    )


def test_replay_rejects_out_of_order_seq() -> None:
    buffer = ReplayBuffer()
    buffer.append(event("messages", [], seq=5))
    with pytest.raises(ValueError, match="seq must be an int after 5"):
        buffer.append(event("messages", [], seq=5))
    with pytest.raises(ValueError, match="since must be"):
        buffer.replay(-1)
    with pytest.raises(ValueError, match="maxlen must be"):
        ReplayBuffer(maxlen=0)


def test_encode_writes_a_message_as_the_agent_server_does() -> None:
    from agentcodec import langchain

    message = {"type": "event", "seq": 7, "method": "messages", "params": {"namespace": [], "data": {}}}
    assert langchain.encode(message) == (
        b'id: 7\nevent: messages\ndata: {"type":"event","seq":7,"method":"messages",'
        b'"params":{"namespace":[],"data":{}}}\n\n'
    )
    # No seq (or one that is no int), no id; a method that cannot be a field, no event line.
    assert langchain.encode({"method": "a\nb", "seq": True}) == b'data: {"method":"a\\nb","seq":true}\n\n'
    with pytest.raises(TypeError, match=r"^a LangChain protocol message is a mapping, not list$"):
        langchain.encode([1])  # type: ignore[arg-type]
