"""The JSON used where agentcodec turns Python objects into event data.

One definition for both backends: compact separators, non-ASCII written as
is (as servers built on pydantic's ``model_dump_json`` do), and no NaN or
Infinity, which JSON cannot express.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["dumps", "loads"]

_encoder = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)

loads = json.loads


def dumps(obj: Any) -> str:
    """Serialise ``obj`` as compact JSON text."""
    return _encoder.encode(obj)
