"""Where no display is there (an SSH session), `spec-advisor` says how to check from the terminal instead of
letting Qt abort; `gui --screenshot` still renders offscreen."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtGui import QImage

from advisor.cli.gui import has_display
from advisor.text import text

REPO = Path(__file__).resolve().parents[2]


def _headless_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, (str(REPO), env.get("PYTHONPATH"))))
    return env | extra


def _spec_advisor(args: list[str], env: dict[str, str], tmp: Path) -> subprocess.CompletedProcess[str]:
    env = env | {"SPEC_ADVISOR_DATA_DIR": str(tmp / "data"), "SPEC_ADVISOR_CONFIG_DIR": str(tmp / "config")}
    return subprocess.run([sys.executable, "-m", "advisor", *args], capture_output=True, text=True, env=env,
                          timeout=120, cwd=tmp)


@pytest.mark.parametrize(("env", "platform", "expected"), [
    ({}, "linux", False),
    ({"DISPLAY": ":0"}, "linux", True),
    ({"WAYLAND_DISPLAY": "wayland-0"}, "linux", True),
    ({"QT_QPA_PLATFORM": "offscreen"}, "linux", True),
    ({"DISPLAY": ""}, "freebsd14", False),
    ({}, "darwin", True),
    ({}, "win32", True),
])
def test_has_display(env: dict[str, str], platform: str, expected: bool) -> None:
    assert has_display(env, platform) is expected


def test_bare_start_without_display_explains_and_exits_cleanly(tmp_path: Path) -> None:
    done = _spec_advisor([], _headless_env(LANG="C.UTF-8"), tmp_path)
    assert done.returncode == 0, done.stderr
    assert text("en", "gui.no_display") in done.stderr and "spec-advisor check --quick" in done.stderr
    assert "Traceback" not in done.stderr and "qt.qpa" not in done.stderr


def test_bare_start_speaks_chinese_in_a_chinese_locale(tmp_path: Path) -> None:
    done = _spec_advisor([], _headless_env(LANG="zh_CN.UTF-8"), tmp_path)
    assert done.returncode == 0 and text("zh", "gui.no_display") in done.stderr


def test_asking_for_the_window_without_display_is_a_user_error(tmp_path: Path) -> None:
    done = _spec_advisor(["gui", "--lang", "en"], _headless_env(), tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith(f"spec-advisor: {text('en', 'gui.no_display')}")
    assert "hint: " in done.stderr


def test_screenshot_without_display_renders_offscreen(tmp_path: Path, saved_run: Path) -> None:
    shot = tmp_path / "shot.png"
    done = _spec_advisor(["gui", "--open", str(saved_run), "--screenshot", str(shot)], _headless_env(), tmp_path)
    assert done.returncode == 0, done.stderr
    image = QImage(str(shot))
    assert image.width() >= 1280 and image.height() >= 800
