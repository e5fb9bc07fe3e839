"""From a run's evidence to its verdict: facts → rules → verdict, plus the perf-model reconciliation."""

from __future__ import annotations

from collections.abc import Mapping

from advisor.decide.rules import RuleSet
from advisor.decide.verdict import Verdict, decide
from advisor.evidence.schema import Evidence, Reconciliation
from advisor.facts.from_evidence import facts_from_evidence
from advisor.perf.predict import predict


def reconcile(facts: Mapping[str, object]) -> Reconciliation | None:
    """The perf model's speedup from the measured acceptance, verify curve, step time and draft cost (the same
    model `decide --facts` uses), next to the measured A/B (design.md §4)."""
    measured = facts.get("ab.speedup")
    without_ab = {k: v for k, v in facts.items() if not k.startswith("ab.")}
    prediction = predict(without_ab)
    if prediction is None:
        return None
    measured_speedup = float(measured) if isinstance(measured, int | float) and measured > 0 else None
    return Reconciliation(
        predicted_speedup=prediction.speedup, priors=tuple(prediction.priors), gamma=prediction.gamma,
        alpha=prediction.alpha, tokens_per_step=prediction.tokens_per_step, verify_ratio=prediction.verify_ratio,
        draft_cost_ratio=prediction.draft_cost_ratio, overhead_ratio=prediction.overhead_ratio,
        plain_step_ms=prediction.plain_step_ms, measured_speedup=measured_speedup,
        relative_error=prediction.speedup / measured_speedup - 1.0 if measured_speedup else None)


def decide_evidence(evidence: Evidence, rules: RuleSet | None = None
                    ) -> tuple[Verdict, dict[str, object], Reconciliation | None]:
    """The verdict, the facts it was decided from and the reconciliation of the measured setup."""
    facts = facts_from_evidence(evidence)
    return decide(facts, rules=rules), facts, reconcile(facts)
