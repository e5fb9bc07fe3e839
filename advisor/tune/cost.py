"""The cost side of a draft length, in units of one plain decode step (t1, the OFF arm's ms per token).

A drafting step that drafts d tokens costs the target's forward over d + 1 tokens — the verify curve
R(d + 1) = T(d + 1) / T(1), measured at the user's context depth — plus the drafter's own work: d × the
draft model's cost per drafted token (zero for n-gram lookups), plus a fixed per-step overhead (sampling and
checking d + 1 positions, rolling the KV cache back past rejected tokens). The overhead is the one constant
fitted, from a measured run: the run at the longest cap, or the synthetic-acceptance surface.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from advisor.tune.gain import RunShape, StepsAtK, steps_at

# An overhead fitted from fewer drafting steps than this is noise; the cost model then uses none.
MIN_STEPS_FOR_FIT = 5


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


def fit_overhead(cost: StepCost, runs: Sequence[tuple[StepsAtK, float]]) -> float | None:
    """The per-drafting-step overhead that makes the model match measured runs (steps, measured time in
    plain steps); the drafting-step-weighted mean over runs, at least 0. None when the runs have too few drafting
    steps."""
    steps = sum(s.drafting_steps for s, _ in runs)
    if steps < MIN_STEPS_FOR_FIT:
        return None
    zero = StepCost(cost.verify_ratio, 0.0, cost.draft_cost_per_token)
    # Work per step cannot be negative: a negative fit means the verify curve or t1 was timed in a slower
    # spell than the run (seen on a loaded machine: −2 plain steps, which predicted 28.8×). The overhead is then
    # taken as none, and the model errs towards less speedup.
    return max(sum(measured - zero.time(s) for s, measured in runs) / steps, 0.0)


def measured_time(decode_ms: float, t1_ms: float) -> float:
    """A run's decode time in plain steps."""
    return decode_ms / t1_ms


def shape_time_at_cap(shape: RunShape, decode_ms: float, t1_ms: float) -> tuple[StepsAtK, float]:
    """The run at its own cap and its measured time, ready for `fit_overhead`."""
    return steps_at(shape, shape.k_max), measured_time(decode_ms, t1_ms)
