"""Chinese text must never show as boxes: when the system has no font with Chinese glyphs, load the one the
app ships (ui/fonts/, filled by packaging/spec-advisor.spec on Linux builds) or the file SPEC_ADVISOR_CJK_FONT
names, and make it the fallback of the app's own font. Windows and macOS always have one (Microsoft YaHei,
PingFang); a bare Linux does not."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from PySide6.QtGui import QFont, QFontDatabase
from PySide6.QtWidgets import QApplication

FONT_DIR = Path(__file__).resolve().parent / "fonts"  # the same relative place inside the frozen app
ENV_FONT = "SPEC_ADVISOR_CJK_FONT"
_SUFFIXES = (".otf", ".ttf", ".ttc", ".otc")


def cjk_families() -> list[str]:
    """Font families that can write Simplified Chinese."""
    return list(QFontDatabase.families(QFontDatabase.WritingSystem.SimplifiedChinese))


def shipped_fonts() -> list[Path]:
    """The font files the app carries, then the user's own (SPEC_ADVISOR_CJK_FONT)."""
    found = sorted(p for p in FONT_DIR.glob("*") if p.suffix.lower() in _SUFFIXES) if FONT_DIR.is_dir() else []
    if (extra := os.environ.get(ENV_FONT)) and Path(extra).is_file():
        found.append(Path(extra))
    return found


def load(paths: Iterable[Path]) -> list[str]:
    """Register font files with Qt; returns the families they added (a file Qt cannot read adds none)."""
    families: list[str] = []
    for path in paths:
        font_id = QFontDatabase.addApplicationFont(str(path))
        if font_id >= 0:
            families += [f for f in QFontDatabase.applicationFontFamilies(font_id) if f not in families]
    return families


def ensure_cjk(app: QApplication) -> list[str]:
    """Make sure Chinese renders; returns the Chinese-capable families now known (empty: boxes are likely)."""
    have = cjk_families()
    if have and not os.environ.get(ENV_FONT):
        return have
    added = load(shipped_fonts())
    if added:
        # the app's font keeps its Latin glyphs; characters it lacks come from the shipped font
        QFont.insertSubstitutions(app.font().family(), added)
    return cjk_families()
