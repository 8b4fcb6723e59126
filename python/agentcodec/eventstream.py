"""The AWS event stream (``application/vnd.amazon.eventstream``): the binary
framing of the AWS streaming APIs, as a layer of its own, as ``SSEDecoder`` is
for SSE.

- ``EventStreamDecoder`` splits a stream into its messages in any chunking,
  each as soon as it is whole, both CRCs checked: a bad one is an
  ``EventStreamError`` naming where the message starts, with the messages
  before it handed out.
- ``EventStreamMessage``: a message's headers (as botocore reads them) and
  payload.
- ``encode_event_message(headers, payload)`` writes one message.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._errors import EventStreamError
from ._eventstream_message import EventStreamMessage, HeaderValue

if TYPE_CHECKING:
    from ._native import EventStreamDecoder, encode_event_message
else:
    from ._backend import impl as _impl

    EventStreamDecoder = _impl.EventStreamDecoder
    encode_event_message = _impl.encode_event_message

#: The media type of an AWS event stream.
MEDIA_TYPE = "application/vnd.amazon.eventstream"

__all__ = [
    "MEDIA_TYPE",
    "EventStreamDecoder",
    "EventStreamError",
    "EventStreamMessage",
    "HeaderValue",
    "encode_event_message",
]
