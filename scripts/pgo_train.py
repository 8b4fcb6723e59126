"""The training run of a profile-guided build (scripts/build-release.sh
--pgo): the native backend's hot paths on the benchmarks' streams, so that
the profile the compiler optimizes for is what users run. Each protocol's
agent turn and long text assembled in network chunks and fed as events,
converted into every other protocol, the SSE and NDJSON readers, encode_sse
on every kind of event, the AgentScope builders, PartialJSON.

    python scripts/pgo_train.py    # with an instrumented build installed

Run from the checkout (it reads benches/workloads); a few tens of seconds.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benches"))

import agentcodec
import workloads
from agentcodec import _native
from agentcodec._pure.registry import PROTOCOLS


def main() -> int:
    if agentcodec.backend != "native":
        print("the training run needs the native backend", file=sys.stderr)
        return 1
    names = list(PROTOCOLS)
    for workload in workloads.rows():
        exported_as = PROTOCOLS[workload.protocol].exported_as
        for kind in ("agent", "text"):
            stream = workload.stream(kind, 20_000)
            chunks = workloads.network_chunks(stream.data)
            assembler = getattr(_native, exported_as)()
            for chunk in chunks:
                assembler.feed(chunk)
            assembler.close()
            events = getattr(_native, exported_as)().feed_with_events(stream.data)
            again = getattr(_native, exported_as)()
            for event in events:
                again.feed_event(event)
            again.close()
        agent = workload.stream("agent", 2_000)
        for target in names:
            transcoder = agentcodec.Transcoder(workload.protocol, target)
            for chunk in workloads.network_chunks(agent.data):
                transcoder.feed(chunk)
            transcoder.close()
    text = workloads.agentscope_stream("text", 20_000)
    decoder = agentcodec.SSEDecoder()
    for chunk in workloads.network_chunks(text.data):
        for event in decoder.feed(chunk):
            event.json()
    for kind in workloads.ENCODED_KINDS:
        for event in workloads.encoded_events(kind, 20_000):
            agentcodec.encode_sse(event)
    builder = agentcodec.agentscope.ResponseBuilder(session_id="s")
    for _ in builder.generate_streaming_sse(workloads.tokens(20_000)):
        pass
    for _ in agentcodec.agentscope.ResponseBuilder(session_id="s").generate_streaming_response(
        workloads.tokens(20_000)
    ):
        pass
    arguments = agentcodec.PartialJSON()
    arguments.feed('{"query": "')
    for token in workloads.tokens(2_000):
        arguments.feed(json.dumps(token, ensure_ascii=False)[1:-1])
        assert arguments.value is not None  # read as a UI does after each piece
    arguments.feed('"}')
    arguments.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
