"""`decide(facts)` → Verdict: walk the rule tree, then enforce the invariants that no rule file may relax.

Fail closed: an exception while evaluating gives INCONCLUSIVE, never ENABLE. ENABLE needs a measured A/B
above the margin and every validity guard passing; a repeated-prompt workload or a repeat inflation above
1.10 (MLPerf TEST04, DESIGN §4 step 2) can never be ENABLE, whatever a user override says.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from advisor.decide.evaluate import Check, Walk, walk
from advisor.decide.rules import RuleSet, VerdictName, load_rules
from advisor.decide.text import render
from advisor.perf.predict import Prediction, predict
from advisor.recommend.build import alternatives, recommend
from advisor.recommend.types import Recommendation

# Hard invariants (not tunable thresholds): DESIGN §4 step 2 and §5, reliability.md A14.
INVARIANT_MAX_REPEAT_INFLATION = 1.10
INVARIANT_MIN_AB_PAIRS = 10
INVARIANT_MIN_CI_LOW = 1.0
CONFIRM_TEXT = "confirm with the A/B"
# DESIGN §4 "perf model reconciles": a model/measurement gap beyond this factor is itself a finding
MODEL_MISMATCH_FACTOR = 1.5


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


def enrich(facts: Mapping[str, object]) -> tuple[dict[str, object], Prediction | None]:
    """Facts plus the derived ones rules may use: ab.measured and predict.* (prediction from predict.py)."""
    out = dict(facts)
    out["ab.measured"] = "ab.ci_low" in out and "ab.ci_high" in out
    for name in ("predict.available", "predict.speedup", "predict.tokens_per_step", "predict.is_prior",
                 "predict.gamma", "predict.from_measurements"):
        out.pop(name, None)  # always recomputed, so a facts file cannot claim a prediction
    prediction = predict(out)
    out["predict.available"] = prediction is not None
    if prediction is not None:
        out["predict.speedup"] = prediction.speedup
        out["predict.tokens_per_step"] = prediction.tokens_per_step
        out["predict.is_prior"] = prediction.is_prior
        out["predict.gamma"] = prediction.gamma
        out["predict.from_measurements"] = prediction.from_measurements
    return out, prediction


def invariant_violations(facts: Mapping[str, object]) -> list[str]:
    """Reasons an ENABLE would break the hard invariants (empty when it may stand)."""
    bad: list[str] = []
    ci_low, n = facts.get("ab.ci_low"), facts.get("ab.n_prompts")
    if not isinstance(ci_low, int | float) or ci_low <= INVARIANT_MIN_CI_LOW:
        bad.append("no measured A/B lower bound above 1.0×")
    if not isinstance(n, int) or n < INVARIANT_MIN_AB_PAIRS:
        bad.append(f"fewer than {INVARIANT_MIN_AB_PAIRS} A/B prompt pairs")
    if facts.get("workload.repeated_prompts") is True:
        bad.append("the workload repeats prompts, which inflates speculative speedups")
    inflation = facts.get("acceptance.repeat_inflation")
    if isinstance(inflation, int | float) and inflation > INVARIANT_MAX_REPEAT_INFLATION:
        bad.append(f"re-seen prompts ran {inflation:.2f}× faster (limit {INVARIANT_MAX_REPEAT_INFLATION})")
    for name, text in (("measurement.trap_suspected", "a caching trap was flagged"),
                       ("measurement.throttled", "the GPU throttled during measurement")):
        if facts.get(name) is True:
            bad.append(text)
    if facts.get("ab.guards_passed") is False:
        bad.append("an A/B guard failed")
    return bad


def _because(result: Walk, rules: RuleSet, values: Mapping[str, object]) -> list[str]:
    rule = rules.files[result.rule]
    branch = next(b for b in rule.branches if b.id == result.branch)
    ctx = {**rule.thresholds, **values}
    if result.blocked:
        return [f"Cannot answer '{rule.question}' without {', '.join(result.missing)}."]
    return [render(branch.because, ctx)] if branch.because else []


def _verdict(result: Walk, rules: RuleSet, facts: dict[str, object], pred: Prediction | None) -> Verdict:
    because = _because(result, rules, facts)
    warnings = [render(t, {**rules.files[r].thresholds, **facts}) for r, _, t in result.notes]
    verdict = result.verdict
    if verdict == "ENABLE" and result.deferred:
        verdict = "INCONCLUSIVE"
        because.append(f"The A/B favours speculation, but these checks lack data: {', '.join(result.deferred)}.")
    if verdict == "ENABLE" and (bad := invariant_violations(facts)):
        verdict = "INCONCLUSIVE"
        because.append("ENABLE withheld: " + "; ".join(bad) + ".")
    if pred is not None and facts.get("ab.measured") is not True and not any(CONFIRM_TEXT in b for b in because):
        because.append(f"Predicted {pred.speedup:.2f}× — {CONFIRM_TEXT}.")
    measured = facts.get("ab.speedup")
    if pred is not None and isinstance(measured, float) and measured > 0:
        gap = max(pred.speedup / measured, measured / pred.speedup)
        if gap > MODEL_MISMATCH_FACTOR:
            warnings.append(f"The perf model predicts {pred.speedup:.2f}× but the A/B measured {measured:.2f}×; "
                            "look for a draft on the CPU, an engine regression or per-step overheads.")
    if pred is not None and pred.priors:
        warnings.append("The prediction assumes " + "; ".join(pred.priors) + ".")
    missing = sorted({*result.missing, *result.deferred})
    return Verdict(
        verdict=verdict, because=tuple(because), trace=tuple(result.trace), missing_facts=tuple(missing),
        predicted_speedup=pred.speedup if pred else None, prediction_is_prior=bool(pred and pred.is_prior),
        flags=recommend(facts) if verdict == "ENABLE" else None,
        alternatives=alternatives(facts) if verdict == "SKIP" else (),
        warnings=tuple(warnings), rule_id=result.rule, branch_id=result.branch, path=tuple(result.path))


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
    }
