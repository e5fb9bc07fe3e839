"""Per-category speedups beside the pooled verdict: shown, never decided on.

The verdict pools every pair (the mix is built into which prompts are drawn, advisor/workloads/mix.py), so
looking at categories cannot raise its false-ENABLE rate. The display itself must not mislead either: each
category's interval is a Student-t interval at the simultaneous level 1 − α/K (Bonferroni over the K
categories shown), so under no gain anywhere the chance that *any* category reads "gain" stays ≤ α.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from advisor import stats
from advisor.ab.types import PairResult, is_counted
from advisor.core.ab_policy import ABPolicy

Label = Literal["gain", "no-gain", "unclear", "too-few"]
# A t interval needs a spread, and at the simultaneous level over nine categories (1 − 0.05/9) its quantile
# is 115 with two pairs (one degree of freedom) against 13 with three: two pairs gave intervals like
# 0.00×–4873×, true but unreadable. Below three pairs the category is shown as too few (its point speedup stays).
MIN_PAIRS_FOR_INTERVAL = 3


@dataclass(frozen=True, slots=True)
class CategorySpeedup:
    """One category's paired speedup (geometric mean ×) with its simultaneous interval and a plain label."""

    n_pairs: int
    speedup: float | None
    ci_low: float | None
    ci_high: float | None
    label: Label


def per_category(pairs: Sequence[PairResult], policy: ABPolicy) -> dict[str, CategorySpeedup]:
    """Speedup per category of the counted pairs; `gain` only when the whole interval clears 1 + δ."""
    groups: dict[str, list[float]] = {}
    for p in pairs:
        if is_counted(p) and p.category:
            groups.setdefault(p.category, []).append(math.log(p.off_ms_per_token / p.on_ms_per_token))
    return grouped(dict(sorted(groups.items())), policy)


def grouped(groups: dict[str, list[float]], policy: ABPolicy) -> dict[str, CategorySpeedup]:
    """Each group's geometric-mean speedup (log-speedups in) with a simultaneous interval at 1 − α/K over the K
    groups with enough pairs (Bonferroni): kinds of task, output-length bands, depth bands alike. The result
    keeps the order of `groups`."""
    from advisor.stats import t_quantile  # numpy: only when groups are computed, not on every import

    shown = [c for c, d in groups.items() if len(d) >= MIN_PAIRS_FOR_INTERVAL]
    level = 1.0 - policy.category_family_alpha / max(len(shown), 1)
    out: dict[str, CategorySpeedup] = {}
    for category, d in groups.items():  # in the caller's order
        n = len(d)
        mean = sum(d) / n
        if n < MIN_PAIRS_FOR_INTERVAL:
            out[category] = CategorySpeedup(n, math.exp(mean), None, None, "too-few")
            continue
        sd = math.sqrt(sum((x - mean) ** 2 for x in d) / (n - 1))
        half = t_quantile(0.5 + level / 2.0, n - 1) * sd / math.sqrt(n)
        low, high = math.exp(mean - half), math.exp(mean + half)
        bar = 1.0 + policy.margin
        label: Label = "gain" if low > bar else "no-gain" if high < bar else "unclear"
        out[category] = CategorySpeedup(n, math.exp(mean), low, high, label)
    return out


def early_divergences(pairs: Sequence[PairResult], policy: ABPolicy) -> tuple[int, int]:
    """(pairs whose outputs first differ in the first `early_divergence_share` of the reply and that the margin
    check could not classify, pairs compared). A divergence the OFF arm's probabilities classified is counted
    by its kind instead (`divergence_counts`): a near tie is numerics, a sure token lossy."""
    compared = [p for p in pairs if is_counted(p) and p.outputs_match is not None]
    early = [p for p in compared if p.divergence_at is not None and p.divergence_at < policy.early_divergence_share
             and p.divergence_kind not in ("numerics", "lossy")]
    return len(early), len(compared)


def divergence_counts(pairs: Sequence[PairResult]) -> dict[str, int]:
    """Counted pairs whose replies differ, by what the margin check made of them (numerics, lossy, unknown)."""
    out = {"numerics": 0, "lossy": 0, "unknown": 0}
    for p in pairs:
        if is_counted(p) and p.outputs_match is False:
            kind = p.divergence_kind if p.divergence_kind in out else "unknown"
            out[kind] += 1
    return out


def early_divergence_rate(pairs: Sequence[PairResult], policy: ABPolicy) -> float | None:
    """Share of compared pairs whose replies diverged early (None: nothing compared)."""
    early, compared = early_divergences(pairs, policy)
    return early / compared if compared else None


def early_divergence_low(pairs: Sequence[PairResult], policy: ABPolicy) -> float | None:
    """The share of early divergences the pairs show at least, at the A/B's confidence level (one-sided
    Clopper–Pearson): 2 of 20 shows no more than 1.8%, 4 of 20 shows 7.1%. The guard compares this, not the
    observed share, with its limit, so that one reply more or less does not flip the verdict."""
    early, compared = early_divergences(pairs, policy)
    return stats.binomial_lower_bound(early, compared, policy.ci_level) if compared else None
