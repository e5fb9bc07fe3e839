"""One-line flow values for the YAML subset reader: quoted scalars, `[a, b]` and `{k: v}`."""

from __future__ import annotations

from advisor.deploy.yaml_scalars import double_quoted, resolve, single_quoted

_STOP = ",[]{}"


def _error(message: str, no: int) -> Exception:
    from advisor.deploy.yaml_read import YamlSubsetError

    return YamlSubsetError(message, no)


def _skip(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] == " ":
        pos += 1
    return pos


def _plain(text: str, pos: int, no: int, *, key: bool) -> tuple[object, int]:
    start = pos
    while pos < len(text) and text[pos] not in _STOP:
        # inside a flow mapping ": " (or ":" before a delimiter) ends the key
        if text[pos] == ":" and (pos + 1 == len(text) or text[pos + 1] in " ,]}"):
            if not key:
                raise _error("a ':' inside a flow sequence item is not supported (quote the value)", no)
            break
        pos += 1
    word = text[start:pos].strip()
    if word and word[0] in "&*!|>%@`?":
        raise _error(f"unsupported YAML in a flow value: {word[:20]!r}", no)
    return resolve(word), pos


def flow_value(text: str, pos: int, no: int, *, key: bool = False) -> tuple[object, int]:
    """Parse one value at text[pos]; return it and the index just after it."""
    pos = _skip(text, pos)
    if pos >= len(text):
        raise _error("a flow collection is not closed on its line", no)
    ch = text[pos]
    if ch == '"':
        return double_quoted(text, pos, no)
    if ch == "'":
        return single_quoted(text, pos, no)
    if ch == "[":
        return _sequence(text, pos + 1, no)
    if ch == "{":
        return _mapping(text, pos + 1, no)
    return _plain(text, pos, no, key=key)


def _after_item(text: str, pos: int, close: str, no: int) -> tuple[int, bool]:
    pos = _skip(text, pos)
    if pos < len(text) and text[pos] == ",":
        return pos + 1, False
    if pos < len(text) and text[pos] == close:
        return pos + 1, True
    raise _error(f"expected ',' or '{close}' in a flow collection", no)


def _sequence(text: str, pos: int, no: int) -> tuple[list[object], int]:
    out: list[object] = []
    while True:
        pos = _skip(text, pos)
        if pos < len(text) and text[pos] == "]":
            return out, pos + 1
        item, pos = flow_value(text, pos, no)
        out.append(item)
        pos, closed = _after_item(text, pos, "]", no)
        if closed:
            return out, pos


def _mapping(text: str, pos: int, no: int) -> tuple[dict[object, object], int]:
    out: dict[object, object] = {}
    while True:
        pos = _skip(text, pos)
        if pos < len(text) and text[pos] == "}":
            return out, pos + 1
        k, pos = flow_value(text, pos, no, key=True)
        pos = _skip(text, pos)
        value: object = None
        if pos < len(text) and text[pos] == ":":
            value, pos = flow_value(text, pos + 1, no)
        if isinstance(k, dict | list) or k in out:
            raise _error(f"bad or duplicate key {k!r} in a flow mapping", no)
        out[k] = value
        pos, closed = _after_item(text, pos, "}", no)
        if closed:
            return out, pos
