"""The decision trace as an expandable tree: rule → condition rows (branch · fact, op, expected, actual, result)."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QHeaderView, QTreeWidget, QTreeWidgetItem, QWidget

from advisor.report.strings import trace_outcome
from advisor.report.tree import TraceRow
from ui import theme
from ui.fact_words import meaning
from ui.strings import language, tr

# Where a deciding condition led sets its colour: a withheld or negative verdict is never shown green.
_NEGATIVE = ("SKIP", "INCONCLUSIVE")
_OUTCOME_COLOUR = {"holds": "#8a5a00", "clear": theme.MUTED, "unknown": "#8a5a00"}
_REASON_COLOUR = {"negative": theme.VERMILLION, "positive": "#1a7f37"}


def _show(value: object) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def matched_branch(rows: Sequence[TraceRow]) -> str | None:
    """The branch of a rule whose conditions decided the walk (rows are in evaluation order)."""
    reasons = [row.branch or "" for row in rows if trace_outcome(row) == "reason"]
    if reasons:
        return reasons[0]
    order: list[str] = []
    ok: dict[str, bool] = {}
    for row in rows:  # rows of an older verdict carry only `passed`
        branch = row.branch or ""
        if branch not in ok:
            order.append(branch)
            ok[branch] = True
        ok[branch] = ok[branch] and row.passed is True
    return next((b for b in order if ok[b]), None)


def _colour(row: TraceRow) -> str:
    outcome = trace_outcome(row)
    if outcome == "reason":
        return _REASON_COLOUR["negative" if row.leads_to in _NEGATIVE else "positive"]
    return _OUTCOME_COLOUR.get(outcome, theme.MUTED)


class TraceView(QTreeWidget):
    """Rules collapsed by default; expand one to see each condition against the measured value."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setColumnCount(5)
        self.setRootIsDecorated(True)
        self.setAlternatingRowColors(False)
        self.setUniformRowHeights(True)
        header = self.header()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for col in range(1, 5):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        self._rows: list[TraceRow] = []
        self.retranslate()

    def set_trace(self, trace: Sequence[TraceRow]) -> None:
        """Show `trace` (the report verdict's)."""
        self._rows = list(trace)
        self.clear()
        by_rule: dict[str, list[TraceRow]] = {}
        for row in self._rows:
            by_rule.setdefault(row.rule or "?", []).append(row)
        for rule, rows in by_rule.items():
            branch = matched_branch(rows)
            top = QTreeWidgetItem([rule, "", "", "", f"→ {branch}" if branch else "—"])
            font = top.font(0)
            font.setBold(True)
            top.setFont(0, font)
            for row in rows:
                outcome = trace_outcome(row)
                leads_to = row.leads_to or ""
                shown = tr(f"verdict.{leads_to}") if leads_to in ("ENABLE", *_NEGATIVE) else leads_to
                word = tr("trace.reason", leads_to=shown) if outcome == "reason" else tr(f"trace.{outcome}")
                child = QTreeWidgetItem([f"{row.branch} · {row.fact}", row.op or "", _show(row.expected),
                                         _show(row.actual), word])
                child.setForeground(4, QBrush(QColor(_colour(row))))
                if words := meaning(row.fact or "", language()):
                    child.setToolTip(0, words)  # the fact's name is the rules' own: its meaning in words
                top.addChild(child)
            self.addTopLevelItem(top)
            top.setExpanded(branch is not None)  # open the rules that decided something

    def retranslate(self) -> None:
        """Column titles and pass/fail words in the current language."""
        self.setHeaderLabels([tr("trace.rule"), tr("trace.op"), tr("trace.expected"), tr("trace.actual"),
                              tr("trace.result")])
        if self._rows:
            self.set_trace(self._rows)
