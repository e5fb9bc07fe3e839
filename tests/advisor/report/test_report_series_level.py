"""The A/B chart's running band is the t interval at the run's own level (not a hand-written 95% table)."""

from __future__ import annotations

import math

from advisor.ab.types import PairResult
from advisor.evidence.steps import ABEvidence
from advisor.report.series import ab_chart
from advisor.stats import mean_t_interval


def _evidence(level: float | None) -> ABEvidence:
    pairs = tuple(PairResult(f"p{i}", 10.0 + (i % 3), 9.0, on_first=i % 2 == 0) for i in range(12))
    return ABEvidence(decision="inconclusive", pairs=pairs, ci_level=level)


def _last_band(level: float | None) -> tuple[float, float]:
    chart = ab_chart(_evidence(level))
    assert chart is not None and chart.band is not None
    return chart.band.low[-1][1], chart.band.high[-1][1]


def test_band_follows_the_recorded_level() -> None:
    ds = [math.log((10.0 + (i % 3)) / 9.0) for i in range(12)]
    for level in (0.80, 0.95, 0.99):
        ci = mean_t_interval(ds, level)
        low, high = _last_band(level)
        assert (low, high) == (math.exp(ci.low), math.exp(ci.high))
    assert _last_band(0.80)[1] < _last_band(0.95)[1] < _last_band(0.99)[1]


def test_runs_saved_without_a_level_use_the_policy() -> None:
    from advisor.core.policy import default_policy

    assert _last_band(None) == _last_band(default_policy().ab.ci_level)
