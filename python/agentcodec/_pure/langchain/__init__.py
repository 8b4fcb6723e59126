"""The pure backend's LangChain Agent Streaming Protocol, the mirror of ``rust/langchain/``:
its assembler, its decoder and encoder, and the ``PROTOCOL`` that
``_pure/registry.py`` collects."""

from ..._errors import LangChainError, LangChainEventError
from ..protocol import Protocol
from .assembler import Assembler
from .events import Decoder, Encoder, envelope_frame

__all__ = ["PROTOCOL", "Assembler", "Decoder", "Encoder"]

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
