"""Reading a number that may be absent: a fact, a saved figure, a field of an older file.

Pure Python, no imports beyond `math`: `decide --facts` and the headline read numbers without loading numpy.
"""

from __future__ import annotations

import math


def finite(value: object) -> float | None:
    """A finite float, or None for anything else (bools, strings, NaN, ±inf, missing)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None
