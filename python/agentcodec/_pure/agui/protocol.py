"""The AG-UI, as the registry (``_pure/registry.py``) collects it: the
mirror of ``rust/agui/mod.rs``'s ``PROTOCOL``."""

from ..protocol import Protocol, data_frame
from .assembler import Assembler
from .errors import AGUIError, AGUIEventError
from .events import Decoder, Encoder

__all__ = ["PROTOCOL"]

#: The protocol, as the registry (``_pure/registry.py``) lists it.
PROTOCOL = Protocol(
    name="agui",
    assembler=Assembler,
    exported_as="AGUIAssembler",
    decoder=Decoder,
    encoder=Encoder,
    options={"thread_id": "str", "run_id": "str"},
    event_error=AGUIEventError,
    base_error=AGUIError,
    frame=data_frame,
)
