"""The pure backend's LangGraph Agent Server stream, the mirror of
``rust/langgraph/``: its assembler, its decoder and encoder, and the
``PROTOCOL`` that ``_pure/registry.py`` collects."""

from ..._errors import LangGraphError, LangGraphEventError
from ..protocol import Protocol
from .assembler import Assembler
from .events import Decoder, Encoder, frame

__all__ = ["PROTOCOL", "Assembler", "Decoder", "Encoder"]

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
