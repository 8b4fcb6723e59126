"""A replay store on Redis Streams, shared by every replica of a server: any
of them can resume a stream another one is still writing.

Each stream is one Redis stream key. Its events are entries with explicit
ids ``<number>-0`` (so a resuming reader asks for exactly what follows the
number it has), bounded by ``MAXLEN``; an ``open`` entry (``0-1``) makes an
empty stream exist, an ``end`` entry (``<last>-2``) ends it, each holding
when (milliseconds since the epoch, for ``times``); the key expires
``ttl`` seconds after it was last written or kept. A process keeps the
streams it writes (opened, not yet finished) and the aliases naming them
(each stream's set of them, ``named:``) every third of the ttl, so that
a stream that goes long without an event (a run waiting its turn, or one
longer than the ttl) is not forgotten while it is written; once its
writer is gone, it is forgotten ``ttl`` seconds after it was last kept,
and once finished, ``ttl`` seconds after it ended, with its aliases.
Readers read with ``XREAD``,
and wait for more in one ``XREAD BLOCK`` that all of a process's readers
share (``_redis_waits``). An alias is a Redis stream of one entry (the
stream id it points at), so that one waiting for it waits so too; a sorted set holds
every alias set within ``ttl``, scored by when, for ``aliases`` to list. A
reader marks a stream read in a key of its own holding when (its replica's
clock, in milliseconds: replicas' clocks are taken to agree within a
fraction of the time a producer allows), at most every half second while
events come and after each wait while none do. A request to stop
a stream's producer (``request_stop``) is a key of its own, which the
producer's replica looks for, for all the streams it runs in one pipeline.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import time
from collections.abc import AsyncIterator, Collection, Sequence
from typing import Any

from ._redis_waits import StreamWaits, streams_read
from ._replay import MARK_EVERY, ReplayError, ReplayStore, StreamEntry, new_stream_id

__all__ = ["RedisReplayStore"]

logger = logging.getLogger("agentcodec.server")

#: The connections of the client a store makes from a URL.
MAX_CONNECTIONS = 100

#: The entries a reader reads in one command.
_READ_AT_ONCE = 512

#: The entries of each stream the shared wait reads and hands its readers
#: at once: fewer than a reader reads, since one answer holds them for
#: every stream waited for (512 raised the gateway's memory per stream by
#: 40% at 100 streams; 64 kept it, and the rate).
_HANDED_AT_ONCE = 64


#: compare_and_set_alias: KEYS the alias's key, the list of aliases and
#: the set of the stream's aliases; ARGV the stream id, the one expected
#: ("" for none), the ttl in ms, now in ms, the alias. set_alias's writes,
#: made only if the alias's one entry names the stream expected.
_COMPARE_AND_SET_ALIAS = """
local latest = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
local current = ''
if #latest > 0 then
    local fields = latest[1][2]
    for i = 1, #fields, 2 do
        if fields[i] == 's' then current = fields[i + 1] end
    end
end
if current ~= ARGV[2] then return 0 end
redis.call('XADD', KEYS[1], 'MAXLEN', '1', '*', 's', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[5])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', tonumber(ARGV[4]) - tonumber(ARGV[3]))
redis.call('PEXPIRE', KEYS[2], ARGV[3])
redis.call('SADD', KEYS[3], ARGV[5])
redis.call('PEXPIRE', KEYS[3], ARGV[3])
return 1
"""


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _field(fields: dict[Any, Any], name: str) -> Any:
    value = fields.get(name.encode())
    return fields.get(name) if value is None else value


def _now_ms() -> bytes:
    return str(int(time.time() * 1000)).encode()


def _time_of(fields: dict[Any, Any], name: str) -> float | None:
    """The time an open or end entry holds, in seconds (None for another
    entry, and for one written before entries held times)."""
    value = _field(fields, name)
    text = _text(value) if value is not None else ""
    return int(text) / 1000 if text.isdigit() else None


def _socket_timeout(redis: Any) -> float | None:
    """The seconds after which the client gives up a read, if it does: as
    its pool's connections were given it, else as their class defaults
    (redis-py 8's is 5 s, which a pool made from a URL does not name)."""
    pool = getattr(redis, "connection_pool", None)
    options: dict[str, Any] = getattr(pool, "connection_kwargs", {}) or {}
    if "socket_timeout" in options or "orig_socket_timeout" in options:
        timeout = options.get("socket_timeout", options.get("orig_socket_timeout"))
    else:
        timeout = _default_of(getattr(pool, "connection_class", None), "socket_timeout")
    if isinstance(timeout, (int, float)) and not isinstance(timeout, bool) and timeout > 0:
        return float(timeout)
    return None


def _default_of(cls: Any, parameter: str) -> Any:
    """The default a class's constructor gives ``parameter`` (its own, or
    the nearest base's that takes it), None if none does."""
    for klass in getattr(cls, "__mro__", ()):
        init = klass.__dict__.get("__init__")
        if init is None:
            continue
        try:
            found = inspect.signature(init).parameters.get(parameter)
        except (TypeError, ValueError):
            continue
        if found is not None:
            return None if found.default is inspect.Parameter.empty else found.default
    return None


class RedisReplayStore(ReplayStore):
    """Streams kept in Redis (``pip install agentcodec[redis]``): ``redis``
    is a ``redis.asyncio.Redis`` client or a URL (``redis://host:6379/0``).
    Each stream keeps its last ``max_events`` events. A stream this store
    writes (opened, not yet finished) is kept, and the aliases naming it,
    however long it goes without an event; one whose writer is gone (its
    process stopped) expires ``ttl`` seconds after it was last written or
    kept, and a finished one ``ttl`` seconds after it ended, with its
    aliases; an alias of no stream written here expires ``ttl`` seconds
    after it was set. Keys are ``prefix`` + the stream id, ``prefix`` +
    ``alias:`` + the alias, ``prefix`` + ``aliases`` (the list of them),
    ``prefix`` + ``named:`` + the stream id (the aliases set to it), and
    ``prefix`` + ``read:`` + the stream id (when a reader was last on it).
    A reader waits
    for new events ``block_seconds`` at a time, held under half the
    client's socket timeout: a stream whose readers wait marks itself read
    that often, so that ``read_within`` wants more seconds than that to be
    sure. The readers' waits share one connection, however many wait.

    Given a URL, the store's client waits for a free connection when all
    ``MAX_CONNECTIONS`` are in use (redis-py's ``BlockingConnectionPool``),
    where redis-py's own pool fails the command; the URL's
    ``?max_connections=`` sets another bound. A client given keeps its own
    pool: under load, give it a blocking one."""

    def __init__(
        self,
        redis: Any,
        *,
        prefix: str = "agentcodec:stream:",
        max_events: int = 10_000,
        ttl: float = 600.0,
        block_seconds: float = 5.0,
    ) -> None:
        if isinstance(max_events, bool) or not isinstance(max_events, int) or max_events < 1:
            raise ValueError(f"max_events must be a positive int, not {max_events!r}")
        if isinstance(ttl, bool) or not isinstance(ttl, (int, float)) or ttl <= 0:
            raise ValueError(f"ttl must be a positive number of seconds, not {ttl!r}")
        if isinstance(redis, str):
            # An optional dependency.
            from redis.asyncio import BlockingConnectionPool, Redis  # noqa: PLC0415

            pool = BlockingConnectionPool.from_url(redis, max_connections=MAX_CONNECTIONS, timeout=None)
            redis, self._owned = Redis(connection_pool=pool), True
        else:
            self._owned = False
        self._redis = redis
        self._prefix = prefix
        self._max_events = max_events
        self._ttl_ms = max(1, int(ttl * 1000))
        # XREAD BLOCK must end before the client times the read out: redis-py
        # 8 does at 5 s by default, which cut every stream quiet for 5 s.
        timeout = _socket_timeout(redis)
        if timeout is not None:
            block_seconds = min(block_seconds, timeout / 2)
        self._block_ms = max(1, int(block_seconds * 1000))
        # The last number written, and when it was opened, per stream this process writes.
        self._written: dict[str, int] = {}
        self._opened: dict[str, bytes] = {}
        # Readers wait for new entries here, not each in an XREAD BLOCK of its own.
        self._waits = StreamWaits(redis, self._block_ms, _HANDED_AT_ONCE)
        # Keeps the streams written here, while there are any (_keep).
        self._keeper: asyncio.Future[None] | None = None

    @property
    def redis(self) -> Any:
        """The Redis client."""
        return self._redis

    def _key(self, stream_id: str) -> str:
        return self._prefix + stream_id

    async def _add(self, stream_id: str, *entries: tuple[str, dict[str, bytes]], trim: bool = True) -> None:
        """Adds the entries (id, fields) in one round trip, and renews the
        stream's expiry."""
        key = self._key(stream_id)
        maxlen = self._max_events if trim else None
        async with self._redis.pipeline(transaction=False) as pipe:
            for entry_id, fields in entries:
                pipe.xadd(key, fields, id=entry_id, maxlen=maxlen, approximate=False)
            pipe.pexpire(key, self._ttl_ms)
            await pipe.execute()

    async def open(self) -> str:
        stream_id = new_stream_id()
        opened = _now_ms()
        await self._add(stream_id, ("0-1", {"open": opened}))
        self._written[stream_id] = 0
        self._opened[stream_id] = opened
        keeper = self._keeper
        if keeper is None or keeper.done() or keeper.get_loop() is not asyncio.get_running_loop():
            self._keeper = asyncio.ensure_future(self._keep())
        return stream_id

    async def append(self, stream_id: str, event: bytes) -> int:
        return await self.extend(stream_id, (event,))

    async def extend(self, stream_id: str, events: Sequence[bytes]) -> int:
        if not events:
            raise ValueError("extend stores at least one event")
        last = self._writer(stream_id)
        entries = [(f"{number}-0", {"e": bytes(event)}) for number, event in enumerate(events, last + 1)]
        await self._add(stream_id, *entries)
        self._written[stream_id] = last + len(events)
        return last + len(events)

    async def finish(self, stream_id: str) -> None:
        last = self._writer(stream_id)
        # After the open entry (0-1) even when no event came; kept beside
        # the last max_events events, not trimming one of them.
        # (the end holds when it was opened too, as MAXLEN may have trimmed
        # the open entry; not in a field named "open", which marks that entry)
        ended = {"end": _now_ms(), "opened": self._opened[stream_id]}
        try:
            await self._add(stream_id, (f"{last}-2", ended), trim=False)
        finally:
            # Written or not, this process is done with it: nothing kept per stream.
            del self._written[stream_id], self._opened[stream_id]
        # Its aliases are forgotten with it, ttl after its end. (The stream
        # has ended: a store gone for a moment leaves them to go sooner.)
        try:
            await self._renew([stream_id])
        except Exception:
            logger.warning("could not keep the aliases of stream %s to its end", stream_id, exc_info=True)

    def _writer(self, stream_id: str) -> int:
        last = self._written.get(stream_id)
        if last is None:
            raise ValueError(f"stream {stream_id!r} is not open for writing in this process")
        return last

    async def set_alias(self, alias: str, stream_id: str) -> None:
        key = self._alias_key(alias)
        now = int(time.time() * 1000)
        listed = self._aliases_key()
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.xadd(key, {"s": stream_id.encode()}, maxlen=1, approximate=False)
            pipe.pexpire(key, self._ttl_ms)
            # The list keeps what has not expired: it is as long as the
            # aliases set within ttl.
            pipe.zadd(listed, {alias: now})
            pipe.zremrangebyscore(listed, "-inf", now - self._ttl_ms)
            pipe.pexpire(listed, self._ttl_ms)
            pipe.sadd(self._named_key(stream_id), alias)
            pipe.pexpire(self._named_key(stream_id), self._ttl_ms)
            await pipe.execute()

    async def compare_and_set_alias(self, alias: str, stream_id: str, *, expected: str | None) -> bool:
        # One script: Redis runs it whole, no other client's command between its look and its set.
        now = int(time.time() * 1000)
        keys = [self._alias_key(alias), self._aliases_key(), self._named_key(stream_id)]
        arguments = [stream_id, expected or "", self._ttl_ms, now, alias]
        return bool(await self._redis.eval(_COMPARE_AND_SET_ALIAS, len(keys), *keys, *arguments))

    async def delete_aliases(self, aliases: Collection[str]) -> None:
        if not aliases:
            return
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.delete(*(self._alias_key(alias) for alias in aliases))
            pipe.zrem(self._aliases_key(), *aliases)
            await pipe.execute()

    async def aliases(self, prefix: str) -> list[tuple[str, str]]:
        now = int(time.time() * 1000)
        members = await self._redis.zrevrangebyscore(self._aliases_key(), "+inf", now - self._ttl_ms)
        names = [name for name in map(_text, members) if name.startswith(prefix)]
        if not names:
            return []
        async with self._redis.pipeline(transaction=False) as pipe:
            for name in names:
                pipe.xrevrange(self._alias_key(name), "+", "-", count=1)
            latest = await pipe.execute()
        return [
            (name, _text(_field(found[0][1], "s")))
            for name, found in zip(names, latest, strict=True)
            if found
        ]

    async def resolve_alias(self, alias: str, *, timeout: float | None = 0.0) -> str | None:
        key = self._alias_key(alias)
        latest = await self._redis.xrevrange(key, "+", "-", count=1)
        if latest or timeout == 0:
            return _text(_field(latest[0][1], "s")) if latest else None
        deadline = None if timeout is None else asyncio.get_running_loop().time() + timeout
        while True:
            block = self._block_ms / 1000
            if deadline is not None:
                block = min(block, deadline - asyncio.get_running_loop().time())
                if block <= 0:
                    return None
            if await self._waits.wait(key, "0-0", block) is not None:
                latest = await self._redis.xrevrange(key, "+", "-", count=1)
                if latest:
                    return _text(_field(latest[0][1], "s"))

    def _alias_key(self, alias: str) -> str:
        return f"{self._prefix}alias:{alias}"

    def _aliases_key(self) -> str:
        return f"{self._prefix}aliases"

    def _read_key(self, stream_id: str) -> str:
        return f"{self._prefix}read:{stream_id}"

    def _named_key(self, stream_id: str) -> str:
        return f"{self._prefix}named:{stream_id}"

    async def _keep(self) -> None:
        """Keeps the streams this store writes, and their aliases, every
        third of the ttl while it writes any."""
        failing = False
        while self._written:
            await asyncio.sleep(self._ttl_ms / 3000)
            try:
                await self._renew(list(self._written))
            except Exception:  # a store gone for a moment: the next round keeps them
                if not failing:
                    logger.warning(
                        "could not keep %d streams written here", len(self._written), exc_info=True
                    )
                failing = True
                continue
            failing = False

    async def _renew(self, stream_ids: list[str]) -> None:
        """Renews the expiry of these streams, and of the aliases that still
        name them, as a write would (an alias listed as if set now)."""
        async with self._redis.pipeline(transaction=False) as pipe:
            for stream_id in stream_ids:
                pipe.pexpire(self._key(stream_id), self._ttl_ms)
                pipe.smembers(self._named_key(stream_id))
                pipe.pexpire(self._named_key(stream_id), self._ttl_ms)
            found = await pipe.execute()
        named = [
            (stream_id, _text(alias))
            for at, stream_id in enumerate(stream_ids)
            for alias in found[3 * at + 1]
        ]
        if not named:
            return
        async with self._redis.pipeline(transaction=False) as pipe:
            for _, alias in named:
                pipe.xrevrange(self._alias_key(alias), "+", "-", count=1)
            latest = await pipe.execute()
        now, listed = int(time.time() * 1000), self._aliases_key()
        async with self._redis.pipeline(transaction=False) as pipe:
            for (stream_id, alias), entry in zip(named, latest, strict=True):
                if entry and _text(_field(entry[0][1], "s")) == stream_id:
                    pipe.pexpire(self._alias_key(alias), self._ttl_ms)
                    pipe.zadd(listed, {alias: now})
                else:  # set to another stream since, or deleted
                    pipe.srem(self._named_key(stream_id), alias)
            pipe.pexpire(listed, self._ttl_ms)
            await pipe.execute()

    async def mark_read(self, stream_id: str) -> None:
        await self._redis.set(self._read_key(stream_id), int(time.time() * 1000), px=self._ttl_ms)

    async def read_within(self, stream_id: str, seconds: float) -> bool:
        value = await self._redis.get(self._read_key(stream_id))
        if value is None:
            return False
        return time.time() * 1000 - int(value) <= seconds * 1000

    def _stop_key(self, stream_id: str) -> str:
        return f"{self._prefix}stop:{stream_id}"

    async def request_stop(self, stream_id: str) -> None:
        if not await self._redis.exists(self._key(stream_id)):
            raise ReplayError(stream_id, 0, None)
        await self._redis.set(self._stop_key(stream_id), 1, px=self._ttl_ms)

    async def stop_requested(self, stream_id: str) -> bool:
        return bool(await self._redis.exists(self._stop_key(stream_id)))

    async def stops_requested(self, stream_ids: Collection[str]) -> set[str]:
        # One round trip for every stream a replica runs.
        asked = list(stream_ids)
        if not asked:
            return set()
        async with self._redis.pipeline(transaction=False) as pipe:
            for stream_id in asked:
                pipe.exists(self._stop_key(stream_id))
            found = await pipe.execute()
        return {stream_id for stream_id, exists in zip(asked, found, strict=True) if exists}

    async def replay(self, stream_id: str, after: int) -> AsyncIterator[StreamEntry]:
        key = self._key(stream_id)
        first = await self._redis.xrange(key, "-", "+", count=2)
        if not first:
            raise ReplayError(stream_id, after, None)
        for entry_id, fields in first:
            number, minor = (int(part) for part in _text(entry_id).split("-"))
            if _field(fields, "open") is not None:
                continue
            # The oldest event kept (or, all trimmed, the end after them).
            oldest = number + (1 if minor else 0)
            if oldest > after + 1:
                raise ReplayError(stream_id, after, oldest)
            break
        if await self._ended_by(key, after):
            return _nothing()
        return self._follow(stream_id, key, after)

    async def stored(self, stream_id: str) -> tuple[list[StreamEntry], bool]:
        entries = await self._redis.xrange(self._key(stream_id), "-", "+")
        if not entries:
            raise ReplayError(stream_id, 0, None)
        events: list[StreamEntry] = []
        finished = False
        for entry_id, fields in entries:
            if _field(fields, "end") is not None:
                finished = True
                continue
            event = _field(fields, "e")
            if event is None:  # the open entry
                continue
            number = int(_text(entry_id).split("-")[0])
            if number != len(events) + 1:  # the first events were trimmed
                raise ReplayError(stream_id, 0, number)
            events.append((number, event.encode() if isinstance(event, str) else event))
        return events, finished

    async def times(self, stream_id: str) -> tuple[float | None, float | None]:
        # The end entry is the stream's last, and holds both times; a running
        # stream's first is its open entry, until MAXLEN trims it.
        key = self._key(stream_id)
        last = await self._redis.xrevrange(key, "+", "-", count=1)
        if not last:
            raise ReplayError(stream_id, 0, None)
        fields = last[0][1]
        if _field(fields, "end") is not None:
            return _time_of(fields, "opened"), _time_of(fields, "end")
        first = await self._redis.xrange(key, "-", "+", count=1)
        return (_time_of(first[0][1], "open") if first else None), None

    async def finished(self, stream_id: str) -> bool:
        # The end entry is the stream's last: one entry read, not the stream.
        last = await self._redis.xrevrange(self._key(stream_id), "+", "-", count=1)
        if not last:
            raise ReplayError(stream_id, 0, None)
        return _field(last[0][1], "end") is not None

    async def _ended_by(self, key: str, number: int) -> bool | None:
        """Whether the stream ended at or before event ``number`` (its end
        entry, ``<last>-2``, comes before a reader's cursor past it, so
        ``XREAD`` would never give it); None when it is not stored."""
        last = await self._redis.xrevrange(key, "+", "-", count=1)
        if not last:
            return None
        entry_id, fields = last[0]
        return _field(fields, "end") is not None and int(_text(entry_id).split("-")[0]) <= number

    async def _follow(self, stream_id: str, key: str, after: int) -> AsyncIterator[StreamEntry]:
        cursor = f"{after}-0" if after else "0-0"
        seen = after
        marked = 0.0
        caught_up = False  # the last read gave all there was: wait before the next
        while True:
            if time.monotonic() - marked >= MARK_EVERY:
                await self.mark_read(stream_id)
                marked = time.monotonic()
            entries = None
            if caught_up:
                entries = await self._waits.wait(key, cursor, self._block_ms / 1000)
                if entries is None:
                    ended = await self._ended_by(key, seen)
                    if ended is None:  # expired while nothing came
                        raise ReplayError(stream_id, seen, None)
                    if ended:  # before the number this reader asked to start after
                        return
            if entries:
                # The wait read from here: what follows, it reads too, unless
                # it read a full batch (more may be there already).
                caught_up = len(entries) < _HANDED_AT_ONCE
            else:
                found = streams_read(await self._redis.xread({key: cursor}, count=_READ_AT_ONCE))
                entries = found[0][1] if found else []
                caught_up = len(entries) < _READ_AT_ONCE
            for entry_id, fields in entries:
                cursor = _text(entry_id)
                if _field(fields, "end") is not None:
                    return
                event = _field(fields, "e")
                if event is None:  # the open entry
                    continue
                number = int(cursor.split("-")[0])
                if number != seen + 1:  # trimmed before this reader got to it
                    raise ReplayError(stream_id, seen, number)
                seen = number
                yield number, event.encode() if isinstance(event, str) else event

    async def aclose(self) -> None:
        keeper = self._keeper
        if keeper is not None and not keeper.done() and keeper.get_loop() is asyncio.get_running_loop():
            keeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await keeper
        await self._waits.aclose()
        if self._owned:
            await self._redis.aclose()
            await self._redis.connection_pool.disconnect()


async def _nothing() -> AsyncIterator[StreamEntry]:
    return
    yield
