"""Atomic file writes for reports, evidence and configs.

A crash or a full disk mid-write must never leave a half-written report where a good one was: we write a
temporary file in the *same* folder (so `os.replace` is a rename, not a copy), fsync it, rename it over
the target and fsync the folder so the rename itself survives a power loss.

Only regular files are replaced. A target that is a device, a pipe or a socket (`-o /dev/null`, a FIFO,
`-o /dev/stdout`) is written through in place: renaming over it would swap the device node for a plain file
(as root, /dev/null itself). A symbolic link is kept: the file it points at is written instead.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
import tempfile
import time
from pathlib import Path

_TMP_PREFIX = ".tmp-"
# Windows refuses to replace a file another program holds open (a viewer, an antivirus scan); those
# locks are usually brief, so a few short retries turn a spurious failure into a success.
_REPLACE_RETRIES = 5
_REPLACE_BACKOFF_S = 0.05


def write_atomic(path: str | os.PathLike[str], data: str | bytes, *, mode: int = 0o600) -> Path:
    """Write `data` to `path` atomically (str is encoded as UTF-8, lone surrogates escaped); returns the final path.

    The file gets permissions `mode` (0600 by default: reports and databases hold details of the
    user's machine). Raises `OSError` when the folder is missing or read-only; the target is untouched.
    """
    given = Path(path)
    # a lone surrogate (from a file name that is not UTF-8, or a "\udcff" in some JSON) cannot be UTF-8: it is
    # written as the text \udcff rather than failing the whole write
    payload = data.encode("utf-8", errors="backslashreplace") if isinstance(data, str) else data
    target = _resolve(given)
    if target is None:
        _write_through(given, payload)
        return given
    fd, tmp_name = tempfile.mkstemp(prefix=_TMP_PREFIX + target.name + ".", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp_name, mode)
        _replace_with_retry(tmp_name, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp_name)
        raise
    _fsync_dir(target.parent)
    return target


def _resolve(path: Path) -> Path | None:
    """The regular file to replace for `path`, or None when `path` must be written through (not renamed over).

    A link is followed to the file it names (the link itself stays); a link into /dev or /proc (e.g.
    /dev/stdout → /proc/self/fd/1) names an open descriptor, never a file to rename over."""
    target = path
    if path.is_symlink():
        real = os.path.realpath(path)
        if real.startswith(("/dev/", "/proc/")) or not Path(real).parent.is_dir():
            return None
        target = Path(real)
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        return target  # a new file
    except OSError:
        return None
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(21, "is a folder", str(path))
    return target if stat.S_ISREG(mode) else None


def _write_through(path: Path, payload: bytes) -> None:
    """Write into an existing device, pipe or descriptor as it is (no temp file, no rename, no chmod)."""
    with open(path, "wb") as handle:
        handle.write(payload)
        handle.flush()


def _replace_with_retry(src: str, dst: Path) -> None:
    for attempt in range(_REPLACE_RETRIES):
        try:
            os.replace(src, dst)
            return
        except PermissionError:
            if sys.platform != "win32" or attempt == _REPLACE_RETRIES - 1:
                raise
            time.sleep(_REPLACE_BACKOFF_S * (2**attempt))


def _fsync_dir(folder: Path) -> None:
    # POSIX only: a directory cannot be opened for fsync on Windows, where NTFS journals the rename.
    if sys.platform == "win32":
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def remove_orphaned_temp_files(folder: str | os.PathLike[str], *, older_than_s: float = 3600.0) -> int:
    """Delete temp files a crashed `write_atomic` left in `folder`; returns how many were removed."""
    removed = 0
    cutoff = time.time() - older_than_s
    for entry in Path(folder).glob(_TMP_PREFIX + "*"):
        with contextlib.suppress(OSError):
            if entry.is_file() and entry.stat().st_mtime < cutoff:
                entry.unlink()
                removed += 1
    return removed
