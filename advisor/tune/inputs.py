"""The tuner's inputs from evidence: run shapes per category (step 2's counters) and the verify curve (step
3); the plain decode step t1 (step 1) is `advisor/tune/plain_step.py`."""

from __future__ import annotations

from collections.abc import Mapping

from advisor.evidence.steps import CategoryAcceptance, VerifyEvidence
from advisor.tune.gain import RunShape


def run_shape(cat: CategoryAcceptance, k_max: int) -> RunShape | None:
    """The category's run at cap `k_max`; None without per-position counters (old builds, no /metrics)."""
    if cat.drafts is None or cat.counted_draft_tokens is None or cat.generated <= 0:
        return None
    per_pos = tuple(cat.accepted_per_position[:k_max]) + (0.0,) * max(k_max - len(cat.accepted_per_position), 0)
    return RunShape(k_max=k_max, generated=float(cat.generated), drafts=cat.drafts,
                    draft_tokens=cat.counted_draft_tokens, accepted_per_position=per_pos)


def run_shapes(per_category: Mapping[str, CategoryAcceptance], k_max: int) -> dict[str, RunShape]:
    """Every category that has counters."""
    shapes = {c: run_shape(a, k_max) for c, a in per_category.items()}
    return {c: s for c, s in shapes.items() if s is not None}


def verify_ratios(verify: VerifyEvidence) -> dict[int, float]:
    """k → T(k)/T(1) as measured, at the user's context depth when that curve was measured."""
    points, _ = verify.for_user()
    return {p.k: p.ratio for p in points}

