"""Run folders for the window's views: the reader lives in advisor/history/folders.py (the CLI's
`history --compare` reads folders too); this module keeps the window's imports in one place."""

from __future__ import annotations

from advisor.history.folders import RunData, RunFolderError, list_runs, load_run, summary, to_record

__all__ = ["RunData", "RunFolderError", "list_runs", "load_run", "summary", "to_record"]
