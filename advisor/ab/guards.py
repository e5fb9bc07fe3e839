"""Guards that turn a would-be ENABLE into INCONCLUSIVE (design.md §4 step 5, reliability.md §2.5, §4.3).

Statistical guards are vectorised over replications (shared by `decide_ab` and the benchmark); record
guards (failures, repetition loops, throttling) need the raw pair records and run in the scalar path.
A guard never causes ENABLE or SKIP; it can only block ENABLE.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from advisor.ab.sequential import BoolArray, LookStats
from advisor.ab.types import PairResult
from advisor.core.ab_policy import ABPolicy


def stat_guards(s: LookStats, policy: ABPolicy) -> dict[str, BoolArray]:
    """Pass/fail per replication for every statistical guard at one look."""
    return {
        "min-pairs": np.full(s.mean_d.shape, s.n >= max(policy.min_pairs, policy.min_pairs_enable)),
        "spread": s.sd_d > 0,  # identical d everywhere is a measurement fault, and T is undefined
        "skew": s.skewness >= policy.min_skewness,
        "median-and-total": (s.median_d > 0) & (s.ratio_totals > 1.0 + policy.margin),
        "slow-prompts": s.slow_share <= policy.max_slow_share,
        "sensitivity": s.trimmed_mean_d > policy.log_margin,
        "order-balance": s.order_share >= policy.min_order_share,
        "order-interaction": s.order_t <= s.order_crit,
        "drift": ~((np.abs(s.drift_t) > s.drift_crit) & (np.abs(s.drift_total) > policy.max_drift)),
        "arm-outliers": (s.outlier_pairs == 0) | (s.outlier_free_t > policy.boundary),
    }


def noise_notes(s: LookStats, policy: ABPolicy) -> dict[str, tuple[bool, str]]:
    """Spread the paired interval already carries: reported beside the guards, never withholding (replication 0)."""
    cv = float(s.cv_off_pct[0])
    return {"cv-off": (cv < policy.max_cv_off_pct,
                       f"OFF-arm ms/token varies {cv:.1f}% across prompts (above {policy.max_cv_off_pct:.0f}% the "
                       "machine was busy or the prompts differ widely; the paired interval carries it)")}


def all_pass(guards: dict[str, BoolArray]) -> BoolArray:
    """Element-wise AND of every guard."""
    out = np.ones_like(next(iter(guards.values())), dtype=np.bool_)
    for passed in guards.values():
        out &= passed
    return out


def stat_guard_details(s: LookStats, policy: ABPolicy) -> dict[str, tuple[bool, str]]:
    """Human detail for replication 0 (the scalar path)."""
    g = {name: bool(v[0]) for name, v in stat_guards(s, policy).items()}
    slow_pct = 100 * float(s.slow_share[0])
    drift, outliers = float(s.drift_total[0]), int(s.outlier_pairs[0])
    need_n = max(policy.min_pairs, policy.min_pairs_enable)
    return {
        "min-pairs": (g["min-pairs"], f"{s.n} complete pairs (ENABLE needs ≥ {need_n})"),
        "spread": (g["spread"], f"sd of log-speedups {float(s.sd_d[0]):.4f} (0 means identical pairs)"),
        "skew": (g["skew"], f"skewness {float(s.skewness[0]):+.2f} (need ≥ {policy.min_skewness:+.1f})"),
        "median-and-total": (
            g["median-and-total"],
            f"median speedup {math.exp(float(s.median_d[0])):.3f}×, ratio of totals "
            f"{float(s.ratio_totals[0]):.3f}× (need > 1 and > {1 + policy.margin:.2f})",
        ),
        "slow-prompts": (
            g["slow-prompts"],
            f"{slow_pct:.0f}% of prompts slower than {policy.slow_ratio}× "
            f"(allowed ≤ {100 * policy.max_slow_share:.0f}%)",
        ),
        "sensitivity": (
            g["sensitivity"],
            f"without the top {100 * policy.sensitivity_drop:.0f}% of prompts the speedup is "
            f"{math.exp(float(s.trimmed_mean_d[0])):.3f}× (need > {1 + policy.margin:.2f})",
        ),
        "order-balance": (
            g["order-balance"],
            f"the rarer run order covers {100 * float(s.order_share[0]):.0f}% of pairs "
            f"(need ≥ {100 * policy.min_order_share:.0f}%)",
        ),
        "order-interaction": (
            g["order-interaction"],
            f"pairs that ran ON second were {math.expm1(float(s.order_diff_d[0])):+.1%} faster than ON-first "
            f"ones: Welch t {float(s.order_t[0]):+.2f} (flag above {float(s.order_crit[0]):.2f}, one-sided "
            f"α = {policy.order_alpha})",
        ),
        "drift": (
            g["drift"],
            f"OFF ms/token changed {drift:+.1%} over the pairs: slope t {float(s.drift_t[0]):+.2f} (flag when "
            f"beyond ±{float(s.drift_crit[0]):.2f} and the change beyond ±{policy.max_drift:.0%})",
        ),
        "arm-outliers": (
            g["arm-outliers"],
            f"{outliers} pairs with an outlier in one arm only; without them the speedup is "
            f"{math.exp(float(s.outlier_free_mean_d[0])):.3f}× at t {float(s.outlier_free_t[0]):+.2f} against "
            f"{1 + policy.margin:.2f} (need above {policy.boundary:.2f} when there are any)",
        ),
    }


@dataclass(frozen=True, slots=True)
class RecordCounts:
    """Tallies over the pair records up to a look (failed pairs are not in the d set)."""

    attempted: int
    failed_off: int
    failed_on: int
    loops_on_only: int
    loops_any: int
    throttled: int
    counted: int  # complete pairs that enter d (no failure, no loop)


def record_guards(c: RecordCounts, policy: ABPolicy) -> dict[str, tuple[bool, str]]:
    """Failure asymmetry, repetition loops and throttling (reliability.md §8 A16, §4.4, §3)."""
    att = max(c.attempted, 1)
    excess = (c.failed_on - c.failed_off) / att
    worst = max(c.failed_on, c.failed_off) / att
    fail_ok = excess <= policy.max_failure_excess and worst <= policy.max_failure_rate
    loop_share = c.loops_any / att
    loop_ok = c.loops_on_only == 0 and loop_share <= policy.max_loop_share
    thr_share = c.throttled / max(c.counted, 1)
    return {
        "failures": (
            fail_ok,
            f"failed requests: OFF {c.failed_off}, ON {c.failed_on} of {c.attempted} pairs "
            f"(ON excess allowed ≤ {100 * policy.max_failure_excess:.0f}%, "
            f"either arm ≤ {100 * policy.max_failure_rate:.0f}%)",
        ),
        "repetition-loops": (
            loop_ok,
            f"{c.loops_any} pairs dropped for repetition loops, {c.loops_on_only} only under ON "
            f"(allowed: none only-ON, ≤ {100 * policy.max_loop_share:.0f}% overall)",
        ),
        "throttling": (
            thr_share <= policy.max_throttled_share,
            f"{c.throttled} of {c.counted} counted pairs ran during thermal/HW slowdown",
        ),
    }


def failed_names(guards: dict[str, tuple[bool, str]]) -> Sequence[str]:
    """Names of the guards that did not pass, in a stable order."""
    return [name for name, (passed, _) in guards.items() if not passed]


def tally(pairs: Sequence[PairResult]) -> RecordCounts:
    """Failure, loop and throttle tallies over `pairs` (a failed pair counts against its arm)."""
    failed = [p.off_error is not None or p.on_error is not None for p in pairs]
    loops = [(not f) and (p.off_repetition_loop or p.on_repetition_loop) for p, f in zip(pairs, failed, strict=True)]
    return RecordCounts(
        attempted=len(pairs),
        failed_off=sum(p.off_error is not None for p in pairs),
        failed_on=sum(p.on_error is not None for p in pairs),
        loops_on_only=sum(
            lp and p.on_repetition_loop and not p.off_repetition_loop
            for p, lp in zip(pairs, loops, strict=True)
        ),
        loops_any=sum(loops),
        throttled=sum(p.throttled for p, f, lp in zip(pairs, failed, loops, strict=True) if not (f or lp)),
        counted=sum(not (f or lp) for f, lp in zip(failed, loops, strict=True)),
    )
