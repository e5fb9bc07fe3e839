"""Where the A/B will probably stop: for the clock, never for the verdict.

The A/B acts only at its planned looks (advisor/ab/decision.py): at each it stops when the paired t statistic
of the log speedups against the margin clears the boundary either way. Holding the mean and spread of the pairs
so far, t grows with √n, so the first look at which it would clear is where the run most likely ends; a quick
check on a clear gain (or a clear loss) stops at its first look, a near tie runs to the limit. The clock plans
that many pairs instead of the limit (a check decided at 10 of 20 pairs was promised twice its length).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from advisor.ab.types import PairResult, is_counted
from advisor.core.ab_policy import ABPolicy

MIN_PAIRS_TO_PROJECT = 6  # below this the spread is too rough to project: plan the last look


def projected_pairs(pairs: Sequence[PairResult], policy: ABPolicy) -> int:
    """Pairs measured when the A/B stops if the pairs to come are like those so far: the first planned look at
    which the projected t statistic clears the boundary (ENABLE only from `min_pairs_enable` pairs on), else
    the last look; plus the pairs not counted so far (a failed arm, a loop), which others replace."""
    counted = [p for p in pairs if is_counted(p)]
    looks = [n for n in policy.looks if n >= len(counted)] or [len(counted)]

    def measured_at(look: int) -> int:
        # each pair lost so far is replaced by one more; none are projected forward: a greedy reply that loops
        # does so for its prompt (the same prompt looped in every run here), not at a rate
        return look + len(pairs) - len(counted)

    if len(counted) < MIN_PAIRS_TO_PROJECT:
        return measured_at(looks[-1])
    d = np.log(np.array([p.off_ms_per_token / p.on_ms_per_token for p in counted], dtype=np.float64))
    gap, sd = float(d.mean()) - policy.log_margin, float(d.std(ddof=1))
    # The mean so far is itself uncertain: project from its edge nearer the margin, so that a near tie is not
    # promised an early stop it then takes back (the clock would jump by half the A/B and back).
    gap = math.copysign(max(abs(gap) - sd / math.sqrt(len(counted)), 0.0), gap)
    for n in looks:
        t = math.copysign(math.inf, gap) if sd == 0 else gap * math.sqrt(n) / sd
        if (t > policy.boundary and n >= policy.min_pairs_enable) or (t < -policy.boundary and n >= policy.min_pairs):
            return measured_at(n)
    return measured_at(looks[-1])
