"""The window in Chinese holds no English words (tests/zh_words.py) on any view, with a finished run open: every
label, button, table cell and header, tab and list item, and the run view says the run is done, not measuring."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import get_args

from PySide6.QtWidgets import QAbstractButton, QGroupBox, QLabel, QListWidget, QTableWidget, QTabWidget, QWidget

from advisor.decide.rules import OPS, load_rules
from probes.gpu.probe import GpuStatus
from tests.said_as_now import said_as_now
from tests.zh_words import english_words

_RULES = load_rules()
NAMES = frozenset({*_RULES.files, *(b.id for f in _RULES.files.values() for b in f.branches), *OPS,
                   *get_args(GpuStatus)})


def _texts(root: QWidget) -> list[str]:
    """Every text a person can read in `root`'s visible widgets."""
    out: list[str] = []
    for w in root.findChildren(QWidget):
        if not w.isVisibleTo(root):
            continue
        if isinstance(w, QLabel | QAbstractButton):
            out.append(w.text())
        elif isinstance(w, QGroupBox):
            out.append(w.title())
        elif isinstance(w, QTabWidget):
            out += [w.tabText(i) for i in range(w.count())]
        elif isinstance(w, QListWidget):
            out += [w.item(i).text() for i in range(w.count())]
        elif isinstance(w, QTableWidget):
            out += [w.horizontalHeaderItem(c).text() for c in range(w.columnCount()) if w.horizontalHeaderItem(c)]
            out += [w.item(r, c).text() for r in range(w.rowCount()) for c in range(w.columnCount()) if w.item(r, c)]
    return out


def test_every_view_reads_in_chinese(window, saved_run: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    run = tmp_path / "run"  # the saved run with a verdict this version decides (the saved one predates zh texts)
    shutil.copytree(saved_run, run)
    said_as_now(run, _RULES)
    window.set_language("zh")
    assert window.open_path(str(run))
    left: list[str] = []
    for view in ("start", "run", "verdict", "history"):
        window.show_view(view)
        page = {"start": window.start_view, "run": window.run_view, "verdict": window.verdict_view,
                "history": window.history_view}[view]
        texts = _texts(page)
        # the engine's own version text ("0.6.0-dev (build 0, commit unknown)") is shown as llama-server says it
        version = str(getattr(window.start_view.binary, "version", "") or "")
        texts = [t.replace(version, "") if version else t for t in texts]
        assert len(texts) > 5, view  # the view was read, not skipped
        for shown in texts:
            left += [f"{view}: {w!r} in {shown[:120]!r}" for w in english_words(shown, NAMES)]
    assert not left, "\n".join(sorted(set(left)))
    assert "测量中" not in window.run_view.title.text()  # a finished run is not being measured
