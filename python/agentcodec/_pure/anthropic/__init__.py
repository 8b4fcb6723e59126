"""The pure backend's Anthropic Messages stream, the mirror of ``rust/anthropic/``:
its assembler, its decoder and encoder, and the ``PROTOCOL`` that
``_pure/registry.py`` collects."""

from ..._errors import AnthropicError, AnthropicEventError
from ..protocol import Protocol, typed_frame
from .assembler import Assembler
from .events import Decoder, Encoder

__all__ = ["PROTOCOL", "Assembler", "Decoder", "Encoder"]

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
