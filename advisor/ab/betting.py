"""A distribution-free test of the mean log speedup by betting, vectorised over replications.

The t-statistic overstates a gain when a few prompts are much slower (left skew, reliability.md §2.5), so the
skew gate withholds ENABLE from a left-skewed sample. But a sample's skewness is noisy at 20 pairs: a clear
gain on symmetric or heavy-tailed prompts looks left-skewed by chance often enough (11% and 26% at a quick
check's one ENABLE look, bench/sim_ab.py) to withhold it. A betting test does not assume a shape: it is valid
for any distribution of d bounded below, so a sample whose gain it confirms may pass the skew gate however its
skewness reads (docs/reliability.md §2.5, the skew gate).

The test of H0: E[d] ≤ m (m = log(1 + δ)) bets on each pair in measurement order. The capital after n pairs is

    K_n = Π_i (1 + λ_i (d_i − m)),   0 ≤ λ_i < 1 / (m − a),

where a is the lowest d the test admits and λ_i is chosen from pairs 1 … i−1 only (predictable). Under H0 K is
a non-negative supermartingale, so by Ville's inequality P(sup_n K_n ≥ 1/α) ≤ α at every look at once: peeking
costs nothing. λ_i is the plug-in growth-rate maximiser (μ̂ − m) / (σ̂² + (μ̂ − m)²), capped at a share of its
bound so that a pair at the floor costs a bounded fraction of the capital (Waudby-Smith & Ramdas, "Estimating
means of bounded random variables by betting", JRSS B 2024, §5 aGRAPA). A sample with any d below the floor is
outside the test's assumption: its capital is −inf (the gate then reads the skewness alone).
"""

from __future__ import annotations

import numpy as np

from advisor.stats import FloatArray

# Pairs before the first bet: the plug-in needs a mean and a spread to size it.
_WARM_UP = 2


def log_capital(d: FloatArray, log_margin: float, floor: float, cap: float, min_sd: float) -> FloatArray:
    """log K_n of the betting test of E[d] ≤ `log_margin` for each row of `d` (shape (R, n), log speedups in
    measurement order); `floor` is the least d admitted (log units), `cap` the share of the largest safe bet
    (0 < cap < 1), `min_sd` the least spread a bet is sized for (log units). Rows with a d below `floor` get −inf."""
    r, n = d.shape
    reach = log_margin - floor
    if reach <= 0:
        raise ValueError(f"the floor ({floor}) must lie below the margin ({log_margin})")
    admitted = np.all(d >= floor, axis=1)
    x = np.maximum(d, floor)  # rows below the floor are discarded below; this keeps their arithmetic finite
    log_k = np.zeros(r)
    total = np.zeros(r)
    squares = np.zeros(r)
    for i in range(n):
        if i >= _WARM_UP:
            mean = total / i
            var = np.maximum(squares / i - mean**2, min_sd**2)
            gain = mean - log_margin
            lam = np.clip(gain / (var + gain**2), 0.0, cap / reach)
            log_k += np.log1p(lam * (x[:, i] - log_margin))
        total += x[:, i]
        squares += x[:, i] ** 2
    return np.where(admitted, log_k, -np.inf)
