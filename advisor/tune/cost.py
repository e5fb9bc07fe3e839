"""The cost side of a draft length, in units of one plain decode step (t1, the OFF arm's ms per token).

A drafting step that drafts d tokens costs the target's forward over d + 1 tokens — the verify curve
R(d + 1) = T(d + 1) / T(1), measured at the user's context depth — plus the drafter's own work: d × the
draft model's cost per drafted token (zero for n-gram lookups), plus a fixed per-step overhead (sampling and
checking d + 1 positions, rolling the KV cache back past rejected tokens). The overhead is the one constant
fitted, from the run at the longest cap, beside the run's speed against the baseline (`fit_run`); the
synthetic-acceptance surface checks the result at other (k, τ).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from advisor import stats
from advisor.tune.gain import StepsAtK

# An overhead fitted from fewer drafting steps than this is noise; the cost model then uses none.
MIN_STEPS_FOR_FIT = 5
# Speed and overhead are told apart only when the categories draft in different proportions; at a cosine above
# √0.99 between their model times and drafting steps the two columns are one (numerical, not a policy).
MAX_SEPARABLE_COS2 = 0.99
# Speed and overhead from fewer runs than this leave no spread to test the overhead with.
MIN_RUNS_FOR_JOINT_FIT = 3


@dataclass(frozen=True, slots=True)
class StepCost:
    """What each kind of step costs, in plain decode steps."""

    verify_ratio: Mapping[int, float]    # k tokens → T(k) / T(1), from the verify step
    overhead: float = 0.0                # per drafting step
    draft_cost_per_token: float = 0.0    # draft model's ms per drafted token ÷ t1 (0: n-gram)

    def verify(self, tokens: float) -> float:
        """R at `tokens` (≥ 1), linear between measured points and beyond the last two."""
        return interpolate(self.verify_ratio, tokens)

    def drafting_step(self, draft_len: float) -> float:
        """One drafting step that drafts `draft_len` tokens."""
        return self.verify(draft_len + 1.0) + self.overhead + self.draft_cost_per_token * draft_len

    def time(self, steps: StepsAtK) -> float:
        """Time of the re-played run, in plain steps."""
        return steps.plain_steps + steps.drafting_steps * self.drafting_step(steps.draft_len)

    def speedup(self, steps: StepsAtK) -> float:
        """Decode speed against speculation off: tokens ÷ time (plain decoding takes one step per token)."""
        t = self.time(steps)
        return steps.tokens / t if t > 0 else 1.0


def interpolate(points: Mapping[int, float], x: float) -> float:
    """Piecewise-linear through `points` (sorted by key), extended linearly past the ends; at least 1."""
    xs = sorted(points)
    if not xs:
        raise ValueError("no verify points")
    if len(xs) == 1:
        return max(points[xs[0]], 1.0)
    if x <= xs[0]:
        lo, hi = xs[0], xs[1]
    elif x >= xs[-1]:
        lo, hi = xs[-2], xs[-1]
    else:
        hi = next(k for k in xs if k >= x)
        lo = max(k for k in xs if k < hi)
    slope = (points[hi] - points[lo]) / (hi - lo)
    return max(points[lo] + slope * (x - lo), 1.0)


@dataclass(frozen=True, slots=True)
class RunFit:
    """What measured runs say about the ON server's step costs (plain steps)."""

    speed_factor: float                  # its plain steps' time ÷ the baseline's t1 at the same depth
    overhead: float = 0.0                # per drafting step, as the model uses it
    overhead_fitted: float | None = None  # the least-squares value (None: the runs cannot tell it)
    overhead_se: float | None = None     # its standard error


def fit_run(cost: StepCost, runs: Sequence[tuple[StepsAtK, float]], alpha: float) -> RunFit:
    """Fit measured runs (steps, measured time in plain steps) as speed_factor × (model time + overhead per
    drafting step), by least squares over the runs (one per category).

    The speed factor takes what moves every step alike: the machine running faster or slower than while the
    baseline was timed (±10–30% between steps on a busy 2-core host), and any work the ON server does at every
    step. Fitting the overhead alone put all of that on the few drafting steps (a 10% slower spell over 9
    drafting steps in 1,100 tokens read as over 10 plain steps each, and predicted 0.88× where the A/B measured
    1.03×). The overhead is used only when the runs show it above zero (one-sided, level `alpha`); otherwise
    none, and the model errs towards more speedup, which the A/B then measures. Where the runs cannot tell the
    two apart (one category, or all drafting in the same proportion, as a draft model does at every step), the
    baseline's speed is trusted and the overhead is fitted alone."""
    zero = StepCost(cost.verify_ratio, 0.0, cost.draft_cost_per_token)
    rows = [(zero.time(s), s.drafting_steps, y) for s, y in runs if y > 0]
    if sum(b for _, b, _ in rows) < MIN_STEPS_FOR_FIT:
        a_sum, y_sum = sum(a for a, _, _ in rows), sum(y for _, _, y in rows)
        return RunFit(speed_factor=y_sum / a_sum if a_sum > 0 else 1.0)
    saa = sum(a * a for a, _, _ in rows)
    sab = sum(a * b for a, b, _ in rows)
    sbb = sum(b * b for _, b, _ in rows)
    det = saa * sbb - sab * sab
    if len(rows) < MIN_RUNS_FOR_JOINT_FIT or det <= (1.0 - MAX_SEPARABLE_COS2) * saa * sbb:
        return _overhead_alone(rows, alpha)
    say = sum(a * y for a, _, y in rows)
    sby = sum(b * y for _, b, y in rows)
    f = (sbb * say - sab * sby) / det
    g = (saa * sby - sab * say) / det
    if f <= 0:
        return _overhead_alone(rows, alpha)
    rss = sum((y - f * a - g * b) ** 2 for a, b, y in rows)
    se = math.sqrt(rss / (len(rows) - 2) * saa / det) / f
    overhead = g / f
    shown = overhead - stats.t_quantile(1.0 - alpha, len(rows) - 2) * se > 0
    return RunFit(speed_factor=f, overhead=overhead if shown else 0.0, overhead_fitted=overhead, overhead_se=se)


def _overhead_alone(rows: Sequence[tuple[float, float, float]], alpha: float) -> RunFit:
    """Speed as the baseline's; the overhead by least squares on the time the model leaves unexplained. Tested
    against zero like the joint fit when there are two runs or more; one run gives no spread to test with, and
    its overhead (at least 0) is used as measured."""
    sbb = sum(b * b for _, b, _ in rows)
    g = sum(b * (y - a) for a, b, y in rows) / sbb
    if len(rows) < 2:
        return RunFit(speed_factor=1.0, overhead=max(g, 0.0), overhead_fitted=g)
    rss = sum((y - a - g * b) ** 2 for a, b, y in rows)
    se = math.sqrt(rss / (len(rows) - 1) / sbb)
    shown = g - stats.t_quantile(1.0 - alpha, len(rows) - 1) * se > 0
    return RunFit(speed_factor=1.0, overhead=g if shown else 0.0, overhead_fitted=g, overhead_se=se)
