"""`{dotted.fact:fmt}` placeholders for rule texts.

str.format cannot be used: it reads `{gpu.name}` as attribute access on `gpu`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_.]*)(?::([^{}]*))?\}")
MISSING_TEXT = "unknown"


def placeholders(template: str) -> list[str]:
    """Names referenced by a template, in order."""
    return [m.group(1) for m in PLACEHOLDER.finditer(template)]


def _show(value: object, fmt: str | None) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if fmt and isinstance(value, int | float):
        try:
            return format(value, fmt)
        except ValueError:  # a format meant for floats applied to something else: show it plainly
            return str(value)
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def render(template: str, values: Mapping[str, object]) -> str:
    """Fill placeholders from `values`; a missing name renders as 'unknown' rather than failing."""

    def sub(match: re.Match[str]) -> str:
        name, fmt = match.group(1), match.group(2)
        return _show(values[name], fmt) if name in values else MISSING_TEXT

    return PLACEHOLDER.sub(sub, template)
