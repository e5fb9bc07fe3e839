"""Small shared widgets: a titled bullet list, the flags box with a Copy button, and a card frame."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QGuiApplication, QResizeEvent
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPlainTextEdit, QPushButton, QVBoxLayout, QWidget

from advisor.report.tree import Flag
from advisor.text import text
from ui.strings import language, tr


class Section(QWidget):
    """A heading and one wrapped label per item; hidden while it has no items."""

    def __init__(self, title_key: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title_key = title_key
        self.title = QLabel()
        self.title.setObjectName("h2")
        self.body = QVBoxLayout()
        self.body.setSpacing(4)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 6)
        layout.addWidget(self.title)
        layout.addLayout(self.body)
        self.labels: list[QLabel] = []
        self.retranslate()
        self.setVisible(False)

    def set_items(self, items: Sequence[str], glyph: str = "•") -> None:
        """Replace the items; an empty list hides the section."""
        for label in self.labels:
            # out of the layout now: deleteLater waits for the event loop, and a screenshot or a second
            # set_items before then would show the old items beside the new ones
            self.body.removeWidget(label)
            label.hide()
            label.deleteLater()
        self.labels = []
        for item in items:
            label = QLabel(f"{glyph}  {item}")
            label.setWordWrap(True)
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            self.body.addWidget(label)
            self.labels.append(label)
        self.setVisible(bool(items))

    def retranslate(self) -> None:
        """Heading in the current language."""
        self.title.setText(tr(self.title_key))


MAX_BOX_LINES = 6  # a longer command scrolls inside its box


class MonospaceBox(QPlainTextEdit):
    """A read-only monospace box as tall as its text once wrapped to the box's width (a long command wraps;
    sized by its newlines alone its second line was cut off)."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.setObjectName("flags")
        self.setReadOnly(True)
        self.textChanged.connect(self.fit)
        self.fit()

    def fit(self) -> None:
        """Height for the wrapped lines, at most MAX_BOX_LINES (then it scrolls)."""
        width = max(self.viewport().width() - 2 * int(self.document().documentMargin()), 1)
        advance = max(self.fontMetrics().horizontalAdvance("M"), 1)
        per_line = max(width // advance, 1)
        lines = sum(max(1, -(-len(line) // per_line)) for line in self.toPlainText().split("\n"))
        shown = min(lines, MAX_BOX_LINES)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded if lines > shown
                                        else Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setFixedHeight(22 + self.fontMetrics().lineSpacing() * shown)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.fit()


def monospace_box(text: str) -> MonospaceBox:
    """A read-only monospace box sized to its text."""
    return MonospaceBox(text)


class FlagsBox(QWidget):
    """The recommended engine flags, selectable, with a Copy button and the engine's notes below."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = QLabel()
        self.title.setObjectName("h2")
        self.copy = QPushButton()
        self.copy.clicked.connect(self._copy)
        head = QHBoxLayout()
        head.addWidget(self.title, 1)
        head.addWidget(self.copy)
        self.text = monospace_box("")
        self.notes = QLabel()
        self.notes.setObjectName("muted")
        self.notes.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(head)
        layout.addWidget(self.text)
        layout.addWidget(self.notes)
        self.command = ""
        self.tentative = False
        self.retranslate()

    def set_flags(self, flags: Sequence[Flag], *, tentative: bool = False) -> None:
        """Show the report's flags list (engine, command, steps, notes); `tentative`: an INCONCLUSIVE verdict's
        measured settings, titled "measured, not confirmed — try" (copyable all the same)."""
        self.tentative = tentative
        lines: list[str] = []
        notes: list[str] = []
        for flag in flags:
            if flag.command:
                lines.append(flag.command)
            lines.extend(flag.steps)
            notes.extend(flag.notes)
        self.command = "\n".join(lines)
        self.text.setPlainText(self.command or tr("verdict.no_flags"))
        self.copy.setEnabled(bool(self.command))
        if tentative:
            notes.insert(0, text(language(), "try.why"))
        self.notes.setText("\n".join(f"• {n}" for n in notes))
        self.notes.setVisible(bool(notes))
        self.retranslate()

    def _copy(self) -> None:
        QGuiApplication.clipboard().setText(self.command)
        self.copy.setText(tr("verdict.copied"))
        QTimer.singleShot(1500, lambda: self.copy.setText(tr("verdict.copy")))

    def retranslate(self) -> None:
        """Labels in the current language."""
        self.title.setText(text(language(), "try.label") if self.tentative else tr("verdict.flags"))
        self.copy.setText(tr("verdict.copy"))
        if not self.command:
            self.text.setPlainText(tr("verdict.no_flags"))


def card(title: QLabel, *rows: QWidget) -> QFrame:
    """A white rounded card with a small caps title and rows below."""
    frame = QFrame()
    frame.setObjectName("card")
    title.setObjectName("cardTitle")
    layout = QVBoxLayout(frame)
    layout.setContentsMargins(14, 10, 14, 12)
    layout.setSpacing(3)
    layout.addWidget(title)
    for row in rows:
        layout.addWidget(row)
    layout.addStretch(1)
    return frame
