"""Scalars for the YAML subset reader: quoted strings and the YAML 1.2 core-schema resolver."""

from __future__ import annotations

import re

from advisor.deploy.base import DeployError

_SIMPLE_ESCAPES = {
    "0": "\0", "a": "\a", "b": "\b", "t": "\t", "\t": "\t", "n": "\n", "v": "\v", "f": "\f", "r": "\r",
    "e": "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\", "N": "\x85", "_": "\xa0", "L": "\u2028",
    "P": "\u2029",
}
_HEX_LEN = {"x": 2, "u": 4, "U": 8}
_INT = re.compile(r"[-+]?[0-9]+")
_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")
_INF = re.compile(r"[-+]?\.(?:inf|Inf|INF)")


def _error(message: str, no: int) -> DeployError:
    from advisor.deploy.yaml_read import YamlSubsetError  # the reader owns the error type

    return YamlSubsetError(message, no)


def double_quoted(text: str, pos: int, no: int) -> tuple[str, int]:
    """Read `"..."` starting at text[pos]; return the string and the index after the closing quote."""
    out: list[str] = []
    i = pos + 1
    while i < len(text):
        ch = text[i]
        if ch == '"':
            return "".join(out), i + 1
        if ch != "\\":
            out.append(ch)
            i += 1
            continue
        esc = text[i + 1:i + 2]
        if esc in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[esc])
            i += 2
        elif esc in _HEX_LEN:
            digits = text[i + 2:i + 2 + _HEX_LEN[esc]]
            if len(digits) != _HEX_LEN[esc] or not re.fullmatch(r"[0-9a-fA-F]+", digits):
                raise _error(f"bad \\{esc} escape in a quoted string", no)
            out.append(chr(int(digits, 16)))
            i += 2 + len(digits)
        else:
            raise _error(f"unknown escape \\{esc} in a quoted string", no)
    raise _error("a quoted string is not closed on its line (multi-line strings are not supported)", no)


def single_quoted(text: str, pos: int, no: int) -> tuple[str, int]:
    """Read `'...'` (with '' for a quote) starting at text[pos]."""
    out: list[str] = []
    i = pos + 1
    while i < len(text):
        if text[i] == "'":
            if text[i + 1:i + 2] == "'":
                out.append("'")
                i += 2
                continue
            return "".join(out), i + 1
        out.append(text[i])
        i += 1
    raise _error("a quoted string is not closed on its line (multi-line strings are not supported)", no)


def resolve(text: str) -> object:
    """A plain scalar's value under the YAML 1.2 core schema (null, bool, int, float, else str)."""
    if text in ("", "~", "null", "Null", "NULL"):
        return None
    if text in ("true", "True", "TRUE"):
        return True
    if text in ("false", "False", "FALSE"):
        return False
    if _INT.fullmatch(text):
        return int(text)
    if re.fullmatch(r"0o[0-7]+", text):
        return int(text[2:], 8)
    if re.fullmatch(r"0x[0-9a-fA-F]+", text):
        return int(text[2:], 16)
    if _FLOAT.fullmatch(text):
        return float(text)
    if _INF.fullmatch(text):
        return float("-inf") if text.startswith("-") else float("inf")
    if text in (".nan", ".NaN", ".NAN"):
        return float("nan")
    return text
