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
from advisor.text.message import Message, msg


def stat_guards(s: LookStats, policy: ABPolicy) -> dict[str, BoolArray]:
    """Pass/fail per replication for every statistical guard at one look."""
    return {
        "min-pairs": np.full(s.mean_d.shape, s.n >= max(policy.min_pairs, policy.min_pairs_enable)),
        "spread": s.sd_d > 0,  # identical d everywhere is a measurement fault, and T is undefined
        # a left-skewed sample passes when a test that assumes no shape confirms its gain (advisor/ab/betting.py)
        "skew": (s.skewness >= policy.min_skewness) | (s.bet_log_capital >= math.log(1.0 / policy.bet_alpha)),
        "median-and-total": (s.median_d > 0) & (s.ratio_totals > 1.0 + policy.margin),
        "slow-prompts": s.slow_share <= policy.max_slow_share,
        "sensitivity": s.trimmed_mean_d > policy.log_margin,
        "order-balance": s.order_share >= policy.min_order_share,
        "order-interaction": s.order_t <= s.order_crit,
        # a machine that changed speed, and a speedup that changed with it so far that at one end of the pairs it
        # would not be worth it: the answer then depends on the machine's state (rules/policy.toml effect_drift_alpha)
        "drift": ~((np.abs(s.drift_t) > s.drift_crit) & (np.abs(s.drift_total) > policy.max_drift)
                   & (np.abs(s.effect_drift_t) > s.effect_drift_crit) & (s.effect_drift_low_d <= policy.log_margin)),
        "arm-outliers": (s.outlier_pairs == 0) | (s.outlier_free_t > policy.boundary),
    }


def noise_notes(s: LookStats, policy: ABPolicy) -> dict[str, tuple[bool, Message]]:
    """Spread the paired interval already carries: reported beside the guards, never withholding (replication 0)."""
    cv = float(s.cv_off_pct[0])
    return {"cv-off": (cv < policy.max_cv_off_pct, msg("detail.cv_off", cv=cv, need=policy.max_cv_off_pct))}


def all_pass(guards: dict[str, BoolArray]) -> BoolArray:
    """Element-wise AND of every guard."""
    out = np.ones_like(next(iter(guards.values())), dtype=np.bool_)
    for passed in guards.values():
        out &= passed
    return out


def stat_guard_details(s: LookStats, policy: ABPolicy) -> dict[str, tuple[bool, Message]]:
    """Human detail for replication 0 (the scalar path)."""
    g = {name: bool(v[0]) for name, v in stat_guards(s, policy).items()}
    slow_pct = 100 * float(s.slow_share[0])
    drift, outliers = float(s.drift_total[0]), int(s.outlier_pairs[0])
    need_n = max(policy.min_pairs, policy.min_pairs_enable)
    bar = 1 + policy.margin
    return {
        "min-pairs": (g["min-pairs"], msg("detail.min_pairs", n=s.n, need=need_n)),
        "spread": (g["spread"], msg("detail.spread", sd=float(s.sd_d[0]))),
        "skew": (g["skew"], msg(
            "detail.skew_or_bet", skew=float(s.skewness[0]), need=policy.min_skewness,
            capital=math.exp(min(float(s.bet_log_capital[0]), 700.0)), bet_need=1.0 / policy.bet_alpha,
            floor=policy.bet_floor_ratio)),
        "median-and-total": (g["median-and-total"], msg(
            "detail.median_and_total", median=math.exp(float(s.median_d[0])), total=float(s.ratio_totals[0]),
            need=bar)),
        "slow-prompts": (g["slow-prompts"], msg(
            "detail.slow_prompts", pct=slow_pct, ratio=policy.slow_ratio, allowed=100 * policy.max_slow_share)),
        "sensitivity": (g["sensitivity"], msg(
            "detail.sensitivity", top=100 * policy.sensitivity_drop, x=math.exp(float(s.trimmed_mean_d[0])),
            need=bar)),
        "order-balance": (g["order-balance"], msg(
            "detail.order_balance", pct=100 * float(s.order_share[0]), need=100 * policy.min_order_share)),
        "order-interaction": (g["order-interaction"], msg(
            "detail.order_interaction", x=math.expm1(float(s.order_diff_d[0])), t=float(s.order_t[0]),
            crit=float(s.order_crit[0]), alpha=policy.order_alpha)),
        "drift": (g["drift"], msg(
            "detail.drift_weak_end", x=drift, t=float(s.drift_t[0]), crit=float(s.drift_crit[0]),
            limit=policy.max_drift, effect=float(s.effect_drift[0]), effect_t=float(s.effect_drift_t[0]),
            effect_crit=float(s.effect_drift_crit[0]), low=math.exp(float(s.effect_drift_low_d[0])), bar=bar)),
        "arm-outliers": (g["arm-outliers"], msg(
            "detail.arm_outliers", n=outliers, x=math.exp(float(s.outlier_free_mean_d[0])),
            t=float(s.outlier_free_t[0]), bar=bar, need=policy.boundary)),
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


def record_guards(c: RecordCounts, policy: ABPolicy) -> dict[str, tuple[bool, Message]]:
    """Failure asymmetry, repetition loops and throttling (reliability.md §8 A16, §4.4, §3)."""
    att = max(c.attempted, 1)
    excess = (c.failed_on - c.failed_off) / att
    worst = max(c.failed_on, c.failed_off) / att
    fail_ok = excess <= policy.max_failure_excess and worst <= policy.max_failure_rate
    loop_share = c.loops_any / att
    loop_ok = c.loops_on_only == 0 and loop_share <= policy.max_loop_share
    thr_share = c.throttled / max(c.counted, 1)
    return {
        "failures": (fail_ok, msg(
            "detail.failures", off=c.failed_off, on=c.failed_on, n=c.attempted,
            excess=100 * policy.max_failure_excess, rate=100 * policy.max_failure_rate)),
        "repetition-loops": (loop_ok, msg(
            "detail.repetition_loops", n=c.loops_any, on=c.loops_on_only, share=100 * policy.max_loop_share)),
        "throttling": (thr_share <= policy.max_throttled_share,
                       msg("detail.throttling", n=c.throttled, counted=c.counted)),
    }


def failed_names(guards: dict[str, tuple[bool, Message]]) -> Sequence[str]:
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
