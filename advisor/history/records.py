"""What the history database holds per run, as read back: summaries, steps and whole records."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from advisor.decide.verdict import Verdict

NO_GPU = ""  # the GPU column of a run whose probe found no GPU (shown as "none"), beside None: not probed


@dataclass(frozen=True, slots=True)
class RunSummary:
    """One line of `spec-advisor history`."""

    run_id: str
    created_utc: str
    finished_utc: str | None
    status: str
    app_version: str
    verdict: str | None
    engine: str | None
    model: str | None
    gpu: str | None
    run_dir: str | None = None  # the run folder the check wrote (wherever `--out` put it), None if none


@dataclass(frozen=True, slots=True)
class StepRecord:
    """A finished step and how many units it committed."""

    step: str
    status: str
    evidence: Mapping[str, object]
    finished_utc: str
    units: int


@dataclass(frozen=True, slots=True)
class RunRecord:
    """Everything stored about one run."""

    summary: RunSummary
    config: Mapping[str, object]
    environment: Mapping[str, object]
    verdict: Verdict | None           # None: the run was not decided
    facts: Mapping[str, object] | None
    steps: tuple[StepRecord, ...]


def _text(value: object) -> str | None:
    """A probe's value when it was read (an unavailable field is a {"unavailable": …} mapping)."""
    return value if isinstance(value, str) and value else None


def _get(obj: object, *keys: str) -> object:
    for key in keys:
        if not isinstance(obj, Mapping):
            return None
        obj = obj.get(key)
    return obj


def environment_columns(env: Mapping[str, object]) -> tuple[str | None, str | None, str | None]:
    """(engine, model, GPU) of a run's environment as the evidence encodes it, for the history's columns:
    "llama.cpp 0.6.0", the model file's or the engine's model name, the first GPU's name (None: not read;
    NO_GPU: the GPU probe ran and found none)."""
    engine = " ".join(p for p in (_text(_get(env, "engine", "kind")), _text(_get(env, "engine", "version"))) if p)
    path = _text(_get(env, "model", "path")) or _text(_get(env, "engine", "model_path")) \
        or _text(_get(env, "engine", "model"))  # an attached engine names its model, often by its file
    model = _text(_get(env, "model", "name")) or (path.replace("\\", "/").rsplit("/", 1)[-1] if path else None)
    gpus = _get(env, "gpu", "gpus")
    gpu = _text(_get(gpus[0], "name")) if isinstance(gpus, list | tuple) and gpus else _text(_get(env, "gpu", "name"))
    if gpu is None and isinstance(gpus, list | tuple) and not gpus:
        gpu = NO_GPU
    return engine or None, model, gpu
