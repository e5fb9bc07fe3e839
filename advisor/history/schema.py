"""SQLite layout of the run history, where it lives, and how a connection is opened.

Durability choices follow reliability.md §6.1: WAL so a reader never blocks the recorder, and
`synchronous=FULL` because a measurement unit that was reported as committed must survive a power
loss, not only an application crash (WAL + NORMAL may roll the last commits back after power loss).
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from advisor import paths
from advisor.errors import UserError

SCHEMA_VERSION = 1
DB_FILENAME = "history.sqlite3"
DATA_DIR_ENV = "SPEC_ADVISOR_DATA_DIR"
# A second spec-advisor (the GUI and a CLI run) may hold the write lock for one unit's transaction;
# waiting a few seconds is better than failing the measurement.
BUSY_TIMEOUT_MS = 10_000

_DDL = """
CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY,
    created_utc TEXT NOT NULL,
    finished_utc TEXT,
    status TEXT NOT NULL,
    app_version TEXT NOT NULL,
    config_json TEXT NOT NULL,
    environment_json TEXT NOT NULL,
    verdict_json TEXT,
    facts_json TEXT,
    run_dir TEXT
);
CREATE TABLE IF NOT EXISTS steps (
    run_id TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
    step TEXT NOT NULL,
    status TEXT NOT NULL,
    evidence_json TEXT NOT NULL,
    finished_utc TEXT NOT NULL,
    PRIMARY KEY (run_id, step)
);
CREATE TABLE IF NOT EXISTS units (
    run_id TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
    step TEXT NOT NULL,
    unit_key TEXT NOT NULL,
    payload_json TEXT NOT NULL,
    recorded_utc TEXT NOT NULL,
    PRIMARY KEY (run_id, step, unit_key)
);
CREATE INDEX IF NOT EXISTS runs_by_time ON runs(created_utc);
"""


class StoreError(UserError):
    """The history database cannot be used (corrupt, newer schema, unwritable folder)."""


def data_dir() -> Path:
    """The folder for the history database: `$SPEC_ADVISOR_DATA_DIR` or the platform's user data dir."""
    return paths.data_dir()


def default_db_path() -> Path:
    """Where `RunStore()` keeps the history when no path is given."""
    return data_dir() / DB_FILENAME


def connect(path: Path) -> sqlite3.Connection:
    """Open (creating if needed) the history at `path`, check it, and bring its schema up to date."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        # isolation_level=None: we issue BEGIN/COMMIT ourselves so one unit is exactly one transaction.
        conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None,
                               check_same_thread=False)
    except (OSError, sqlite3.Error) as exc:
        raise StoreError(f"cannot open the run history at {path}: {exc}",
                         hint=f"check the folder is writable, or set {DATA_DIR_ENV}") from exc
    try:
        _configure(conn, path)
    except (OSError, sqlite3.Error) as exc:  # e.g. the file made read-only or immutable: no traceback
        conn.close()
        raise StoreError(f"cannot write to the run history at {path}: {exc}",
                         hint=f"make the file writable, use --no-history, or set {DATA_DIR_ENV}") from exc
    except BaseException:
        conn.close()
        raise
    return conn


def _configure(conn: sqlite3.Connection, path: Path) -> None:
    try:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        conn.execute("PRAGMA synchronous = FULL")
        conn.execute("PRAGMA foreign_keys = ON")
        check = conn.execute("PRAGMA quick_check").fetchone()[0]
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"the run history at {path} is not a usable database: {exc}",
                         hint="move the file aside; a new history will be created") from exc
    if str(mode).lower() != "wal":
        raise StoreError(f"the run history at {path} cannot use WAL journaling (got {mode!r})",
                         hint=f"put it on a local disk, or set {DATA_DIR_ENV}")
    if check != "ok":
        raise StoreError(f"the run history at {path} is damaged: {check}",
                         hint="move the file aside; a new history will be created")
    _migrate(conn, path)
    # The history holds details of the user's machine; keep it private to them (reliability.md §6.2).
    for suffix in ("", "-wal", "-shm"):
        sibling = Path(str(path) + suffix)
        if sibling.exists():
            os.chmod(sibling, 0o600)


def _migrate(conn: sqlite3.Connection, path: Path) -> None:
    conn.execute("BEGIN IMMEDIATE")
    try:
        for statement in _DDL.split(";"):
            if statement.strip():
                conn.execute(statement)
        row = conn.execute("SELECT MAX(version) FROM schema_version").fetchone()
        found = row[0] if row else None
        if found is None:
            conn.execute("INSERT INTO schema_version (version) VALUES (?)", (SCHEMA_VERSION,))
        elif int(found) > SCHEMA_VERSION:
            raise StoreError(
                f"the run history at {path} was written by a newer spec-advisor "
                f"(schema {found}; this version knows up to {SCHEMA_VERSION})",
                hint=f"update spec-advisor, or set {DATA_DIR_ENV} to use a separate history",
            )
        # Older versions would be upgraded here, one step per version, inside this transaction. Columns added
        # within schema 1 (readers name their columns, so an older spec-advisor still reads the file):
        columns = {row[1] for row in conn.execute("PRAGMA table_info(runs)")}
        if "run_dir" not in columns:  # where the run's folder is (wherever --out put it), for the window
            conn.execute("ALTER TABLE runs ADD COLUMN run_dir TEXT")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
