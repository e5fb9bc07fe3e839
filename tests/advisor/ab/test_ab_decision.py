"""decide_ab on hand-made sessions: minimum data, fail closed, guards, invariances (checklist A13–A16)."""

from __future__ import annotations

import dataclasses
from dataclasses import replace

import numpy as np
import pytest

import advisor.ab.decision as abtest
from advisor.ab.decision import PairResult, aa_check, decide_ab
from advisor.ab.simulation import Scenario, to_pairs
from advisor.ab.types import Decision
from advisor.core.policy import default_policy

POLICY = default_policy().ab


def session(g: float, n: int = 60, seed: int = 2, **kw: float) -> list[PairResult]:
    # seed 2: a normal sample whose skewness passes the gate at n = 20 (the −0.6 gate holds back ~12%
    # of normal samples at n = 20; those ENABLE at a later look instead)
    off, on, first = Scenario("t", g=g, **kw).generate(1, n, seed)  # type: ignore[arg-type]
    return to_pairs(off[0], on[0], first[0])


def test_few_pairs_never_enable() -> None:
    pairs = session(2.0, n=9)
    for k in range(0, 10):
        assert decide_ab(pairs[:k], POLICY).decision is Decision.CONTINUE
    assert decide_ab([], POLICY).speedup is None


def test_enable_needs_twenty_pairs_even_for_a_huge_speedup() -> None:
    pairs = session(2.0, n=20)
    assert decide_ab(pairs[:10], POLICY).decision is Decision.CONTINUE
    dec = decide_ab(pairs, POLICY)
    assert dec.decision is Decision.ENABLE and dec.look == 2 and dec.n_pairs == 20
    assert dec.ci_low is not None and dec.bound_low is not None and dec.bound_low > 1.02


def test_clear_slowdown_skips_at_first_look() -> None:
    dec = decide_ab(session(0.7, n=10), POLICY)
    assert dec.decision is Decision.SKIP and dec.bound_high is not None and dec.bound_high < 1.02


def test_zero_variance_is_inconclusive_not_a_crash() -> None:
    pairs = [PairResult(f"p{i}", 20.0, 10.0, i % 2 == 0) for i in range(60)]
    dec = decide_ab(pairs, POLICY)
    assert dec.decision is Decision.INCONCLUSIVE
    assert dec.guards["spread"][0] is False and dec.speedup == pytest.approx(2.0)


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), 0.0, -3.0])
def test_bad_numbers_fail_closed(bad: float) -> None:
    pairs = session(2.0, n=30)
    pairs[5] = dataclasses.replace(pairs[5], on_ms_per_token=bad)
    dec = decide_ab(pairs, POLICY)
    assert dec.decision is Decision.INCONCLUSIVE and "p005" in dec.reasons[0]


def test_failed_arm_may_carry_nan() -> None:
    pairs = session(2.0, n=21)
    pairs[0] = dataclasses.replace(pairs[0], on_ms_per_token=float("nan"), on_error="timeout")
    dec = decide_ab(pairs, POLICY)
    assert dec.n_failed_on == 1 and dec.n_pairs == 20 and dec.decision is Decision.ENABLE


def test_any_exception_inside_is_inconclusive(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*_a: object, **_k: object) -> None:
        raise RuntimeError("mocked failure")

    monkeypatch.setattr(abtest, "look_stats", boom)
    dec = decide_ab(session(2.0), POLICY)
    assert dec.decision is Decision.INCONCLUSIVE and "mocked failure" in dec.reasons[0]


def test_asymmetric_failures_block_enable() -> None:  # A16: ON 10% timeouts, OFF none
    pairs = session(1.3, n=66)
    for i in range(0, 66, 10):
        pairs[i] = dataclasses.replace(pairs[i], on_error="timeout")
    dec = decide_ab(pairs, POLICY)
    assert dec.decision is not Decision.ENABLE and dec.guards["failures"][0] is False
    assert dec.n_failed_on == 7 and dec.n_failed_off == 0


def test_on_only_repetition_loops_block_enable() -> None:
    pairs = session(1.3, n=61)
    pairs[3] = dataclasses.replace(pairs[3], on_repetition_loop=True)
    dec = decide_ab(pairs, POLICY)
    assert dec.decision is not Decision.ENABLE and dec.guards["repetition-loops"][0] is False


def test_throttling_blocks_enable() -> None:
    pairs = session(1.3, n=60)
    pairs[2] = dataclasses.replace(pairs[2], throttled=True)
    assert decide_ab(pairs, POLICY).decision is Decision.INCONCLUSIVE


def test_unbalanced_order_blocks_enable() -> None:
    pairs = [dataclasses.replace(p, on_first=False) for p in session(1.3, n=60)]
    dec = decide_ab(pairs, POLICY)
    assert dec.decision is Decision.INCONCLUSIVE and dec.guards["order-balance"][0] is False


def test_stopped_verdict_does_not_change_with_more_pairs() -> None:
    pairs = session(1.3, n=60)
    first = decide_ab(pairs[:20], POLICY)
    assert first.decision is Decision.ENABLE
    assert all(decide_ab(pairs[:k], POLICY) == first for k in range(20, 61, 7))


def test_invariances() -> None:  # A13
    pairs = session(1.15, n=60, seed=4)  # any seed: only relations are checked
    dec = decide_ab(pairs, POLICY)
    scaled = [dataclasses.replace(p, off_ms_per_token=p.off_ms_per_token * 7.5,
                                  on_ms_per_token=p.on_ms_per_token * 7.5) for p in pairs]
    assert decide_ab(scaled, POLICY).decision is dec.decision
    assert decide_ab(scaled, POLICY).speedup == pytest.approx(dec.speedup)
    swapped = [dataclasses.replace(p, off_ms_per_token=p.on_ms_per_token, on_ms_per_token=p.off_ms_per_token,
                                   on_first=not p.on_first) for p in pairs]
    sw = decide_ab(swapped, replace(POLICY, looks=(60,), boundary=2.0))
    fixed = decide_ab(pairs, replace(POLICY, looks=(60,), boundary=2.0))
    assert sw.speedup == pytest.approx(1 / fixed.speedup)  # type: ignore[operator]
    perm = [pairs[i] for i in np.random.default_rng(1).permutation(60)]
    assert decide_ab(perm, replace(POLICY, looks=(60,), boundary=2.0)).decision is fixed.decision
    assert decide_ab(pairs, POLICY) == dec  # deterministic


def test_aa_check_goes_through_decide_ab() -> None:
    off, on, first = Scenario("aa", aa=True).generate(1, 60, 3)
    res = aa_check(to_pairs(off[0], on[0], first[0]), POLICY)
    assert res.passed and res.noise_sd_d is not None and 0.02 < res.noise_sd_d < 0.07
    bad = aa_check(session(1.5), POLICY)
    assert not bad.passed and bad.decision.decision is Decision.ENABLE


def test_report_fields_present() -> None:
    dec = decide_ab(session(1.3, n=40), POLICY)
    assert dec.off_p50_ms is not None and dec.on_p99_ms is not None and dec.ratio_of_totals is not None
    assert dec.reasons and all(isinstance(v, tuple) and len(v) == 2 for v in dec.guards.values())
