"""Value types of the paired A/B: one measured pair in, one verdict out (design.md §4 step 5)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from advisor.text.message import Message


class Decision(StrEnum):
    """The A/B verdict. CONTINUE only between planned looks, while more pairs are planned."""

    ENABLE = "ENABLE"
    SKIP = "SKIP"
    INCONCLUSIVE = "INCONCLUSIVE"
    CONTINUE = "CONTINUE"


@dataclass(frozen=True, slots=True)
class PairResult:
    """One prompt measured under both arms. ms/token is server-reported decode time per output token."""

    prompt_id: str
    off_ms_per_token: float
    on_ms_per_token: float
    on_first: bool  # run order inside the pair (counterbalanced AB/BA, reliability.md §2.6)
    off_error: str | None = None  # a failed request counts against its arm; the pair is dropped
    on_error: str | None = None
    outputs_match: bool | None = None  # greedy equivalence; None when not checked
    off_repetition_loop: bool = False  # degenerate output (reliability.md §4.4 item 6): pair dropped
    on_repetition_loop: bool = False
    throttled: bool = False  # thermal or HW slowdown during the pair (reliability.md §3)
    category: str = ""  # the prompt's kind of task (per-category answers; the verdict pools all pairs)
    # Where the greedy outputs first differ, as a share of the OFF reply (0: at once; None: identical or not
    # compared). Batched verification changes the last bits of the logits, so near-ties can flip late in a
    # reply; a flip in its first part changes the answer itself.
    divergence_at: float | None = None
    # What the OFF arm's own top-2 probabilities say of that divergence (advisor/ab/divergence.py): "numerics"
    # (a near tie rounding flipped), "lossy" (a token the model was sure of changed) or "unknown" (not
    # replayed: the engine gives no probabilities, or the replay could not tell). None: no divergence.
    divergence_kind: str | None = None
    # The shape of the work (issue 24 item 3): the OFF reply's length and the mean context depth over its decode
    # (prompt, cached or not, plus half the reply), tokens; None in files before them or for a failed request.
    output_tokens: int | None = None
    depth_tokens: float | None = None


@dataclass(frozen=True, slots=True)
class ABDecision:
    """The verdict with everything the report shows. Speedups are × (OFF ms/token ÷ ON ms/token)."""

    decision: Decision
    look: int | None  # 1-based index into policy.looks of the look that decided (or the last one run)
    n_pairs: int  # complete pairs in the statistics
    n_attempted: int
    n_failed_off: int
    n_failed_on: int
    speedup: float | None  # geometric mean
    ci_low: float | None  # two-sided t-interval at policy.ci_level
    ci_high: float | None
    bound_low: float | None  # exp(mean ∓ c·se): ENABLE iff bound_low > 1+δ (and guards pass)
    bound_high: float | None  # SKIP iff bound_high < 1+δ
    ratio_of_totals: float | None
    median_speedup: float | None
    t_stat: float | None
    off_p50_ms: float | None
    off_p99_ms: float | None
    on_p50_ms: float | None
    on_p99_ms: float | None
    outputs_match_rate: float | None
    guards: Mapping[str, tuple[bool, Message]]
    reasons: tuple[str, ...]
    # spread the paired interval already carries (OFF ms/token CV across prompts): warned, never withholding
    notes: Mapping[str, tuple[bool, Message]] = field(default_factory=dict)
    # sizes of what could bias the interval, at the look that decided: drift (OFF change over the pairs, 0.1 =
    # 10%), order_effect (ON-second pairs faster by, 0.03 = 3%), arm_outlier_pairs, outlier_free_speedup (×),
    # and cv_off_pct (the spread it carries)
    effects: Mapping[str, float] = field(default_factory=dict)


def is_counted(p: PairResult) -> bool:
    """A complete pair: both arms succeeded and neither output is a repetition loop."""
    return p.off_error is None and p.on_error is None and not (p.off_repetition_loop or p.on_repetition_loop)
