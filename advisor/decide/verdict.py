"""`decide(facts)` → Verdict: walk the rule tree, then enforce the invariants that no rule file may relax.

Fail closed: an exception while evaluating gives INCONCLUSIVE, never ENABLE. ENABLE needs a measured A/B
above the margin and every validity guard passing; the invariants (advisor/decide/invariants.py) turn any
other ENABLE into INCONCLUSIVE and appear in the trace as checks of their own.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from advisor import methods
from advisor.decide.evaluate import Check, Walk, walk
from advisor.decide.invariants import blockers, invariant_checks
from advisor.decide.policy import Policy, default_policy
from advisor.decide.rules import RuleSet, VerdictName, load_rules
from advisor.decide.text import render
from advisor.perf.predict import Prediction, predict
from advisor.recommend.build import alternatives, recommend
from advisor.recommend.types import Recommendation

CONFIRM_TEXT = "confirm with the A/B"


@dataclass(frozen=True, slots=True)
class Verdict:
    """The decision with its reasons, the full trace and what to do next."""

    verdict: VerdictName
    because: tuple[str, ...]
    trace: tuple[Check, ...]
    missing_facts: tuple[str, ...]
    predicted_speedup: float | None
    prediction_is_prior: bool
    flags: Recommendation | None
    alternatives: tuple[str, ...]
    warnings: tuple[str, ...]
    rule_id: str
    branch_id: str
    path: tuple[str, ...]
    measured_with: str | None = None  # the drafter's knobs as measured (spec.settings), when known
    caveats: tuple[str, ...] = ()     # checks that could not be made for lack of facts; the verdict stands


def enrich(facts: Mapping[str, object]) -> tuple[dict[str, object], Prediction | None]:
    """Facts plus the derived ones rules may use: ab.measured and predict.* (prediction from predict.py)."""
    out = dict(facts)
    out["ab.measured"] = "ab.ci_low" in out and "ab.ci_high" in out
    for name in ("predict.available", "predict.speedup", "predict.tokens_per_step", "predict.is_prior",
                 "predict.gamma", "predict.from_measurements", "spec.cache_based"):
        out.pop(name, None)  # always derived, so a facts file cannot claim them
    method = out.get("spec.method")
    if isinstance(method, str) and method and method != "none":
        out["spec.cache_based"] = methods.is_cache_based(method)
    prediction = predict(out)
    out["predict.available"] = prediction is not None
    if prediction is not None:
        out["predict.speedup"] = prediction.speedup
        out["predict.tokens_per_step"] = prediction.tokens_per_step
        out["predict.is_prior"] = prediction.is_prior
        out["predict.gamma"] = prediction.gamma
        out["predict.from_measurements"] = prediction.from_measurements
    return out, prediction


def invariant_violations(facts: Mapping[str, object], policy: Policy | None = None) -> list[str]:
    """Reasons an ENABLE would break the hard invariants (empty when it may stand)."""
    return [b.text for b in blockers(facts, policy or default_policy())]


def _because(result: Walk, rules: RuleSet, values: Mapping[str, object]) -> list[str]:
    rule = rules.files[result.rule]
    branch = next(b for b in rule.branches if b.id == result.branch)
    ctx = {**rules.text_values(rule), **values}
    if result.blocked:
        return [f"Cannot answer '{rule.question}' without {', '.join(result.missing)}."]
    return [render(branch.because, ctx)] if branch.because else []


def _verdict(result: Walk, rules: RuleSet, facts: dict[str, object], pred: Prediction | None) -> Verdict:
    because = _because(result, rules, facts)
    warnings = [render(t, {**rules.text_values(rules.files[r]), **facts}) for r, _, t in result.notes]
    verdict = result.verdict
    trace = list(result.trace)
    if verdict == "ENABLE" and result.deferred:
        verdict = "INCONCLUSIVE"
        because.append(f"The A/B favours speculation, but these checks lack data: {', '.join(result.deferred)}.")
    if verdict == "ENABLE":
        checks = invariant_checks(facts, rules.policy)
        trace += [b.check for b in checks]
        if bad := [b.text for b in checks if b.check.passed is not False]:
            verdict = "INCONCLUSIVE"
            because.append("ENABLE withheld: " + "; ".join(bad) + ".")
    if pred is not None and facts.get("ab.measured") is not True and not any(CONFIRM_TEXT in b for b in because):
        because.append(f"Predicted {pred.speedup:.2f}× — {CONFIRM_TEXT}.")
    measured = facts.get("ab.speedup")
    if pred is not None and isinstance(measured, float) and measured > 0:
        gap = max(pred.speedup / measured, measured / pred.speedup)
        if gap > rules.policy.reconcile.model_mismatch_factor:
            warnings.append(f"The perf model predicts {pred.speedup:.2f}× but the A/B measured {measured:.2f}×; "
                            "look for a draft on the CPU, an engine regression or per-step overheads.")
    if pred is not None and pred.priors:
        warnings.append("The prediction assumes " + "; ".join(pred.priors) + ".")
    missing = sorted({*result.missing, *result.deferred})
    return Verdict(
        verdict=verdict, because=tuple(because), trace=tuple(trace), missing_facts=tuple(missing),
        predicted_speedup=pred.speedup if pred else None, prediction_is_prior=bool(pred and pred.is_prior),
        flags=recommend(facts) if verdict == "ENABLE" else None,
        alternatives=alternatives(facts, rules.policy.acceptance.low_rate_warning) if verdict == "SKIP" else (),
        warnings=tuple(warnings), rule_id=result.rule, branch_id=result.branch, path=tuple(result.path),
        caveats=tuple(f"{rule}/{branch}: not checked, needs {', '.join(missing)}"
                      for rule, branch, missing in result.caveats),
        measured_with=settings if isinstance(settings := facts.get("spec.settings"), str) else None)


def _failed(exc: Exception) -> Verdict:
    return Verdict("INCONCLUSIVE", (f"Evaluation failed ({type(exc).__name__}: {exc}); no recommendation.",),
                   (), (), None, False, None, (), ("internal error while deciding",), "", "", ())


def decide(facts: Mapping[str, object], *, rules_dir: Path | None = None, rules: RuleSet | None = None) -> Verdict:
    """Decide from facts (any subset of advisor.facts.specs.FACT_SPECS) with the built-in or given rules.

    Rule files that fail to load raise RuleError (a UserError); everything after loading fails closed.
    """
    ruleset = rules if rules is not None else load_rules(rules_dir)
    try:
        enriched, prediction = enrich(facts)
        return _verdict(walk(ruleset, enriched), ruleset, enriched, prediction)
    except Exception as exc:  # fail closed: never let a bug become ENABLE
        return _failed(exc)


def verdict_to_json(v: Verdict) -> dict[str, object]:
    """DESIGN §6 keys (verdict, predicted_speedup, because, flags, trace, missing_facts) plus extras."""
    flags = None
    if v.flags is not None:
        flags = {"engine": v.flags.engine, "argv": list(v.flags.argv), "command": v.flags.command,
                 "steps": list(v.flags.steps), "notes": list(v.flags.notes)}
    return {
        "verdict": v.verdict,
        "predicted_speedup": v.predicted_speedup,
        "because": list(v.because),
        "flags": flags,
        "trace": [dataclasses.asdict(c) for c in v.trace],
        "missing_facts": list(v.missing_facts),
        "prediction_is_prior": v.prediction_is_prior,
        "alternatives": list(v.alternatives),
        "warnings": list(v.warnings),
        "decided_by": f"{v.rule_id}/{v.branch_id}" if v.rule_id else None,
        "path": list(v.path),
        "measured_with": v.measured_with,
        "caveats": list(v.caveats),
    }
