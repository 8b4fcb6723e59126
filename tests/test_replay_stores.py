"""The replay stores behind one interface: the in-memory ring and Redis
Streams on a real redis-server, held to the same tests."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError

from agentcodec.server import MemoryReplayStore, RedisReplayStore, ReplayError, ReplayStore
from servers import redis_server

MakeStore = Callable[..., ReplayStore]


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with redis_server(tmp_path_factory.mktemp("redis")) as url:
        yield url


@pytest.fixture(params=["memory", "redis", "redis-resp3"])
def make_store(request: pytest.FixtureRequest) -> MakeStore:
    if request.param == "memory":
        return MemoryReplayStore
    url = request.getfixturevalue("redis_url")
    if request.param == "redis-resp3":
        # A client speaking RESP3 gets its replies in other shapes; its keys
        # are its own on the module's server (an alias set on the other row
        # is not listed here).
        url += "?protocol=3"
        return lambda **options: RedisReplayStore(url, block_seconds=0.2, prefix="resp3:", **options)
    return lambda **options: RedisReplayStore(url, block_seconds=0.2, **options)


def run(make_store: MakeStore, test: Callable[[ReplayStore], Awaitable[Any]], **options: Any) -> Any:
    async def main() -> Any:
        store = make_store(**options)
        try:
            return await test(store)
        finally:
            await store.aclose()

    return asyncio.run(main())


async def collect(entries: AsyncIterator[tuple[int, bytes]]) -> list[tuple[int, bytes]]:
    return [entry async for entry in entries]


def test_a_finished_stream_replays_after_any_number(make_store: MakeStore) -> None:
    async def test(store: ReplayStore) -> None:
        stream = await store.open()
        for number in range(1, 6):
            assert await store.append(stream, b"data: %d\n\n" % number) == number
        await store.finish(stream)
        assert await collect(await store.replay(stream, 0)) == [(n, b"data: %d\n\n" % n) for n in range(1, 6)]
        assert await collect(await store.replay(stream, 3)) == [(4, b"data: 4\n\n"), (5, b"data: 5\n\n")]
        assert await collect(await store.replay(stream, 5)) == []
        assert await asyncio.wait_for(collect(await store.replay(stream, 9)), 5) == []  # past its end

    run(make_store, test)


def test_a_reader_past_the_end_of_a_live_stream_ends_with_it(make_store: MakeStore) -> None:
    async def test(store: ReplayStore) -> None:
        stream = await store.open()
        await store.append(stream, b"data: 1\n\n")
        reader = asyncio.ensure_future(collect(await store.replay(stream, 7)))
        await store.append(stream, b"data: 2\n\n")
        await asyncio.sleep(0.05)
        await store.finish(stream)
        assert await asyncio.wait_for(reader, 5) == []

    run(make_store, test)


def test_readers_follow_a_live_stream(make_store: MakeStore) -> None:
    async def test(store: ReplayStore) -> None:
        stream = await store.open()
        await store.append(stream, b"a")
        readers = [asyncio.ensure_future(collect(await store.replay(stream, after))) for after in (0, 1)]

        async def write() -> None:
            for piece in (b"b", b"c"):
                await asyncio.sleep(0.05)
                await store.append(stream, piece)
            await store.finish(stream)

        await write()
        assert await asyncio.wait_for(asyncio.gather(*readers), 10) == [
            [(1, b"a"), (2, b"b"), (3, b"c")],
            [(2, b"b"), (3, b"c")],
        ]

    run(make_store, test)


def test_events_stored_at_once_are_numbered_on_and_kept_to_the_bound(make_store: MakeStore) -> None:
    """``extend``: what one piece of a producer's output holds, stored in one
    write, numbered after the stream's last, followed live, trimmed to the
    bound like events appended one at a time."""

    async def test(store: ReplayStore) -> None:
        stream = await store.open()
        reader = asyncio.ensure_future(collect(await store.replay(stream, 0)))
        assert await store.append(stream, b"a") == 1
        assert await store.extend(stream, [b"b", b"c", b"d"]) == 4
        with pytest.raises(ValueError, match="at least one event"):
            await store.extend(stream, [])
        await store.finish(stream)
        assert await asyncio.wait_for(reader, 10) == list(enumerate([b"a", b"b", b"c", b"d"], 1))
        assert await collect(await store.replay(stream, 2)) == [(3, b"c"), (4, b"d")]
        other = await store.open()
        assert await store.extend(other, [b"%d" % number for number in range(1, 11)]) == 10
        await store.finish(other)
        assert [number for number, _ in await collect(await store.replay(other, 6))] == [7, 8, 9, 10]

    run(make_store, test, max_events=4)


def test_an_open_stream_with_no_events_can_be_followed(make_store: MakeStore) -> None:
    async def test(store: ReplayStore) -> None:
        stream = await store.open()
        reader = asyncio.ensure_future(collect(await store.replay(stream, 0)))
        await asyncio.sleep(0.05)
        await store.finish(stream)
        assert await asyncio.wait_for(reader, 10) == []

    run(make_store, test)


def test_events_dropped_from_the_bound_are_a_gap_not_a_hole(make_store: MakeStore) -> None:
    async def test(store: ReplayStore) -> None:
        stream = await store.open()
        for number in range(1, 11):
            await store.append(stream, b"%d" % number)
        await store.finish(stream)
        with pytest.raises(ReplayError, match="oldest event stored is 7") as caught:
            await store.replay(stream, 5)
        assert (caught.value.after, caught.value.first_available) == (5, 7)
        assert [n for n, _ in await collect(await store.replay(stream, 6))] == [7, 8, 9, 10]

    run(make_store, test, max_events=4)


def test_a_reader_left_behind_by_the_bound_gets_an_error(make_store: MakeStore) -> None:
    async def test(store: ReplayStore) -> None:
        stream = await store.open()
        await store.append(stream, b"1")
        entries = await store.replay(stream, 0)
        assert await anext(entries) == (1, b"1")
        for number in range(2, 8):
            await store.append(stream, b"%d" % number)
        await store.finish(stream)
        with pytest.raises(ReplayError):
            await collect(entries)

    run(make_store, test, max_events=3)


def test_unknown_streams_and_writes_to_finished_ones_are_refused(make_store: MakeStore) -> None:
    async def test(store: ReplayStore) -> None:
        with pytest.raises(ReplayError, match="not stored"):
            await store.replay("nosuchstream", 0)
        stream = await store.open()
        await store.finish(stream)
        with pytest.raises((ValueError, ReplayError)):
            await store.append(stream, b"late")

    run(make_store, test)


@pytest.mark.parametrize("own", [True, False], ids=["the-stores-own", "from-a-snapshot"])
def test_whether_a_stream_has_finished_is_told_without_reading_it(make_store: MakeStore, own: bool) -> None:
    async def test(store: ReplayStore) -> None:
        finished = store.finished if own else lambda stream: ReplayStore.finished(store, stream)
        stream = await store.open()
        assert not await finished(stream)  # opened, nothing in it yet
        for number in range(1, 8):
            await store.append(stream, b"%d" % number)
        assert not await finished(stream)
        await store.finish(stream)
        assert await finished(stream)
        with pytest.raises(ReplayError, match="not stored"):
            await finished("nosuchstream")

    # The store's own answer holds with the stream's first events dropped
    # (which a snapshot refuses).
    run(make_store, test, **({"max_events": 3} if own else {}))


def test_a_reader_marks_the_stream_read_while_it_follows_and_waits(make_store: MakeStore) -> None:
    """What a producer asks to tell a stream nobody reads any more: readers
    mark it as they follow, and while they wait for events; a stream whose
    readers left is read no more once its marks are older than asked."""

    async def test(store: ReplayStore) -> None:
        stream = await store.open()
        assert not await store.read_within(stream, 60)  # never read
        await store.append(stream, b"data: 1\n\n")
        entries = await store.replay(stream, 0)
        assert await anext(entries) == (1, b"data: 1\n\n")
        assert await store.read_within(stream, 60)
        # Waiting for the next event, for longer than a mark lasts: still read.
        waiting = asyncio.ensure_future(anext(entries))
        await asyncio.sleep(1.6)
        assert await store.read_within(stream, 1.0)
        waiting.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await waiting
        await entries.aclose()  # the reader leaves
        await asyncio.sleep(1.2)
        assert not await store.read_within(stream, 1.0)
        assert await store.read_within(stream, 60)
        await store.mark_read(stream)  # a reader of its own, marking itself
        assert await store.read_within(stream, 0.5)
        await store.finish(stream)

    run(make_store, test)


def test_a_request_to_stop_a_stream_is_seen_by_its_producer(make_store: MakeStore) -> None:
    """How a run is cancelled from another replica than its own: the
    request, made of the store, is what the producer's replica looks for."""

    async def test(store: ReplayStore) -> None:
        stream, other = await store.open(), await store.open()
        assert not await store.stop_requested(stream)
        await store.request_stop(stream)
        assert await store.stop_requested(stream)
        assert not await store.stop_requested(other)
        assert not await store.stop_requested("nosuchstream")
        # Asked at once for every stream a replica runs: the ones to stop.
        assert await store.stops_requested([stream, other, "nosuchstream"]) == {stream}
        assert await store.stops_requested([]) == set()
        with pytest.raises(ReplayError, match="not stored"):
            await store.request_stop("nosuchstream")

    run(make_store, test)


def test_a_store_that_carries_no_requests_to_stop_says_so() -> None:
    class Plain(MemoryReplayStore):
        request_stop = ReplayStore.request_stop
        stop_requested = ReplayStore.stop_requested

    async def test() -> None:
        store = Plain()
        stream = await store.open()
        with pytest.raises(NotImplementedError, match="carries no requests to stop a stream"):
            await store.request_stop(stream)
        assert not await store.stop_requested(stream)

    asyncio.run(test())


def test_a_store_that_keeps_no_marks_never_has_a_stream_taken_for_abandoned() -> None:
    class Marker(MemoryReplayStore):
        mark_read = ReplayStore.mark_read
        read_within = ReplayStore.read_within

    async def test() -> None:
        store = Marker()
        stream = await store.open()
        await store.mark_read(stream)
        assert await store.read_within(stream, 0.0)

    asyncio.run(test())


def test_an_alias_names_the_latest_stream_and_can_be_waited_for(make_store: MakeStore) -> None:
    async def test(store: ReplayStore) -> None:
        assert await store.resolve_alias("thread:a") is None
        assert await store.resolve_alias("thread:a", timeout=0.05) is None
        first = await store.open()
        await store.set_alias("thread:a", first)
        assert await store.resolve_alias("thread:a") == first
        second = await store.open()
        await store.set_alias("thread:a", second)
        assert await store.resolve_alias("thread:a", timeout=None) == second
        assert await store.resolve_alias("thread:b") is None
        # Those waiting for an alias wake when it is set, each of them.
        waiting = [asyncio.ensure_future(store.resolve_alias("thread:b", timeout=None)) for _ in range(3)]
        await asyncio.sleep(0.05)
        assert not any(task.done() for task in waiting)
        third = await store.open()
        await store.set_alias("thread:b", third)
        assert await asyncio.wait_for(asyncio.gather(*waiting), 5) == [third] * 3

    run(make_store, test)


def test_an_alias_is_set_only_where_it_points_as_expected(make_store: MakeStore) -> None:
    """``compare_and_set_alias``: set where the alias points at the stream
    expected (None: nowhere), refused elsewhere, and of many claims at once
    (replicas racing for a thread), one wins."""

    async def test(store: ReplayStore) -> None:
        # (names no other test sets: the Redis server is shared)
        first, second, third = [await store.open() for _ in range(3)]
        waiting = asyncio.ensure_future(store.resolve_alias("claimed:a", timeout=None))
        assert await store.compare_and_set_alias("claimed:a", first, expected=None) is True
        assert await asyncio.wait_for(waiting, 5) == first  # (set as set_alias sets: waiters wake)
        assert await store.compare_and_set_alias("claimed:a", second, expected=None) is False
        assert await store.compare_and_set_alias("claimed:a", second, expected=third) is False
        assert await store.resolve_alias("claimed:a") == first
        assert await store.compare_and_set_alias("claimed:a", second, expected=first) is True
        assert await store.resolve_alias("claimed:a") == second
        assert await store.aliases("claimed:") == [("claimed:a", second)]
        # Claimed at once from a stream each: one wins, and the alias names it.
        others = [make_store() for _ in range(2)] if not isinstance(store, MemoryReplayStore) else [store]
        try:
            claims = [await store.open() for _ in range(12)]
            for other in others:  # (connections made first, so that the claims go out together)
                if isinstance(other, RedisReplayStore):
                    await asyncio.gather(*(other.redis.ping() for _ in claims))
            won = await asyncio.gather(
                *(
                    others[n % len(others)].compare_and_set_alias("claimed:b", claim, expected=None)
                    for n, claim in enumerate(claims)
                )
            )
        finally:
            for other in others:
                if other is not store:
                    await other.aclose()
        assert won.count(True) == 1
        assert await store.resolve_alias("claimed:b") == claims[won.index(True)]
        if isinstance(store, MemoryReplayStore):
            # A store of one's own inherits a look then a set: the same answers, one replica at a time.
            assert await ReplayStore.compare_and_set_alias(store, "claimed:c", first, expected=None)
            assert not await ReplayStore.compare_and_set_alias(store, "claimed:c", second, expected=None)
            assert await store.resolve_alias("claimed:c") == first

    run(make_store, test)


def test_aliases_are_listed_by_prefix_the_one_set_last_first(make_store: MakeStore) -> None:
    async def test(store: ReplayStore) -> None:
        # (names no other test sets: the Redis server is shared)
        assert await store.aliases("listed-task:") == []
        streams = [await store.open() for _ in range(3)]
        await store.set_alias("listed-task:a", streams[0])
        await store.set_alias("listed-thread:a", streams[1])
        await store.set_alias("listed-task:b", streams[1])
        await asyncio.sleep(0.01)  # (Redis scores by the millisecond)
        await store.set_alias("listed-task:a", streams[2])  # set again: it is the latest now
        assert await store.aliases("listed-task:") == [
            ("listed-task:a", streams[2]),
            ("listed-task:b", streams[1]),
        ]
        assert await store.aliases("listed-thread:") == [("listed-thread:a", streams[1])]
        assert await store.aliases("listed-nothing:") == []

    run(make_store, test)


def test_deleted_aliases_point_nowhere_and_are_listed_no_more(make_store: MakeStore) -> None:
    async def test(store: ReplayStore) -> None:
        # (names no other test sets: the Redis server is shared)
        streams = [await store.open() for _ in range(2)]
        await store.set_alias("deleted-run:a", streams[0])
        await store.set_alias("deleted-run:b", streams[1])
        await store.set_alias("deleted-kept:c", streams[1])
        await store.delete_aliases(["deleted-run:a", "deleted-run:b", "deleted-never-set"])
        await store.delete_aliases([])
        assert await store.resolve_alias("deleted-run:a") is None
        assert await store.resolve_alias("deleted-run:b") is None
        assert await store.aliases("deleted-run:") == []
        assert await store.aliases("deleted-") == [("deleted-kept:c", streams[1])]
        # The streams stay, and an alias deleted can be set again.
        await store.set_alias("deleted-run:a", streams[0])
        assert await store.resolve_alias("deleted-run:a") == streams[0]

    run(make_store, test)


def test_the_list_of_aliases_expires_with_them(redis_url: str) -> None:
    async def main() -> None:
        # The stream's writer is another replica, gone: nothing keeps the alias.
        writer = RedisReplayStore(redis_url, prefix="expiring:", ttl=0.2)
        stream = await writer.open()
        await writer.aclose()
        store = RedisReplayStore(redis_url, prefix="expiring:", ttl=0.2)
        try:
            await store.set_alias("task:old", stream)
            await asyncio.sleep(0.3)
            assert await store.aliases("task:") == []  # expired, though not yet pruned
            await store.set_alias("task:new", stream)  # prunes what expired
            assert await store.redis.zrange("expiring:aliases", 0, -1) == [b"task:new"]
            assert await store.aliases("task:") == [("task:new", stream)]
        finally:
            await store.aclose()

    asyncio.run(main())


def test_a_stream_written_is_kept_with_its_aliases_however_long_it_goes_quiet(make_store: MakeStore) -> None:
    """A stream going without an event for longer than the ttl (a run
    waiting its turn, or one longer than the ttl) is kept while it is
    written, and so are the aliases naming it, listed too: a store that let
    them expire forgot a run while it ran, and freed its thread to a second
    run. Once the stream ends, it is forgotten ttl later, with its aliases."""

    async def test(store: ReplayStore) -> None:
        stream, other = await store.open(), await store.open()
        await store.append(stream, b"first")
        await store.set_alias("run:kept", stream)
        assert await store.compare_and_set_alias("thread:kept", stream, expected=None)
        await store.set_alias("run:moved", stream)
        await store.set_alias("run:moved", other)  # names another stream since
        await asyncio.sleep(1.0)
        assert await store.stored(stream) == ([(1, b"first")], False)
        assert [await store.resolve_alias(name) for name in ("run:kept", "thread:kept")] == [stream, stream]
        assert sorted(await store.aliases("run:")) == sorted([("run:kept", stream), ("run:moved", other)])
        await store.append(stream, b"second")
        await store.finish(stream)
        await store.finish(other)
        await asyncio.sleep(0.2)
        assert await store.resolve_alias("run:kept") == stream  # ended 0.2 s ago: still kept
        await asyncio.sleep(0.5)
        await store.open()  # (the memory store forgets what expired as it opens another)
        with pytest.raises(ReplayError, match="not stored"):
            await store.stored(stream)
        assert [await store.resolve_alias(name) for name in ("run:kept", "thread:kept")] == [None, None]
        assert await store.aliases("run:kept") == []

    run(make_store, test, ttl=0.4)


def test_the_memory_store_forgets_aliases_with_their_streams() -> None:
    async def main() -> None:
        store = MemoryReplayStore(max_streams=2)
        streams = [await store.open() for _ in range(3)]  # the first is dropped
        with pytest.raises(ReplayError, match="not stored"):
            await store.set_alias("gone", streams[0])
        await store.set_alias("a", streams[1])
        await store.set_alias("b", streams[2])
        await store.set_alias("c", streams[2])  # past max_streams aliases: "a" goes
        assert [await store.resolve_alias(name) for name in "abc"] == [None, streams[2], streams[2]]
        await store.open()
        await store.open()  # both aliased streams dropped: so are their aliases
        assert [await store.resolve_alias(name) for name in "bc"] == [None, None]
        assert await store.aliases("") == []
        assert not store._aliases
        # A waiter that gives up leaves nothing behind.
        assert await store.resolve_alias("nobody", timeout=0.01) is None
        assert not store._alias_waiters

    asyncio.run(main())


def test_the_memory_store_forgets_old_streams() -> None:
    async def main() -> None:
        store = MemoryReplayStore(max_streams=2, ttl=0)
        first = await store.open()
        reader = await store.replay(first, 0)
        await store.open()
        await store.open()  # the first, unfinished, is dropped to make room
        assert len(store) == 2
        with pytest.raises(ReplayError, match="not stored"):
            await collect(reader)
        finished = await store.open()
        await store.finish(finished)
        await store.open()  # a finished stream past its ttl is forgotten
        with pytest.raises(ReplayError):
            await store.replay(finished, 0)

    asyncio.run(main())


def test_the_redis_store_expires_the_streams_of_a_writer_gone(redis_url: str) -> None:
    """A replica stopped midway (its process gone, its store closed) keeps
    its streams no more: they expire ttl after it last kept them."""

    async def main() -> None:
        writer = RedisReplayStore(redis_url, ttl=0.2)
        stream = await writer.open()
        await writer.append(stream, b"x")
        await writer.set_alias("gone:run", stream)
        await writer.aclose()
        store = RedisReplayStore(redis_url, ttl=0.2)
        try:
            assert await store.redis.pttl(f"agentcodec:stream:{stream}") > 0
            await asyncio.sleep(0.4)
            with pytest.raises(ReplayError, match="not stored"):
                await store.replay(stream, 0)
            assert await store.resolve_alias("gone:run") is None
        finally:
            await store.aclose()

    asyncio.run(main())


def test_a_redis_store_whose_server_went_away_keeps_nothing_for_its_streams(tmp_path: Path) -> None:
    async def main() -> None:
        with redis_server(tmp_path) as url:
            store = RedisReplayStore(url)
            stream = await store.open()
        # The server is gone: finishing fails, and leaves nothing behind.
        try:
            with pytest.raises(RedisConnectionError):
                await store.finish(stream)
            assert not store._written
        finally:
            await store.aclose()

    asyncio.run(main())


def test_store_options_are_checked(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="max_events"):
        MemoryReplayStore(max_events=0)
    with pytest.raises(ValueError, match="ttl"):
        MemoryReplayStore(ttl=-1)
    with pytest.raises(ValueError, match="max_events"):
        RedisReplayStore(object(), max_events=True)


async def read_across_a_quiet(store: ReplayStore, seconds: float) -> list[tuple[int, bytes]]:
    """What a reader following a stream reads when the stream goes quiet
    for ``seconds`` between its first event and its second."""
    stream = await store.open()
    await store.append(stream, b"first")
    reader = asyncio.ensure_future(collect(await store.replay(stream, 0)))
    await asyncio.sleep(seconds)
    await store.append(stream, b"second")
    await store.finish(stream)
    return await asyncio.wait_for(reader, 10)


@pytest.mark.parametrize("socket_timeout", [2.0, None])
def test_a_reader_waits_out_a_quiet_stream_whatever_the_clients_socket_timeout(
    redis_url: str, socket_timeout: float | None
) -> None:
    """A stream quiet for longer than the Redis client's socket timeout is
    waited out, not cut: redis-py 8 times reads out at 5 s, the store's
    default XREAD BLOCK, and a stream quiet for 5 s ended in a TimeoutError
    (gateway.md 1). Here the client's timeout is 2 s, the store's block the
    default, and the stream quiet for 2.5 s. (At 0.5 s, a read blocked for
    0.25 s left too small a margin on a loaded machine: any command that took
    the client more than 0.5 s to hear back from Redis timed out.)"""
    from redis.asyncio import from_url

    async def main() -> None:
        options = {} if socket_timeout is None else {"socket_timeout": socket_timeout}
        client = from_url(redis_url, **options)
        store = RedisReplayStore(client)
        try:
            assert await read_across_a_quiet(store, 2.5) == [(1, b"first"), (2, b"second")]
        finally:
            await store.aclose()
            await client.aclose()

    asyncio.run(main())


def test_a_store_made_from_a_url_waits_out_a_stream_quiet_past_redis_pys_default_timeout(
    redis_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A pool made from a URL does not name its socket timeout, which
    redis-py 8's connections default to 5 s, the store's XREAD BLOCK: every
    stream quiet for 5 s cut the readers' shared wait, which logged a
    warning and connected again. The store reads the connections' default."""

    async def main() -> None:
        store = RedisReplayStore(redis_url)
        try:
            assert await read_across_a_quiet(store, 5.5) == [(1, b"first"), (2, b"second")]
        finally:
            await store.aclose()

    with caplog.at_level("WARNING", logger="agentcodec.server"):
        asyncio.run(main())
    assert not [record for record in caplog.records if record.levelname == "WARNING"]


def test_the_memory_store_keeps_to_its_byte_budget_forgetting_the_oldest_first() -> None:
    """Past ``max_bytes``, finished streams go first, oldest first; then the
    oldest events of the oldest streams, a reader behind them told of the
    gap; the newest events stay."""

    async def main() -> None:
        store = MemoryReplayStore(max_bytes=100)
        done = await store.open()
        await store.append(done, b"d" * 40)
        await store.finish(done)
        older, newer = await store.open(), await store.open()
        await store.append(older, b"o" * 30)
        caught_up = await store.replay(older, 0)
        assert await anext(caught_up) == (1, b"o" * 30)
        behind = await store.replay(older, 0)  # has read nothing yet
        await store.append(older, b"p" * 30)
        await store.append(newer, b"n" * 30)  # 130 bytes kept: the finished stream goes
        with pytest.raises(ReplayError):
            await store.replay(done, 0)
        await store.append(newer, b"m" * 30)  # 120: the oldest event of the oldest stream goes
        with pytest.raises(ReplayError):
            await store.replay(older, 0)
        await store.finish(older)
        await store.finish(newer)
        assert await collect(caught_up) == [(2, b"p" * 30)]
        with pytest.raises(ReplayError):
            await collect(behind)
        assert await collect(await store.replay(newer, 0)) == [(1, b"n" * 30), (2, b"m" * 30)]

    asyncio.run(main())


@pytest.mark.parametrize("budget", [0, -1, True, 1.5])
def test_the_byte_budget_is_a_positive_int_or_none(budget: Any) -> None:
    with pytest.raises(ValueError, match="max_bytes must be a positive int or None"):
        MemoryReplayStore(max_bytes=budget)


def test_many_readers_share_a_few_connections(redis_url: str) -> None:
    """Readers waiting for their streams' next events hold no connection of
    their own: 200 readers of 20 live streams, on a client of 8 connections,
    each read every event, and the writers are never kept waiting. (Each
    reader blocked in an XREAD of its own: a hundred of them took every
    connection of redis-py's default pool, and the writers failed with "Too
    many connections".)"""

    async def main() -> None:
        store = RedisReplayStore(f"{redis_url}?max_connections=8", block_seconds=5)
        try:
            streams = [await store.open() for _ in range(20)]
            readers = [
                asyncio.ensure_future(collect(await store.replay(stream, 0)))
                for stream in streams
                for _ in range(10)
            ]

            async def write(stream: str) -> None:
                for number in range(1, 31):
                    await store.append(stream, b"%d" % number)
                    await asyncio.sleep(0.005)
                await store.finish(stream)

            await asyncio.wait_for(asyncio.gather(*(write(stream) for stream in streams)), 30)
            expected = [(number, b"%d" % number) for number in range(1, 31)]
            assert await asyncio.wait_for(asyncio.gather(*readers), 30) == [expected] * 200
        finally:
            await store.aclose()

    asyncio.run(main())


@pytest.mark.parametrize("client_commands", [True, False])
def test_a_reader_of_a_new_stream_is_woken_at_once_while_others_wait(
    redis_url: str, client_commands: bool, caplog: pytest.LogCaptureFixture
) -> None:
    """A reader that starts waiting while the store's readers already wait
    (for 5 s at a time) is woken by its stream's next event at once, not
    when their wait ends. So too where Redis refuses the commands the
    shared wait needs (an ACL user without ``CLIENT``): each reader then
    waits on its own, as the log says."""
    from redis.asyncio import from_url

    async def main() -> None:
        url = redis_url
        if not client_commands:
            admin = from_url(redis_url)
            await admin.acl_setuser(
                "noclient",
                enabled=True,
                passwords=["+pw"],
                keys=["~*"],
                channels=["&*"],
                commands=["+@all", "-client"],
            )
            await admin.aclose()
            url = f"{redis_url}?username=noclient&password=pw"
        store = RedisReplayStore(url, block_seconds=5)
        try:
            quiet, busy = await store.open(), await store.open()
            waiting = asyncio.ensure_future(collect(await store.replay(quiet, 0)))
            await asyncio.sleep(0.3)  # its wait under way
            entries = await store.replay(busy, 0)
            loop = asyncio.get_running_loop()
            for number in range(1, 4):
                reading = asyncio.ensure_future(anext(entries))  # type: ignore[arg-type]
                await asyncio.sleep(0.2)  # waiting too
                sent = loop.time()
                await store.append(busy, b"%d" % number)
                assert await asyncio.wait_for(reading, 5) == (number, b"%d" % number)
                assert loop.time() - sent < 1.0
            await entries.aclose()  # type: ignore[attr-defined]
            await store.finish(quiet)
            assert await asyncio.wait_for(waiting, 10) == []
            # Waiting for an alias to be set is such a wait too.
            alias = f"later-{client_commands}"  # (the server is the module's)
            named = asyncio.ensure_future(store.resolve_alias(alias, timeout=10))
            await asyncio.sleep(0.2)
            sent = loop.time()
            await store.set_alias(alias, busy)
            assert await asyncio.wait_for(named, 5) == busy
            assert loop.time() - sent < 1.0
        finally:
            await store.aclose()

    with caplog.at_level("WARNING", logger="agentcodec.server"):
        asyncio.run(main())
    refused = [
        record
        for record in caplog.records
        if "each reader waits on a connection of its own" in record.message
    ]
    assert len(refused) == (0 if client_commands else 1)


def test_readers_at_different_places_of_a_stream_wait_without_asking_again(redis_url: str) -> None:
    """Readers of one stream waiting from different places (one read to its
    end, one behind it, one past its end) are each woken by what they lack,
    and while nothing comes they wait: the store does not ask Redis over and
    over."""
    from redis.asyncio import from_url

    async def commands(client: Any) -> int:
        stats = await client.info("commandstats")
        return sum(int(stat["calls"]) for name, stat in stats.items() if name != "cmdstat_info")

    async def main() -> None:
        store = RedisReplayStore(redis_url, block_seconds=5)
        client = from_url(redis_url)
        try:
            stream = await store.open()
            for number in (1, 2):
                await store.append(stream, b"%d" % number)
            at_end = await store.replay(stream, 0)
            assert [await anext(at_end), await anext(at_end)] == [(1, b"1"), (2, b"2")]  # type: ignore[arg-type]
            waiting_at_end = asyncio.ensure_future(anext(at_end))  # type: ignore[arg-type]
            past_end = asyncio.ensure_future(collect(await store.replay(stream, 7)))
            await asyncio.sleep(0.3)
            behind = await store.replay(stream, 1)
            assert await asyncio.wait_for(anext(behind), 1) == (2, b"2")  # type: ignore[arg-type]
            waiting_behind = asyncio.ensure_future(anext(behind))  # type: ignore[arg-type]
            await asyncio.sleep(0.3)
            before = await commands(client)
            await asyncio.sleep(1.0)
            assert await commands(client) - before < 10
            await store.append(stream, b"3")
            assert await asyncio.wait_for(waiting_at_end, 1) == (3, b"3")
            assert await asyncio.wait_for(waiting_behind, 1) == (3, b"3")
            assert not past_end.done()
            await store.finish(stream)
            assert await asyncio.wait_for(past_end, 10) == []
            for entries in (at_end, behind):
                await entries.aclose()  # type: ignore[attr-defined]
        finally:
            await store.aclose()
            await client.aclose()

    asyncio.run(main())


def test_a_backlog_behind_a_reader_is_read_once(redis_url: str) -> None:
    """A burst of entries comes while a reader waits: the shared wait hands
    it the first of them, and the reader, slow to take them, reads the rest
    itself. The wait does not read on through the burst for nobody while
    the reader is busy (it did, 64 entries a read: every entry of the
    backlog read twice)."""
    from redis.asyncio import from_url

    async def xreads(client: Any) -> int:
        stats = await client.info("commandstats")
        return int(stats.get("cmdstat_xread", {}).get("calls", 0))

    async def main() -> None:
        store = RedisReplayStore(redis_url, block_seconds=5)
        client = from_url(redis_url)
        try:
            stream = await store.open()
            await store.append(stream, b"0")
            entries = await store.replay(stream, 0)
            assert await anext(entries) == (1, b"0")  # type: ignore[arg-type]
            waiting = asyncio.ensure_future(anext(entries))  # type: ignore[arg-type]
            await asyncio.sleep(0.3)  # the reader waits
            before = await xreads(client)
            burst = [b"%d" % number for number in range(1, 2001)]
            await store.extend(stream, burst)
            await store.finish(stream)
            got = [await asyncio.wait_for(waiting, 5)]
            async for entry in entries:  # type: ignore[attr-defined]
                got.append(entry)
                if len(got) % 64 == 0:
                    await asyncio.sleep(0.02)  # a client slow to take them
            assert got == [(number + 1, data) for number, data in enumerate(burst, start=1)]
            # The wait's read, the reader's own (512 at a time), and a few to spare.
            assert await xreads(client) - before < 12
        finally:
            await store.aclose()
            await client.aclose()

    asyncio.run(main())


@pytest.mark.parametrize("events", [2, 7], ids=["kept", "past-the-bound"])
def test_a_stream_is_dated_when_opened_and_when_finished(make_store: MakeStore, events: int) -> None:
    """``times``: when a stream was opened, and when it finished (None while
    it runs), by the wall clock, the opening known once the stream's first
    events were dropped too."""

    async def test(store: ReplayStore) -> None:
        before = time.time()
        stream = await store.open()
        opened, ended = await store.times(stream)
        assert ended is None
        assert opened is not None
        assert before - 0.01 <= opened <= time.time() + 0.01
        for number in range(events):
            await store.append(stream, b"%d" % number)
        await asyncio.sleep(0.05)
        await store.finish(stream)
        assert await store.times(stream) == (opened, pytest.approx(time.time(), abs=0.2))
        (_, ended) = await store.times(stream)
        assert ended is not None
        assert ended >= opened + 0.04
        with pytest.raises(ReplayError, match="not stored"):
            await store.times("nosuchstream")

    run(make_store, test, max_events=3)
