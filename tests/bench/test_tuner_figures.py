"""bench/tuner.py's figures from its runs and sweeps (the figures' arithmetic; the runs themselves are real
sessions in the benchmark)."""

from __future__ import annotations

import pytest

from bench.tuner import GAP, TIME, figures, swept_speedups


def _row(k: int, seed: int, speedup: float | None, wall_s: float = 40.0) -> dict[str, object]:
    return {"k": k, "seed": seed, "speedup": speedup, "ci_low": None, "ci_high": None, "n": 20, "wall_s": wall_s,
            "status": "complete"}


def _run(k: int, wall_s: float = 90.0) -> dict[str, object]:
    return {"status": "complete", "wall_s": wall_s, "method": "ngram-mod", "k": k, "predicted": 1.05,
            "measured": 1.02, "rel_err": 0.03, "curve": [], "surface": [], "steps_s": {}}


def test_a_draft_lengths_swept_speedup_is_the_geometric_mean_over_the_sweeps() -> None:
    rows = [_row(4, 42, 1.10), _row(4, 43, 0.90), _row(8, 42, 1.00), _row(8, 43, None), _row(12, 42, 0.0)]
    by_k = swept_speedups(rows)
    assert by_k[4] == pytest.approx((1.10 * 0.90) ** 0.5)
    assert by_k[8] == 1.00  # a sweep that measured nothing at k = 8 does not count
    assert 12 not in by_k


def test_one_noisy_high_point_no_longer_sets_the_best() -> None:
    """The best of single points is biased up by their noise: a length that was high in one sweep only is not
    the best once the two sweeps are averaged."""
    rows = [_row(4, 42, 1.06), _row(4, 43, 0.96), _row(12, 42, 1.01), _row(12, 43, 1.02)]
    out = figures([_run(12), _run(12)], rows)
    assert out[GAP] == pytest.approx(0.0)  # k = 12 at 1.015× is best; k = 4's 1.06× was one sweep's (1.009×)
    assert "2 sweeps" in out[f"{GAP}_note"]


def test_the_tuners_time_is_against_one_sweep() -> None:
    rows = [_row(k, seed, 1.0, wall_s=40.0) for seed in (42, 43) for k in (1, 2, 4, 8)]
    out = figures([_run(4, wall_s=80.0)], rows)
    assert out[TIME] == pytest.approx(80.0 / 160.0)
