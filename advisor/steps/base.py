"""What every step receives and how it reports: a generator of events ending with `StepDone`."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from advisor.config import CheckConfig
from advisor.decide.policy import Policy
from advisor.events import Event, QualityWarning, StepDone
from advisor.evidence.codec import EvidenceError, decode
from advisor.evidence.schema import Environment
from advisor.evidence.steps import StepEvidence
from advisor.evidence.warnings import WarningCode
from advisor.run.arms import Arms
from advisor.run.plan import WorkloadPlan
from probes.gpu.sampler import GpuSampler

U = TypeVar("U")


@dataclass
class StepContext:
    """Shared inputs of the steps. `prior` holds the evidence of steps that already finished."""

    config: CheckConfig
    arms: Arms
    environment: Environment
    workload: WorkloadPlan
    policy: Policy
    cancel: threading.Event = field(default_factory=threading.Event)
    prior: dict[str, StepEvidence] = field(default_factory=dict)
    resume_units: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    sampler: GpuSampler | None = None   # ~10 Hz GPU telemetry during the run (no-op without a GPU)

    def resumed(self, key: str, cls: type[U]) -> U | None:
        """The unit `key` measured before a restart, as `cls`; None when there is none (or it is unreadable,
        e.g. written by an older release: then it is measured again rather than guessed)."""
        raw = self.resume_units.get(key)
        if raw is None:
            return None
        try:
            return decode(cls, raw, f"resumed unit {key}")
        except EvidenceError:
            return None

    def throttled_since(self, t_monotonic_s: float) -> bool:
        """True when any GPU sample since `t_monotonic_s` shows power/thermal clock limits."""
        if self.sampler is None:
            return False
        return any(s.throttled for s in self.sampler.samples() if s.t_s >= t_monotonic_s)

    @property
    def cancelled(self) -> bool:
        """True once the user asked to stop."""
        return self.cancel.is_set()


class Step(Protocol):
    """A measurement step (one file each under advisor/steps/)."""

    id: str
    title: str

    def run(self, ctx: StepContext) -> Iterator[Event]:
        """Yield samples/progress/warnings and end with exactly one `StepDone`."""
        ...


def skipped(step: str, reason: str) -> StepDone:
    """The `StepDone` of a step that could not run, with the reason the user will read."""
    return StepDone(step=step, status="skipped", reason=reason)


def missing_arm(step: str, what: str) -> StepDone:
    """The skip event of a step whose arm is absent (attach mode with one server)."""
    return skipped(step, f"needs {what}; in attach mode pass both --engine-url and --engine-url-b")


def warn(step: str, code: WarningCode, message: str) -> QualityWarning:
    """Shorthand for a quality warning."""
    return QualityWarning(step=step, code=code, message=message)
