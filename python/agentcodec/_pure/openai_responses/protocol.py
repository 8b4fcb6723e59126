"""The OpenAI Responses stream, as the registry (``_pure/registry.py``) collects it: the
mirror of ``rust/openai_responses/mod.rs``'s ``PROTOCOL``."""

from ..protocol import Protocol, typed_frame
from .assembler import Assembler
from .errors import OpenAIResponsesError, OpenAIResponsesEventError
from .events import Decoder, Encoder

__all__ = ["PROTOCOL"]

#: The protocol, as the registry (``_pure/registry.py``) lists it.
PROTOCOL = Protocol(
    name="openai-responses",
    assembler=Assembler,
    exported_as="OpenAIResponsesAssembler",
    decoder=Decoder,
    encoder=Encoder,
    options={"response_id": "str", "model": "str", "created_at": "int"},
    event_error=OpenAIResponsesEventError,
    base_error=OpenAIResponsesError,
    frame=typed_frame,
)
