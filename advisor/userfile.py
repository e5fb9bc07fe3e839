"""Open a file the user named, safely: never wait on a named pipe, never read more than a bound.

`open(path)` on a FIFO blocks until some writer appears, which for a mistyped path is forever; opening with
O_NONBLOCK returns at once and fstat then tells a regular file from a pipe, device or folder.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path


def read_user_file(path: Path, max_bytes: int) -> bytes:
    """Up to `max_bytes + 1` bytes of a regular file (one more than allowed, so callers can refuse a large
    one). Raises OSError (callers word it) or IsADirectoryError-like OSError for anything but a file."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(0, "not a regular file (a pipe, device or folder)")
        return fh.read(max_bytes + 1)
