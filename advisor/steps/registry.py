"""The protocol: preflight always, then the chosen steps in their fixed order."""

from __future__ import annotations

from collections.abc import Sequence

from advisor.config import StepId
from advisor.steps.ab import ABStep
from advisor.steps.acceptance import AcceptanceStep
from advisor.steps.base import Step
from advisor.steps.baseline import BaselineStep
from advisor.steps.batch import BatchStep
from advisor.steps.preflight import PreflightStep
from advisor.steps.tune import TuneStep
from advisor.steps.verify import VerifyStep

PROTOCOL: dict[str, type] = {
    "baseline": BaselineStep, "acceptance": AcceptanceStep, "verify": VerifyStep, "tune": TuneStep,
    "batch": BatchStep, "ab": ABStep,
}


def steps_for(chosen: Sequence[StepId]) -> list[Step]:
    """Preflight plus the chosen steps, in protocol order (the order evidence builds on)."""
    steps: list[Step] = [PreflightStep()]
    steps.extend(PROTOCOL[sid]() for sid in PROTOCOL if sid in chosen)
    return steps
