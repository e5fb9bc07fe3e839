"""Group-sequential paired A/B: the policy, per-look statistics and the three-way rule, vectorised.

Every function takes arrays with a leading replication axis (R, n), so the shipped scalar entry point
(`advisor.ab.decision.decide_ab`, R = 1) and the simulation benchmark (R = 20,000) run the same code.
The rule is reliability.md §2.5 "The recommended three-way rule":

    T_k = (mean(d[:n_k]) − log(1+δ)) / (sd(d[:n_k]) / √n_k)
    ENABLE if T_k > c and every guard passes;  SKIP if T_k < −c;  else continue;
    undecided at the last look → INCONCLUSIVE.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from advisor.ab.betting import log_capital
from advisor.ab.types import Decision
from advisor.core.ab_policy import ABPolicy
from advisor.stats import FloatArray, sample_skewness, t_quantile

BoolArray = npt.NDArray[np.bool_]

@dataclass(frozen=True, slots=True)
class LookStats:
    """Per-replication statistics at one look over the first n pairs; each array has shape (R,)."""

    n: int
    mean_d: FloatArray
    sd_d: FloatArray
    t_stat: FloatArray  # 0 where sd_d == 0 (undefined; the spread guard then fails)
    ci_low_d: FloatArray  # two-sided t-interval at policy.ci_level, log scale
    ci_high_d: FloatArray
    median_d: FloatArray
    skewness: FloatArray
    ratio_totals: FloatArray  # Σ off ms/token ÷ Σ on ms/token
    slow_share: FloatArray
    trimmed_mean_d: FloatArray  # mean without the top `sensitivity_drop` share of d
    cv_off_pct: FloatArray
    order_share: FloatArray  # min(share ON-first, share ON-second)
    order_t: FloatArray  # Welch t, ON-second minus ON-first
    order_crit: FloatArray  # one-sided critical value at order_alpha (inf where undefined)
    order_diff_d: FloatArray  # mean d of ON-second pairs minus ON-first pairs (log; the order effect's size)
    drift_total: FloatArray  # OFF ms/token change over the pairs, from a log-linear fit (0.1 = 10% slower)
    drift_t: FloatArray  # t of that fit's slope (0 where undefined)
    drift_crit: FloatArray  # two-sided critical value at drift_alpha
    effect_drift: FloatArray  # the speedup's own change over the pairs, same fit on log(off/on) (0.1: 10% more)
    effect_drift_t: FloatArray  # t of that slope
    effect_drift_crit: FloatArray  # two-sided critical value at effect_drift_alpha
    effect_drift_low_d: FloatArray  # the fitted log speedup at the weaker end of the pairs (first or last)
    outlier_pairs: FloatArray  # pairs with an outlier in one arm only (modified z beyond outlier_z)
    outlier_free_mean_d: FloatArray  # mean d without those pairs (= mean_d when there are none)
    outlier_free_t: FloatArray  # its t against the margin (the verdict's statistic without those pairs)
    # log capital of the betting test of mean d ≤ the margin over the pairs in measurement order (advisor/ab/betting.py)
    bet_log_capital: FloatArray


def welch_critical(df: FloatArray, alpha: float) -> FloatArray:
    """One-sided Student-t critical values at the Welch df, floored to an integer (slightly conservative,
    and lets the quantile cache serve every call); inf where df is undefined."""
    out = np.full(df.shape, np.inf)
    ok = np.isfinite(df) & (df >= 1)
    for k in np.unique(np.floor(df[ok])):
        out[ok & (np.floor(df) == k)] = t_quantile(1.0 - alpha, float(k))
    return out


def _order_test(d: FloatArray, on_first: BoolArray, alpha: float) -> tuple[FloatArray, ...]:
    """Welch t (ON-second minus ON-first), its critical value, and the smaller order share."""
    second = (~on_first).astype(np.float64)
    first = on_first.astype(np.float64)
    n_s, n_f = second.sum(axis=1), first.sum(axis=1)
    share = np.minimum(n_s, n_f) / d.shape[1]
    with np.errstate(divide="ignore", invalid="ignore"):
        m_s = (second * d).sum(axis=1) / n_s
        m_f = (first * d).sum(axis=1) / n_f
        v_s = (second * (d - m_s[:, None]) ** 2).sum(axis=1) / (n_s - 1) / n_s
        v_f = (first * (d - m_f[:, None]) ** 2).sum(axis=1) / (n_f - 1) / n_f
        se = np.sqrt(v_s + v_f)
        diff = m_s - m_f
        t = np.where(se > 0, diff / se, np.where(diff > 0, np.inf, 0.0))
        df = (v_s + v_f) ** 2 / (v_s**2 / (n_s - 1) + v_f**2 / (n_f - 1))
    valid = (n_s >= 2) & (n_f >= 2)
    t = np.where(valid, t, 0.0)
    df = np.where(valid & np.isfinite(df), df, np.inf)
    df = np.where(valid & (se == 0), 1.0, df)  # constant groups: any positive difference is flagged
    crit = np.where(valid, welch_critical(df, alpha), np.inf)
    return t, crit, share


def _drift(off: FloatArray, alpha: float) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Log-linear fit of OFF ms/token on the pair index: total change over the pairs, the slope's t, and the
    two-sided critical value (the prompts' own spread is in the residual, so only a clear trend shows)."""
    return _trend(np.log(off), alpha)


def _trend(y: FloatArray, alpha: float) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Least-squares slope of `y` (logs, shape (R, n)) on the pair index: expm1 of its change over the pairs,
    the slope's t, and the two-sided critical value at `alpha` (inf below 4 pairs: no test)."""
    r, n = y.shape
    if n < 4:
        zeros = np.zeros(r)
        return zeros, zeros, np.full(r, np.inf)
    x = np.arange(n, dtype=np.float64) - (n - 1) / 2.0
    sxx = float((x**2).sum())
    slope = (y * x[None, :]).sum(axis=1) / sxx
    resid = y - y.mean(axis=1, keepdims=True) - slope[:, None] * x[None, :]
    se = np.sqrt((resid**2).sum(axis=1) / (n - 2) / sxx)
    t = np.where(se > 0, slope / np.where(se > 0, se, 1.0), 0.0)
    crit = np.full(r, t_quantile(1.0 - alpha / 2.0, n - 2))
    return np.expm1(slope * (n - 1)), t, crit


def _arm_outliers(off: FloatArray, on: FloatArray, d: FloatArray, z_max: float,
                  log_margin: float) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Pairs where exactly one arm's log ms/token is an outlier of its own arm (modified z-score
    0.6745·(x − median)/MAD beyond `z_max`), the mean d without them, and that mean's t against the margin (the
    verdict's own statistic, so "the gain survives without them" means the A/B would still enable). A slow
    prompt is slow in both arms and is not counted; a hiccup while one arm ran is."""
    def outlying(a: FloatArray) -> BoolArray:
        la = np.log(a)
        med = np.median(la, axis=1, keepdims=True)
        mad = np.median(np.abs(la - med), axis=1, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            z = np.where(mad > 0, 0.6745 * (la - med) / np.where(mad > 0, mad, 1.0), 0.0)
        return np.abs(z) > z_max

    keep = ~(outlying(off) ^ outlying(on))
    kept = keep.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        free = np.where(kept > 0, (d * keep).sum(axis=1) / np.where(kept > 0, kept, 1), d.mean(axis=1))
        var = (keep * (d - free[:, None]) ** 2).sum(axis=1) / (kept - 1)
        se = np.sqrt(var / kept)
        t = np.where((kept > 1) & (se > 0), (free - log_margin) / se, -np.inf)
    return (~keep).sum(axis=1).astype(np.float64), free, t


def look_stats(off: FloatArray, on: FloatArray, on_first: BoolArray, policy: ABPolicy) -> LookStats:
    """Statistics of the first n pairs of each replication; inputs have shape (R, n), ms/token > 0."""
    n = off.shape[1]
    d = np.log(off / on)
    mean = d.mean(axis=1)
    sd = d.std(axis=1, ddof=1) if n > 1 else np.zeros(d.shape[0])
    sd = np.where(np.ptp(d, axis=1) == 0, 0.0, sd)  # identical d: exactly 0, not float dust (~1e-17)
    se = sd / math.sqrt(n)
    positive = se > 0
    t = np.where(positive, (mean - policy.log_margin) / np.where(positive, se, 1.0), 0.0)
    half = t_quantile(0.5 + policy.ci_level / 2.0, n - 1) * se if n > 1 else np.full(d.shape[0], np.inf)
    k_drop = max(1, math.ceil(policy.sensitivity_drop * n))
    trimmed = np.sort(d, axis=1)[:, : n - k_drop].mean(axis=1) if n > k_drop else mean
    off_mean = off.mean(axis=1)
    cv = 100.0 * off.std(axis=1, ddof=1) / off_mean if n > 1 else np.zeros(d.shape[0])
    order_t, order_crit, order_share = _order_test(d, on_first, policy.order_alpha)
    second, first = ~on_first, on_first
    with np.errstate(divide="ignore", invalid="ignore"):
        order_diff = ((d * second).sum(axis=1) / second.sum(axis=1)) - ((d * first).sum(axis=1) / first.sum(axis=1))
    drift_total, drift_t, drift_crit = _drift(off, policy.drift_alpha)
    effect_drift, effect_drift_t, effect_drift_crit = _trend(d, policy.effect_drift_alpha)
    outliers, outlier_free, outlier_free_t = _arm_outliers(off, on, d, policy.outlier_z, policy.log_margin)
    return LookStats(
        n=n,
        mean_d=mean,
        sd_d=sd,
        t_stat=t,
        ci_low_d=mean - half,
        ci_high_d=mean + half,
        median_d=np.median(d, axis=1),
        skewness=sample_skewness(d) if n >= 3 else np.zeros(d.shape[0]),
        ratio_totals=off.sum(axis=1) / on.sum(axis=1),
        slow_share=(d < math.log(policy.slow_ratio)).mean(axis=1),
        trimmed_mean_d=np.asarray(trimmed, dtype=np.float64),
        cv_off_pct=cv,
        order_share=order_share,
        order_t=order_t,
        order_crit=order_crit,
        order_diff_d=np.nan_to_num(order_diff, nan=0.0),
        drift_total=drift_total,
        drift_t=drift_t,
        drift_crit=drift_crit,
        effect_drift=effect_drift,
        effect_drift_t=effect_drift_t,
        effect_drift_crit=effect_drift_crit,
        # the line's value at its lower end: the mean minus half the fitted change, whichever way it runs
        effect_drift_low_d=mean - np.abs(np.log1p(effect_drift)) / 2.0,
        outlier_pairs=outliers,
        outlier_free_mean_d=outlier_free,
        outlier_free_t=outlier_free_t,
        bet_log_capital=log_capital(d, policy.log_margin, math.log(policy.bet_floor_ratio), policy.bet_cap,
                                    policy.bet_min_sd),
    )


# Kernel codes: int8 so a batch of 20,000 verdicts stays small.
CODE_SKIP, CODE_UNDECIDED, CODE_ENABLE, CODE_INCONCLUSIVE, CODE_CONTINUE = -1, 0, 1, 2, 3
CODE_TO_DECISION = {
    CODE_SKIP: Decision.SKIP,
    CODE_ENABLE: Decision.ENABLE,
    CODE_INCONCLUSIVE: Decision.INCONCLUSIVE,
    CODE_CONTINUE: Decision.CONTINUE,
}


def classify(stats: LookStats, guards_pass: BoolArray, policy: ABPolicy) -> npt.NDArray[np.int8]:
    """Three-way rule at one look: ENABLE / SKIP / UNDECIDED per replication (fails closed on n)."""
    enough = stats.n >= policy.min_pairs
    enable = (stats.n >= policy.min_pairs_enable) & guards_pass & (stats.t_stat > policy.boundary)
    skip = enough & (stats.t_stat < -policy.boundary)
    return np.where(enable, CODE_ENABLE, np.where(skip, CODE_SKIP, CODE_UNDECIDED)).astype(np.int8)
