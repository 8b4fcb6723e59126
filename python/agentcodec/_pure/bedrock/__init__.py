"""The pure backend's Bedrock ConverseStream, the mirror of ``rust/bedrock/``:
its assembler, its decoder and encoder, and the ``PROTOCOL`` that
``_pure/registry.py`` collects."""

from ..._errors import BedrockError, BedrockEventError
from ..protocol import Protocol
from .assembler import Assembler
from .events import Decoder, Encoder, frame

__all__ = ["PROTOCOL", "Assembler", "Decoder", "Encoder"]

#: The protocol, as the registry (``_pure/registry.py``) lists it.
PROTOCOL = Protocol(
    name="bedrock",
    assembler=Assembler,
    exported_as="BedrockAssembler",
    decoder=Decoder,
    encoder=Encoder,
    options={},
    event_error=BedrockEventError,
    base_error=BedrockError,
    frame=frame,
)
