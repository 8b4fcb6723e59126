"""The pure backend's OpenAI Chat Completions stream, the mirror of ``rust/openai_chat/``:
its assembler, its decoder and encoder, and the ``PROTOCOL`` that
``_pure/registry.py`` collects."""

from ..._errors import OpenAIChatError, OpenAIChatEventError
from ..protocol import Protocol, data_frame
from .assembler import Assembler
from .events import Decoder, Encoder

__all__ = ["PROTOCOL", "Assembler", "Decoder", "Encoder"]

#: The protocol, as the registry (``_pure/registry.py``) lists it.
PROTOCOL = Protocol(
    name="openai-chat",
    assembler=Assembler,
    exported_as="OpenAIChatAssembler",
    decoder=Decoder,
    encoder=Encoder,
    options={"response_id": "str", "model": "str", "created_at": "int"},
    event_error=OpenAIChatEventError,
    base_error=OpenAIChatError,
    frame=data_frame,
)
