"""The pure-Python backend: the same API as ``agentcodec._native``, module
for module, used where the native extension is unavailable or when
``AGENTCODEC_BACKEND=python``.

Importing the package costs nothing: its names (``api.py``'s) are loaded on
first use. The native backend's users import some of its modules (the
protocols' exceptions, the neutral vocabulary's tables), and those must not
bring the whole pure backend with them."""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType
from typing import Any


def _api() -> ModuleType:
    return importlib.import_module(f"{__name__}.api")


def __getattr__(name: str) -> Any:
    if name.startswith("__") and name not in ("__all__", "__version__"):
        # Not the API's: the import system, pickle and copy ask for these.
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if importlib.util.find_spec(f"{__name__}.{name}") is not None:
        # A module of the package (``from .. import events`` asks for it
        # here before importing it): that module alone, not the API.
        return importlib.import_module(f"{__name__}.{name}")
    api = _api()
    try:
        value = getattr(api, name)
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_api().__all__))
