"""CheckController: starts one check at a time on a SessionThread and reports its events on the GUI thread."""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from advisor.config import CheckConfig
from advisor.run.done import SessionDone, SessionEvent
from advisor.run.session import Session
from ui.bridge import SessionBridge, SessionThread
from ui.strings import language


class CheckController(QObject):
    """`start(config)` → `started(Session)`, then `received(SessionEvent)`…, then `finished(SessionDone)`."""

    started = Signal(object)
    received = Signal(object)
    finished = Signal(object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session: Session | None = None
        self.worker: SessionThread | None = None
        self.last_done: SessionDone | None = None
        self.bridge = SessionBridge(self)
        self.bridge.received.connect(self._on_event)
        self.bridge.finished.connect(self._on_finished)

    @property
    def running(self) -> bool:
        """True from `start` until the final event has been delivered."""
        return self.session is not None and self.last_done is None

    def start(self, config: CheckConfig) -> Session:
        """Begin a check (one at a time: a second call while running is refused with RuntimeError)."""
        if self.running:
            raise RuntimeError("a check is already running")
        self.last_done = None
        # the session words its own refusals (a prompt too long for the context) in the window's language
        self.session = Session(config, subscribers=[self.bridge], lang=language())
        self.worker = SessionThread(self.session, self.bridge)
        self.started.emit(self.session)
        self.worker.start()
        return self.session

    def cancel(self) -> None:
        """Ask the running check to stop at the next unit; what was measured is kept."""
        if self.session is not None:
            self.session.cancel()

    def wait(self, timeout_ms: int = 10_000) -> bool:
        """Block until the worker thread has exited (shutdown and tests)."""
        return self.worker is None or bool(self.worker.wait(timeout_ms))

    def _on_event(self, event: SessionEvent) -> None:
        self.received.emit(event)

    def _on_finished(self, done: SessionDone) -> None:
        self.last_done = done
        self.finished.emit(done)
