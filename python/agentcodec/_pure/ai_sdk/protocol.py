"""The Vercel AI SDK UI message stream, as the registry (``_pure/registry.py``) collects it: the
mirror of ``rust/ai_sdk/mod.rs``'s ``PROTOCOL``."""

from ..protocol import Protocol, data_frame
from .assembler import Assembler
from .errors import AISDKError, AISDKEventError
from .events import Decoder, Encoder

__all__ = ["PROTOCOL"]

#: The protocol, as the registry (``_pure/registry.py``) lists it.
PROTOCOL = Protocol(
    name="ai-sdk",
    assembler=Assembler,
    exported_as="AISDKAssembler",
    decoder=Decoder,
    encoder=Encoder,
    options={"message_id": "str"},
    event_error=AISDKEventError,
    base_error=AISDKError,
    frame=data_frame,
)
