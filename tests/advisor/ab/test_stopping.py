"""Where the A/B will probably stop (advisor/ab/stopping.py), which the clock plans instead of the limit."""

from __future__ import annotations

import random

from advisor.ab.stopping import MAX_LOSS_SHARE, MIN_PRIOR_PROMPTS, LossPrior, loss_share, projected_pairs
from advisor.ab.types import PairResult
from advisor.core.policy import default_policy
from advisor.steps.ab import policy_for

POLICY = policy_for(default_policy().ab, 20)  # a quick check's looks: 10 and 20 pairs


def _pairs(speedup: float, n: int, noise: float = 0.03, seed: int = 1) -> list[PairResult]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        off = 15.0 * (1 + rng.gauss(0, noise))
        out.append(PairResult(f"p{i}", off, off / speedup * (1 + rng.gauss(0, noise)), on_first=i % 2 == 1))
    return out


def test_a_clear_loss_stops_at_the_first_look_a_gain_where_enable_is_allowed() -> None:
    assert POLICY.looks[0] == POLICY.min_pairs == 10
    assert projected_pairs(_pairs(0.7, 6), POLICY) == 10
    # ENABLE needs min_pairs_enable pairs (20 here), however clear the gain
    assert projected_pairs(_pairs(1.5, 6), POLICY) == POLICY.min_pairs_enable == 20


def test_a_near_tie_is_planned_to_the_last_look() -> None:
    assert projected_pairs(_pairs(1.0 + POLICY.margin, 8), POLICY) == POLICY.looks[-1]


def test_too_few_pairs_plan_the_last_look_and_uncounted_pairs_are_replaced() -> None:
    assert projected_pairs(_pairs(0.7, 5), POLICY) == POLICY.looks[-1]
    failed = [*_pairs(0.7, 6), PairResult("x", 15.0, 10.0, on_first=False, on_error="HTTP 500")]
    assert projected_pairs(failed, POLICY) == 10 + 1  # the lost pair is replaced


def test_the_loops_seen_before_the_ab_plan_replacements_for_the_pairs_to_come() -> None:
    # a fifth of 40 earlier prompts looped: 20 counted pairs need 25 measured
    assert projected_pairs([], POLICY, LossPrior(looped=8, prompts=40)) == 25
    # pooled with the A/B's own pairs: 2 of 10 lost, 20 % still, so 12 more counted need 15 more pairs
    lost = [*_pairs(1.0 + POLICY.margin, 8), *(PairResult(f"x{i}", 15.0, 10.0, on_first=False, on_error="HTTP 500")
                                               for i in range(2))]
    assert loss_share(lost, LossPrior(looped=8, prompts=40)) == 0.2
    assert projected_pairs(lost, POLICY, LossPrior(looped=8, prompts=40)) == 10 + 15


def test_a_loss_share_needs_prompts_before_the_ab_and_stays_below_half() -> None:
    # too few earlier prompts: nothing projected, the lost pair is only replaced
    failed = [*_pairs(0.7, 6), PairResult("x", 15.0, 10.0, on_first=False, on_error="HTTP 500")]
    assert projected_pairs(failed, POLICY, LossPrior(looped=1, prompts=MIN_PRIOR_PROMPTS - 1)) == 10 + 1
    assert loss_share([], LossPrior(looped=40, prompts=40)) == MAX_LOSS_SHARE
