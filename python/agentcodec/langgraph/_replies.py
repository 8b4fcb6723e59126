"""What the gateway's LangGraph routes answer with, as langgraph-api does:
an error's body, a record's time, a request's counts checked."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from starlette.responses import JSONResponse

from ..gateway._requests import RequestError

__all__ = ["checked_count", "dated", "detail", "integer", "now"]


def detail(status: int, message: str) -> JSONResponse:
    """An error as langgraph-api answers one."""
    return JSONResponse({"detail": message}, status_code=status)


def now() -> str:
    return datetime.now(timezone.utc).isoformat()


def dated(seconds: float | None) -> str:
    """A time (seconds since the epoch; None: now) as a record gives it."""
    return now() if seconds is None else datetime.fromtimestamp(seconds, timezone.utc).isoformat()


def integer(value: str, name: str) -> Any:
    """A query parameter as an int (``checked_count`` checks its range)."""
    try:
        return int(value)
    except ValueError:
        raise RequestError(f"{name} must be an integer, not {value!r}") from None


def checked_count(value: Any, name: str, least: int, most: int | None) -> int:
    """``value``, a request's ``limit`` or ``offset``: an int from ``least``
    to ``most`` (None: no most)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < least or (most and value > most):
        bounds = f"{least} to {most}" if most else f"{least} or more"
        raise RequestError(f"{name} must be an integer, {bounds}, not {value!r}")
    return value
