"""pytest-qt setup for the desktop app tests.

Why this is necessary: pytest-qt picks a Qt binding at import time, and the project's pytest settings are
shared with the core; forcing PySide6 here keeps the choice next to the only tests that need Qt. The tests
run offscreen, so no display is needed. The UI language is module state, so it is reset after each test.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ["PYTEST_QT_API"] = "pyside6"
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

pytest.importorskip("PySide6")
pytest.importorskip("pyqtgraph")

FIXTURE_RUNS = Path(__file__).resolve().parent.parent / "fixtures" / "runs"


@pytest.fixture(autouse=True)
def _english() -> Iterator[None]:
    from ui.strings import set_language

    set_language("en")
    yield
    set_language("en")


@pytest.fixture
def saved_run() -> Path:
    """A quick check of the demo engine on a loaded 2-core machine (A/B stopped by a timeout after 10 pairs),
    trimmed of prompts and outputs (tests/fixtures/runs/demo-quick)."""
    return FIXTURE_RUNS / "demo-quick"


@pytest.fixture
def window(qtbot):  # type: ignore[no-untyped-def]
    """The main window in English, styled, probes started, closed after the test."""
    from ui.app import build_window

    win = build_window(lang="en")
    qtbot.addWidget(win)
    win.resize(1440, 900)
    yield win
    # A test that failed mid-check leaves servers running: stop the check and wait for it to end (the
    # session stops its servers), so the next real-engine test starts on a quiet machine.
    win.controller.cancel()
    if win.controller.running:
        qtbot.waitUntil(lambda: not win.controller.running, timeout=600_000)
    win.controller.wait(60_000)
    win.start_view.jobs.wait(20_000)
