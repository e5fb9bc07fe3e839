"""Read saved run folders (evidence.json + verdict.json) for the verdict and history views.

Sessions write run folders; the SQLite history is filled only by the recorder, so the window lists
folders under the runs directory and turns them into `RunRecord`s when two must be compared.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from advisor import paths
from advisor.errors import UserError
from advisor.evidence.codec import encode
from advisor.evidence.io import load_evidence, read_json_file
from advisor.evidence.schema import Evidence
from advisor.history.records import RunRecord, RunSummary, StepRecord


class RunFolderError(Exception):
    """A run folder that cannot be shown; the message is for the user."""


@dataclass(frozen=True, slots=True)
class RunData:
    """One run as saved on disk."""

    run_dir: Path
    evidence: Evidence
    verdict: Mapping[str, Any] | None

    @property
    def is_demo(self) -> bool:
        """Managed demo engine with the bundled model: numbers that say nothing about the user's GPU."""
        config = self.evidence.config
        return config.mode == "managed" and not config.model and not config.llama_server


def _read(path: Path) -> Any:
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
    verdict = _read(verdict_path) if verdict_path.is_file() else None
    return RunData(folder, evidence, verdict if isinstance(verdict, dict) else None)


def list_runs(root: Path | None = None) -> list[RunData]:
    """Every readable run folder under `root` (default: the runs directory), newest first."""
    base = root or paths.runs_dir()
    found = []
    for evidence in base.glob("*/evidence.json") if base.is_dir() else []:
        try:
            found.append(load_run(evidence.parent))
        except RunFolderError:
            continue  # a half-written or foreign folder must not hide the others
    return sorted(found, key=lambda r: r.evidence.created_utc, reverse=True)


def summary(run: RunData) -> RunSummary:
    """A history row for a run folder (same shape as the database's)."""
    env = run.evidence.environment
    engine_text = " ".join(str(v) for v in (env.engine.kind, env.engine.version) if isinstance(v, str)) \
        if env.engine is not None else None
    model_name = (env.model.name or Path(env.model.path).name) if env.model is not None else None
    gpu_name = env.gpu.gpus[0].name if env.gpu is not None and env.gpu.gpus else None
    return RunSummary(run_id=run.run_dir.name, created_utc=run.evidence.created_utc,
                      finished_utc=None, status=run.evidence.status, app_version=run.evidence.app_version,
                      verdict=(run.verdict or {}).get("verdict"), engine=engine_text or None,
                      model=model_name or None, gpu=gpu_name if isinstance(gpu_name, str) else None)


def to_record(run: RunData) -> RunRecord:
    """The run as a `RunRecord`, so `advisor.history.compare.compare_runs` can compare two folders."""
    records = tuple(StepRecord(step=k, status=v.status, evidence=encode(v.evidence) if v.evidence else {},
                               finished_utc="", units=0) for k, v in run.evidence.steps.items())
    verdict = run.verdict or None
    facts = verdict.get("facts") if verdict else None
    return RunRecord(summary=summary(run), config=encode(run.evidence.config),
                     environment=encode(run.evidence.environment), verdict=verdict,
                     facts=facts if isinstance(facts, Mapping) else None, steps=records)
