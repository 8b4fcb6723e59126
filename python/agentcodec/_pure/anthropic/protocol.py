"""The Anthropic Messages stream, as the registry (``_pure/registry.py``) collects it: the
mirror of ``rust/anthropic/mod.rs``'s ``PROTOCOL``."""

from ..protocol import Protocol, typed_frame
from .assembler import Assembler
from .errors import AnthropicError, AnthropicEventError
from .events import Decoder, Encoder

__all__ = ["PROTOCOL"]

#: The protocol, as the registry (``_pure/registry.py``) lists it.
PROTOCOL = Protocol(
    name="anthropic",
    assembler=Assembler,
    exported_as="AnthropicAssembler",
    decoder=Decoder,
    encoder=Encoder,
    options={"response_id": "str", "model": "str"},
    event_error=AnthropicEventError,
    base_error=AnthropicError,
    frame=typed_frame,
)
