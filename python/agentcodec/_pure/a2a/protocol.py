"""The A2A (Agent2Agent) stream, as the registry (``_pure/registry.py``) collects it: the
mirror of ``rust/a2a/mod.rs``'s ``PROTOCOL``."""

from ..protocol import Protocol, data_frame
from .assembler import Assembler
from .errors import A2AError, A2AEventError
from .events import Decoder, Encoder
from .wire import VERSIONS

__all__ = ["PROTOCOL"]

#: The protocol, as the registry (``_pure/registry.py``) lists it.
PROTOCOL = Protocol(
    name="a2a",
    assembler=Assembler,
    exported_as="A2AAssembler",
    decoder=Decoder,
    encoder=Encoder,
    options={"version": VERSIONS, "task_id": "str", "context_id": "str", "request_id": "str"},
    event_error=A2AEventError,
    base_error=A2AError,
    frame=data_frame,
)
