"""Packaging files: desktop entry and AppStream metainfo pass the standard validators, the PyInstaller spec
bundles the data the app reads at run time, icons exist at every size. The frozen build itself is a script
(packaging/build, packaging/check_frozen): minutes of PyInstaller are too slow for the test suite."""

from __future__ import annotations

import ast
import shutil
import struct
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.paths import REPO

PACKAGING = REPO / "packaging"
APP_ID = "io.github.specadvisor.SpecAdvisor"
DESKTOP = PACKAGING / "linux" / f"{APP_ID}.desktop"
METAINFO = PACKAGING / "linux" / f"{APP_ID}.metainfo.xml"
ICON_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)


def _tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.skip(f"{name} is not installed (apt-get install -y desktop-file-utils appstream)")
    return path


def test_desktop_file_validates() -> None:
    done = subprocess.run([_tool("desktop-file-validate"), str(DESKTOP)], capture_output=True, text=True)
    assert done.returncode == 0 and "error" not in done.stdout.lower(), done.stdout + done.stderr


def test_metainfo_validates() -> None:
    cmd = [_tool("appstreamcli"), "validate", "--no-net", str(METAINFO)]
    done = subprocess.run(cmd, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_desktop_and_metainfo_agree() -> None:
    entry = dict(line.split("=", 1) for line in DESKTOP.read_text().splitlines() if "=" in line)
    assert entry["Icon"] == APP_ID and entry["Exec"].split()[0] == "spec-advisor"
    root = ET.parse(METAINFO).getroot()
    assert root.findtext("id") == APP_ID
    assert root.findtext("launchable") == DESKTOP.name
    shots = [img.text or "" for img in root.iter("image")]
    names = {Path(s).name for s in shots}
    assert names == {"start.png", "run.png", "verdict-en.png", "verdict-zh.png"}
    assert all(s.startswith("https://") for s in shots)


def _spec_data_folders() -> list[tuple[str, str]]:
    tree = ast.parse((PACKAGING / "spec-advisor.spec").read_text())
    for node in tree.body:
        if isinstance(node, ast.AnnAssign | ast.Assign):
            targets = [node.target] if isinstance(node, ast.AnnAssign) else node.targets
            if any(isinstance(t, ast.Name) and t.id == "DATA_FOLDERS" for t in targets):
                assert node.value is not None
                return list(ast.literal_eval(node.value))
    raise AssertionError("DATA_FOLDERS not found in packaging/spec-advisor.spec")


def test_spec_bundles_rules_and_prompt_library() -> None:
    folders = dict(_spec_data_folders())
    assert folders.get("rules/*.toml") == "rules"
    assert folders.get("advisor/workloads/library/*.jsonl") == "advisor/workloads/library"
    bundled = {p for pattern in folders for p in REPO.glob(pattern)}
    needed = set((REPO / "rules").glob("*.toml")) | set((REPO / "advisor/workloads/library").glob("*.jsonl"))
    assert needed <= bundled
    assert not any("cases" in Path(p).parts for p in bundled), "rules/cases is test data, not for the app"


def test_spec_collects_string_named_packages() -> None:
    # rules/ and the prompt library are only named in importlib.resources calls, commands via pkgutil.
    text = (PACKAGING / "spec-advisor.spec").read_text()
    for needed in ('"rules"', '"advisor.workloads.library"', 'collect_submodules("advisor")'):
        assert needed in text


def _png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n", path
    width, height = struct.unpack(">II", head[16:24])
    return width, height


def test_icons_exist_at_every_size() -> None:
    ET.parse(PACKAGING / "icons" / f"{APP_ID}.svg")  # well-formed SVG
    for size in ICON_SIZES:
        png = PACKAGING / "icons" / "hicolor" / f"{size}x{size}" / "apps" / f"{APP_ID}.png"
        assert _png_size(png) == (size, size)


@pytest.mark.parametrize("script", ["build", "check_frozen"])
def test_scripts_are_executable_bash(script: str) -> None:
    path = PACKAGING / script
    assert path.stat().st_mode & 0o111, f"{path} is not executable"
    assert subprocess.run(["bash", "-n", str(path)], capture_output=True).returncode == 0
