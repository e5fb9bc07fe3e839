"""Checklist A1–A17 (reliability.md §8 A), fast: the *shipped* `decide_ab` on seeded synthetic sessions.

Few replications here (the full ≥ 20,000 per scenario run is bench/sim_ab.py). Rates are asserted
against the real bound plus a one-sided 99% binomial tolerance, z·√(p(1−p)/R) with z = 2.326: a true
rate at the bound fails this test with probability ≤ 1%, and the seed is fixed, so results repeat.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import replace

import numpy as np
import pytest

from advisor.ab.decision import decide_ab, run_batch
from advisor.ab.sequential import CODE_ENABLE
from advisor.ab.simulation import Scenario, null_scenarios, to_pairs
from advisor.ab.types import Decision
from advisor.core.ab_policy import ABPolicy
from advisor.core.policy import default_policy

REPS = 300
Z99 = 2.326

POLICY = default_policy().ab


def tolerance(p: float, reps: int) -> float:
    """One-sided 99% binomial tolerance for a rate p estimated from `reps` replications."""
    return Z99 * math.sqrt(p * (1 - p) / reps)


def verdicts(sc: Scenario, reps: int = REPS, seed: int = 5, policy: ABPolicy = POLICY) -> list[Decision]:
    """Give each full 60-pair session to decide_ab at once (it acts at the planned looks only)."""
    off, on, first = sc.generate(reps, 60, seed)
    return [decide_ab(to_pairs(off[r], on[r], first[r]), policy).decision for r in range(reps)]


def rate(ds: list[Decision], what: Decision) -> float:
    return sum(d is what for d in ds) / len(ds)


AT_MARGIN = 1.0 + POLICY.margin
NULLS = [*null_scenarios(POLICY.margin), Scenario("margin left skew", g=AT_MARGIN, kind="left"),
         Scenario("margin t3", g=AT_MARGIN, kind="t3")]


@pytest.mark.parametrize("sc", NULLS, ids=[s.name for s in NULLS])
def test_false_enable_under_the_null(sc: Scenario) -> None:  # A1–A4, A8, A9, A12
    assert rate(verdicts(sc), Decision.ENABLE) <= 0.055 + tolerance(0.055, REPS)


def test_aa_rarely_claims_a_slowdown() -> None:  # A12: SKIP is fine ("no gain"); a CI below 1 is not
    off, on, first = Scenario("aa", aa=True).generate(REPS, 60, 8)
    decs = [decide_ab(to_pairs(off[r], on[r], first[r]), POLICY) for r in range(REPS)]
    slow = sum(d.ci_high is not None and d.ci_high < 1.0 for d in decs) / REPS
    assert slow <= 0.05 + tolerance(0.05, REPS)


def test_peeking_after_every_pair_changes_nothing() -> None:  # A5
    # Exact equality per session is the real property (so the peeked rate *is* the one-shot rate tested
    # above with 300 replications); 30 sessions keep this O(60 calls each) test fast.
    reps = 30
    off, on, first = Scenario("margin", g=1.02).generate(reps, 60, 9)
    enables = 0
    for r in range(reps):
        pairs = to_pairs(off[r], on[r], first[r])
        peeked = Decision.CONTINUE
        for k in range(1, 61):  # the UI calls after every pair and stops at the first verdict
            peeked = decide_ab(pairs[:k], POLICY).decision
            if peeked is not Decision.CONTINUE:
                break
        assert peeked is decide_ab(pairs, POLICY).decision  # identical to acting at the looks only
        enables += peeked is Decision.ENABLE
    assert enables / reps <= 0.055 + tolerance(0.055, reps)


def test_naive_per_look_alpha_is_caught_by_this_harness() -> None:  # A5 mutation
    naive = replace(POLICY, boundary=1.645, min_pairs_enable=10, min_skewness=-math.inf)  # z(.95) at every look
    assert rate(verdicts(Scenario("margin", g=1.02), policy=naive), Decision.ENABLE) > 0.055 + 0.03


def test_removing_the_skew_gate_is_caught_by_this_harness() -> None:  # A4 mutation
    no_gate = dataclasses.replace(POLICY, min_skewness=-math.inf, min_pairs_enable=10)
    sc = Scenario("margin left", g=1.02, kind="left")
    assert rate(verdicts(sc, policy=no_gate), Decision.ENABLE) > 0.055 + tolerance(0.055, REPS)


def test_power_at_1_10x() -> None:  # A6: ≥ 90% within 60 prompts
    assert rate(verdicts(Scenario("p110", g=1.10)), Decision.ENABLE) >= 0.90 - tolerance(0.90, REPS)


def test_trap_never_enables_and_is_flagged() -> None:  # A10
    off, on, first = Scenario("trap", trap_ratio=4.75).generate(200, 60, 12)
    decs = [decide_ab(to_pairs(off[r], on[r], first[r]), POLICY) for r in range(200)]
    assert all(d.decision is not Decision.ENABLE for d in decs)
    flagged = sum(not d.guards["order-interaction"][0] for d in decs) / 200
    assert flagged >= 0.99


def test_ci_coverage_normal() -> None:  # A7: 95% t-interval covers the true G in 93–97% (fixed n = 30)
    fixed = replace(POLICY, looks=(30,))
    off, on, first = Scenario("cov", g=1.05).generate(REPS, 30, 13)
    hits = 0
    for r in range(REPS):
        d = decide_ab(to_pairs(off[r], on[r], first[r]), fixed)
        assert d.ci_low is not None and d.ci_high is not None
        hits += d.ci_low <= 1.05 <= d.ci_high
    tol = tolerance(0.95, REPS)
    assert 0.93 - tol <= hits / REPS <= 0.97 + tol


ONE_LOOK = replace(POLICY, looks=(60,))  # the whole session at once: drift is a property of all its pairs


def test_drift_guard_flags_a_machine_that_slowed_and_a_speedup_that_fell_with_it() -> None:  # issue 24 item 2
    # 1.40× at the start, 0.94× at the end: which pairs you count decides the answer
    off, on, first = Scenario("slowing", g=1.15, drift=0.40, effect_drift=0.40).generate(100, 60, 21)
    decs = [decide_ab(to_pairs(off[r], on[r], first[r]), ONE_LOOK) for r in range(100)]
    # the weaker end is itself estimated: a run whose fitted end stays above the bar (6 of 100 here, at ~1.2×
    # overall) is let through, and still at most one in twenty enables (its rate over 4,000 runs: 100 runs hit 5
    # and 6 by chance as other guards changed)
    assert sum(not d.guards["drift"][0] for d in decs) / 100 >= 0.90
    many = Scenario("slowing", g=1.15, drift=0.40, effect_drift=0.40).generate(4000, 60, 22)
    assert (run_batch(*many, ONE_LOOK).codes == CODE_ENABLE).mean() <= 0.05
    assert all(d.effects["drift"] > 0.2 and d.effects["effect_drift"] < -0.1 for d in decs)  # sizes travel along


def test_a_machine_that_drifted_under_a_steady_speedup_is_measured() -> None:
    """Counterbalanced pairs cancel a drift that moves both arms alike (reliability.md §2.6): the speedup is
    unbiased and the guard withholds only at the effect test's own level (a Gemma 3 quick check here: OFF 18%
    faster by the end, the speedup's slope t −0.22)."""
    off, on, first = Scenario("drifting", g=1.15, drift=0.40).generate(200, 60, 23)
    decs = [decide_ab(to_pairs(off[r], on[r], first[r]), ONE_LOOK) for r in range(200)]
    assert all(d.effects["drift"] > 0.2 for d in decs)  # the machine did change
    withheld = sum(not d.guards["drift"][0] for d in decs) / 200
    assert withheld <= ONE_LOOK.effect_drift_alpha + tolerance(ONE_LOOK.effect_drift_alpha, 200)
    estimates = [d.speedup for d in decs if d.speedup is not None]
    assert abs(float(np.median(estimates)) / 1.15 - 1.0) < 0.01


def test_a_gain_that_moves_with_the_machine_but_stays_worth_having_is_measured() -> None:
    """A speedup that falls 1.55× → 1.24× while the machine slows 40%: the slope is clear, yet at both ends
    speculation pays, so the answer does not depend on the machine's state and the drift guard lets it through
    (it withheld a Gemma 3 quick check at 1.29× [1.20, 1.38] in CI before the weaker end had to fall below the bar)."""
    off, on, first = Scenario("slowing-gain", g=1.38, drift=0.40, effect_drift=0.22).generate(100, 60, 24)
    decs = [decide_ab(to_pairs(off[r], on[r], first[r]), ONE_LOOK) for r in range(100)]
    assert sum(d.effects["effect_drift"] < -0.1 for d in decs) >= 90  # the speedup did move
    assert sum(not d.guards["drift"][0] for d in decs) <= 5
    assert sum(d.decision is Decision.ENABLE for d in decs) >= 90


def test_a_steady_machine_passes_the_drift_guard() -> None:
    off, on, first = Scenario("steady", g=1.15).generate(100, 60, 22)
    decs = [decide_ab(to_pairs(off[r], on[r], first[r]), ONE_LOOK) for r in range(100)]
    assert sum(not d.guards["drift"][0] for d in decs) / 100 <= 0.05


ONE_ARM_HICCUPS = Scenario("null 15% hiccups ×1.3 in OFF only", burst_share=0.15, burst_factor=1.3, burst_arm="off")


def test_hiccups_in_one_arm_cannot_make_a_gain() -> None:  # issue 24 item 2: arm-specific outliers
    assert rate(verdicts(ONE_ARM_HICCUPS), Decision.ENABLE) <= 0.055 + tolerance(0.055, REPS)


def test_removing_the_arm_outlier_guard_is_caught_by_this_harness() -> None:
    no_guard = dataclasses.replace(POLICY, outlier_z=math.inf)
    assert rate(verdicts(ONE_ARM_HICCUPS, policy=no_guard), Decision.ENABLE) > 0.055 + tolerance(0.055, REPS)
