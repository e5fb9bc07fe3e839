"""The choice: predicted speedup for every (method, draft length) per task category and for the user's mix,
and the best of them.

For a mix, weights are shares of generated tokens, so the mix's time per token is the weighted sum of the
categories' (a harmonic mean of their speedups). Among draft lengths whose predicted speedup is within the
tie margin of the best, the shortest wins: it wastes least when a draft is wrong and when other requests
compete for the same compute.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from advisor.tune.cost import StepCost
from advisor.tune.gain import RunShape, merge, steps_at


@dataclass(frozen=True, slots=True)
class KPrediction:
    """Predicted speedup at one draft length: for the mix, per category, and tokens per step for the mix."""

    k: int
    speedup: float
    per_category: Mapping[str, float]
    tokens_per_step: float                 # over all steps, plain ones included
    acceptance_rate: float | None = None   # accepted ÷ drafted, all categories pooled
    mean_length: float | None = None       # tokens per drafting step (τ of a step that drafted)


@dataclass(frozen=True, slots=True)
class MethodPrediction:
    """One method's predicted speedup curve and its best draft length."""

    method: str
    k_max: int
    predictions: tuple[KPrediction, ...]
    best_k: int
    best_speedup: float


def mix_weights(categories: Sequence[str], mix: Mapping[str, float] | None) -> dict[str, float]:
    """Token shares per measured category: the user's mix restricted to what was measured, else equal."""
    if mix:
        known = {c: float(w) for c, w in mix.items() if c in categories and w > 0}
        total = sum(known.values())
        if total > 0:
            return {c: w / total for c, w in known.items()}
    return {c: 1.0 / len(categories) for c in categories} if categories else {}


def predict_method(method: str, shapes: Mapping[str, RunShape], cost: StepCost, ks: Sequence[int],
                   mix: Mapping[str, float] | None, tie_margin: float) -> MethodPrediction | None:
    """Speedup(k) for `method` from its run at the longest cap (`shapes`: one per category, same cap)."""
    if not shapes:
        return None
    k_max = next(iter(shapes.values())).k_max
    usable = [k for k in sorted(set(ks)) if 1 <= k <= k_max]
    weights = mix_weights(sorted(shapes), mix)
    rows: list[KPrediction] = []
    for k in usable:
        per_cat = {c: cost.speedup(steps_at(s, k)) for c, s in shapes.items()}
        time_per_token = sum(w / per_cat[c] for c, w in weights.items())
        merged = merge([shapes[c] for c in weights])
        at = steps_at(merged, k) if merged is not None else None
        rows.append(KPrediction(k=k, speedup=1.0 / time_per_token if time_per_token > 0 else 1.0,
                                per_category=per_cat, tokens_per_step=at.tokens_per_step if at else 1.0,
                                acceptance_rate=at.acceptance_rate if at else None,
                                mean_length=at.mean_length if at else None))
    if not rows:
        return None
    best = pick(rows, tie_margin)
    return MethodPrediction(method=method, k_max=k_max, predictions=tuple(rows), best_k=best.k,
                            best_speedup=best.speedup)


def pick(rows: Sequence[KPrediction], tie_margin: float) -> KPrediction:
    """The shortest draft length predicted within `tie_margin` (a fraction) of the best speedup."""
    top = max(r.speedup for r in rows)
    return min((r for r in rows if r.speedup >= top * (1.0 - tie_margin)), key=lambda r: r.k)


def best_method(candidates: Sequence[MethodPrediction], tie_margin: float) -> MethodPrediction | None:
    """The method with the best predicted speedup; within the margin the first listed wins (the caller lists
    the cheaper, engine-default methods first)."""
    if not candidates:
        return None
    top = max(c.best_speedup for c in candidates)
    return next(c for c in candidates if c.best_speedup >= top * (1.0 - tie_margin))
