"""The one sanitiser for terminal output: text from engines, model files and earlier runs cannot drive the
terminal.

A GGUF `general.name` like "\\x1b]0;pwned\\x07\\x1b[2J" would set the window title and clear the screen when
`probe` or `history` prints it; a "\\r" can overwrite what a line said, a U+202E reverse it. Every control
character (C0 but tab and newline, DEL, C1) and every bidirectional override is shown as its escape
(`\\x1b`, `\\u202e`) instead. The CLI routes stdout and stderr through `SafeStream`, so no command can forget;
the progress printer's own line clearing goes through `write_control`, the only raw way out.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any, TextIO

CLEAR_LINE = "\r\033[K"  # the progress printer's own control sequence: back to column 0, erase the line
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def terminal_safe(text: str) -> str:
    """`text` with every control character and bidi override written as an escape; tabs and newlines kept."""
    return _UNSAFE.sub(_escape, text)


class SafeStream:
    """A text stream whose `write` passes everything through `terminal_safe`; all else is the wrapped stream."""

    def __init__(self, inner: TextIO) -> None:
        self.inner = inner

    def write(self, text: str) -> int:
        self.inner.write(terminal_safe(text))
        return len(text)

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def write_control(self, sequence: str) -> None:
        """Write the tool's own control sequence (only `CLEAR_LINE` is used) unchanged."""
        self.inner.write(sequence)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def write_control(stream: TextIO, sequence: str) -> None:
    """`sequence` to `stream` raw, past its sanitiser if it has one."""
    raw = getattr(stream, "write_control", None)
    (raw or stream.write)(sequence)


@contextmanager
def safe_stdio() -> Iterator[None]:
    """stdout and stderr through `SafeStream` while inside (the streams found before are put back after)."""
    saved = sys.stdout, sys.stderr
    if not isinstance(sys.stdout, SafeStream):
        sys.stdout = SafeStream(sys.stdout)
    if not isinstance(sys.stderr, SafeStream):
        sys.stderr = SafeStream(sys.stderr)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved
