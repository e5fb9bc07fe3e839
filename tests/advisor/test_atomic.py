"""Atomic writes: the new content or the old, never a torn file; private permissions; no temp left."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from advisor import atomic
from advisor.atomic import remove_orphaned_temp_files, write_atomic
from tests.paths import REPO


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


def test_fifo_is_written_through_not_replaced(tmp_path: Path) -> None:
    import stat
    import threading

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    write_atomic(fifo, "through the pipe")
    reader.join(timeout=10)
    assert got == [b"through the pipe"]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert [p.name for p in tmp_path.iterdir()] == ["pipe"]


def test_symlink_is_kept_and_its_file_written(tmp_path: Path) -> None:
    real = tmp_path / "real.md"
    real.write_text("old", encoding="utf-8")
    link = tmp_path / "link.md"
    link.symlink_to(real)
    write_atomic(link, "new")
    assert link.is_symlink() and real.read_text(encoding="utf-8") == "new"
    dangling = tmp_path / "dangling.md"
    dangling.symlink_to(tmp_path / "later.md")
    write_atomic(dangling, "made")
    assert dangling.is_symlink() and (tmp_path / "later.md").read_text(encoding="utf-8") == "made"


def test_device_node_is_never_replaced(tmp_path: Path) -> None:
    import stat

    node = tmp_path / "null"
    try:
        os.mknod(node, 0o666 | stat.S_IFCHR, os.makedev(1, 3))  # the same device as /dev/null
    except (PermissionError, AttributeError, OSError) as exc:
        pytest.skip(f"cannot create a device node here: {exc}")
    write_atomic(node, "discarded")
    assert stat.S_ISCHR(os.lstat(node).st_mode)
    assert [p.name for p in tmp_path.iterdir()] == ["null"]


def test_dev_stdout_reaches_the_reader(tmp_path: Path) -> None:
    import subprocess
    import sys

    code = "from advisor.atomic import write_atomic; write_atomic('/dev/stdout', 'to stdout')"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    piped = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert piped.stdout == "to stdout"
    out = tmp_path / "redirected.txt"
    with out.open("w") as handle:
        subprocess.run([sys.executable, "-c", code], stdout=handle, env=env, check=True)
    assert out.read_text() == "to stdout"


def test_folder_target_is_refused(tmp_path: Path) -> None:
    with pytest.raises(IsADirectoryError):
        write_atomic(tmp_path, "x")
