"""Speedup by kind of task, beside the pooled verdict: one row per category of the A/B, from the report.
Kinds with too few pairs for a figure of their own are folded into one line that says how many a figure needs
and names every such kind with its pairs, so no kind the check drew prompts for goes missing silently.

The words come from the report's own string tables (advisor/report/strings.py), so the window and the
exported report read the same in both languages.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QHeaderView, QLabel, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget

from advisor.ab.categories import MIN_PAIRS_FOR_INTERVAL
from advisor.report.strings import acceptance_cell, acceptance_note, fmt_speedup, mix_line, row_name, text
from advisor.report.tree import ByTask
from ui import theme
from ui.strings import language

_COLUMNS = ("category", "pairs", "speedup", "ci", "label", "acceptance")
_LABEL_COLOUR = {"gain": "#1a7f37", "no-gain": theme.VERMILLION}


class TaskTable(QWidget):
    """Hidden until a report with per-category A/B results is shown."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = QLabel()
        self.title.setObjectName("h2")
        self.mix = QLabel()
        self.mix.setWordWrap(True)
        self.hint = QLabel()
        self.hint.setWordWrap(True)
        self.hint.setObjectName("muted")
        self.too_few = QLabel()  # the kinds with too few pairs, in one line
        self.too_few.setWordWrap(True)
        self.table = QTableWidget(0, len(_COLUMNS))
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)  # sized to its rows
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 6)
        for widget in (self.title, self.mix, self.table, self.too_few, self.hint):
            layout.addWidget(widget)
        self._task = ByTask()
        self.setVisible(False)

    def set_task(self, task: ByTask) -> None:
        """Show the report's `by_task` block (rows with A/B pairs only)."""
        self._task = task
        self.retranslate()

    def retranslate(self) -> None:
        """Re-read every label and cell in the current language."""
        lang = language()
        every = list(self._task.rows)
        measured = any(r.n_pairs for r in every)  # an A/B ran: without one there is nothing per kind
        rows = [r for r in every if r.label != "too-few"]
        few = [r for r in every if r.label == "too-few"]
        self.setVisible(measured)
        self.title.setText(text(lang, "section.by_task"))
        note = acceptance_note(self._task, lang)  # which requests the acceptance column counts
        self.hint.setText(" ".join(part for part in (note, text(lang, "by_task.hint")) if part))
        self.mix.setText(mix_line(self._task, lang) if measured else "")
        kinds = text(lang, "by_task.list_sep").join(
            text(lang, "by_task.too_few_kind", name=row_name(r, lang), pairs=r.n_pairs) for r in few)
        self.too_few.setText(text(lang, "by_task.too_few_line", n=MIN_PAIRS_FOR_INTERVAL, kinds=kinds) if few else "")
        self.too_few.setVisible(bool(few))
        self.table.setVisible(bool(rows))
        self.table.setHorizontalHeaderLabels([text(lang, f"by_task.{c}") for c in _COLUMNS])
        if (header := self.table.horizontalHeaderItem(_COLUMNS.index("acceptance"))) is not None:
            header.setToolTip(note)
        self.table.setRowCount(len(rows))
        for i, r in enumerate(rows):
            ci = f"{fmt_speedup(r.ci_low)} – {fmt_speedup(r.ci_high)}" if r.ci_low is not None else "—"
            cells = (row_name(r, lang), str(r.n_pairs), fmt_speedup(r.speedup), ci, text(lang, f"by_task.{r.label}"),
                     acceptance_cell(r, lang))
            for j, value in enumerate(cells):
                item = QTableWidgetItem(value)
                if j == 4 and r.label in _LABEL_COLOUR:
                    item.setForeground(QBrush(QColor(_LABEL_COLOUR[r.label])))
                self.table.setItem(i, j, item)
        # the header's own size for the new words (its laid-out height is still the last language's: switched to
        # zh the rows overran by a few pixels and a scroll bar showed) and the frame on both sides
        header = self.table.horizontalHeader()
        self.table.setFixedHeight(max(header.height(), header.sizeHint().height()) + 2 * self.table.frameWidth() + 2
                                  + sum(self.table.rowHeight(i) for i in range(len(rows))))
