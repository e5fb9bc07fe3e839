"""advisor.stats on known cases: t quantiles vs table values, n = 1, zero variance, NaN/inf rejected."""

from __future__ import annotations

import math

import numpy as np
import pytest

from advisor import stats

# Two-sided 95% (p = .975) and other Student-t quantiles, from standard tables (e.g. NIST/SEMATECH
# e-Handbook §1.3.6.7.2), 9 significant digits.
T_TABLE = [
    (0.975, 1, 12.7062047),
    (0.975, 2, 4.30265273),
    (0.975, 5, 2.57058184),
    (0.975, 9, 2.26215716),
    (0.975, 10, 2.22813885),
    (0.975, 30, 2.04227246),
    (0.975, 59, 2.00099538),
    (0.95, 9, 1.83311293),
    (0.99, 20, 2.52797700),
    (0.995, 3, 5.84090931),
    (0.9995, 1, 636.619249),
    (0.975, math.inf, 1.95996398),
]


@pytest.mark.parametrize(("p", "df", "expected"), T_TABLE)
def test_t_quantile_matches_tables(p: float, df: float, expected: float) -> None:
    assert stats.t_quantile(p, df) == pytest.approx(expected, rel=1e-7)
    assert stats.t_quantile(1 - p, df) == pytest.approx(-expected, rel=1e-7)


def test_t_cdf_inverts_quantile_and_handles_fractional_df() -> None:
    for df in (1.0, 2.5, 7.3, 41.9):
        q = stats.t_quantile(0.9, df)
        assert float(stats.t_cdf(q, df)) == pytest.approx(0.9, abs=1e-10)
    assert float(stats.t_cdf(0.0, 3.0)) == 0.5
    # df = 1 is the Cauchy distribution: F(t) = 1/2 + atan(t)/π
    assert float(stats.t_cdf(2.0, 1.0)) == pytest.approx(0.5 + math.atan(2.0) / math.pi, abs=1e-12)


def test_t_quantile_rejects_bad_arguments() -> None:
    with pytest.raises(ValueError):
        stats.t_quantile(1.0, 5)
    with pytest.raises(ValueError):
        stats.t_quantile(0.5, 0)


def test_log_speedups_and_geometric_mean() -> None:
    d = stats.log_speedups([20.0, 30.0], [10.0, 30.0])
    assert d.tolist() == pytest.approx([math.log(2.0), 0.0])
    ci = stats.geometric_mean_ci([20.0, 30.0, 40.0], [10.0, 15.0, 20.0])
    assert ci.geo_mean == pytest.approx(2.0)
    assert ci.sd == 0.0 and ci.geo_low == pytest.approx(2.0) and ci.geo_high == pytest.approx(2.0)


def test_mean_t_interval_known_case() -> None:
    ci = stats.mean_t_interval([1.0, 2.0, 3.0, 4.0, 5.0])
    half = 2.77644511 * math.sqrt(2.5) / math.sqrt(5)  # t(.975, 4) = 2.776445
    assert (ci.low, ci.high) == pytest.approx((3 - half, 3 + half), rel=1e-7)


def test_n_equals_one_is_explicit() -> None:
    ci = stats.mean_t_interval([0.1])
    assert ci.n == 1 and ci.low == -math.inf and ci.high == math.inf
    assert ci.geo_low == 0.0 and ci.geo_high == math.inf
    assert stats.cv_percent([5.0]) == 0.0 and stats.mad([5.0]) == 0.0
    r = stats.bootstrap_ratio_ci([3.0], [4.0])
    assert r.estimate == 0.75 and r.low == -math.inf and r.high == math.inf


def test_zero_variance_is_explicit() -> None:
    assert float(stats.sample_skewness([2.0, 2.0, 2.0, 2.0])) == 0.0
    assert stats.cv_percent([3.0, 3.0, 3.0]) == 0.0
    ci = stats.mean_t_interval([0.2, 0.2, 0.2])
    assert ci.low == ci.high == pytest.approx(0.2)


@pytest.mark.parametrize("bad", [[1.0, float("nan")], [1.0, float("inf")], [-float("inf")], []])
def test_nan_inf_and_empty_rejected(bad: list[float]) -> None:
    for fn in (stats.median, stats.mad, stats.cv_percent, stats.mean_t_interval):
        with pytest.raises(ValueError):
            fn(bad)
    with pytest.raises(ValueError):
        stats.percentile(bad, 50)


def test_log_speedups_rejects_nonpositive_and_mismatched() -> None:
    with pytest.raises(ValueError):
        stats.log_speedups([1.0, 0.0], [1.0, 1.0])
    with pytest.raises(ValueError):
        stats.log_speedups([1.0, 2.0], [1.0])


def test_descriptives_known_values() -> None:
    x = [1.0, 2.0, 3.0, 4.0, 100.0]
    assert stats.median(x) == 3.0
    assert stats.mad(x) == 1.0
    assert stats.percentile(x, 50) == 3.0 and stats.percentile(x, 100) == 100.0
    assert stats.cv_percent([9.0, 10.0, 11.0]) == pytest.approx(10.0)
    # adjusted Fisher–Pearson G1 of [1, 2, 3, 10]: g1 = m3/m2^1.5, G1 = g1·√(n(n−1))/(n−2)
    y = np.array([1.0, 2.0, 3.0, 10.0])
    dev = y - y.mean()
    g1 = (dev**3).mean() / (dev**2).mean() ** 1.5
    assert float(stats.sample_skewness(y)) == pytest.approx(g1 * math.sqrt(12) / 2)
    assert float(stats.sample_skewness(-y)) == pytest.approx(-g1 * math.sqrt(12) / 2)
    with pytest.raises(ValueError):
        stats.sample_skewness([1.0, 2.0])


def test_bootstrap_ratio_resamples_prompts_and_is_seeded() -> None:
    accepted = [8.0, 1.0, 30.0, 5.0, 12.0, 0.0]
    drafted = [10.0, 10.0, 40.0, 10.0, 20.0, 0.0]  # a prompt that drafted nothing is allowed
    a = stats.bootstrap_ratio_ci(accepted, drafted, seed=3)
    b = stats.bootstrap_ratio_ci(accepted, drafted, seed=3)
    assert a == b
    assert a.estimate == pytest.approx(56 / 90)
    assert a.low < a.estimate < a.high and a.low >= 0.0 and a.high <= 1.0
    with pytest.raises(ValueError):
        stats.bootstrap_ratio_ci([1.0], [0.0])
    with pytest.raises(ValueError):
        stats.bootstrap_ratio_ci([1.0, float("nan")], [1.0, 1.0])


def test_repeat_cv_is_the_spread_of_one_prompt_s_repeats_not_across_prompts() -> None:
    # Three prompts decoding at 50, 100 and 200 tok/s (different context depths), each repeated within ±1%:
    # the machine is steady although the prompts differ fourfold.
    groups = [[49.5, 50.5], [99.0, 101.0], [198.0, 202.0]]
    assert stats.cv_percent([v for g in groups for v in g]) > 50.0
    # each pair: deviations ±0.01 of its mean, 1 degree of freedom → sqrt(3·2·1e-4 / 3) = 1.414%
    assert stats.repeat_cv_percent(groups) == pytest.approx(100.0 * (2e-4) ** 0.5)
    assert stats.repeat_cv_percent([[10.0, 10.0, 10.0]]) == 0.0


def test_repeat_cv_needs_a_repeat() -> None:
    assert stats.repeat_cv_percent([]) is None
    assert stats.repeat_cv_percent([[10.0], [20.0]]) is None  # no prompt ran twice: noise is not known
    assert stats.repeat_cv_percent([[10.0], [9.0, 11.0]]) == pytest.approx(100.0 * (0.02) ** 0.5)
