"""Every test that takes the ``backend`` fixture runs once per backend.

The native backend is skipped where its extension is not installed (the
pure-wheel run) unless ``AGENTCODEC_REQUIRE_NATIVE=1``, which CI sets for the
run that built it, so a broken build cannot hide behind a skip.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType

import pytest


def _native() -> ModuleType | None:
    try:
        return importlib.import_module("agentcodec._native")
    except ImportError:
        if os.environ.get("AGENTCODEC_REQUIRE_NATIVE") == "1":
            raise
        return None


NATIVE = _native()
PURE = importlib.import_module("agentcodec._pure")

BACKENDS = [
    pytest.param(
        NATIVE, id="native", marks=pytest.mark.skipif(NATIVE is None, reason="native extension not installed")
    ),
    pytest.param(PURE, id="python"),
]


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> ModuleType:
    """The backend module under test: ``agentcodec._native`` or ``agentcodec._pure``."""
    return request.param


requires_native = pytest.mark.skipif(NATIVE is None, reason="native extension not installed")
