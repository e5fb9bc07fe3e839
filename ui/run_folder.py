"""Read saved run folders (evidence.json + verdict.json) for the verdict and history views.

Sessions write run folders; the SQLite history is filled only by the recorder, so the window lists
folders under the runs directory and turns them into `RunRecord`s when two must be compared.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from advisor import paths
from advisor.history.store import RunRecord, RunSummary, StepRecord


class RunFolderError(Exception):
    """A run folder that cannot be shown; the message is for the user."""


@dataclass(frozen=True, slots=True)
class RunData:
    """One run as saved on disk."""

    run_dir: Path
    evidence: Mapping[str, Any]
    verdict: Mapping[str, Any] | None

    @property
    def is_demo(self) -> bool:
        """Managed demo engine with the bundled model: numbers that say nothing about the user's GPU."""
        config = self.evidence.get("config") or {}
        return (isinstance(config, Mapping) and config.get("mode", "managed") == "managed"
                and not config.get("model") and not config.get("llama_server"))


def _read(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise RunFolderError(f"cannot read {path}: {exc.strerror or exc}") from exc
    except json.JSONDecodeError as exc:
        raise RunFolderError(f"{path} is not valid JSON ({exc.msg}, line {exc.lineno})") from exc


def load_run(run_dir: str | Path) -> RunData:
    """Load a run folder; a missing verdict.json means the run was never decided (None)."""
    folder = Path(run_dir).expanduser()
    if folder.is_file():
        folder = folder.parent
    evidence = _read(folder / "evidence.json")
    if not isinstance(evidence, dict) or "schema_version" not in evidence:
        raise RunFolderError(f"{folder / 'evidence.json'} is not a spec-advisor evidence file")
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
    return sorted(found, key=lambda r: str(r.evidence.get("created_utc") or ""), reverse=True)


def summary(run: RunData) -> RunSummary:
    """A history row for a run folder (same shape as the database's)."""
    env = run.evidence.get("environment") or {}
    engine = env.get("engine") or {} if isinstance(env, Mapping) else {}
    model = env.get("model") or {} if isinstance(env, Mapping) else {}
    gpu = env.get("gpu") or {} if isinstance(env, Mapping) else {}
    engine_text = " ".join(str(v) for v in (engine.get("kind"), engine.get("version")) if v) or None
    model_name = model.get("name") or (Path(str(model.get("path"))).name if model.get("path") else None)
    gpus = gpu.get("gpus") if isinstance(gpu, Mapping) else None
    gpu_name = gpus[0].get("name") if isinstance(gpus, list) and gpus and isinstance(gpus[0], Mapping) else None
    return RunSummary(run_id=run.run_dir.name, created_utc=str(run.evidence.get("created_utc") or ""),
                      finished_utc=None, status=str(run.evidence.get("status") or "?"),
                      app_version=str(run.evidence.get("app_version") or ""),
                      verdict=(run.verdict or {}).get("verdict"), engine=engine_text,
                      model=str(model_name) if model_name else None,
                      gpu=gpu_name if isinstance(gpu_name, str) else None)


def to_record(run: RunData) -> RunRecord:
    """The run as a `RunRecord`, so `advisor.history.compare.compare_runs` can compare two folders."""
    steps = run.evidence.get("steps") or {}
    records = tuple(StepRecord(step=str(k), status=str(v.get("status")), evidence=v.get("evidence") or {},
                               finished_utc="", units=0) for k, v in steps.items() if isinstance(v, Mapping))
    verdict = run.verdict or None
    facts = verdict.get("facts") if verdict else None
    return RunRecord(summary=summary(run), config=run.evidence.get("config") or {},
                     environment=run.evidence.get("environment") or {}, verdict=verdict,
                     facts=facts if isinstance(facts, Mapping) else None, steps=records)
