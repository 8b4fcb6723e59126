"""Chooses the backend: the native extension where it is installed, the
pure-Python one otherwise. ``AGENTCODEC_BACKEND=python`` or ``=native``,
read at import, forces one."""

from __future__ import annotations

import os
from types import ModuleType

__all__ = ["backend", "impl"]


def _select() -> tuple[str, ModuleType]:
    choice = os.environ.get("AGENTCODEC_BACKEND", "").strip().lower()
    if choice not in ("", "native", "python"):
        raise ImportError(
            f"AGENTCODEC_BACKEND must be 'native' or 'python', not {os.environ['AGENTCODEC_BACKEND']!r}"
        )
    if choice != "python":
        try:
            from . import _native  # noqa: PLC0415  (optional: absent from the pure wheel)
        except ImportError as exc:
            if choice == "native":
                raise ImportError(
                    "AGENTCODEC_BACKEND=native, but the native extension agentcodec._native "
                    f"cannot be imported ({exc}). Install a platform wheel, or build from "
                    "source with a Rust toolchain on PATH."
                ) from exc
        else:
            return "native", _native
    from . import _pure  # noqa: PLC0415  (imported only when needed)

    return "python", _pure


backend, impl = _select()
