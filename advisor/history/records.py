"""What the history database holds per run, as read back: summaries, steps and whole records."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


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


@dataclass(frozen=True, slots=True)
class StepRecord:
    """A finished step and how many units it committed."""

    step: str
    status: str
    evidence: Mapping[str, Any]
    finished_utc: str
    units: int


@dataclass(frozen=True, slots=True)
class RunRecord:
    """Everything stored about one run."""

    summary: RunSummary
    config: Mapping[str, Any]
    environment: Mapping[str, Any]
    verdict: Mapping[str, Any] | None
    facts: Mapping[str, Any] | None
    steps: tuple[StepRecord, ...]
