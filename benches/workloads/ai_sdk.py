"""The Vercel AI SDK UI message stream's row: the agent turn as an AI SDK
route writes it, at 2k, 20k and 200k deltas. The SDK's own
``processUIMessageStream`` runs in Node, outside this process: it is
measured when ``AGENTCODEC_AI_SDK_RUNNER`` names a command that reads the
stream on stdin, times the SDK over it as many times as its argument says,
and prints ``{"ms": <the best time>}`` (see ``peers.NodePeer``)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import peers
from workloads import Workload, converted_workload

RUNNER = os.environ.get("AGENTCODEC_AI_SDK_RUNNER")


def _tiny_blocks(count: int) -> Iterator[dict[str, Any]]:
    yield {"type": "start", "messageId": "m"}
    for n in range(count):
        yield {"type": "text-start", "id": f"t{n}"}


WORKLOAD: Workload = converted_workload(
    "ai-sdk",
    layer="assemble_ai_sdk",
    tiny_blocks=_tiny_blocks,
    instructions={"ai-sdk-agent": "agent"},
    unit="chunks",
    peers=(
        (
            "AI SDK processUIMessageStream (Node)",
            peers.NodePeer(RUNNER) if RUNNER else None,
            RUNNER is not None,
        ),
    ),
)
