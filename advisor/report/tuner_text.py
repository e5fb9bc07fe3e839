"""The tuner section in words and as a table, shared by the Markdown and HTML reports and the CLI summary."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from advisor.report.strings import fmt_speedup, text

# A run within 3% of the baseline's speed is the baseline's own spread; not worth a sentence.
SPEED_FACTOR_WORTH_SAYING = 0.03


def tuner_sentences(section: Mapping[str, Any], lang: str) -> list[str]:
    """What was chosen, predicted beside measured, and what a drafting step must yield to pay."""
    key = "tuner.chosen" if section.get("applied") else "tuner.advice_only"
    lines = [text(lang, key, method=section["method"], k=section["k"]), *knob_sentences(section, lang)]
    predicted = fmt_speedup(section.get("predicted_speedup"))
    if section.get("measured_speedup") is not None:
        lines.append(text(lang, "tuner.predicted_measured", predicted=predicted,
                          measured=fmt_speedup(section["measured_speedup"]),
                          low=fmt_speedup(section.get("measured_ci_low")),
                          high=fmt_speedup(section.get("measured_ci_high"))))
    else:
        lines.append(text(lang, "tuner.predicted_only", predicted=predicted))
    if section.get("prediction_rel_err") is not None:
        lines.append(text(lang, "tuner.prediction_error", err=abs(section["prediction_rel_err"])))
    if section.get("vs_default_speedup") is not None:
        low, high = section.get("vs_default_ci_low"), section.get("vs_default_ci_high")
        lines.append(text(lang, "tuner.vs_default", speedup=fmt_speedup(section["vs_default_speedup"]),
                          low=fmt_speedup(low), high=fmt_speedup(high), flags=section.get("default_command", "")))
        if low is not None and high is not None and low <= 1.0 <= high:
            lines.append(text(lang, "tuner.vs_default_same"))
    breakeven = section.get("breakeven_tau") or {}
    if breakeven:
        values = ", ".join(f"{k}: {v:.2f}" for k, v in breakeven.items() if v is not None)
        lines.append(text(lang, "tuner.breakeven", values=values))
    lines += cost_fit_sentences(section, lang)
    if section.get("surface_model_rel_err_median") is not None:
        lines.append(text(lang, "tuner.surface_error", err=section["surface_model_rel_err_median"]))
    return lines


def cost_fit_sentences(section: Mapping[str, Any], lang: str) -> list[str]:
    """What the chosen method's run at the longest draft said about step costs (its overhead and speed)."""
    lines = []
    fitted, se = section.get("overhead_fitted"), section.get("overhead_se")
    if fitted is not None and se is not None:
        if section.get("overhead"):
            lines.append(text(lang, "tuner.overhead_used", overhead=section["overhead"], se=se))
        else:
            lines.append(text(lang, "tuner.overhead_unshown", fitted=fitted, se=se))
    speed = section.get("speed_factor")
    if speed is not None and abs(speed - 1.0) >= SPEED_FACTOR_WORTH_SAYING:
        lines.append(text(lang, "tuner.speed_factor", speed=speed))
    return lines


def knob_sentences(section: Mapping[str, Any], lang: str) -> list[str]:
    """The knobs the choice moved off the engine's defaults (ngram-mod's n-match, a draft model's p-min)."""
    lines = []
    unstated = text(lang, "tuner.default_unstated")
    if section.get("n_match") is not None:
        default = section.get("default_n_match")
        lines.append(text(lang, "tuner.n_match", value=section["n_match"],
                          default=default if default is not None else unstated))
    if section.get("p_min") is not None:
        default = section.get("default_p_min")
        lines.append(text(lang, "tuner.p_min", value=section["p_min"],
                          default=f"{default:g}" if default is not None else unstated))
    return lines


def tuner_table(section: Mapping[str, Any], lang: str) -> tuple[list[str], list[list[str]]]:
    """Each method's best draft length and predicted speedup (or why it was not probed)."""
    header = [text(lang, f"tuner.{k}") for k in ("methods", "best_k", "best_speedup")]
    rows = []
    for m in section.get("methods") or []:
        if m.get("skipped"):
            rows.append([str(m.get("label") or m["method"]), "—", text(lang, "tuner.not_probed", why=m["skipped"])])
        else:
            rows.append([str(m.get("label") or m["method"]), str(m.get("best_k") or "—"),
                         fmt_speedup(m.get("best_speedup"))])
    return header, rows
