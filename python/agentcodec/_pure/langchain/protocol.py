"""The LangChain Agent Streaming Protocol, as the registry (``_pure/registry.py``) collects it: the
mirror of ``rust/langchain/mod.rs``'s ``PROTOCOL``."""

from ..protocol import Protocol
from .assembler import Assembler
from .errors import LangChainError, LangChainEventError
from .events import Decoder, Encoder, envelope_frame

__all__ = ["PROTOCOL"]

#: The protocol, as the registry (``_pure/registry.py``) lists it.
PROTOCOL = Protocol(
    name="langchain",
    assembler=Assembler,
    exported_as="LangChainAssembler",
    decoder=Decoder,
    encoder=Encoder,
    options={"namespace": "list[str]", "node": "str", "timestamp": "int"},
    event_error=LangChainEventError,
    base_error=LangChainError,
    frame=envelope_frame,
)
