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
    overhead: float | None = None                # per drafting step, as the model used it (plain steps)
    overhead_fitted: float | None = None         # the fit from this run (None: the run could not tell it)
    overhead_se: float | None = None             # its standard error (plain steps)
    speed_factor: float | None = None            # this run's plain steps ÷ the baseline's t1 at the same depth
    draft_cost_ratio: float | None = None        # draft model ms per drafted token ÷ t1 (0 for n-gram)
    curve: tuple[KSpeedup, ...] = ()
    best_k: int | None = None
    best_speedup: float | None = None
    skipped: str = ""                            # why this method could not be probed
    # A variant of the method's own knobs, set on the probe's server (None: the engine's default)
    n_match: int | None = None                   # ngram-mod: --spec-ngram-mod-n-match, tokens
    p_min: float | None = None                   # draft model: --spec-draft-p-min, probability 0–1

    @property
    def label(self) -> str:
        """The method with the knobs this probe set, e.g. "ngram-mod n-match=12"."""
        return settings_label(self.method, self.n_match, self.p_min)


@dataclass(frozen=True, slots=True)
class SurfacePoint:
    """Decoding with the engine's synthetic acceptance at (k, τ target): what it measured, what the cost
    model says. Independent of any drafter: the engine accepts drafted tokens at the rates it is told."""

    k: int
    tau_target: float
    tau_measured: float | None = None            # tokens per drafting step the engine realised
    coverage: float | None = None                # drafting steps ÷ all steps
    tok_s: float | None = None
    speedup: float | None = None                 # measured, against t1 at the points' depth and the run's speed
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
    n_match: int | None = None                   # ngram-mod lookup length set (None: the engine's default)
    p_min: float | None = None                   # draft-model p-min set (None: the engine's default)

    @property
    def label(self) -> str:
        """The method with the knobs the choice set."""
        return settings_label(self.method, self.n_match, self.p_min)


@dataclass(frozen=True, slots=True)
class TuneEvidence:
    """Step "tune": every method's probe and curve, the synthetic surface, the choice."""

    ks: tuple[int, ...] = ()
    t1_ms: float | None = None
    t1_slope_ms_per_token: float | None = None   # how t1 grows per token of context (from the baseline)
    methods: tuple[MethodProbe, ...] = ()
    surface: tuple[SurfacePoint, ...] = ()
    surface_model_rel_err_median: float | None = None
    breakeven_tau: Mapping[int, float] = field(default_factory=dict)   # k → τ needed for 1.00× at full coverage
    choice: TunerChoice | None = None
    verify_ratio_at_choice: float | None = None                        # T(k* + 1) ÷ T(1), interpolated
    weights: Mapping[str, float] = field(default_factory=dict)         # token shares the mix speedup uses
    # The engine's own values of the knobs the tuner varies, as its --help states them (None: not stated)
    default_n_match: int | None = None
    default_p_min: float | None = None

    def chosen_probe(self) -> MethodProbe | None:
        """The probe whose settings the choice took (method and knobs alike)."""
        c = self.choice
        if c is None:
            return None
        return next((m for m in self.methods
                     if (m.method, m.n_match, m.p_min) == (c.method, c.n_match, c.p_min)), None)


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
    methods: Mapping[str, float] = field(default_factory=dict)        # probe label → its best predicted speedup
    n_match: int | None = None                    # the choice's ngram-mod lookup length (None: engine default)
    p_min: float | None = None                    # the choice's draft-model p-min (None: engine default)


def settings_label(method: str, n_match: int | None, p_min: float | None) -> str:
    """A method and the knobs set beside it: "ngram-mod", "ngram-mod n-match=12", "draft-simple p-min=0.75"."""
    parts = [method]
    if n_match is not None:
        parts.append(f"n-match={n_match}")
    if p_min is not None:
        parts.append(f"p-min={p_min:g}")
    return " ".join(parts)
