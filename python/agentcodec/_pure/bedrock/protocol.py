"""The Bedrock ConverseStream, as the registry (``_pure/registry.py``) collects it: the
mirror of ``rust/bedrock/mod.rs``'s ``PROTOCOL``."""

from ..protocol import Protocol
from .assembler import Assembler
from .errors import BedrockError, BedrockEventError
from .events import Decoder, Encoder, frame

__all__ = ["PROTOCOL"]

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
