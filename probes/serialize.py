"""Probe dataclasses → JSON-ready values; an `Unavailable` becomes {"unavailable": reason, "detail": …}."""

from __future__ import annotations

import dataclasses
import enum
from pathlib import Path
from typing import Any

from probes.base import Unavailable

JsonValue = None | bool | int | float | str | list["JsonValue"] | dict[str, "JsonValue"]


def to_jsonable(value: Any) -> JsonValue:
    """Recursively convert dataclasses, tuples, enums and paths into plain JSON values."""
    if isinstance(value, Unavailable):
        return {"unavailable": value.reason, "detail": value.detail}
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, enum.Enum):
        return to_jsonable(value.value)
    if isinstance(value, Path):
        return str(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [to_jsonable(v) for v in value]
    return str(value)


def as_dict(value: Any) -> dict[str, Any]:
    """`to_jsonable` of a dataclass instance, typed as a plain dict (for `to_dict()` methods)."""
    out = to_jsonable(value)
    if not isinstance(out, dict):
        raise TypeError(f"{type(value).__name__} does not serialise to a JSON object")
    return out
