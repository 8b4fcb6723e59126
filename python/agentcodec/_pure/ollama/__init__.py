"""The pure backend's Ollama stream, the mirror of ``rust/ollama/``: its
assembler, its decoder and encoder, and the ``PROTOCOL`` that
``_pure/registry.py`` collects."""

from ..._errors import OllamaError, OllamaEventError
from ..protocol import Protocol
from .assembler import Assembler
from .events import ENDPOINTS, Decoder, Encoder, frame

__all__ = ["PROTOCOL", "Assembler", "Decoder", "Encoder"]

#: The protocol, as the registry (``_pure/registry.py``) lists it.
PROTOCOL = Protocol(
    name="ollama",
    assembler=Assembler,
    exported_as="OllamaAssembler",
    decoder=Decoder,
    encoder=Encoder,
    options={"model": "str", "created_at": "str", "endpoint": ENDPOINTS},
    event_error=OllamaEventError,
    base_error=OllamaError,
    frame=frame,
)
