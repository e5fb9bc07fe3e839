"""The report's verdict section, made from the typed `Verdict`: what every renderer, the window and the
terminal read. Light on imports: `decide --facts` uses it."""

from __future__ import annotations

from advisor.decide.verdict import Verdict
from advisor.recommend.types import Recommendation
from advisor.report.headline import finite as num

TRACE_KEYS = ("rule", "branch", "fact", "op", "expected", "actual", "passed", "outcome", "leads_to")


def _flag(rec: Recommendation | None) -> list[dict[str, object]]:
    """A recommendation as the report's list of flag blocks (empty when there is nothing to run or do)."""
    if rec is None or not (rec.command or rec.steps or rec.notes):
        return []
    return [{"engine": rec.engine, "label": "", "command": rec.command, "steps": list(rec.steps),
             "notes": list(rec.notes)}]


def report_verdict(v: Verdict) -> dict[str, object]:
    """The report's verdict section: the typed verdict's keys the renderers read, every one present."""
    return {"verdict": v.verdict, "predicted_speedup": num(v.predicted_speedup),
            "prediction_is_prior": v.prediction_is_prior, "because": list(v.because), "flags": _flag(v.flags),
            "trace": [{k: getattr(c, k) for k in TRACE_KEYS} for c in v.trace],
            "missing_facts": list(v.missing_facts), "alternatives": list(v.alternatives),
            "warnings": list(v.warnings), "caveats": list(v.caveats),
            # the same lists in Chinese, index for index (advisor.report.strings.verdict_lines picks them)
            "because_zh": list(v.because_zh), "warnings_zh": list(v.warnings_zh), "caveats_zh": list(v.caveats_zh),
            "alternatives_zh": list(v.alternatives_zh),
            "measured_with": v.measured_with or None,
            "blocking": [{k: getattr(b, k) for k in ("code", "reason", "remedy", "reason_zh", "remedy_zh")}
                         for b in v.blocking],
            # an INCONCLUSIVE verdict's measured settings, to try (advisor/decide/verdict.py try_flags)
            "try_flags": _flag(v.try_flags),
            "assumptions": list(v.assumptions)}
