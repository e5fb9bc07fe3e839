"""Atomic writes: the new content or the old, never a torn file; private permissions; no temp left."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from advisor import atomic
from advisor.atomic import remove_orphaned_temp_files, write_atomic


def test_write_replace_and_mode(tmp_path: Path) -> None:
    target = tmp_path / "report.html"
    write_atomic(target, "first")
    write_atomic(target, "second ✓".encode())
    assert target.read_text(encoding="utf-8") == "second ✓"
    assert (target.stat().st_mode & 0o777) == 0o600
    assert [p.name for p in tmp_path.iterdir()] == ["report.html"]


def test_failed_replace_keeps_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "report.md"
    target.write_text("old", encoding="utf-8")

    def boom(src: str, dst: Path) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(atomic, "_replace_with_retry", boom)
    with pytest.raises(OSError):
        write_atomic(target, "new")
    assert target.read_text(encoding="utf-8") == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["report.md"]  # temp file cleaned up


def test_missing_folder_raises(tmp_path: Path) -> None:
    with pytest.raises(OSError):
        write_atomic(tmp_path / "nope" / "x.json", "{}")


def test_orphans_are_removed(tmp_path: Path) -> None:
    orphan = tmp_path / ".tmp-report.html.abc"
    orphan.write_text("half", encoding="utf-8")
    os.utime(orphan, (0, 0))
    keep = tmp_path / "report.html"
    keep.write_text("ok", encoding="utf-8")
    assert remove_orphaned_temp_files(tmp_path) == 1 and keep.exists() and not orphan.exists()
