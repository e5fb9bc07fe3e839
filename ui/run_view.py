"""Run view: the step list, warnings and Cancel on the left; the live charts on the right."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QListWidget, QPushButton, QVBoxLayout, QWidget

from advisor.events import CheckSized, Progress, QualityWarning, StepDone, StepStarted
from advisor.evidence.schema import Evidence
from advisor.report.strings import progress_text, step_warning
from advisor.run.done import SessionDone, SessionEvent
from advisor.run.eta import Estimate, EtaTracker, estimate_line
from advisor.run.session import Session
from advisor.steps.ab import policy_for
from advisor.text.message import Message
from ui.charts.panel import ChartPanel
from ui.step_list import StepList
from ui.strings import language, tr


class RunView(QWidget):
    """Shows one check as it runs (or a saved one replayed)."""

    cancel_requested = Signal()
    show_verdict = Signal()
    new_check = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.charts = ChartPanel()
        self.steps = StepList()
        self.title = QLabel()
        self.title.setObjectName("h2")
        self.status = QLabel("")
        self.status.setWordWrap(True)
        self.overall = QLabel("")  # elapsed and remaining time of the whole run
        self.overall.setObjectName("muted")
        self.overall.setWordWrap(True)  # "49/66 units · 31:18 elapsed · about 17:01 left" is wider than the side
        self.eta: EtaTracker | None = None
        self._final: Estimate | None = None
        self._last_progress: Progress | None = None  # the unit the step list names now
        self.warnings = QListWidget()
        self.warnings.setWordWrap(True)
        self.warnings.setMaximumHeight(150)
        self._warning_messages: list[Message | str] = []  # as the core said them: re-rendered on a language switch
        self.cancel_button = QPushButton()
        self.cancel_button.clicked.connect(self._cancel)
        self.verdict_button = QPushButton()
        self.verdict_button.clicked.connect(self.show_verdict)
        self.new_button = QPushButton()
        self.new_button.clicked.connect(self.new_check)
        left = QVBoxLayout()
        for widget in (self.title, self.overall, self.steps, self.status):
            left.addWidget(widget)
        left.addWidget(self.warnings)
        left.addStretch(1)
        for button in (self.cancel_button, self.verdict_button, self.new_button):
            left.addWidget(button)
        side = QWidget()
        side.setLayout(left)
        side.setFixedWidth(310)
        layout = QHBoxLayout(self)
        layout.addWidget(side)
        layout.addWidget(self.charts, 1)
        self.clock = QTimer(self)
        self.clock.setInterval(1000)
        self.clock.timeout.connect(self.steps.tick)
        self.clock.timeout.connect(self._show_overall)
        self.running = False
        self._status_text: tuple[str, dict[str, object]] | None = None
        self.retranslate()
        self._set_buttons(running=False, has_verdict=False)

    def begin(self, session: Session) -> None:
        """A check starts: reset the list and charts, enable Cancel."""
        config = session.config
        self.steps.set_steps(["preflight", *config.steps])
        self._last_progress = None
        self._clear_warnings()
        policy = session.policy
        self.charts.start(policy, list(policy_for(policy.ab, config.ab_pair_limit).looks), config.steps)
        self._set_status("run.starting")
        self.eta, self._final = EtaTracker(), None
        self._show_overall()
        self.running = True
        self.clock.start()
        self._set_buttons(running=True, has_verdict=False)

    def handle(self, event: SessionEvent) -> None:
        """Route one session event (called on the GUI thread by the bridge)."""
        if self.eta is not None:
            self.eta(event)
        if isinstance(event, StepStarted):
            self._set_status(None)
            self.steps.start(event.step)
        elif isinstance(event, Progress):
            self._last_progress = event  # said again in the other language when the reader switches
            self.steps.progress(event.step, event.done, event.total, progress_text(language(), event))
        elif isinstance(event, QualityWarning):
            self._add_warning(event.message)
        elif isinstance(event, CheckSized):  # the A/B's looks at its sized pair limit
            self.charts.ab.set_looks(list(event.ab_looks))
        elif isinstance(event, StepDone):
            self.steps.finish(event.step, event.status, event.elapsed_s, _reason_text(event.reason))
        self.charts.handle(event)

    def end(self, done: SessionDone) -> None:
        """The check ended: final redraw, close the list, say how it ended."""
        self.running = False
        self.clock.stop()
        if self.eta is not None:  # the final elapsed time stays; nothing is left to estimate
            self._final = replace(self.eta.estimate(), remaining_s=None)
        self._show_overall()
        self.charts.stop()
        self.steps.close_out()
        self._last_progress = None
        if done.status == "complete":
            self._set_status("run.done")
        elif done.status == "aborted":
            self._set_status("run.aborted", path=done.run_dir)
        else:
            self._set_status("run.failed", message=done.message or "?", error=True)
        self._set_buttons(running=False, has_verdict=done.verdict is not None)

    def replay(self, evidence: Evidence) -> None:
        """Show a saved run: step states from evidence, charts from each step's evidence."""
        self.steps.set_steps(list(evidence.steps))
        for step, record in evidence.steps.items():
            self.steps.finish(step, record.status, record.elapsed_s, _reason_text(record.reason))
        self._clear_warnings()
        self.eta, self._final = None, None
        self.overall.setText("")
        for w in evidence.warnings(finished_only=False):
            self._add_warning(w.message)
        self.charts.replay(evidence)
        self._set_status(None)
        self._set_buttons(running=False, has_verdict=True)

    def _add_warning(self, message: Message | str) -> None:
        self._warning_messages.append(message)
        self.warnings.addItem(_warning_line(message))

    def _clear_warnings(self) -> None:
        self._warning_messages.clear()
        self.warnings.clear()

    def _show_overall(self) -> None:
        """Refresh the run's elapsed time and the estimate of what is left (once there is a rate)."""
        estimate = self._final or (self.eta.estimate() if self.eta is not None else None)
        self.overall.setText(estimate_line(estimate, tr) if estimate is not None else "")

    def _cancel(self) -> None:
        self.cancel_button.setEnabled(False)
        self._set_status("run.cancelling")
        self.cancel_requested.emit()

    def _set_buttons(self, *, running: bool, has_verdict: bool) -> None:
        self.cancel_button.setEnabled(running)
        self.cancel_button.setVisible(running)
        self.verdict_button.setVisible(not running and has_verdict)
        self.new_button.setVisible(not running)

    def _set_status(self, key: str | None, error: bool = False, **values: object) -> None:
        self._status_text = (key, values) if key else None
        name = "error" if error else "muted"
        if self.status.objectName() != name:
            self.status.setObjectName(name)
            self.status.setStyleSheet("")  # re-polish for the new object name
        self.status.setText(tr(key, **values) if key else "")

    def retranslate(self) -> None:
        """Re-read every label in the current language."""
        self.title.setText(tr("run.title"))
        self._show_overall()
        self.cancel_button.setText(tr("run.cancel"))
        self.verdict_button.setText(tr("run.show_verdict"))
        self.new_button.setText(tr("run.new_check"))
        if self._status_text is not None:
            key, values = self._status_text
            self.status.setText(tr(key, **values))
        self.steps.refresh()
        if (last := self._last_progress) is not None:
            self.steps.progress(last.step, last.done, last.total, progress_text(language(), last))
        self.warnings.clear()
        for message in self._warning_messages:
            self.warnings.addItem(_warning_line(message))
        self.charts.retranslate()


def _warning_line(message: Message | str) -> str:
    """A step's warning as the list shows it, in the window's language."""
    return f"⚠ {step_warning(language(), message)}"


def _reason_text(reason: Message | str | None) -> str | None:
    """A step's reason (why it failed or was skipped) in the window's language."""
    return step_warning(language(), reason) if reason else None
