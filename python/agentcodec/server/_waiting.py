"""``asyncio.wait_for`` without its flaw before Python 3.12: there, a task
cancelled just as what it waits for ends is not cancelled at all (the
result is returned, the cancellation lost), and a writer told to stop when
its client left would go on writing to nobody."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

__all__ = ["wait_within"]

_T = TypeVar("_T")


async def wait_within(waiting: Awaitable[_T], seconds: float | None) -> _T:
    """What ``waiting`` gives, or ``asyncio.TimeoutError`` after ``seconds``
    (None: no limit), ``waiting`` then cancelled; a cancellation of the
    caller cancels ``waiting`` too, and is never lost."""
    task = asyncio.ensure_future(waiting)
    try:
        done, _ = await asyncio.wait({task}, timeout=seconds)
    except BaseException:
        task.cancel()
        raise
    if not done:
        task.cancel()
        raise asyncio.TimeoutError
    return task.result()
