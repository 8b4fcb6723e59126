"""The pure backend's Vercel AI SDK UI message stream, the mirror of ``rust/ai_sdk/``:
its assembler, its decoder and encoder, and the ``PROTOCOL`` that
``_pure/registry.py`` collects."""

from ..._errors import AISDKError, AISDKEventError
from ..protocol import Protocol, data_frame
from .assembler import Assembler
from .events import Decoder, Encoder

__all__ = ["PROTOCOL", "Assembler", "Decoder", "Encoder"]

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
