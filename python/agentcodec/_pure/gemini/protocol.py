"""The Gemini stream, as the registry (``_pure/registry.py``) collects it: the
mirror of ``rust/gemini/mod.rs``'s ``PROTOCOL``."""

from ..protocol import Protocol
from .assembler import Assembler
from .errors import GeminiError, GeminiEventError
from .events import Decoder, Encoder, frame

__all__ = ["PROTOCOL"]

#: The protocol, as the registry (``_pure/registry.py``) lists it.
PROTOCOL = Protocol(
    name="gemini",
    assembler=Assembler,
    exported_as="GeminiAssembler",
    decoder=Decoder,
    encoder=Encoder,
    options={"model": "str", "response_id": "str", "message_separator": "str"},
    event_error=GeminiEventError,
    base_error=GeminiError,
    frame=frame,
)
