"""The perf model's reconciliation (predicted vs measured A/B) as a report section and in words, shared by the
Markdown and HTML reports, the CLI summary and the GUI's verdict view."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from advisor.evidence.schema import Evidence
from advisor.report.series import num
from advisor.report.strings import fmt_speedup, text
from advisor.text import LANGS
from advisor.text.message import render_all


def reconciliation_section(evidence: Evidence | None) -> dict[str, Any] | None:
    """The reconciliation of a check's evidence as plain JSON values; None for a report made from facts alone.

    A check that measured no acceptance has no prediction: the section is then `{"predicted_speedup": None}`,
    so every check's report still says whether the model could be compared with the A/B.
    """
    if evidence is None:
        return None
    rec = evidence.reconciliation
    if rec is None:
        return {"predicted_speedup": None, "measured_speedup": num(evidence.ab.speedup) if evidence.ab else None}
    return {"predicted_speedup": num(rec.predicted_speedup), "measured_speedup": num(rec.measured_speedup),
            "relative_error": num(rec.relative_error), "gamma": rec.gamma, "alpha": num(rec.alpha),
            "tokens_per_step": num(rec.tokens_per_step), "verify_ratio": num(rec.verify_ratio),
            "draft_cost_ratio": num(rec.draft_cost_ratio), "overhead_ratio": num(rec.overhead_ratio),
            "plain_step_ms": num(rec.plain_step_ms), "priors": list(render_all(rec.priors, "en")),
            **{f"priors_{lang}": list(render_all(rec.priors, lang)) for lang in LANGS if lang != "en"}}


def _ratio(value: Any) -> str:
    return f"{value:.2f}×" if isinstance(value, int | float) else "—"


def reconciliation_sentences(section: Mapping[str, Any] | None, lang: str) -> list[str]:
    """What the model predicted for the measured setup, from which terms, and how far the A/B was from it."""
    if not section:
        return []
    predicted = section.get("predicted_speedup")
    if predicted is None:
        return [text(lang, "reconcile.none")]
    tau, plain = section.get("tokens_per_step"), section.get("plain_step_ms")
    if tau is None or plain is None:  # evidence written before the reconciliation carried the model's terms
        return [text(lang, "reconcile.predicted_bare", predicted=fmt_speedup(predicted)), *_after(section, lang)]
    terms = text(lang, "reconcile.terms", gamma=section.get("gamma") or "—", tau=f"{tau:.2f}",
                 verify=_ratio(section.get("verify_ratio")), draft=_ratio(section.get("draft_cost_ratio")),
                 overhead=_ratio(section.get("overhead_ratio")), plain=f"{plain:.1f}")
    return [text(lang, "reconcile.predicted", predicted=fmt_speedup(predicted), terms=terms), *_after(section, lang)]


def _after(section: Mapping[str, Any], lang: str) -> list[str]:
    """The measured A/B beside the prediction (or that there is none), then what the prediction assumed."""
    lines = []
    measured, err = section.get("measured_speedup"), section.get("relative_error")
    if measured is not None and err is not None:
        lines.append(text(lang, "reconcile.measured", measured=fmt_speedup(measured), err=err))
    else:
        lines.append(text(lang, "reconcile.unmeasured"))
    if section.get("priors"):
        local = section.get(f"priors_{lang}") if lang != "en" else None  # absent in an older report
        priors = [str(p) for p in (local if isinstance(local, list) else section["priors"])]
        lines.append(text(lang, "reconcile.priors", priors=("；" if lang == "zh" else "; ").join(priors)))
    return lines
