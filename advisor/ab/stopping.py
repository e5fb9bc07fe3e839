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
from dataclasses import dataclass

import numpy as np

from advisor.ab.types import PairResult, is_counted
from advisor.core.ab_policy import ABPolicy

MIN_PAIRS_TO_PROJECT = 6  # below this the spread is too rough to project: plan the last look


@dataclass(frozen=True, slots=True)
class LossPrior:
    """Prompts measured before the A/B (`prompts`) and how many of their greedy replies looped (`looped`): a
    reply that loops does so for its prompt, so that share of the held-out prompts will lose their pairs too."""

    looped: int = 0
    prompts: int = 0


NO_LOSS = LossPrior()  # no prompts before the A/B: lost pairs are only replaced


# The most of the pairs to come the clock expects to lose: past half, a model loops on most prompts and the
# spare prompts run out first (the A/B step caps its count at the prompts it has).
MAX_LOSS_SHARE = 0.5


# Prompts measured before the A/B that a projected loss share needs: from fewer (a check of the A/B alone) no
# loss is projected, each lost pair is only replaced. Projected from the A/B's own first pairs, one early loss in
# seven promised a seventh more pairs that never came (stop 37, replayed over 25 checks: worst error 0.205
# against 0.171); pooled with the baseline's and acceptance step's prompts (14 to 40 here) it cannot.
MIN_PRIOR_PROMPTS = 8


def loss_share(pairs: Sequence[PairResult], prior: LossPrior) -> float:
    """The share of pairs to come that will be lost (a failed arm, a loop): the pairs lost so far pooled with
    the prompts before the A/B whose replies looped; 0 when too few prompts came before it."""
    if prior.prompts < MIN_PRIOR_PROMPTS:
        return 0.0
    seen = prior.prompts + len(pairs)
    lost = prior.looped + sum(1 for p in pairs if not is_counted(p))
    return min(lost / seen, MAX_LOSS_SHARE)


def expected_losses(counted: int, share: float) -> int:
    """Pairs that `counted` more counted pairs will lose at the loss `share`, in whole pairs only (rounded
    down): the clock plans a loss it can expect, not a fraction of one; a pair lost later is replaced when it
    happens. Replayed on three quick checks of SmolLM2 (one or two losses in ~21 pairs): raised to whole pairs
    they read one pair long near their end (worst 0.25, 0.24, 0.23), to the nearest 0.22, 0.34, 0.20, rounded
    down 0.15, 0.34, 0.14 (the 0.34: a loss at pair 18 nothing foretold); a full check (6 losses in 36) 0.23,
    against 0.24 with no loss projected."""
    return math.floor(counted * share / (1.0 - share) + 1e-9)


def projected_pairs(pairs: Sequence[PairResult], policy: ABPolicy, prior: LossPrior = NO_LOSS) -> int:
    """Pairs measured when the A/B stops if the pairs to come are like those so far: the first planned look at
    which the projected t statistic clears the boundary (ENABLE only from `min_pairs_enable` pairs on), else
    the last look; plus the pairs not counted so far (a failed arm, a loop), which others replace, and the
    share of the pairs to come that will be lost like them (`loss_share`)."""
    counted = [p for p in pairs if is_counted(p)]
    looks = [n for n in policy.looks if n >= len(counted)] or [len(counted)]
    share = loss_share(pairs, prior)

    def measured_at(look: int) -> int:
        # each pair lost so far is replaced by one more; of those to come, the lost share needs replacing too
        need = look - len(counted)
        return len(pairs) + need + expected_losses(need, share)

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
