"""A request for a run, checked: what the agent is asked, what to do on a busy
thread, and the checkpoint the run is to start from. What langgraph-api would
do with a run's options that the agent behind the gateway cannot (start from
an earlier checkpoint, stop before or after its node, call a webhook) is
refused with a reason, never dropped: a client that asks for a branch and is
given a turn appended to the thread would not know it was not served."""

from __future__ import annotations

import math
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..gateway._requests import RequestError
from ..langchain.gateway import agent_request_from_langchain
from ._run_stream import inputs_of
from ._threads import checked_metadata

__all__ = ["Asked", "asked_run"]

_MULTITASK_STRATEGIES = ("reject", "interrupt", "rollback", "enqueue")
# The options of a run that stop it or call out where the gateway cannot, and why.
_NOT_SERVED = {
    "interrupt_before": "the agent runs as one node, which the gateway cannot stop before it runs",
    "interrupt_after": "the agent runs as one node, which the gateway cannot hold after it runs",
    "webhook": "the gateway calls no URL when a run ends",
}


@dataclass
class Asked:
    """A request for a run, checked."""

    thread_id: str
    body: Mapping[str, Any]
    agent_request: dict[str, Any]
    inputs: list[dict[str, Any]]
    strategy: str
    # The checkpoint the run is to start from, if it names one: the
    # thread's own (its last run's end) or the run is refused.
    checkpoint_id: str | None
    # The metadata a thread the run makes starts with (its config's and its
    # own, over the agent's), as langgraph-api gives it.
    thread_metadata: dict[str, Any]
    # Seconds to wait before the run starts (langgraph-api's after_seconds).
    after_seconds: float = 0.0


def asked_run(body: object, thread_id: str) -> Asked:
    """The run ``body`` asks for on the thread ``thread_id``; RequestError
    says what in it is wrong or not served."""
    if not isinstance(body, Mapping):
        raise RequestError("a run is a JSON object")
    if body.get("command") is not None:
        raise RequestError("this agent takes input messages: a command (resuming an interrupt) is not served")
    for option, why in _NOT_SERVED.items():
        if body.get(option):
            raise RequestError(f"{option} is not served: {why}")
    return Asked(
        thread_id,
        body,
        agent_request_from_langchain(body, thread_id),
        inputs_of(body),
        multitask_strategy(body),
        named_checkpoint(body),
        thread_metadata(body),
        scheduled_after(body),
    )


def scheduled_after(body: Mapping[str, Any]) -> float:
    """How long the run waits before it starts (``after_seconds``, none by
    default), as langgraph-api schedules a run: named at once, ``pending``
    till then."""
    after = body.get("after_seconds")
    if after is None:
        return 0.0
    if isinstance(after, bool) or not isinstance(after, (int, float)) or not 0 <= after < math.inf:
        raise RequestError(f"after_seconds must be a non-negative number of seconds, not {after!r}")
    return float(after)


def thread_metadata(body: Mapping[str, Any]) -> dict[str, Any]:
    """The metadata a run gives a thread it makes: its config's, then its
    own, each a JSON object if given."""
    config = body.get("config")
    if config is not None and not isinstance(config, Mapping):
        raise RequestError("config must be a JSON object")
    given = checked_metadata((config or {}).get("metadata"), "config.metadata")
    return given | checked_metadata(body.get("metadata"))


def multitask_strategy(body: Mapping[str, Any]) -> str:
    """What a run on a busy thread does (``enqueue``, as langgraph-api's
    default): refused (``reject``), run after the run going on, once it is
    cancelled (``interrupt``) or has ended (``enqueue``). ``rollback`` (the
    run going on cancelled and forgotten, the thread as it was before it) is
    not served: the thread's state is its last run's."""
    strategy = body.get("multitask_strategy") or "enqueue"
    if strategy not in _MULTITASK_STRATEGIES:
        raise RequestError(
            f"multitask_strategy must be one of {', '.join(_MULTITASK_STRATEGIES)}, not {strategy!r}"
        )
    if strategy == "rollback":
        raise RequestError("multitask_strategy rollback is not served: interrupt cancels the run going on")
    return str(strategy)


def named_checkpoint(body: Mapping[str, Any]) -> str | None:
    """The id of the checkpoint a run is to start from, where langgraph-api
    reads it: the run's ``checkpoint`` over its ``checkpoint_id`` over its
    config's. useStream names the thread's head on every run once it has
    fetched the thread's history; editing or regenerating a message names
    an earlier one. A checkpoint of a subgraph (a namespace) is no
    checkpoint of this graph's: refused."""
    config = body.get("config")
    configurable = config.get("configurable") if isinstance(config, Mapping) else None
    named = configurable.get("checkpoint_id") if isinstance(configurable, Mapping) else None
    named = body.get("checkpoint_id") or named
    checkpoint = body.get("checkpoint")
    if checkpoint is not None and not isinstance(checkpoint, Mapping):
        raise RequestError("checkpoint must be a JSON object")
    if checkpoint:
        if checkpoint.get("checkpoint_ns"):
            raise RequestError(
                f"checkpoint_ns {checkpoint['checkpoint_ns']!r} is not served: the graph has no subgraphs"
            )
        named = checkpoint.get("checkpoint_id") or named
    if not named:
        return None
    try:
        return str(uuid.UUID(str(named)))
    except ValueError:
        raise RequestError("Invalid checkpoint ID") from None
