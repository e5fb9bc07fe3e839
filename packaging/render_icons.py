"""Render the app icon SVG to the PNG sizes desktops ask for (16…512), offscreen with Qt's own SVG renderer.

    .venv/bin/python packaging/render_icons.py     # writes packaging/icons/hicolor/<n>x<n>/apps/<id>.png
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # no display needed, also on CI

from PySide6.QtCore import Qt  # after setdefault: the platform must be chosen before Qt loads
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

APP_ID = "io.github.specadvisor.SpecAdvisor"
ICONS = Path(__file__).resolve().parent / "icons"
SIZES = (16, 24, 32, 48, 64, 128, 256, 512)  # the hicolor theme's usual fixed sizes


def render(svg: Path, size: int, out: Path) -> None:
    """Paint `svg` into a transparent size×size PNG at `out`."""
    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise SystemExit(f"{svg}: not a valid SVG")
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter)
    painter.end()
    out.parent.mkdir(parents=True, exist_ok=True)
    if not image.save(str(out)):
        raise SystemExit(f"cannot write {out}")


def main() -> int:
    """Render every size; prints one line per file."""
    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])  # QImage text/painting needs an app
    svg = ICONS / f"{APP_ID}.svg"
    for size in SIZES:
        out = ICONS / "hicolor" / f"{size}x{size}" / "apps" / f"{APP_ID}.png"
        render(svg, size, out)
        print(out.relative_to(ICONS.parent.parent))
    del app
    return 0


if __name__ == "__main__":
    sys.exit(main())
