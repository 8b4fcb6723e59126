"""``/process``, the AgentApp's own Agent API.

Its recording needs no reference of its own (tests/fixtures/agentscope holds
the runtime's final response); the gateway passes its events through.
"""

from __future__ import annotations

from agentapp import QUESTION, Check, Endpoint, data


def judge(label: str, theirs: bytes, ours: bytes, fail: bool, check: Check) -> None:
    def kinds(stream: bytes) -> list[tuple[object, ...]]:
        return [(e.get("object"), e.get("type"), e.get("status")) for e in data(stream)]

    check(f"{label}: /process passes the AgentApp's events through", kinds(theirs) == kinds(ours))


ENDPOINT = Endpoint(
    key="process",
    path="/process",
    body={"input": [{"role": "user", "content": [{"type": "text", "text": QUESTION}]}], "session_id": "s1"},
    reference=None,
    judge=judge,
)
