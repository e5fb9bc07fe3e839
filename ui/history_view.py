"""History view: past runs (date, engine build, model, GPU, verdict), open one, compare two.

The runs are the history database's (every folder a check finished, the CLI's `--out` ones included) and the
folders under the runs directory, so the window and `spec-advisor history` list the same runs."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from advisor.history.compare import compare_runs
from advisor.history.records import NO_GPU
from ui import theme
from ui.run_folder import RunData, list_runs, summary, to_record
from ui.strings import language, tr

_STATUS_KEY = {"complete": "status.done", "aborted": "status.aborted", "failed": "status.failed"}
_MARK = {"caveat": "!", "regression": "▼", "improvement": "▲", "change": "•"}
VERDICT_COLUMN = 4


class HistoryView(QWidget):
    """Lists run folders under a root (default: the runs directory); `open_run(RunData)` on Open."""

    open_run = Signal(object)

    def __init__(self, root: Path | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.root = root
        self.runs: list[RunData] = []
        self.title = QLabel()
        self.title.setObjectName("h2")
        self.table = QTableWidget(0, 6)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.MultiSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.table.itemSelectionChanged.connect(self._selection_changed)
        self.table.doubleClicked.connect(lambda _: self._open())
        self.open_button, self.compare_button, self.refresh_button = QPushButton(), QPushButton(), QPushButton()
        self.open_button.clicked.connect(self._open)
        self.compare_button.clicked.connect(self.compare_selected)
        self.refresh_button.clicked.connect(self.refresh)
        self.diff = QLabel()
        self.diff.setWordWrap(True)
        self.diff.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        buttons = QHBoxLayout()
        for b in (self.open_button, self.compare_button, self.refresh_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(24, 16, 24, 16)
        layout.addWidget(self.title)
        layout.addWidget(self.table, 1)
        layout.addLayout(buttons)
        layout.addWidget(self.diff)
        self.retranslate()

    def refresh(self) -> None:
        """Re-read the run folders (each evidence.json in full) and show them."""
        self.show_runs(list_runs(self.root))

    def show_runs(self, runs: list[RunData]) -> None:
        """Show runs already read (the window reads them on a pool thread at the end of a check)."""
        self.runs = list(runs)
        self.table.setRowCount(len(self.runs))
        for row, run in enumerate(self.runs):
            s = summary(run)
            verdict = s.verdict or "—"
            status = _STATUS_KEY.get(s.status)
            gpu = tr("history.no_gpu") if s.gpu == NO_GPU else s.gpu or "—"
            cells = [s.created_utc[:19].replace("T", " "), s.engine or "—", s.model or "—", gpu,
                     tr(f"verdict.{verdict}") if s.verdict else "—", tr(status) if status else s.status]
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(str(run.run_dir) if col == 0 else text)  # where the folder is (`--out` or not)
                if col == VERDICT_COLUMN and s.verdict in theme.VERDICT_COLOURS:
                    item.setForeground(theme_colour(s.verdict))
                self.table.setItem(row, col, item)
        self.diff.setText(tr("history.empty") if not self.runs else "")
        self._selection_changed()

    def selected(self) -> list[RunData]:
        """Selected runs, in table order (newest first)."""
        rows = sorted({i.row() for i in self.table.selectedIndexes()})
        return [self.runs[r] for r in rows if r < len(self.runs)]

    def compare_selected(self) -> str:
        """Compare the older selected run (A) with the newer (B); the text is shown and returned."""
        chosen = self.selected()
        if len(chosen) != 2:
            self.diff.setText(tr("history.pick_two"))
            return self.diff.text()
        newer, older = chosen
        diffs = compare_runs(to_record(older), to_record(newer), language())
        head = tr("history.diff_title", a=older.run_dir.name, b=newer.run_dir.name)
        lines = [f"{_MARK[d.kind]} {d.message}" for d in diffs] or [tr("history.no_diff")]
        self.diff.setText("\n".join([head, *lines]))
        return self.diff.text()

    def _open(self) -> None:
        chosen = self.selected()
        if chosen:
            self.open_run.emit(chosen[0])

    def _selection_changed(self) -> None:
        n = len(self.selected())
        self.open_button.setEnabled(n >= 1)
        self.compare_button.setEnabled(n == 2)

    def retranslate(self) -> None:
        """Re-read every label in the current language."""
        self.title.setText(tr("history.title"))
        self.table.setHorizontalHeaderLabels([tr("history.date"), tr("history.engine"), tr("history.model"),
                                              tr("history.gpu"), tr("history.verdict"), tr("history.status")])
        self.open_button.setText(tr("history.open"))
        self.compare_button.setText(tr("history.compare"))
        self.refresh_button.setText(tr("history.refresh"))
        if self.runs:
            self.refresh()


def theme_colour(word: str) -> QBrush:
    """A brush in a verdict word's colour."""
    return QBrush(QColor(theme.VERDICT_COLOURS[word]))
