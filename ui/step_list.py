"""The steps of a check as a progress list: status glyph + word, title, elapsed time, current unit."""

from __future__ import annotations

import time
from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QGridLayout, QLabel, QProgressBar, QVBoxLayout, QWidget

from ui import theme
from ui.strings import tr


@dataclass
class _Row:
    step: str
    glyph: QLabel
    title: QLabel
    status: QLabel
    time: QLabel
    state: str = "pending"
    started: float | None = None
    elapsed: float | None = None
    reason: str = ""


class StepList(QWidget):
    """One row per step; `tick()` (1 Hz) refreshes the running step's clock."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        self.grid = QGridLayout()
        self.grid.setHorizontalSpacing(8)
        self.grid.setVerticalSpacing(6)
        outer.addLayout(self.grid)
        self.message = QLabel("")
        self.message.setObjectName("muted")
        self.message.setWordWrap(True)
        self.bar = QProgressBar()
        self.bar.setTextVisible(False)
        self.bar.setFixedHeight(6)
        outer.addWidget(self.bar)
        outer.addWidget(self.message)
        self.rows: dict[str, _Row] = {}

    def set_steps(self, steps: list[str]) -> None:
        """Start over with these step ids, all pending."""
        while self.grid.count():
            item = self.grid.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.deleteLater()
        self.rows.clear()
        for i, step in enumerate(steps):
            labels = [QLabel() for _ in range(4)]
            labels[0].setFixedWidth(18)
            labels[3].setAlignment(Qt.AlignmentFlag.AlignRight)
            for col, label in enumerate(labels):
                self.grid.addWidget(label, i, col)
            self.rows[step] = _Row(step, labels[0], labels[1], labels[2], labels[3])
        self.grid.setColumnStretch(1, 1)
        self.bar.setValue(0)
        self.message.setText("")
        self.refresh()

    def start(self, step: str) -> None:
        """The step began."""
        row = self.rows.get(step)
        if row is not None:
            row.state, row.started = "running", time.monotonic()
            self.bar.setValue(0)
            self._paint(row)

    def progress(self, step: str, done: int, total: int, unit: str) -> None:
        """Units done of total, with the current unit in words (already in the window's language)."""
        self.bar.setMaximum(max(total, 1))
        self.bar.setValue(min(done, total))
        count = tr("progress.unit", done=done, total=total)
        self.message.setText(f"{count} · {unit}" if unit else count)

    def finish(self, step: str, status: str, elapsed_s: float, reason: str | None = None) -> None:
        """The step ended with `status` (done/skipped/failed/aborted)."""
        row = self.rows.get(step)
        if row is not None:
            row.state, row.elapsed, row.reason = status, elapsed_s, reason or ""
            self._paint(row)

    def close_out(self) -> None:
        """The check ended: steps that never started are 'not run', a still-running one 'stopped'."""
        for row in self.rows.values():
            if row.state == "pending":
                row.state = "notrun"
            elif row.state == "running":
                row.state = "aborted"
                row.elapsed = time.monotonic() - (row.started or time.monotonic())
            self._paint(row)
        self.message.setText("")

    def states(self) -> dict[str, str]:
        """step id → state, for tests and the window's summary."""
        return {s: r.state for s, r in self.rows.items()}

    def tick(self) -> None:
        """Update the running step's elapsed time."""
        for row in self.rows.values():
            if row.state == "running":
                self._paint(row)

    def refresh(self) -> None:
        """Repaint every row (language change)."""
        for row in self.rows.values():
            self._paint(row)

    def _paint(self, row: _Row) -> None:
        colour = theme.STATUS_COLOUR[row.state]
        _set(row.glyph, theme.STATUS_GLYPH[row.state], f"color: {colour}; font-weight: 700;")
        _set(row.title, tr(f"step.{row.step}"), "font-weight: 600;" if row.state == "running" else "")
        _set(row.status, tr(f"status.{row.state}"), f"color: {colour};")
        if row.status.toolTip() != row.reason:
            row.status.setToolTip(row.reason)
        seconds = row.elapsed if row.elapsed is not None else (
            time.monotonic() - row.started if row.state == "running" and row.started else None)
        _set(row.time, tr("run.elapsed", s=f"{seconds:.0f}") if seconds is not None else "", None)


def _set(label: QLabel, text: str, style: str | None) -> None:
    """Change a label only where it differs: a style sheet set again re-polishes the label and re-lays out the
    grid, which the 1 Hz clock would otherwise do for every row."""
    if label.text() != text:
        label.setText(text)
    if style is not None and label.styleSheet() != style:
        label.setStyleSheet(style)
