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
from typing import Literal

from advisor import methods
from advisor.core.policy import Policy, default_policy
from advisor.decide.blocking import Blocking, blocking
from advisor.decide.defaults import DefaultsInstead, defaults_instead
from advisor.decide.evaluate import Check, Walk, walk
from advisor.decide.invariants import BREAK_EVEN, invariant_checks
from advisor.decide.rules import RuleSet, VerdictName, load_rules
from advisor.decide.text import render
from advisor.perf.interval import PredictiveInterval, predictive_interval
from advisor.perf.predict import Prediction, predict
from advisor.recommend.alternatives import bilingual
from advisor.recommend.build import recommend
from advisor.recommend.types import Recommendation
from advisor.text.message import render as render_message
from advisor.text.message import render_all

CONFIRM_TEXT = "confirm with the A/B"
PREDICTED_TEXT = "Predicted"  # how the prediction's own sentences start (rules/prediction.toml and below)
TextKey = Literal["because", "warnings", "caveats", "alternatives", "assumptions"]
TEXT_KEYS: tuple[TextKey, ...] = ("because", "warnings", "caveats", "alternatives", "assumptions")


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
    # the same sentences in other languages, index for index: language → text key → sentences (`texts`)
    translations: Mapping[str, Mapping[TextKey, tuple[str, ...]]] = dataclasses.field(default_factory=dict)
    # every reason the verdict is withheld, in the tree's order, each with a remedy (advisor/decide/blocking.py)
    blocking: tuple[Blocking, ...] = ()
    # INCONCLUSIVE with settings that measured faster: the flags to try, "measured, not confirmed" (`flags` stays
    # None: only an ENABLE confirms them)
    try_flags: Recommendation | None = None
    # what the prediction assumed for facts not given (the perf model's named priors), one item each
    assumptions: tuple[str, ...] = ()
    # how sure the prediction is: its interval, the direction it supports and what to measure first
    prediction_interval: PredictiveInterval | None = None
    # the tuner's choice measured slower than the engine's defaults beyond noise: `flags` / `try_flags` are the
    # defaults', and this is the comparison with the speedup expected of them (advisor/decide/defaults.py)
    defaults_instead: DefaultsInstead | None = None

    def texts(self, key: TextKey, lang: str) -> tuple[str, ...]:
        """`because`, `warnings`, `caveats`, `alternatives` or `assumptions` in `lang` (English when no
        translation was made)."""
        english: tuple[str, ...] = getattr(self, key)
        local = self.translations.get(lang, {}).get(key, ())
        return local if len(local) == len(english) else english

    def with_reason(self, en: str, zh: str) -> Verdict:
        """A copy whose reasons start with `en` / `zh` (why the run is not whole comes before the rules' own);
        a verdict whose Chinese reasons were missing keeps them missing rather than misaligned."""
        local = dict(self.translations.get("zh", {}))
        because_zh = local.get("because", ())
        local["because"] = (zh, *because_zh) if len(because_zh) == len(self.because) else because_zh
        return dataclasses.replace(self, because=(en, *self.because),
                                   translations={**self.translations, "zh": local})


DERIVED = ("predict.available", "predict.speedup", "predict.tokens_per_step", "predict.is_prior", "predict.gamma",
           "predict.from_measurements", "predict.low", "predict.high", "predict.level", "predict.claim",
           "predict.measure_first", "spec.cache_based")


def enrich(facts: Mapping[str, object], policy: Policy | None = None
           ) -> tuple[dict[str, object], Prediction | None, PredictiveInterval | None]:
    """Facts plus the derived ones rules may use: ab.measured and predict.* (prediction from predict.py, its
    interval from interval.py at the policy's level)."""
    out = dict(facts)
    out["ab.measured"] = "ab.ci_low" in out and "ab.ci_high" in out
    for name in DERIVED:
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
    if prediction is None:
        return out, None, None
    band = predictive_interval(prediction, out, (policy or default_policy()).prediction.interval_level)
    out |= {"predict.low": band.low, "predict.high": band.high, "predict.level": band.level,
            "predict.claim": band.claim}
    if band.measure_first is not None:
        out["predict.measure_first"] = band.measure_first
    return out, prediction, band


def _because(result: Walk, rules: RuleSet, values: Mapping[str, object]) -> list[tuple[str, str]]:
    rule = rules.files[result.rule]
    branch = next(b for b in rule.branches if b.id == result.branch)
    ctx = {**rules.text_values(rule), **values}
    if result.blocked:
        missing = ", ".join(result.missing)
        return [(f"Cannot answer '{rule.question}' without {missing}.",
                 f"缺少 {missing}，无法回答“{rule.text('question', 'zh')}”。")]
    if not branch.because:
        return []
    return [(render(branch.because, ctx), render(branch.because_zh or branch.because, ctx))]


def _warning(rules: RuleSet, rule_id: str, branch_id: str, facts: Mapping[str, object]) -> tuple[str, str]:
    rule = rules.files[rule_id]
    branch = next(b for b in rule.branches if b.id == branch_id)
    ctx = {**rules.text_values(rule), **facts}
    return render(branch.warning, ctx), render(branch.warning_zh or branch.warning, ctx)


def _verdict(result: Walk, rules: RuleSet, facts: dict[str, object], pred: Prediction | None,
             band: PredictiveInterval | None) -> Verdict:
    # every sentence is written twice, (English, Chinese), so each reader gets the reasons in their language
    because = _because(result, rules, facts)
    warnings = [_warning(rules, r, b, facts) for r, b, _ in result.notes]
    verdict = result.verdict
    trace = list(result.trace)
    if verdict == "ENABLE" and result.deferred:
        verdict = "INCONCLUSIVE"
        lacking = ", ".join(result.deferred)
        because.append((f"The A/B favours speculation, but these checks lack data: {lacking}.",
                        f"A/B 倾向于推测解码，但这些检查缺少数据：{lacking}。"))
    if verdict == "ENABLE":
        checks = invariant_checks(facts, rules.policy)
        trace += [b.check for b in checks]
        if bad := [b for b in checks if b.check.passed is not False]:
            verdict = "INCONCLUSIVE"
            because.append(("ENABLE withheld: " + "; ".join(b.text for b in bad) + ".",
                            "暂不建议开启：" + "；".join(b.text_zh or b.text for b in bad) + "。"))
    if (band is not None and facts.get("ab.measured") is not True
            and not any(b.startswith(PREDICTED_TEXT) for b, _ in because)):
        span = f"{band.level:.0%}: {band.low:.2f}–{band.high:.2f}×"
        because.append((f"{PREDICTED_TEXT} {band.speedup:.2f}× ({span}) — {CONFIRM_TEXT}.",
                        f"预测为 {band.speedup:.2f}×（{span}）—— 请用 A/B 确认。"))
    measured = facts.get("ab.speedup")
    if pred is not None and isinstance(measured, float) and measured > 0:
        gap = max(pred.speedup / measured, measured / pred.speedup)
        if gap > rules.policy.reconcile.model_mismatch_factor:
            warnings.append((f"The perf model predicts {pred.speedup:.2f}× but the A/B measured {measured:.2f}×; "
                             "look for a draft on the CPU, an engine regression or per-step overheads.",
                             f"性能模型预测 {pred.speedup:.2f}×，但 A/B 实测为 {measured:.2f}×；"
                             "请检查草稿是否跑在 CPU 上、引擎是否退化，或每步开销。"))
    missing = sorted({*result.missing, *result.deferred})
    priors = pred.priors if pred is not None else ()
    alternative = bilingual(facts, rules.policy.acceptance.low_rate_warning) if verdict == "SKIP" else []
    caveats = [(f"{rule}/{branch}: not checked, needs {', '.join(need)}",
                f"{rule}/{branch}：未检查，需要 {', '.join(need)}") for rule, branch, need in result.caveats]
    # the flags are the measured choice's, or the engine's defaults where the choice measured slower than them
    instead = defaults_instead(facts, rules.policy.ab.ci_level)
    flag_facts = instead.facts(facts) if instead is not None else facts
    flags = recommend(flag_facts) if verdict == "ENABLE" else None
    try_flags = _settings_to_try(verdict, flag_facts, pred, instead)
    if instead is not None and (flags is not None or try_flags is not None):
        why = instead.reason()
        because.append((render_message(why, "en"), render_message(why, "zh")))
    else:
        instead = None  # nothing is recommended (SKIP, or nothing faster to try): the choice stands as measured
    return Verdict(
        verdict=verdict, because=tuple(en for en, _ in because), trace=tuple(trace), missing_facts=tuple(missing),
        predicted_speedup=pred.speedup if pred else None, prediction_is_prior=bool(pred and pred.is_prior),
        flags=flags, alternatives=tuple(en for en, _ in alternative),
        warnings=tuple(en for en, _ in warnings), rule_id=result.rule, branch_id=result.branch,
        path=tuple(result.path), caveats=tuple(en for en, _ in caveats),
        measured_with=settings if isinstance(settings := facts.get("spec.settings"), str) else None,
        translations={"zh": {"because": tuple(zh for _, zh in because), "warnings": tuple(zh for _, zh in warnings),
                             "caveats": tuple(zh for _, zh in caveats),
                             "alternatives": tuple(zh for _, zh in alternative),
                             "assumptions": render_all(priors, "zh")}},
        blocking=blocking(rules, facts) if verdict == "INCONCLUSIVE" else (),
        try_flags=try_flags, assumptions=render_all(priors, "en"), prediction_interval=band,
        defaults_instead=instead)


def _settings_to_try(verdict: str, facts: Mapping[str, object], pred: Prediction | None,
                     instead: DefaultsInstead | None = None) -> Recommendation | None:
    """The measured settings to try when nothing is confirmed: where the run measured them (spec.argv, or an
    A/B) and they came out faster, by the A/B when there is one, else by the prediction; the engine's defaults
    in place of a choice that measured slower than them, faster by the chained estimate."""
    if verdict != "INCONCLUSIVE":
        return None
    measured = instead.speedup if instead is not None and instead.speedup is not None else facts.get("ab.speedup")
    if isinstance(measured, int | float) and not isinstance(measured, bool):
        faster = measured > BREAK_EVEN
    else:
        faster = bool(facts.get("spec.argv")) and (pred is None or pred.speedup > BREAK_EVEN)
    rec = recommend(facts) if faster else None
    return rec if rec is not None and (rec.argv or rec.steps) else None


def _failed(exc: Exception) -> Verdict:
    return Verdict("INCONCLUSIVE", (f"Evaluation failed ({type(exc).__name__}: {exc}); no recommendation.",),
                   (), (), None, False, None, (), ("internal error while deciding",), "", "", (),
                   translations={"zh": {"because": (f"评估失败（{type(exc).__name__}: {exc}）；没有建议。",),
                                        "warnings": ("判定时发生内部错误",)}})


def decide(facts: Mapping[str, object], *, rules_dir: Path | None = None, rules: RuleSet | None = None) -> Verdict:
    """Decide from facts (any subset of advisor.facts.specs.FACT_SPECS) with the built-in or given rules.

    Rule files that fail to load raise RuleError (a UserError); everything after loading fails closed.
    """
    ruleset = rules if rules is not None else load_rules(rules_dir)
    try:
        enriched, prediction, band = enrich(facts, ruleset.policy)
        return _verdict(walk(ruleset, enriched), ruleset, enriched, prediction, band)
    except Exception as exc:  # fail closed: never let a bug become ENABLE
        return _failed(exc)


def _flags_json(rec: Recommendation | None) -> dict[str, object] | None:
    if rec is None:
        return None
    return {"engine": rec.engine, "argv": list(rec.argv), "command": rec.command, "steps": list(rec.steps),
            "notes": list(rec.notes)}


def verdict_to_json(v: Verdict) -> dict[str, object]:
    """design.md §6 keys (verdict, predicted_speedup, because, flags, trace, missing_facts) plus extras."""
    flags = _flags_json(v.flags)
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
        **{f"{key}_{lang}": list(texts.get(key, ())) for lang, texts in v.translations.items()
           for key in TEXT_KEYS},
        "blocking": [dataclasses.asdict(b) for b in v.blocking],
        "try_flags": _flags_json(v.try_flags),
        "assumptions": list(v.assumptions),
        **_interval_json(v.prediction_interval),
        # the engine's defaults recommended instead of the tuner's choice: the comparison, the chained speedup
        "defaults_instead": dataclasses.asdict(v.defaults_instead) if v.defaults_instead is not None else None,
    }


def _interval_json(band: PredictiveInterval | None) -> dict[str, object]:
    """The prediction's interval keys (None without a prediction): bounds (×), level, claim, what widens it."""
    if band is None:
        return {"predicted_speedup_low": None, "predicted_speedup_high": None, "prediction_level": None,
                "prediction_claim": None, "prediction_unknowns": [], "measure_first": None}
    return {"predicted_speedup_low": band.low, "predicted_speedup_high": band.high, "prediction_level": band.level,
            "prediction_claim": band.claim, "prediction_unknowns": list(band.unknowns),
            "measure_first": band.measure_first}
