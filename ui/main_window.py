"""The main window: a top bar (views + language) over four views, wired to one CheckController."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QTimer
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QPushButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from advisor.config import CheckConfig
from advisor.report.tree import Report
from advisor.run.done import SessionDone
from advisor.run.session import Session
from ui import settings
from ui.controller import CheckController
from ui.export import make_report
from ui.history_view import HistoryView
from ui.run_folder import RunData, RunFolderError, list_runs, load_run
from ui.run_view import RunView
from ui.start_view import StartView
from ui.strings import language, set_language, tr
from ui.verdict_view import VerdictView
from ui.workers import Jobs

log = logging.getLogger(__name__)
VIEWS = ("start", "run", "verdict", "history")


@dataclass(frozen=True, slots=True)
class Prepared:
    """What the end of a check needs that is slow to build (the report: ~0.5 s on 2 cores; the history list:
    every saved evidence.json), made on a pool thread so the window keeps painting meanwhile."""

    run: RunData | None
    report: Report | None
    report_error: str | None
    runs: list[RunData]


def report_for(run: RunData) -> tuple[Report | None, str | None]:
    """The report of a decided run, or None with what broke (a damaged run must not take the window down)."""
    if run.verdict is None:
        return None, None
    try:
        return make_report(run.evidence, run.verdict, run.facts, run_id=run.run_dir.name), None
    except Exception as exc:
        log.exception("cannot build the report")
        return None, str(exc)


def prepare_finish(run: RunData | None, history_root: Path | None) -> Prepared:
    """Build the report of `run` (when it has a verdict) and re-read the history; no widget is touched."""
    report, error = report_for(run) if run is not None else (None, None)
    return Prepared(run, report, error, list_runs(history_root))


class MainWindow(QMainWindow):
    """Start → Measurements → Verdict, plus History; the language can be switched at any time."""

    def __init__(self) -> None:
        super().__init__()
        self.controller = CheckController(self)
        self.jobs = Jobs(self)  # the end of a check is prepared here, off the GUI thread
        self.start_view, self.run_view = StartView(), RunView()
        self.verdict_view, self.history_view = VerdictView(), HistoryView()
        self.stack = QStackedWidget()
        for view in (self.start_view, self.run_view, self.verdict_view, self.history_view):
            self.stack.addWidget(view)
        self.nav: dict[str, QPushButton] = {}
        self.lang = QComboBox()
        self.lang.addItem("English", "en")
        self.lang.addItem("中文", "zh")
        self.lang.setCurrentIndex(1 if language() == "zh" else 0)
        self.lang.currentIndexChanged.connect(lambda _: self.set_language(str(self.lang.currentData())))
        self.app_title = QLabel()
        self.app_title.setStyleSheet("font-weight: 700; font-size: 12pt;")
        self._build()
        self._wire()
        self.current_run: RunData | None = None
        self._steps_left = 0  # the end of a check: turns queued by `_prepared` not yet run
        self.retranslate()
        self.show_view("start")
        self.nav["verdict"].setEnabled(False)

    def _build(self) -> None:
        bar = QHBoxLayout()
        bar.setContentsMargins(16, 6, 16, 0)
        bar.addWidget(self.app_title)
        bar.addSpacing(24)
        group = QButtonGroup(self)
        for name in VIEWS:
            button = QPushButton()
            button.setObjectName("nav")
            button.setCheckable(True)
            button.clicked.connect(lambda _=False, n=name: self.show_view(n))
            group.addButton(button)
            bar.addWidget(button)
            self.nav[name] = button
        bar.addStretch(1)
        self.lang_label = QLabel()
        self.lang_label.setObjectName("muted")
        bar.addWidget(self.lang_label)
        bar.addWidget(self.lang)
        body = QWidget()
        layout = QVBoxLayout(body)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(bar)
        layout.addWidget(self.stack, 1)
        self.setCentralWidget(body)

    def _wire(self) -> None:
        c = self.controller
        self.start_view.start_requested.connect(self.start_check)
        c.started.connect(self._started)
        c.received.connect(self.run_view.handle)
        c.finished.connect(self._finished)
        self.run_view.cancel_requested.connect(c.cancel)
        self.run_view.show_verdict.connect(lambda: self.show_view("verdict"))
        self.run_view.new_check.connect(lambda: self.show_view("start"))
        self.history_view.open_run.connect(self.open_run)

    # — the check —
    def start_check(self, config: CheckConfig) -> None:
        """Start a check (the button); a second press while running is ignored."""
        if self.controller.running:
            return
        self.controller.start(config)

    def _started(self, session: Session) -> None:
        self.start_view.set_running(True)
        self.run_view.begin(session)
        # Shown on the next turn: the click (which built the session) and the first paint of the run view
        # are then two short stalls instead of one long one.
        QTimer.singleShot(0, self, lambda: self.show_view("run"))

    def _finished(self, done: SessionDone) -> None:
        """The check ended: the run view says so at once; the report and the history list are built on a
        pool thread (`prepare_finish`) and shown when ready, so the window never freezes at the end."""
        self.start_view.set_running(False)
        self.run_view.end(done)
        session = self.controller.session
        if done.status == "failed":
            self.start_view.show_error(tr("run.failed", message=done.message or "?"))
        run = (RunData(session.run_dir, session.evidence, done.verdict, done.facts)
               if done.verdict is not None and session is not None else None)
        root = self.history_view.root
        self.jobs.submit(lambda: prepare_finish(run, root),
                         lambda prepared: self._prepared(prepared, show=done.status == "complete"),
                         lambda exc: log.error("preparing the end of the check failed: %s", exc))

    def _prepared(self, prepared: Prepared, show: bool) -> None:
        """Fill the verdict view now; switch to it and fill the history on later turns, so the window paints
        in between (each of these is a short stall, all three at once were not)."""
        self._steps_left += 2
        if prepared.run is not None:
            self._show_report(prepared.run, prepared.report, prepared.report_error)
        to_verdict = show and prepared.run is not None and prepared.report is not None

        def switch() -> None:
            self._steps_left -= 1
            if to_verdict:
                self.show_view("verdict", refresh_history=False)

        def history() -> None:
            self._steps_left -= 1
            self.history_view.show_runs(prepared.runs)

        QTimer.singleShot(0, self, switch)
        QTimer.singleShot(0, self, history)

    def finishing(self) -> bool:
        """True while the end of a check is still being prepared or shown (tests and benchmarks wait)."""
        return self.jobs.pending > 0 or self._steps_left > 0 or self.run_view.charts.settling

    # — saved runs —
    def open_path(self, path: str) -> bool:
        """Open a run folder (``--open``); problems are shown in the window, never raised."""
        try:
            run = load_run(path)
        except RunFolderError as exc:
            self.start_view.show_error(tr("error.open_run", path=path, error=str(exc)))
            return False
        self.open_run(run)
        return True

    def open_run(self, run: RunData) -> None:
        """Show a saved run: its verdict and its charts."""
        self.run_view.replay(run.evidence)
        self._show_verdict(run)
        self.show_view("verdict" if run.verdict is not None else "run")

    def _show_verdict(self, run: RunData) -> None:
        self._show_report(run, *report_for(run))

    def _show_report(self, run: RunData, report: Report | None, error: str | None) -> None:
        self.current_run = run
        if report is None:
            if error is not None:
                self.start_view.show_error(tr("error.open_run", path=str(run.run_dir), error=error))
            return
        self.verdict_view.show_run(run, report)
        self.nav["verdict"].setEnabled(True)

    # — navigation, language, shutdown —
    def show_view(self, name: str, refresh_history: bool = True) -> None:
        """Switch to one of VIEWS."""
        if name == "history" and refresh_history:
            self.history_view.refresh()
        self.stack.setCurrentIndex(VIEWS.index(name))
        self.nav[name].setChecked(True)

    def current_view(self) -> str:
        """The name of the visible view."""
        return VIEWS[self.stack.currentIndex()]

    def set_language(self, lang: str) -> None:
        """Switch every label to `lang` and remember the choice."""
        set_language(lang)
        settings.save_language(lang)
        self.lang.blockSignals(True)
        self.lang.setCurrentIndex(1 if lang == "zh" else 0)
        self.lang.blockSignals(False)
        self.retranslate()

    def retranslate(self) -> None:
        """Re-read every label in the current language."""
        self.setWindowTitle(tr("app.title"))
        self.app_title.setText(tr("app.title"))
        self.lang_label.setText(tr("nav.language"))
        for name, button in self.nav.items():
            button.setText(tr(f"nav.{name}"))
        for view in (self.start_view, self.run_view, self.verdict_view, self.history_view):
            view.retranslate()

    def closeEvent(self, event: QCloseEvent) -> None:
        """Stop a running check first: the session stops its servers, and a QThread destroyed while running
        would abort the process. The window hides and closes itself once the check has ended."""
        if self.controller.running:
            self.controller.cancel()
            if not self.controller.wait(5_000):
                self.hide()
                self.controller.finished.connect(lambda _: self.close())
                event.ignore()
                return
        self.start_view.shutdown()
        self.run_view.charts.stop()
        super().closeEvent(event)

    def busy(self) -> bool:
        """True while probes are still running (screenshots wait for them)."""
        return self.start_view.jobs.pending > 0
