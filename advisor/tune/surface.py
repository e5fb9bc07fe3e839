"""The synthetic-acceptance surface: decode speed at chosen (draft length k, acceptance length τ) on this very
hardware, and how well the cost model predicts it.

llama-server's `--spec-synth-len τ` (benchmarking only) accepts drafted tokens at rates that give a mean
acceptance length τ; the drafts themselves still come from a drafter (an n-gram one here), so only steps that
found a draft are speculative. Counting steps from the engine's counters, each point measures what one
drafting step at k really costs — the ground truth for the cost model — whatever drafter made the drafts.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from advisor.evidence.tuner import SurfacePoint
from advisor.tune.cost import StepCost
from advisor.tune.gain import StepsAtK


@dataclass(frozen=True, slots=True)
class SurfaceRun:
    """Sums over one surface point's requests (tokens exclude each request's first)."""

    k: int
    tau_target: float
    generated: float
    drafts: float
    draft_tokens: float
    accepted: float
    decode_ms: float
    depth_tokens: float | None = None      # mean context depth of the decoded tokens


def surface_point(run: SurfaceRun, cost: StepCost, t1_ms: float) -> SurfacePoint:
    """Measured and predicted speedup of one point, and its measured drafting-step cost."""
    if run.generated <= 0 or run.decode_ms <= 0:
        return SurfacePoint(k=run.k, tau_target=run.tau_target)
    plain = max(run.generated - run.drafts - run.accepted, 0.0)
    steps = StepsAtK(k=run.k, plain_steps=plain, drafting_steps=run.drafts,
                     draft_len=run.draft_tokens / run.drafts if run.drafts else 0.0, tokens=run.generated)
    measured_time = run.decode_ms / t1_ms
    return SurfacePoint(
        k=run.k, tau_target=run.tau_target,
        tau_measured=1.0 + run.accepted / run.drafts if run.drafts else None,
        coverage=run.drafts / (run.drafts + plain) if run.drafts + plain > 0 else None,
        tok_s=1000.0 * run.generated / run.decode_ms, speedup=run.generated / measured_time,
        predicted_speedup=cost.speedup(steps) if run.drafts else None,
        step_cost=(measured_time - plain) / run.drafts if run.drafts else None)


def model_rel_err_median(points: list[SurfacePoint]) -> float | None:
    """Median |predicted ÷ measured − 1| over the points that drafted."""
    errs = [abs(p.predicted_speedup / p.speedup - 1.0) for p in points
            if p.predicted_speedup is not None and p.speedup]
    return statistics.median(errs) if errs else None


def breakeven_tau(cost: StepCost, ks: list[int]) -> dict[int, float]:
    """τ a drafting step must reach at each k to break even when every step drafts: its cost in plain steps
    (speedup at full coverage is τ ÷ cost; to gain s× a step needs τ ≥ s × this)."""
    return {k: cost.drafting_step(float(k)) for k in ks}
