"""The pure backend's Gemini stream, the mirror of ``rust/gemini/``: its
assembler, its decoder and encoder, and the ``PROTOCOL`` that
``_pure/registry.py`` collects."""

from ..._errors import GeminiError, GeminiEventError
from ..protocol import Protocol
from .assembler import Assembler
from .events import Decoder, Encoder, frame

__all__ = ["PROTOCOL", "Assembler", "Decoder", "Encoder"]

#: The protocol, as the registry (``_pure/registry.py``) lists it.
PROTOCOL = Protocol(
    name="gemini",
    assembler=Assembler,
    exported_as="GeminiAssembler",
    decoder=Decoder,
    encoder=Encoder,
    options={"model": "str", "response_id": "str"},
    event_error=GeminiEventError,
    base_error=GeminiError,
    frame=frame,
)
