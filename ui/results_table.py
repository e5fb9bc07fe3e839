"""What each arm measured (decode tok/s mean ± sd, TTFT and ms per output token p50/p99, acceptance), pooled
and per kind of task, from the report's `results` block. The words come from the report's string tables
(advisor/report/results.py `localized`), so the window and the exported report read the same."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from advisor.report.results import COLUMNS, localized
from advisor.report.tree import Results
from advisor.text import text
from ui.strings import language


class ResultsTable(QWidget):
    """Hidden until a report with per-arm results is shown; the pooled row per arm first, the rows per kind
    of task behind a check box (nine kinds per arm would push the reasons off the screen)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = QLabel()
        self.title.setObjectName("h2")
        self.per_category = QCheckBox()
        self.per_category.toggled.connect(lambda _on: self.retranslate())
        self.note = QLabel()
        self.note.setWordWrap(True)
        self.note.setObjectName("muted")
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)  # sized to its rows
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 6)
        head = QHBoxLayout()
        head.addWidget(self.title)
        head.addStretch(1)
        head.addWidget(self.per_category)
        layout.addLayout(head)
        for widget in (self.table, self.note):
            layout.addWidget(widget)
        self._results: Results | None = None
        self.setVisible(False)

    def set_results(self, results: Results | None) -> None:
        """Show the report's `results` block (None hides the table)."""
        self._results = results
        self.retranslate()

    def cells(self) -> list[list[str]]:
        """The shown cells, row by row (what a test reads)."""
        return [[item.text() if (item := self.table.item(i, j)) is not None else ""
                 for j in range(self.table.columnCount())] for i in range(self.table.rowCount())]

    def retranslate(self) -> None:
        """Re-read every label and cell in the current language."""
        lang = language()
        results = self._results
        rows = results.rows if results is not None else ()
        has_categories = any(r.category for r in rows)
        if results is not None and not self.per_category.isChecked():
            results = replace(results, rows=tuple(r for r in rows if not r.category))
        header, cells, note = localized(results, lang)
        self.setVisible(bool(cells))
        self.title.setText(text(lang, "section.results"))
        self.per_category.setText(text(lang, "results.per_category"))
        self.per_category.setVisible(has_categories)
        self.note.setText(note)
        self.table.setHorizontalHeaderLabels(header or [""] * len(COLUMNS))
        self.table.setRowCount(len(cells))
        for i, row in enumerate(cells):
            for j, value in enumerate(row):
                self.table.setItem(i, j, QTableWidgetItem(value))
        self.table.setFixedHeight(self.table.horizontalHeader().height() + 2 * self.table.frameWidth() + 2
                                  + sum(self.table.rowHeight(i) for i in range(len(cells))))
