"""What each measurement step leaves behind: one frozen dataclass per step, units in the field names.

Times are milliseconds (`_ms`), speeds tokens per second (`_tok_s`), speedups plain ratios (×), rates 0..1.
A value the step could not measure is None, never a sentinel number.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from advisor.ab.categories import CategorySpeedup
from advisor.ab.divergence import DivergenceCheck
from advisor.ab.types import PairResult
from advisor.text.message import Message, render

Bottleneck = Literal["memory", "compute", "overhead"]
BandwidthSource = Literal["gpu-nvml", "host-measured"]
AbVerdict = Literal["ENABLE", "SKIP", "INCONCLUSIVE"]


@dataclass(frozen=True, slots=True)
class RequestRecord:
    """One measured request. Times are server-reported (ms) except `ttft_ms`/`total_ms` (client, monotonic)."""

    prompt_id: str
    category: str
    arm: str
    completion_tokens: int
    decode_ms: float | None
    ms_per_token: float | None       # server decode ms per generated token after the first
    tok_s: float | None              # 1000 / ms_per_token
    prompt_tokens: int | None
    cached_tokens: int | None
    prompt_ms: float | None
    ttft_ms: float
    total_ms: float
    draft_tokens: int | None
    draft_accepted: int | None
    stop_reason: str | None
    output_digest: str
    repetition_loop: bool
    server_generation: int | None = None  # which process of its arm answered (a restart starts the next)

    @property
    def decode_depth_tokens(self) -> float:
        """Mean context depth over this request's decode, tokens: its whole prompt (cached or not) and half
        its reply."""
        return (self.prompt_tokens or 0) + (self.cached_tokens or 0) + self.completion_tokens / 2


@dataclass(frozen=True, slots=True)
class PoolState:
    """The ON server's cross-request memory (n-gram tables, caches) when a phase began.

    `fresh` is True when we restarted it and warmed it only with prompts from outside every measured set,
    None when it could not be known (an attached server we cannot restart)."""

    fresh: bool | None
    generation: int | None = None


@dataclass(frozen=True, slots=True)
class Guard:
    """One guard: passed True/False, or None when it could not be checked, with what was seen."""

    passed: bool | None
    detail: Message


@dataclass(frozen=True, slots=True)
class SanityCheck:
    """The sanity gate: two short requests per arm before the long steps, ms per output token each.

    `slowdown` is the smallest ON ÷ OFF ratio over the request pairs (ON slower in every pair by at least that
    much); `tripped` when it reaches the policy's limit, and the check then stops with that finding."""

    off_ms_per_token: tuple[float, ...] = ()
    on_ms_per_token: tuple[float, ...] = ()
    slowdown: float | None = None
    limit: float | None = None
    tripped: bool = False
    likely_causes: tuple[str, ...] = ()   # cause codes for this placement and backend (report: sanity.cause.*)


@dataclass(frozen=True, slots=True)
class PreflightEvidence:
    """Environment and configuration guards, by name (e.g. `gpu0-throttle`, `host-load`, `spec-on`)."""

    guards: Mapping[str, Guard] = field(default_factory=dict)
    sanity: SanityCheck | None = None


# Preflight's guards on whether each arm speculates as claimed, by /slots (advisor/steps/preflight.py).
SPEC_GUARDS = ("spec-off", "spec-on")


def arms_mismatch(guards: Mapping[str, Guard]) -> str:
    """The speculation guards that failed, e.g. 'OFF arm: speculation on (ngram-mod)'; '' when none did."""
    return "; ".join(f"{name.removeprefix('spec-').upper()} arm: {render(g.detail, 'en')}"
                     for name, g in guards.items() if name in SPEC_GUARDS and g.passed is False)


@dataclass(frozen=True, slots=True)
class BaselineEvidence:
    """Spec-off decoding: speed, its spread, and where it sits against the memory roofline."""

    samples: tuple[RequestRecord, ...] = ()
    n_requests: int = 0
    decode_tok_s: float | None = None
    ms_per_token: float | None = None
    cv_pct: float | None = None                   # run to run: repeats of one prompt (None: none repeated)
    between_prompt_cv_pct: float | None = None    # across prompts (mostly their lengths, not noise)
    ttft_ms: float | None = None
    prompt_ms: float | None = None
    bytes_per_token_gb: float | None = None
    peak_bandwidth_gbs: float | None = None
    bandwidth_source: BandwidthSource | None = None
    mbu: float | None = None                      # 0..1
    bottleneck: Bottleneck | None = None
    roofline_tok_s: float | None = None
    context_depth_tokens: float | None = None

    def repeats_by_prompt(self) -> list[list[float]]:
        """Decode speeds (tok/s) of the samples grouped by prompt id, in the order measured."""
        groups: dict[str, list[float]] = {}
        for r in self.samples:
            if r.tok_s:
                groups.setdefault(r.prompt_id, []).append(r.tok_s)
        return list(groups.values())


@dataclass(frozen=True, slots=True)
class CategoryAcceptance:
    """Acceptance of one prompt category, with a 95% CI by resampling prompts."""

    rate: float | None
    ci_low: float | None
    ci_high: float | None
    n_prompts: int
    drafted: int
    accepted: int
    mean_length: float | None = None
    # From `/metrics` deltas (None/empty without them): what the tuner replays at shorter draft lengths.
    drafts: float | None = None                   # drafting steps
    counted_draft_tokens: float | None = None     # drafted tokens as the counters saw them
    accepted_per_position: tuple[float, ...] = ()  # drafts that accepted position 1, 2, …
    generated: int = 0                            # tokens decoded after each request's first
    decode_ms: float | None = None                # server decode time over those tokens
    depth_tokens: float | None = None             # mean context depth over those tokens


@dataclass(frozen=True, slots=True)
class CanaryRepeat:
    """The i-th run of the one repeated prompt."""

    i: int
    tok_s: float | None
    rate: float | None


@dataclass(frozen=True, slots=True)
class CanaryRerun:
    """An already-seen prompt run again, against its first run."""

    prompt_id: str
    first_tok_s: float
    rerun_tok_s: float
    ratio: float


@dataclass(frozen=True, slots=True)
class CanaryEvidence:
    """How much faster the engine answers text it has seen before (repeat tok/s ÷ first-run tok/s)."""

    repeats: tuple[CanaryRepeat, ...] = ()
    reruns: tuple[CanaryRerun, ...] = ()
    repeat_curve_inflation: float | None = None
    seen_rerun_inflation: float | None = None
    repeat_inflation: float | None = None
    threshold: float | None = None
    pool: PoolState | None = None


@dataclass(frozen=True, slots=True)
class AcceptanceEvidence:
    """Spec-on acceptance over the bundled categories (or the user's prompts) and the canary."""

    rate: float | None = None
    rate_ci_low: float | None = None
    rate_ci_high: float | None = None
    mean_length: float | None = None              # τ, tokens per verify step
    mean_length_source: Literal["metrics", "timings-estimate"] | None = None
    draft_coverage: float | None = None           # drafted tokens per generated token
    per_category: Mapping[str, CategoryAcceptance] = field(default_factory=dict)
    per_position: tuple[float, ...] = ()          # acceptance rate at draft position 1, 2, …
    # The same sums for each prompt (keyed by prompt id): the tuner's cost fit takes these rows when there are
    # fewer than three categories (a user's own prompt file is one), else it cannot tell speed from overhead.
    per_prompt: Mapping[str, CategoryAcceptance] = field(default_factory=dict)
    samples: tuple[RequestRecord, ...] = ()
    method: str | None = None
    draft_max: int | None = None
    canary: CanaryEvidence | None = None
    repeat_inflation: float | None = None
    pool: PoolState | None = None
    ci_level: float | None = None                 # level of the rate intervals (policy.acceptance.ci_level)


@dataclass(frozen=True, slots=True)
class VerifyPoint:
    """T(k): one forward over k new tokens on a cached prefix, measured and predicted."""

    k: int
    t_ms: float
    ratio: float                                  # T(k) / T(1)
    predicted_ratio: float | None
    n: int
    samples_ms: tuple[float, ...] = ()


@dataclass(frozen=True, slots=True)
class VerifyCurve:
    """The verify-cost curve measured again at the user's own context depth: attention over a long prefix
    makes every forward dearer, and the k new tokens' share of it differs from the short-prefix curve."""

    depth_tokens: int
    compute_ms_per_token: float
    rejected_samples: int = 0
    points: tuple[VerifyPoint, ...] = ()
    cost_ratio_at_draft_max: float | None = None
    t1_ms: float | None = None


@dataclass(frozen=True, slots=True)
class VerifyEvidence:
    """The verify-cost curve at one context depth, and at the user's depth when their prompts are long."""

    depth_tokens: int
    compute_ms_per_token: float
    rejected_samples: int = 0
    points: tuple[VerifyPoint, ...] = ()
    method: str = "cached-prefix"
    cost_ratio_at_draft_max: float | None = None
    t1_ms: float | None = None
    at_user_depth: VerifyCurve | None = None

    def for_user(self) -> tuple[tuple[VerifyPoint, ...], float | None]:
        """The points and the ratio at γ+1 that describe the user's prompts: the curve at their depth when it
        was measured, else the one at the step's own depth."""
        deep = self.at_user_depth
        if deep is not None and deep.points:
            return deep.points, deep.cost_ratio_at_draft_max
        return self.points, self.cost_ratio_at_draft_max


@dataclass(frozen=True, slots=True)
class BatchRound:
    """One paired round at one concurrency: both arms back to back, in the order `on_first` says."""

    on_first: bool
    off_tok_s: float | None
    on_tok_s: float | None
    speedup: float | None             # on ÷ off aggregate tok/s; None when an arm answered nothing


@dataclass(frozen=True, slots=True)
class BatchLevel:
    """Aggregate output tok/s and per-request ms/token at one concurrency, for both arms.

    Files before paired rounds hold one run per arm (`rounds` empty, no CI)."""

    concurrency: int
    off_tok_s: float | None = None                # mean over the rounds
    off_ms_per_token_p50: float | None = None     # over every request of every round
    off_ms_per_token_p99: float | None = None
    off_failed: int = 0
    on_tok_s: float | None = None
    on_ms_per_token_p50: float | None = None
    on_ms_per_token_p99: float | None = None
    on_failed: int = 0
    speedup: float | None = None                  # geometric mean of the rounds' speedups (×)
    speedup_ci_low: float | None = None           # t-interval on the rounds' log speedups; None below 2 rounds
    speedup_ci_high: float | None = None
    ci_level: float | None = None                 # e.g. 0.95 (policy.batch.ci_level)
    rounds: tuple[BatchRound, ...] = ()


@dataclass(frozen=True, slots=True)
class BatchEvidence:
    """The concurrency sweep and where speculation stopped paying.

    `crossover_concurrency` is the first level whose point speedup fell below break-even; `stops_paying_at`
    the first whose whole paired CI did, and `pays_up_to` the last of the unbroken run of levels from the
    lowest whose whole CI was above it (both None in files before paired rounds)."""

    levels: tuple[BatchLevel, ...] = ()
    crossover_concurrency: int | None = None
    slots: int | None = None
    pool: PoolState | None = None
    stops_paying_at: int | None = None
    pays_up_to: int | None = None
    break_even: float | None = None               # policy.batch.break_even when the sweep ran


@dataclass(frozen=True, slots=True)
class VsDefault:
    """Paired runs of the chosen settings (ON) against the engine's defaults for the method, both on fresh
    servers: whether moving away from the defaults paid. `speedup` is default ms/token ÷ chosen ms/token."""

    default_argv: tuple[str, ...]               # the defaults' speculative flags, as the builder wrote them
    chosen_argv: tuple[str, ...]
    n_pairs: int = 0
    speedup: float | None = None
    ci_low: float | None = None                 # its CI at the A/B's level (policy.ab.ci_level)
    ci_high: float | None = None
    pairs: tuple[PairResult, ...] = ()


@dataclass(frozen=True, slots=True)
class ABEvidence:
    """The paired A/B and its group-sequential decision (speedups are OFF ms/token ÷ ON ms/token)."""

    decision: AbVerdict
    speedup: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    bound_low: float | None = None
    bound_high: float | None = None
    ratio_of_totals: float | None = None
    median_speedup: float | None = None
    n_prompts: int = 0
    n_attempted: int = 0
    n_failed_off: int = 0
    n_failed_on: int = 0
    outputs_match_rate: float | None = None
    off_p50_ms: float | None = None
    off_p99_ms: float | None = None
    on_p50_ms: float | None = None
    on_p99_ms: float | None = None
    guards: Mapping[str, Guard] = field(default_factory=dict)
    reasons: tuple[str, ...] = ()
    look: int | None = None
    margin: float | None = None
    # spread the paired interval already carries (OFF ms/token CV across prompts): a warning, never withholding;
    # files before issue 24 kept it among `guards` as "cv-off", which readers treat the same way
    notes: Mapping[str, Guard] = field(default_factory=dict)
    # sizes of what could bias the interval (advisor/ab/types.py ABDecision.effects): drift, order_effect,
    # arm_outlier_pairs, outlier_free_speedup, cv_off_pct
    effects: Mapping[str, float] = field(default_factory=dict)
    ci_level: float | None = None               # level of ci_low/ci_high (policy.ab.ci_level), e.g. 0.95
    looks: tuple[int, ...] = ()
    pairs: tuple[PairResult, ...] = ()
    pool: PoolState | None = None
    # per kind of task, shown beside the pooled verdict (simultaneous intervals; never what decides)
    per_category: Mapping[str, CategorySpeedup] = field(default_factory=dict)
    # … and per band of the work's shape (advisor/ab/bands.py): OFF reply length, context depth (tokens)
    per_output_band: Mapping[str, CategorySpeedup] = field(default_factory=dict)
    per_depth_band: Mapping[str, CategorySpeedup] = field(default_factory=dict)
    early_divergence_rate: float | None = None  # share of pairs whose replies differ early (a different answer)
    early_divergence_low: float | None = None   # the share they show at least (one-sided, at the A/B's level)
    # the chosen settings against the engine's own defaults, when the tuner moved away from them
    vs_default: VsDefault | None = None
    on_argv: tuple[str, ...] = ()               # the managed ON server's speculative flags during the A/B
    on_params: Mapping[str, str] = field(default_factory=dict)  # its drafter knobs, set or engine defaults
    # every request that answered, both arms (the per-arm results table: tok/s, TTFT, time per token)
    samples: tuple[RequestRecord, ...] = ()
    # divergence by margin: each divergent pair's replay on the OFF arm (top-2 probabilities), and the counts
    # by kind (numerics, lossy, unknown); `probs_available` False when the engine cannot return probabilities
    divergences: tuple[DivergenceCheck, ...] = ()
    divergence_counts: Mapping[str, int] = field(default_factory=dict)
    probs_available: bool | None = None
    probs_note: str = ""

    @property
    def near_tie_share(self) -> float | None:
        """Share of the divergent pairs whose divergence was a near tie (None: none diverged or none classified)."""
        c = self.divergence_counts
        total = sum(c.values())
        return c.get("numerics", 0) / total if total and self.probs_available else None
