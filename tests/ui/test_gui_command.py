"""`spec-advisor gui`: discovered by the CLI, screenshots offscreen, and advisor imports no Qt by itself."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from PySide6.QtGui import QImage

from advisor.cli import main as cli


def test_gui_is_a_discovered_command() -> None:
    parser = cli.build_parser()
    args = parser.parse_args(["gui", "--lang", "zh", "--view", "history"])
    assert args.command == "gui" and args.lang == "zh" and args.view == "history"


def test_screenshot_of_a_saved_run(tmp_path: Path, saved_run: Path) -> None:
    shot = tmp_path / "verdict.png"
    assert cli.main(["gui", "--open", str(saved_run), "--screenshot", str(shot)]) == 0
    image = QImage(str(shot))
    assert image.width() >= 1280 and image.height() >= 800


def test_missing_run_folder_is_a_user_error(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    assert cli.main(["gui", "--open", str(tmp_path / "nope"), "--screenshot", str(tmp_path / "x.png")]) == 2
    assert "no run folder" in capsys.readouterr().err


def test_advisor_does_not_import_qt() -> None:
    code = ("import sys, advisor.cli.main, advisor.run.session, advisor.cli.gui; "
            "bad = [m for m in sys.modules if m.startswith(('PySide6', 'pyqtgraph', 'ui'))]; "
            "print(bad); sys.exit(1 if bad else 0)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_window_closed_at_once_exits_without_tracebacks(tmp_path: Path) -> None:
    # Closed within its first second, while the host and engine probes still run on the thread pool: their
    # results used to reach signal objects deleted with the window ("Signal source has been deleted").
    code = ("from PySide6.QtCore import QTimer; from PySide6.QtWidgets import QApplication; from ui import app; "
            "a = app.application(); QTimer.singleShot(50, QApplication.quit); raise SystemExit(app.run('en'))")
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path)}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr and "has been deleted" not in result.stderr, result.stderr
