"""A request's JSON body, read as the upstream can carry it."""

from __future__ import annotations

import json
from typing import Any

from starlette.requests import Request

from ._requests import RequestError

__all__ = ["MAX_BODY_DEPTH", "json_body"]


# How deep a request body may nest: far beyond any real request, far below
# what would exhaust the interpreter's stack.
MAX_BODY_DEPTH = 64


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


async def json_body(request: Request) -> Any:
    """The request's JSON body: standard JSON only (no NaN or Infinity, no
    lone surrogate in a string, as the upstream's JSON cannot carry them),
    nested at most ``MAX_BODY_DEPTH`` deep."""
    body = await request.body()
    try:
        value = json.loads(body, parse_constant=_no_constant)
    except RecursionError as exc:
        raise RequestError(f"the request body nests deeper than {MAX_BODY_DEPTH}") from exc
    except (ValueError, UnicodeDecodeError) as exc:
        raise RequestError(f"the request body is not JSON: {exc}") from exc
    _check_body(value)
    return value


def _check_body(value: Any) -> None:
    """Refuses what nests deeper than ``MAX_BODY_DEPTH`` and strings that
    are not Unicode text (a lone surrogate, which JSON's escapes allow)."""
    pending = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError as exc:
                raise RequestError(f"the request body holds a string that is not text: {exc.reason}") from exc
            continue
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is None:
            continue
        if depth > MAX_BODY_DEPTH:
            raise RequestError(f"the request body nests deeper than {MAX_BODY_DEPTH}")
        if isinstance(item, dict):
            pending.extend((key, depth) for key in item)
        pending.extend((child, depth + 1) for child in children)
