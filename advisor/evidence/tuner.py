"""What the tuner measured, predicted and chose (step "tune"), and the summary under evidence's `tuner` key.

Speedups are plain ratios against speculation off (×); costs are in plain decode steps (t1, the OFF arm's
ms per token); τ is tokens per target step.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from advisor.evidence.steps import CategoryAcceptance


@dataclass(frozen=True, slots=True)
class KSpeedup:
    """The predicted speedup at one draft length: the mix, each category, and τ for the mix."""

    k: int
    speedup: float
    per_category: Mapping[str, float] = field(default_factory=dict)
    tokens_per_step: float | None = None         # over all steps, plain ones included
    acceptance_rate: float | None = None         # accepted ÷ drafted at this k (replayed)
    mean_length: float | None = None             # tokens per drafting step at this k (replayed)


@dataclass(frozen=True, slots=True)
class MethodProbe:
    """One method measured at the longest draft length and its predicted curve."""

    method: str
    k_max: int
    argv: tuple[str, ...] = ()                   # the ON server's speculative flags for the probe
    source: str = "acceptance"                   # "acceptance" (step 2) or "probe" (the tuner's own run)
    per_category: Mapping[str, CategoryAcceptance] = field(default_factory=dict)
    overhead: float | None = None                # per drafting step, fitted from this run
    draft_cost_ratio: float | None = None        # draft model ms per drafted token ÷ t1 (0 for n-gram)
    curve: tuple[KSpeedup, ...] = ()
    best_k: int | None = None
    best_speedup: float | None = None
    skipped: str = ""                            # why this method could not be probed


@dataclass(frozen=True, slots=True)
class SurfacePoint:
    """Decoding with the engine's synthetic acceptance at (k, τ target): what it measured, what the cost
    model says. Independent of any drafter: the engine accepts drafted tokens at the rates it is told."""

    k: int
    tau_target: float
    tau_measured: float | None = None            # tokens per drafting step the engine realised
    coverage: float | None = None                # drafting steps ÷ all steps
    tok_s: float | None = None
    speedup: float | None = None                 # measured, against the OFF arm's t1
    predicted_speedup: float | None = None       # the cost model (verify curve + the K run's overhead)
    step_cost: float | None = None               # measured drafting-step cost, plain steps


@dataclass(frozen=True, slots=True)
class TunerChoice:
    """The chosen settings and why."""

    method: str
    k: int
    argv: tuple[str, ...]                        # what the A/B measures and the recommendation repeats
    predicted_speedup: float
    predicted_per_category: Mapping[str, float] = field(default_factory=dict)
    applied: bool = False                        # the ON server was restarted with these settings
    reason: str = ""


@dataclass(frozen=True, slots=True)
class TuneEvidence:
    """Step "tune": every method's probe and curve, the synthetic surface, the choice."""

    ks: tuple[int, ...] = ()
    t1_ms: float | None = None
    methods: tuple[MethodProbe, ...] = ()
    surface: tuple[SurfacePoint, ...] = ()
    surface_model_rel_err_median: float | None = None
    breakeven_tau: Mapping[int, float] = field(default_factory=dict)   # k → τ needed for 1.00× at full coverage
    choice: TunerChoice | None = None
    verify_ratio_at_choice: float | None = None                        # T(k* + 1) ÷ T(1), interpolated
    weights: Mapping[str, float] = field(default_factory=dict)         # token shares the mix speedup uses


@dataclass(frozen=True, slots=True)
class TunerSummary:
    """The `tuner` key of evidence.json and `check --json`: the curve considered, the choice, and the A/B of
    the choice (measured), side by side."""

    method: str
    k: int
    argv: tuple[str, ...]
    predicted_speedup: float
    curve: tuple[KSpeedup, ...] = ()
    measured_speedup: float | None = None
    measured_ci_low: float | None = None
    measured_ci_high: float | None = None
    prediction_rel_err: float | None = None       # predicted ÷ measured − 1
    # the choice against the engine's own defaults for the method (None: not compared)
    vs_default_speedup: float | None = None
    vs_default_ci_low: float | None = None
    vs_default_ci_high: float | None = None
    default_argv: tuple[str, ...] = ()
    methods: Mapping[str, float] = field(default_factory=dict)        # method → its best predicted speedup
