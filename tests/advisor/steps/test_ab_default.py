"""The comparison with the engine's defaults reports its interval at the A/B's level (policy.ab.ci_level), the
level the verdict reads it at when it decides whether the choice is slower beyond noise (issue 26 item 2)."""

from __future__ import annotations

from advisor.ab.types import PairResult
from advisor.stats import geometric_mean_ci
from advisor.steps.ab_default import summarise


def _pairs() -> list[PairResult]:
    # the choice a little slower than the defaults (ON is the choice, OFF the defaults), with some spread
    return [PairResult(f"p{i}", 10.0 + (i % 3) * 0.2, 10.5 + (i % 4) * 0.2, on_first=i % 2 == 0) for i in range(12)]


def test_the_interval_is_at_the_level_asked() -> None:
    pairs = _pairs()
    wide, narrow = summarise(("a",), ("b",), pairs, 0.99), summarise(("a",), ("b",), pairs, 0.8)
    assert wide.speedup == narrow.speedup and wide.speedup is not None and wide.speedup < 1.0
    assert wide.ci_low is not None and narrow.ci_low is not None and wide.ci_high is not None
    assert narrow.ci_high is not None
    assert wide.ci_low < narrow.ci_low < narrow.ci_high < wide.ci_high
    ci = geometric_mean_ci([p.off_ms_per_token for p in pairs], [p.on_ms_per_token for p in pairs], 0.8)
    assert (narrow.ci_low, narrow.ci_high) == (ci.geo_low, ci.geo_high)
