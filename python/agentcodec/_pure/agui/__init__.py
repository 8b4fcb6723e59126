"""The pure backend's AG-UI, the mirror of ``rust/agui/``:
its assembler, its decoder and encoder, and the ``PROTOCOL`` that
``_pure/registry.py`` collects."""

from ..._errors import AGUIError, AGUIEventError
from ..protocol import Protocol, data_frame
from .assembler import Assembler
from .events import Decoder, Encoder

__all__ = ["PROTOCOL", "Assembler", "Decoder", "Encoder"]

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
