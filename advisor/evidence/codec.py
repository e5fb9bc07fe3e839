"""Typed evidence ↔ JSON: one encoder and one decoder driven by the dataclasses' own annotations.

Encoding is `probes.serialize.to_jsonable` (an `Unavailable` becomes {"unavailable": reason, "detail": …})
with non-finite floats written as null, so the file is strict JSON every reader accepts. Decoding walks the
target type: dataclasses (unknown keys ignored, so newer files still load; missing keys take the field's
default), `X | None`, `X | Unavailable`, `tuple[T, ...]`, `Mapping[str, T]` (and `Mapping[int, T]`),
`Literal`, `Enum`, `Path` and plain scalars (null in a plain `float` field is NaN, the inverse of the
encoder). A dataclass with a `decode_plain` classmethod also reads a plain string (a saved run's English-only
warning as a `Message`). Anything that does not fit raises `EvidenceError` naming the path of the bad value
("steps.ab.evidence.ci_low: expected a number, got 'x'"), never a KeyError or TypeError deep inside a reader.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import math
import types
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar, get_args, get_origin

from advisor.errors import UserError
from probes.base import Unavailable
from probes.serialize import to_jsonable

T = TypeVar("T")
_NUMBER = (int, float)
# Deeper than any real evidence (about 8 levels): a hand-edited or hostile file cannot recurse us to death.
MAX_DEPTH = 32


class EvidenceError(UserError):
    """An evidence file (or a part of one) does not have the documented shape."""


def encode(value: Any) -> Any:
    """A JSON-ready copy of `value` (dataclasses, enums, tuples, paths); NaN and ±inf become null."""
    return _finite(to_jsonable(value))


def _finite(value: object) -> object:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def decode(tp: type[T], data: object, path: str = "evidence") -> T:
    """`data` (parsed JSON) as an instance of `tp`; raises `EvidenceError` naming the first bad value."""
    return typing.cast(T, _decode(tp, data, path, 0))


def _fail(path: str, expected: str, data: object) -> EvidenceError:
    shown = repr(data)
    shown = shown if len(shown) <= 60 else shown[:57] + "..."
    return EvidenceError(f"{path}: expected {expected}, got {shown}",
                         hint="the file was edited by hand or written by another program; re-run the check")


@functools.cache
def _hints(cls: type) -> dict[str, object]:
    return typing.get_type_hints(cls)


def _decode(tp: object, data: object, path: str, depth: int) -> object:
    if depth > MAX_DEPTH:
        raise _fail(path, f"at most {MAX_DEPTH} levels of nesting", "…")
    if tp is Any or tp is object:
        return data
    origin = get_origin(tp)
    if origin is typing.Union or origin is types.UnionType:
        return _union(tp, data, path, depth)
    if origin is typing.Literal:
        if data in get_args(tp) and type(data) in {type(a) for a in get_args(tp)}:
            return data
        raise _fail(path, "one of " + ", ".join(map(repr, get_args(tp))), data)
    if origin in (tuple, list):
        return _sequence(tp, data, path, depth)
    if origin in (dict, Mapping):
        return _mapping(tp, data, path, depth)
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return _dataclass(tp, data, path, depth)
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        try:
            return tp(data)
        except ValueError:
            values = [repr(m.value) for m in tp]
            shown = ", ".join(values) if len(values) <= 8 else ", ".join(values[:8]) + f", … ({len(values)} in all)"
            raise _fail(path, "one of " + shown, data) from None
    return _scalar(tp, data, path)


def _scalar(tp: object, data: object, path: str) -> object:
    if tp is bool:
        if isinstance(data, bool):
            return data
        raise _fail(path, "true or false", data)
    if tp is int:
        if isinstance(data, int) and not isinstance(data, bool):
            return data
        if isinstance(data, float) and data.is_integer():
            return int(data)
        raise _fail(path, "a whole number", data)
    if tp is float:
        if isinstance(data, _NUMBER) and not isinstance(data, bool) and math.isfinite(data):
            return float(data)
        if data is None:  # the encoder writes NaN as null; a float that may be absent is `float | None`
            return math.nan
        raise _fail(path, "a number", data)
    if tp is str:
        if isinstance(data, str):
            return data
        raise _fail(path, "text", data)
    if tp is Path:
        if isinstance(data, str):
            return Path(data)
        raise _fail(path, "a file path", data)
    if tp is type(None):
        if data is None:
            return None
        raise _fail(path, "null", data)
    raise TypeError(f"{path}: no decoder for {tp!r}")  # a schema bug, not a user error


def _union(tp: object, data: object, path: str, depth: int) -> object:
    options = get_args(tp)
    if data is None:
        if type(None) in options:
            return None
        if float in options:  # the encoder writes NaN and ±inf as null, in a union as in a plain float
            return math.nan
        raise _fail(path, _describe(tp), data)
    if isinstance(data, Mapping) and "unavailable" in data and Unavailable in options:
        return _decode(Unavailable, {"reason": data.get("unavailable"), "detail": data.get("detail", "")},
                       path, depth + 1)
    # a value whose own JSON type is an option is that option (2.0 stays a float in `int | float`, 3 an int)
    exact = next((o for o in options if o in (int, float, str) and type(data) is o), None)
    if exact is not None:
        return exact(data)
    errors: list[EvidenceError] = []
    for option in options:
        if option is type(None) or (option is Unavailable and not isinstance(data, Mapping)):
            continue
        try:
            return _decode(option, data, path, depth + 1)
        except EvidenceError as exc:
            errors.append(exc)
    if len(errors) == 1:
        raise errors[0]
    raise _fail(path, _describe(tp), data)


def _describe(tp: object) -> str:
    names = [getattr(a, "__name__", str(a)) for a in get_args(tp) if a is not type(None)]
    return " or ".join(names) + (" or null" if type(None) in get_args(tp) else "")


def _sequence(tp: object, data: object, path: str, depth: int) -> object:
    if not isinstance(data, list | tuple):
        raise _fail(path, "a list", data)
    args = get_args(tp)
    if get_origin(tp) is tuple and args and args[-1] is not Ellipsis:
        if len(args) != len(data):
            raise _fail(path, f"a list of {len(args)} items", data)
        return tuple(_decode(a, v, f"{path}[{i}]", depth + 1) for i, (a, v) in enumerate(zip(args, data,
                                                                                            strict=True)))
    item = args[0] if args else object
    out = [_decode(item, v, f"{path}[{i}]", depth + 1) for i, v in enumerate(data)]
    return tuple(out) if get_origin(tp) is tuple else out


def _mapping(tp: object, data: object, path: str, depth: int) -> object:
    if not isinstance(data, Mapping):
        raise _fail(path, "an object", data)
    args = get_args(tp)
    key_tp, value_tp = (args[0], args[1]) if len(args) == 2 else (str, object)
    return {_key(key_tp, k, path): _decode(value_tp, v, f"{path}.{k}", depth + 1) for k, v in data.items()}


def _key(tp: object, key: object, path: str) -> object:
    """JSON object keys are text; `Mapping[int, …]` keys (a draft length → a value) read back as ints."""
    if tp is int:
        try:
            return int(str(key))
        except ValueError:
            raise _fail(f"{path}.{key}", "a whole-number key", key) from None
    return str(key)


def _dataclass(cls: type, data: object, path: str, depth: int) -> object:
    if isinstance(data, str) and (plain := getattr(cls, "decode_plain", None)) is not None:
        return plain(data)  # an older file's plain string where a structured value is now (text.message.Message)
    if not isinstance(data, Mapping):
        raise _fail(path, "an object", data)
    hints = _hints(cls)
    kwargs: dict[str, object] = {}
    for f in dataclasses.fields(cls):
        if not f.init:
            continue
        if f.name in data:
            kwargs[f.name] = _decode(hints[f.name], data[f.name], f"{path}.{f.name}", depth + 1)
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            if _optional(hints[f.name]):
                kwargs[f.name] = None
            else:
                raise EvidenceError(f"{path}: missing '{f.name}'",
                                    hint="the file was edited by hand or written by another program")
    try:
        return cls(**kwargs)
    except (TypeError, ValueError) as exc:
        raise EvidenceError(f"{path}: {exc}") from None


def _optional(tp: object) -> bool:
    return get_origin(tp) in (typing.Union, types.UnionType) and type(None) in get_args(tp)
