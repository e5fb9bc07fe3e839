"""A small, safe YAML writer for the snippets spec-advisor emits (ours: PyYAML's dump quotes by other rules).

Every string is written double-quoted: a plain scalar such as `on`, `no`, `0755` or `--spec-type: x` can
change type or meaning under YAML 1.1 readers (Kubernetes, Compose), a quoted one cannot.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence

_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")
# Keys that would read back as a bool or null under YAML 1.1 when left unquoted.
_RESERVED_KEYS = frozenset({"y", "n", "yes", "no", "on", "off", "true", "false", "null", "~"})
_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r", "\0": "\\0"}


def _escape(ch: str) -> str:
    if ch in _ESCAPES:
        return _ESCAPES[ch]
    # control, format, separator and surrogate characters would break or confuse a reader: escape them
    if unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp") or ch == "\x85":
        code = ord(ch)
        return f"\\x{code:02X}" if code < 0x100 else f"\\u{code:04X}" if code < 0x10000 else f"\\U{code:08X}"
    return ch


def quote(text: str) -> str:
    """A YAML double-quoted scalar that reads back as exactly `text`."""
    return '"' + "".join(_escape(ch) for ch in text) + '"'


def scalar(value: object) -> str:
    """One scalar: strings quoted, bool/int/float/None in their YAML core-schema spelling."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError(f"refusing to write the non-finite number {value!r} to YAML")
        return repr(value)
    if isinstance(value, str):
        return quote(value)
    raise TypeError(f"cannot write {type(value).__name__} as a YAML scalar")


def key(name: str) -> str:
    """A mapping key: plain when that is unambiguous, else quoted."""
    return name if _PLAIN_KEY.fullmatch(name) and name.lower() not in _RESERVED_KEYS else quote(name)


def emit(value: object, indent: int = 0) -> list[str]:
    """Block-style lines for a mapping or sequence (nested freely); a scalar gives one line."""
    pad = " " * indent
    if isinstance(value, Mapping):
        if not value:
            return [pad + "{}"]
        lines: list[str] = []
        for k, v in value.items():
            if isinstance(k, int) and not isinstance(k, bool):
                name = str(k)  # a whole-number key stays a number (TensorRT-LLM's draft_len_schedule)
            elif isinstance(k, str):
                name = key(k)
            else:
                raise TypeError("YAML keys written here must be strings or whole numbers")
            if _is_block(v):
                lines.append(f"{pad}{name}:")
                lines += emit(v, indent + 2)
            else:
                lines.append(f"{pad}{name}: {_inline(v)}")
        return lines
    if isinstance(value, Sequence) and not isinstance(value, str):
        if not value:
            return [pad + "[]"]
        lines = []
        for item in value:
            if _is_block(item):
                sub = emit(item, indent + 2)
                lines.append(f"{pad}- {sub[0].lstrip()}")
                lines += sub[1:]
            else:
                lines.append(f"{pad}- {_inline(item)}")
        return lines
    return [pad + scalar(value)]


def _is_block(value: object) -> bool:
    return isinstance(value, Mapping | list | tuple) and len(value) > 0


def _inline(value: object) -> str:
    if isinstance(value, Mapping):
        return "{}"
    if isinstance(value, list | tuple):
        return "[]"
    return scalar(value)


def dump(value: object) -> str:
    """`emit` joined into text with a final newline."""
    return "\n".join(emit(value)) + "\n"
