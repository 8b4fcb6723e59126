"""The pure backend's OpenAI Responses stream, the mirror of ``rust/openai_responses/``:
its assembler, its decoder and encoder, and the ``PROTOCOL`` that
``_pure/registry.py`` collects."""

from ..._errors import OpenAIResponsesError, OpenAIResponsesEventError
from ..protocol import Protocol, typed_frame
from .assembler import Assembler
from .events import Decoder, Encoder

__all__ = ["PROTOCOL", "Assembler", "Decoder", "Encoder"]

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
