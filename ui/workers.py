"""Run a blocking call (a probe, a file read) on the thread pool and get its result or error back on the
GUI thread. Probing the host measures RAM bandwidth for ~0.6 s: the window must keep painting meanwhile."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TypeVar, cast

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

log = logging.getLogger(__name__)


T = TypeVar("T")


class _Signals(QObject):
    # Composed rather than inherited: QRunnable is not a QObject, so it cannot own signals itself.
    result = Signal(object)
    error = Signal(object)


class _Job(QRunnable):
    def __init__(self, fn: Callable[[], object], signals: _Signals) -> None:
        super().__init__()
        self.fn, self.signals = fn, signals

    def run(self) -> None:
        try:
            value = self.fn()
        except Exception as exc:  # delivered to on_error as a value; the UI shows it as text
            log.debug("background job failed", exc_info=True)
            self.signals.error.emit(exc)
        else:
            self.signals.result.emit(value)


class Jobs(QObject):
    """Owns the signal objects of running jobs so they live until their result has been delivered."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._live: set[_Signals] = set()
        self.pool = QThreadPool.globalInstance()

    @property
    def pending(self) -> int:
        """Jobs whose result has not been delivered yet."""
        return len(self._live)

    def submit(self, fn: Callable[[], T], on_result: Callable[[T], None],
               on_error: Callable[[Exception], None] | None = None) -> None:
        """Call `fn()` on a pool thread; `on_result(value)` or `on_error(exc)` then runs on the GUI thread."""
        signals = _Signals(self)  # parented to self (GUI thread), so its slots are queued to the GUI thread
        self._live.add(signals)

        def done_ok(value: object) -> None:
            self._live.discard(signals)
            on_result(cast(T, value))  # the value `fn` returned, through a Qt signal that carries `object`

        def done_err(exc: object) -> None:
            self._live.discard(signals)
            if on_error is not None and isinstance(exc, Exception):
                on_error(exc)

        signals.result.connect(done_ok)
        signals.error.connect(done_err)
        self.pool.start(_Job(fn, signals))

    def wait(self, timeout_ms: int = 30_000) -> bool:
        """Block until the pool is idle (tests and screenshots only)."""
        return bool(self.pool.waitForDone(timeout_ms))
