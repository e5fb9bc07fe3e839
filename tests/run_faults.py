"""Shared pieces of the run-level fault tests (tests/advisor/run/test_run_faults*.py) and bench/faults.py: a tiny
budget, running a session the way `spec-advisor check` does (its exit code and printed summary), and the faults
themselves (SIGKILL of a server, an immutable history, a full disk)."""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import shutil
import signal
import sqlite3
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from advisor.config import QUICK, Budget, CheckConfig
from advisor.events import Event, UnitDone
from advisor.run.session import Session

# Small enough for a loaded 2-core machine: 16 tokens, one prompt per category, a 2-repeat canary, 4 A/B
# pairs, no warm-up.
TINY: Budget = replace(QUICK, max_tokens=16, acceptance_per_category=1, canary_repeats=2, canary_reruns=1,
                       ab_max_pairs=4, warmup_requests=0, batch_levels=(1, 2), batch_rounds=1)


def tiny_config(out: Path, *steps: str, budget: Budget = TINY, **changes: Any) -> CheckConfig:
    """A managed quick check of `steps` with the tiny budget, writing into `out`."""
    return CheckConfig(quick=True, steps=steps, out_dir=out, threads=2, budget_override=budget, **changes)


# Copy tasks in one category keep the acceptance step to a handful of requests (the library has one prompt per
# category at least). The demo model rarely drafts in 16 tokens; units that do carry per-position counters.
_VOCAB = (
    "river", "stone", "lamp", "cloud", "garden", "window", "silver", "orange", "paper", "engine", "violin",
    "harbor", "candle", "forest", "market", "pencil", "winter", "rocket", "bridge", "castle", "meadow",
    "tunnel", "mirror", "basket", "anchor", "planet", "ladder", "copper", "velvet", "jungle",
)
COPY_BUDGET: Budget = replace(TINY, acceptance_per_category=4)


def write_copy_prompts(path: Path, n: int = 24) -> Path:
    """`n` distinct "write this sequence three times" prompts (a fixed seed: the same file every run)."""
    import random

    rng = random.Random(7)
    path.write_text("".join(f"Write this sequence three times: {' '.join(rng.sample(_VOCAB, 12))}\n"
                            for _ in range(n)), encoding="utf-8")
    return path


def run_like_cli(session: Session, *, as_json: bool = True) -> tuple[int, str]:
    """Run `session` through the `check` command's own runner: its exit code and what it printed."""
    from advisor.cli.check import _run_session

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = _run_session(session, argparse.Namespace(json=as_json, lang="en"))
    return code, out.getvalue()


def on_unit(step: str, nth: int, action: Callable[[], None]) -> Callable[[Event], None]:
    """A subscriber that runs `action` once, right after the `nth` unit of `step` was recorded."""
    seen: list[str] = []

    def subscriber(event: Event) -> None:
        if isinstance(event, UnitDone) and event.step == step:
            seen.append(event.key)
            if len(seen) == nth:
                action()

    return subscriber


def sigkill_arm(session: Session, arm: str) -> Callable[[], None]:
    """SIGKILL the process of the managed server of `arm` (a crash, not a stop: nothing is told)."""

    def kill() -> None:
        assert session.arms is not None
        server = getattr(session.arms, arm).server
        assert server is not None and server.pid is not None
        os.killpg(server.pid, signal.SIGKILL)

    return kill


def database_files(db: Path) -> list[Path]:
    """The database and its WAL (never the -shm: an immutable mmap'd file kills the process with SIGBUS)."""
    return [p for p in (db, Path(f"{db}-wal")) if p.exists()]


def can_chattr(folder: Path) -> str:
    """"" when `chattr +i` works in `folder`, else why not (not root, no CAP_LINUX_IMMUTABLE, no chattr)."""
    if shutil.which("chattr") is None:
        return "no chattr"
    probe = folder / "chattr-probe"
    probe.write_text("x")
    try:
        done = subprocess.run(["chattr", "+i", str(probe)], capture_output=True, text=True)
        if done.returncode != 0:
            return f"chattr +i refused: {done.stderr.strip()}"
        subprocess.run(["chattr", "-i", str(probe)], check=True)
        return ""
    finally:
        probe.unlink()


def set_immutable(paths: list[Path], on: bool) -> None:
    """chattr ±i on `paths` (root ignores file modes; the immutable flag it cannot ignore)."""
    subprocess.run(["chattr", "+i" if on else "-i", *map(str, paths)], check=True)


@contextlib.contextmanager
def small_tmpfs(mount_point: Path, size: str = "8m") -> Iterator[str]:
    """Mount a tmpfs of `size` at `mount_point`; yields "" when mounted, else why it could not be."""
    mount_point.mkdir(parents=True, exist_ok=True)
    if shutil.which("mount") is None:
        yield "no mount command"
        return
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs", str(mount_point)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        yield f"cannot mount a tmpfs here: {done.stderr.strip() or done.returncode}"
        return
    try:
        yield ""
    finally:
        subprocess.run(["umount", "-l", str(mount_point)], check=False)


def fill_disk(folder: Path) -> None:
    """Write zeros into `folder` until its file system says ENOSPC (the file stays: the disk stays full)."""
    chunk = b"\0" * 65536
    with contextlib.suppress(OSError), open(folder / "filler", "wb") as handle:
        while True:
            handle.write(chunk)
            handle.flush()
            os.fsync(handle.fileno())


def stored_units(db: Path, step: str) -> dict[str, str]:
    """unit_key → payload_json of `step` in `db` (empty before the table exists)."""
    if not db.exists():
        return {}
    with contextlib.closing(sqlite3.connect(db, timeout=30)) as conn:
        try:
            rows = conn.execute("SELECT unit_key, payload_json FROM units WHERE step = ?", (step,)).fetchall()
        except sqlite3.OperationalError:
            return {}
    return dict(rows)


def run_status(db: Path) -> list[tuple[str, str]]:
    """(run_id, status) of every run in `db`."""
    with contextlib.closing(sqlite3.connect(db, timeout=30)) as conn:
        return conn.execute("SELECT run_id, status FROM runs").fetchall()
