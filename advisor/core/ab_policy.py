"""The A/B policy as a value: the knobs of the decision, free of numpy so loading rules stays cheap."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ABPolicy:
    """Knobs of the paired A/B decision. Their values and sources live in rules/policy.toml [ab]
    (advisor/core/policy.py builds this from it); `margin` is δ = min_speedup − 1."""

    margin: float  # δ: the minimum worthwhile speedup is 1 + δ
    looks: tuple[int, ...]  # planned looks in complete pairs
    boundary: float  # Pocock c; must be re-calibrated if `looks` changes
    ci_level: float  # reported two-sided t-interval
    min_pairs: int  # never decide on fewer
    min_pairs_enable: int  # never ENABLE on fewer
    max_cv_off_pct: float  # OFF-arm ms/token CV across prompts
    min_skewness: float  # skew gate part 1
    slow_ratio: float  # a prompt "much slower" below this (skew gate part 3)
    max_slow_share: float  # at most this share of prompts below `slow_ratio`
    sensitivity_drop: float  # drop the top share of d and re-check the margin
    order_alpha: float  # one-sided Welch, ON-second faster than ON-first
    min_order_share: float  # each run order covers at least this share of pairs
    max_failure_excess: float  # ON failure rate minus OFF's, per attempted pair
    max_failure_rate: float  # either arm failing more often than this: unstable setup
    max_loop_share: float  # pairs dropped for repetition loops
    max_throttled_share: float  # counted pairs that ran during thermal/HW slowdown
    max_consecutive_failures: int  # the A/B step stops when one arm fails this often in a row
    category_family_alpha: float  # per-category CIs are simultaneous at this family-wise level
    early_divergence_share: float  # outputs that first differ before this share of the reply diverged early
    max_drift: float = 0.10  # OFF ms/token may change this much over the A/B before the drift guard can fire
    drift_alpha: float = 0.01  # two-sided level of the drift slope's t-test
    effect_drift_alpha: float = 0.10  # two-sided level of the speedup's own slope, tested when the machine drifted
    bet_alpha: float = 0.05  # level of the betting test that lets a left-skewed sample pass the skew gate
    bet_floor_ratio: float = 0.5  # the betting test admits no prompt slower than this speedup (ON ÷ OFF speed)
    bet_cap: float = 0.9  # share of the largest bet that keeps the capital positive at the floor
    bet_min_sd: float = 0.01  # least per-prompt spread of d (log units) a bet is sized for
    outlier_z: float = 3.5  # modified z-score beyond which one arm's request is an outlier (Iglewicz–Hoaglin)
    near_tie_max_gap: float = 0.5  # nats between OFF's top two at a divergence: at most this is numerics
    output_band_edges: tuple[int, ...] = (256, 1024)  # tokens: the speedup is shown per output-length band
    depth_band_edges: tuple[int, ...] = (1024, 4096)  # tokens: … and per context-depth band

    def __post_init__(self) -> None:
        if not self.looks or any(b <= a for a, b in zip(self.looks, self.looks[1:], strict=False)):
            raise ValueError(f"looks must be strictly increasing, got {self.looks}")
        if self.looks[0] < 3:
            raise ValueError("the first look needs at least 3 pairs (skewness and variance)")
        for name, edges in (("output_band_edges", self.output_band_edges),
                            ("depth_band_edges", self.depth_band_edges)):
            if any(e <= 0 for e in edges) or any(b <= a for a, b in itertools.pairwise(edges)):
                raise ValueError(f"{name} must be positive and strictly increasing, got {edges}")
        if not (self.margin >= 0 and self.boundary > 0 and 0 < self.ci_level < 1):
            raise ValueError("margin ≥ 0, boundary > 0 and 0 < ci_level < 1 are required")

    @property
    def log_margin(self) -> float:
        return math.log1p(self.margin)
