"""Export buttons (HTML / Markdown / JSON) with a save dialog and a one-line result."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from advisor.errors import UserError
from advisor.report.tree import Report
from ui import export
from ui.strings import language, tr


class ExportBar(QWidget):
    """`save(fmt, path)` is the testable core; the buttons ask for a path first."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = QLabel()
        self.title.setObjectName("h2")
        self.buttons: dict[export.Format, QPushButton] = {}
        row = QHBoxLayout()
        formats: tuple[export.Format, ...] = ("html", "md", "json")
        for fmt in formats:
            button = QPushButton()
            button.clicked.connect(lambda _=False, f=fmt: self._ask(f))
            self.buttons[fmt] = button
            row.addWidget(button)
        row.addStretch(1)
        self.result = QLabel()
        self.result.setObjectName("muted")
        self.result.setWordWrap(True)
        self.folder = QLabel()
        self.folder.setObjectName("muted")
        self.folder.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 8, 0, 0)
        layout.addWidget(self.title)
        layout.addLayout(row)
        layout.addWidget(self.result)
        layout.addWidget(self.folder)
        self.report: Report | None = None
        self.run_dir: Path | None = None
        self.retranslate()

    def set_report(self, report: Report, run_dir: Path) -> None:
        """What the buttons export, and where the run lives."""
        self.report, self.run_dir = report, run_dir
        self.result.setText("")
        self.folder.setText(tr("verdict.run_dir", path=str(run_dir)))

    def save(self, fmt: export.Format, path: Path) -> bool:
        """Export to `path`; the outcome is shown as text, never raised."""
        if self.report is None:
            return False
        try:
            export.export(self.report, fmt, language(), path)
        except OSError as exc:
            self.result.setText(tr("verdict.export_failed", error=exc.strerror or str(exc)))
            return False
        except UserError as exc:  # a run's own file or the history: never written over
            self.result.setText(tr("verdict.export_failed", error=str(exc)))
            return False
        self.result.setText(tr("verdict.exported", path=str(path)))
        return True

    def _ask(self, fmt: export.Format) -> None:
        start = str((self.run_dir or Path.home()) / f"report{export.SUFFIX[fmt]}")
        path, _ = QFileDialog.getSaveFileName(self, tr(f"verdict.export_{fmt}"), start)
        if path:
            self.save(fmt, Path(path))

    def retranslate(self) -> None:
        """Labels in the current language."""
        self.title.setText(tr("verdict.export"))
        for fmt, button in self.buttons.items():
            button.setText(tr(f"verdict.export_{fmt}"))
        if self.run_dir is not None:
            self.folder.setText(tr("verdict.run_dir", path=str(self.run_dir)))
