"""The AgentScope Agent API, as the registry (``_pure/registry.py``) collects it: the
mirror of ``rust/agentscope/mod.rs``'s ``PROTOCOL``."""

from ..protocol import Protocol, data_frame
from .assembler import Assembler
from .errors import AgentScopeError, AgentScopeEventError
from .events import Decoder, Encoder

__all__ = ["PROTOCOL"]

#: The protocol, as the registry (``_pure/registry.py``) lists it.
PROTOCOL = Protocol(
    name="agentscope",
    assembler=Assembler,
    exported_as="AgentScopeAssembler",
    decoder=Decoder,
    encoder=Encoder,
    options={"session_id": "str", "response_id": "str", "created_at": "int"},
    event_error=AgentScopeEventError,
    base_error=AgentScopeError,
    frame=data_frame,
)
