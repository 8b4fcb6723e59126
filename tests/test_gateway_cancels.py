"""The runs an endpoint's clients cancel by name (``gateway._cancels``), on
their own: how a name comes and goes with the run's frames, a cancel that
reaches another replica through the shared store, and how ``follow`` ends.
Each protocol's cancel, as its clients see it, is in its gateway tests."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Collection

import pytest

from agentcodec.gateway import DemoAgent, Gateway
from agentcodec.gateway._cancels import STOP_CHECK_EVERY, Cancels, StopWatch, follow
from agentcodec.server import MemoryReplayStore, ReplayError


async def _frames(*frames: bytes, then: asyncio.Event | None = None) -> AsyncIterator[bytes]:
    for frame in frames:
        yield frame
    if then is not None:
        await then.wait()


def test_a_run_is_cancelable_by_its_name_until_its_frames_end() -> None:
    async def main() -> None:
        store = MemoryReplayStore()
        cancels = Cancels(Gateway(DemoAgent(), store=store))
        stream_id = await store.open()
        cancel = asyncio.Event()
        frames = cancels.watched(_frames(b"a", b"b"), stream_id, cancel, name="run-1")
        # Named before a frame goes: a client may cancel as soon as it is answered.
        assert await cancels.cancel("run-1", stream_id) is True
        assert cancel.is_set()
        assert [frame async for frame in frames] == [b"a", b"b"]
        # Its frames ended: the name is gone, and an ended run has nothing to stop.
        await store.finish(stream_id)
        assert await cancels.cancel("run-1", stream_id) is False

    asyncio.run(main())


def test_a_run_named_by_its_first_frame_is_cancelable_from_then_on() -> None:
    async def main() -> None:
        store = MemoryReplayStore()
        cancels = Cancels(Gateway(DemoAgent(), store=store))
        stream_id = await store.open()
        cancel, hold = asyncio.Event(), asyncio.Event()
        read: list[bytes] = []

        async def named(frame: bytes) -> str | None:
            read.append(frame)
            return frame.decode()

        frames = cancels.watched(_frames(b"", b"run-2", b"x", then=hold), stream_id, cancel, named_by=named)
        assert [await anext(frames), await anext(frames)] == [b"", b"run-2"]
        assert read == [b"run-2"]  # an empty frame names nothing; the first with bytes does
        assert await cancels.cancel("run-2", stream_id) is True
        assert cancel.is_set()
        assert await anext(frames) == b"x"
        assert read == [b"run-2"]  # named once
        await frames.aclose()  # type: ignore[attr-defined]
        # Closed early, its run unfinished: a cancel now goes through the store.
        await cancels.cancel("run-2", stream_id)
        assert await store.stop_requested(stream_id)

    asyncio.run(main())


def test_a_cancel_at_another_replica_stops_the_run_through_the_store() -> None:
    async def main() -> None:
        store = MemoryReplayStore()
        here, there = (Cancels(Gateway(DemoAgent(), store=store)) for _ in range(2))
        stream_id = await store.open()
        cancel, hold = asyncio.Event(), asyncio.Event()
        frames = here.watched(_frames(b"a", then=hold), stream_id, cancel, name="run-3")
        assert await anext(frames) == b"a"
        assert await there.cancel("run-3", stream_id) is True
        # The run's replica looks for the request every half second.
        await asyncio.wait_for(cancel.wait(), 5)
        await frames.aclose()  # type: ignore[attr-defined]

    asyncio.run(main())


def test_a_replica_looks_for_every_run_it_watches_in_one_request() -> None:
    """However many runs a replica watches, it asks the store about them
    once every ``STOP_CHECK_EVERY`` seconds, and not at all once none runs."""
    asked: list[list[str]] = []

    class Counting(MemoryReplayStore):
        async def stops_requested(self, stream_ids: Collection[str]) -> set[str]:
            asked.append(sorted(stream_ids))
            return await super().stops_requested(stream_ids)

    async def main() -> None:
        store = Counting()
        watch = StopWatch(store)
        streams = [await store.open() for _ in range(50)]
        cancelled = {stream_id: asyncio.Event() for stream_id in streams}
        async with contextlib.AsyncExitStack() as watching:
            for stream_id in streams:
                await watching.enter_async_context(watch.watching(stream_id, cancelled[stream_id]))
            await store.request_stop(streams[7])
            await asyncio.wait_for(cancelled[streams[7]].wait(), 5)
            assert [event.is_set() for event in cancelled.values()].count(True) == 1
            assert asked[0] == sorted(streams)
            await asyncio.sleep(STOP_CHECK_EVERY * 1.5)
            # The cancelled one is no longer asked about.
            assert asked[-1] == sorted(set(streams) - {streams[7]})
        looks = len(asked)
        await asyncio.sleep(STOP_CHECK_EVERY * 2.5)
        assert len(asked) <= looks + 1  # the last look, if one was under way
        await watch.aclose()

    asyncio.run(main())


def test_a_cancel_at_another_replica_is_refused_by_a_store_that_carries_no_request() -> None:
    class Keeping(MemoryReplayStore):
        async def request_stop(self, stream_id: str) -> None:
            raise NotImplementedError

    async def main() -> None:
        store = Keeping()
        cancels = Cancels(Gateway(DemoAgent(), store=store))
        stream_id = await store.open()
        with pytest.raises(NotImplementedError):
            await cancels.cancel("elsewhere", stream_id)
        with pytest.raises(ReplayError):
            await cancels.cancel("unknown", "no-such-stream")

    asyncio.run(main())


def test_follow_ends_with_the_stream_with_enough_or_after_its_wait() -> None:
    async def main() -> None:
        store = MemoryReplayStore()
        stream_id = await store.open()
        for frame in (b"a", b"b", b"c"):
            await store.append(stream_id, frame)
        fed: list[bytes] = []
        # Until the feed has what it waits for.
        await follow(store, stream_id, lambda frame: fed.append(frame) or frame == b"b")
        assert fed == [b"a", b"b"]
        # A stream that goes on: what came within the wait.
        fed.clear()
        await asyncio.wait_for(follow(store, stream_id, fed.append, 0.2), 5)
        assert fed == [b"a", b"b", b"c"]
        # A finished stream: all of it, at once.
        await store.finish(stream_id)
        fed.clear()
        await asyncio.wait_for(follow(store, stream_id, fed.append), 5)
        assert fed == [b"a", b"b", b"c"]
        with pytest.raises(ReplayError):
            await follow(store, "no-such-stream", fed.append)

    asyncio.run(main())
