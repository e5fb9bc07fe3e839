"""The perf model's reconciliation (predicted vs measured A/B) as a report section and in words, shared by the
Markdown and HTML reports, the CLI summary and the GUI's verdict view."""

from __future__ import annotations

from advisor.evidence.schema import Evidence
from advisor.report.series import num
from advisor.report.strings import fmt_speedup, text
from advisor.report.tree import ReconcileSection
from advisor.text.message import render_all


def reconciliation_section(evidence: Evidence | None) -> ReconcileSection | None:
    """The reconciliation of a check's evidence; None for a report made from facts alone.

    A check that measured no acceptance has no prediction: the section then has no `predicted_speedup`, so
    every check's report still says whether the model could be compared with the A/B.
    """
    if evidence is None:
        return None
    rec = evidence.reconciliation
    if rec is None:
        return ReconcileSection(measured_speedup=num(evidence.ab.speedup) if evidence.ab else None)
    return ReconcileSection(
        predicted_speedup=num(rec.predicted_speedup), measured_speedup=num(rec.measured_speedup),
        relative_error=num(rec.relative_error), gamma=rec.gamma, alpha=num(rec.alpha),
        tokens_per_step=num(rec.tokens_per_step), verify_ratio=num(rec.verify_ratio),
        draft_cost_ratio=num(rec.draft_cost_ratio), overhead_ratio=num(rec.overhead_ratio),
        plain_step_ms=num(rec.plain_step_ms), priors=render_all(rec.priors, "en"),
        priors_zh=render_all(rec.priors, "zh"))


def _ratio(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}×"


def reconciliation_sentences(section: ReconcileSection | None, lang: str) -> list[str]:
    """What the model predicted for the measured setup, from which terms, and how far the A/B was from it."""
    if section is None:
        return []
    predicted = section.predicted_speedup
    if predicted is None:
        return [text(lang, "reconcile.none")]
    tau, plain = section.tokens_per_step, section.plain_step_ms
    if tau is None or plain is None:  # evidence written before the reconciliation carried the model's terms
        return [text(lang, "reconcile.predicted_bare", predicted=fmt_speedup(predicted)), *_after(section, lang)]
    terms = text(lang, "reconcile.terms", gamma=section.gamma or "—", tau=f"{tau:.2f}",
                 verify=_ratio(section.verify_ratio), draft=_ratio(section.draft_cost_ratio),
                 overhead=_ratio(section.overhead_ratio), plain=f"{plain:.1f}")
    return [text(lang, "reconcile.predicted", predicted=fmt_speedup(predicted), terms=terms), *_after(section, lang)]


def _after(section: ReconcileSection, lang: str) -> list[str]:
    """The measured A/B beside the prediction (or that there is none), then what the prediction assumed."""
    lines = []
    measured, err = section.measured_speedup, section.relative_error
    if measured is not None and err is not None:
        lines.append(text(lang, "reconcile.measured", measured=fmt_speedup(measured), err=err))
    else:
        lines.append(text(lang, "reconcile.unmeasured"))
    if section.priors:
        local = section.priors_zh if lang == "zh" and len(section.priors_zh) == len(section.priors) else ()
        priors = list(local or section.priors)
        lines.append(text(lang, "reconcile.priors", priors=("；" if lang == "zh" else "; ").join(priors)))
    return lines
