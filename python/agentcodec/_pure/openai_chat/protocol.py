"""The OpenAI Chat Completions stream, as the registry (``_pure/registry.py``) collects it: the
mirror of ``rust/openai_chat/mod.rs``'s ``PROTOCOL``."""

from ..protocol import Protocol, data_frame
from .assembler import Assembler
from .errors import OpenAIChatError, OpenAIChatEventError
from .events import Decoder, Encoder

__all__ = ["PROTOCOL"]

#: The protocol, as the registry (``_pure/registry.py``) lists it.
PROTOCOL = Protocol(
    name="openai-chat",
    assembler=Assembler,
    exported_as="OpenAIChatAssembler",
    decoder=Decoder,
    encoder=Encoder,
    options={
        "response_id": "str",
        "model": "str",
        "created_at": "int",
        "message_separator": "str",
        "include_usage": "bool",
    },
    event_error=OpenAIChatEventError,
    base_error=OpenAIChatError,
    frame=data_frame,
)
