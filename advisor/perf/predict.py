"""Predict a speedup from whatever facts exist, filling gaps with documented priors (never a verdict).

A prediction alone never yields ENABLE; the rules say "predicted …× — confirm with the A/B".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from advisor.perf import model as perfmodel

# Priors, each used only when the fact is missing; `Prediction.priors` names the ones used.
DEFAULT_GAMMA = 3  # llama.cpp's --spec-draft-n-max default since the 2026 refactor (engines.md §1.6)
DRAFT_COST_PRIOR: dict[str, float] = {
    # n-gram lookups run on the CPU in microseconds against a GPU step of milliseconds
    "ngram": 0.0,
    # EAGLE/MTP/Medusa heads are one small layer on top of the target (a few % of its cost)
    "head": 0.05,
    # unknown draft model: a typical 0.5B–1B draft for a 7B–14B target (about a tenth of its cost)
    "draft": 0.1,
}
# Typical open MoE when counts are unknown (Qwen3-30B-A3B: 128 experts, top-8, 30.5B total / 3.3B active)
MOE_PRIOR = (128, 8, 30.5, 3.3)
HEAD_METHODS = ("eagle", "eagle3", "mtp", "medusa", "draft-eagle3", "draft-mtp")


@dataclass(frozen=True, slots=True)
class Prediction:
    """Model speedup (×) at γ drafts per step, with the inputs it used and the priors it had to assume."""

    speedup: float
    tokens_per_step: float
    gamma: int
    alpha: float
    draft_cost_ratio: float
    verify_ratio: float
    priors: tuple[str, ...]

    @property
    def is_prior(self) -> bool:
        """True when any input came from a prior rather than a measurement."""
        return bool(self.priors)


def _f(facts: Mapping[str, object], name: str) -> float | None:
    v = facts.get(name)
    return float(v) if isinstance(v, int | float) and not isinstance(v, bool) else None


def _method_family(method: str) -> str:
    m = method.lower()
    if m.startswith("ngram") or m in ("prompt-lookup", "lookup", "suffix"):
        return "ngram"
    if m in HEAD_METHODS:
        return "head"
    return "draft"


def _draft_cost(facts: Mapping[str, object], priors: list[str]) -> float:
    measured = _f(facts, "spec.draft_cost_ratio")
    if measured is not None:
        return measured
    method = str(facts.get("spec.method", "") or "")
    family = _method_family(method) if method else "draft"
    draft_b, target_b = _f(facts, "spec.draft_params_b"), _f(facts, "model.active_params_b")
    if family == "draft" and draft_b and target_b:
        priors.append(f"draft cost ≈ size ratio {draft_b:g}B/{target_b:g}B")
        return draft_b / target_b
    cost = DRAFT_COST_PRIOR[family]
    priors.append(f"draft cost {cost:g} (prior for {method or 'an unknown method'})")
    return cost


def _verify_ratio(facts: Mapping[str, object], gamma: int, priors: list[str]) -> float:
    measured = _f(facts, "verify.cost_ratio_at_draft_max")
    if measured is not None:
        return measured
    if facts.get("model.moe") is not True:
        # a dense model is memory-bound at one stream: k ≤ 16 tokens cost about one step
        priors.append("verify cost ≈ 1.0 (dense, memory-bound)")
        return 1.0
    n, m = facts.get("model.expert_count"), facts.get("model.expert_used_count")
    total, active = _f(facts, "model.total_params_b"), _f(facts, "model.active_params_b")
    if isinstance(n, int) and isinstance(m, int) and total and active and 0 < m < n:
        shared = perfmodel.moe_shared_fraction(total, active, n, m)
        priors.append("verify cost from the MoE unique-expert bytes model")
    else:
        n, m, total, active = MOE_PRIOR
        shared = perfmodel.moe_shared_fraction(total, active, n, m)
        priors.append("verify cost from a typical MoE shape (128 experts, top-8)")
    return perfmodel.moe_verify_ratio(gamma + 1, shared, n, m)


def predict(facts: Mapping[str, object]) -> Prediction | None:
    """Predicted single-stream speedup from acceptance facts; None without acceptance.rate or mean_length."""
    priors: list[str] = []
    gamma_fact = facts.get("spec.draft_max")
    gamma = gamma_fact if isinstance(gamma_fact, int) and not isinstance(gamma_fact, bool) else None
    if gamma is None or gamma < 1:
        gamma = DEFAULT_GAMMA
        priors.append(f"draft length γ = {DEFAULT_GAMMA} (llama.cpp default)")
    alpha, tau = _f(facts, "acceptance.rate"), _f(facts, "acceptance.mean_length")
    if alpha is None and tau is None:
        return None
    if alpha is None:
        alpha = perfmodel.alpha_from_mean_length(tau, gamma) if tau is not None else 0.0
    alpha = min(max(alpha, 0.0), 1.0)
    if tau is None:
        tau = perfmodel.expected_tokens_per_step(alpha, gamma)
    cost = _draft_cost(facts, priors)
    verify = _verify_ratio(facts, gamma, priors)
    coverage = _f(facts, "acceptance.draft_coverage")
    if coverage is not None:
        speedup = perfmodel.predicted_speedup_with_coverage(tau, verify, gamma, cost, coverage)
    else:  # no measured coverage: assume a draft at every step (the textbook case, an optimistic bound)
        speedup = perfmodel.predicted_speedup(tau, verify, gamma, cost)
    return Prediction(speedup, tau, gamma, alpha, cost, verify, tuple(priors))
