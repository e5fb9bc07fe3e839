"""Start the desktop app: QApplication, style, language, main window; optionally a screenshot and exit."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from PySide6.QtCore import QElapsedTimer, QLocale, QThreadPool, QTimer
from PySide6.QtWidgets import QApplication

from advisor.lang import ENV_OVERRIDE, LANGS, from_locale_names
from advisor.lang import system_language as posix_language
from ui import fonts, qt_compat, settings, theme
from ui.main_window import VIEWS, MainWindow
from ui.strings import set_language

SCREENSHOT_SIZE = (1440, 900)
PROBE_WAIT_MS = 20_000  # the host RAM-bandwidth probe takes ~0.6 s; a llama-server --help a few seconds
SWITCH_INTERVAL_S = 0.0005  # how soon a thread waiting for the GIL gets it (CPython's default: 0.005)
_SET_UP = "specAdvisorSetUp"  # a property of the QApplication once `application()` has configured it


def application() -> QApplication:
    """The one QApplication, set up once with our style sheet, fonts and switch interval. Cheap to call again:
    the event loops of `settle` and the screenshot tools call it often, and setting the style sheet again
    would re-polish every widget of the window each time."""
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        app = QApplication(sys.argv[:1])
        app.setApplicationName("spec-advisor")
    if app.property(_SET_UP):
        return app
    qt_compat.protect_none()
    fonts.ensure_cjk(app)
    app.setStyleSheet(theme.STYLE)
    theme.configure_pyqtgraph()
    # The check runs on a worker thread of this process. Every Python callback Qt makes while painting a
    # chart (pyqtgraph's paint, boundingRect, …) must take the GIL back from that thread, and CPython hands it
    # over only after the switch interval: 5 ms by default, so one paint of a few dozen callbacks waited
    # 50-100 ms whenever the worker was busy in Python (a step's end, the report). 0.5 ms keeps that wait
    # below one frame; the worker loses little, its time is spent waiting on the engine.
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    app.setProperty(_SET_UP, True)
    return app


def system_language() -> str:
    """The language of the desktop: SPEC_ADVISOR_LANG, else Qt's system locale (the OS setting on Windows and
    macOS, the locale variables on Linux), else the POSIX variables."""
    if (forced := os.environ.get(ENV_OVERRIDE, "").strip().lower()) in LANGS:
        return forced
    names = QLocale.system().uiLanguages()
    return from_locale_names(names) if names else posix_language()


def build_window(lang: str | None = None, open_dir: str | None = None, view: str | None = None) -> MainWindow:
    """A ready window: language (argument, then saved setting, then the system's), run, view; probes started."""
    application()
    set_language(lang or settings.saved_language() or system_language())
    window = MainWindow()
    window.start_view.probe_all()
    if open_dir:
        window.open_path(open_dir)
    if view in VIEWS:
        window.show_view(view)
    return window


def settle(window: MainWindow, timeout_ms: int = PROBE_WAIT_MS) -> None:
    """Process events until the background probes have reported (or the timeout passes)."""
    app = application()
    clock = QElapsedTimer()
    clock.start()
    while (window.busy() or window.finishing()) and clock.elapsed() < timeout_ms:
        app.processEvents()
        window.start_view.jobs.wait(20)
    for _ in range(5):
        app.processEvents()


def screenshot(window: MainWindow, path: Path) -> bool:
    """Render the window at SCREENSHOT_SIZE into a PNG."""
    window.resize(*SCREENSHOT_SIZE)
    window.show()
    settle(window)
    window.run_view.charts.redraw()
    application().processEvents()
    path.parent.mkdir(parents=True, exist_ok=True)
    return bool(window.grab().save(str(path), "PNG"))


def run(lang: str | None = None, open_dir: str | None = None, view: str | None = None,
        shot: Path | None = None) -> int:
    """Run the app (or take one screenshot and exit); returns the exit code."""
    app = application()
    window = build_window(lang, open_dir, view)
    if shot is not None:
        ok = screenshot(window, shot)
        window.close()
        return 0 if ok else 1
    window.resize(*SCREENSHOT_SIZE)
    window.show()
    QTimer.singleShot(0, lambda: None)
    code = int(app.exec())
    # A window closed within its first second leaves the host and engine probes running on the pool; their
    # results would arrive at signal objects deleted with the window ("Signal source has been deleted"
    # tracebacks at exit). Let them finish while the window still exists.
    QThreadPool.globalInstance().waitForDone(PROBE_WAIT_MS)
    return code
