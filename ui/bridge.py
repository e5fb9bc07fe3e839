"""SessionBridge: the Qt face of a Qt-free `Session`.

The session calls the bridge (a plain subscriber) on its worker thread; the bridge re-emits each event as
`Signal(object)`. Because the bridge lives on the GUI thread, Qt queues those emissions and every
connected slot runs on the GUI thread — widgets are never touched from the worker.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QObject, QThread, Signal

from advisor.errors import UserError
from advisor.history.store import RunStore
from advisor.run.done import SessionDone, SessionEvent
from advisor.run.session import Session

log = logging.getLogger(__name__)
# Threads still running hold a reference here: if their owner (a window) is destroyed first, Qt would
# otherwise destroy a running QThread, which aborts the process ("Destroyed while thread is still running").
_RUNNING: set[SessionThread] = set()


class SessionBridge(QObject):
    """Subscriber → signals. `received` carries every core event, `finished` only the final `SessionDone`."""

    received = Signal(object)
    finished = Signal(object)

    def __call__(self, event: SessionEvent) -> None:
        self.received.emit(event)
        if isinstance(event, SessionDone):
            self.finished.emit(event)


class SessionThread(QThread):
    """Runs `session.run()` off the GUI thread. `Session.run` turns errors into a failed `SessionDone`;
    anything that still escapes becomes one here, so the window never waits forever."""

    def __init__(self, session: Session, bridge: SessionBridge) -> None:
        super().__init__()
        self.session, self.bridge = session, bridge
        self.started.connect(lambda: _RUNNING.add(self))
        self.finished.connect(lambda: _RUNNING.discard(self))

    def run(self) -> None:
        store = None
        try:
            store = self._open_history()  # inside the try: a failure here must still end the run
            self.session.run()
        except BaseException as exc:  # a bug in the core must still end the run in the window
            log.exception("session crashed")
            self.bridge(SessionDone(status="failed", run_dir=str(self.session.run_dir),
                                    message=f"internal error: {type(exc).__name__}: {exc}"))
        finally:
            if store is not None:
                store.close()
                self.session.store = None

    def _open_history(self) -> RunStore | None:
        """The history the CLI's `check` writes, so the window's runs are listed by `history` and the CLI's by
        the window (one store); a history that cannot be opened leaves the run to its folder alone."""
        if self.session.store is not None:
            return None  # the caller gave one (a test) and closes it
        store = RunStore()
        try:
            store.open()
        except UserError as exc:
            log.warning("history: %s; this run is kept in its folder only", exc)
            return None
        self.session.store = store
        return store
