"""pytest-benchmark suites: every layer, agentcodec and the peers that are
installed, on mid-sized workloads. ``benches/report.py`` prints the
side-by-side table; CI runs these once each (``--benchmark-disable``) to
check that they work.

    pytest benches --benchmark-group-by=param:layer
"""

from __future__ import annotations

from typing import Any

import pytest

import peers
import report
import workloads
import workloads.langchain as langchain_workload

TOKENS = 2000

STREAMS = {
    "framing": workloads.agentscope_stream("text", TOKENS),
    "decode": workloads.agentscope_stream("text", TOKENS),
    # Each protocol's agent turn, from its row.
    **{workload.layer: workload.stream("agent", workload.suite_count) for workload in workloads.rows()},
    # Each conversion a row names, of the AgentScope agent turn.
    **{
        workload.conversion.layer: workloads.agentscope_stream("agent", TOKENS // 10)
        for workload in workloads.rows()
        if workload.conversion is not None
    },
}
CASES = [
    pytest.param(layer, impl, id=f"{layer}-{name}")
    for layer in STREAMS
    for name, impl in peers.available(layer)
]


@pytest.mark.parametrize(("layer", "impl"), CASES)
def test_layer(benchmark: Any, layer: str, impl: peers.Impl) -> None:
    stream = STREAMS[layer]
    chunks = workloads.network_chunks(stream.data)
    result = benchmark(impl, chunks)
    assert result  # every implementation produced something


@pytest.mark.parametrize(
    "impl", [pytest.param(impl, id=name) for name, impl in peers.available("serve_agentscope")]
)
def test_serve(benchmark: Any, impl: Any) -> None:
    pieces = workloads.interleaved(workloads.agentscope_stream("text", 200), 100)
    results = benchmark(impl, pieces)
    assert len(results) == 100


@pytest.mark.parametrize("impl", [pytest.param(impl, id=name) for name, impl in peers.available("build")])
def test_build(benchmark: Any, impl: Any) -> None:
    tokens = workloads.tokens(TOKENS)
    assert benchmark(impl, tokens) > 0


def test_workloads_are_deterministic() -> None:
    assert workloads.network_chunks(b"x" * 10_000) == workloads.network_chunks(b"x" * 10_000)
    assert workloads.tokens(50) == workloads.tokens(50)


@pytest.mark.parametrize("kind", ["text", "agent", "media"])
@pytest.mark.parametrize(
    "peer",
    [langchain_workload.assemble_langchain_handrolled, langchain_workload.assemble_langchain_httpx_sse],
    ids=["hand-rolled", "httpx-sse"],
)
def test_minimal_langchain_peers_assemble_the_same_content(kind: str, peer: peers.Impl) -> None:
    """The minimal peers are measured against agentcodec only if they do the
    same work: the same blocks, text and parsed arguments."""
    pytest.importorskip("orjson")
    pytest.importorskip("httpx_sse")
    from agentcodec import _pure

    chunks = workloads.network_chunks(workloads.langchain_stream(kind, 400).data)
    (message,) = peers.assemble_with(_pure, "LangChainAssembler")(chunks)
    assert peer(chunks) == {("agent:1",): message["content"]}


def test_ratios_are_the_median_of_the_rounds() -> None:
    # A fast spell on the peer's fourth round and a slow one on both fifth
    # rounds leave the ratio at 2; the bests would make it 0.5.
    times = {"agentcodec native": [1.0, 1.0, 1.0, 1.0, 3.0], "peer": [2.0, 2.0, 2.0, 0.5, 6.0]}
    rows = report.ratio_rows("w", times, megabytes=4.0, events=8)
    assert [(name, mbps, ratio) for _, name, mbps, _, ratio in rows] == [
        ("agentcodec native", 4.0, 1.0),
        ("peer", 8.0, 2.0),
    ]


@pytest.mark.skipif(peers._native is None, reason="the bound is the native module's")
@pytest.mark.parametrize("workload", workloads.rows(), ids=lambda workload: workload.protocol)
def test_the_bound_reads_every_event_of_the_same_bytes(workload: workloads.Workload) -> None:
    # Each event of the agent turn validated ([DONE] is not JSON), in the
    # chunks the assemblers get; a stream that is not JSON is refused.
    stream = workload.stream("agent", workload.suite_count)
    validate = peers.strict_validation(workload.protocol)
    assert validate(workloads.network_chunks(stream.data)) == stream.events - stream.data.count(b"[DONE]")
    with pytest.raises(ValueError, match="is not JSON"):
        validate([b'data: {"a": 1}\n\ndata: {oops}\n\n'])
