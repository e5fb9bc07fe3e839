"""Verdict view: the answer in large type (word + glyph + colour), the expected speedup, the flags to copy,
why (reasons and the full rule trace), warnings, alternatives, and export. Everything shown comes from the
canonical report (advisor.report), so the window and the exported files always say the same thing."""

from __future__ import annotations

from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QScrollArea, QVBoxLayout, QWidget

from advisor.report.blocking_text import assumptions_line, blocking_items, other_because
from advisor.report.reconcile_text import reconciliation_sentences
from advisor.report.strings import holds_for_line, speedup_line, text, typical_line, verdict_lines
from advisor.report.tree import Headline, Report
from advisor.text.settings import settings_phrase
from ui import theme
from ui.export_bar import ExportBar
from ui.fact_words import fact_words
from ui.results_table import ResultsTable
from ui.run_folder import RunData
from ui.strings import language, tr
from ui.task_table import TaskTable
from ui.trace_view import TraceView
from ui.widgets import FlagsBox, Section


def speedup_text(headline: Headline) -> str:
    """The headline speedup line, worded as the CLI and the report word it (measured with its interval, or
    predicted by the perf model, named as which; a prior is shown below, as what is typical)."""
    return speedup_line(headline, language())


class VerdictView(QScrollArea):
    """Call `show_run(run, report)`; the report is `ui.export.make_report(...)`."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        body = QWidget()
        self.setWidget(body)
        self.banner = QFrame()
        self.word = QLabel()
        self.glyph = QLabel()
        self.sentence = QLabel()
        self.speedup = QLabel()
        self.notes = QLabel()
        self.notes.setObjectName("demo")
        self.notes.setWordWrap(True)
        self.because = Section("verdict.because")
        self.blocking = Section("verdict.blocking")  # every withholding reason with what to do about it
        self.warnings = Section("verdict.warnings")
        self.alternatives = Section("verdict.alternatives")
        self.missing = Section("verdict.missing")
        self.caveats = Section("verdict.caveats")
        self.model = Section("verdict.model")
        self.tasks = TaskTable()
        self.results = ResultsTable()
        self.typical = QLabel()
        self.typical.setObjectName("muted")
        self.typical.setWordWrap(True)
        self.flags = FlagsBox()
        self.exports = ExportBar()
        self.trace_title = QLabel()
        self.trace_title.setObjectName("h2")
        self.trace = TraceView()
        self.trace.setMinimumHeight(220)
        self._build(body)
        self.run: RunData | None = None
        self.report: Report | None = None
        self.retranslate()

    def _build(self, body: QWidget) -> None:
        words = QVBoxLayout()
        words.setSpacing(2)
        for label in (self.word, self.sentence, self.speedup, self.typical):
            words.addWidget(label)
        row = QHBoxLayout(self.banner)
        row.setContentsMargins(24, 16, 24, 16)
        row.addWidget(self.glyph)
        row.addSpacing(12)
        row.addLayout(words, 1)
        left = QVBoxLayout()
        left.addWidget(self.because)
        left.addWidget(self.blocking)
        left.addWidget(self.tasks)
        for section in (self.warnings, self.caveats, self.alternatives, self.missing, self.model):
            left.addWidget(section)
        left.addStretch(1)
        right = QVBoxLayout()
        right.addWidget(self.flags)
        right.addWidget(self.exports)
        right.addStretch(1)
        columns = QHBoxLayout()
        columns.addLayout(left, 3)
        columns.addSpacing(16)
        columns.addLayout(right, 2)
        layout = QVBoxLayout(body)
        layout.setContentsMargins(24, 16, 24, 16)
        layout.setSpacing(12)
        layout.addWidget(self.banner)
        layout.addWidget(self.notes)
        layout.addWidget(self.results)  # full width: seven columns of figures do not fit beside the flags
        layout.addLayout(columns)
        layout.addWidget(self.trace_title)
        layout.addWidget(self.trace, 1)

    def show_run(self, run: RunData, report: Report) -> None:
        """Fill the view from a run and its canonical report."""
        self.run, self.report = run, report
        self.exports.set_report(report, run.run_dir)
        self._fill()

    def _fill(self) -> None:
        if self.report is None or self.run is None:
            self.word.setText(tr("verdict.none"))
            return
        verdict = self.report.verdict
        word = verdict.verdict
        colour, bg = theme.VERDICT_COLOURS[word], theme.VERDICT_BG[word]
        self.banner.setStyleSheet(f"QFrame {{ background: {bg}; border: 2px solid {colour}; border-radius: 12px; }}"
                                  " QLabel { border: none; background: transparent; }")
        self.glyph.setText(theme.VERDICT_GLYPH[word])
        self.glyph.setStyleSheet(f"color: {colour}; font-size: 44pt; font-weight: 700;")
        self.word.setText(tr(f"verdict.{word}"))
        self.word.setStyleSheet(f"color: {colour}; font-size: 30pt; font-weight: 700;")
        self.sentence.setText(tr(f"verdict.word_{word}"))
        self.sentence.setStyleSheet("font-size: 14pt; font-weight: 600;")
        head = self.report.headline
        self.speedup.setText(speedup_text(head))
        self.speedup.setStyleSheet("font-size: 12pt;")
        typical = typical_line(head, language())
        self.typical.setText(typical or "")
        self.typical.setVisible(bool(typical))
        notes = []
        if self.run.is_demo:
            notes.append(tr("verdict.demo"))
        if head.source in ("measured", "chained") and (shape := holds_for_line(self.report.facts, language())):
            notes.append(shape)  # the reply lengths and context depths the verdict holds for
        status = self.report.run.status
        if status and status != "complete":
            notes.append(tr("verdict.partial", status=tr(f"status.{status}") if status != "running" else status))
        self.notes.setText("\n".join(notes))
        self.notes.setVisible(bool(notes))
        lang = language()
        because = other_because(verdict, lang)
        self.blocking.set_items([f"{i}. {reason}\n{text(lang, 'blocking.remedy', remedy=remedy)}"
                                 for i, (reason, remedy) in enumerate(blocking_items(verdict, lang), 1)], glyph="✗")
        measured = verdict.measured_with
        if measured:
            because = [*because, tr("verdict.measured_with", settings=settings_phrase(measured, language()))]
        self.because.set_items(because)  # once: labels replaced twice linger until the event loop deletes them
        assumed = assumptions_line(verdict, lang)
        self.warnings.set_items([*verdict_lines(verdict, "warnings", lang), *([assumed] if assumed else [])], glyph="⚠")
        self.alternatives.set_items(verdict_lines(verdict, "alternatives", lang), glyph="→")
        self.missing.set_items([fact_words(name, lang) for name in verdict.missing_facts], glyph="?")
        self.caveats.set_items(verdict_lines(verdict, "caveats", lang), glyph="?")
        self.model.set_items(reconciliation_sentences(self.report.reconciliation, lang))
        self.results.set_results(self.report.results)
        self.tasks.set_task(self.report.by_task)
        confirmed = list(verdict.flags)
        to_try = list(verdict.try_flags) if not confirmed else []  # INCONCLUSIVE: the measured settings
        self.flags.set_flags(confirmed or to_try, tentative=bool(to_try))
        self.trace.set_trace(list(verdict.trace))

    def retranslate(self) -> None:
        """Re-read every label in the current language."""
        for section in (self.because, self.blocking, self.warnings, self.caveats, self.alternatives, self.missing,
                        self.model):
            section.retranslate()
        self.tasks.retranslate()
        self.flags.retranslate()
        self.exports.retranslate()
        self.trace_title.setText(tr("verdict.trace"))
        self.trace.retranslate()
        self._fill()

