"""Colours, fonts and the one style sheet. Okabe–Ito series colours stay distinguishable for colour-blind
readers; verdicts always carry a word and a glyph as well as a colour."""

from __future__ import annotations

from typing import Any

BG = "#f6f7f9"
CARD = "#ffffff"
BORDER = "#d9dde3"
TEXT = "#1f2328"
MUTED = "#5b636e"
ACCENT = "#0b5cad"
DEMO = "#8a5a00"
DEMO_BG = "#fff4d6"

BLUE, ORANGE, GREEN, VERMILLION = "#0072B2", "#E69F00", "#009E73", "#D55E00"
PURPLE, SKY, GREY = "#CC79A7", "#56B4E9", "#8c959f"

VERDICT_COLOURS = {"ENABLE": "#1a7f37", "SKIP": "#b42318", "INCONCLUSIVE": "#8a5a00"}
VERDICT_BG = {"ENABLE": "#e8f5ec", "SKIP": "#fdecea", "INCONCLUSIVE": "#fff4d6"}
VERDICT_GLYPH = {"ENABLE": "✔", "SKIP": "✖", "INCONCLUSIVE": "?"}
STATUS_GLYPH = {"pending": "○", "running": "◐", "done": "✔", "skipped": "–", "failed": "✖", "aborted": "■",
                "notrun": "–"}
STATUS_COLOUR = {"pending": MUTED, "running": ACCENT, "done": "#1a7f37", "skipped": MUTED,
                 "failed": "#b42318", "aborted": "#8a5a00", "notrun": MUTED}

STYLE = f"""
QWidget {{ color: {TEXT}; font-size: 10pt; }}
QMainWindow, QStackedWidget, QScrollArea, QScrollArea > QWidget > QWidget {{ background: {BG}; }}
QFrame#card {{ background: {CARD}; border: 1px solid {BORDER}; border-radius: 8px; }}
QLabel#cardTitle {{ font-size: 9pt; font-weight: 600; color: {MUTED}; letter-spacing: 1px; }}
QLabel#cardHeadline {{ font-size: 12pt; font-weight: 600; }}
QLabel#muted {{ color: {MUTED}; }}
QLabel#h1 {{ font-size: 20pt; font-weight: 600; }}
QLabel#h2 {{ font-size: 12pt; font-weight: 600; }}
QLabel#demo {{ background: {DEMO_BG}; color: {DEMO}; border: 1px solid #e7c873; border-radius: 6px;
               padding: 6px 10px; font-weight: 600; }}
QLabel#error {{ background: #fdecea; color: #8c1d13; border: 1px solid #f1b8b2; border-radius: 6px;
                padding: 8px 12px; }}
QPushButton {{ padding: 5px 12px; border: 1px solid {BORDER}; border-radius: 6px; background: {CARD}; }}
QPushButton:hover {{ border-color: {ACCENT}; }}
QPushButton:disabled {{ color: #a0a7b0; }}
QPushButton#primary {{ background: {ACCENT}; color: white; border: none; font-size: 14pt; font-weight: 600;
                      padding: 14px 28px; border-radius: 10px; }}
QPushButton#primary:disabled {{ background: #9fb7d3; }}
QPushButton#nav {{ border: none; background: transparent; padding: 8px 14px; font-weight: 600; color: {MUTED}; }}
QPushButton#nav:checked {{ color: {ACCENT}; border-bottom: 2px solid {ACCENT}; }}
QPushButton#nav:disabled {{ color: #c0c6cd; }}
QPlainTextEdit#flags {{ font-family: monospace; background: #f0f2f5; border: 1px solid {BORDER};
                        border-radius: 6px; padding: 6px; }}
QTreeWidget, QTableWidget, QListWidget {{ background: {CARD}; border: 1px solid {BORDER}; border-radius: 6px; }}
QHeaderView::section {{ background: #eef0f3; border: none; padding: 4px 6px; font-weight: 600; }}
"""


def configure_pyqtgraph() -> None:
    """White plots with dark text, antialiased; imported lazily so `ui.theme` loads without pyqtgraph."""
    import pyqtgraph as pg

    pg.setConfigOptions(antialias=True, background=CARD, foreground=TEXT)


def pen(colour: str, width: float = 2.0, dashed: bool = False) -> Any:
    """A cosmetic pen (width in screen pixels whatever the zoom)."""
    import pyqtgraph as pg
    from PySide6.QtCore import Qt

    p = pg.mkPen(colour, width=width)
    if dashed:
        p.setStyle(Qt.PenStyle.DashLine)
    return p
