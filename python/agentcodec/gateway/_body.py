"""A request's JSON body, read as the upstream can carry it."""

from __future__ import annotations

import json
from typing import Any

from starlette.requests import Request

from ._requests import RequestError

__all__ = ["DEFAULT_MAX_BODY_BYTES", "MAX_BODY_DEPTH", "BodyTooLargeError", "NotJSONError", "json_body"]

#: The largest request body taken unless the gateway is told otherwise:
#: far above a conversation's turn with a few images inline, far below
#: what would strain a replica holding many at once.
DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024


class BodyTooLargeError(RequestError):
    """A request body past the gateway's ``max_body_bytes``."""

    status = 413
    code = "request_too_large"


class NotJSONError(RequestError):
    """A request body not sent as JSON. Requiring the JSON media type also
    keeps a browser from posting cross-origin without CORS's preflight
    (a form or ``text/plain`` POST needs none)."""

    status = 415
    code = "unsupported_media_type"


# How deep a request body may nest: far beyond any real request, far below
# what would exhaust the interpreter's stack.
MAX_BODY_DEPTH = 64


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


async def json_body(request: Request, max_bytes: int | None = DEFAULT_MAX_BODY_BYTES) -> Any:
    """The request's JSON body: sent as ``application/json`` (or a ``+json``
    type), at most ``max_bytes`` long (None: any length), standard JSON
    only (no NaN or Infinity, no lone surrogate in a string, as the
    upstream's JSON cannot carry them), nested at most ``MAX_BODY_DEPTH``
    deep."""
    given = request.headers.get("content-type", "")
    media_type = given.split(";", 1)[0].strip().lower()
    if media_type != "application/json" and not media_type.endswith("+json"):
        sent = f"not {given!r}" if given else "not without a Content-Type"
        raise NotJSONError(f"the request body must be JSON, sent as Content-Type: application/json, {sent}")
    body = await _read(request, max_bytes)
    try:
        value = json.loads(body, parse_constant=_no_constant)
    except RecursionError as exc:
        raise RequestError(f"the request body nests deeper than {MAX_BODY_DEPTH}") from exc
    except (ValueError, UnicodeDecodeError) as exc:
        raise RequestError(f"the request body is not JSON: {exc}") from exc
    _check_body(value)
    return value


async def _read(request: Request, max_bytes: int | None) -> bytes:
    """The body, read no further than ``max_bytes`` (a Content-Length past
    it is refused before any of it is read)."""
    if max_bytes is None:
        return await request.body()
    too_large = BodyTooLargeError(f"the request body is larger than {max_bytes:,} bytes, the gateway's limit")
    length = request.headers.get("content-length", "")
    if length.isascii() and length.isdigit() and int(length) > max_bytes:
        raise too_large
    pieces = []
    size = 0
    async for piece in request.stream():
        size += len(piece)
        if size > max_bytes:
            raise too_large
        pieces.append(piece)
    return b"".join(pieces)


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
