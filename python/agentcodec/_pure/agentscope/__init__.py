"""The pure backend's AgentScope Agent API, the mirror of ``rust/agentscope/``:
its assembler, its decoder and encoder, and the ``PROTOCOL`` that
``_pure/registry.py`` collects."""

from ..._errors import AgentScopeError, AgentScopeEventError
from ..protocol import Protocol, data_frame
from .assembler import Assembler
from .events import Decoder, Encoder

__all__ = ["PROTOCOL", "Assembler", "Decoder", "Encoder"]

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
