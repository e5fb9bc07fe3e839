"""The tuner section in words and as a table, shared by the Markdown and HTML reports and the CLI summary."""

from __future__ import annotations

from advisor.report.strings import fmt_speedup, text
from advisor.report.tree import TunerSection

# A run within 3% of the baseline's speed is the baseline's own spread; not worth a sentence.
SPEED_FACTOR_WORTH_SAYING = 0.03


def tuner_sentences(section: TunerSection, lang: str) -> list[str]:
    """What was chosen, predicted beside measured, and what a drafting step must yield to pay."""
    key = "tuner.chosen" if section.applied else "tuner.advice_only"
    lines = [text(lang, key, method=section.method, k=section.k), *knob_sentences(section, lang)]
    predicted = fmt_speedup(section.predicted_speedup)
    if section.measured_speedup is not None:
        lines.append(text(lang, "tuner.predicted_measured", predicted=predicted,
                          measured=fmt_speedup(section.measured_speedup), low=fmt_speedup(section.measured_ci_low),
                          high=fmt_speedup(section.measured_ci_high)))
    else:
        lines.append(text(lang, "tuner.predicted_only", predicted=predicted))
    if section.prediction_rel_err is not None:
        lines.append(text(lang, "tuner.prediction_error", err=abs(section.prediction_rel_err)))
    if section.vs_default_speedup is not None:
        low, high = section.vs_default_ci_low, section.vs_default_ci_high
        lines.append(text(lang, "tuner.vs_default", speedup=fmt_speedup(section.vs_default_speedup),
                          low=fmt_speedup(low), high=fmt_speedup(high), flags=section.default_command))
        if low is not None and high is not None and low <= 1.0 <= high:
            lines.append(text(lang, "tuner.vs_default_same"))
        elif high is not None and high < 1.0:  # the verdict recommends the defaults (advisor/decide/defaults.py)
            lines.append(text(lang, "tuner.vs_default_slower"))
    if section.breakeven_tau:
        values = ", ".join(f"{k}: {v:.2f}" for k, v in section.breakeven_tau.items() if v is not None)
        lines.append(text(lang, "tuner.breakeven", values=values))
    lines += cost_fit_sentences(section, lang)
    if section.surface_model_rel_err_median is not None:
        lines.append(text(lang, "tuner.surface_error", err=section.surface_model_rel_err_median))
    return lines


def cost_fit_sentences(section: TunerSection, lang: str) -> list[str]:
    """What the chosen method's run at the longest draft said about step costs (its overhead and speed)."""
    lines = []
    fitted, se = section.overhead_fitted, section.overhead_se
    if fitted is not None and se is not None:
        if section.overhead:
            lines.append(text(lang, "tuner.overhead_used", overhead=section.overhead, se=se))
        else:
            lines.append(text(lang, "tuner.overhead_unshown", fitted=fitted, se=se))
    speed = section.speed_factor
    if speed is not None and abs(speed - 1.0) >= SPEED_FACTOR_WORTH_SAYING:
        lines.append(text(lang, "tuner.speed_factor", speed=speed))
    return lines


def knob_sentences(section: TunerSection, lang: str) -> list[str]:
    """The knobs the choice moved off the engine's defaults (ngram-mod's n-match, a draft model's p-min)."""
    lines = []
    unstated = text(lang, "tuner.default_unstated")
    if section.n_match is not None:
        default = section.default_n_match
        lines.append(text(lang, "tuner.n_match", value=section.n_match,
                          default=default if default is not None else unstated))
    if section.p_min is not None:
        default_p = section.default_p_min
        lines.append(text(lang, "tuner.p_min", value=section.p_min,
                          default=f"{default_p:g}" if default_p is not None else unstated))
    return lines


def tuner_table(section: TunerSection, lang: str) -> tuple[list[str], list[list[str]]]:
    """Each method's best draft length and predicted speedup (or why it was not probed)."""
    header = [text(lang, f"tuner.{k}") for k in ("methods", "best_k", "best_speedup")]
    rows = []
    for m in section.methods:
        if m.skipped:
            rows.append([m.label or m.method, "—", text(lang, "tuner.not_probed", why=m.skipped)])
        else:
            rows.append([m.label or m.method, str(m.best_k or "—"), fmt_speedup(m.best_speedup)])
    return header, rows
