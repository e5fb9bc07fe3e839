"""Where a command may write: one place decides, so no command writes over the data spec-advisor keeps.

A run folder's own files (evidence.json, verdict.json, the server logs), the history database and the check
lock are the user's data: `report -o`, `gui --screenshot`, the window's export and `check --out` never
replace them, nor the file a report is read from. A folder given as the output (one that exists, or a name
ending in `/`) gets the default file name inside it instead of becoming a file of that name.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from advisor import paths
from advisor.errors import UserError
from advisor.text import text

# What a check writes into its run folder (advisor/run/session.py, advisor/evidence/io.py).
RUN_FILES = ("evidence.json", "verdict.json")
RUN_FOLDERS = ("logs",)
# The files spec-advisor keeps in its data folder besides the runs (advisor/history/schema.py DB_FILENAME, its
# SQLite journals, advisor/run/lock.py LOCK_FILE).
DATA_FILES = ("history.sqlite3", "history.sqlite3-wal", "history.sqlite3-shm", "history.sqlite3-journal",
              "check.lock")
# A report spec-advisor wrote into a run folder (the window's export offers report.html there) may be written
# again; every other existing file there belongs to the run.
REPORT_STEM = "report"


def is_run_folder(folder: Path) -> bool:
    """True when `folder` holds what a check writes (an earlier run, finished or not)."""
    return folder.is_dir() and any((folder / name).exists() for name in (*RUN_FILES, *RUN_FOLDERS))


def run_folder_of(path: Path) -> Path | None:
    """The run folder `path` lies in (itself or a parent), or None."""
    return next((p for p in (path.parent, *path.parent.parents) if is_run_folder(p)), None)


def wants_folder(raw: str) -> bool:
    """`-o DIR/` (a trailing separator) or an existing folder: the output goes inside it."""
    return raw.endswith(("/", os.sep)) or Path(raw).expanduser().is_dir()


def output_file(raw: str, default_name: str, *, sources: Iterable[Path] = (), lang: str = "en",
                make_folder: bool = True) -> Path:
    """The file to write for the output the user named `raw`: inside it when it is a folder (created when the
    name ends in `/`), refused (UserError, exit 2) when it is a file spec-advisor keeps or one of `sources`."""
    path = Path(raw).expanduser()
    if wants_folder(raw):
        if make_folder and not path.exists():
            try:
                path.mkdir()
            except OSError as exc:
                raise UserError(text(lang, "owned.no_folder", path=path, why=exc.strerror or exc)) from None
        path = path / default_name
    refuse_owned(path, sources=sources, lang=lang)
    return path


def refuse_owned(path: Path, *, sources: Iterable[Path] = (), lang: str = "en") -> None:
    """UserError when writing `path` would replace a run's file, the history, the lock or a source."""
    real = Path(os.path.realpath(path))  # a link to evidence.json is evidence.json
    for source in sources:
        if real == Path(os.path.realpath(source)):
            raise UserError(text(lang, "owned.source", path=path), hint=text(lang, "owned.hint"))
    if real.parent == Path(os.path.realpath(paths.data_dir())) and real.name in DATA_FILES:
        raise UserError(text(lang, "owned.data", path=path), hint=text(lang, "owned.hint"))
    run = run_folder_of(real)
    if run is None:
        return
    inside = real.relative_to(run)
    if inside.parts[0] in RUN_FOLDERS or real.name in RUN_FILES or (real.exists() and real.stem != REPORT_STEM):
        raise UserError(text(lang, "owned.run_file", path=path, run=run), hint=text(lang, "owned.hint"))


def refuse_earlier_run(out: Path, *, lang: str = "en") -> None:
    """`check --out DIR` where DIR already holds a run, or lies inside one (its logs/, say): refused, the
    earlier run is never replaced or mixed with a new one."""
    if is_run_folder(out) or run_folder_of(Path(os.path.realpath(out)) / "evidence.json") is not None:
        raise UserError(text(lang, "owned.earlier_run", path=out), hint=text(lang, "owned.earlier_run_hint"))
