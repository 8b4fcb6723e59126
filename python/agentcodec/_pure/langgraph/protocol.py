"""The LangGraph Agent Server stream, as the registry (``_pure/registry.py``) collects it: the
mirror of ``rust/langgraph/mod.rs``'s ``PROTOCOL``."""

from ..protocol import Protocol
from .assembler import Assembler
from .errors import LangGraphError, LangGraphEventError
from .events import Decoder, Encoder, frame

__all__ = ["PROTOCOL"]

#: The protocol, as the registry (``_pure/registry.py``) lists it.
PROTOCOL = Protocol(
    name="langgraph",
    assembler=Assembler,
    exported_as="LangGraphAssembler",
    decoder=Decoder,
    encoder=Encoder,
    options={"run_id": "str", "node": "str"},
    event_error=LangGraphEventError,
    base_error=LangGraphError,
    frame=frame,
)
