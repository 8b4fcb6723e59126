"""The Ollama stream, as the registry (``_pure/registry.py``) collects it: the
mirror of ``rust/ollama/mod.rs``'s ``PROTOCOL``."""

from ..protocol import Protocol
from .assembler import Assembler
from .errors import OllamaError, OllamaEventError
from .events import ENDPOINTS, Decoder, Encoder, frame

__all__ = ["PROTOCOL"]

#: The protocol, as the registry (``_pure/registry.py``) lists it.
PROTOCOL = Protocol(
    name="ollama",
    assembler=Assembler,
    exported_as="OllamaAssembler",
    decoder=Decoder,
    encoder=Encoder,
    options={
        "model": "str",
        "created_at": "str",
        "endpoint": ENDPOINTS,
        "max_held_bytes": "int",
        "message_separator": "str",
    },
    event_error=OllamaEventError,
    base_error=OllamaError,
    frame=frame,
)
