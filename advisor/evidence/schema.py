"""The evidence of one check: environment, configuration, workload, one record per step, telemetry.

`evidence.json` is this dataclass encoded by `advisor.evidence.codec`; `advisor.evidence.io` loads and saves
it (and upgrades schema-1 files written by the first release). Readers use attributes, e.g.
`evidence.baseline.decode_tok_s`, and get None for a step that did not finish.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from advisor.config import Budget, CheckConfig
from advisor.evidence.arms import ArmsPlan, ServerRestart, ServerSpan
from advisor.evidence.cluster import ClusterRecord
from advisor.evidence.draft import DraftSetup
from advisor.evidence.kinds import StepEvidence
from advisor.evidence.placement import Placement
from advisor.evidence.status import SessionStatus, StepStatus
from advisor.evidence.steps import (
    ABEvidence,
    AcceptanceEvidence,
    BaselineEvidence,
    BatchEvidence,
    PreflightEvidence,
    VerifyEvidence,
)
from advisor.evidence.time_plan import TimePlan
from advisor.evidence.tuner import TuneEvidence, TunerSummary
from advisor.evidence.warnings import StepWarning
from advisor.text.message import Message
from probes.engines.base import EngineInfo
from probes.engines.llamacpp.binary import LlamaServerBinary
from probes.gpu.probe import GpuReport
from probes.gpu.sampler import SamplerSummary
from probes.host import HostReport
from probes.model.info import ModelInfo

# 2: typed evidence (this module). 1: the first release's dicts, still loaded (advisor/evidence/io.py).
SCHEMA_VERSION = 2
E = TypeVar("E")
RunStatus = SessionStatus | Literal["running"]


@dataclass(frozen=True, slots=True)
class ModelFile:
    """Which model file a run measured, enough to tell two files apart without reading gigabytes: a resumed
    run must go on with the same model, or its units would mix with another's (advisor/run/model_identity.py)."""

    path: str
    size_bytes: int | None = None    # None: an attached server's model, known only by the name it reports
    head_sha256: str | None = None   # SHA-256 of the file's first MiB


@dataclass(frozen=True, slots=True)
class Environment:
    """What the run was measured on, as the probes reported it (None: not probed, e.g. no engine started)."""

    gpu: GpuReport | None = None
    host: HostReport | None = None
    model: ModelInfo | None = None
    binary: LlamaServerBinary | None = None
    engine: EngineInfo | None = None
    packages: Mapping[str, str | None] = field(default_factory=dict)
    command_lines: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    spec_args: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # per managed arm: its spec flags
    # the managed ON arm's drafter knobs as it ran them: flag → value, set by us or the engine's stated default
    spec_params: Mapping[str, str] = field(default_factory=dict)
    draft: DraftSetup | None = None  # a managed run's draft model: tokenizer pairing, VRAM budget, placement
    placement: Mapping[str, Placement] = field(default_factory=dict)  # per managed arm: its server's load log
    model_file: ModelFile | None = None  # the target as measured (its size and first MiB), checked on --resume
    draft_file: ModelFile | None = None  # the draft model the same way

    @property
    def probed(self) -> bool:
        """True once the environment was gathered (an engine was reached)."""
        return self.gpu is not None or self.host is not None or self.engine is not None


@dataclass(frozen=True, slots=True)
class ConfigRecord:
    """The configuration as recorded: what the user chose plus what it implied (mode, effective budget).

    Every field is optional: a check always writes them all, but an evidence file made by hand may say less,
    and what it does not say stays unknown (no fact) rather than taking a default the run never had.
    """

    quick: bool | None = None
    steps: tuple[str, ...] = ()
    mode: Literal["managed", "attach"] | None = None
    budget: Budget | None = None
    spec_type: str | None = None
    draft_model: str | None = None
    draft_max: int | None = None
    draft_gpu_layers: str | None = None
    draft_kv_type: str | None = None
    draft_ctx: int | None = None
    model: str | None = None
    engine_url: str | None = None
    engine_url_b: str | None = None
    allow_remote: bool = False
    llama_server: str | None = None
    prompts_file: str | None = None
    concurrency_expected: int | None = None
    mix: tuple[tuple[str, float], ...] | None = None
    temperature: float | None = None
    seed: int | None = None
    threads: int | None = None
    arms: str | None = None                  # auto, single or dual as asked (what ran: Evidence.arms)
    server_args: tuple[str, ...] = ()     # the user's own llama-server options, on both managed arms
    out_dir: str | None = None
    repeated_prompts: bool | None = None
    until_decided: bool | None = None     # an undecided A/B could go on to the full check's pairs
    extra: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, config: CheckConfig) -> ConfigRecord:
        """The record of `config` (paths as text, the budget it resolves to)."""
        def text(value: object) -> str | None:
            return str(value) if value is not None else None

        return cls(
            quick=config.quick, steps=tuple(config.steps), mode=config.mode, budget=config.budget,
            spec_type=config.spec_type, draft_model=text(config.draft_model), draft_max=config.draft_max,
            draft_gpu_layers=config.draft_gpu_layers, draft_kv_type=config.draft_kv_type, draft_ctx=config.draft_ctx,
            model=text(config.model), engine_url=config.engine_url, engine_url_b=config.engine_url_b,
            allow_remote=config.allow_remote, llama_server=config.llama_server,
            prompts_file=text(config.prompts_file), concurrency_expected=config.concurrency_expected, mix=config.mix,
            temperature=config.temperature, seed=config.seed, threads=config.threads, arms=config.arms,
            server_args=tuple(config.server_args), out_dir=text(config.out_dir), repeated_prompts=False,
            until_decided=config.until_decided,
            extra=dict(config.extra),
        )


@dataclass(frozen=True, slots=True)
class WorkloadSummary:
    """Prompt ids per use (no texts: prompts stay out of evidence unless the user opts in)."""

    source: str
    baseline: tuple[str, ...] = ()
    acceptance: tuple[str, ...] = ()
    ab: tuple[str, ...] = ()
    canary: str | None = None
    categories: tuple[str, ...] = ()
    mix_requested: Mapping[str, float] = field(default_factory=dict)  # category → weight (sums to 1)
    mix_realised: Mapping[str, float] = field(default_factory=dict)   # the A/B prompts' category shares
    mix_short: tuple[str, ...] = ()   # categories with too few held-out prompts for their weight


@dataclass(frozen=True, slots=True)
class StepRecord:
    """How one step ended, its warnings, and its evidence (None when it was skipped or failed early)."""

    status: StepStatus
    reason: Message | None = None  # why it failed or was skipped (an older file's sentence: plain text)
    elapsed_s: float = 0.0
    warnings: tuple[StepWarning, ...] = ()
    evidence: StepEvidence | None = None


@dataclass(frozen=True, slots=True)
class Reconciliation:
    """The perf model's speedup for the measured setup beside the A/B (design.md §4); a gap is a finding."""

    predicted_speedup: float
    priors: tuple[Message, ...] = ()  # what the model assumed for facts not given (an older file: plain text)
    gamma: int | None = None
    alpha: float | None = None
    tokens_per_step: float | None = None     # expected tokens a verify step yields
    verify_ratio: float | None = None        # T(k+1)/T(1)
    draft_cost_ratio: float | None = None    # the draft's own time per step ÷ one plain step
    overhead_ratio: float | None = None      # fixed per-step overhead ÷ one plain step
    plain_step_ms: float | None = None       # one plain decode step, ms
    measured_speedup: float | None = None
    relative_error: float | None = None


@dataclass(frozen=True, slots=True)
class Evidence:
    """Everything one check measured, in the order the data flowed."""

    config: ConfigRecord = field(default_factory=ConfigRecord)
    app_version: str = ""
    created_utc: str = ""
    status: RunStatus = "running"
    message: str = ""
    run_id: str | None = None
    environment: Environment = field(default_factory=Environment)
    workload: WorkloadSummary | None = None
    steps: Mapping[str, StepRecord] = field(default_factory=dict)
    restarts: tuple[ServerRestart, ...] = ()
    # managed runs: side by side or single-resident, and the memory budget behind it (None: attached)
    arms: ArmsPlan | None = None
    servers: tuple[ServerSpan, ...] = ()   # every managed target server's start, load and stop
    telemetry: SamplerSummary | None = None
    reconciliation: Reconciliation | None = None
    tuner: TunerSummary | None = None    # the tuner's choice beside the A/B that measured it
    time_plan: TimePlan | None = None  # each step's seconds at the baseline's pace; a full check sized to its budget
    cluster: ClusterRecord | None = None  # `check --llmkube`: the InferenceServices measured and every rollout
    # Prompt texts by id, only when the user asked to keep them (`check --keep-prompts`): they may be private.
    prompts: Mapping[str, str] = field(default_factory=dict)
    schema_version: int = SCHEMA_VERSION

    def record(self, step: str) -> StepRecord | None:
        """The record of `step`, whatever its status."""
        return self.steps.get(step)

    def done(self, step: str, cls: type[E]) -> E | None:
        """The evidence of `step` when it finished (`done`) with evidence of type `cls`; else None."""
        rec = self.steps.get(step)
        if rec is None or rec.status != "done" or not isinstance(rec.evidence, cls):
            return None
        return rec.evidence

    @property
    def preflight(self) -> PreflightEvidence | None:
        """Preflight guards, when preflight finished."""
        return self.done("preflight", PreflightEvidence)

    @property
    def baseline(self) -> BaselineEvidence | None:
        """Baseline evidence, when the step finished."""
        return self.done("baseline", BaselineEvidence)

    @property
    def acceptance(self) -> AcceptanceEvidence | None:
        """Acceptance evidence, when the step finished."""
        return self.done("acceptance", AcceptanceEvidence)

    @property
    def verify(self) -> VerifyEvidence | None:
        """Verify-curve evidence, when the step finished."""
        return self.done("verify", VerifyEvidence)

    @property
    def tune(self) -> TuneEvidence | None:
        """The tuner's probes, predictions and choice, when the step finished."""
        return self.done("tune", TuneEvidence)

    @property
    def batch(self) -> BatchEvidence | None:
        """Concurrency-sweep evidence, when the step finished."""
        return self.done("batch", BatchEvidence)

    @property
    def ab(self) -> ABEvidence | None:
        """A/B evidence, when the step finished."""
        return self.done("ab", ABEvidence)

    def warnings(self, *, finished_only: bool = True) -> list[StepWarning]:
        """Every step's warnings in step order (by default only of steps that finished)."""
        return [w for rec in self.steps.values() if rec.status == "done" or not finished_only
                for w in rec.warnings]
