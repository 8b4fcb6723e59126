"""The pure backend's protocols, by name: each the ``PROTOCOL`` its package
declares (``_pure/<name>/protocol.py``). The names are ``events.PROTOCOL_NAMES``;
nothing else here names a protocol. The mirror of ``rust/registry.rs``."""

from __future__ import annotations

import importlib

from .events import PROTOCOL_NAMES
from .protocol import Protocol

__all__ = ["PROTOCOLS"]


def _declared(name: str) -> Protocol:
    module = importlib.import_module(f"{__package__}.{name.replace('-', '_')}.protocol")
    protocol: Protocol = module.PROTOCOL
    assert protocol.name == name, f"{module.__name__} declares {protocol.name!r}, not {name!r}"
    return protocol


#: Every protocol, in the order of ``PROTOCOL_NAMES``.
PROTOCOLS: dict[str, Protocol] = {name: _declared(name) for name in PROTOCOL_NAMES}
