"""The JSON agentcodec writes: one definition for both backends.

Compact separators, non-ASCII written as is, no NaN or Infinity (JSON cannot
express them), and floats formatted as pydantic's ``model_dump_json`` formats
them, so that events encoded here are byte-identical to those of servers built
on pydantic. Python's ``repr`` and pydantic agree on every float except those
with a negative exponent: pydantic writes ``0.00001`` for ``1e-05`` and
``1.5e-7`` for ``1.5e-07``.
"""

from __future__ import annotations

import json
import math
from json import encoder as _stdlib_encoder
from typing import Any

__all__ = ["dumps", "format_float", "loads"]

_encoder = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)

loads = json.loads


def format_float(value: float) -> str:
    """A finite float as pydantic writes it."""
    text = float.__repr__(value)
    mantissa, negative_exponent, exponent = text.partition("e-")
    if not negative_exponent:
        return text
    power = int(exponent)
    if power == 5:
        sign = "-" if mantissa.startswith("-") else ""
        return f"{sign}0.0000{mantissa.lstrip('-').replace('.', '')}"
    return f"{mantissa}e-{power}"


def _float_str(value: float) -> str:
    if not math.isfinite(value):
        raise ValueError("Out of range float values are not JSON compliant: " + repr(value))
    return format_float(value)


def dumps(obj: Any) -> str:
    """Serialise ``obj`` as compact JSON text."""
    text = _encoder.encode(obj)
    if "e-" not in text:
        return text
    # A float with a negative exponent, perhaps (or only a string holding
    # "e-"): encode again, formatting floats as pydantic does.
    iterencode = _stdlib_encoder._make_iterencode(  # type: ignore[attr-defined]
        {}, _encoder.default, _stdlib_encoder.encode_basestring, None, _float_str,
        ":", ",", False, False, True,
    )  # fmt: skip
    return "".join(iterencode(obj, 0))
