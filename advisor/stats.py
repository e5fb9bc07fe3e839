"""Small, pure-numpy statistics for the paired A/B (reliability.md §2).

Everything here is deterministic (the bootstrap takes a seed), rejects NaN/inf with a ValueError, and
documents what it does at n = 1 and at zero variance. The Student-t distribution is implemented here
because scipy is not a runtime dependency: the CDF through the regularised incomplete beta function
(continued fraction, modified Lentz), the quantile by bisection on that CDF.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]


def as_finite(values: npt.ArrayLike, name: str = "values") -> FloatArray:
    """Return `values` as a float64 array; ValueError if empty, NaN or ±inf (we never guess a value)."""
    arr = np.asarray(values, dtype=np.float64)
    if arr.size == 0:
        raise ValueError(f"{name}: no values")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name}: contains NaN or inf; every measurement must be a finite number")
    return arr


def log_speedups(off_ms_per_token: npt.ArrayLike, on_ms_per_token: npt.ArrayLike) -> FloatArray:
    """Paired d_i = log(off ÷ on) from ms/token per arm (> 0); d > 0 means speculation was faster."""
    off = as_finite(off_ms_per_token, "off_ms_per_token")
    on = as_finite(on_ms_per_token, "on_ms_per_token")
    if off.shape != on.shape:
        raise ValueError(f"arms differ in length: {off.shape} vs {on.shape} (pairs must be complete)")
    if np.any(off <= 0) or np.any(on <= 0):
        raise ValueError("ms/token must be > 0 in both arms")
    return np.log(off / on)


# --- Student-t distribution -------------------------------------------------------------------------


def _betacf(a: FloatArray, b: FloatArray, x: FloatArray) -> FloatArray:
    """Continued fraction of the incomplete beta function, evaluated element-wise (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c = np.ones_like(x)
    d = 1.0 - qab * x / qap
    d = np.where(np.abs(d) < tiny, tiny, d)
    d = 1.0 / d
    h = d.copy()
    for m in range(1, 400):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / np.where(np.abs(d) < tiny, tiny, d)
        c = 1.0 + aa / c
        c = np.where(np.abs(c) < tiny, tiny, c)
        h = h * d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / np.where(np.abs(d) < tiny, tiny, d)
        c = 1.0 + aa / c
        c = np.where(np.abs(c) < tiny, tiny, c)
        delta = d * c
        h = h * delta
        if np.all(np.abs(delta - 1.0) < 1e-15):
            break
    return h


_lgamma = np.vectorize(math.lgamma, otypes=[np.float64])


def betainc(a: npt.ArrayLike, b: npt.ArrayLike, x: npt.ArrayLike) -> FloatArray:
    """Regularised incomplete beta I_x(a, b) for a, b > 0 and 0 ≤ x ≤ 1, element-wise."""
    a_, b_, x_ = np.broadcast_arrays(*(np.asarray(v, dtype=np.float64) for v in (a, b, x)))
    out = np.zeros(x_.shape)
    out[x_ >= 1.0] = 1.0
    inner = (x_ > 0.0) & (x_ < 1.0)
    if np.any(inner):
        ai, bi, xi = a_[inner], b_[inner], x_[inner]
        front = np.exp(_lgamma(ai + bi) - _lgamma(ai) - _lgamma(bi) + ai * np.log(xi) + bi * np.log1p(-xi))
        direct = xi < (ai + 1.0) / (ai + bi + 2.0)  # where the fraction converges fast (NR §6.4)
        res = np.empty(xi.shape)
        res[direct] = front[direct] * _betacf(ai[direct], bi[direct], xi[direct]) / ai[direct]
        flip = ~direct
        res[flip] = 1.0 - front[flip] * _betacf(bi[flip], ai[flip], 1.0 - xi[flip]) / bi[flip]
        out[inner] = res
    return out


def binomial_lower_bound(successes: int, trials: int, level: float) -> float:
    """One-sided Clopper–Pearson lower bound of a binomial share at confidence `level`: the smallest p under which
    `successes` or more of `trials` would still happen with probability 1 − level. 0 for no successes."""
    if not 0 <= successes <= trials or trials <= 0:
        raise ValueError(f"need 0 ≤ successes ≤ trials > 0, got {successes} of {trials}")
    if successes == 0:
        return 0.0
    # P(X ≥ s | p) = I_p(s, n − s + 1), increasing in p: bisect for where it equals 1 − level.
    target, lo, hi = 1.0 - level, 0.0, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2.0
        if float(betainc(successes, trials - successes + 1, mid)) < target:
            lo = mid
        else:
            hi = mid
    return lo


def t_cdf(t: npt.ArrayLike, df: npt.ArrayLike) -> FloatArray:
    """P(T ≤ t) for Student's t with `df` > 0 degrees of freedom (fractional and inf allowed)."""
    t_, df_ = np.broadcast_arrays(np.asarray(t, dtype=np.float64), np.asarray(df, dtype=np.float64))
    out = np.empty(t_.shape)
    normal = np.isinf(df_)
    out[normal] = 0.5 * (1.0 + _erf(t_[normal] / math.sqrt(2.0)))
    fin = ~normal
    tf, dff = t_[fin], df_[fin]
    tail = 0.5 * betainc(dff / 2.0, 0.5, dff / (dff + tf * tf))  # P(T > |t|)
    out[fin] = np.where(tf >= 0, 1.0 - tail, tail)
    return out


_erf = np.vectorize(math.erf, otypes=[np.float64])


@lru_cache(maxsize=4096)
def t_quantile(p: float, df: float) -> float:
    """Inverse of `t_cdf`: the t with P(T ≤ t) = p (0 < p < 1), to ~1e-12; df = inf gives the normal."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be in (0, 1), got {p}")
    if not df > 0:
        raise ValueError(f"df must be > 0, got {df}")
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    if p == 0.5:
        return 0.0
    lo, hi = 0.0, 1.0
    while float(t_cdf(hi, df)) < p:  # bracket; df = 1 at p = .9995 needs hi ≈ 637
        lo, hi = hi, hi * 2.0
    # safeguarded Newton on the CDF (pdf as slope), falling back to bisection when a step leaves [lo, hi]
    x = 0.5 * (lo + hi)
    for _ in range(100):
        f = float(t_cdf(x, df)) - p
        if f < 0:
            lo = x
        else:
            hi = x
        step = f / _t_pdf(x, df)
        nxt = x - step
        if not lo < nxt < hi:
            nxt = 0.5 * (lo + hi)
        if abs(nxt - x) < 1e-13 * max(1.0, abs(x)):
            return nxt
        x = nxt
    return x


def _t_pdf(t: float, df: float) -> float:
    """Student-t density (the normal density for df = inf)."""
    if math.isinf(df):
        return math.exp(-t * t / 2) / math.sqrt(2 * math.pi)
    log_c = math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(df * math.pi)
    return math.exp(log_c - (df + 1) / 2 * math.log1p(t * t / df))


# --- descriptive statistics -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MeanCI:
    """Mean of log-ratios with a two-sided t-interval; `geo_*` are the same on the ratio scale (×)."""

    n: int
    mean: float
    sd: float  # sample SD (ddof = 1); 0.0 when n == 1
    low: float  # -inf when n == 1 (one value says nothing about spread)
    high: float  # +inf when n == 1
    level: float

    @property
    def geo_mean(self) -> float:
        return math.exp(self.mean)

    @property
    def geo_low(self) -> float:
        return math.exp(self.low) if math.isfinite(self.low) else 0.0

    @property
    def geo_high(self) -> float:
        return math.exp(self.high) if math.isfinite(self.high) else math.inf


def mean_t_interval(d: npt.ArrayLike, level: float = 0.95) -> MeanCI:
    """t-interval for mean(d) (reliability.md §2.4: better coverage than the bootstrap at n < 60).

    n = 1 gives an infinite interval; zero variance gives the point itself (low = high = mean).
    """
    arr = as_finite(d, "d").ravel()
    n = arr.size
    mean = float(arr.mean())
    if n == 1:
        return MeanCI(1, mean, 0.0, -math.inf, math.inf, level)
    # identical values: report sd = 0 exactly (float rounding would otherwise give ~1e-17)
    sd = 0.0 if float(np.ptp(arr)) == 0.0 else float(arr.std(ddof=1))
    half = t_quantile(0.5 + level / 2.0, n - 1) * sd / math.sqrt(n)
    return MeanCI(n, mean, sd, mean - half, mean + half, level)


def geometric_mean_ci(
    off_ms_per_token: npt.ArrayLike, on_ms_per_token: npt.ArrayLike, level: float = 0.95
) -> MeanCI:
    """Geometric-mean speedup of paired ms/token (off ÷ on) with its t-interval (use `.geo_*`)."""
    return mean_t_interval(log_speedups(off_ms_per_token, on_ms_per_token), level)


def median(values: npt.ArrayLike) -> float:
    """Median; ValueError on empty/NaN/inf."""
    return float(np.median(as_finite(values)))


def percentile(values: npt.ArrayLike, q: float) -> float:
    """q-th percentile (0–100, linear interpolation); p99 of ≤ 100 values is close to the maximum."""
    if not 0.0 <= q <= 100.0:
        raise ValueError(f"q must be in [0, 100], got {q}")
    return float(np.percentile(as_finite(values), q))


def cv_percent(values: npt.ArrayLike) -> float:
    """Coefficient of variation, 100·sd(ddof=1)/mean (pyperf's 10% warning); 0.0 when n == 1."""
    arr = as_finite(values)
    if arr.size == 1:
        return 0.0
    mean = float(arr.mean())
    if mean == 0.0:
        raise ValueError("CV is undefined for a zero mean")
    return 100.0 * float(arr.std(ddof=1)) / abs(mean)


def repeat_cv_percent(groups: Sequence[Sequence[float]]) -> float | None:
    """Run-to-run coefficient of variation (%): the pooled spread of repeats of one item around that item's
    mean, relative to it (ddof 1 per item). None when no item was measured twice.

    Items may differ from each other (prompts of different lengths decode at different speeds); only the
    repeats of one item say how steady the machine is, which is what pyperf's 10% warning is about.
    """
    squares, dof = 0.0, 0
    for group in groups:
        values = [float(v) for v in group if math.isfinite(float(v))]
        if len(values) < 2:
            continue
        mean = sum(values) / len(values)
        if mean <= 0.0:
            continue
        squares += sum((v / mean - 1.0) ** 2 for v in values)
        dof += len(values) - 1
    return 100.0 * math.sqrt(squares / dof) if dof else None


def sample_skewness(values: npt.ArrayLike) -> FloatArray:
    """Adjusted Fisher–Pearson skewness G1 along the last axis (needs n ≥ 3).

    Zero variance gives 0.0 (a constant sample has no asymmetry). Returns an array so the vectorised
    A/B kernel and the scalar path share it; use float() for one sample.
    """
    arr = as_finite(values)
    n = arr.shape[-1]
    if n < 3:
        raise ValueError(f"skewness needs n ≥ 3, got {n}")
    dev = arr - arr.mean(axis=-1, keepdims=True)
    m2 = (dev**2).mean(axis=-1)
    m3 = (dev**3).mean(axis=-1)
    safe = (m2 > 1e-300) & (np.ptp(arr, axis=-1) > 0)  # a constant sample is 0, not float dust
    g1 = np.where(safe, m3 / np.where(safe, m2, 1.0) ** 1.5, 0.0)
    return np.asarray(g1 * math.sqrt(n * (n - 1)) / (n - 2), dtype=np.float64)


def mad(values: npt.ArrayLike) -> float:
    """Median absolute deviation (raw, not scaled by 1.4826); 0.0 for n == 1."""
    arr = as_finite(values)
    return float(np.median(np.abs(arr - np.median(arr))))


# --- bootstrap over prompts -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RatioCI:
    """Σnumerators ÷ Σdenominators with a percentile-bootstrap interval over prompts."""

    n: int
    estimate: float
    low: float  # -inf when n == 1 (no between-prompt information)
    high: float  # +inf when n == 1
    level: float


def bootstrap_ratio_ci(
    numerators: npt.ArrayLike,
    denominators: npt.ArrayLike,
    *,
    level: float = 0.95,
    n_boot: int = 4000,
    seed: int = 0,
) -> RatioCI:
    """Ratio of sums (e.g. accepted ÷ drafted tokens) with a CI from resampling *prompts*.

    Tokens inside one prompt are not independent, so the prompt is the resampling unit (design.md §4
    step 2). Denominators must be ≥ 0 with a positive total; resamples whose denominators sum to 0 are
    dropped. n = 1 gives an infinite interval. Seeded, so the same inputs give the same interval.
    """
    num = as_finite(numerators, "numerators").ravel()
    den = as_finite(denominators, "denominators").ravel()
    if num.shape != den.shape:
        raise ValueError("numerators and denominators differ in length")
    if np.any(den < 0):
        raise ValueError("denominators must be ≥ 0")
    total = float(den.sum())
    if total <= 0:
        raise ValueError("denominators sum to 0: the ratio is undefined")
    estimate = float(num.sum()) / total
    n = num.size
    if n == 1:
        return RatioCI(1, estimate, -math.inf, math.inf, level)
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, n, size=(n_boot, n))
    den_b = den[idx].sum(axis=1)
    ok = den_b > 0
    ratios = num[idx].sum(axis=1)[ok] / den_b[ok]
    tail = 100.0 * (1.0 - level) / 2.0
    low, high = np.percentile(ratios, [tail, 100.0 - tail])
    return RatioCI(n, estimate, float(low), float(high), level)
