"""What every step receives and how it reports: a generator of events ending with `StepDone`."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from advisor.arms.arms import Arm, ArmName, Arms
from advisor.arms.server import ServerConfig
from advisor.config import CheckConfig
from advisor.core.policy import Policy
from advisor.events import Event, QualityWarning, StepDone
from advisor.evidence.arms import ServerRestart
from advisor.evidence.codec import EvidenceError, decode
from advisor.evidence.kinds import StepEvidence
from advisor.evidence.schema import Environment
from advisor.evidence.steps import AcceptanceEvidence, PoolState
from advisor.evidence.warnings import WarningCode
from advisor.steps.plan import WorkloadPlan
from advisor.text.message import Message
from probes.engines.base import EngineAdapter
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
    # the ON server's generation that a phase restarted and warmed for the next one (the tuner's choice) and
    # that nothing has measured since: the next phase that asks for a fresh server takes it as it is
    handed_over_on: int | None = None
    # the ON server's generation as the session started it, while only zero-token probes (its settings) have
    # reached it: the first phase that asks for a fresh server warms it instead of restarting it (a restart
    # reloads the model: under a second for the demo model, up to a minute for a large one)
    unmeasured_on: int | None = None
    # set by a step whose finding makes the later steps pointless (the sanity gate): the session stops there
    halt: str = ""

    @property
    def restarts(self) -> list[ServerRestart]:
        """Every managed restart and swap so far (the arms layer records them)."""
        return self.arms.restarts

    def use(self, name: ArmName, phase: str, *, warm: bool = True) -> Arm | None:
        """The arm `name` ready to measure `phase`: in single-resident mode its server is swapped in (the other
        arm's stopped) and warmed with out-of-set prompts unless the caller warms it; side by side or attached
        it is used as it is."""
        before = len(self.arms.restarts)
        arm = self.arms.use(name, phase)
        if warm and arm is not None and len(self.arms.restarts) > before:
            self.warm(arm.adapter)
        return arm

    def fresh_on(self, phase: str, config: ServerConfig | None = None, hand_over: bool = False) -> PoolState:
        """Start `phase` on a clean ON server: restart it, then warm it with out-of-set prompts only.

        N-gram drafters keep one table for the whole server (llama.cpp ngram-mod), so whatever earlier phases
        showed it would otherwise make this phase's drafts look better than new text allows. An attached
        server cannot be restarted: its pool state is unknown. Skipped when the user turned fresh pools off
        (a benchmark measuring exactly that effect). With `config` (the tuner's probes and its choice) the
        managed server always restarts, with that configuration. `hand_over`: `phase` only prepares the
        server for the next phase and measures nothing on it, so that phase takes it without a second
        restart (the tuner's choice, then the A/B: ~2 s of restart and warm-up saved). The server the session
        started is fresh as it is until the first phase takes it: that phase only warms it. Single-resident,
        an ON server swapped in is a new process, so it is fresh by construction."""
        arm = self.arms.on
        if arm is None:
            return PoolState(fresh=None)
        fresh: bool | None = None
        handed_over, self.handed_over_on = self.handed_over_on, None
        unmeasured, self.unmeasured_on = self.unmeasured_on, None
        if arm.managed:
            fresh = self.config.fresh_pool or config is not None
            if not arm.resident:
                self.arms.restart("on", phase, config, reason="config" if config is not None else "swap")
                fresh = True
            elif fresh and config is None and handed_over == arm.generation:
                return PoolState(fresh=True, generation=arm.generation)  # restarted and warmed, nothing measured
            elif config is not None:
                self.arms.restart("on", phase, config, reason="config")
            elif fresh and unmeasured != arm.generation:
                self.arms.restart("on", phase, reason="fresh")
        elif arm.remote is not None:  # a cluster's pod: a new pod is a clean pool (advisor/arms/remote.py)
            fresh = self.config.fresh_pool
            if not arm.resident:
                self.arms.restart("on", phase, reason="swap")
                fresh = True
            elif fresh and unmeasured != arm.generation:
                self.arms.restart("on", phase, reason="fresh")
        self.warm(arm.adapter)
        if hand_over and fresh:
            self.handed_over_on = arm.generation
        return PoolState(fresh=fresh, generation=arm.generation)

    def warm(self, adapter: EngineAdapter) -> None:
        """Warm a server with out-of-set prompts only (nothing a measured phase will send)."""
        budget, cfg = self.config.budget, self.config
        for warm in self.workload.warmup[: budget.warmup_requests]:
            adapter.complete(warm.text, max_tokens=min(budget.warmup_tokens, budget.max_tokens), seed=cfg.seed,
                             temperature=cfg.temperature)

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

    @property
    def draft_cap(self) -> int | None:
        """γ, the longest draft of the ON arm: the user's --draft-max, else the managed arm's effective value
        (its flags or the engine's stated default), else — attached engines do not say — the number of
        per-position acceptance counters the engine reported in the acceptance step."""
        if self.config.draft_max is not None:
            return self.config.draft_max
        if (cap := self.arms.draft_cap()) is not None:
            return cap
        acceptance = self.prior.get("acceptance")
        width = len(acceptance.per_position) if isinstance(acceptance, AcceptanceEvidence) else 0
        return width or None

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


def warn(step: str, code: WarningCode, message: Message) -> QualityWarning:
    """Shorthand for a quality warning."""
    return QualityWarning(step=step, code=code, message=message)
