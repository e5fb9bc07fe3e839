"""The PySide6 refcount guard: after the app starts, many void Qt calls cannot bring None near zero."""

from __future__ import annotations

import sys

from ui import qt_compat
from ui.app import application


def test_void_calls_do_not_exhaust_none() -> None:
    application()  # applies the guard when the leak is present
    from PySide6.QtGui import QPen

    pen = QPen()
    for _ in range(20_000):
        pen.setCosmetic(True)
    assert sys.getrefcount(None) > 1_000_000 or not qt_compat.none_leaks()


def test_protect_is_idempotent() -> None:
    application()
    assert qt_compat.protect_none() is False  # already applied (or not needed)
