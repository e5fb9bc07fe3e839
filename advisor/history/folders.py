"""Read saved run folders (evidence.json + verdict.json) for the window's views and `history --compare`.

One history for the window and the CLI: the recorder stores every run's folder in the history database
(wherever `check --out` put it), so `list_runs` shows the folders the database names beside those under the
runs directory (a `--no-history` run, or one from before folders were recorded), each folder once. Two
folders are compared as `RunRecord`s, as the database's runs are.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from advisor import paths
from advisor.decide.verdict import Verdict
from advisor.decide.verdict_json import saved_facts, verdict_from_json
from advisor.errors import UserError
from advisor.evidence.codec import encode
from advisor.evidence.io import load_evidence, read_json_file
from advisor.evidence.schema import Evidence
from advisor.history.records import RunRecord, RunSummary, StepRecord, environment_columns
from advisor.history.schema import StoreError, default_db_path
from advisor.history.store import RunStore


class RunFolderError(Exception):
    """A run folder that cannot be shown; the message is for the user."""


@dataclass(frozen=True, slots=True)
class RunData:
    """One run as saved on disk."""

    run_dir: Path
    evidence: Evidence
    verdict: Verdict | None              # None: verdict.json is missing, the run was never decided
    facts: Mapping[str, object] = field(default_factory=dict)  # what the verdict was decided from

    @property
    def is_demo(self) -> bool:
        """Managed demo engine with the bundled model: numbers that say nothing about the user's GPU."""
        config = self.evidence.config
        return config.mode == "managed" and not config.model and not config.llama_server


def _read(path: Path) -> object:
    try:  # bounded, UTF-8, no pipes, no absurd nesting: the evidence reader's own rules
        return read_json_file(path, what="a verdict file")
    except UserError as exc:
        raise RunFolderError(str(exc)) from exc


def load_run(run_dir: str | Path) -> RunData:
    """Load a run folder; a missing verdict.json means the run was never decided (None)."""
    folder = Path(run_dir).expanduser()
    if folder.is_file():
        folder = folder.parent
    try:
        evidence = load_evidence(folder)
    except UserError as exc:
        raise RunFolderError(str(exc)) from exc
    verdict_path = folder / "verdict.json"
    data = _read(verdict_path) if verdict_path.is_file() else None
    if not isinstance(data, dict):
        return RunData(folder, evidence, None)
    return RunData(folder, evidence, verdict_from_json(data), saved_facts(data))


def recorded_folders(db: Path | None = None, limit: int = 1000) -> list[Path]:
    """The run folders the history database names (newest first); none when there is no database yet or it
    cannot be read (the window still lists the runs directory then)."""
    path = db or default_db_path()
    if not path.is_file():
        return []
    try:
        with RunStore(path) as store:
            return [Path(r.run_dir) for r in store.list_runs(limit) if r.run_dir]
    except (StoreError, OSError):
        return []


def list_runs(root: Path | None = None, db: Path | None = None) -> list[RunData]:
    """Every readable run folder the history names and every one under `root` (default: the runs
    directory), each once, newest first."""
    base = root or paths.runs_dir()
    candidates = [*recorded_folders(db), *(e.parent for e in base.glob("*/evidence.json") if base.is_dir())]
    found, seen = [], set()
    for folder in candidates:
        key = folder.resolve()
        if key in seen or not (folder / "evidence.json").is_file():
            continue  # a folder moved or deleted since: the database row alone has nothing to show
        seen.add(key)
        try:
            found.append(load_run(folder))
        except RunFolderError:
            continue  # a half-written or foreign folder must not hide the others
    return sorted(found, key=lambda r: r.evidence.created_utc, reverse=True)


def summary(run: RunData) -> RunSummary:
    """A history row for a run folder (same shape as the database's)."""
    engine, model, gpu = environment_columns(encode(run.evidence.environment))
    return RunSummary(run_id=run.evidence.run_id or run.run_dir.name, created_utc=run.evidence.created_utc,
                      finished_utc=None, status=run.evidence.status, app_version=run.evidence.app_version,
                      verdict=run.verdict.verdict if run.verdict else None, engine=engine, model=model, gpu=gpu,
                      run_dir=str(run.run_dir))


def to_record(run: RunData) -> RunRecord:
    """The run as a `RunRecord`, so `advisor.history.compare.compare_runs` can compare two folders."""
    records = tuple(StepRecord(step=k, status=v.status, evidence=encode(v.evidence) if v.evidence else {},
                               finished_utc="", units=0) for k, v in run.evidence.steps.items())
    return RunRecord(summary=summary(run), config=encode(run.evidence.config),
                     environment=encode(run.evidence.environment), verdict=run.verdict,
                     facts=run.facts if run.verdict is not None else None, steps=records)
