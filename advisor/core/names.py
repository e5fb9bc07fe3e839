"""Did-you-mean hints for names a person typed (facts, rule thresholds, policy keys)."""

from __future__ import annotations

import difflib
from collections.abc import Mapping


def suggest(name: str, known: list[str] | Mapping[str, object]) -> str:
    """' (did you mean 'x'?)' for the closest known name, or '' when nothing is close."""
    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""
