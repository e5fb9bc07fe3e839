"""One managed check at a time per data folder: two at once share the CPU/GPU and time each other.

The lock is an OS file lock (flock on POSIX, msvcrt on Windows) on `check.lock` in the data folder, so it
is released by the kernel when the holding process dies (SIGKILL included): a crashed check never leaves a
stale lock. The file records who holds it, for the refusal message.
"""

from __future__ import annotations

import contextlib
import os
import sys
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import IO

from advisor import paths
from advisor.errors import UserError

LOCK_FILE = "check.lock"


class CheckLock:
    """Held for the whole of a managed check; `acquire` raises UserError when another check holds it."""

    def __init__(self, folder: Path | None = None) -> None:
        self.path = (folder or paths.data_dir()) / LOCK_FILE
        self._handle: IO[str] | None = None

    def acquire(self) -> None:
        """Take the lock without waiting, or say who holds it."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(self.path, "a+", encoding="utf-8")  # noqa: SIM115 - held until release()
        if not _try_lock(handle):
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            handle.close()
            raise UserError(f"another check is already running on this machine ({holder})",
                            hint="wait for it to finish: two checks at once would measure each other")
        handle.seek(0)
        handle.truncate()
        handle.write(f"pid {os.getpid()}, started {datetime.now(UTC).isoformat(timespec='seconds')}")
        handle.flush()
        self._handle = handle

    def release(self) -> None:
        """Let the next check start (also done by the kernel if this process dies)."""
        if self._handle is not None:
            with contextlib.suppress(OSError):
                self._handle.seek(0)
                self._handle.truncate()
            _unlock(self._handle)
            self._handle.close()
            self._handle = None

    def __enter__(self) -> CheckLock:
        self.acquire()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.release()


if sys.platform == "win32":
    import msvcrt

    def _try_lock(handle: IO[str]) -> bool:
        try:
            handle.seek(0)
            msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

    def _unlock(handle: IO[str]) -> None:
        with contextlib.suppress(OSError):
            handle.seek(0)
            msvcrt.locking(handle.fileno(), msvcrt.LK_UNLCK, 1)
else:
    import fcntl

    def _try_lock(handle: IO[str]) -> bool:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return False
        return True

    def _unlock(handle: IO[str]) -> None:
        with contextlib.suppress(OSError):
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
